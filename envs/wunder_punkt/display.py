"""Wunder Punkt's display facts: what a frontend shows of it (:mod:`stichzoo.envs.core.display`)."""

from __future__ import annotations

from collections.abc import Sequence

from stichzoo.envs.core.display import Column, GameDisplay, Note, Suit
from stichzoo.envs.wunder_punkt.rules import CARD_NUMBER, CARD_SUIT, DECK, round_score


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


def _score_reasons(event: dict) -> list[str]:
    """Per seat: the sore cards it won (minus their numbers) and the others (+1 each),
    summed by the rules' ``round_score``."""
    if event.get("sore_cards") is None or event.get("won") is None:
        return []
    out = []
    for laid, won in zip(event["sore_cards"], event["won"]):
        sore_card = DECK.parse_one(laid)
        sore = CARD_SUIT[sore_card]
        cards = [sore_card, *(DECK.parse_one(c) for c in won)]
        mask = sum(1 << c for c in cards)
        minus = [c for c in sorted(cards) if CARD_SUIT[c] == sore]
        others = len(cards) - len(minus)
        terms = ", ".join(f"{DECK.names[c]} {-CARD_NUMBER[c]}" for c in minus)
        name = next(s.name for s in DISPLAY.suits if s.key == DECK.names[sore_card][-1])
        out.append(f"sore suit {name} (laid {laid}): {terms}; {others} other "
                   f"card{'s' if others != 1 else ''} +{others} = {round_score(mask, sore_card)}")
    return out


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
    score_reasons=_score_reasons,
    notes=_notes,
    badges=_badges,
)
