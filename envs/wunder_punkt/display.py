"""Wunder Punkt's display facts: what a frontend shows of it (:mod:`stichzoo.envs.core.display`)."""

from __future__ import annotations

from collections.abc import Sequence

from stichzoo.envs.core.display import Column, GameDisplay, Note, Suit


def _seat_columns(v: dict) -> list[Column]:
    n = len(v["totals"])

    def sore(s: int) -> str:
        if v["sore_cards"][s] is not None:
            return f"{v['sore_cards'][s]} ({v['sore_suits'][s]})"
        return "face down" if v["picked"][s] else "-"

    return [("Sore card", [sore(s) for s in range(n)]),
            ("Won", [str(len(v["won"][s])) for s in range(n)]),
            ("Round so far", ["-" if v["round_scores"] is None else str(v["round_scores"][s])
                              for s in range(n)])]


def _round_columns(event: dict) -> list[Column]:
    if not event.get("sore_cards"):
        return []
    return [("Sore card", [str(c) for c in event["sore_cards"]])]


def _notes(v: dict, names: Sequence[str]) -> list[Note]:
    if v["phase"] != "sore":
        return []
    return [Note("Lay one card face down: its suit is your sore suit this round "
                 "(sore cards cost their number, all other cards won +1).", style="bold")]


def _badges(v: dict) -> list[Note]:
    mine = v["sore_suits"][v["seat"]] if v.get("sore_suits") else None
    suit = next((s for s in _SUITS if s.key == mine), None)
    return [Note(f"Your sore suit: {suit.symbol} {suit.name}", style=f"bold {suit.colour}")] \
        if suit else []


_SUITS = (Suit("c", "clubs", "green", "\u2663"), Suit("d", "diamonds", "yellow", "\u2666"),
          Suit("h", "hearts", "red", "\u2665"), Suit("s", "spades", "blue", "\u2660"))

DISPLAY = GameDisplay(
    title="Wunder Punkt",
    suits=_SUITS,
    winner_rule="the highest total wins",
    ranks=("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"),
    secret_kinds=frozenset({"sore"}),
    reveal_keys=("sore_cards",),
    option_docs={
        "larger_hands": "3 players only: play with A-Q (16 cards each)",
        "rounds": "rounds to play (empty: the full game)",
        "first_dealer": "seat that deals the first round",
    },
    short_options={"rounds": 1},
    seat_columns=_seat_columns,
    round_columns=_round_columns,
    notes=_notes,
    badges=_badges,
)
