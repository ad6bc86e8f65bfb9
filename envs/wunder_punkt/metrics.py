"""Per-game metrics of Wunder Punkt, per seat, from a finished game's log.

A seat's round score splits into two parts over the cards it counts (its
won cards plus its own sore card):

* ``sore_points`` - the negative part: minus the numbers of its sore-suit
  cards (0 or less), mean per round;
* ``plus_points`` - the positive part: +1 per card of any other suit, mean
  per round;
* ``mean_round_score`` - their sum, the mean round score.

The state must have been created with ``log=True`` (``state.log``); rounds
that have not been scored yet are skipped.  Pure Python.
"""

from __future__ import annotations

from stichzoo.envs.wunder_punkt.rules import CARD_NUMBER, CARD_SUIT, DECK

#: the metric a report shows beside the score: what the game is about
KEY_METRIC = "sore_points"
#: metrics that are shares in [0, 1] (Wilson intervals in tournaments)
PROPORTIONS: tuple[str, ...] = ()

def seat_metrics(state) -> list[dict[str, float]]:
    """``[{"sore_points", "plus_points", "mean_round_score"}, ...]`` per seat."""
    if state.log is None:
        raise ValueError("wunder_punkt metrics need a state created with log=True")
    n = state.num_players
    sore = [0.0] * n
    plus = [0.0] * n
    rounds = 0
    for rec in state.log:
        if rec.get("scores") is None:
            continue
        rounds += 1
        for p in range(n):
            pick = DECK.parse_one(rec["sore_cards"][p])
            suit = CARD_SUIT[pick]
            for c in [pick, *DECK.parse(rec["won"][p])]:
                if CARD_SUIT[c] == suit:
                    sore[p] -= CARD_NUMBER[c]
                else:
                    plus[p] += 1
    k = max(rounds, 1)
    return [{"sore_points": sore[p] / k, "plus_points": plus[p] / k,
             "mean_round_score": (sore[p] + plus[p]) / k} for p in range(n)]


__all__ = ["seat_metrics"]
