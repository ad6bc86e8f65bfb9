"""Evaluation: duplicate tournaments, any policies, any game, numbers you can trust.

The tournament itself is three modules with one job each (their names are importable from
here, the public face of evaluation):

* :mod:`stichzoo.training.evaluation.tournament` plays every deal under every seat
  assignment (duplicate play) and summarises the games into a report;
* :mod:`stichzoo.training.evaluation.stats` says how each number of the report is
  estimated: 95% intervals over deals, paired tests, ratings;
* :mod:`stichzoo.training.evaluation.report` prints the report, writes ``report.json``
  and plots it.

Beside them: ``ladder`` (where every bot of a game stands, ``stichzoo ladder``),
``think_time`` (searches side by side on the same positions), ``dataset`` (freshly played
games as training arrays, ``stichzoo dataset``) and ``run_eval`` (a run's learner against its
``eval.opponents``, during and after training).

The tournament's names::

    from stichzoo.training.evaluation import TournamentConfig, run_tournament, format_report
"""

from __future__ import annotations

# tournaments and their tests name policy specs from here too
from stichzoo.policies.specs import build_policy, parse_policy_spec
from stichzoo.training.evaluation.report import (
    format_interval,
    format_report,
    plot_report,
    write_outputs,
)
from stichzoo.training.evaluation.stats import (
    METHODS,
    MIN_DEALS,
    Z95,
    duplicate_ratings,
    mean_ci,
    openskill_ratings,
    paired_test,
    t_quantile,
    wilson_interval,
)
from stichzoo.training.evaluation.tournament import (
    MAX_ASSIGNMENTS,
    TournamentConfig,
    default_lineup,
    play_deal,
    play_game,
    play_games,
    run_tournament,
    seat_assignments,
    summarise,
)

__all__ = ["MAX_ASSIGNMENTS", "METHODS", "MIN_DEALS", "Z95", "TournamentConfig", "build_policy",
           "default_lineup", "duplicate_ratings", "format_interval", "format_report", "mean_ci",
           "openskill_ratings", "paired_test", "parse_policy_spec", "play_deal", "play_game",
           "play_games", "plot_report",
           "run_tournament", "seat_assignments", "summarise", "t_quantile", "wilson_interval",
           "write_outputs"]
