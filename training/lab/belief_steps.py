"""What every belief model's fit shares (issue 29, item 2): torch-free.

``training/lab/belief.py`` (card locations) and ``training/lab/belief_secrets.py``
(Geheimtrumpf's categorical secrets) both take their samples from the same self-play
games, keep their played data in the same cache file, save their weights the same way
and summarise the held-out quality per stage; written here once, so that neither
module needs the other.  The path they take (collect, fit, held-out quality, save) is
``stichzoo fit``'s (:func:`stichzoo.training.fit.run`).
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from stichzoo.training.fit import self_play

#: the config keys the played data depends on (the cache's key)
DATA_KEYS = ("game", "options", "players", "seed", "train_games")


def play_samples(game, players: list[str], games: int, seed: int):
    """Per self-play game and state where a seat acts, for every seat: ``(game index, state,
    seat)``.

    The state is a snapshot (a clone); the game's seats play ``players``
    (one spec for all seats, or one per seat), seeded from ``seed``.
    """
    table = self_play.Table(game, tuple(players), deal_first=True)
    for index, (snapshots, _) in enumerate(self_play.games(table, games, seed,
                                                           lambda s: s.clone())):
        for snapshot in snapshots:
            for seat in range(game.num_players):
                yield index, snapshot, seat


def cached(cfg: dict, path: str | None, play: Callable[[], dict[str, np.ndarray]],
           log=print) -> dict[str, np.ndarray]:
    """``play()``'s arrays; with ``path``, read from there when it holds the same config's
    data (:data:`DATA_KEYS`), else played and written there (a cache: the games take
    minutes, a training run seconds)."""
    key = json.dumps({k: cfg[k] for k in DATA_KEYS}, sort_keys=True)
    if path and Path(path).is_file():
        with np.load(path) as f:
            if str(f["key"]) == key:
                log(f"data from {path}")
                return {k: f[k] for k in f.files if k != "key"}
    out = play()
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, key=np.array(key), **out)
    return out


@dataclass
class Weights:
    """A belief model as its file holds it: the weights (saved as float16) and the meta."""

    arrays: dict[str, np.ndarray]
    meta: dict

    def model(self, cls):
        """The model ``cls`` (``BeliefModel``, ``SecretsModel``) as ``cls.load`` reads it back
        from the file: float16 weights, the meta through JSON."""
        return cls({k: v.astype(np.float16).astype(np.float32) for k, v in self.arrays.items()},
                   json.loads(json.dumps(self.meta)))

    @classmethod
    def load(cls, path: str | Path) -> Weights:
        try:
            with np.load(path) as f:
                return cls({k: f[k] for k in f.files if k != "meta"}, json.loads(str(f["meta"])))
        except (OSError, KeyError, ValueError) as e:
            raise ValueError(f"belief: {path} is no belief model ({e})") from None

    def save(self, path: str | Path) -> Path:
        """The model file: float16 weights and the meta (JSON)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, meta=np.array(json.dumps(self.meta)),
                            **{k: v.astype(np.float16) for k, v in self.arrays.items()})
        return path


def summary(per_stage: dict[str, list], size_key: str = "unseen_cards") -> dict:
    """Per stage, from rows ``(game index, log-lik. model, log-lik. uniform, size)``: the
    means, the difference with its 95% interval over the games (a game's samples are
    correlated), and the mean size (under ``size_key``)."""
    out = {}
    for stage, rows in per_stage.items():
        by_game: dict[int, list[float]] = defaultdict(list)
        for index, m, f, _ in rows:
            by_game[index].append(m - f)
        means = [statistics.fmean(v) for v in by_game.values()]
        mean = statistics.fmean(means)
        half = 1.96 * statistics.stdev(means) / len(means) ** 0.5 if len(means) > 1 else 0.0
        out[stage] = {"samples": len(rows), "games": len(means),
                      "model": statistics.fmean(r[1] for r in rows),
                      "uniform": statistics.fmean(r[2] for r in rows),
                      "difference": statistics.fmean(r[1] - r[2] for r in rows),
                      "interval": [mean - half, mean + half],
                      size_key: statistics.fmean(r[3] for r in rows)}
    return out


def quality_table(q: dict, size: str = "unseen cards",
                  size_key: str = "unseen_cards") -> list[str]:
    """Markdown rows: stage, samples, unseen cards (or ``size``), log-likelihood model /
    uniform, difference."""
    lines = [f"| stage | samples | {size} | log-lik. model | log-lik. uniform | "
             "model - uniform [95% over games] |", "|---|---|---|---|---|---|"]
    for stage in ("bid", "sore", "draft", "task choice", "play early", "play late", "all"):
        if stage not in q:
            continue
        r = q[stage]
        lo, hi = r["interval"]
        lines.append(f"| {stage} | {r['samples']} | {r[size_key]:.1f} | {r['model']:.2f} "
                     f"| {r['uniform']:.2f} | {r['difference']:+.2f} [{lo:+.2f}, {hi:+.2f}] |")
    return lines
