"""Hoch & Tief's display facts: what a frontend shows of it (:mod:`stichzoo.envs.core.display`)."""

from __future__ import annotations

from collections.abc import Sequence

from stichzoo.envs.core.display import Column, GameDisplay, Note, Suit


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
    notes=_notes,
    badges=_badges,
)
