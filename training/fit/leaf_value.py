"""Fit a leaf value (issue 29, item 4): ``stichzoo fit leaf_value hoch_tief --config FILE``.

1. **Data.**  Self-play rounds of the config's table: the game's heuristic
   in every seat, each card replaced by a random legal one with chance
   ``explore`` (so the positions a search reaches after an unusual card are
   in the data too).  At every decision: the whole position (every hand,
   every seat's taken cards, the trick) and, as the label, every seat's
   score at the end of that round.  Labels and inputs both come from the
   true deal: the model values *sampled* worlds at play time, where the
   whole world is known by construction.
2. **The model.**  ``policies.leaf.LeafModel``: an MLP from the position's
   features (``policies.leaf.features``, the same function at training and
   play time) to each seat's round score, trained by squared error.  Each
   batch is seen from a random seat and under a random renaming of the
   suits (the rules treat the five suits alike), so every position teaches
   ``n x 5!`` equivalent ones.
3. **Quality.**  On held-out rounds (their own seed): the squared error of
   the predicted margin (the seat's score minus the others' mean, what the
   search ranks by) and the share of its variance explained, against one
   uniform random play-out from the same position (PIMC's own estimate).

The steps of ``stichzoo fit`` (:mod:`stichzoo.training.fit`): :func:`collect`,
:func:`fit`, :func:`evaluate`, :func:`save`.  Torch and onnx are used here only; play time
needs onnxruntime alone.
"""

from __future__ import annotations

import json
import math
import random
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from stichzoo.envs.registry import game_class
from stichzoo.policies.runtimes.leaf_value import (
    LeafModel,
    bits,
    features,
    input_size,
    position,
    rows,
)
from stichzoo.training.fit import read_config
from stichzoo.training.fit.self_play import Table, games

#: key -> (type, default): every key of a leaf config, checked strictly
SCHEMA: dict[str, tuple[Any, Any]] = {
    "game": (str, None),
    "options": (dict, {}),
    "player": (str, "heuristic"),
    "explore": ((int, float), 0.1),
    "label": (str, "round"),
    "seed": (int, 0),
    "train_rounds": (int, 20000),
    "test_rounds": (int, 500),
    "test_seed": (int, 1),
    "hidden": (list, [512, 256]),
    "epochs": (int, 8),
    "batch_size": (int, 1024),
    "learning_rate": ((int, float), 1e-3),
    "weight_decay": ((int, float), 0.0),
    "torch_threads": (int, 1),
    "out": (str, None),
}


def load_config(path: str, overrides: dict | None = None) -> dict:
    """The config at ``path`` with ``overrides``; ValueError naming an unknown or mistyped key."""
    cfg = read_config(path, overrides, SCHEMA, "leaf_value")
    if cfg["game"] != "hoch_tief":
        raise ValueError(f"leaf_value config: game={cfg['game']!r}; leaf values exist for "
                         f"hoch_tief")
    if cfg["train_rounds"] < 10 or cfg["test_rounds"] < 1 or cfg["epochs"] < 1:
        raise ValueError("leaf_value config: train_rounds must be at least 10 (the last tenth "
                         "chooses the epoch), test_rounds and epochs at least 1")
    if cfg["label"] not in ("round", "playout"):
        raise ValueError(f"leaf_value config: label={cfg['label']!r}; choose round (the scores the "
                         f"round ended with) or playout (one uniform play-out's)")
    if not 0 <= cfg["explore"] <= 1:
        raise ValueError(f"leaf_value config: explore={cfg['explore']!r} is a chance from 0 to 1")
    if cfg["seed"] == cfg["test_seed"]:
        raise ValueError("leaf_value config: the held-out rounds need a seed of their own "
                         "(test_seed)")
    return cfg


def make_game(cfg: dict):
    """The config's table, one round per game (a label is the round's score)."""
    cls = game_class(cfg["game"])
    return cls(cls.Options(**{**cfg["options"], "rounds": 1}))


def play_rounds(game, cfg: dict, rounds: int, seed: int):
    """Per round: its decision states (clones) and per state its label - the scores the round
    ended with (``label: round``) or those of one uniform play-out from it (``playout``).
    The config's player in every seat, a random card with chance ``explore``."""
    from stichzoo.policies.games.hoch_tief import uniform_playout

    draw = random.Random(seed + 1)
    table = Table(game, (cfg["player"],), explore=cfg["explore"])
    for states, s in games(table, rounds, seed, watch=lambda state: state.clone()):
        if cfg["label"] == "playout":
            yield states, [uniform_playout(x, draw) for x in states]
        else:
            yield states, [list(s.round_scores[-1])] * len(states)


def arrays(game, cfg: dict, rounds: int, seed: int) -> dict[str, np.ndarray]:
    """Training arrays, seats absolute (seen from seat 0): masks, leader, seat to play, the
    round's final scores, the index of each sample's round."""
    masks, leader, to_play, final, index = [], [], [], [], []
    for r, (states, result) in enumerate(play_rounds(game, cfg, rounds, seed)):
        m, lead, nxt = rows([position(s) for s in states], 0)
        masks.append(m)
        leader.append(lead)
        to_play.append(nxt)
        final.append(np.array(result, np.int16))
        index.append(np.full(len(states), r, np.int32))
    return {"masks": np.concatenate(masks), "leader": np.concatenate(leader),
            "to_play": np.concatenate(to_play), "scores": np.concatenate(final),
            "rounds": np.concatenate(index)}


def batch(data: dict[str, np.ndarray], idx: np.ndarray, shape: tuple[int, int, int],
          rng: np.random.Generator | None) -> tuple[np.ndarray, np.ndarray]:
    """Features and targets (scores, seats counted from the viewer) of the samples ``idx``;
    with ``rng``, seen from a random seat under a random renaming of the suits."""
    n, suits, numbers = shape
    masks = data["masks"][idx]
    lead, nxt, score = data["leader"][idx], data["to_play"][idx], data["scores"][idx]
    r = int(rng.integers(n)) if rng is not None else 0
    if r:
        cols = np.concatenate([(np.arange(n) + r) % n + block * n for block in range(3)])
        masks, score = masks[:, cols], np.roll(score, -r, axis=1)
        lead, nxt = (lead - r) % n, (nxt - r) % n
    card_bits = bits(masks, suits * numbers)
    if rng is not None:
        perm = rng.permutation(suits)
        card_bits = card_bits.reshape(len(idx), 3 * n, suits, numbers)[:, :, perm]
        card_bits = card_bits.reshape(len(idx), 3 * n, suits * numbers)
    x = features(card_bits, lead, nxt, n, suits, numbers)
    return x, score.astype(np.float32)


def margin_of(scores: np.ndarray) -> np.ndarray:
    """Seat 0's margin: its score minus the others' mean (``search.margin``)."""
    return scores[:, 0] - scores[:, 1:].mean(axis=1)


def train(cfg: dict, data: dict[str, np.ndarray], shape: tuple[int, int, int],
          log=print) -> tuple[dict[str, np.ndarray], dict]:
    """Fit on the first 90% of the rounds; the last 10% choose the epoch kept (lowest margin
    error there).  Returns the weights ((in, out) matrices) and the curve."""
    import torch
    from torch import nn

    from stichzoo.policies.runtimes.leaf_value import SCALE

    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(cfg["torch_threads"])
    n, suits, numbers = shape
    sizes = [input_size(n, suits, numbers), *cfg["hidden"], n]
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    net = nn.Sequential(*layers)
    opt = torch.optim.Adam(net.parameters(), lr=cfg["learning_rate"],
                           weight_decay=cfg["weight_decay"])
    rounds = data["rounds"]
    cut = int(rounds.max() * 0.9)
    fit, val = np.flatnonzero(rounds < cut), np.flatnonzero(rounds >= cut)
    rng = np.random.default_rng(cfg["seed"])
    size = cfg["batch_size"]
    steps = cfg["epochs"] * ((len(fit) + size - 1) // size)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    xv, yv = batch(data, val, shape, None)
    mv = margin_of(yv)
    best, best_err, curve = None, math.inf, []
    for epoch in range(cfg["epochs"]):
        net.train()
        order = rng.permutation(fit)
        total = 0.0
        for i in range(0, len(order), size):
            x, y = batch(data, order[i:i + size], shape, rng)
            loss = nn.functional.mse_loss(net(torch.from_numpy(x)), torch.from_numpy(y) / SCALE)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(x)
        net.eval()
        with torch.no_grad():
            pv = np.concatenate([net(torch.from_numpy(xv[i:i + 8192])).numpy()
                                 for i in range(0, len(xv), 8192)]) * SCALE
        err = float(((margin_of(pv) - mv) ** 2).mean())
        explained = 1 - err / float(mv.var())
        curve.append({"epoch": epoch + 1, "train_mse": total / len(fit),
                      "validation_margin_mse": err, "validation_explained": explained})
        log(f"  epoch {epoch + 1}/{cfg['epochs']}: training loss {total / len(fit):.4f}, "
            f"validation margin MSE {err:.2f} (explained {explained:.3f})")
        if err < best_err:
            best_err = err
            linear = [m for m in net if isinstance(m, nn.Linear)]
            best = {}
            for j, m in enumerate(linear):
                best[f"w{j}"] = m.weight.detach().numpy().T.copy()
                best[f"b{j}"] = m.bias.detach().numpy().copy()
    return best, {"curve": curve, "best_validation_margin_mse": best_err}


def to_onnx(weights: dict[str, np.ndarray], meta: dict):
    """The model file's contents: ONNX (dense layers, ReLU between them;
    ``policies.runtimes.leaf_value.LeafModel``), the meta as JSON in its metadata."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    layers = len([k for k in weights if k.startswith("w")])
    nodes, inits, h = [], [], "features"
    for i in range(layers):
        w, b = weights[f"w{i}"].astype(np.float32), weights[f"b{i}"].astype(np.float32)
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
        out = "scores" if i == layers - 1 else f"h{i}"
        nodes += [helper.make_node("MatMul", [h, f"w{i}"], [f"m{i}"]),
                  helper.make_node("Add", [f"m{i}", f"b{i}"], [out if i == layers - 1
                                                                else f"a{i}"])]
        if i < layers - 1:
            nodes.append(helper.make_node("Relu", [f"a{i}"], [out]))
        h = out
    first, last = weights["w0"], weights[f"w{layers - 1}"]
    graph = helper.make_graph(
        nodes, "leaf_value",
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", first.shape[0]])],
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["batch", last.shape[1]])],
        inits)
    model = helper.make_model(graph, producer_name="stichzoo",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    helper.set_model_props(model, {"stichzoo": json.dumps({**meta, "layers": layers})})
    onnx.checker.check_model(model)
    return model


def quality(model: LeafModel, game, cfg: dict) -> dict:
    """Held-out rounds: the model's margin error and explained variance, and one uniform
    play-out's (PIMC's estimate of the same position) for comparison."""
    from stichzoo.policies.games.hoch_tief import uniform_playout

    rng = random.Random(cfg["test_seed"] + 2)  # not the labels' play-outs (seed + 1)
    predicted, playout, truth = [], [], []
    for states, labels in play_rounds(game, cfg, cfg["test_rounds"], cfg["test_seed"]):
        for s, result in zip(states, labels, strict=True):
            seat = s.current_player
            p = model.predict([position(s)], seat)[0]
            predicted.append(p[0] - p[1:].mean())
            o = uniform_playout(s, rng)
            rel = [o[(seat + k) % game.num_players] for k in range(game.num_players)]
            playout.append(rel[0] - np.mean(rel[1:]))
            t = [result[(seat + k) % game.num_players] for k in range(game.num_players)]
            truth.append(t[0] - np.mean(t[1:]))
    predicted, playout, truth = map(np.asarray, (predicted, playout, truth))
    var = float(truth.var())
    out = {"positions": len(truth), "margin_variance": var}
    for name, est in (("model", predicted), ("one uniform play-out", playout)):
        err = float(((est - truth) ** 2).mean())
        out[name] = {"margin_mse": err, "explained": 1 - err / var}
    return out


def shape_of(game) -> tuple[int, int, int]:
    """Seats, suits, numbers: the layout of a position's features."""
    return game.num_players, len(game.lookups.suit_mask), game.lookups.numbers


# -- the steps of ``stichzoo fit leaf_value`` ------------------------------------------


def collect(cfg: dict, log=print) -> tuple[int, dict[str, np.ndarray]]:
    """The training rounds' positions (:func:`arrays`)."""
    data = arrays(make_game(cfg), cfg, cfg["train_rounds"], cfg["seed"])
    return len(data["masks"]), data


def fit(cfg: dict, data: dict[str, np.ndarray], log=print):
    """The model as its file holds it (an ONNX graph, :func:`to_onnx`) and the training
    curve."""
    game = make_game(cfg)
    shape = shape_of(game)
    weights, training = train(cfg, data, shape, log)
    meta = {"game": game.name, "num_players": game.num_players, "suits": shape[1],
            "numbers": shape[2], "player": cfg["player"],
            "explore": cfg["explore"], "label": cfg["label"], "train_rounds": cfg["train_rounds"],
            "seed": cfg["seed"]}
    return to_onnx(weights, meta), training


def evaluate(cfg: dict, model, log=print) -> dict:
    """:func:`quality` of the ONNX graph ``model``, read by the runtime that plays it (through
    a scratch file: ``LeafModel.load`` reads files)."""
    import onnx

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "leaf_value.onnx"
        onnx.save(model, str(path))
        q = quality(LeafModel.load(path), make_game(cfg), cfg)
    log(f"held-out ({cfg['test_rounds']} rounds, {q['positions']} positions, margin variance "
        f"{q['margin_variance']:.1f}): model MSE {q['model']['margin_mse']:.1f} (explained "
        f"{q['model']['explained']:.3f}), one uniform play-out MSE "
        f"{q['one uniform play-out']['margin_mse']:.1f} "
        f"(explained {q['one uniform play-out']['explained']:.3f})")
    return q


def load(path: str):
    """A saved leaf value's ONNX graph (``stichzoo fit leaf_value --evaluate``)."""
    import onnx

    try:
        return onnx.load(str(path))
    except Exception as e:  # a missing file or one that is no ONNX model
        raise ValueError(f"leaf_value: {path} is no leaf value model "
                         f"({str(e).splitlines()[0][:160]})") from None


def save(cfg: dict, model, out: str, report: dict) -> None:
    import onnx

    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path))
