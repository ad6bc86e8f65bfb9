"""Per-game metrics of Geheimtrumpf, per seat, from a finished game's log.

* ``task_success_rate`` - of the rounds in which the seat chose a task (every
  round but those it was start player), the share in which it met it;
* ``tasks_checked`` - tasks checked off by the end (0..4; the game score),
  including the start player's check-offs;
* ``won`` - 1 if the seat is among the winners, else 0 (a truncated game
  has no winner);
* ``rounds_played`` - rounds scored in the game (the same for every seat).

The state must have been created with ``log=True`` (``state.log``); rounds
that have not been scored yet are skipped.  Pure Python.
"""

from __future__ import annotations

#: the metric a report shows beside the score: what the game is about
KEY_METRIC = "task_success_rate"
#: metrics that are shares in [0, 1] (Wilson intervals in tournaments)
PROPORTIONS: tuple[str, ...] = ("task_success_rate", "won")

def seat_metrics(state) -> list[dict[str, float]]:
    """``[{"task_success_rate", "tasks_checked", "won", "rounds_played"}, ...]`` per seat."""
    if state.log is None:
        raise ValueError("geheimtrumpf metrics need a state created with log=True")
    n = state.num_players
    chose = [0] * n
    met = [0] * n
    rounds = 0
    for rec in state.log:
        if rec.get("met") is None:
            continue
        rounds += 1
        for p, m in enumerate(rec["met"]):
            if m is not None:
                chose[p] += 1
                met[p] += bool(m)
    winners = set(state.winners())
    return [{"task_success_rate": met[p] / chose[p] if chose[p] else 0.0,
             "tasks_checked": float(state.totals[p]),
             "won": 1.0 if p in winners else 0.0,
             "rounds_played": float(rounds)} for p in range(n)]


__all__ = ["seat_metrics"]
