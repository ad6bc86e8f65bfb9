"""Hoch & Tief's display facts: what a frontend shows of it (:mod:`stichzoo.envs.core.display`)."""

from __future__ import annotations

from collections.abc import Sequence

from stichzoo.envs.core.display import Column, GameDisplay, Note, Suit


def _seat_columns(v: dict) -> list[Column]:
    n = len(v["totals"])
    return [("Cards", [str(v["hand_sizes"][s]) for s in range(n)]),
            ("Taken", [" ".join(v["taken"][s]) or "-" for s in range(n)]),
            ("Would score", [str(v["taken_score"][s]) for s in range(n)])]


def _notes(v: dict, names: Sequence[str]) -> list[Note]:
    return [Note(f"Led suit: {v['led_suit']}")] if v["led_suit"] else []


DISPLAY = GameDisplay(
    title="Hoch & Tief",
    suits=tuple(Suit(s, f"suit {s}", colour) for s, colour in
                zip("ABCDE", ("red", "yellow", "green", "blue", "magenta"))),
    winner_rule="the highest total wins",
    suit_first=True,
    option_docs={
        "rounds": "rounds to play (empty: the full game)",
        "first_dealer": "seat that deals the first round",
    },
    short_options={"rounds": 1},
    seat_columns=_seat_columns,
    notes=_notes,
)
