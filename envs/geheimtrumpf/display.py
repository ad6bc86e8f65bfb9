"""Geheimtrumpf's display facts: what a frontend shows of it (:mod:`stichzoo.envs.core.display`)."""

from __future__ import annotations

from collections.abc import Sequence

from stichzoo.envs.core.display import Cards, Column, GameDisplay, Grid, Note, Suit

#: every task id -> (its name for players, what meeting it takes at the end of a round);
#: in the rules' order (``rules.TASK_NAMES``); the rules text (rules.md) explains the same list
TASKS: dict[str, tuple[str, str]] = {
    "no_trick": ("No trick", "take no trick at all"),
    "one_trick": ("Exactly one trick", "take exactly 1 trick"),
    "two_tricks": ("Exactly two tricks", "take exactly 2 tricks"),
    "three_tricks": ("Exactly three tricks", "take exactly 3 tricks"),
    "most_tricks": ("Most tricks",
                    "take more tricks than every other player (a tie is not enough)"),
    "fewest_tricks": ("Fewest tricks",
                      "take fewer tricks than every other player (a tie is not enough)"),
    "last_trick": ("Last trick", "take the 9th, last trick"),
    **{f"no_{suit}": (f"No {suit}",
                      f"take no {suit[:-1]}: no card printed with {suit} among the cards you won")
       for suit in ("hearts", "diamonds", "spades", "clubs")},
}


def task_name(task: str) -> str:
    """A task id's name for players ("most_tricks" -> "Most tricks")."""
    return TASKS[task][0] if task in TASKS else task


#: each task's name as a player says it in running text ("choose no trick"): the names of
#: :data:`TASKS`, one name per task everywhere (the page, the terminal, the rules text)
TASK_WORDS = {task: name[0].lower() + name[1:] for task, (name, _) in TASKS.items()}

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


def _score_reasons(event: dict) -> list[str]:
    """Per seat: the task chosen and whether the round met it (the rules' check), or what
    the start player checked off; ``(+1)`` / ``(+0)``: the tasks checked off this round."""
    if event.get("met") is None:
        return []
    n = len(event["totals"])
    tricks = event.get("tricks_won") or [0] * n
    out = []
    for seat in range(n):
        took = f"took {tricks[seat]} trick{'s' if tricks[seat] != 1 else ''}"
        chosen, met = event["chosen"][seat], event["met"][seat]
        if met is None:  # the start player chose no task
            done = event.get("start_checks")
            out.append(f"start player, {took}: met a task another player chose and missed, "
                       f"checked off {task_name(done)} (+1)" if done else
                       f"start player, {took}: met no task another player missed (+0)")
        else:
            out.append(f"chose {task_name(chosen)}, {took}: "
                       + ("met, checked off (+1)" if met else "missed (+0)"))
    return out


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
    score_reasons=_score_reasons,
    notes=_notes,
    badges=_badges,
    terms=TASK_WORDS,
)
