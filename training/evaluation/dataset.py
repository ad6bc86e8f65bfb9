"""Datasets of freshly played games: any policies, played as a duplicate tournament plays.

The conversion itself is :mod:`stichzoo.envs.core.dataset` (records -> arrays); this
module only adds the games: a lineup of policy specs plays ``deals`` deals under every
seat assignment (:func:`stichzoo.training.evaluation.tournament.play_games`: seeded, on all cores),
and the games' records become the dataset, each row tagged with its seat's policy.

    from stichzoo.training.evaluation.dataset import play_dataset
    data, records = play_dataset(TournamentConfig("wizard", 4, ["heuristic"] * 4, deals=10))
"""

from __future__ import annotations

from typing import Any

from stichzoo.envs.core.dataset import from_records
from stichzoo.training.evaluation.tournament import TournamentConfig, play_games


def play_dataset(cfg: TournamentConfig, *, reward: str | None = None,
                 reward_scale: float | None = None,
                 gamma: float = 1.0, progress: bool = True) -> tuple[dict[str, Any], list[dict]]:
    """Play the tournament of ``cfg`` and convert its games: (dataset, records).

    The dataset's ``policy`` field says which spec played each row's seat
    (``meta["policies"]``), so one policy's decisions are ``data["policy"] == i``.
    """
    games = play_games(cfg, progress=progress, records=True)
    records = [g["record"] for g in games]
    data = from_records(records, reward=reward, reward_scale=reward_scale, gamma=gamma,
                        policies=[g["assignment"] for g in games])
    return data, records


__all__ = ["play_dataset"]
