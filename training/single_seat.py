"""A Gymnasium single-seat view of any stichzoo AEC env, for single-agent RL.

The learner holds one seat, drawn per episode; every other seat is played
*inside* the view by opponents drawn from a pool (random, heuristic, search,
frozen snapshots of the learner).  Each ``step`` is therefore exactly one
decision of the learner, and its reward is the learner's own: what the AEC
env accumulated for the learner's agent (``_cumulative_rewards``) between
its previous decision and this one, including score changes caused by the
opponents' moves that closed a round.  (PettingZoo's SB3 tutorial trains one
model on every seat's transitions with the wrong seat's reward; here no
transition of another seat ever reaches the learner.)

``action_masks()`` lives on the view, so sb3-contrib's MaskablePPO finds it
through SubprocVecEnv and DummyVecEnv alike.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from stichzoo import envs
from stichzoo.policies import Decision, make_policy


@dataclass(frozen=True)
class PoolEntry:
    policy: str  # a policy spec ("random", "heuristic", "pimc:worlds=2") or "self"
    weight: float = 1.0


class OpponentPool:
    """Weighted opponent specs; ``"self"`` draws a frozen snapshot of the learner.

    Snapshots are file paths of saved policies (see
    :class:`stichzoo.policies.learned.TorchPolicy`); the most recent ``keep`` are
    used.  Until the first snapshot exists, ``"self"`` falls back to the
    other entries.
    """

    def __init__(self, entries: list[PoolEntry | dict | str], keep: int = 5):
        self.entries = [self._entry(e) for e in entries]
        if not self.entries:
            raise ValueError("the opponent pool is empty")
        for e in self.entries:
            if e.weight < 0:
                raise ValueError(f"opponent {e.policy!r}: weight must be >= 0")
        self.keep = keep
        self.snapshots: list[str] = []
        self._loaded: dict[str, Any] = {}

    @staticmethod
    def _entry(e) -> PoolEntry:
        if isinstance(e, PoolEntry):
            return e
        if isinstance(e, str):
            return PoolEntry(e)
        if isinstance(e, dict):
            unknown = set(e) - {"policy", "weight"}
            if unknown:
                raise ValueError(f"opponent entry: unknown key(s) {sorted(unknown)}")
            return PoolEntry(str(e["policy"]), float(e.get("weight", 1.0)))
        raise ValueError(f"opponent entry {e!r}: use a policy name or {{policy, weight}}")

    def add_snapshot(self, path: str) -> None:
        self.snapshots.append(path)
        self.snapshots = self.snapshots[-self.keep:]
        for stale in set(self._loaded) - set(self.snapshots):
            del self._loaded[stale]

    def draw(self, rng: np.random.Generator, game, seed: int):
        entries = [e for e in self.entries if e.policy != "self" or self.snapshots]
        weights = np.array([e.weight for e in entries], dtype=float)
        if weights.sum() <= 0:
            raise ValueError("the opponent pool has no entry with positive weight")
        entry = entries[int(rng.choice(len(entries), p=weights / weights.sum()))]
        if entry.policy == "self":
            path = self.snapshots[int(rng.integers(len(self.snapshots)))]
            if path not in self._loaded:
                from stichzoo.policies.learned import TorchPolicy

                self._loaded[path] = TorchPolicy.load(path, game, deterministic=False)
            policy = self._loaded[path]
            policy.reseed(seed)
            return policy
        from stichzoo.training.evaluate import build_policy

        return build_policy(entry.policy, game, seed)


class SingleSeatEnv(gym.Env):
    """One seat of a stichzoo game as a Gymnasium env with ``action_masks()``."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, game: str, options: dict | None = None,
                 opponents: OpponentPool | list | None = None, reward: str = "score",
                 reward_scale: float = 1.0, seat: int | None = None,
                 render_mode: str | None = None):
        self.game_name = game
        self.aec = envs.env_module(game).raw_env(reward=reward, reward_scale=reward_scale,
                                                 render_mode=render_mode, **(options or {}))
        self.game = self.aec.game
        n = self.game.num_players
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < n):
            raise ValueError(f"seat={seat!r} must be an integer in 0..{n - 1} or None (drawn)")
        self.fixed_seat = seat
        if opponents is None:
            opponents = ["random"]
        self.pool = opponents if isinstance(opponents, OpponentPool) else OpponentPool(opponents)
        space = self.aec.observation_space("player_0")
        self.observation_space = space["observation"]
        self.action_space = self.aec.action_space("player_0")
        self.render_mode = render_mode
        self.seat = 0
        self.learner = "player_0"
        self._mask = np.zeros(self.game.num_actions, np.int8)
        self._opponents: dict[int, Any] = {}

    # -- gymnasium API ---------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        self.aec.reset(seed=int(rng.integers(2**31 - 1)))
        n = self.game.num_players
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(n))
        self.learner = f"player_{self.seat}"
        self._opponents = {s: self.pool.draw(rng, self.game, int(rng.integers(2**31 - 1)))
                           for s in range(n) if s != self.seat}
        self._advance()
        obs, _, _, _, info = self._view()
        return obs, info

    def step(self, action):
        self.aec.step(int(action))  # the learner's own move (an illegal one raises)
        self._advance()
        return self._view()

    def action_masks(self) -> np.ndarray:
        return self._mask.astype(bool)

    def render(self):
        return self.aec.encoder.render(self.aec.state_, self.seat, False)

    # -- internals ----------------------------------------------------------------------

    def _advance(self) -> None:
        """Let the opponents act until the learner is to act or the game ends."""
        aec, state, game = self.aec, self.aec.state_, self.game
        while not (state.over or state.truncated) and state.current_player != self.seat:
            seat = state.current_player
            aec.step(self._opponents[seat].act(Decision(game, state, seat)))

    def _view(self):
        aec, state = self.aec, self.aec.state_
        obs = aec.observe(self.learner)
        self._mask = obs["action_mask"]
        reward = float(aec._cumulative_rewards[self.learner])
        aec._cumulative_rewards[self.learner] = 0  # credited now; not again
        terminated, truncated = bool(state.over), bool(state.truncated)
        info: dict[str, Any] = {"seat": self.seat}
        if terminated or truncated:
            winners = state.winners()
            info["final_totals"] = list(state.totals)
            info["win_share"] = (1 / len(winners)) if self.seat in winners else 0.0
            info["metrics"] = self._metrics()
        return obs["observation"], reward, terminated, truncated, info

    def _metrics(self) -> dict[str, float]:
        try:
            module = importlib.import_module(f"stichzoo.envs.{self.game_name}.metrics")
        except ModuleNotFoundError:
            return {}
        return module.seat_metrics(self.aec.state_)[self.seat]

    # -- self-play league -------------------------------------------------------------

    def add_snapshot(self, path: str) -> None:
        self.pool.add_snapshot(path)


def make_single_seat(game: str, **kwargs) -> SingleSeatEnv:
    return SingleSeatEnv(game, **kwargs)


__all__ = ["OpponentPool", "PoolEntry", "SingleSeatEnv", "make_policy"]
