"""``stichzoo play <game>``: a terminal table for one person and bots, drawn with rich.

Everything on the screen comes from :meth:`stichzoo.policies.tables.table.Table.view`,
so the screen shows exactly what a person in that seat may know: the own hand
sorted by suit, the numbered legal moves, the trick in progress and the
previous one, bids / tricks / scores (or tasks and check-offs), Geheimtrumpf's
row-winner announcements and open hands, Silberne Ananas' Joker gift, and a
summary at the end of every round and of the game.

Input: the number of a legal move or its label (``3``, ``R7``, ``bid 2``),
``rules`` for the game's rules (:func:`stichzoo.envs.registry.rules_of`, the
text the web table and the docs show), ``hint`` for the search's suggestion
(:meth:`~stichzoo.policies.tables.table.Table.hint`, the web table's hint),
``?`` for help, ``q`` to leave.  At the end of the game the person may ask for
the analysis of their moves (:meth:`~stichzoo.policies.tables.table.Table.analysis`).  The
end of every round says how each seat scored, in words.  A bad input gets a
message naming the problem and the prompt again; Ctrl-C or end of input leaves like ``q``.  At
the end the game record is saved (``docs/records.md``), so any game can be
replayed or studied; ``--seed`` deals the same game again.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console, Group
from rich.markdown import Markdown
from rich.panel import Panel
from rich.table import Table as RichTable
from rich.text import Text

from stichzoo.envs.core.display import YOU, Cards, Grid, agree
from stichzoo.envs.registry import display_of, rules_of
from stichzoo.policies.specs import split_specs
from stichzoo.policies.tables.table import Table, TableError, describe_event

HELP = """Type the number of a move (as listed) or its label, e.g. 3 or R7 or "bid 2".
  rules        the rules of this game: tricks, scoring, an example
  hint         the search's suggested move, and how much worse it rates each other move
  ?  or help   this help
  q  or quit   leave the table (no record is saved for an unfinished game)"""


# -- cards ------------------------------------------------------------------------------


def suit_of(game: str, card: str) -> str:
    """The suit key of a card name in ``game`` (Wizards, Jesters and the Joker are their own)."""
    return display_of(game).suit_of(card)


def card_text(game: str, card: str) -> Text:
    suit = display_of(game).suit_of(card)
    style = next((s.colour for s in display_of(game).suits if s.key == suit), "")
    return Text(card, style=style)


def cards_text(game: str, cards: Sequence[str], sep: str = " ") -> Text:
    out = Text()
    for i, c in enumerate(cards):
        if i:
            out.append(sep)
        out.append_text(card_text(game, c))
    return out


def hand_by_suit(game: str, hand: Sequence[str]) -> RichTable:
    """The hand, one line per suit, low to high (suits in the game's own order)."""
    display = display_of(game)
    order = [s.key for s in display.suits]
    names = {s.key: s.name for s in display.suits}
    groups: dict[str, list[str]] = {}
    for c in hand:
        groups.setdefault(display.suit_of(c), []).append(c)
    grid = RichTable.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    keys = sorted(groups, key=lambda s: order.index(s) if s in order else len(order))
    for s in keys:
        cards = sorted(groups[s], key=display.rank)
        grid.add_row(names.get(s, s), cards_text(game, cards))
    if not hand:
        grid.add_row("", Text("(no cards)", style="dim"))
    return grid


# -- the screen -------------------------------------------------------------------------


def seat_names(view: dict) -> list[str]:
    """Short names: "You" for the person, "Seat k" for a bot."""
    return [YOU if p["human"] else f"Seat {p['seat']}" for p in view["players"]]


def _trick_text(game: str, trick: dict | None, names: Sequence[str], n: int) -> Text:
    if not trick or not trick.get("cards"):
        return Text("(no cards yet)", style="dim")
    seats = trick.get("seats") or [(trick["leader"] + k) % n for k in range(len(trick["cards"]))]
    return _seated_cards(game, trick["cards"], seats, names)


def _seated_cards(game: str, cards: Sequence[str], seats: Sequence[int],
                  names: Sequence[str]) -> Text:
    """``Seat 1 R7, You B3, ...``: cards in the order they came, each after its player."""
    out = Text()
    for k, (c, s) in enumerate(zip(cards, seats)):
        if k:
            out.append(", ")
        out.append(f"{names[s]} ")
        out.append_text(card_text(game, c))
    return out


def _previous_trick(game: str, t: dict | None, names: Sequence[str], n: int) -> Text:
    if not t:
        return Text("(none yet)", style="dim")
    out = _trick_text(game, t, names, n)
    if "high" in t:
        out.append(f"  -> {agree(names[t['low_seat']], 'takes')} {t['high']}, "
                   f"{names[t['high_seat']]} the rest")
    elif t.get("winner") is None:
        out.append("  -> all Aces: out of the game")
    else:
        out.append(f"  -> {names[t['winner']]}")
    if "gift" in t:
        out.append(f" (Joker gift: {names[t['joker_seat']]} gave it {t['gift']})")
    return out


def _scoreboard(game: str, v: dict, names: Sequence[str], players: list[dict]) -> RichTable:
    """One row per seat: who, whose turn, the game's per-seat facts, the total."""
    n = len(names)
    tb = RichTable(box=None, padding=(0, 1), show_edge=False, header_style="bold")
    tb.add_column("")
    tb.add_column("Seat")
    tb.add_column("Player")
    cols = display_of(game).seat_columns(v)
    for title, _ in cols:
        tb.add_column(title)
    tb.add_column("Total", justify="right")
    dealer = v.get("dealer", v.get("start_player"))
    role = "dealer" if "dealer" in v else "start"
    for s in range(n):
        marks = ">" if v.get("to_act") == s else ""
        who = names[s] + (f" ({role})" if s == dealer else "")
        policy = "you" if players[s]["human"] else players[s]["policy"]
        tb.add_row(marks, who, policy, *[texts[s] for _, texts in cols], str(v["totals"][s]),
                   style="bold" if players[s]["human"] else None)
    return tb


def _header(game: str, v: dict) -> str:
    display = display_of(game)
    return f"{display.title} - {display.where(v)} - phase: {v['phase'].replace('_', ' ')}"


def _game_lines(game: str, v: dict, names: Sequence[str]) -> list:
    """The facts only this game has (trump, sore cards, Joker, draft, ...): its notes."""
    out: list = []
    for note in display_of(game).notes(v, names):
        if isinstance(note, Grid):
            out.append(Text(note.title, style="bold"))
            grid = RichTable(box=None, padding=(0, 1))
            for title in note.columns:
                grid.add_column(title)
            for row in note.rows:
                grid.add_row(*[_cell(game, c, names) for c in row])
            out.append(grid)
        else:
            out.append(Text(note.text, style=note.style))
    return out


def _cell(game: str, cell: str | Cards, names: Sequence[str]) -> str | Text:
    if not isinstance(cell, Cards):
        return Text(cell) if cell == "-" else cell
    if cell.seats is None:
        return cards_text(game, cell.cards)
    return _seated_cards(game, cell.cards, cell.seats, names)


def render_table(tv: dict) -> Panel:
    """The table as the person sees it, from a :meth:`Table.view`."""
    game, v = tv["game"], tv["view"]
    names = seat_names(tv)
    n = len(names)
    parts: list = [_scoreboard(game, v, names, tv["players"]), Text("")]
    parts.extend(_game_lines(game, v, names))
    parts.append(Text.assemble(("Previous trick: ", "bold"),
                               _previous_trick(game, tv["last_trick"], names, n)))
    if v.get("trick") is not None:
        parts.append(Text.assemble(("Trick on the table: ", "bold"),
                                   _trick_text(game, v["trick"], names, n)))
    parts.append(Text("Your hand:", style="bold"))
    parts.append(hand_by_suit(game, v["hand"]))
    return Panel(Group(*parts), title=_header(game, v), title_align="left")


def moves_text(tv: dict, width: int = 80) -> Text:
    """The numbered legal moves, wrapped between moves (never inside one)."""
    out = Text("Your moves:", style="bold")
    used = len(out)
    for m in tv["moves"]:
        item = Text(f"{m['n']}: ", style="bold cyan")
        if m.get("kind") == "card":
            item.append_text(card_text(tv["game"], m["label"]))
        else:
            item.append(m["label"])
        if used + 2 + len(item) > width:
            out.append("\n ")
            used = 1
        out.append("  ")
        out.append_text(item)
        used += 2 + len(item)
    return out


def round_summary(tv: dict, event: dict) -> RichTable:
    """The end of a round: each seat's round score (or check-offs), how it came about
    (the event's ``reasons``) and the totals."""
    names = seat_names(tv)
    game = tv["game"]
    tb = RichTable(title=f"End of round {event['round'] + 1}", title_justify="left")
    tb.add_column("Seat")
    extra = display_of(game).round_columns(event)
    for title, _ in extra:
        tb.add_column(title)
    reasons = event.get("reasons") or []
    if event.get("scores") is not None:
        tb.add_column("Round score", justify="right")
    if reasons:
        tb.add_column("How it scored")
    tb.add_column("Total", justify="right")
    for s in range(len(names)):
        row = [names[s], *[texts[s] for _, texts in extra]]
        if event.get("scores") is not None:
            row.append(str(event["scores"][s]))
        if reasons:
            row.append(reasons[s])
        row.append(str(event["totals"][s]))
        tb.add_row(*row, style="bold" if tv["players"][s]["human"] else None)
    return tb


def move_text(game: str, move: dict, numbers: dict[int, int] | None = None) -> Text:
    """A move as the person sees it: a card in the hand's notation, else in words
    (``choose no trick``); with its number from the move list when ``numbers`` has it."""
    out = Text()
    if numbers and move["id"] in numbers:
        out.append(f"{numbers[move['id']]}: ", style="bold cyan")
    if move.get("kind") == "card":
        out.append_text(card_text(game, move["label"]))
    else:
        out.append(display_of(game).in_words(move["label"]))
    return out


def _points(x: float) -> str:
    return f"{x:g} point" + ("" if abs(x) == 1 else "s")


def hint_panel(tv: dict, hint: dict) -> Panel:
    """The search's hint (:meth:`Table.hint`): the suggested move, why, and for each other
    move how much worse it is estimated over the rest of the round, with its standard error."""
    game = tv["game"]
    numbers = {m["id"]: m["n"] for m in tv["moves"]}
    lines: list = [Text.assemble(("Suggested: ", "bold"), move_text(game, hint["move"], numbers),
                                 f"  ({hint['why']})")]
    others = [v for v in hint["values"] if v["id"] != hint["move"]["id"]]
    if others:
        lines.append(Text("The others, estimated against it over the rest of the round "
                          "(your points, \u00b1 one standard error):"))
        grid = RichTable.grid(padding=(0, 2))
        grid.add_column()
        grid.add_column()
        for v in others:
            if v["difference"] is None:
                how = f"not rated: {v['reason']}" if v.get("reason") else "not rated"
            else:
                worse = -v["difference"] + 0.0
                how = (f"{_points(worse)} worse" if worse > 0 else
                       "as good" if worse == 0 else f"{_points(-worse)} better")
                if v["difference_stderr"] is not None:
                    how += f" (\u00b1 {v['difference_stderr']:g})"
            grid.add_row(Text("  ").append_text(move_text(game, v, numbers)), how)
        lines.append(grid)
    return Panel(Group(*lines), title="Hint (the search, pimc level)", title_align="left")


def analysis_panel(tv: dict, analysis: dict, top: int = 3) -> Panel:
    """The game's analysis (:meth:`Table.analysis`): per decision with a choice, the move
    made beside the search's, and the estimated loss; the ``top`` biggest losses marked."""
    game = tv["game"]
    entries = analysis["decisions"]
    losses = sorted((e["loss"] for e in entries if e["loss"]), reverse=True)
    worst = set(losses[:top])
    tb = RichTable(box=None, header_style="bold", padding=(0, 1))
    tb.add_column("Round", justify="right")
    tb.add_column("Your move")
    tb.add_column("The search's")
    tb.add_column("Est. loss", justify="right")
    for e in entries:
        if e["loss"] is None:
            loss = "not rated"
        else:
            loss = f"{e['loss']:g}" + (f" \u00b1 {e['loss_stderr']:g}"
                                       if e["loss_stderr"] is not None and not e["same"] else "")
        mark = "!" if e["loss"] in worst else ""
        tb.add_row(str(e["round"] + 1), move_text(game, e["move"]),
                   "same" if e["same"] else move_text(game, e["best"]), f"{mark}{loss}",
                   style="bold red" if mark else None)
    same = sum(e["same"] for e in entries)
    lines = [tb, Text(f"{len(entries)} decisions with a choice (forced moves skipped); the "
                      f"search agreed with {same}; estimated loss in all: "
                      f"{_points(analysis['total_loss'])}. ! marks the biggest losses.")]
    return Panel(Group(*lines), title="Analysis: your moves beside the search's",
                 title_align="left")


def rules_panel(game: str) -> Panel:
    """The game's rules for players (``envs/<game>/rules.md``), drawn from markdown."""
    return Panel(Markdown(rules_of(game)), title=f"{display_of(game).title}: the rules",
                 title_align="left")


def game_summary(tv: dict) -> Panel:
    """The end of the game: places, totals, winners by the game's own rule."""
    names = seat_names(tv)
    s = tv["summary"]
    tb = RichTable(box=None, header_style="bold")
    tb.add_column("Place")
    tb.add_column("Seat")
    tb.add_column("Player")
    tb.add_column("Total", justify="right")
    for seat in sorted(range(len(names)), key=lambda k: (s["places"][k], k)):
        p = tv["players"][seat]
        tb.add_row(str(s["places"][seat]), names[seat],
                   "you" if p["human"] else p["policy"], str(s["totals"][seat]))
    if s["winners"]:
        verdict = ("You won!" if s["human_won"] else
                   "Winner(s): " + ", ".join(names[w] for w in s["winners"]))
    else:
        verdict = "Nobody won: the round limit ended the game."
    lines = [tb, Text(f"Rule: {s['winner_rule']}."), Text(verdict, style="bold"),
             Text(f"Final totals (seat 0..{len(names) - 1}): "
                  + ", ".join(str(t) for t in s["totals"]))]
    return Panel(Group(*lines), title="Game over", title_align="left")


# -- the loop ---------------------------------------------------------------------------


def default_record_path(game: str, seed: int, folder: str = ".") -> str:
    """``stichzoo-<game>-<seed>.json`` in ``folder``; a free name if that one is taken."""
    base = os.path.join(folder, f"stichzoo-{game}-{seed}")
    path, k = f"{base}.json", 1
    while os.path.exists(path):
        path, k = f"{base}-{k}.json", k + 1
    return path


def check_record_path(path: str) -> str:
    """Refuse a record file that cannot be written before the game, not after it."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"--record {path}: the folder {folder} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"--record {path}: that is a folder; name a file such as game.json")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"--record {path}: the folder {folder} is not writable")
    return path


class Quit(Exception):
    """The person left the table."""


def _read(console: Console, prompt: str, read: Callable[[str], str] | None) -> str:
    try:
        return read(prompt) if read else console.input(prompt)
    except (EOFError, KeyboardInterrupt):
        raise Quit from None


def choose(console: Console, table: Table, tv: dict,
           read: Callable[[str], str] | None = None) -> int:
    """Ask until the person names a legal move; its action id."""
    moves = tv["moves"]
    prompt = f"Your move (1-{len(moves)}, a label, hint, rules, ? for help, q to quit): "
    while True:
        text = _read(console, prompt, read).strip()
        low = text.casefold()
        if low in ("q", "quit", "exit"):
            raise Quit
        if low in ("?", "h", "help"):
            console.print(HELP)
            console.print(moves_text(tv, console.width))
            continue
        if low == "rules":
            console.print(rules_panel(tv["game"]))
            console.print(moves_text(tv, console.width))
            continue
        if low == "hint":
            console.print("The search is thinking...")
            console.print(hint_panel(tv, table.hint(tv["decisions"])))
            console.print(moves_text(tv, console.width))
            continue
        if not text:
            console.print("Type the number of a move, e.g. 1, or its label; ? for help.")
            continue
        if text.isdigit():
            k = int(text)
            if 1 <= k <= len(moves):
                return moves[k - 1]["id"]
            console.print(f"There is no move {k}: choose a number from 1 to {len(moves)}.")
            continue
        try:
            return table.resolve(text)
        except TableError:
            labels = ", ".join(m["label"] for m in moves)
            console.print(f"{text!r} is not a legal move now. Legal moves: {labels}. "
                          f"Type a number from 1 to {len(moves)} or one of these labels.")


def play(table: Table, *, record_path: str | None = None, console: Console | None = None,
         read: Callable[[str], str] | None = None, replay_hint: str = "") -> int:
    """Play ``table`` with the person at the keyboard; 0 when the game ends or they leave."""
    console = console or make_console()
    tv = table.view()
    names = seat_names(tv)
    path = record_path or default_record_path(table.game.name, table.seed)
    check_record_path(path)
    console.print(Text(f"{display_of(table.game.name).title}: you are seat "
                       f"{table.human_seat}; seed {table.seed}. rules: the rules, hint: the "
                       f"search's suggestion, ? for help, q to quit.",
                       style="bold"))
    try:
        while True:
            for event in tv["events"]:
                if event["type"] == "round_end":
                    console.print(round_summary(tv, event))
                elif event["type"] != "game_over":  # the summary below says it
                    console.print(Text(describe_event(event, names)))
            if tv["over"]:
                break
            console.print(render_table(tv))
            console.print(moves_text(tv, console.width))
            tv = table.act(choose(console, table, tv, read))
    except (Quit, KeyboardInterrupt):  # Ctrl-C while the bots think leaves cleanly too
        console.print("You left the table; the game is not finished, so no record was saved. "
                      f"Play this deal again with --seed {table.seed}.")
        return 0
    console.print(game_summary(tv))
    with open(path, "w") as f:
        f.write(json.dumps(table.record(), indent=1))
    console.print(f"Record saved to {os.path.abspath(path)}")
    if replay_hint:
        console.print(f"Play the same deal again: {replay_hint}")
    offer_analysis(console, table, tv, read)
    return 0


def offer_analysis(console: Console, table: Table, tv: dict,
                   read: Callable[[str], str] | None = None) -> None:
    """At the end: ask whether to show the analysis of the person's moves; show it on yes."""
    try:
        answer = _read(console, "Analysis of your moves? (y/N): ", read).strip().casefold()
    except Quit:
        return
    if answer in ("y", "yes"):
        console.print("The search looks at each of your decisions...")
        console.print(analysis_panel(tv, table.analysis()))


def make_console() -> Console:
    """A console that honours NO_COLOR and the terminal width (COLUMNS)."""
    return Console(highlight=False, emoji=False, markup=False)  # "[x]", input: literal


def play_from_args(game: str, *, players: int | None, opponents: Sequence[str], seed: int | None,
                   seat: int, options: dict[str, Any], record: str | None) -> int:
    """What ``stichzoo play`` runs: build the table (errors as ValueError), then play."""
    if record:
        check_record_path(record)  # before the bots move: a game must not end unsaveable
    try:
        table = Table(game, players, options=options, opponents=split_specs(opponents),
                      human_seat=seat, seed=seed)
    except KeyboardInterrupt:  # the bots were still making their first moves
        print("You left the table before your first move.")
        return 0
    words = ["stichzoo", "play", game, "--players", str(table.game.num_players), "--seat",
             str(seat), "--seed", str(table.seed), "--opponents", ",".join(split_specs(opponents))]
    for k, v in options.items():  # as typed: JSON or the plain syntax (1,2)
        text = v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))
        words += ["--option", f"{k}={text}"]
    hint = shlex.join(words)
    return play(table, record_path=record, console=make_console(), replay_hint=hint)


__all__ = ["analysis_panel", "card_text", "check_record_path", "choose", "default_record_path",
           "game_summary", "hand_by_suit", "hint_panel", "move_text", "offer_analysis", "play",
           "play_from_args", "render_table", "round_summary", "rules_panel", "split_specs",
           "suit_of"]
