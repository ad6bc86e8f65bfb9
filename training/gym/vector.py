"""Vector envs over the batch engine: the learner's seats as Gymnasium sub-envs, no bookkeeping.

    from stichzoo.training.gym.vector import SeatVectorEnv
    envs = SeatVectorEnv("wizard", num_envs=64, options={"num_players": 4},
                         opponents=["heuristic"])
    obs, infos = envs.reset(seed=0)                    # (64, 603) float32
    actions = envs.action_space.sample(mask=tuple(infos["action_mask"].astype(np.int8)))
    obs, rewards, terminated, truncated, infos = envs.step(actions)

:class:`SeatVectorEnv` is a Gymnasium ``VectorEnv`` for the *single-learner
view*: sub-env ``i`` is game ``i`` of a :class:`~stichzoo.envs.BatchEnv`
seen from the learner's seat in it (drawn per deal, or fixed by ``seat``),
exactly what :class:`~stichzoo.training.gym.single_seat.SingleSeatEnv` is for
one game.  The other seats are played *inside* by opponents given as
policy specs (``"heuristic"``, ``"random"``, ``"bot:wizard"``,
``{"policy": ..., "weight": ...}``), drawn per seat and deal.  Each
``step`` is one decision of the learner in every game: the learner's
actions are applied, then the opponents play every game on
(``BatchEnv.step_games``) until the learner is to act again there, and the
observations of all games are written once.  The
reward of sub-env ``i`` is what the learner's seat earned from its decision
until its next one (the AEC env's credit of that seat, ``last()``'s
reward), opponents' moves that close a round included; no other seat's
reward ever reaches it.

Autoreset is **same-step** (``metadata["autoreset_mode"] ==
AutoresetMode.SAME_STEP``, https://farama.org/Vector-Autoreset-Mode), as
the batch engine deals the next game at once: on the step a game ends,
``terminated[i]`` (or ``truncated[i]``: a game cut by its length guard) is
set, the reward is that last decision's, and the returned ``obs[i]`` is
already the learner's first decision of the next deal; the learner's view
of the finished game is ``infos["final_obs"][i]`` and its result
``infos["final_info"]`` (``seat``, ``final_totals``, ``win_share``), with
the ``_final_obs`` / ``_final_info`` masks.  Every action of a step counts
(no reset step to skip).  Rewards the learner earns in a new deal before its
first decision there (none in the five games today) are added to its first
step's reward, as ``last()`` would credit them.

Action masks, the way masking code looks for them: ``infos["action_mask"]``
((N, A) bool, every step and reset; ``infos["seat"]`` says which seat the
learner holds) and the method :meth:`SeatVectorEnv.action_masks`.  An action
outside the mask raises the rules' ``IllegalActionError`` (naming the game)
before anything is applied: sample with the mask.

All-seat learning - every seat a learner, no opponents - needs no view:
step the :class:`~stichzoo.envs.BatchEnv` itself (every decision is then the
learner's) and let :class:`SeatChains` link each decision to its seat's next
one and credit it that seat's rewards; see docs/batch.md.

Why here (``stichzoo.training``) and not beside the engine in ``envs/``:
the opponents are bots from ``stichzoo.policies``, which ``envs`` must never
import.  Nothing here imports torch (SB3's face, which does, is
:mod:`stichzoo.training.gym.vector_sb3`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from stichzoo.envs.core.batch import BatchEnv
from stichzoo.policies import Decision
from stichzoo.policies.base import ArrayDecision
from stichzoo.policies.specs import build_policy
from stichzoo.training.gym.single_seat import OpponentPool


class SeatVectorEnv(VectorEnv):
    """``num_envs`` games, each seen from the learner's seat, opponents inside; see the module.

    ``options``: the game's options (``num_players``...); ``opponents``: policy
    specs, optionally weighted (``[{"policy": "heuristic", "weight": 3},
    "random"]``), one drawn per opponent seat and deal; ``seat``: the learner's
    seat in every game, or None to draw it per deal; ``reward`` and
    ``reward_scale`` as the AEC env's.  The batch engine is :attr:`batch`:
    episode ``k`` of game ``i`` after ``reset(seed=s)`` is the AEC env's
    game after ``reset(seed=episode_seed(s, i, k))``.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, game: str, num_envs: int, options: dict | None = None,
                 opponents: list | None = None, reward: str = "score",
                 reward_scale: float = 1.0, seat: int | None = None, core: str = "auto"):
        pool = OpponentPool(["random"] if opponents is None else list(opponents))
        # opponents that read only the observation and mask (uniform random, a trained
        # network's file) act on the kernel's rows (policies.base.ArrayDecision); any other
        # reads rules states, which only the Python core holds (see BatchEnv's core)
        specs = [e.policy for e in pool.entries if e.weight > 0]
        arrays = all(isinstance(s, str) and (s == "random" or s.startswith("ppo:"))
                     for s in specs)
        self.batch = batch = BatchEnv(game, num_envs, reward=reward, reward_scale=reward_scale,
                                      core=core if arrays else "python", **(options or {}))
        self.game = batch.game
        n = batch.num_players
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                                 or not 0 <= seat < n):
            raise ValueError(f"seat={seat!r} must be an integer in 0..{n - 1} or None (drawn)")
        self.fixed_seat = seat
        if any(e.policy == "self" for e in pool.entries):
            raise ValueError("opponents: 'self' (snapshots of a training run) belongs to the "
                             "trainers; name a frozen policy as ppo:path=FILE.pt instead")
        self.opponent_specs = [e.policy for e in pool.entries]
        weights = np.array([e.weight for e in pool.entries])
        if weights.sum() <= 0:
            raise ValueError("opponents: no entry with a positive weight")
        self._weights = weights / weights.sum()
        self.num_envs = num_envs
        layout = batch.encoder.layout
        self.single_observation_space = spaces.Box(layout.low, layout.high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(batch.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        self.seat = np.zeros(num_envs, np.int64)  # the learner's seat in each game's deal
        self.tables = np.zeros((num_envs, n), np.int64)  # per seat: index into _actors
        self._actors: list = []
        self._carry = np.zeros(num_envs, np.float32)  # earned before the deal's first decision
        self._mask = np.zeros((num_envs, batch.num_actions), bool)

    # -- gymnasium API ---------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal every game anew.  ``seed``: one integer for all games (each game's deals
        follow from it), or None to continue this env's random stream."""
        if seed is not None and (isinstance(seed, bool)
                                 or not isinstance(seed, (int, np.integer))):
            raise ValueError(f"seed={seed!r}: give one integer for all games (or None)")
        super().reset(seed=None if seed is None else int(seed))
        rng = self.np_random
        batch_seed = int(seed) if seed is not None else int(rng.integers(2**31 - 1))
        self._actors = [build_policy(spec, self.game, seed=int(rng.integers(2**31 - 1)))
                        for spec in self.opponent_specs]
        batch = self.batch
        batch.reset(seed=batch_seed)
        for i in range(self.num_envs):
            self._draw_table(i)
        self._carry[:] = 0.0
        # opponents play up to the learner's first decisions; all they earn it is carried
        ended = np.ones(self.num_envs, bool)
        self._play_opponents(np.zeros(self.num_envs, np.float32), ended, {},
                             np.zeros(self.num_envs, bool))
        return batch.obs.copy(), self._infos({})

    def step(self, actions):
        batch, n_envs = self.batch, self.num_envs
        # every game is at the learner's decision: all step (an illegal action raises here,
        # changing nothing); observations are written once the opponents have played on
        everyone = np.arange(n_envs)
        _, _, _, rewards, dones = batch.step_games(everyone, np.asarray(actions), observe=False)
        reward = self._carry.copy()
        self._carry[:] = 0.0
        ended = np.zeros(n_envs, bool)
        truncated = np.zeros(n_envs, bool)
        finals: dict[str, Any] = {}
        self._credit(everyone, rewards, dones, reward, ended, truncated, finals)
        self._play_opponents(reward, ended, finals, truncated)
        terminated = ended & ~truncated
        return batch.obs.copy(), reward, terminated, truncated, self._infos(finals)

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game's learner decision, (num_envs, num_actions) bool."""
        return self._mask.copy()

    # -- internals -------------------------------------------------------------------

    def _draw_table(self, i: int) -> None:
        """Who sits where in game ``i``'s new deal: the learner's seat, an opponent per seat."""
        rng, n = self.np_random, self.batch.num_players
        self.seat[i] = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(n))
        self.tables[i] = rng.choice(len(self._actors), size=n, p=self._weights)

    def _play_opponents(self, reward: np.ndarray, ended: np.ndarray, finals: dict,
                        truncated: np.ndarray) -> None:
        """Opponents act in every game whose learner is not to act, until all are."""
        batch, game = self.batch, self.game
        to_act, seat, actors = batch.to_act, self.seat, self._actors
        on_rows = batch.core == "c"  # the kernel: decisions from the observation rows
        states = None if on_rows else batch.states
        while True:
            rows = np.flatnonzero(to_act != seat)
            if not rows.size:
                break
            if on_rows:
                batch.observe(rows)
            acts = []
            for r in rows.tolist():
                s = int(to_act[r])
                decision = (ArrayDecision(game, s, batch.obs[r].copy(), batch.mask[r].copy())
                            if on_rows else Decision(game, states[r], s))
                acts.append(actors[self.tables[r, s]].act(decision))
            _, _, _, rewards, dones = batch.step_games(rows, np.asarray(acts, np.int64),
                                                       observe=False)
            self._credit(rows, rewards, dones, reward, ended, truncated, finals)
        batch.observe()
        self._mask = batch.mask.astype(bool)

    def _credit(self, rows: np.ndarray, rewards: np.ndarray, dones: np.ndarray,
                reward: np.ndarray, ended: np.ndarray, truncated: np.ndarray,
                finals: dict) -> None:
        """Credit the learner's seat of each stepped game; close the games that ended."""
        gains = rewards[rows, self.seat[rows]]
        old = ended[rows]
        reward[rows[~old]] += gains[~old]
        self._carry[rows[old]] += gains[old]  # a new deal, before the learner's first decision
        for r in rows[dones[rows]].tolist():
            if ended[r]:
                raise RuntimeError(f"game {r}: a deal ended before the learner decided in it")
            ended[r] = True
            batch, s = self.batch, int(self.seat[r])
            truncated[r] = batch.truncated[r]
            final = np.zeros(batch.obs_size, np.float32)
            batch.final_observation(r, s, final)
            info = {"seat": s, "final_totals": batch.final_totals[r].copy(),
                    "win_share": float(batch.final_win_share[r, s])}
            self._add_info(finals, {"final_obs": final, "final_info": info}, r)
            self._draw_table(r)

    def _infos(self, finals: dict) -> dict[str, Any]:
        every = np.ones(self.num_envs, bool)
        infos = {"action_mask": self._mask.copy(), "_action_mask": every,
                 "seat": self.seat.copy(), "_seat": every.copy()}
        infos.update(finals)
        return infos


class SeatChains:
    """All-seat learning on the batch engine: each decision credited its own seat's rewards.

    When every seat is a learner, step a :class:`~stichzoo.envs.BatchEnv` and
    store one decision per game per step, as any vectorised rollout does
    (``(steps, num_envs)`` arrays).  Step ``t``'s decision in game ``i`` is
    seat ``to_act[i]``'s; its transition runs to *that seat's* next decision
    in that game, ``next[t, i]`` (seats take turns, so that is not ``t + 1``),
    and its reward is what that seat earned meanwhile (the engine's
    ``rewards[:, seat]``, opponents' moves included: the AEC env's
    ``last()`` credit).  Tell it each step's seats and rewards::

        chains = SeatChains(steps, batch.num_envs, batch.num_players)
        for t in range(steps):
            chains.decide(t, to_act)                 # before the step
            obs, mask, to_act, rewards, dones = batch.step(actions)
            chains.earn(rewards, dones)              # after it
        advantages, returns, valid = chains.advantages(values, gamma=0.99, lam=0.95)

    ``reward[t, i]``, ``next[t, i]`` (-1: none), ``done[t, i]`` (the seat's
    last decision of its game) are the links; a decision whose seat has not
    decided again by the end of the rollout is *pending* (its reward is not
    complete): ``valid`` is False there, so leave it out of the update; the
    decision before it bootstraps from its value.  Call :meth:`clear` before
    the next rollout (its open decisions are dropped, not carried).
    """

    def __init__(self, steps: int, num_envs: int, num_players: int):
        self.steps, self.num_envs, self.num_players = steps, num_envs, num_players
        self.reward = np.zeros((steps, num_envs), np.float32)
        self.next = np.full((steps, num_envs), -1, np.int64)
        self.done = np.zeros((steps, num_envs), bool)
        self.seat = np.zeros((steps, num_envs), np.int64)
        self._open = np.full((num_envs, num_players), -1, np.int64)  # step of each open one
        self._games = np.arange(num_envs)
        self._t = -1

    def clear(self) -> None:
        """Start a new rollout of the same size."""
        self.reward[:] = 0.0
        self.next[:] = -1
        self.done[:] = False
        self._open[:] = -1
        self._t = -1

    def decide(self, t: int, to_act: np.ndarray) -> None:
        """Step ``t``'s decisions: seat ``to_act[i]`` of each game ``i`` (before ``step``)."""
        games = self._games
        prev = self._open[games, to_act]
        linked = prev >= 0
        self.next[prev[linked], games[linked]] = t
        self._open[games, to_act] = t
        self.seat[t] = to_act
        self._t = t

    def earn(self, rewards: np.ndarray, dones: np.ndarray) -> None:
        """Credit the step's per-seat ``rewards`` (num_envs, num_players) to each seat's open
        decision; a game in ``dones`` closes its seats' chains (after ``step``)."""
        games, seats = np.nonzero(self._open >= 0)
        np.add.at(self.reward, (self._open[games, seats], games), rewards[games, seats])
        for i in np.flatnonzero(dones).tolist():
            last = self._open[i]
            self.done[last[last >= 0], i] = True
            self._open[i] = -1

    @property
    def pending(self) -> np.ndarray:
        """(steps, num_envs) bool: decisions whose reward is not complete yet."""
        out = np.zeros((self.steps, self.num_envs), bool)
        games, seats = np.nonzero(self._open >= 0)
        out[self._open[games, seats], games] = True
        return out

    def advantages(self, values: np.ndarray, gamma: float = 0.99,
                   lam: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """GAE along each seat's chain: ``(advantages, returns, valid)``, each (steps, num_envs).

        ``values[t, i]``: the critic's value of step ``t``'s observation.
        """
        values = np.asarray(values, np.float32)
        pending = self.pending
        adv = np.zeros_like(values)
        games = self._games
        for t in range(self._t, -1, -1):
            nxt = self.next[t]
            linked = (nxt >= 0) & ~self.done[t]
            k = np.where(linked, nxt, 0)
            delta = self.reward[t] - values[t] + gamma * np.where(linked, values[k, games], 0.0)
            follow = linked & ~pending[k, games]
            adv[t] = delta + gamma * lam * np.where(follow, adv[k, games], 0.0)
        valid = ~pending
        valid[self._t + 1:] = False
        adv[~valid] = 0.0
        return adv, adv + values, valid


__all__ = ["SeatChains", "SeatVectorEnv"]
