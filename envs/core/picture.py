"""The table as a picture: ``render_mode="rgb_array"``, one ``HxWx3`` uint8 frame per call.

The picture is the browser table's main column (docs/web_table.md), drawn
from the same facts the page draws from: the seat's player view
(``envs/<game>/view.py`` ``to_view``, docs/views/<game>.md) and the game's
display facts (``envs/<game>/display.py``: the title, where the game stands,
the scoreboard's columns, the game's notes, the suits with their names,
colours and symbols, the card faces).  From top to bottom: the game and its
phase; the scoreboard (one row per seat, the seat to act marked and
shaded); the game's notes (trump, the Joker's gift, Geheimtrumpf's draft
rows and open hands, ...); the previous trick with its outcome and the trick
on the table; the hand of the seat the picture is drawn for, one row per
suit in the game's suit order, its legal cards outlined, and its other legal
moves (bids, choices) listed; at the end of the game the winners.

It shows what the text render (``ansi``) shows: the public table and the
hand of *one* seat - the seat to act, in the AEC env; the learner's seat, in
the single-seat view - or every hand when the env was made with
``show_all_hands=True``.  Drawing reads the game state and never changes it:
no observation, reward or random stream depends on whether, or how often, a
game was drawn.

Every frame of an env has the same size (:func:`frame_size`), as video
writers need: a table whose content is taller than the frame (long notes) is
scaled down to fit.  Pillow draws it; it is imported only here, when a
picture is asked for (``pip install 'stichzoo[render]'``).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np
from gymnasium.error import DependencyNotInstalled

from stichzoo.envs.core.display import Cards, GameDisplay, Grid, Note
from stichzoo.envs.core.game import Game, GameState
from stichzoo.envs.registry import display_of, view_of

#: the frame's width in pixels (the browser table's main column)
WIDTH = 960
#: the page's colours (policies/serve/static/table.css)
BG, FG, MUTED, LINE, CARD = "#f4f1ea", "#1d1d1d", "#6b6b6b", "#d0cbbf", "#fffdf7"
FELT, LEGAL, BAR, TO_ACT = "#2f6b4f", "#f2b705", "#23302a", "#fff6cf"
#: a display style's colour words as the page shows them (table.css ``.c-<word>``)
STYLE_COLOURS = {"red": "#c0281f", "blue": "#1f4fb0", "green": "#1c7a2c", "yellow": "#a67600",
                 "magenta": "#7a2aa0", "cyan": "#00707a", "dim": "#666666", "black": "#222222"}
CARD_W, CARD_H, GAP, MARGIN = 40, 48, 5, 14
ROW_H, LINE_H = 23, 19


def _pil():
    """Pillow's modules, imported on the first picture (never when the env module loads)."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as e:
        raise DependencyNotInstalled(
            "render_mode='rgb_array' draws the table with Pillow, which is not installed: "
            "pip install 'stichzoo[render]' (or pip install pillow)") from e
    return Image, ImageDraw, ImageFont


def _font_files() -> tuple[str | None, str | None]:
    """DejaVu Sans (regular, bold): a system copy, else matplotlib's; None when neither."""
    found: list[str | None] = []
    spec = importlib.util.find_spec("matplotlib")
    mpl = (os.path.join(next(iter(spec.submodule_search_locations)), "mpl-data", "fonts", "ttf")
           if spec and spec.submodule_search_locations else None)
    for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"):
        places = [os.path.join(d, name) for d in ("/usr/share/fonts/truetype/dejavu",
                                                  "/usr/share/fonts/dejavu",
                                                  "/Library/Fonts", mpl) if d]
        found.append(next((p for p in places if os.path.exists(p)), None))
    return found[0], found[1]


@cache
def _font(size: int, bold: bool = False):
    _, _, ImageFont = _pil()
    regular, heavy = _font_files()
    path = heavy if bold and heavy else regular
    if path:
        return ImageFont.truetype(path, size)
    return ImageFont.load_default(size)  # Pillow's own font: no suit symbols (see _symbols)


@cache
def _symbols() -> bool:
    """Whether the font draws suit symbols; without DejaVu the faces show the suit key."""
    return _font_files()[0] is not None


def _colour(style: str) -> str:
    for word in style.split():
        if word in STYLE_COLOURS:
            return STYLE_COLOURS[word]
    return STYLE_COLOURS["black"]


class _Canvas:
    """A tall scratch image and a cursor; :meth:`frame` crops or scales it to the frame."""

    def __init__(self, display: GameDisplay, height: int):
        Image, ImageDraw, _ = _pil()
        self.display = display
        self.image = Image.new("RGB", (WIDTH, 4 * height), BG)
        self.draw = ImageDraw.Draw(self.image)
        self.y = 0

    def text(self, x: float, y: float, text: str, size: int = 14, bold: bool = False,
             fill: str = FG, anchor: str = "la") -> float:
        """Draw ``text``; its width."""
        font = _font(size, bold)
        self.draw.text((x, y), text, font=font, fill=fill, anchor=anchor)
        return self.draw.textlength(text, font=font)

    def width(self, text: str, size: int = 14, bold: bool = False) -> float:
        return self.draw.textlength(text, font=_font(size, bold))

    def wrapped(self, text: str, size: int = 14, bold: bool = False, fill: str = FG) -> None:
        """A paragraph at the cursor, wrapped between words to the frame's width."""
        line = ""
        for word in text.split(" "):
            wider = f"{line} {word}" if line else word
            if line and self.width(wider, size, bold) > WIDTH - 2 * MARGIN:
                self.text(MARGIN, self.y, line, size, bold, fill)
                self.y += LINE_H
                line = word
            else:
                line = wider
        self.text(MARGIN, self.y, line, size, bold, fill)
        self.y += LINE_H

    def heading(self, text: str) -> None:
        self.y += 6
        self.text(MARGIN, self.y, text.upper(), 13, True, MUTED)
        self.y += 20

    def card(self, x: float, y: float, card: str, small: bool = False,
             legal: bool = False) -> float:
        """A card face as the page draws it; its width."""
        face = self.display.face(card)
        suit = next((s for s in self.display.suits if s.key == self.display.suit_of(card)), None)
        text, sub = face.text, face.sub
        if not _symbols() and suit is not None and suit.symbol and text.endswith(suit.symbol):
            text, sub = text[:-len(suit.symbol)], suit.key
        fill = _colour(suit.colour if suit else "")
        size = 13 if small else 16
        w = max(CARD_W - (8 if small else 0),
                self.width(text, size, True) + (self.width(sub, 10) if sub else 0) + 10)
        h = CARD_H - (12 if small else 0)
        self.draw.rounded_rectangle((x, y, x + w, y + h), 5, fill="#fffbe6" if legal else CARD,
                                    outline=LEGAL if legal else "#8d8672",
                                    width=3 if legal else 1)
        tw = self.width(text, size, True) + (self.width(sub, 10) if sub else 0)
        left = x + (w - tw) / 2
        self.text(left, y + h / 2, text, size, True, fill, anchor="lm")
        if sub:
            self.text(left + self.width(text, size, True), y + h - 6, sub, 10, False, fill,
                      anchor="ld")
        return w

    def frame(self, height: int) -> np.ndarray:
        """The picture as a ``height x WIDTH x 3`` uint8 array: content taller than the frame
        is scaled down to fit, shorter content sits at the top."""
        Image, _, _ = _pil()
        used = self.y + MARGIN
        content = self.image.crop((0, 0, WIDTH, used))
        out = Image.new("RGB", (WIDTH, height), BG)
        if used > height:
            content = content.resize((max(1, WIDTH * height // used), height), Image.LANCZOS)
        out.paste(content, (0, 0))
        return np.asarray(out, dtype=np.uint8)


def frame_size(game: Game, show_all_hands: bool = False) -> tuple[int, int]:
    """(height, width) of every frame of a game: room for the scoreboard, three notes, the
    trick boxes and one hand (every hand with ``show_all_hands``) of a row per suit."""
    n = game.num_players
    suits = len(display_of(game.name).suits)
    hand = 26 + suits * (CARD_H + GAP) + 2 * LINE_H
    height = 34 + 34 + (n + 1) * ROW_H + 3 * LINE_H + 130 + hand * (n if show_all_hands else 1)
    return height + 2 * MARGIN, WIDTH


def _view(game: Game, state: GameState, seat: int) -> dict[str, Any]:
    return view_of(game.name).to_view(state, seat)


def _last_trick(state: GameState) -> dict | None:
    """The latest completed trick in the round log, also of an earlier round (as the page)."""
    for entry in reversed(state.log or []):
        if entry.get("tricks"):
            return entry["tricks"][-1]
    return None


def table_picture(game: Game, state: GameState, seat: int,
                  show_all_hands: bool = False) -> np.ndarray:
    """The table as ``seat`` sees it (every hand with ``show_all_hands``): a frame of
    :func:`frame_size`.  ``seat`` -1 (nobody to act, at the end): the public table only."""
    display = display_of(game.name)
    height, _ = frame_size(game, show_all_hands)
    c = _Canvas(display, height)
    n = game.num_players
    names = [f"player_{s}" for s in range(n)]
    view = _view(game, state, max(seat, 0))
    over = bool(state.over or state.truncated)

    c.draw.rectangle((0, 0, WIDTH, 34), fill=BAR)
    w = c.text(MARGIN, 17, "stichzoo", 18, True, "#f4f1ea", anchor="lm")
    shown = ("every hand" if show_all_hands else "no hand" if seat < 0 or over
             else f"the hand of {names[seat]}")
    c.text(MARGIN + w + 12, 18, f"{game.env_id}: the public table and {shown}", 12,
           False, "#c9cfc9", anchor="lm")
    c.y = 44
    phase = "game over" if over else view["phase"].replace("_", " ")
    c.text(MARGIN, c.y, f"{display.title} - {display.where(view)} - phase: {phase}", 18, True)
    c.y += 32
    _scoreboard(c, display, view, names, seat)
    for note in display.notes(view, names):
        _note(c, note, names)
    _tricks(c, display, view, _last_trick(state), names)
    if over:
        winners = state.winners()
        c.heading("game over")
        c.wrapped(f"Totals {', '.join(f'{names[s]} {t}' for s, t in enumerate(state.totals))}. "
                  f"Winners: {', '.join(names[s] for s in winners) or 'nobody'} "
                  f"({display.winner_rule}).", bold=True)
    else:
        for s in (range(n) if show_all_hands else [seat] if seat >= 0 else []):
            _hand(c, display, view if s == seat else _view(game, state, s), names[s])
    return c.frame(height)


def _scoreboard(c: _Canvas, display: GameDisplay, v: dict, names: Sequence[str],
                seat: int) -> None:
    """One row per seat: whose turn, the seat, the game's per-seat columns, the total."""
    n = len(names)
    dealer = v.get("dealer", v.get("start_player"))
    role = "dealer" if "dealer" in v else "start"
    who = [names[s] + (f" ({role})" if s == dealer else "") for s in range(n)]
    columns = [("Seat", who), *display.seat_columns(v), ("Total", [str(t) for t in v["totals"]])]
    widths = [max(c.width(t, 14, True) for t in [title, *texts]) + 16 for title, texts in columns]
    x0 = MARGIN + 22
    right = x0 + sum(widths)
    x = x0
    for (title, _), w in zip(columns, widths):
        c.text(x + 6, c.y + 4, title, 14, True)
        x += w
    c.y += ROW_H
    c.draw.line((MARGIN, c.y - 1, right, c.y - 1), fill=LINE)
    for s in range(n):
        if v.get("to_act") == s:
            c.draw.rectangle((MARGIN, c.y, right, c.y + ROW_H - 1), fill=TO_ACT)
            c.text(MARGIN + 4, c.y + 4, "\u25b6", 12)
        x = x0
        for k, ((_, texts), w) in enumerate(zip(columns, widths)):
            text = texts[s]
            if k:  # numbers right-aligned, as on the page
                c.text(x + w - 6, c.y + 4, text, 14, s == seat, anchor="ra")
            else:
                c.text(x + 6, c.y + 4, text, 14, s == seat)
            x += w
        c.y += ROW_H
        c.draw.line((MARGIN, c.y - 1, right, c.y - 1), fill=LINE)
    c.y += 8


def _note(c: _Canvas, note: Note | Grid, names: Sequence[str]) -> None:
    if isinstance(note, Note):
        c.wrapped(note.text, bold="bold" in note.style.split(),
                  fill=_colour(note.style) if note.style else FG)
        return
    c.text(MARGIN, c.y, note.title, 14, True)
    c.y += LINE_H
    rows = [list(note.columns), *[list(r) for r in note.rows]]
    widths = [max(_cell_width(c, r[k], names) for r in rows) + 14
              for k in range(len(note.columns))]
    for i, row in enumerate(rows):
        tall = any(isinstance(cell, Cards) for cell in row)
        x = MARGIN
        for cell, w in zip(row, widths):
            if isinstance(cell, Cards):
                _cards_cell(c, x, c.y, cell, names)
            else:
                c.text(x, c.y + (9 if tall else 2), cell, 13, i == 0)
            x += w
        c.y += (CARD_H - 8 if tall else LINE_H)
    c.y += 4


def _cell_width(c: _Canvas, cell: str | Cards, names: Sequence[str]) -> float:
    if not isinstance(cell, Cards):
        return c.width(cell, 13, True)
    seats = cell.seats or [None] * len(cell.cards)
    return sum(CARD_W - 4 + (c.width(names[s] + " ", 12) if s is not None else 0) + GAP
               for s in seats)


def _cards_cell(c: _Canvas, x: float, y: float, cell: Cards, names: Sequence[str]) -> None:
    """Small cards, each after the seat that played it when the cell names seats."""
    seats = cell.seats or [None] * len(cell.cards)
    for card, s in zip(cell.cards, seats):
        if s is not None:
            x += c.text(x, y + 10, names[s] + " ", 12)
        x += c.card(x, y, card, small=True) + GAP


def _tricks(c: _Canvas, display: GameDisplay, v: dict, last: dict | None,
            names: Sequence[str]) -> None:
    """The page's two felt boxes: the previous trick and its outcome, the trick on the table."""
    n = len(names)
    c.y += 6
    box_w = (WIDTH - 2 * MARGIN - 12) / 2
    top, bottom = c.y, c.y + 118
    for k, (title, trick) in enumerate((("previous trick", last),
                                        ("trick on the table", v.get("trick")))):
        x = MARGIN + k * (box_w + 12)
        c.draw.rounded_rectangle((x, top, x + box_w, bottom), 6, fill=FELT)
        c.text(x + 8, top + 6, title.upper(), 12, True, "#cfe3d7")
        cards = (trick or {}).get("cards") or []
        seats = (trick or {}).get("seats") or [((trick or {}).get("leader", 0) + i) % n
                                               for i in range(len(cards))]
        cx = x + 8
        for card, s in zip(cards, seats):
            w = c.card(cx, top + 26, card)
            c.text(cx + w / 2, top + 26 + CARD_H + 3, names[s], 11, False, "#eeeeff",
                   anchor="ma")
            cx += max(w, c.width(names[s], 11)) + 6
        if not cards:
            c.text(x + 8, top + 40, "(none yet)" if k == 0 else "(no cards yet)", 13, False,
                   "#cfe3d7")
        if k == 0 and trick:
            c.text(x + 8, top + 26 + CARD_H + 22, _outcome(trick, names), 12, False, "#ffffff")
    c.y = bottom + 8


def _outcome(t: dict, names: Sequence[str]) -> str:
    """Who took the previous trick, in the terminal table's words."""
    if "high" in t:
        out = (f"-> {names[t['low_seat']]} takes {t['high']}, "
               f"{names[t['high_seat']]} the rest")
    elif t.get("winner") is None:
        out = "-> all Aces: out of the game"
    else:
        out = f"-> {names[t['winner']]}"
    if "gift" in t:
        out += f" (Joker gift: {names[t['joker_seat']]} gave it {t['gift']})"
    return out


def _hand(c: _Canvas, display: GameDisplay, v: dict, name: str) -> None:
    """A hand, one row per suit in the game's order, low to high; legal cards outlined, the
    seat's other legal moves listed under it."""
    c.heading(f"hand of {name}")
    order = [s.key for s in display.suits]
    groups: dict[str, list[str]] = {}
    for card in v["hand"]:
        groups.setdefault(display.suit_of(card), []).append(card)
    legal = set(v.get("legal") or [])
    if not v["hand"]:
        c.text(MARGIN, c.y, "(no cards)", 13, False, MUTED)
        c.y += LINE_H
    for key in sorted(groups, key=lambda s: order.index(s) if s in order else len(order)):
        suit = next((s.name for s in display.suits if s.key == key), key)
        c.text(MARGIN, c.y + CARD_H / 2, suit, 12, False, MUTED, anchor="lm")
        x = MARGIN + 80
        for card in sorted(groups[key], key=display.rank):
            x += c.card(x, c.y, card, legal=card in legal) + GAP
        c.y += CARD_H + GAP
    moves = [m for m in v.get("legal") or [] if m not in v["hand"]]
    if moves:
        c.wrapped("Legal moves: " + ", ".join(moves), 13)


__all__ = ["WIDTH", "frame_size", "table_picture"]
