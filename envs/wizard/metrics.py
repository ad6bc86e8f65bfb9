"""Per-seat Wizard metrics of a finished game, from its log (``log=True``).

For each seat, over the rounds played:

* ``bid_hit_rate`` - share of rounds whose tricks won equal the bid;
* ``mean_abs_bid_error`` - mean ``|bid - tricks won|``;
* ``mean_bid`` - mean bid;
* ``mean_tricks`` - mean tricks won;
* ``mean_round_score`` - mean round score (``20 + 10 * tricks`` on a hit,
  else ``-10`` per trick off).

Pure Python; rounds not finished (no ``tricks_won`` yet) are skipped.
"""

from __future__ import annotations

METRIC_NAMES = ("bid_hit_rate", "mean_abs_bid_error", "mean_bid", "mean_tricks",
                "mean_round_score")

#: the metric a report shows beside the score: what the game is about
KEY_METRIC = "bid_hit_rate"
#: metrics that are shares in [0, 1] (Wilson intervals in tournaments)
PROPORTIONS: tuple[str, ...] = ("bid_hit_rate",)


def seat_metrics(state) -> list[dict[str, float]]:
    """One dict of the metrics above per seat (all 0.0 when no round finished)."""
    if state.log is None:
        raise ValueError("wizard metrics: the game was played without a log (log=True)")
    n = state.num_players
    sums = [dict.fromkeys(METRIC_NAMES, 0.0) for _ in range(n)]
    rounds = 0
    for rec in state.log:
        tricks = rec.get("tricks_won")
        if tricks is None:
            continue
        rounds += 1
        bids = [0] * n
        for b in rec["bids"]:
            bids[b["seat"]] = b["bid"]
        for seat in range(n):
            bid, won = bids[seat], tricks[seat]
            m = sums[seat]
            m["bid_hit_rate"] += bid == won
            m["mean_abs_bid_error"] += abs(bid - won)
            m["mean_bid"] += bid
            m["mean_tricks"] += won
            m["mean_round_score"] += rec["scores"][seat]
    if rounds:
        for m in sums:
            for k in m:
                m[k] /= rounds
    return sums
