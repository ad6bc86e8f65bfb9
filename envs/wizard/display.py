"""Wizard's display facts: what a frontend shows of it (:mod:`stichzoo.envs.core.display`)."""

from __future__ import annotations

from collections.abc import Sequence

from stichzoo.envs.core.display import Column, GameDisplay, Note, Suit
from stichzoo.envs.wizard.rules import round_score


def _seat_columns(v: dict) -> list[Column]:
    n = len(v["totals"])
    return [("Bid", ["-" if v["bids"][s] is None else str(v["bids"][s]) for s in range(n)]),
            ("Tricks", [str(v["tricks_won"][s]) for s in range(n)])]


def _round_columns(event: dict) -> list[Column]:
    if event.get("bids") is None:
        return []
    bids = {b["seat"]: b["bid"] for b in event["bids"]}
    n = len(event["totals"])
    return [("Bid", [str(bids.get(s, "-")) for s in range(n)]),
            ("Tricks", [str(event["tricks_won"][s]) for s in range(n)])]


def _score_reasons(event: dict) -> list[str]:
    """Per seat: the bid, the tricks and the rule that scored them (``round_score``)."""
    if event.get("bids") is None or event.get("tricks_won") is None:
        return []
    bids = {b["seat"]: b["bid"] for b in event["bids"]}
    out = []
    for seat, took in enumerate(event["tricks_won"]):
        bid = bids[seat]
        points = round_score(bid, took)
        if bid == took:
            out.append(f"bid {bid}, took {took}: 20 + {took}x10 = {points}")
        else:
            off = abs(took - bid)
            out.append(f"bid {bid}, took {took}: {off} off, -10 x {off} = {points}")
    return out


def _notes(v: dict, names: Sequence[str]) -> list[Note]:
    suit = next((s.name for s in _SUITS if s.key == v["trump"]), None)
    trump = {None: "no trump", "pending": "the dealer is choosing"}.get(
        v["trump"], f"{suit} ({v['trump']})" if suit else v["trump"])
    turned = v["trump_card"] or "none (all cards dealt)"
    each = f"{v['hand_size']} card{'s' if v['hand_size'] != 1 else ''} each"
    return [Note(f"{each}. Turned card: {turned}   Trump: {trump}")]


def _badges(v: dict) -> list[Note]:
    suit = next((s for s in _SUITS if s.key == v["trump"]), None)
    if suit is not None:
        out = [Note(f"Trump: {suit.name}", style=f"bold {suit.colour}")]
    else:
        out = [Note({None: "No trump", "pending": "Trump: the dealer is choosing"}.get(
            v["trump"], f"Trump: {v['trump']}"), style="bold")]
    bids = [b for b in v["bids"] if b is not None]
    if bids:
        total, tricks = sum(bids), v["hand_size"]
        side = ("over by " + str(total - tricks) if total > tricks else
                "under by " + str(tricks - total) if total < tricks else "even")
        out.append(Note(f"Bids {total} for {tricks} trick{'s' if tricks != 1 else ''}: {side}"))
    return out


_SUITS = (Suit("B", "blue", "blue"), Suit("R", "red", "red"), Suit("G", "green", "green"),
          Suit("Y", "yellow", "yellow"),
          Suit("W", "Wizards", "bold magenta", card_name="Wizard"),
          Suit("N", "Jesters", "dim", card_name="Jester"))

DISPLAY = GameDisplay(
    title="Wizard",
    suits=_SUITS,
    winner_rule="the highest total wins",
    suit_first=True,
    option_docs={
        "rounds": "hand sizes of the rounds to play, e.g. 1,2,3 (empty: the full game)",
        "dealer_bid_restriction": "the dealer may not bid so that bids add up to the tricks",
        "first_dealer": "seat that deals the first round",
    },
    short_options={"rounds": [1, 2, 3]},
    seat_columns=_seat_columns,
    round_columns=_round_columns,
    score_reasons=_score_reasons,
    notes=_notes,
    badges=_badges,
)
