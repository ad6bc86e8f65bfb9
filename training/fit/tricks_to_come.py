"""Fit Silberne Ananas' tricks to come (issue 30): ``stichzoo fit tricks_to_come silberne_ananas``.

The model of ``policies/runtimes/tricks_to_come.py`` predicts, from what a seat knows, each
seat's chance of taking any one trick still to come.  This plays self-play
matches of the config's player, keeps every seat's view at the start of
every trick (its hand, the cards it has not seen, the tricks
taken, who leads, how many tricks are left) with the tricks each seat then
took to the deal's end, and fits the network by the multinomial likelihood
of those counts.

Quality, on held-out matches of their own seed: the mean log-likelihood of
a view's tricks to come (nats, higher is better) and the squared error of
each seat's count, against the uniform split the heuristic assumes.  The file keeps
the config and that report, no timings, so that the committed config rebuilds it
byte for byte.  The steps of ``stichzoo fit`` (:mod:`stichzoo.training.fit`):
:func:`collect`, :func:`fit`, :func:`evaluate`, :func:`save`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stichzoo.envs.silberne_ananas.rules import NUM_PLAYERS, PLAY
from stichzoo.policies.runtimes.tricks_to_come import FEATURES, FULL, FutureModel, features
from stichzoo.training.config import game_of
from stichzoo.training.fit import read_config
from stichzoo.training.fit.self_play import Table, seeded_games

#: key -> (type, default): every key of a future config, checked strictly
SCHEMA: dict[str, tuple[Any, Any]] = {
    "game": (str, None),
    "options": (dict, {}),
    "player": (str, "heuristic"),
    "seed": (int, 0),
    "train_games": (int, 5000),
    "test_games": (int, 2000),
    "test_seed": (int, 1),
    "hidden": (list, [128, 128]),
    "epochs": (int, 6),
    "batch_size": (int, 1024),
    "learning_rate": (float, 1e-3),
    "torch_threads": (int, 2),
    "workers": (int, 1),
    "out": (str, None),
}


def load_config(path: str, overrides: dict | None = None) -> dict:
    """The config at ``path`` with ``overrides``; ValueError naming an unknown or mistyped key."""
    cfg = read_config(path, overrides, SCHEMA, "tricks_to_come")
    if cfg["game"] != "silberne_ananas":
        raise ValueError(f"tricks_to_come config: game={cfg['game']!r}; a model of the tricks "
                         f"to come exists for silberne_ananas")
    for key in ("train_games", "test_games", "workers", "epochs", "batch_size",
                "torch_threads"):
        if cfg[key] < 1:
            raise ValueError(f"tricks_to_come config: {key}={cfg[key]!r}; at least 1")
    if not cfg["hidden"] or any(not isinstance(h, int) or isinstance(h, bool) or h < 1
                                for h in cfg["hidden"]):
        raise ValueError(f"tricks_to_come config: hidden={cfg['hidden']!r}; a list of layer "
                         f"widths")
    if cfg["learning_rate"] <= 0:
        raise ValueError(f"tricks_to_come config: learning_rate={cfg['learning_rate']!r}; "
                         f"above 0")
    if cfg["seed"] == cfg["test_seed"]:
        raise ValueError("tricks_to_come config: the held-out games need a seed of their own "
                         "(test_seed)")
    return cfg


def trick_start(s) -> tuple[int, tuple | None]:
    """Before a decision: its deal, and at the start of a trick the state (hands, tricks
    taken, leader, cards played)."""
    start = None
    if s.phase == PLAY and not s.trick.cards:
        start = (tuple(s.hands), tuple(s.tricks_won), s.trick.leader, s.played)
    return s.deal_index, start


def deals_of(seen: list[tuple[int, tuple | None]], end) -> list[dict]:
    """One self-play match: per deal, the state at the start of every trick and the deal's
    final tricks."""
    deals: list[dict] = []
    for deal, start in seen:
        if not deals or deals[-1]["deal"] != deal:
            deals.append({"deal": deal, "starts": []})
        if start is not None:
            deals[-1]["starts"].append(start)
    for deal, rec in zip(deals, end.log, strict=True):
        deal["final"] = tuple(rec["tricks_won"])
    return deals


def play_matches(cfg: dict, games: int, seed: int) -> list[list[dict]]:
    """``games`` self-play matches of the config's player, the ``i``-th seeded by
    ``(seed, i)`` whatever the number of workers: each one's :func:`deals_of`."""
    table = Table(game_of(cfg), (cfg["player"],), log=True)
    return seeded_games(table, games, seed, deals_of, trick_start, cfg["workers"])


def rows(matches: list[list[dict]]) -> tuple[np.ndarray, np.ndarray]:
    """Every seat's view at every trick start, and its tricks to come per (self, left,
    right)."""
    xs, ys = [], []
    for match in matches:
        for deal in match:
            final = deal["final"]
            for hands, taken, leader, played in deal["starts"]:
                left = sum(final) - sum(taken)
                for seat in range(NUM_PLAYERS):
                    rel = [(seat + j) % NUM_PLAYERS for j in range(NUM_PLAYERS)]
                    unseen = FULL & ~played & ~hands[seat]
                    xs.append(features(hands[seat], unseen, [taken[s] for s in rel],
                                       (leader - seat) % NUM_PLAYERS, left))
                    ys.append([final[s] - taken[s] for s in rel])
    return np.stack(xs), np.asarray(ys, np.float32)


def quality(model: FutureModel, x: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Held-out log-likelihood per view (nats; the multinomial coefficient, equal for every
    model, left out) and squared error per seat (self, left, right), model and uniform."""
    q = model.shares(x)
    n = y.sum(axis=1, keepdims=True)
    uniform = np.full_like(q, 1.0 / NUM_PLAYERS)
    out: dict[str, Any] = {"views": len(x)}
    for name, p in (("model", q), ("uniform", uniform)):
        out[f"log_likelihood_{name}"] = round(float((y * np.log(p)).sum(axis=1).mean()), 4)
        out[f"squared_error_{name}"] = [round(float(v), 4)
                                        for v in ((p * n - y) ** 2).mean(axis=0)]
    return out


def train(cfg: dict, x: np.ndarray, y: np.ndarray) -> FutureModel:
    """The network by the multinomial likelihood of the counts (seeded: the same data and
    config give the same weights)."""
    import torch

    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(cfg["torch_threads"])
    widths = [FEATURES, *cfg["hidden"], NUM_PLAYERS]
    layers: list[torch.nn.Module] = []
    for i in range(len(widths) - 1):
        layers.append(torch.nn.Linear(widths[i], widths[i + 1]))
        if i < len(widths) - 2:
            layers.append(torch.nn.ReLU())
    net = torch.nn.Sequential(*layers)
    opt = torch.optim.Adam(net.parameters(), lr=cfg["learning_rate"])
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    gen = torch.Generator().manual_seed(cfg["seed"])
    for _ in range(cfg["epochs"]):
        perm = torch.randperm(len(xt), generator=gen)
        for i in range(0, len(xt), cfg["batch_size"]):
            b = perm[i:i + cfg["batch_size"]]
            loss = -(yt[b] * torch.log_softmax(net(xt[b]), -1)).sum(-1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    linear = [m for m in net if isinstance(m, torch.nn.Linear)]
    return FutureModel([(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy())
                        for m in linear])


# -- the steps of ``stichzoo fit tricks_to_come`` -------------------------------------


def collect(cfg: dict, log=print) -> tuple[int, tuple[np.ndarray, np.ndarray]]:
    """The training matches' views (:func:`rows`)."""
    x, y = rows(play_matches(cfg, cfg["train_games"], cfg["seed"]))
    return len(x), (x, y)


def fit(cfg: dict, data: tuple[np.ndarray, np.ndarray], log=print) -> tuple[FutureModel, dict]:
    return train(cfg, *data), {}


def evaluate(cfg: dict, model: FutureModel, log=print) -> dict[str, Any]:
    """:func:`quality` on the held-out matches."""
    q = quality(model, *rows(play_matches(cfg, cfg["test_games"], cfg["test_seed"])))
    log(f"held-out ({cfg['test_games']} matches, {q['views']} views): log-likelihood "
        f"{q['log_likelihood_model']} (uniform {q['log_likelihood_uniform']})")
    return q


def load(path: str) -> FutureModel:
    return FutureModel.load(path)


def save(cfg: dict, model: FutureModel, out: str, report: dict) -> None:
    """The model file, with the config and the report (no timings) in its meta."""
    model.meta = {"config": cfg, "report": {"train_views": report["samples"],
                                            "quality": report["quality"]}}
    model.save(out)
