"""N games of one game stepped together: the batch engine for training and benchmarks.

    from stichzoo.envs import BatchEnv
    batch = BatchEnv("wizard", num_envs=256, num_players=4)
    obs, mask, to_act = batch.reset(seed=0)          # (N, obs) float32, (N, A) int8, (N,) int
    actions = batch.sample_legal(rng)                 # or a policy's choices, one per game
    obs, mask, to_act, rewards, dones = batch.step(actions)

The same rules cores as the AEC env, stepped in one Python loop per call,
with the observations and masks of all N games written into preallocated
arrays (each game's vectorised ``encode_many`` where it has one).  Each
game has exactly one seat to act, so a step is one decision per game:
``obs[i]`` and ``mask[i]`` are the view of seat ``to_act[i]`` of game
``i``, and ``rewards[i, s]`` is what seat ``s`` of game ``i`` earned by
that step (the AEC env's rewards, same ``reward`` mode and scale).  A
finished game starts its next deal at once (``dones[i]`` is set for the
step that ended it; ``final_totals[i]``, ``final_win_share[i]`` and
``truncated[i]`` tell how it ended and ``final_states[i]`` is its last rules
state - with its log when the engine was built with ``log=True``, so a
trainer can compute the game's own metrics; the returned ``obs[i]`` is
already the new game's first decision).  ``step_games(games, actions)``
steps only some games and lets the others wait at their pending decision
(for views where games run ahead of each other, such as the single-learner
vector env of ``stichzoo.training.gym.vector``).

Two cores step the games, with the same games, arrays and errors: the
compiled kernel (``envs/kernel``, C, used when it is built and supports
the game's observation) and the Python rules cores.  ``core="python"``
(or ``STICHZOO_KERNEL=python``) forces the Python core; ``batch.core``
says which runs.  On the kernel, ``states[i]`` and ``final_states[i]`` are
Python rules states rebuilt on demand by replaying the game's deck seed
and actions (exact, but a replay per access): a consumer that reads the
rules states at every step (bots that act on them, a privileged critic)
asks for ``core="python"``.

Determinism: episode ``k`` of game ``i`` is the game the AEC env plays
after ``reset(seed=episode_seed(seed, i, k))``, byte for byte - the same
deck orders, observations, masks and rewards for the same actions (tested
against the AEC env; ``scripts/checks/check_batch.py`` runs a million decisions
per game).  Arrays returned by ``reset``/``step`` are the engine's own
buffers, overwritten by the next call: copy what you keep.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium.utils import seeding

from stichzoo.envs.core.aec import CardGameEnv
from stichzoo.envs.core.game import (
    Game,
    GameState,
    IllegalActionError,
    build_options,
    win_share,
)
from stichzoo.envs.core.rewards import check_reward_args, step_rewards
from stichzoo.envs.kernel import KZ_DELTAS, KZ_OVER, KZ_TRUNCATED, load
from stichzoo.envs.registry import env_module

_MASK64 = (1 << 63) - 1


def episode_seed(seed: int, index: int, episode: int) -> int:
    """The AEC ``reset`` seed of episode ``episode`` of game ``index`` in a batch seeded ``seed``.

    Public so a test (or a user) can replay any game of a batch in the AEC env.
    """
    h = 0x9E3779B97F4A7C15
    for p in (seed, index, episode):
        h = (h ^ (p + 0x632BE59BD9B4E019 + (h << 6) + (h >> 2))) & _MASK64
    return h


def masks_into(out: np.ndarray, masks: list[int], num_actions: int) -> None:
    """Write int bitmasks (one per row) into ``out`` (N, num_actions) as 0/1, in a few numpy ops."""
    nbytes = (num_actions + 7) // 8
    raw = np.frombuffer(b"".join(m.to_bytes(nbytes, "little") for m in masks), np.uint8)
    out[:] = np.unpackbits(raw.reshape(len(masks), nbytes), axis=1, count=num_actions,
                           bitorder="little")


class BatchEnv:
    """``num_envs`` games of one stichzoo game; see the module docstring."""

    def __init__(self, game: str | type[CardGameEnv], num_envs: int, *, reward: str = "score",
                 reward_scale: float = 1.0, log: bool = False, core: str = "auto",
                 **options: Any):
        env_cls = env_module(game).raw_env if isinstance(game, str) else game
        name = env_cls.game_cls.name
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"{name}: num_envs={num_envs!r} must be a positive integer")
        check_reward_args(env_cls.game_cls, reward, reward_scale)
        self.game: Game = env_cls.game_cls(build_options(env_cls.game_cls.Options, name, options))
        self.encoder = env_cls.encoder_cls(self.game)
        self.num_envs = n_envs = num_envs
        self.num_players = n = self.game.num_players
        self.num_actions = self.game.num_actions
        self.obs_size = self.encoder.layout.size
        self.reward_mode = reward
        self.reward_scale = float(reward_scale)
        self.log = bool(log)
        self.obs = np.zeros((n_envs, self.obs_size), np.float32)
        self.mask = np.zeros((n_envs, self.num_actions), np.int8)
        self.to_act = np.zeros(n_envs, np.int64)
        self.rewards = np.zeros((n_envs, n), np.float32)
        self.dones = np.zeros(n_envs, bool)
        self.truncated = np.zeros(n_envs, bool)
        self.final_totals = np.zeros((n_envs, n), np.float64)
        self.final_win_share = np.zeros((n_envs, n), np.float64)  # by the game's winner rule
        self.episodes = np.zeros(n_envs, np.int64)  # finished episodes per game
        self.final_states: list[GameState | None] = [None] * n_envs
        self.states: list[GameState] = []
        self._rows = np.arange(n_envs)
        self._masks: list[int] = []
        self.seed: int | None = None
        self._encode_many = getattr(self.encoder, "encode_many", None)
        if core not in ("auto", "c", "python"):
            raise ValueError(f"{name}: core={core!r} must be 'auto', 'c' or 'python'")
        # the kernel writes every game's default observation (this encoder's), bit for bit
        self._kernel = None if core == "python" else load(self.game, force=core == "c")
        #: the core that steps the games: "c" (the compiled kernel) or "python"
        self.core = "c" if self._kernel is not None else "python"
        if self._kernel is not None:
            self._init_kernel()
        # step_games' rows before the scatter, made on its first use
        self._scratch_obs: np.ndarray | None = None
        self._scratch_mask: np.ndarray | None = None

    # -- lifecycle -----------------------------------------------------------------

    def _deck_seed(self, index: int) -> int:
        """The ``random.Random`` seed of game ``index``'s current episode: exactly the AEC
        env's ``reset(seed=episode_seed(...))`` deal."""
        rng, _ = seeding.np_random(episode_seed(self.seed, index, int(self.episodes[index])))
        return int(rng.integers(2**63 - 1))

    def _new_state(self, index: int) -> GameState:
        return self.game.new_state(self.game.deal(random.Random(self._deck_seed(index))),
                                   log=self.log)

    def reset(self, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed={seed!r} must be a non-negative integer")
        self.seed = int(seed)
        self.episodes[:] = 0
        self.rewards[:] = 0.0
        if self._kernel is not None:
            self._reset_kernel()
            return self.obs, self.mask, self.to_act
        self.final_states = [None] * self.num_envs
        self.states = [self._new_state(i) for i in range(self.num_envs)]
        self.dones[:] = False
        self.truncated[:] = False
        self._observe()
        return self.obs, self.mask, self.to_act

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                     np.ndarray]:
        """One decision in every game: ``actions[i]`` by seat ``to_act[i]`` of game ``i``.

        An action outside a game's mask raises ``IllegalActionError`` naming
        the game and the action before anything is applied.
        """
        if self._kernel is not None:
            self._step_kernel(self._rows, actions, True, everyone=True)
            return self.obs, self.mask, self.to_act, self.rewards, self.dones
        acts = self._checked(self._rows, actions)
        self._apply(range(self.num_envs), acts)
        self._observe()
        return self.obs, self.mask, self.to_act, self.rewards, self.dones

    def step_games(self, games, actions, observe: bool = True) -> tuple[
            np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One decision in some games only: ``actions[j]`` in game ``games[j]``; the rest wait.

        For views that let some games run ahead of others - the single-learner
        vector env (``stichzoo.training.gym.vector``) plays the opponents' moves of
        the games whose learner is not to act, while the others wait for the
        learner.  Returns the same full arrays as :meth:`step`: the rows of
        ``games`` are new, every other row of ``obs``/``mask``/``to_act`` is
        unchanged (still that game's pending decision) and its ``rewards`` and
        ``dones`` are zero.  Auto-reset, episode counts and determinism are as
        in :meth:`step` (a game's episodes do not depend on when it is stepped).
        ``games``: distinct game indices.  ``observe=False`` leaves the ``obs``
        rows of ``games`` stale (``mask`` and ``to_act`` are written) for callers
        whose next moves there come from bots that read the rules state; call
        :meth:`observe` before reading them.
        """
        rows = np.asarray(games)
        if (rows.ndim != 1 or rows.dtype.kind not in "iu" or (rows < 0).any()
                or (rows >= self.num_envs).any() or len(np.unique(rows)) != len(rows)):
            raise ValueError(f"games must be distinct game indices in 0..{self.num_envs - 1}; "
                             f"got {games!r}")
        if self._kernel is not None:
            self._step_kernel(rows.astype(np.int64), actions, observe)
            return self.obs, self.mask, self.to_act, self.rewards, self.dones
        acts = self._checked(rows, actions)
        rows = rows.tolist()
        self._apply(rows, acts)
        self._observe(rows, encode=observe)
        return self.obs, self.mask, self.to_act, self.rewards, self.dones

    def observe(self, games=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Write the observation of every game (or of ``games``) anew: after
        ``step_games(..., observe=False)``.  Returns ``obs, mask, to_act``."""
        if self._kernel is not None:
            rows = None if games is None else np.ascontiguousarray(games, np.int64)
            self._kernel.observe(self._kstates, rows, self.obs, self.mask, self.to_act)
        elif games is None:
            self._observe()
        else:
            self._observe(np.asarray(games, np.int64).tolist())
        return self.obs, self.mask, self.to_act

    def _actions(self, rows: np.ndarray, actions) -> np.ndarray:
        """``actions`` once the engine is reset and their shape and dtype are checked."""
        if self.seed is None:
            raise ValueError(f"{self.game.env_id}: reset() must be called before step()")
        acts = np.asarray(actions)
        if acts.shape != (len(rows),) or acts.dtype.kind not in "iu":
            raise ValueError(f"actions must be {len(rows)} integer action ids, one per "
                             f"game; got shape {acts.shape} dtype {acts.dtype}")
        return acts

    def _checked(self, rows: np.ndarray, actions) -> list[int]:
        """The actions of games ``rows`` as ints, once shape, dtype and legality are checked."""
        acts = self._actions(rows, actions)
        inside = (acts >= 0) & (acts < self.num_actions)
        legal = inside.all() and self.mask[rows, acts].all()
        acts = acts.tolist()
        if not legal:  # name the first offender; nothing has been applied yet
            masks = self._masks
            j = next(j for j, (i, a) in enumerate(zip(rows.tolist(), acts))
                     if not (0 <= a < self.num_actions and (masks[i] >> a) & 1))
            i = int(rows[j])
            state = self.states[i]
            raise IllegalActionError(
                f"game {i}: illegal action {acts[j]} for player_{state.current_player}; legal "
                f"actions: {', '.join(map(str, state.legal_actions()))}")
        return acts

    def _apply(self, rows, acts: list[int]) -> None:
        """Play ``acts[j]`` in game ``rows[j]``: rewards, game ends and redeals."""
        rewards, dones, truncated = self.rewards, self.dones, self.truncated
        rewards[:] = 0.0
        dones[:] = False
        mode, scale = self.reward_mode, self.reward_scale
        states = self.states
        for i, a in zip(rows, acts):
            state = states[i]
            state.apply(a)
            if state.last_deltas or state.over:
                gains = step_rewards(state, mode, scale)
                if gains is not None:
                    rewards[i] = gains
            if state.over or state.truncated:
                dones[i] = True
                truncated[i] = state.truncated
                self.final_totals[i] = state.totals
                self.final_win_share[i] = win_share(state.winners(), len(state.totals))
                self.episodes[i] += 1
                self.final_states[i] = state
                states[i] = self._new_state(i)

    # -- observation -----------------------------------------------------------------

    def _observe(self, rows: list[int] | None = None, encode: bool = True) -> None:
        """Write the observation, mask and seat to act of every game (or of games ``rows``;
        ``encode=False``: their masks and seats only)."""
        if rows is not None:
            self._observe_rows(rows, encode)
            return
        states = self.states
        seats = [s.current_player for s in states]
        self.to_act[:] = seats
        if self._encode_many is not None:
            self._encode_many(states, seats, self.obs)
        else:
            encode, obs = self.encoder.encode, self.obs
            for i, (s, seat) in enumerate(zip(states, seats)):
                encode(s, seat, obs[i])
        self._masks = masks = [s.legal_mask() for s in states]
        masks_into(self.mask, masks, self.num_actions)

    def _observe_rows(self, rows: list[int], encode: bool) -> None:
        if self._scratch_obs is None:
            self._scratch_obs = np.zeros_like(self.obs)
            self._scratch_mask = np.zeros_like(self.mask)
        states = [self.states[i] for i in rows]
        seats = [s.current_player for s in states]
        self.to_act[rows] = seats
        k = len(rows)
        if encode:
            obs = self._scratch_obs[:k]
            if self._encode_many is not None:
                self._encode_many(states, seats, obs)
            else:
                for j, (s, seat) in enumerate(zip(states, seats)):
                    self.encoder.encode(s, seat, obs[j])
            self.obs[rows] = obs
        masks = [s.legal_mask() for s in states]
        for i, m in zip(rows, masks):
            self._masks[i] = m
        mask = self._scratch_mask[:k]
        masks_into(mask, masks, self.num_actions)
        self.mask[rows] = mask

    # -- the compiled kernel ------------------------------------------------------------

    def _init_kernel(self) -> None:
        """The kernel's arrays: one state row per game, its action history, its results."""
        k, n_envs, n = self._kernel, self.num_envs, self.num_players
        self._kstates = k.new_states(n_envs)
        self._head = self._kstates.view(np.int32)  # kz_head: 6 ints, then the totals
        self._deltas = np.zeros((n_envs, n), np.int32)
        self._flags = np.zeros(n_envs, np.uint8)
        self._history = np.zeros((n_envs, 256), np.uint8)
        self._deck_seeds = np.zeros(n_envs, np.uint64)
        self._finals: list[tuple[int, bytes] | None] = [None] * n_envs
        self._final_rows = np.zeros_like(self._kstates)

    def _reset_kernel(self) -> None:
        self._finals = [None] * self.num_envs
        self._deal(self._rows)
        self._kernel.observe(self._kstates, None, self.obs, self.mask, self.to_act)

    def _deal(self, rows: np.ndarray) -> None:
        """New games in ``rows``, from the same deck seeds as the Python core's."""
        seeds = np.array([self._deck_seed(int(i)) for i in rows], np.uint64)
        self._deck_seeds[rows] = seeds
        self._kernel.new_games(self._kstates, np.ascontiguousarray(rows, np.int64), seeds)

    def _step_kernel(self, rows: np.ndarray, actions, observe: bool,
                     everyone: bool = False) -> None:
        """``step``/``step_games`` on the kernel: apply, record, reward, redeal, observe."""
        acts = np.ascontiguousarray(self._actions(rows, actions), np.int64)
        k, flags, head = self._kernel, self._flags, self._head
        flags[:] = 0
        done_before = head[rows, 5]  # each game's decisions so far: where its action goes
        bad = k.step(self._kstates, rows, acts, self._deltas, flags)
        if bad >= 0:
            i, a = int(rows[bad]), int(acts[bad])
            legal = k.legal(self._kstates, i)
            raise IllegalActionError(
                f"game {i}: illegal action {a} for player_{int(head[i, 0])}; legal actions: "
                f"{', '.join(str(x) for x in range(self.num_actions) if (legal >> x) & 1)}")
        if done_before.max(initial=0) >= self._history.shape[1]:
            self._history = np.concatenate([self._history, np.zeros_like(self._history)], 1)
        self._history[rows, done_before] = acts
        self.rewards[:] = 0.0
        self.dones[:] = False
        if flags.any():
            self._settle(np.flatnonzero(flags))
        if everyone:
            k.observe(self._kstates, None, self.obs, self.mask, self.to_act, observe)
        else:
            k.observe(self._kstates, rows, self.obs, self.mask, self.to_act, observe)

    def _settle(self, rows: np.ndarray) -> None:
        """Rewards of the games whose scores changed or that ended; the ended ones redealt."""
        flags = self._flags[rows]
        n, scale, mode = self.num_players, self.reward_scale, self.reward_mode
        scored = rows[(flags & KZ_DELTAS) != 0]
        ended = rows[(flags & (KZ_OVER | KZ_TRUNCATED)) != 0]
        over = rows[(flags & KZ_OVER) != 0]
        d = self._deltas[scored].astype(np.float64)
        if mode == "score":
            self.rewards[scored] = d * scale
        elif mode == "margin":
            self.rewards[scored] = (d - (d.sum(1, keepdims=True) - d) / (n - 1)) * scale
        elif mode == "win":
            for i in over.tolist():
                self.rewards[i] = self._kernel.win_share(self._kstates, i)
        else:  # standing: potential-based, as step_rewards computes it
            game = self.game
            for i in scored.tolist():
                tot = self._head[i, 6:6 + n].tolist()
                before = game.standing([t - x for t, x in zip(tot, self._deltas[i].tolist())])
                after = (self._kernel.win_share(self._kstates, i) if self._head[i, 2]
                         else game.standing(tot))
                self.rewards[i] = [a - b for a, b in zip(after, before)]
        if not ended.size:
            return
        self.dones[ended] = True
        self.truncated[ended] = (self._flags[ended] & KZ_TRUNCATED) != 0
        self.final_totals[ended] = self._head[ended, 6:6 + n]
        for i in ended.tolist():
            self.final_win_share[i] = self._kernel.win_share(self._kstates, i)
            self._finals[i] = (int(self._deck_seeds[i]),
                               self._history[i, :int(self._head[i, 5])].tobytes())
        self._final_rows[ended] = self._kstates[ended]
        self.episodes[ended] += 1
        self._deal(ended)

    def _replay(self, deck_seed: int, actions: bytes) -> GameState:
        """The Python rules state of a kernel game: its deal and actions replayed."""
        state = self.game.new_state(self.game.deal(random.Random(deck_seed)), log=self.log)
        for a in actions:
            state.apply(a)
        return state

    @property
    def states(self) -> list[GameState]:
        """Each game's rules state (on the kernel: rebuilt by replay, see the module doc)."""
        if self._kernel is None:
            return self._states
        return _Replayed(self, [(int(self._deck_seeds[i]),
                                 self._history[i, :int(self._head[i, 5])].tobytes())
                                for i in range(self.num_envs)])

    @states.setter
    def states(self, value: list[GameState]) -> None:
        self._states = value

    @property
    def final_states(self) -> list[GameState | None]:
        """Each game's last finished game (None before its first ends); see ``states``."""
        if self._kernel is None:
            return self._final_states
        return _Replayed(self, self._finals)

    @final_states.setter
    def final_states(self, value: list[GameState | None]) -> None:
        self._final_states = value

    def final_observation(self, index: int, seat: int, out: np.ndarray) -> None:
        """Write ``seat``'s observation of game ``index``'s last finished game into ``out``."""
        if self._kernel is None:
            self.encoder.encode(self.final_states[index], seat, out)
        else:
            self._kernel.encode(self._final_rows, index, seat, out)

    def sample_legal(self, rng: np.random.Generator) -> np.ndarray:
        """One uniformly random legal action per game (for benchmarks and tests)."""
        noise = rng.random(self.mask.shape, dtype=np.float32)
        # illegal ids pushed below every legal one (noise < 1): the same argmax as setting
        # them to -1, without a boolean-indexed write
        noise -= (self.mask == 0) * np.float32(2.0)
        return noise.argmax(axis=1)


class _Replayed:
    """Rules states of kernel games, each replayed when it is asked for (see BatchEnv.states)."""

    def __init__(self, batch: BatchEnv, games: list[tuple[int, bytes] | None]):
        self._batch = batch
        self._games = games
        self._made: dict[int, GameState] = {}

    def __len__(self) -> int:
        return len(self._games)

    def __getitem__(self, i: int) -> GameState | None:
        i = range(len(self._games))[i]
        if i not in self._made:
            game = self._games[i]
            if game is None:
                return None
            self._made[i] = self._batch._replay(*game)
        return self._made[i]

    def __iter__(self):
        return (self[i] for i in range(len(self)))


__all__ = ["BatchEnv", "episode_seed", "masks_into"]
