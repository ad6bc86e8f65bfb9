"""Fit Geheimtrumpf's belief model (issue 29, item 2):
``python -m stichzoo.training.lab fit belief geheimtrumpf``.

The categorical twin of ``training/lab/belief.py`` (whose steps take :func:`arrays`,
:func:`train`, :func:`quality` and :func:`table` from here for Geheimtrumpf's secrets),
same config keys and steps:

1. **Labels and data.**  Self-play games of the config's table.  At every
   state where a seat acts, for every seat that cannot see something: its
   features (:meth:`GeheimtrumpfBelief.features`, public facts only), the
   allowed values of each secret (the draws consistent with the row
   winners; each other chooser's unchecked tasks) and the true ones.  Views
   with nothing hidden (the start player in the draft, the play) teach
   nothing and are left out.
2. **The model.**  The torch twin of :class:`SecretsModel` (``hidden``: the
   context layers, ``card_hidden``: the width of the draw and task layers),
   trained by cross-entropy over the allowed values (the others masked
   out): the trump head's mean plus the task head's mean per batch, so the
   rare task labels (a few per round, against a hundred draft views) are
   not drowned; saved as float16 ``.npz``.
3. **Quality.**  On held-out games (their own seed), the mean log-likelihood
   of the true secrets under the model against the uniform sampler over the
   allowed values, per stage (draft: the trumps; task choice: the hidden
   choices), with a 95% interval over the games.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import numpy as np

from stichzoo.envs.geheimtrumpf.rules import NUM_TASKS
from stichzoo.policies.lab.belief_secrets import DRAW_FEATURES, DRAWS, TASK_FEATURES, SecretsModel
from stichzoo.policies.lab.belief_secrets import log_likelihood as secrets_log_likelihood
from stichzoo.training.lab.belief_steps import play_samples, quality_table, summary


def arrays(side, game, players: list[str], games: int, seed: int) -> dict[str, np.ndarray]:
    """Training arrays: ``x`` features (float16), ``draw`` the true draw (-1: not hidden),
    ``tasks`` per other seat its true choice (-1: not hidden), ``draw_mask`` /
    ``task_mask`` the allowed values, ``games`` each sample's game."""
    n = game.num_players
    rows: dict[str, list] = defaultdict(list)
    for g, state, seat in play_samples(game, players, games, seed):
        secrets = side.hidden(state, seat)
        if secrets.empty():
            continue
        draw, chosen = side.truth(state, seat, secrets)
        dmask = np.zeros(len(DRAWS), bool)
        dmask[secrets.draws] = True
        tmask = np.zeros((n - 1, NUM_TASKS), bool)
        for i, allowed in enumerate(secrets.tasks):
            tmask[i, allowed] = True
        rows["x"].append(side.features(state, seat).astype(np.float16))
        rows["draw"].append(draw)
        rows["tasks"].append(chosen)
        rows["draw_mask"].append(dmask)
        rows["task_mask"].append(tmask)
        rows["games"].append(g)
    return {"x": np.stack(rows["x"]), "draw": np.array(rows["draw"], np.int8),
            "tasks": np.array(rows["tasks"], np.int8).reshape(-1, n - 1),
            "draw_mask": np.stack(rows["draw_mask"]), "task_mask": np.stack(rows["task_mask"]),
            "games": np.array(rows["games"], np.int32)}


def _network(cfg: dict, side):
    """The torch twin of :class:`SecretsModel` (same layers, same order of operations)."""
    import torch
    from torch import nn

    n = side.n

    class Secrets(nn.Module):
        def __init__(self):
            super().__init__()
            sizes = [side.context_size, *cfg["hidden"]]
            self.context = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(sizes))
            width = cfg["card_hidden"]
            self.th = nn.Linear(sizes[-1], width, bias=False)
            self.tf = nn.Linear(DRAW_FEATURES, width)
            self.tw = nn.Linear(width, 1, bias=False)
            self.tbias = nn.Parameter(torch.zeros(len(DRAWS)))
            self.kh = nn.Linear(sizes[-1], width, bias=False)
            self.kf = nn.Linear(TASK_FEATURES, width)
            self.kw = nn.Linear(width, 1, bias=False)
            self.kbias = nn.Parameter(torch.zeros(NUM_TASKS))

        def forward(self, x):
            c = side.context_size
            nd = len(DRAWS) * DRAW_FEATURES
            h = x[:, :c]
            for layer in self.context:
                h = torch.relu(layer(h))
            draws = x[:, c:c + nd].reshape(-1, len(DRAWS), DRAW_FEATURES)
            tasks = x[:, c + nd:].reshape(-1, n - 1, NUM_TASKS, TASK_FEATURES)
            z = torch.relu(self.th(h)[:, None, :] + self.tf(draws))
            trump = self.tw(z)[..., 0] + self.tbias
            z = torch.relu(self.kh(h)[:, None, None, :] + self.kf(tasks))
            return trump, self.kw(z)[..., 0] + self.kbias

    return Secrets()


def _arrays_of(net) -> dict[str, np.ndarray]:
    """The network's weights in :class:`SecretsModel`'s names and layout ((in, out) matrices)."""
    def m(layer):
        return layer.weight.detach().numpy().T.copy()

    out = {}
    for i, layer in enumerate(net.context):
        out[f"c{i}w"] = m(layer)
        out[f"c{i}b"] = layer.bias.detach().numpy().copy()
    for head in ("t", "k"):
        out[f"{head}h"] = m(getattr(net, f"{head}h"))
        out[f"{head}f"] = m(getattr(net, f"{head}f"))
        out[f"{head}b"] = getattr(net, f"{head}f").bias.detach().numpy().copy()
        out[f"{head}w"] = m(getattr(net, f"{head}w"))[:, 0].copy()
        out[f"{head}bias"] = getattr(net, f"{head}bias").detach().numpy().copy()
    return out


def _flat_ce(mask: np.ndarray, label: np.ndarray) -> float:
    """The uniform sampler's cross-entropy: the mean log of the allowed values' count."""
    counts = mask.reshape(-1, mask.shape[-1]).sum(axis=1)[label.reshape(-1) >= 0]
    return float(np.log(counts).mean()) if len(counts) else 0.0


def train(cfg: dict, d: dict[str, np.ndarray], side,
          log=print) -> tuple[dict[str, np.ndarray], dict]:
    """Fit on the first 90% of the games; the last 10% choose the epoch kept (the lowest
    trump + task cross-entropy there).  Returns the weights and the curve."""
    import torch
    from torch import nn

    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(cfg["torch_threads"])
    net = _network(cfg, side)
    opt = torch.optim.Adam(net.parameters(), lr=cfg["learning_rate"],
                           weight_decay=cfg["weight_decay"])
    games = d["games"]
    cut = int(games.max() * 0.9)
    fit, val = np.flatnonzero(games < cut), np.flatnonzero(games >= cut)
    gen = torch.Generator().manual_seed(cfg["seed"])
    batch = cfg["batch_size"]
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(
        opt, cfg["epochs"] * ((len(fit) + batch - 1) // batch))

    def part(logits, mask, label):
        """Summed cross-entropy over the labelled rows, and their count."""
        logits = logits.reshape(-1, logits.shape[-1])
        label = label.reshape(-1)
        keep = label >= 0
        if not bool(keep.any()):
            return logits.sum() * 0.0, 0
        z = logits[keep].masked_fill(~mask.reshape(-1, mask.shape[-1])[keep], -1e9)
        return nn.functional.cross_entropy(z, label[keep], reduction="sum"), int(keep.sum())

    def losses(idx: np.ndarray):
        trump, tasks = net(torch.from_numpy(d["x"][idx].astype(np.float32)))
        a = part(trump, torch.from_numpy(d["draw_mask"][idx]),
                 torch.from_numpy(d["draw"][idx].astype(np.int64)))
        b = part(tasks, torch.from_numpy(d["task_mask"][idx]),
                 torch.from_numpy(d["tasks"][idx].astype(np.int64)))
        return a, b

    flat = (_flat_ce(d["draw_mask"][val], d["draw"][val]),
            _flat_ce(d["task_mask"][val], d["tasks"][val]))
    best, best_ce, curve = None, math.inf, []
    for epoch in range(cfg["epochs"]):
        net.train()
        order = fit[torch.randperm(len(fit), generator=gen).numpy()]
        for i in range(0, len(order), batch):
            (ls, ns), (lt, nt) = losses(order[i:i + batch])
            loss = ls / max(ns, 1) + lt / max(nt, 1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        with torch.no_grad():
            parts = [losses(val[i:i + 4096]) for i in range(0, len(val), 4096)]
        ce = tuple(float(sum(float(p[k][0]) for p in parts)) / max(sum(p[k][1] for p in parts), 1)
                   for k in (0, 1))
        curve.append({"epoch": epoch + 1, "trumps": ce[0], "tasks": ce[1]})
        log(f"  epoch {epoch + 1}/{cfg['epochs']}: validation cross-entropy, trumps {ce[0]:.4f} "
            f"(uniform {flat[0]:.4f}), task choices {ce[1]:.4f} (uniform {flat[1]:.4f})")
        if sum(ce) < best_ce:
            best_ce, best = sum(ce), _arrays_of(net)
    return best, {"curve": curve, "validation_flat": list(flat), "best_validation": best_ce}


def quality(model: SecretsModel, side, game, players: list[str], games: int, seed: int,
            temper: float = 1.0) -> dict:
    """Mean log-likelihood of the true secrets per stage: the model vs the uniform sampler.

    A sample is one seat at one state of a held-out game where something is
    hidden from it; its size is the number of joint values allowed (the
    consistent draws; the product of the hidden choosers' open tasks).  The
    interval is over games, as ``training/lab/belief.py``'s.
    """
    per_stage: dict[str, list] = defaultdict(list)
    for index, state, seat in play_samples(game, players, games, seed):
        secrets = side.hidden(state, seat)
        if secrets.empty():
            continue
        truth = side.truth(state, seat, secrets)
        trump, tasks = model.logits(side.features(state, seat))
        ll_model = secrets_log_likelihood(trump, tasks, secrets, truth, temper)
        ll_flat = secrets_log_likelihood(trump, tasks, secrets, truth, 0.0)
        size = max(len(secrets.draws), 1) * math.prod(len(a) for a in secrets.tasks if a)
        row = (index, ll_model, ll_flat, size)
        per_stage[side.stage(state)].append(row)
        per_stage["all"].append(row)
    return summary(per_stage, "allowed")


def table(q: dict) -> list[str]:
    return quality_table(q, "values allowed", "allowed")
