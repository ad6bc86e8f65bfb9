"""Per-seat Hoch & Tief metrics of a finished game, from its log (``log=True``).

For each seat, over the rounds played:

* ``mean_round_score`` - mean round score;
* ``three_plus_suits`` - mean number of suits per round in which the seat
  took 3 or more cards (each such suit scores only its count: the suit
  management the game is about);
* ``mean_cards_taken`` - mean number of cards the seat took per round.

Pure Python; rounds not finished (no ``taken`` yet) are skipped.
"""

from __future__ import annotations

from collections import Counter

METRIC_NAMES = ("mean_round_score", "three_plus_suits", "mean_cards_taken")

#: the metric a report shows beside the score: what the game is about
KEY_METRIC = "three_plus_suits"
#: metrics that are shares in [0, 1] (Wilson intervals in tournaments)
PROPORTIONS: tuple[str, ...] = ()


def seat_metrics(state) -> list[dict[str, float]]:
    """One dict of the metrics above per seat (all 0.0 when no round finished)."""
    if state.log is None:
        raise ValueError("hoch_tief metrics: the game was played without a log (log=True)")
    n = state.num_players
    sums = [dict.fromkeys(METRIC_NAMES, 0.0) for _ in range(n)]
    rounds = 0
    for rec in state.log:
        taken = rec.get("taken")
        if taken is None:
            continue
        rounds += 1
        for seat in range(n):
            m = sums[seat]
            cards = taken[seat]  # card names: suit letter + number
            per_suit = Counter(name[0] for name in cards)
            m["mean_round_score"] += rec["scores"][seat]
            m["three_plus_suits"] += sum(1 for k in per_suit.values() if k >= 3)
            m["mean_cards_taken"] += len(cards)
    if rounds:
        for m in sums:
            for k in m:
                m[k] /= rounds
    return sums
