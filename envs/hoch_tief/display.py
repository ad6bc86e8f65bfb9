"""Hoch & Tief's display facts: what a frontend shows of it (:mod:`stichzoo.envs.core.display`)."""

from __future__ import annotations

from collections.abc import Sequence

from stichzoo.envs.core.display import Column, GameDisplay, Note, Suit
from stichzoo.envs.hoch_tief.rules import lookups, score_taken


def _by_suit(cards: list[str]) -> str:
    """Taken cards grouped by suit, low to high (the game scores each suit): ``A3 A8 / B1``."""
    suits: dict[str, list[str]] = {}
    for c in sorted(cards, key=lambda c: (c[0], int(c[1:]))):
        suits.setdefault(c[0], []).append(c)
    return " / ".join(" ".join(group) for group in suits.values()) or "-"


def _seat_columns(v: dict) -> list[Column]:
    n = len(v["totals"])
    return [("Cards", [str(v["hand_sizes"][s]) for s in range(n)]),
            ("Taken", [_by_suit(v["taken"][s]) for s in range(n)]),
            ("Would score", [str(v["taken_score"][s]) for s in range(n)])]


def _score_reasons(event: dict) -> list[str]:
    """Per seat and suit: 1-2 cards their numbers, 3 or more 1 each (``score_taken``)."""
    if event.get("taken") is None:
        return []
    t = lookups(len(event["totals"]))
    out = []
    for taken in event["taken"]:
        mask = t.deck.mask(taken)
        parts, points = [], []
        for suit_mask in t.suit_mask:
            cards = mask & suit_mask
            if not cards:
                continue
            names = t.deck.format_mask(cards)
            p = score_taken(cards, t)  # the rules' own count, one suit at a time
            parts.append(f"{len(names)} {names[0][0]} cards = {p}" if len(names) >= 3
                         else f"{' + '.join(names)} = {p}")
            points.append(p)
        total = score_taken(mask, t)
        if not parts:
            out.append(f"no cards taken = {total}")
        elif len(parts) == 1:
            out.append(parts[0])
        else:
            out.append(f"{', '.join(parts)}: {' + '.join(map(str, points))} = {total}")
    return out


def _notes(v: dict, names: Sequence[str]) -> list[Note]:
    return [Note(f"Led suit: {v['led_suit']}")] if v["led_suit"] else []


def _badges(v: dict) -> list[Note]:
    return [Note(f"Led suit: {v['led_suit']}", style=_COLOURS[v["led_suit"]])] \
        if v["led_suit"] else []


_COLOURS = dict(zip("ABCDE", ("red", "yellow", "green", "blue", "magenta")))

DISPLAY = GameDisplay(
    title="Hoch & Tief",
    suits=tuple(Suit(s, f"suit {s}", colour) for s, colour in _COLOURS.items()),
    winner_rule="the highest total wins",
    suit_first=True,
    option_docs={
        "rounds": "rounds to play (empty: the full game)",
        "first_dealer": "seat that deals the first round",
    },
    short_options={"rounds": 1},
    seat_columns=_seat_columns,
    score_reasons=_score_reasons,
    notes=_notes,
    badges=_badges,
)
