"""The steps every belief model's training shares (issue 29, item 2): torch-free.

``training/lab/belief.py`` (card locations) and ``training/lab/belief_secrets.py``
(Geheimtrumpf's categorical secrets) both play self-play games for their
samples, save their weights, summarise the held-out quality per stage and
print it, and time it all the same way; written here once, so that neither
module needs the other.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from stichzoo.policies.base import Decision
from stichzoo.policies.specs import build_policy


def play_samples(game, players: list[str], games: int, seed: int):
    """Per self-play game and state where a seat acts, for every seat: ``(game index, state,
    seat)``.

    The state is a snapshot (a clone); the game's seats play ``players``
    (one spec for all seats, or one per seat), seeded from ``seed``.
    """
    n = game.num_players
    if len(players) not in (1, n):
        raise ValueError(f"belief config: players needs 1 or {n} specs, not {len(players)}")
    specs = players * n if len(players) == 1 else players
    rng = random.Random(seed)
    for index in range(games):
        deal_seed = rng.getrandbits(31)
        bots = [build_policy(specs[p], game, seed=rng.getrandbits(31)) for p in range(n)]
        s = game.new_game(deal_seed)
        while not (s.over or s.truncated):
            snapshot = s.clone()
            for seat in range(n):
                yield index, snapshot, seat
            s.apply(bots[s.current_player].act(Decision(game, s)))


def save(path: str | Path, arrays_: dict[str, np.ndarray], meta: dict) -> Path:
    """The model file: float16 weights and the meta (JSON)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, meta=np.array(json.dumps(meta)),
                        **{k: v.astype(np.float16) for k, v in arrays_.items()})
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


def pipeline(cfg: dict, out: str, log, collect, *, fit, meta: dict, load, measure, table,
             noun: str) -> dict:
    """Every belief model's ``run``: data, training, saving, the held-out quality, each
    timed - written once for the card-location models and the categorical ones
    (``training/lab/belief_secrets.py``).  ``collect() -> (sample count, data)``, ``fit(data) ->
    (weights, training report)``, ``load(path) -> model``, ``measure(model) -> quality``,
    ``table(quality)`` its markdown rows."""
    report: dict[str, Any] = {"config": cfg, "out": out}
    t0 = time.perf_counter()
    count, d = collect()
    report["samples"] = count
    report["data_s"] = round(time.perf_counter() - t0, 1)
    log(f"{cfg['game']}: {count} {noun} from {cfg['train_games']} games "
        f"({report['data_s']} s)")
    t1 = time.perf_counter()
    weights, report["training"] = fit(d)
    report["train_s"] = round(time.perf_counter() - t1, 1)
    save(out, weights, meta)
    model = load(out)
    t2 = time.perf_counter()
    report["quality"] = measure(model)
    report["quality_s"] = round(time.perf_counter() - t2, 1)
    report["total_s"] = round(time.perf_counter() - t0, 1)
    for line in table(report["quality"]):
        log(line)
    log(f"saved {out}; data {report['data_s']} s, training {report['train_s']} s, "
        f"held-out quality {report['quality_s']} s, total {report['total_s']} s")
    return report


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
