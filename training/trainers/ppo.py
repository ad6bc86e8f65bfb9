"""All-seat self-play PPO on the batch engine (``algo: batch_ppo``): PPO and nothing else.

    stichzoo train configs/wizard.yaml --algo batch_ppo

What runs before PPO - the warm start, a start bot, expert iteration - is the
pipeline's (training/trainers/pipeline.py, which ``stichzoo train`` calls): it
opens the run here (:func:`open_run`), fits the network its stages name and
hands it to :func:`train_ppo`.

Why not the single-seat view: there three of every four simulated Wizard
decisions are the opponents', thrown away, and each costs a one-row network
call inside the env.  Here the batch engine (``stichzoo.envs.BatchEnv``)
steps ``batch.games`` games at once and *every seat the learner holds* is a
training sample:

- Each game's seats are drawn per deal: one seat is always the learner; the
  others come from ``opponents`` - ``learner`` (the learner again: it learns
  from those seats too), ``self`` (frozen snapshots of the learner, the
  league), or any policy spec (``heuristic``, ``random``, ``bot:wizard``...).
- Per engine step, all rows where the learner is to act go through the
  network in one batched forward; each snapshot's rows in one more; rule
  bots act row by row.
- Per-seat trajectories: a learner decision's reward is what *that seat*
  earned until its own next decision (the engine's per-seat rewards), and
  GAE runs along each (game, seat) chain.  A chain cut by the end of a
  rollout is bootstrapped with the critic's value of that seat's current
  observation.
- Mask-aware PPO (clipped surrogate, value loss, entropy; illegal logits
  masked out), on the same network classes, warm start, checkpoints,
  TensorBoard tags (docs/training.md: ``charts/``, ``losses/``, ``time/``,
  ``eval/``, and the game's own metrics of finished training games as
  ``<game>/train_<metric>``, with the SB3 path's meanings and signs) and
  policy files as the SB3 path, so ``stichzoo export`` turns a run into the
  same ONNX bot.  Its own ``time/*_share`` split the wall clock into
  simulate / infer / update.
- The critic is the policy's value head, or one of its own that
  ``train.critic`` names from the table of critics (training/trainers/critics.py:
  the lab's privileged critic registers there); the actor reads the
  observation alone either way.

Config: the same YAML as the SB3 path.  ``train.total_timesteps`` counts
learner samples; ``batch.games`` and ``batch.rollout_steps`` size a rollout
(games x steps decisions, the learner's share of them are samples);
``train.batch_size`` is the minibatch, ``train.n_epochs`` the passes per
rollout; ``train.n_envs``, ``n_steps`` and ``vec_env`` are SB3's and unused.
"""

from __future__ import annotations

import glob
import math
import os
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch as th

from stichzoo.envs.registry import metrics_of
from stichzoo.policies import Decision
from stichzoo.training import config as config_mod
from stichzoo.training.evaluation.run_eval import periodic_evaluation
from stichzoo.training.runs import Budget, RunPaths, budget_bar, config_text, new_run_dir
from stichzoo.training.trainers.critics import Critic, build_critic

LEARNER = 0


@dataclass
class Rollout:
    """Learner transitions in the order they happened, linked per (game, seat).

    A transition whose seat has not decided again by the end of the rollout
    is *pending*: its reward is not complete, so it is not trained on now
    but carried into the next rollout (its successor arrives there), and
    the transition before it bootstraps from its value.
    """

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    logp: np.ndarray
    value: np.ndarray
    reward: np.ndarray
    done: np.ndarray
    next: np.ndarray  # index of the same seat's next decision, -1 if none (yet)
    pending: np.ndarray
    game: np.ndarray
    seat: np.ndarray
    # a critic of its own (train.critic, training/trainers/critics.py): its input at each
    # decision; zero columns for the policy's value head
    critic_input: np.ndarray
    size: int = 0

    @classmethod
    def empty(cls, capacity: int, obs_size: int, num_actions: int,
              critic_width: int = 0) -> Rollout:
        z = np.zeros
        return cls(z((capacity, obs_size), np.float32), z((capacity, num_actions), bool),
                   z(capacity, np.int64), z(capacity, np.float32), z(capacity, np.float32),
                   z(capacity, np.float32), z(capacity, bool), np.full(capacity, -1, np.int64),
                   z(capacity, bool), z(capacity, np.int64), z(capacity, np.int64),
                   z((capacity, critic_width), np.float32))

    def add(self, obs, mask, action, logp, value, game, seat,
            critic_input=None) -> np.ndarray:
        j = slice(self.size, self.size + len(action))
        self.obs[j], self.mask[j], self.action[j] = obs, mask, action
        self.logp[j], self.value[j], self.game[j], self.seat[j] = logp, value, game, seat
        if critic_input is not None:
            self.critic_input[j] = critic_input
        self.size += len(action)
        return np.arange(j.start, j.stop)

    def carry(self, into: Rollout, indices: np.ndarray) -> np.ndarray:
        """Copy pending transitions to the start of the next rollout; their new indices."""
        new = into.add(self.obs[indices], self.mask[indices], self.action[indices],
                       self.logp[indices], self.value[indices], self.game[indices],
                       self.seat[indices], self.critic_input[indices])
        into.reward[new] = self.reward[indices]
        return new

    def advantages(self, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
        """GAE along each seat's chain; successors always come later in the buffer."""
        n = self.size
        adv = np.zeros(n, np.float32)
        value, reward, done, nxt, pending = (self.value[:n], self.reward[:n], self.done[:n],
                                             self.next[:n], self.pending[:n])
        for j in range(n - 1, -1, -1):
            if pending[j]:
                continue
            if done[j]:
                adv[j] = reward[j] - value[j]
                continue
            k = nxt[j]
            adv[j] = reward[j] + gamma * value[k] - value[j]
            if not pending[k]:
                adv[j] += gamma * lam * adv[k]
        return adv, adv + value


class League:
    """Who sits where: per game and seat, LEARNER or the index of an opponent actor."""

    def __init__(self, cfg: dict, game, rng: np.random.Generator):
        self.game, self.rng = game, rng
        entries = [e if isinstance(e, dict) else {"policy": e} for e in cfg["opponents"]]
        self.names = [e["policy"] for e in entries]
        w = np.array([float(e.get("weight", 1.0)) for e in entries])
        self.weights = w
        self.snapshots: list[str] = []
        self.keep = cfg["selfplay"]["keep"]
        self.actors: list = [None]  # index 0: the learner
        self.kinds: dict[str, int] = {}

    def _actor(self, name: str) -> int:
        if name not in self.kinds:
            from stichzoo.policies.specs import build_policy

            if name.startswith("snapshot:"):
                from stichzoo.policies.runtimes.torch_policy import TorchPolicy

                actor = TorchPolicy.load(name.split(":", 1)[1], self.game)
            else:
                actor = build_policy(name, self.game, seed=int(self.rng.integers(2**31 - 1)))
            self.kinds[name] = len(self.actors)
            self.actors.append(actor)
        return self.kinds[name]

    def add_snapshot(self, path: str) -> None:
        self.snapshots = [*self.snapshots, path][-self.keep:]

    def draw_table(self) -> list[int]:
        n = self.game.num_players
        names = self.names
        weights = self.weights.copy()
        if not self.snapshots:
            weights[[i for i, nm in enumerate(names) if nm == "self"]] = 0.0
        p = weights / weights.sum()
        seats = [0] * n
        learner_seat = int(self.rng.integers(n))
        for s in range(n):
            if s == learner_seat:
                continue
            name = names[int(self.rng.choice(len(names), p=p))]
            if name == "learner":
                seats[s] = LEARNER
            elif name == "self":
                snap = self.snapshots[int(self.rng.integers(len(self.snapshots)))]
                seats[s] = self._actor(f"snapshot:{snap}")
            else:
                seats[s] = self._actor(name)
        return seats


def logits_values(policy, obs: th.Tensor, critic: Critic | None = None,
                  critic_input: th.Tensor | None = None) -> tuple[th.Tensor, th.Tensor]:
    """The policy's raw heads: action logits and values (SB3's modules, no distribution).

    With a ``critic`` of its own the values are the critic's, from the observation and
    its input; the actor's logits read the observation alone either way.
    """
    if critic is not None:
        latent_pi = policy.mlp_extractor.forward_actor(policy.extract_features(obs))
        return policy.action_net(latent_pi), critic(obs, critic_input)
    latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))  # shared extractor
    return policy.action_net(latent_pi), policy.value_net(latent_vf).flatten()


class _SparseTrunks:
    """The update's forward with the first layers read from the nonzero inputs alone.

    An observation is mostly zeros (Wizard: 40 of 603 entries set), and the first
    layers of the actor's and the critic's trunks were two thirds of the update's
    multiplications, forward and backward.  Here both first layers are one table
    (input -> both trunks' units) summed over each row's nonzero entries
    (``embedding_bag`` with the entries as weights): the same function, rounded in
    another order.  Measured on Wizard (one thread, same process, alternating): the
    update's CPU time 11% lower - the table's gradient sorts the entries, which eats most
    of what the forward saves - and a rollout's 52-row act (forward and draw) 15% lower.
    For SB3's shared-extractor policy (``heads: shared``) with the policy's own value
    head; :meth:`of` says None for any other network, which keeps :func:`logits_values`.
    """

    def __init__(self, policy):
        ext = policy.mlp_extractor
        self.policy = policy
        self.first = [ext.policy_net[0], ext.value_net[0]]
        self.rest = [ext.policy_net[1:], ext.value_net[1:]]
        self.split = self.first[0].out_features

    @classmethod
    def of(cls, policy, critic: Critic | None) -> _SparseTrunks | None:
        from stable_baselines3.common.torch_layers import FlattenExtractor, MlpExtractor

        ext = getattr(policy, "mlp_extractor", None)
        if (critic is not None or type(ext) is not MlpExtractor
                or not isinstance(getattr(policy, "features_extractor", None), FlattenExtractor)
                or not getattr(policy, "share_features_extractor", False)):
            return None
        if not all(len(net) and isinstance(net[0], th.nn.Linear)
                   for net in (ext.policy_net, ext.value_net)):
            return None
        return cls(policy)

    @staticmethod
    def rows(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each row's nonzero columns and their values, padded to the widest row with
        zero-valued entries (which add nothing)."""
        nonzero = obs != 0
        width = max(1, int(nonzero.sum(1).max(initial=0)))
        columns = np.argsort(~nonzero, axis=1, kind="stable")[:, :width]
        return columns, np.take_along_axis(obs, columns, 1)

    def frozen(self) -> _SparseTrunks:
        """For a rollout, whose weights stay as they are: the table laid out once."""
        with th.no_grad():
            self.table, self.bias = self._table()
        return self

    def _table(self) -> tuple[th.Tensor, th.Tensor]:
        return (th.cat([layer.weight for layer in self.first]).t().contiguous(),
                th.cat([layer.bias for layer in self.first]))

    table: th.Tensor | None = None
    bias: th.Tensor | None = None

    def __call__(self, columns: th.Tensor, values: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        table, bias = (self.table, self.bias) if self.table is not None else self._table()
        hidden = th.nn.functional.embedding_bag(columns, table, per_sample_weights=values,
                                                mode="sum") + bias
        latent_pi = self.rest[0](hidden[:, :self.split])
        latent_vf = self.rest[1](hidden[:, self.split:])
        return (self.policy.action_net(latent_pi),
                self.policy.value_net(latent_vf).flatten())


def _masked_log_probs(logits: th.Tensor, mask: th.Tensor) -> th.Tensor:
    return th.log_softmax(logits.masked_fill(~mask, -1e8), dim=1)


def _aligned(x: np.ndarray, device: str = "cpu") -> th.Tensor:
    """``x`` copied into memory torch allocated (64-byte aligned), as a tensor.

    MKL's kernels for a few rows give results that differ in the last bit with the
    input's address (measured: a 2- or 3-row forward of a Linear layer at 4-60 bytes
    past a 64-byte boundary), and where numpy puts an array depends on what the
    process allocated before. A copy into torch's own memory makes the forward depend
    on the values alone. (The update's minibatches need none: indexing a tensor
    already allocates them in torch's memory.)
    """
    return th.tensor(x, device=device)


def _act(policy, obs: np.ndarray, mask: np.ndarray, device: str, gen: th.Generator,
         critic: Critic | None = None, critic_input: np.ndarray | None = None,
         sparse: _SparseTrunks | None = None):
    """Sample one legal action per row (Gumbel-max over the masked logits); log-prob, value.

    With ``sparse`` (:class:`_SparseTrunks`, the policy's own) the first layers read the
    nonzero inputs alone, as the update does."""
    with th.no_grad():
        if sparse is not None:
            logits, values = sparse(*(th.as_tensor(x, device=device)
                                      for x in _SparseTrunks.rows(obs)))
        else:
            extra = None if critic is None else _aligned(critic_input, device)
            logits, values = logits_values(policy, _aligned(obs, device), critic, extra)
        logp = _masked_log_probs(logits, th.as_tensor(mask, device=device))
        u = th.rand(logp.shape, generator=gen, device="cpu").to(device)
        actions = (logp - th.log(-th.log(u.clamp_min(1e-12)))).argmax(dim=1)
        chosen = logp.gather(1, actions[:, None])[:, 0]
    return actions.cpu().numpy(), chosen.cpu().numpy(), values.cpu().numpy()


class SelfPlay:
    """The batch engine's games, their tables of seats, and the learner's open chains."""

    def __init__(self, engine, league: League, seed: int):
        self.engine, self.league = engine, league
        self.obs, self.mask, self.to_act = engine.reset(seed=seed)
        n_games, n = engine.num_envs, engine.num_players
        self.tables = np.array([league.draw_table() for _ in range(n_games)], np.int64)
        self.last = np.full((n_games, n), -1, np.int64)  # each learner seat's open transition
        self.ep_return = np.zeros((n_games, n))
        self.ep_length = np.zeros((n_games, n), np.int64)  # each seat's decisions this game
        self.carried: tuple[Rollout, np.ndarray] | None = None
        self.gen = th.Generator().manual_seed(seed)  # the learner's own sampling, seeded
        self.timers = {"simulate": 0.0, "infer": 0.0, "update": 0.0}
        # the game's own metrics of finished games (bid hit rate...), from their logs
        self.seat_metrics = None
        if engine.log:
            module = metrics_of(engine.game.name)
            self.seat_metrics = module.seat_metrics

    def rollout(self, policy, steps: int, device: str = "cpu",
                critic: Critic | None = None) -> tuple[Rollout, dict]:
        """``steps`` engine steps; the learner's transitions (last rollout's pending first).

        With a ``critic`` of its own (training/trainers/critics.py) each learner decision
        also records the critic's input, read from the engine's true state, and its value
        is the critic's; the actor still reads the observation alone.
        """
        engine, league, game = self.engine, self.league, self.engine.game
        n_games, n = engine.num_envs, engine.num_players
        width = 0 if critic is None else critic.width
        buf = Rollout.empty(steps * n_games + n_games * n, engine.obs_size, engine.num_actions,
                            width)
        last, tables, timers = self.last, self.tables, self.timers
        if self.carried is not None:
            old, pending = self.carried
            last[old.game[pending], old.seat[pending]] = old.carry(buf, pending)
        rows_all = np.arange(n_games)
        returns: list[float] = []
        lengths: list[int] = []
        wins: list[float] = []
        metrics: dict[str, list[float]] = {}
        seat_metrics = self.seat_metrics
        decisions = learner = 0
        policy.set_training_mode(False)
        sparse = _SparseTrunks.of(policy, critic)
        if sparse is not None:
            sparse = sparse.frozen()
        obs, mask, to_act = self.obs, self.mask, self.to_act
        for _ in range(steps):
            t0 = time.perf_counter()
            kinds = tables[rows_all, to_act]
            actions = np.zeros(n_games, np.int64)
            learn = np.flatnonzero(kinds == LEARNER)
            if learn.size:
                legal = mask[learn].astype(bool)
                seats = to_act[learn]
                extra = None
                if critic is not None:
                    extra = critic.inputs([engine.states[r] for r in learn], seats)
                a, logp, values = _act(policy, obs[learn], legal, device, self.gen, critic,
                                       extra, sparse)
                actions[learn] = a
                j = buf.add(obs[learn], legal, a, logp, values, learn, seats, extra)
                prev = last[learn, seats]
                buf.next[prev[prev >= 0]] = j[prev >= 0]
                last[learn, seats] = j
                self.ep_length[learn, seats] += 1
            t1 = time.perf_counter()
            for kind in np.unique(kinds[kinds != LEARNER]):
                rows = np.flatnonzero(kinds == kind)
                actor = league.actors[kind]
                if getattr(actor, "name", "") == "ppo":  # a snapshot: one batched forward
                    with th.no_grad():
                        dist = actor.net.get_distribution(_aligned(obs[rows]),
                                                          action_masks=mask[rows].astype(bool))
                        actions[rows] = dist.get_actions().numpy()
                else:
                    for r in rows:
                        state = engine.states[r]
                        actions[r] = actor.act(Decision(game, state, state.current_player))
            obs, mask, to_act, rewards, dones = engine.step(actions)
            # each learner seat is credited what it earned, on its open transition
            open_ = (last >= 0) & (tables == LEARNER)
            if open_.any():
                np.add.at(buf.reward, last[open_], rewards[open_])
            self.ep_return += rewards
            for r in np.flatnonzero(dones):
                seats = np.flatnonzero(tables[r] == LEARNER)
                ends = last[r, seats]
                buf.done[ends[ends >= 0]] = True
                last[r] = -1
                per_seat = seat_metrics(engine.final_states[r]) if seat_metrics else None
                for s in seats:
                    returns.append(float(self.ep_return[r, s]))
                    lengths.append(int(self.ep_length[r, s]))
                    wins.append(float(engine.final_win_share[r, s]))
                    for k, v in (per_seat[s] if per_seat else {}).items():
                        metrics.setdefault(k, []).append(float(v))
                self.ep_return[r] = 0.0
                self.ep_length[r] = 0
                tables[r] = league.draw_table()
            decisions += n_games
            learner += learn.size
            timers["infer"] += t1 - t0
            timers["simulate"] += time.perf_counter() - t1
        self.obs, self.mask, self.to_act = obs, mask, to_act
        pending = last[last >= 0]
        buf.pending[pending] = True
        self.carried = (buf, pending)
        return buf, {"returns": returns, "lengths": lengths, "wins": wins, "metrics": metrics,
                     "learner_share": learner / max(decisions, 1)}


def build_network(cfg: dict, game, device: str = "cpu"):
    """A fresh network of ``cfg``'s ``train.heads`` and ``train.net_arch`` for ``game``.

    The SB3 (Maskable) policy module the SB3 path trains - same classes, same files - so a
    batch run's ``policy.pt``, a checkpoint and an RLlib module all load into it.  The
    trainer, the checkpoint export, the RLlib module and the lab's probes build it here,
    so there is one place that turns a config into a network.
    """
    from gymnasium import spaces

    from stichzoo.policies.base import encoder_for
    from stichzoo.policies.runtimes.networks import policy_setup

    t = cfg["train"]
    layout = encoder_for(game).layout
    cls, kwargs = policy_setup(t["heads"], t["net_arch"], layout)
    obs_space = spaces.Box(layout.low, layout.high, dtype=np.float32)
    policy = cls(obs_space, spaces.Discrete(game.num_actions), lambda _: t["learning_rate"],
                 **kwargs)
    return policy.to(device)


@dataclass
class BatchRun:
    """A batch run as PPO receives it: the folder, the network and a critic of its own (or
    None: the policy's value head), the checkpoint it resumes (None: a fresh run, whose
    network the stages before PPO may have fitted) and what those stages leave for the
    run's records."""

    cfg: dict
    paths: RunPaths
    game: Any
    device: str
    policy: Any
    critic: Critic | None
    started: float  # time.time() when the run opened: the budget's clock starts there
    checkpoint: dict | None = None
    checkpoint_path: str | None = None
    #: stage name -> its stats, for the run summary (the pipeline's: pretrain, expert)
    stages: dict[str, dict[str, float] | None] = field(default_factory=dict)
    #: (tag, value, step) the stages measured, written to TensorBoard before PPO's own
    scalars: list[tuple[str, float, int]] = field(default_factory=list)


def open_run(cfg: dict, run_dir: str | None = None, resume: bool = False) -> BatchRun:
    """The run folder made, its config written, and the network built from the run's seed;
    with ``resume``, the latest checkpoint read (not yet loaded: :func:`train_ppo` does).

    A resume that has nothing left to train, or whose checkpoint was trained with another
    ``train.critic``, is refused before the run's config.yaml is written, so the refused
    run stays as it was.
    """
    t, b = cfg["train"], cfg["batch"]
    th.set_num_threads(t["torch_threads"])
    device = b["device"]
    if device == "cuda" and not th.cuda.is_available():
        raise ValueError("batch.device=cuda, but torch finds no CUDA device here")
    started = time.time()
    game = config_mod.game_of(cfg)
    paths = RunPaths(run_dir or new_run_dir(cfg))
    latest = paths.latest_checkpoint(".pt") if resume else None
    if resume and latest and latest[1] >= t["total_timesteps"]:
        raise ValueError(f"{paths.root} has already trained {latest[1]} samples of "
                         f"train.total_timesteps={t['total_timesteps']}; raise it to go on")
    ckpt = th.load(latest[0], map_location=device, weights_only=False) if latest else None
    if ckpt is not None:
        # checkpoints from before the name was kept: the privileged critic was the only one
        trained = ckpt.get("critic_name", "privileged" if "critic" in ckpt else "observation")
        if trained != t["critic"]:
            raise ValueError(f"{latest[0]} was trained with train.critic={trained}; the "
                             f"config says {t['critic']!r}: resume with the run's own critic")
    paths.make()
    paths.write_config(cfg)
    # the network's first weights from the run's seed: without it a rerun of the same config
    # starts elsewhere (found when two expert runs of one recipe differed after one fit)
    th.manual_seed(cfg["seed"])
    policy = build_network(cfg, game, device)
    # a critic of its own: built after the policy, so the actor's first weights are the same
    critic = build_critic(cfg, game, policy.observation_space.shape[0])
    if critic is not None:
        critic.to(device)
    return BatchRun(cfg, paths, game, device, policy, critic, started, ckpt,
                    latest[0] if latest else None)


def train_ppo(run: BatchRun, progress_bar: bool = True, verbose: bool = True) -> str:
    """PPO on the batch engine from ``run``'s network (or its checkpoint); returns the run
    folder."""
    from torch.utils.tensorboard import SummaryWriter

    from stichzoo.envs import BatchEnv
    from stichzoo.policies.runtimes.torch_policy import save_policy

    cfg, paths, game, device = run.cfg, run.paths, run.game, run.device
    policy, critic = run.policy, run.critic
    t, b = cfg["train"], cfg["batch"]
    run_dir = paths.root
    # what PPO's optimizer steps (the policy's own value head idles beside a critic of its
    # own: no gradient reaches it)
    stepped = [*policy.parameters(), *(critic.parameters() if critic is not None else [])]
    # fused: one kernel per step for all tensors, not a dozen small ops per tensor
    optimizer = th.optim.Adam(stepped, lr=t["learning_rate"], eps=1e-5, fused=True)
    samples = rollouts = 0
    rng = np.random.default_rng(cfg["seed"])
    ckpt = run.checkpoint
    if ckpt is not None:
        policy.load_state_dict(ckpt["policy"])
        if critic is not None:
            critic.load_state_dict(ckpt["critic"])
        optimizer.load_state_dict(ckpt["optimizer"])
        samples, rollouts = ckpt["samples"], ckpt["rollouts"]
        rng = np.random.default_rng([cfg["seed"], rollouts])
        if verbose:
            print(f"resuming {run_dir} from {run.checkpoint_path} ({samples} samples)")
    writer = SummaryWriter(os.path.join(paths.tb, "batch_ppo"))
    if ckpt is None:
        writer.add_text("config", config_text(cfg), 0)
        for tag, value, step in run.scalars:
            writer.add_scalar(tag, value, step)

    league = League(cfg, game, rng)
    for snap in sorted(glob.glob(os.path.join(paths.snapshots, "*.pt"))):
        league.add_snapshot(snap)
    # bots that act on rules states, or a critic that reads them, need the Python
    # core; networks alone play on the kernel (see BatchEnv's core).  Read from the
    # config's seats, not league.actors: those are built as tables are drawn, after the
    # engine (the list still empty here put rule bots on the kernel, which rebuilt each
    # game's state by replay every time a bot asked: 92% of a run's time, measured)
    networks_only = critic is None and all(
        name in ("learner", "self") or weight == 0
        for name, weight in zip(league.names, league.weights))
    engine = BatchEnv(cfg["game"], b["games"], reward=cfg["env"]["reward"],
                      reward_scale=float(cfg["env"]["reward_scale"]), log=True,
                      core="auto" if networks_only else "python", **cfg["options"])
    play = SelfPlay(engine, league, seed=int(rng.integers(2**31 - 1)))
    next_ckpt = samples + t["checkpoint_every"]
    snap_every = cfg["selfplay"]["snapshot_every"]
    next_snap = samples + snap_every if snap_every else None
    next_eval = samples + cfg["eval"]["every"] if cfg["eval"]["every"] else None
    budget = Budget.of(cfg, run.started)
    bar = budget_bar(progress_bar, budget, samples)

    def save_checkpoint() -> None:
        state = {"policy": policy.state_dict(), "optimizer": optimizer.state_dict(),
                 "samples": samples, "rollouts": rollouts}
        if critic is not None:  # training state only: policy.pt and the bot are the actor's
            state["critic"] = critic.state_dict()
            state["critic_name"] = t["critic"]
        th.save(state, os.path.join(paths.checkpoints, f"model_{samples}.pt"))
        save_policy(policy.to("cpu"), game, paths.policy, {"steps": samples, "run": run_dir})
        policy.to(device)

    loop_start, loop_samples = time.time(), samples
    while samples < t["total_timesteps"]:
        if budget.time_up():
            break
        # a rollout's forwards are a few dozen rows each: one thread (a second one costs
        # more to wake than it saves, and on a busy machine waits for a core); the update's
        # minibatches take train.torch_threads
        th.set_num_threads(1)
        buf, finished = play.rollout(policy, b["rollout_steps"], device, critic)
        th.set_num_threads(t["torch_threads"])
        lr = ppo_learning_rate(t, (time.time() - run.started) / 60, samples - loop_samples,
                               t["total_timesteps"] - loop_samples)
        for group in optimizer.param_groups:  # also over a resumed optimizer's own rate
            group["lr"] = lr
        t0 = time.perf_counter()
        stats = _update(policy, optimizer, buf, cfg, device, critic)
        play.timers["update"] += time.perf_counter() - t0
        trained = int((~buf.pending[:buf.size]).sum())
        samples += trained
        rollouts += 1
        if bar:
            bar.update(samples)
        timers = play.timers
        total = max(sum(timers.values()), 1e-9)
        # this leg's PPO rate (warm start excluded; a resume starts the clock again)
        leg = max(1e-9, time.time() - loop_start)
        writer.add_scalar("time/fps", (samples - loop_samples) / leg, samples)
        writer.add_scalar("time/rollout_share", (timers["simulate"] + timers["infer"]) / total,
                          samples)
        for key, value in timers.items():
            writer.add_scalar(f"time/{key}_share", value / total, samples)
        for key, value in stats.items():
            writer.add_scalar(f"losses/{key}", value, samples)
        writer.add_scalar("charts/learning_rate", lr, samples)
        if finished["returns"]:
            writer.add_scalar("charts/episode_return", float(np.mean(finished["returns"])),
                              samples)
            writer.add_scalar("charts/episode_length", float(np.mean(finished["lengths"])),
                              samples)
            writer.add_scalar("charts/win_share", float(np.mean(finished["wins"])), samples)
        for key, values in finished["metrics"].items():
            writer.add_scalar(f"{cfg['game']}/train_{key}", float(np.mean(values)), samples)
        writer.add_scalar("charts/learner_share", finished["learner_share"], samples)
        if samples >= next_ckpt:
            save_checkpoint()
            next_ckpt = samples + t["checkpoint_every"]
        if next_snap is not None and samples >= next_snap:
            snap = os.path.join(paths.snapshots, f"step_{samples:010d}.pt")
            save_policy(policy.to("cpu"), game, snap, {"steps": samples})
            policy.to(device)
            league.add_snapshot(snap)
            next_snap = samples + snap_every
        if next_eval is not None and samples >= next_eval and not budget.time_up():
            path = os.path.join(paths.eval, "policy_under_eval.pt")
            save_policy(policy.to("cpu"), game, path, {"steps": samples})
            policy.to(device)
            periodic_evaluation(cfg, path, writer, samples, verbose)
            next_eval = samples + cfg["eval"]["every"]
    if bar:
        bar.close()
    save_checkpoint()
    writer.close()
    wall = time.time() - run.started
    timers = play.timers
    total = sum(timers.values())
    summary = {"algo": "batch_ppo", "critic": t["critic"], "steps": samples,
               "rollouts": rollouts, "wall_seconds": wall, **run.stages,
               "fps": (samples - loop_samples) / max(time.time() - loop_start, 1e-9),
               **{f"{k}_share": v / max(total, 1e-9) for k, v in timers.items()},
               **budget.outcome(samples)}
    paths.write_summary(summary)
    if verbose:
        split = ", ".join(f"{k} {v / max(total, 1e-9):.0%}" for k, v in timers.items())
        print(f"trained {samples:,} of {t['total_timesteps']:,} learner samples in "
              f"{wall / 60:.1f} min ({summary['fps']:.0f} samples/s; {split}); "
              f"policy: {paths.policy}")
    budget.announce(samples)
    return run_dir


def ppo_learning_rate(t: dict, minutes: float, done: int, budget: int) -> float:
    """PPO's step size now: ``train.learning_rate`` decayed by ``train.lr_schedule``.

    The decay runs over this invocation's budget - the time (``minutes`` of
    ``max_minutes``) or the samples (``done`` of ``budget``), whichever is
    further along - because a time-limited run rarely reaches
    ``total_timesteps``, and a decay that never gets low does nothing.  A
    late, small step keeps the last updates from undoing what was learned
    (constant-rate PPO oscillates around its best policy).  ``lr_clock:
    samples`` reads the samples alone: the wall clock differs between two
    runs of one config (most in the first rollouts, when the warm start's
    minutes lead), so only then does a run that ends by its samples repeat
    its weights to the last bit.
    """
    base = float(t["learning_rate"])
    if t["lr_schedule"] == "constant":
        return base
    progress = done / max(budget, 1)
    if t["lr_clock"] == "budget":
        progress = max(progress, minutes / float(t["max_minutes"]))
    progress = min(1.0, progress)
    if t["lr_schedule"] == "linear":
        return base * (1.0 - progress)
    return base * 0.5 * (1.0 + math.cos(math.pi * progress))


def _update(policy, optimizer, buf: Rollout, cfg: dict, device: str,
            critic: Critic | None = None) -> dict[str, float]:
    """PPO epochs over the rollout: clipped surrogate, value loss, entropy bonus.

    With a ``critic`` of its own the value loss is the critic's (on the observation and
    its recorded input); the gradient norm is clipped over actor and critic together,
    as it is over the policy's two heads without one.
    """
    t = cfg["train"]
    adv, ret = buf.advantages(float(t["gamma"]), float(t["gae_lambda"]))
    ready = np.flatnonzero(~buf.pending[:buf.size])  # pending ones train next rollout
    n = len(ready)
    sparse = _SparseTrunks.of(policy, critic)
    if sparse is None:
        obs = th.as_tensor(buf.obs[ready], device=device)
    else:
        columns, entries = (th.as_tensor(x, device=device)
                            for x in _SparseTrunks.rows(buf.obs[ready]))
    mask = th.as_tensor(buf.mask[ready], device=device)
    actions = th.as_tensor(buf.action[ready], device=device)
    old_logp = th.as_tensor(buf.logp[ready], device=device)
    adv_t = th.as_tensor(adv[ready], device=device)
    ret_t = th.as_tensor(ret[ready], device=device)
    extra = None if critic is None else th.as_tensor(buf.critic_input[ready], device=device)
    params = [p for group in optimizer.param_groups for p in group["params"]]
    policy.set_training_mode(True)
    gen = np.random.default_rng(int(n))
    out = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0,
           "clip_fraction": 0.0}
    batches = 0
    clip = float(t["clip_range"])
    for _ in range(t["n_epochs"]):
        order = gen.permutation(n)
        kl_epoch = []
        for start in range(0, n, t["batch_size"]):
            idx = order[start:start + t["batch_size"]]
            if len(idx) < 2:
                continue
            if sparse is None:
                logits, values = logits_values(policy, obs[idx], critic,
                                                None if extra is None else extra[idx])
            else:
                logits, values = sparse(columns[idx], entries[idx])
            log_probs = _masked_log_probs(logits, mask[idx])
            logp = log_probs.gather(1, actions[idx][:, None])[:, 0]
            entropy = -(log_probs.exp() * log_probs).masked_fill(~mask[idx], 0.0).sum(1)
            a = adv_t[idx]
            a = (a - a.mean()) / (a.std() + 1e-8)
            ratio = th.exp(logp - old_logp[idx])
            loss_pi = -th.min(a * ratio, a * th.clamp(ratio, 1 - clip, 1 + clip)).mean()
            loss_v = th.nn.functional.mse_loss(values, ret_t[idx])
            loss_ent = -entropy.mean()
            loss = loss_pi + t["vf_coef"] * loss_v + t["ent_coef"] * loss_ent
            optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(params, t["max_grad_norm"])
            optimizer.step()
            with th.no_grad():
                log_ratio = logp - old_logp[idx]
                kl = float(((ratio - 1) - log_ratio).mean())
            kl_epoch.append(kl)
            out["policy_loss"] += loss_pi.item()
            out["value_loss"] += loss_v.item()
            out["entropy"] -= loss_ent.item()
            out["approx_kl"] += kl
            out["clip_fraction"] += float(((ratio - 1).abs() > clip).float().mean())
            batches += 1
        if t["target_kl"] is not None and kl_epoch and np.mean(kl_epoch) > 1.5 * t["target_kl"]:
            break
    policy.set_training_mode(False)
    means = {k: v / max(batches, 1) for k, v in out.items()}
    # as SB3 logs it: how much of the returns' variance the rollout's values explained
    var = float(np.var(ret[ready]))
    means["explained_variance"] = (float("nan") if var == 0
                                   else 1.0 - float(np.var(ret[ready] - buf.value[ready])) / var)
    return means


__all__ = ["BatchRun", "League", "Rollout", "build_network", "open_run", "train_ppo"]
