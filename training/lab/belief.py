"""Fit a belief model (issue 29, item 2), a lab fitter:
``python -m stichzoo.training.lab fit belief wizard --config FILE``.

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
   ``policies/lab/belief.py``.
3. **Quality.**  On held-out games (their own seed), the mean
   log-likelihood of the true locations under the model's constrained walk
   (``policies.belief.walk``) against the same walk with the flat model (the
   uniform sampler), per phase (bid, play early, play late).

The steps of ``stichzoo fit`` (:mod:`stichzoo.training.fit`): :func:`collect`,
:func:`fit`, :func:`evaluate`, :func:`save`, :func:`load`; Geheimtrumpf's categorical
secrets take them from ``training/lab/belief_secrets.py``.  ``--data FILE`` keeps the
played data (:func:`~stichzoo.training.lab.belief_steps.cached`), ``--temper T`` measures
the walk's weights ``(p / prior) ** T``.  Torch is used here only; play time needs numpy
alone.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from typing import Any

import numpy as np

from stichzoo.policies.lab.belief import BeliefModel, adapter, flat, log_likelihood, ratios
from stichzoo.training.config import game_of
from stichzoo.training.fit import read_config
from stichzoo.training.lab.belief_steps import (
    Weights,
    cached,
    play_samples,
    quality_table,
    summary,
)

#: key -> (type, default): every key of a belief config, checked strictly
SCHEMA: dict[str, tuple[Any, Any]] = {
    "game": (str, None),
    "options": (dict, {}),
    "players": (list, ["pimc"]),
    "seed": (int, 0),
    "train_games": (int, 1000),
    "test_games": (int, 100),
    "test_seed": (int, 1),
    "hidden": (list, [256]),
    "card_hidden": (int, 64),
    "epochs": (int, 10),
    "batch_size": (int, 512),
    "learning_rate": ((int, float), 1e-3),
    "weight_decay": ((int, float), 0.0),
    "torch_threads": (int, 1),
    "out": (str, None),
}


def load_config(path: str, overrides: dict | None = None) -> dict:
    """The config at ``path`` with ``overrides``; ValueError naming an unknown or mistyped key."""
    cfg = read_config(path, overrides, SCHEMA, "belief")
    if not cfg["game"]:
        raise ValueError("belief config: game is required")
    if cfg["train_games"] < 3 or cfg["test_games"] < 1 or cfg["epochs"] < 1:
        raise ValueError("belief config: train_games must be at least 3 (the last tenth, at "
                         "least one game, chooses the epoch), test_games and epochs at least 1")
    if cfg["seed"] == cfg["test_seed"]:
        raise ValueError("belief config: the held-out games need a seed of their own (test_seed)")
    return cfg


def arrays(side, game, players: list[str], games: int, seed: int) -> dict[str, np.ndarray]:
    """Training arrays: ``x`` features (float16), ``y`` per card its location (-1: seen by the
    seat) and ``games`` the index of each sample's game."""
    feats, labels, index = [], [], []
    for g, state, seat in play_samples(game, players, games, seed):
        index.append(g)
        hidden = side.hidden(state, seat)
        label = np.full(side.deck, -1, np.int8)
        label[hidden.cards] = side.truth(state, seat, hidden)
        feats.append(side.features(state, seat).astype(np.float16))
        labels.append(label)
    return {"x": np.stack(feats), "y": np.stack(labels), "games": np.array(index, np.int32)}


def _network(cfg: dict, side):
    """The torch twin of :class:`BeliefModel` (same layers, same order of operations)."""
    import torch
    from torch import nn

    class Belief(nn.Module):
        def __init__(self):
            super().__init__()
            sizes = [side.size, *cfg["hidden"]]
            self.context = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(sizes))
            width = cfg["card_hidden"]
            self.kh = nn.Linear(sizes[-1], width, bias=False)
            self.kf = nn.Linear(side.card_size, width)
            self.out = nn.Linear(width, side.locations)
            self.bias = nn.Parameter(torch.zeros(side.deck, side.locations))

        def forward(self, x, cards):
            h = x
            for layer in self.context:
                h = torch.relu(layer(h))
            z = torch.relu(self.kh(h)[:, None, :] + self.kf(cards))
            return self.out(z) + self.bias

    return Belief()


def _arrays_of(net) -> dict[str, np.ndarray]:
    """The network's weights in :class:`BeliefModel`'s names and layout ((in, out) matrices)."""
    out = {}
    for i, layer in enumerate(net.context):
        out[f"c{i}w"] = layer.weight.detach().numpy().T.copy()
        out[f"c{i}b"] = layer.bias.detach().numpy().copy()
    out["kh"] = net.kh.weight.detach().numpy().T.copy()
    out["kf"] = net.kf.weight.detach().numpy().T.copy()
    out["kb"] = net.kf.bias.detach().numpy().copy()
    out["ow"] = net.out.weight.detach().numpy().T.copy()
    out["ob"] = net.out.bias.detach().numpy().copy()
    out["bias"] = net.bias.detach().numpy().copy()
    return out


def train(cfg: dict, x: np.ndarray, y: np.ndarray, games: np.ndarray, side,
          log=print) -> tuple[dict[str, np.ndarray], dict]:
    """Fit the network on the first 90% of the games; the last 10% choose the epoch kept (the
    one with the lowest cross-entropy there).  Returns the weights and the curve."""
    import torch
    from torch import nn

    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(cfg["torch_threads"])
    net = _network(cfg, side)
    opt = torch.optim.Adam(net.parameters(), lr=cfg["learning_rate"],
                           weight_decay=cfg["weight_decay"])
    cut = int(games.max() * 0.9)
    fit, val = np.flatnonzero(games < cut), np.flatnonzero(games >= cut)
    gen = torch.Generator().manual_seed(cfg["seed"])
    batch = cfg["batch_size"]
    steps = cfg["epochs"] * ((len(fit) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)

    def loss_of(idx: np.ndarray):
        xb = x[idx].astype(np.float32)
        logits = net(torch.from_numpy(xb), torch.from_numpy(side.card_features(xb)))
        target = torch.from_numpy(y[idx].astype(np.int64))
        seen = target < 0
        each = nn.functional.cross_entropy(logits.permute(0, 2, 1), target.clamp(min=0),
                                           reduction="none")
        return each.masked_fill(seen, 0.0).sum(), (~seen).sum()

    # the flat model's cross-entropy on the validation games: -log(share of the location)
    yv = y[val]
    counts = np.stack([(yv == b).sum(axis=1) for b in range(side.locations)], axis=1)
    share = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    rows, cols = np.nonzero(yv >= 0)
    uniform = float(-np.log(share[rows, yv[rows, cols]]).mean())
    best, best_ce, curve = None, math.inf, []
    for epoch in range(cfg["epochs"]):
        net.train()
        order = fit[torch.randperm(len(fit), generator=gen).numpy()]
        total, count = 0.0, 0
        for i in range(0, len(order), batch):
            loss, n = loss_of(order[i:i + batch])
            opt.zero_grad()
            (loss / n).backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
            count += int(n)
        with torch.no_grad():
            parts = [loss_of(val[i:i + 4096]) for i in range(0, len(val), 4096)]
        ce = float(sum(p[0] for p in parts)) / int(sum(p[1] for p in parts))
        curve.append({"epoch": epoch + 1, "train": total / count, "validation": ce})
        log(f"  epoch {epoch + 1}/{cfg['epochs']}: cross-entropy per unseen card, training "
            f"{total / count:.4f}, validation {ce:.4f} (flat model {uniform:.4f})")
        if ce < best_ce:
            best_ce, best = ce, _arrays_of(net)
    return best, {"curve": curve, "validation_flat": uniform, "best_validation": best_ce}


def quality(model: BeliefModel, side, game, players: list[str], games: int,
            seed: int, temper: float = 1.0) -> dict:
    """Mean log-likelihood of the true locations per stage: the model vs the flat walk.

    A sample is one seat at one state of a held-out game; per stage the mean
    log-likelihood under the model and under the flat walk (the uniform
    sampler) over the samples, the mean number of unseen cards, and the
    difference model - flat with its 95% interval over the games (a game's
    samples are correlated, so the game - its mean difference - is the unit).
    ``temper``: the walk's weights ``(p / prior) ** temper``, as ``pimc:belief=...,temper=``.
    """
    per_stage: dict[str, list] = defaultdict(list)
    for index, state, seat in play_samples(game, players, games, seed):
        hidden = side.hidden(state, seat)
        if not hidden.cards:
            continue
        truth = side.truth(state, seat, hidden)
        x = side.features(state, seat)
        probs = model.probabilities(x, side.card_features(x))
        ll_model = log_likelihood(ratios(probs, hidden, temper), hidden, truth)
        ll_flat = log_likelihood(flat(hidden), hidden, truth)
        row = (index, ll_model, ll_flat, len(hidden.cards))
        per_stage[side.stage(state)].append(row)
        per_stage["all"].append(row)
    return summary(per_stage)


# -- the steps of ``fit belief`` ----------------------------------------------------------


def _secrets(side):
    """``training/lab/belief_secrets.py`` for Geheimtrumpf's categorical secrets, else None."""
    if not getattr(side, "categorical", False):
        return None
    from stichzoo.training.lab import belief_secrets

    return belief_secrets


def collect(cfg: dict, log=print, data: str | None = None) -> tuple[int, dict[str, np.ndarray]]:
    """The training games' samples (:func:`arrays`), kept in the file ``data`` if given."""
    game = game_of(cfg)
    side = adapter(game)
    make = getattr(_secrets(side), "arrays", arrays)
    d = cached(cfg, data, lambda: make(side, game, cfg["players"], cfg["train_games"],
                                       cfg["seed"]), log)
    return len(d["x"]), d


def fit(cfg: dict, d: dict[str, np.ndarray], log=print) -> tuple[Weights, dict]:
    """The weights (:func:`train`) with the meta the model file keeps."""
    game = game_of(cfg)
    side = adapter(game)
    secrets = _secrets(side)
    meta = {"game": game.name, "num_players": game.num_players, "options": cfg["options"],
            "input": side.size}
    if secrets is None:
        weights, training = train(cfg, d["x"], d["y"], d["games"], side, log)
        meta.update({"deck": side.deck, "locations": side.locations})
    else:
        weights, training = secrets.train(cfg, d, side, log)
        meta["context"] = side.context_size
    meta.update({"context_layers": len(cfg["hidden"]), "players": cfg["players"],
                 "train_games": cfg["train_games"], "seed": cfg["seed"]})
    return Weights(weights, meta), training


def evaluate(cfg: dict, weights: Weights, log=print, temper: float = 1.0) -> dict:
    """The held-out quality (:func:`quality`) of the model as its file gives it back;
    ``temper``: the walk's weights ``(p / prior) ** temper``, as ``pimc:belief=...,temper=``."""
    game = game_of(cfg)
    side = adapter(game)
    secrets = _secrets(side)
    model = weights.model(BeliefModel if secrets is None else secrets.SecretsModel)
    model.check(game, side)
    measure, table = (quality, quality_table) if secrets is None else (secrets.quality,
                                                                      secrets.table)
    q = measure(model, side, game, cfg["players"], cfg["test_games"], cfg["test_seed"], temper)
    for line in table(q):
        log(line)
    log(f"held-out: {cfg['test_games']} games (seed {cfg['test_seed']}), temper {temper:g}")
    return q


def load(path: str) -> Weights:
    return Weights.load(path)


def save(cfg: dict, weights: Weights, out: str, report: dict) -> None:
    weights.save(out)
