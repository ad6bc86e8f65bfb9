"""Geheimtrumpf's display facts: what a frontend shows of it (:mod:`stichzoo.envs.core.display`)."""

from __future__ import annotations

from collections.abc import Sequence

from stichzoo.envs.core.display import Cards, Column, GameDisplay, Grid, Note, Suit

#: each task's name as a player says it (the ids are ``rules.TASK_NAMES``)
TASK_WORDS = {
    "no_trick": "no trick", "one_trick": "exactly 1 trick", "two_tricks": "exactly 2 tricks",
    "three_tricks": "exactly 3 tricks", "most_tricks": "most tricks",
    "fewest_tricks": "fewest tricks", "last_trick": "the last trick", "no_hearts": "no hearts",
    "no_diamonds": "no diamonds", "no_spades": "no spades", "no_clubs": "no clubs",
}
_SUITS = (Suit("H", "hearts", "red", "\u2665"), Suit("D", "diamonds", "yellow", "\u2666"),
          Suit("S", "spades", "blue", "\u2660"), Suit("C", "clubs", "green", "\u2663"))


def _task(t: str) -> str:
    return TASK_WORDS.get(t, t)


def _where(v: dict) -> str:
    return f"round {v['round'] + 1} (limit {v['options']['round_limit']})"


def _seat_columns(v: dict) -> list[Column]:
    n = len(v["totals"])

    def tasks(s: int) -> str:
        done = set(v["checked"][s])
        return ", ".join(f"\u2714{_task(t)}" if t in done else _task(t)
                         for t in v["tasks"][s]) or "-"

    def chosen(s: int) -> str:
        c = v["chosen"][s]
        return "-" if c is None else ("(secret)" if c == "secret" else _task(c))

    return [("Tasks (\u2714 checked off)", [tasks(s) for s in range(n)]),
            ("Chosen", [chosen(s) for s in range(n)]),
            ("Tricks", [str(v["tricks_won"][s]) for s in range(n)])]


def _round_columns(event: dict) -> list[Column]:
    n = len(event["totals"])

    def met(s: int) -> str:
        m = (event.get("met") or [None] * n)[s]
        chosen = (event.get("chosen") or [None] * n)[s]
        if m is None:
            checks = event.get("start_checks")
            return f"start player: checked {_task(checks) if checks else 'nothing'}"
        return f"{_task(chosen)}: {'met, checked off' if m else 'missed'}"

    return [("Tricks", [str((event.get("tricks_won") or [0] * n)[s]) for s in range(n)]),
            ("Task", [met(s) for s in range(n)])]


def _notes(v: dict, names: Sequence[str]) -> list[Note | Grid]:
    out: list[Note | Grid] = []
    n = len(names)
    t = v["trumps"]
    if t is None:
        out.append(Note("Trumps: unknown to you (only the start player knows them until the "
                        "draft ends)"))
    else:
        out.append(Note(f"Trumps: suit {t['suit'] or 'none'}, value {t['value'] or 'none'}",
                        style="bold"))
    if v["draft"] and v["phase"] in ("card_draft", "task_choice"):
        rows = []
        for row in v["draft"]:
            seats = tuple((row["first"] + k) % n for k in range(len(row["cards"])))
            winner = "(in progress)" if row["winner"] is None else names[row["winner"]]
            rows.append((str(row["row"] + 1), Cards(tuple(row["cards"]), seats), winner))
        out.append(Grid("Draft rows and the announced row winners:",
                        ("Row", "Cards (in take order)", "Winner"), tuple(rows)))
    left = [(i, r) for i, r in enumerate(v["layout"]) if r]
    if left:
        out.append(Note("Face-up rows left: " + "  ".join(
            f"{i + 1}: {' '.join(r)}" for i, r in left)))
    if any(v["hands"]):
        out.append(Grid("Open hands (drafted cards lie face up):", ("Seat", "Cards"),
                        tuple((names[s], Cards(tuple(h)) if h else "-")
                              for s, h in enumerate(v["hands"]))))
    return out


def _badges(v: dict) -> list[Note]:
    t = v["trumps"]
    if t is None:
        return [Note("Trumps: secret until the draft ends")]
    suit = next((x for x in _SUITS if x.key == t["suit"]), None)
    parts = [f"{suit.symbol} {suit.name}" if suit else "no trump suit",
             f"every {t['value']}" if t["value"] else "no trump value"]
    return [Note("Trumps: " + " + ".join(parts), style=f"bold {suit.colour}" if suit else "bold")]


DISPLAY = GameDisplay(
    title="Geheimtrumpf",
    suits=_SUITS,
    winner_rule="whoever checks off all four tasks wins",
    ranks=("A", "2", "3", "4", "5", "6", "7", "8", "9"),
    secret_kinds=frozenset({"choose_task"}),
    reveal_keys=("chosen",),
    option_docs={
        "round_limit": "rounds after which a game without a winner ends",
        "first_start": "seat that starts the task draft and the first round",
    },
    short_options={"round_limit": 3},
    where=_where,
    seat_columns=_seat_columns,
    round_columns=_round_columns,
    notes=_notes,
    badges=_badges,
    terms=TASK_WORDS,
)
