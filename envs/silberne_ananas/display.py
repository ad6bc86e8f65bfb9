"""Silberne Ananas' display facts: what a frontend shows of it (stichzoo.envs.core.display)."""

from __future__ import annotations

from collections.abc import Sequence

from stichzoo.envs.core.display import Column, GameDisplay, Note, Suit, agree
from stichzoo.envs.silberne_ananas.rules import MIDDLE_BONUS, deal_scores


def _where(v: dict) -> str:
    return f"deal {v['deal'] + 1} of at most {v['max_deals']}"


def _seat_columns(v: dict) -> list[Column]:
    n = len(v["totals"])
    return [("Cards", [str(v["hand_sizes"][s]) for s in range(n)]),
            ("Tricks", [str(v["tricks_won"][s]) for s in range(n)])]


def _round_columns(event: dict) -> list[Column]:
    n = len(event["totals"])
    return [("Tricks", [str(event["tricks_won"][s]) for s in range(n)]),
            ("Middle bonus", ["+10" if s == event.get("bonus_seat") else "" for s in range(n)])]


def _score_reasons(event: dict) -> list[str]:
    """Per seat: own tricks + 2 x the right neighbour's (``deal_scores``), then the bonus."""
    tricks = event.get("tricks_won")
    if tricks is None:
        return []
    base = deal_scores(tricks)
    out = []
    for seat, points in enumerate(base):
        own, right = tricks[seat], tricks[seat - 1]
        text = (f"{own} own trick{'s' if own != 1 else ''} + 2x{right} of the right "
                f"neighbour's = {points}")
        if seat == event.get("bonus_seat"):
            text += f", the middle score: + {MIDDLE_BONUS} bonus = {points + MIDDLE_BONUS}"
        out.append(text)
    return out


def _notes(v: dict, names: Sequence[str]) -> list[Note]:
    out = []
    n = len(names)
    if v["phase"] == "give_trick":
        seat = v["to_act"]
        out.append(Note(f"Joker: {agree(names[seat], 'decides')} who takes this trick - self, left "
                        f"({names[(seat + 1) % n]}) or right ({names[(seat - 1) % n]}).",
                        style="bold magenta"))
    if v["deal_scores"]:
        last = v["deal_scores"][-1]
        bonus = v["bonus_seat"]
        out.append(Note("Last deal: " + ", ".join(f"{names[s]} {x}" for s, x in enumerate(last))
                        + (f" (middle bonus: {names[bonus]})" if bonus is not None else "")))
    return out


def _badges(v: dict) -> list[Note]:
    suit = next((s for s in _SUITS if s.key == v["lead_suit"]), None)
    return [Note(f"Led suit: {suit.symbol} {suit.name}", style=suit.colour)] if suit else []


_SUITS = (Suit("h", "hearts", "red", "\u2665"), Suit("d", "diamonds", "yellow", "\u2666"),
          Suit("s", "spades", "blue", "\u2660"), Suit("c", "clubs", "green", "\u2663"),
          Suit("Joker", "Joker", "bold magenta"))

DISPLAY = GameDisplay(
    title="Silberne Ananas",
    suits=_SUITS,
    winner_rule="the middle total wins (two equal top totals: the third wins)",
    ranks=("7", "8", "9", "10", "J", "Q", "K", "A"),
    own_suit_cards=frozenset({"Joker"}),
    option_docs={
        "match": "play deals until someone reaches the target score (off: one deal)",
        "target_score": "the total that ends a match",
        "alone_variant": "the 'alone over/under the target' winner rule (match play)",
        "first_dealer": "seat that deals the first round",
    },
    short_options={"match": False},
    where=_where,
    seat_columns=_seat_columns,
    round_columns=_round_columns,
    score_reasons=_score_reasons,
    notes=_notes,
    badges=_badges,
)
