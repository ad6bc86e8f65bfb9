"""Stable-Baselines3's ``VecEnv`` face of the single-learner vector env, for MaskablePPO as is.

    from sb3_contrib import MaskablePPO
    from stichzoo.training.gym.vector import SeatVectorEnv
    from stichzoo.training.gym.vector_sb3 import SeatVecEnv

    venv = SeatVecEnv(SeatVectorEnv("wizard", 16, options={"num_players": 4},
                                    opponents=["heuristic"]))
    model = MaskablePPO("MlpPolicy", venv, n_steps=64).learn(10_000)

SB3 steps a ``VecEnv`` with same-step autoreset, as the batch engine does:
on the step a game ends, ``dones[i]`` is set, ``infos[i]["terminal_observation"]``
is the learner's view of the finished game (``"TimeLimit.truncated"`` when
its length guard cut it) and the returned observation is already the next
deal's.  sb3-contrib finds the masks through ``env_method("action_masks")``
(one row per game) and :meth:`SeatVecEnv.action_masks` gives them all at
once.  Wrap it in SB3's ``VecMonitor`` for ``rollout/ep_rew_mean``.  A
separate module because SB3 imports torch and :mod:`stichzoo.training.gym.vector`
must not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from stichzoo.training.gym.vector import SeatVectorEnv


class SeatVecEnv(VecEnv):
    """A :class:`~stichzoo.training.gym.vector.SeatVectorEnv` as an SB3 ``VecEnv``; see the module.

    Its sub-envs are the vector env's games: ``get_attr``/``env_method``
    answer for each game from the one vector env (``action_masks`` per game;
    any other attribute is the vector env's, the same for every game).
    ``seed(s)`` before ``reset()`` seeds the deal of every game (one seed for
    all, the first of SB3's per-env seeds).
    """

    def __init__(self, vector: SeatVectorEnv):
        self.vector = vector
        super().__init__(vector.num_envs, vector.single_observation_space,
                         vector.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        obs, _ = self.vector.reset(seed=self._seeds[0])
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int64).reshape(self.num_envs)

    def step_wait(self):
        obs, reward, terminated, truncated, vinfos = self.vector.step(self._actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones).tolist():
            final = vinfos["final_info"]
            infos[i] = {"terminal_observation": vinfos["final_obs"][i],
                        "TimeLimit.truncated": bool(truncated[i]),
                        "seat": int(final["seat"][i]),
                        "final_totals": final["final_totals"][i],
                        "win_share": float(final["win_share"][i])}
        return obs, reward, dones, infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, num_actions) bool: every game's legal actions."""
        return self.vector.action_masks()

    def close(self) -> None:
        self.vector.close()

    def _indices(self, indices: VecEnvIndices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else list(indices)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        rows = self._indices(indices)
        if attr_name == "action_masks":
            masks = self.vector.action_masks()
            return [lambda m=masks[i]: m for i in rows]
        value = getattr(self.vector, attr_name)  # AttributeError when there is none
        return [value for _ in rows]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        if indices is not None and len(self._indices(indices)) != self.num_envs:
            raise ValueError(f"set_attr({attr_name!r}): the games share one vector env; set "
                             f"it for all (indices=None)")
        setattr(self.vector, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None,
                   **method_kwargs) -> list[Any]:
        rows = self._indices(indices)
        if method_name == "action_masks":
            masks = self.vector.action_masks()
            return [masks[i] for i in rows]
        raise AttributeError(f"SeatVecEnv: its games have no method {method_name!r} of their "
                             f"own; call it on .vector")

    def env_is_wrapped(self, wrapper_class, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]


__all__ = ["SeatVecEnv"]
