"""Silberne Ananas per-game metrics, per seat, from a finished game's log.

``seat_metrics(state)`` needs a state created with ``log=True`` (it reads
``state.log``, one record per deal) and returns, per seat:

* ``middle_rate``: share of the deals in which the seat had the middle deal
  score (and so took the +10 bonus);
* ``mean_deal_score``: the seat's mean deal score, bonus included;
* ``mean_tricks``: the seat's mean number of tricks per deal;
* ``joker_rate``: share of the deals in which the seat held the Joker;
* ``match_win``: the seat's share of the win (1, 1/2 or 1/3 when winners
  share, else 0) by the rule the options select.

Deals that did not finish (a truncated game) are not counted.
"""

from __future__ import annotations

from stichzoo.envs.silberne_ananas.rules import NUM_PLAYERS

METRIC_NAMES = ("middle_rate", "mean_deal_score", "mean_tricks", "joker_rate", "match_win")

#: the metric a report shows beside the score: what the game is about
KEY_METRIC = "middle_rate"
#: metrics that are shares in [0, 1] (Wilson intervals in tournaments)
PROPORTIONS: tuple[str, ...] = ("middle_rate", "joker_rate", "match_win")

#: the middle total wins: tournaments judge this game on its win rate, not its score
WIN_RATE_DECIDES = True


def seat_metrics(state) -> list[dict[str, float]]:
    if state.log is None:
        raise ValueError("silberne_ananas: seat_metrics needs a state created with log=True")
    deals = [d for d in state.log if d.get("scores") is not None]
    n = len(deals)
    winners = state.winners() if state.over else []
    out = []
    for seat in range(NUM_PLAYERS):
        if n:
            middle = sum(1 for d in deals if d["bonus_seat"] == seat) / n
            score = sum(d["scores"][seat] for d in deals) / n
            tricks = sum(d["tricks_won"][seat] for d in deals) / n
            joker = sum(1 for d in deals if "Joker" in d["hands"][seat]) / n
        else:
            middle = score = tricks = joker = 0.0
        win = 1.0 / len(winners) if seat in winners else 0.0
        out.append({"middle_rate": middle, "mean_deal_score": score, "mean_tricks": tricks,
                    "joker_rate": joker, "match_win": win})
    return out


__all__ = ["METRIC_NAMES", "seat_metrics"]
