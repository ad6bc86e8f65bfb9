"""Train a belief model (issue 29, item 2): ``stichzoo belief wizard --config FILE``.

1. **Labels and data.**  Self-play games of the config's table (``players``:
   one policy spec per seat; the shipped config plays PIMC at its defaults in
   every seat - the table whose play the model explains, the search
   probes' opponents).  At every state where a seat acts, for *every* seat: its
   features (:meth:`WizardBelief.features`: the env's observation plus the
   cards each other seat played this round) and, per card it cannot see,
   where it really lies (the seat 1..n-1 places to its left, or undealt).
   Only the features are the model's input; the labels come from the true
   deal, which the seat never sees.
2. **The model.**  An MLP (ReLU) from the features to ``deck x locations``
   logits, trained by cross-entropy over the unseen cards (the seen ones are
   masked out); saved as ``.npz`` (float16) for the numpy forward pass in
   ``policies/belief.py``.
3. **Quality.**  On held-out games (their own seed), the mean
   log-likelihood of the true locations under the model's constrained walk
   (``policies.belief.walk``) against the same walk with the flat model (the
   uniform sampler), per phase (bid, play early, play late).

Torch is used here only; play time needs numpy alone.
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
import yaml

from stichzoo.envs.registry import game_class
from stichzoo.policies.base import Decision
from stichzoo.policies.belief import BeliefModel, adapter, flat, log_likelihood, ratios
from stichzoo.policies.specs import build_policy

#: key -> (type, default): every key of a belief config, checked strictly
SCHEMA: dict[str, tuple[Any, Any]] = {
    "game": (str, None),
    "options": (dict, {}),
    "players": (list, ["pimc"]),
    "seed": (int, 0),
    "train_games": (int, 1000),
    "test_games": (int, 100),
    "test_seed": (int, 1),
    "hidden": (list, [256, 256]),
    "epochs": (int, 10),
    "batch_size": (int, 512),
    "learning_rate": ((int, float), 1e-3),
    "weight_decay": ((int, float), 0.0),
    "torch_threads": (int, 1),
    "out": (str, None),
}


def load_config(path: str, overrides: dict | None = None) -> dict:
    """The config at ``path`` with ``overrides``; ValueError naming an unknown or mistyped key."""
    with open(path) as f:
        raw = yaml.safe_load(f) or {}
    raw.update(overrides or {})
    cfg = {}
    for key, value in raw.items():
        if key not in SCHEMA:
            raise ValueError(f"belief config: unknown key {key!r} (known: {', '.join(SCHEMA)})")
        kind, _ = SCHEMA[key]
        if isinstance(value, bool) or not isinstance(value, kind):
            raise ValueError(f"belief config: {key}={value!r} has the wrong type")
        cfg[key] = value
    for key, (_, default) in SCHEMA.items():
        cfg.setdefault(key, default)
    if not cfg["game"]:
        raise ValueError("belief config: game is required")
    if cfg["train_games"] < 1 or cfg["test_games"] < 1 or cfg["epochs"] < 1:
        raise ValueError("belief config: train_games, test_games and epochs must be at least 1")
    if cfg["seed"] == cfg["test_seed"]:
        raise ValueError("belief config: the held-out games need a seed of their own (test_seed)")
    return cfg


def make_game(cfg: dict):
    cls = game_class(cfg["game"])
    return cls(cls.Options(**cfg["options"]))


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


def arrays(side, game, players: list[str], games: int, seed: int) -> tuple[np.ndarray, ...]:
    """Training arrays: features (float32) and per card its location (-1: seen by the seat)."""
    feats, labels = [], []
    for _, state, seat in play_samples(game, players, games, seed):
        hidden = side.hidden(state, seat)
        label = np.full(side.deck, -1, np.int8)
        label[hidden.cards] = side.truth(state, seat, hidden)
        feats.append(side.features(state, seat).astype(np.float16))
        labels.append(label)
    return np.stack(feats), np.stack(labels)


def train(cfg: dict, x: np.ndarray, y: np.ndarray, side, log=print) -> list[tuple]:
    """Fit the MLP; returns its layers as numpy ``(weight (in, out), bias)`` pairs."""
    import torch
    from torch import nn

    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(cfg["torch_threads"])
    sizes = [side.size, *cfg["hidden"], side.deck * side.locations]
    mods: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        mods.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            mods.append(nn.ReLU())
    net = nn.Sequential(*mods)
    opt = torch.optim.Adam(net.parameters(), lr=cfg["learning_rate"],
                           weight_decay=cfg["weight_decay"])
    xt = torch.from_numpy(x)  # float16: converted batch by batch
    yt = torch.from_numpy(y.astype(np.int64))
    rows = len(xt)
    gen = torch.Generator().manual_seed(cfg["seed"])
    steps = cfg["epochs"] * ((rows + cfg["batch_size"] - 1) // cfg["batch_size"])
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    for epoch in range(cfg["epochs"]):
        order = torch.randperm(rows, generator=gen)
        total, count = 0.0, 0
        for i in range(0, rows, cfg["batch_size"]):
            idx = order[i:i + cfg["batch_size"]]
            logits = net(xt[idx].float()).view(len(idx), side.deck, side.locations)
            target = yt[idx]
            seen = target < 0
            loss_all = nn.functional.cross_entropy(logits.permute(0, 2, 1),
                                                   target.clamp(min=0), reduction="none")
            loss = loss_all.masked_fill(seen, 0.0).sum() / (~seen).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
            count += len(idx)
        log(f"  epoch {epoch + 1}/{cfg['epochs']}: cross-entropy per unseen card "
            f"{total / count:.4f}")
    linears = [m for m in net if isinstance(m, nn.Linear)]
    return [(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy())
            for m in linears]


def save(path: str | Path, layers: list[tuple], meta: dict) -> Path:
    """The model file: float16 layers and the meta (JSON)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays_ = {}
    for i, (w, b) in enumerate(layers):
        arrays_[f"w{i}"] = w.astype(np.float16)
        arrays_[f"b{i}"] = b.astype(np.float16)
    np.savez_compressed(path, meta=np.array(json.dumps({**meta, "layers": len(layers)})),
                        **arrays_)
    return path


def quality(model: BeliefModel, side, game, players: list[str], games: int,
            seed: int) -> dict:
    """Mean log-likelihood of the true locations per stage: the model vs the flat walk.

    A sample is one seat at one state of a held-out game; per stage the mean
    log-likelihood under the model and under the flat walk (the uniform
    sampler) over the samples, the mean number of unseen cards, and the
    difference model - flat with its 95% interval over the games (a game's
    samples are correlated, so the game - its mean difference - is the unit).
    """
    per_stage: dict[str, list] = defaultdict(list)
    for index, state, seat in play_samples(game, players, games, seed):
        hidden = side.hidden(state, seat)
        if not hidden.cards:
            continue
        truth = side.truth(state, seat, hidden)
        probs = model.probabilities(side.features(state, seat))
        ll_model = log_likelihood(ratios(probs, hidden), hidden, truth)
        ll_flat = log_likelihood(flat(hidden), hidden, truth)
        row = (index, ll_model, ll_flat, len(hidden.cards))
        per_stage[side.stage(state)].append(row)
        per_stage["all"].append(row)
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
                      "unseen_cards": statistics.fmean(r[3] for r in rows)}
    return out


def evaluate(cfg: dict, path: str, log=print) -> dict:
    """The held-out quality of a saved model (the config's test games), timed."""
    game = make_game(cfg)
    side = adapter(game)
    model = BeliefModel.load(path)
    model.check(game, side)
    t = time.perf_counter()
    q = quality(model, side, game, cfg["players"], cfg["test_games"], cfg["test_seed"])
    for line in quality_table(q):
        log(line)
    log(f"held-out quality of {path}: {cfg['test_games']} games (seed {cfg['test_seed']}), "
        f"{time.perf_counter() - t:.1f} s")
    return {"config": cfg, "model": path, "quality": q}


def run(cfg: dict, out: str | None = None, log=print) -> dict:
    """Data, training, saving and the held-out quality, timed; returns the report."""
    game = make_game(cfg)
    side = adapter(game)
    out = out or cfg["out"] or f"runs/belief/{cfg['game']}.npz"
    report: dict[str, Any] = {"config": cfg, "out": out}
    t0 = time.perf_counter()
    x, y = arrays(side, game, cfg["players"], cfg["train_games"], cfg["seed"])
    report["samples"] = len(x)
    report["data_s"] = round(time.perf_counter() - t0, 1)
    log(f"{cfg['game']}: {len(x)} samples from {cfg['train_games']} games "
        f"({report['data_s']} s)")
    t1 = time.perf_counter()
    layers = train(cfg, x, y, side, log)
    report["train_s"] = round(time.perf_counter() - t1, 1)
    meta = {"game": game.name, "num_players": game.num_players, "options": cfg["options"],
            "input": side.size, "deck": side.deck, "locations": side.locations,
            "players": cfg["players"], "train_games": cfg["train_games"], "seed": cfg["seed"]}
    save(out, layers, meta)
    model = BeliefModel.load(out)
    t2 = time.perf_counter()
    report["quality"] = quality(model, side, game, cfg["players"], cfg["test_games"],
                                cfg["test_seed"])
    report["quality_s"] = round(time.perf_counter() - t2, 1)
    report["total_s"] = round(time.perf_counter() - t0, 1)
    for line in quality_table(report["quality"]):
        log(line)
    log(f"saved {out}; data {report['data_s']} s, training {report['train_s']} s, "
        f"held-out quality {report['quality_s']} s, total {report['total_s']} s")
    return report


def quality_table(q: dict) -> list[str]:
    """Markdown rows: stage, samples, unseen cards, log-likelihood model / uniform, difference."""
    lines = ["| stage | samples | unseen cards | log-lik. model | log-lik. uniform | "
             "model - uniform [95% over games] |", "|---|---|---|---|---|---|"]
    for stage in ("bid", "play early", "play late", "all"):
        if stage not in q:
            continue
        r = q[stage]
        lo, hi = r["interval"]
        lines.append(f"| {stage} | {r['samples']} | {r['unseen_cards']:.1f} | {r['model']:.2f} "
                     f"| {r['uniform']:.2f} | {r['difference']:+.2f} [{lo:+.2f}, {hi:+.2f}] |")
    return lines
