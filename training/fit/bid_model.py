"""Wizard bids from a predicted trick distribution (issue 30, item 3).

The shipped Wizard network bids with its policy head: it learnt the bid by
PPO, from the score alone.  Here the bid is a decision made on purpose: a
small network (:class:`TrickNet`) predicts, from the seat's own observation at
its bid, the distribution of tricks it will take this round for every bid it
could make - ``p(t | observation, bid)``, because the network plays to its
bid - and the seat bids the argmax of the expected score under the game's own
scoring (:func:`expected_scores`, :func:`score_table` from
``rules.round_score``).  The cards are still played by the shipped network.

Pipeline (``stichzoo fit bid_model wizard``: the steps :func:`collect`, :func:`fit`,
:func:`evaluate` and :func:`save` of :mod:`stichzoo.training.fit`), all from self-play
with the network in every seat:

1. *collect*: ``rounds`` rounds of games of the current bot (the shipped network's
   actor, later the bidder fitted on the rounds before) through the batch engine
   (:func:`collect_bids`); at each bid, with
   probability ``explore``, the seat bids a random legal bid within
   ``explore_width`` of its own choice instead (so the model sees the bids it
   must compare); the label is the tricks the seat actually took;
2. *fit*: the trick model on all rounds' rows (:func:`fit_tricks`: cross entropy of
   the taken bid's distribution; a held-out split of whole games is scored against a
   trivial baseline, the frequencies per hand size and bid - the held-out quality);
3. *save*, an export: one ``model.onnx`` with the shipped inputs and outputs
   (:class:`TrickBidderForExport`): in the bid phase the logits are the
   expected scores times ``scale``, elsewhere the policy's own logits - every
   runtime (OnnxPolicy, the server, the tables, onnxruntime alone) plays the
   new bidder unchanged.

Labels come only from what happened in the games; the model reads only the
bidding seat's observation (a re-deal of what it cannot see gives the same
bid: tests/training/test_bid_model.py).
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch as th
import yaml
from torch import nn

from stichzoo.envs.core.batch import BatchEnv
from stichzoo.envs.wizard.rules import round_score
from stichzoo.training.config import read
from stichzoo.training.export import masked_outputs

# -- the expected score: written once ---------------------------------------------


def score_table(max_hand: int) -> np.ndarray:
    """``table[b, t]``: the round score of bid ``b`` when the seat takes ``t`` tricks."""
    size = max_hand + 1
    return np.array([[round_score(b, t) for t in range(size)] for b in range(size)],
                    np.float32)


def expected_scores(probs, table):
    """Expected round score of each bid: ``sum_t probs[..., b, t] * table[b, t]``.

    ``probs`` holds one trick distribution per bid (numpy or torch, the same
    expression for both: the exported graph and the Python bidder compute it
    here).
    """
    return (probs * table).sum(-1)


# -- the networks ---------------------------------------------------------------


class Actor(nn.Module):
    """The shipped policy network (ReLU MLP and action head), read back from its ONNX file.

    Parameter names follow the exporter's (``extractor.policy_net.<i>``,
    ``head``), so the new graph keeps the network's initializer names and can
    itself be read back by :func:`actor_from_onnx`.
    """

    def __init__(self, sizes: list[int], num_actions: int):
        super().__init__()
        layers: list[nn.Module] = []
        for a, b in itertools.pairwise(sizes):
            layers += [nn.Linear(a, b), nn.ReLU()]
        self.extractor = nn.Module()
        self.extractor.policy_net = nn.Sequential(*layers)
        self.head = nn.Linear(sizes[-1], num_actions)

    def forward(self, observation: th.Tensor) -> th.Tensor:
        return self.head(self.extractor.policy_net(observation))


def onnx_weights(path: str) -> dict[str, np.ndarray]:
    """An ONNX file's initializers by name."""
    import onnx
    from onnx import numpy_helper

    return {i.name: numpy_helper.to_array(i).copy() for i in onnx.load(path).graph.initializer}


def _load(module: nn.Module, weights: dict[str, np.ndarray], prefix: str, path: str) -> None:
    """Fill ``module``'s parameters from the initializers named ``<...>prefix<its name>``."""
    state = {}
    for name in module.state_dict():
        if name in dict(module.named_buffers()):
            state[name] = module.state_dict()[name]
            continue
        hits = [w for key, w in weights.items() if key.endswith(prefix + name)]
        if len(hits) != 1:
            raise ValueError(f"{path}: {len(hits)} initializers named *{prefix}{name}")
        state[name] = th.as_tensor(hits[0])
    module.load_state_dict(state)


def actor_from_onnx(path: str) -> Actor:
    """The actor of an exported bot (its ``extractor.policy_net.*`` and ``head`` weights)."""
    weights = onnx_weights(path)
    sizes: list[int] = []
    i = 0
    while f"extractor.policy_net.{i}.weight" in weights:
        w = weights[f"extractor.policy_net.{i}.weight"]
        sizes += [w.shape[1]] if not sizes else []
        sizes.append(w.shape[0])
        i += 2
    if not sizes or "head.weight" not in weights:
        raise ValueError(f"{path}: no actor weights (extractor.policy_net.*, head.*)")
    actor = Actor(sizes, weights["head.weight"].shape[0])
    _load(actor, weights, "", path)
    return actor.eval()


def actor_of(policy) -> Actor:
    """A trainable SB3 policy's actor (ReLU MLP and action head) as an :class:`Actor`,
    the same weights under the exporter's names."""
    body = policy.mlp_extractor.policy_net
    linears = [m for m in body if isinstance(m, nn.Linear)]
    actor = Actor([linears[0].in_features] + [m.out_features for m in linears],
                  policy.action_net.out_features)
    actor.extractor.policy_net.load_state_dict(body.state_dict())
    actor.head.load_state_dict(policy.action_net.state_dict())
    return actor.eval()


def rebid(policy, bids_bot: str, out_dir: str, game, provenance: dict) -> str:
    """Export ``policy``'s card play with the bids of another trick bidder's model.

    Expert iteration improves the actor of a trick bidder (the shipped Wizard
    bot); the games it learns from and its strength must be those of the bot
    it will become, which bids with a trick model, not with its policy head.
    The model is the one in ``bids_bot`` (its ``tricks.yaml``'s export scale
    and reach), fitted to that bot's own card play - close to, not exactly,
    the new actor's.  The manifest names that bot (``bids_from``) and keeps
    its record of how the bids were fitted (``bids``), so a bot shipped
    straight from an expert iteration still says where its bids came from.
    Returns ``out_dir``.
    """
    from stichzoo.policies.runtimes.onnx_policy import read_manifest

    manifest = read_manifest(bids_bot)
    bidder = bot_bidder(actor_of(policy), bids_bot, manifest, game)
    from stichzoo.training.export import export_module

    fitted = manifest.get("provenance", {}).get("bids")
    return export_module(bidder, game, out_dir, {**provenance, "bids_from": bids_bot,
                                                 **({"bids": fitted} if fitted else {})})


def bot_bidder(actor: Actor, folder: str, manifest: dict, game) -> TrickBidderForExport:
    """``actor``'s cards with the bids of the trick bidder in ``folder``: its trick model and
    its ``tricks.yaml``'s export scale and reach (the defaults without one)."""
    tricks = tricks_from_onnx(os.path.join(folder, manifest["model"]["file"]), game.max_hand,
                              hand_size_offset(manifest))
    recipe = os.path.join(folder, "tricks.yaml")
    export = load_config(recipe)["export"] if os.path.exists(recipe) else DEFAULTS["export"]
    return TrickBidderForExport(actor, tricks, game.bid0, export["scale"],
                                export["reach"]).eval()


def hand_size_offset(manifest: dict) -> int:
    """Where the observation's ``hand_size`` piece starts (the trick model reads it)."""
    return next(p["offset"] for p in manifest["observation"]["pieces"]
                if p["name"] == "hand_size")


def tricks_from_onnx(path: str, max_hand: int, hand_size_offset: int) -> TrickNet:
    """The trick model inside a bot exported by :func:`run` (its ``tricks.*`` weights)."""
    weights = onnx_weights(path)
    hidden = []
    i = 0
    while f"tricks.body.{i}.weight" in weights:
        hidden.append(weights[f"tricks.body.{i}.weight"].shape[0])
        i += 2
    if not hidden:
        raise ValueError(f"{path}: no trick model (tricks.body.*) - not a trick bidder")
    obs_size = weights["tricks.body.0.weight"].shape[1]
    net = TrickNet(obs_size, max_hand, hand_size_offset, hidden)
    _load(net, weights, "tricks.", path)
    return net.eval()


class TrickNet(nn.Module):
    """``p(t | observation, bid)`` for every bid at once: an MLP with one softmax per bid.

    Counts above the hand size (read from the observation's ``hand_size``
    one-hot) get probability 0.  :meth:`expected_scores` is the bid's value.
    """

    def __init__(self, obs_size: int, max_hand: int, hand_size_offset: int,
                 hidden: list[int]):
        super().__init__()
        self.size = max_hand + 1
        self.hand_size_offset = hand_size_offset
        layers: list[nn.Module] = []
        for a, b in zip([obs_size, *hidden[:-1]], hidden):
            layers += [nn.Linear(a, b), nn.ReLU()]
        self.body = nn.Sequential(*layers)
        self.out = nn.Linear(hidden[-1], self.size * self.size)
        self.register_buffer("scores", th.as_tensor(score_table(max_hand)))
        self.register_buffer("hand_sizes", th.arange(1, max_hand + 1, dtype=th.float32))
        self.register_buffer("counts", th.arange(self.size, dtype=th.float32))

    def log_probs(self, observation: th.Tensor) -> th.Tensor:
        """``[batch, bid, tricks]`` log-probabilities."""
        logits = self.out(self.body(observation)).view(-1, self.size, self.size)
        o = self.hand_size_offset
        hand = (observation[:, o:o + self.size - 1] * self.hand_sizes).sum(1, keepdim=True)
        possible = (self.counts[None, :] <= hand)[:, None, :]
        logits = th.where(possible, logits, th.full_like(logits, -1e9))
        return th.log_softmax(logits, dim=-1)

    def expected_scores(self, observation: th.Tensor) -> th.Tensor:
        """``[batch, bid]``: the expected round score of each bid."""
        return expected_scores(self.log_probs(observation).exp(), self.scores)


def masked_bid_logits(logits: th.Tensor, values: th.Tensor, mask: th.Tensor,
                      bid0: int) -> th.Tensor:
    """``logits`` with the bid actions' entries replaced by ``values`` where a bid is legal
    (the bid phase: the mask allows a bid), elsewhere unchanged."""
    end = bid0 + values.shape[1]
    bidding = mask[:, bid0:end].sum(1, keepdim=True) > 0.5
    bids = th.where(bidding, values, logits[:, bid0:end])
    return th.cat([logits[:, :bid0], bids, logits[:, end:]], dim=1)


def within_reach(values: th.Tensor, raw: th.Tensor, mask: th.Tensor, bid0: int,
                 reach: int) -> th.Tensor:
    """``values`` at -1e9 for the bids more than ``reach`` from the actor's own (the argmax
    of its legal bid logits ``raw``): the trick model has seen only bids near the
    actor's (exploration reaches ``explore_width`` either side of the collecting
    bidder's), so its values further out are extrapolations an argmax would find."""
    n = values.shape[1]
    legal = mask[:, bid0:bid0 + n] > 0.5
    own = th.where(legal, raw[:, bid0:bid0 + n], th.full_like(values, -1e9)).argmax(1, True)
    near = (th.arange(n)[None, :] - own).abs() <= reach
    return th.where(near, values, th.full_like(values, -1e9))


class TrickBidderForExport(nn.Module):
    """The bot's one graph: the actor's logits, the bids' replaced by scaled expected scores.

    ``tricks=None``: the actor alone (its own bids) - the first round's self-play.
    ``reach``: bid only within that distance of the actor's own bid (None: any bid).
    """

    def __init__(self, actor: Actor, tricks: TrickNet | None, bid0: int, scale: float,
                 reach: int | None = None):
        super().__init__()
        self.extractor = actor.extractor  # the actor's names, as the shipped graph has them
        self.head = actor.head
        self.tricks = tricks
        self.bid0 = bid0
        self.scale = scale
        self.reach = reach

    def logits(self, observation: th.Tensor, mask: th.Tensor) -> th.Tensor:
        raw = self.head(self.extractor.policy_net(observation))
        if self.tricks is None:
            return raw
        values = self.tricks.expected_scores(observation) * self.scale
        if self.reach is not None:
            values = within_reach(values, raw, mask, self.bid0, self.reach)
        return masked_bid_logits(raw, values, mask, self.bid0)

    def forward(self, observation: th.Tensor, action_mask: th.Tensor):
        return masked_outputs(self.logits(observation, action_mask), action_mask)


class TrickBidder:
    """The bid in Python: argmax of :func:`expected_scores` over the legal bids."""

    def __init__(self, tricks: TrickNet, bid0: int):
        self.tricks = tricks.eval()
        self.bid0 = bid0

    def values(self, observation: np.ndarray) -> np.ndarray:
        with th.inference_mode():
            obs = th.as_tensor(np.asarray(observation, np.float32)[None])
            return self.tricks.expected_scores(obs)[0].numpy()

    def bid_action(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The action id of the best legal bid."""
        values = self.values(observation)
        legal = np.flatnonzero(np.asarray(mask)[self.bid0:self.bid0 + len(values)] > 0)
        return self.bid0 + int(legal[np.argmax(values[legal])])


# -- self-play data --------------------------------------------------------------


def collect_bids(player: TrickBidderForExport, options: dict, games: int, batch: int,
                 seed: int, explore: float, width: int, bid0: int, num_bids: int,
                 mixed: float = 0.0, opponent: str = "heuristic") -> dict[str, Any]:
    """``games`` games of ``player``; one row per bid it makes.

    A share ``mixed`` of the games (drawn per game) seats ``player`` once, at a
    random seat, and the policy ``opponent`` (a spec: ``heuristic``, ...) in
    the others - tables unlike its own, whose bids it sees and whose play
    changes how many tricks it takes; the other games are self-play, the
    player in every seat.  Rows come only from the player's own bids.
    ``player.logits`` chooses (deterministic: the argmax of the legal actions).
    Rows: ``observation`` at the bid, ``bid`` made, ``tricks`` taken, ``game``;
    ``stats``: the rows' bid hit rate and the mean points of the player's
    seats (the explored bids included).
    """
    from stichzoo.policies.base import Decision
    from stichzoo.policies.specs import build_policy

    rng = np.random.default_rng(seed)
    env = BatchEnv("wizard", min(batch, games), log=True, core="python", **options)
    n = env.num_players
    other = build_policy(opponent, env.game, seed) if mixed > 0 else None
    obs, mask, to_act = env.reset(seed=seed)

    def seating() -> int:
        """The player's one seat at a mixed table, or -1: every seat (self-play)."""
        return int(rng.integers(n)) if mixed > 0 and rng.random() < mixed else -1

    seat_of = np.array([seating() for _ in range(env.num_envs)])
    pending: list[list[tuple[int, int, int]]] = [[] for _ in range(env.num_envs)]
    rows_obs: list[np.ndarray] = []
    rows_bid: list[int] = []
    rows_game: list[int] = []
    done_games, points, mixed_games = 0, [], 0
    labels: dict[int, int] = {}
    while done_games < games:
        with th.inference_mode():
            m = th.as_tensor(mask, dtype=th.float32)
            logits = masked_outputs(player.logits(th.as_tensor(obs), m), m)[1].numpy()
        actions = logits.argmax(1)
        ours = (seat_of < 0) | (to_act == seat_of)
        for i in np.flatnonzero(~ours).tolist():
            actions[i] = other.act(Decision(env.game, env.states[i], int(to_act[i])))
        bidding = np.flatnonzero(ours & mask[:, bid0:bid0 + num_bids].any(1))
        for i in bidding.tolist():
            a = int(actions[i])
            if rng.random() < explore:
                b = a - bid0
                near = [x for x in range(max(0, b - width), b + width + 1)
                        if x != b and x < num_bids and mask[i, bid0 + x]]
                if near:
                    a = bid0 + int(rng.choice(near))
                    actions[i] = a
            state = env.states[i]
            row = len(rows_obs)
            rows_obs.append(obs[i].copy())
            rows_bid.append(a - bid0)
            rows_game.append(-1)
            pending[i].append((row, state.round_index, int(to_act[i])))
        obs, mask, to_act, _, dones = env.step(actions)
        for i in np.flatnonzero(dones).tolist():
            if done_games < games:
                log = env.final_states[i].log
                for row, r, seat in pending[i]:
                    labels[row] = log[r]["tricks_won"][seat]
                    rows_game[row] = done_games
                totals = env.final_totals[i].tolist()
                points.extend(totals if seat_of[i] < 0 else [totals[seat_of[i]]])
                mixed_games += int(seat_of[i] >= 0)
                done_games += 1
            pending[i] = []
            seat_of[i] = seating()
    keep = np.array(sorted(labels), np.int64)
    rows_tricks = np.array([labels[k] for k in keep.tolist()], np.int64)
    bids = np.array(rows_bid, np.int64)[keep]
    return {"observation": np.stack(rows_obs)[keep], "bid": bids, "tricks": rows_tricks,
            "game": np.array(rows_game, np.int64)[keep],
            "stats": {"games": games, "mixed_games": mixed_games, "bids": len(keep),
                      "bid_hit_rate": float(np.mean(bids == rows_tricks)),
                      "points_per_game": float(np.mean(points)), "seats": len(points)}}


def _collect_games(player: TrickBidderForExport, options: dict, c: dict, games: int, seed: int,
                   bid0: int, num_bids: int) -> dict[str, Any]:
    """:func:`collect_bids` with the ``collect`` section of a config."""
    return collect_bids(player, options, games, c["batch"], seed, c["explore"],
                        c["explore_width"], bid0, num_bids, c["mixed"], c["opponent"])


def _collect_share(args: tuple) -> dict[str, Any]:
    th.set_num_threads(1)  # one core per worker process
    return _collect_games(*args)


def collect_shares(player: TrickBidderForExport, options: dict, c: dict, seed: int, bid0: int,
                   num_bids: int) -> dict[str, Any]:
    """One round's games (:func:`collect_bids`), split over ``c["workers"]`` processes.

    Games at tables of a search (``opponent: pimc``) cost about a second each on
    one core, so they are played in parallel: worker ``k`` plays its share of
    the games with the seed ``seed + 7919 k``; the shares are joined in worker
    order (game ids continued), so the rows depend on the seed and the worker
    count only - one worker is exactly :func:`collect_bids` with ``seed``.
    """
    import multiprocessing as mp

    games, workers = c["games"], max(1, min(c["workers"], c["games"]))
    if workers == 1:
        return _collect_games(player, options, c, games, seed, bid0, num_bids)
    jobs = [(player, options, c, games // workers + (k < games % workers), seed + 7919 * k,
             bid0, num_bids) for k in range(workers)]
    with mp.get_context("spawn").Pool(workers) as pool:
        parts = pool.map(_collect_share, jobs)
    offset, ids = 0, []
    for (_, _, _, share, *_), part in zip(jobs, parts, strict=True):
        ids.append(part["game"] + offset)
        offset += share
    rows = {key: np.concatenate([p[key] for p in parts])
            for key in ("observation", "bid", "tricks")}
    stats = [p["stats"] for p in parts]
    bids = max(1, sum(s["bids"] for s in stats))
    return {**rows, "game": np.concatenate(ids),
            "stats": {"games": games, "mixed_games": sum(s["mixed_games"] for s in stats),
                      "bids": sum(s["bids"] for s in stats),
                      "bid_hit_rate": sum(s["bid_hit_rate"] * s["bids"] for s in stats) / bids,
                      "points_per_game": sum(s["points_per_game"] * s["seats"] for s in stats)
                      / max(1, sum(s["seats"] for s in stats)),
                      "seats": sum(s["seats"] for s in stats), "workers": workers}}


# -- fitting --------------------------------------------------------------------


def _split(games: np.ndarray, holdout: float, seed: int) -> np.ndarray:
    """True for the rows of the held-out games (a share ``holdout`` of whole games)."""
    ids = np.unique(games)
    rng = np.random.default_rng(seed)
    held = rng.choice(ids, size=max(1, round(holdout * len(ids))), replace=False)
    return np.isin(games, held)


def baseline_log_probs(bid, tricks, hand, train, size: int) -> np.ndarray:
    """The trivial model's log p(tricks) per row: the training rows' frequencies of each
    trick count per (hand size, bid), add-half smoothed over the counts the hand allows."""
    counts = np.zeros((size, size, size))
    np.add.at(counts, (hand[train], bid[train], tricks[train]), 1.0)
    possible = np.arange(size)[None, None, :] <= np.arange(size)[:, None, None]
    counts = (counts + 0.5) * possible
    probs = counts / counts.sum(-1, keepdims=True)
    with np.errstate(divide="ignore"):  # counts the hand cannot take: log 0
        return np.log(probs[hand, bid])


def fit_tricks(data: dict[str, np.ndarray], cfg: dict, max_hand: int, hand_offset: int,
               seed: int) -> tuple[TrickNet, dict]:
    """Train a :class:`TrickNet` on ``data``; returns it and its held-out report."""
    t = cfg["train"]
    th.manual_seed(seed)
    obs = th.as_tensor(data["observation"])
    bid = th.as_tensor(data["bid"])
    tricks = th.as_tensor(data["tricks"])
    held = _split(data["game"], t["holdout"], seed)
    train_rows = np.flatnonzero(~held)
    net = TrickNet(obs.shape[1], max_hand, hand_offset, cfg["model"]["hidden"])
    optimizer = th.optim.Adam(net.parameters(), lr=t["learning_rate"])
    steps = t["epochs"] * (len(train_rows) // t["batch_size"] + 1)
    schedule = th.optim.lr_scheduler.CosineAnnealingLR(optimizer, steps)
    rng = np.random.default_rng(seed)
    for _ in range(t["epochs"]):
        for chunk in np.array_split(rng.permutation(train_rows),
                                    len(train_rows) // t["batch_size"] + 1):
            rows = th.as_tensor(chunk)
            logp = net.log_probs(obs[rows])
            loss = -logp[th.arange(len(rows)), bid[rows], tricks[rows]].mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
    net.eval()
    test = np.flatnonzero(held)
    with th.inference_mode():
        logp = net.log_probs(obs[th.as_tensor(test)])
        rows = th.arange(len(test))
        taken = logp[rows, bid[test], :]
        model_ll = -taken[rows, tricks[test]].numpy()
        model_acc = (taken.argmax(1) == tricks[test]).numpy()
    hand = data["observation"][:, hand_offset:hand_offset + max_hand].argmax(1) + 1
    base = baseline_log_probs(data["bid"], data["tricks"], hand, ~held, max_hand + 1)[test]
    base_ll = -base[np.arange(len(test)), data["tricks"][test]]
    base_acc = base.argmax(1) == data["tricks"][test]
    report = {"rows": len(obs), "train_rows": len(train_rows),
              "held_out_rows": len(test),
              "held_out": {"model": {"log_loss": float(model_ll.mean()),
                                     "accuracy": float(model_acc.mean())},
                           "baseline_hand_size_and_bid": {"log_loss": float(base_ll.mean()),
                                                          "accuracy": float(base_acc.mean())}}}
    return net, report


# -- the pipeline ---------------------------------------------------------------

#: every key of a tricks config with its default (an unknown key is an error)
DEFAULTS: dict[str, Any] = {
    "bot": "bot:wizard",  # a bot folder, or bot:<game> for the shipped one
    "seed": 7001,
    "rounds": 1,
    # start: who bids in the first round's games - "policy" (the actor's own bid head) or
    # "bids" (the source bot's trick model: a refit of a trick bidder, on the tables it makes)
    # mixed: the share of games at which the bot sits once among ``opponent`` seats
    # workers: processes that collect a round's games (``collect_shares``)
    "collect": {"games": 4000, "batch": 256, "explore": 0.3, "explore_width": 2,
                "start": "policy", "mixed": 0.0, "opponent": "heuristic", "workers": 1},
    "model": {"hidden": [256, 256]},
    "train": {"epochs": 6, "batch_size": 512, "learning_rate": 0.001, "holdout": 0.1,
              "torch_threads": 1},
    "export": {"scale": 0.1, "reach": None},  # reach: see TrickBidderForExport
}


def load_config(path: str, overrides: dict | None = None) -> dict:
    """The config file merged over :data:`DEFAULTS`, then ``overrides`` (nested like the
    file: ``stichzoo fit bid_model --set``) over it; a key not there is refused."""
    given = read(path)  # its extends: chain merged in (training/config.py)

    def merge(base: dict, new: dict, where: str) -> dict:
        out = copy.deepcopy(base)
        for key, value in new.items():
            if key not in base:
                raise ValueError(f"{path}: unknown key {where}{key!r}")
            if not isinstance(base[key], dict):
                out[key] = value
            elif isinstance(value, dict):
                out[key] = merge(base[key], value, f"{where}{key}.")
            else:
                raise ValueError(f"{path}: {where}{key} is a section, not {value!r}")
        return out

    return merge(merge(DEFAULTS, given, ""), overrides or {}, "")


def first_bidder(cfg: dict, source: str, manifest: dict, actor: Actor,
                 game) -> TrickBidderForExport:
    """Who bids in the first round's games (``collect.start``): the actor's own bid head, or
    the source bot's trick model - a refit of a trick bidder then learns from the tables its
    own bids make (the other seats' bids are in every observation), not from the policy
    head's."""
    start = cfg["collect"]["start"]
    if start not in ("policy", "bids"):
        raise ValueError(f"collect.start: {start!r}; 'policy' or 'bids'")
    if start == "policy":
        return TrickBidderForExport(actor, None, game.bid0, cfg["export"]["scale"])
    return bot_bidder(actor, source, manifest, game)


# -- the steps of ``stichzoo fit bid_model`` -------------------------------------------


@dataclass
class Source:
    """The bot whose actor plays the cards: its folder, manifest, game and actor."""

    folder: str
    manifest: dict
    game: Any
    actor: Actor

    @classmethod
    def of(cls, cfg: dict) -> Source:
        from stichzoo.policies.runtimes.onnx_policy import bot_folder, verify_bot

        folder = bot_folder(cfg["bot"])
        manifest, game, _ = verify_bot(folder)
        if game.name != "wizard":
            raise ValueError(f"bot {folder}: it plays {game.name}; trick bids are Wizard's")
        return cls(folder, manifest, game,
                   actor_from_onnx(os.path.join(folder, manifest["model"]["file"])))

    def bidder(self, cfg: dict, net: TrickNet) -> TrickBidderForExport:
        """The actor's cards with the bids of ``net``."""
        return TrickBidderForExport(self.actor, net, self.game.bid0, cfg["export"]["scale"],
                                    cfg["export"]["reach"]).eval()

    def fit(self, cfg: dict, parts: list[dict], k: int) -> tuple[TrickNet, dict, float]:
        """Round ``k``'s trick model, on the rows of rounds 0..k; its report and seconds."""
        start = time.time()
        data = {key: np.concatenate([p[key] for p in parts])
                for key in ("observation", "bid", "tricks", "game")}
        net, report = fit_tricks(data, cfg, self.game.max_hand, hand_size_offset(self.manifest),
                                 cfg["seed"] + k)
        return net, report, round(time.time() - start, 1)


@dataclass
class Rounds:
    """The collected rounds: the source, each round's rows (``parts``) and record (its games'
    stats and seconds, and but for the last its fit's report and seconds)."""

    source: Source
    parts: list[dict]
    records: list[dict]


@dataclass
class BidModel:
    """The fitted bidder (the actor's cards, the last round's bids) and every round's record."""

    source: Source
    player: TrickBidderForExport
    records: list[dict]


def collect(cfg: dict, log=print) -> tuple[int, Rounds]:
    """``rounds`` rounds of games (:func:`collect_shares`); round ``k > 0``'s bids come from
    the trick model fitted on the rounds before (collecting the next round needs it), the
    first round's from :func:`first_bidder`."""
    th.set_num_threads(cfg["train"]["torch_threads"])
    source = Source.of(cfg)
    c = cfg["collect"]
    player = first_bidder(cfg, source.folder, source.manifest, source.actor, source.game)
    parts: list[dict] = []
    records: list[dict] = []
    for k in range(cfg["rounds"]):
        start = time.time()
        part = collect_shares(player, source.manifest["options"], c, cfg["seed"] + k,
                              source.game.bid0, source.game.max_hand + 1)
        part["game"] = part["game"] + k * c["games"]  # game ids unique over the rounds
        parts.append(part)
        records.append({"collect": part["stats"], "collect_seconds": round(time.time() - start, 1)})
        log(f"round {k}: collected {json.dumps(part['stats'])} in {time.time() - start:.0f}s")
        if k < cfg["rounds"] - 1:
            net, report, seconds = source.fit(cfg, parts, k)
            records[-1].update({"fit": report, "fit_seconds": seconds})
            log(f"round {k}: fit {json.dumps(report['held_out'])} in {seconds:.0f}s")
            player = source.bidder(cfg, net)
    return sum(len(p["bid"]) for p in parts), Rounds(source, parts, records)


def fit(cfg: dict, rounds: Rounds, log=print) -> tuple[BidModel, dict]:
    """The last round's trick model, on every round's rows; the rounds' records."""
    k = len(rounds.parts) - 1
    net, report, seconds = rounds.source.fit(cfg, rounds.parts, k)
    records = [*rounds.records[:-1], {**rounds.records[-1], "fit": report, "fit_seconds": seconds}]
    log(f"round {k}: fit {json.dumps(report['held_out'])} in {seconds:.0f}s")
    return BidModel(rounds.source, rounds.source.bidder(cfg, net), records), {"rounds": records}


def evaluate(cfg: dict, model: BidModel, log=print) -> dict:
    """The last fit's report: its rows and its held-out games' log loss and accuracy, the
    model's and the trivial baseline's."""
    return model.records[-1]["fit"]


def save(cfg: dict, model: BidModel, out: str, report: dict) -> None:
    """Export the bidder as a bot, ``out/bot`` (the source's manifest and config.yaml, the
    bids' provenance, this config as its ``tricks.yaml``), and ``out/tricks_summary.json``."""
    from stichzoo.policies.runtimes.onnx_policy import verify_bot
    from stichzoo.training.export import export_module

    source, game = model.source, model.source.game
    old = source.manifest["provenance"]
    seconds = sum(report.get(k, 0.0) for k in ("data_s", "train_s", "quality_s"))
    provenance = {**{k: v for k, v in old.items() if k not in ("evaluation", "bids")},
                  "bids": {"method": "argmax over legal bids of the expected round score "
                                     "under a predicted trick distribution "
                                     "(stichzoo.training.fit.bid_model)",
                           "config": cfg, "rounds": model.records,
                           "wall_seconds": round(seconds, 1)}}
    bot = os.path.join(out, "bot")
    export_module(model.player, game, bot, provenance)
    verify_bot(bot, game)
    for name in ("config.yaml",):  # the actor's own recipe stays with it
        if os.path.exists(os.path.join(source.folder, name)):
            with open(os.path.join(source.folder, name)) as f:
                text = f.read()
            with open(os.path.join(bot, name), "w") as f:
                f.write(text)
    with open(os.path.join(bot, "tricks.yaml"), "w") as f:
        f.write("# the config of this bot's bids: stichzoo fit bid_model wizard --config "
                "tricks.yaml\n")
        yaml.safe_dump(cfg, f, sort_keys=False)
    with open(os.path.join(out, "tricks_summary.json"), "w") as f:
        json.dump(provenance["bids"], f, indent=1)
