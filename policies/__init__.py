"""Bots that play stichzoo games, all behind one interface (:mod:`stichzoo.policies.base`).

    from stichzoo.policies import make_policy
    bot = make_policy("heuristic", game, seed=0)   # or "random", "pimc", "ppo"
    action = bot.act(Decision(game, state))

Each game's rule-based bot lives in ``policies/<game>.py`` as ``Heuristic``;
the search bot (:mod:`stichzoo.policies.search`) serves all games.
"""

from __future__ import annotations

import importlib
from typing import Any

from stichzoo.policies.base import Decision, Policy, RandomPolicy

POLICY_NAMES = ("random", "heuristic", "pimc", "ppo")

__all__ = ["POLICY_NAMES", "Decision", "Policy", "RandomPolicy", "game_policy_module",
           "make_policy"]


def game_policy_module(game_name: str):
    """``policies.<game>``: the game's heuristic and search hints."""
    try:
        return importlib.import_module(f"stichzoo.policies.{game_name}")
    except ModuleNotFoundError as e:
        raise ValueError(f"no policies for game {game_name!r}") from e


def make_policy(name: str, game, seed: int | None = None, **kwargs: Any) -> Policy:
    """Build a policy by name for ``game`` (a :class:`stichzoo.envs.core.game.Game`)."""
    if name == "random":
        return RandomPolicy(seed)
    if name == "heuristic":
        return game_policy_module(game.name).Heuristic(game, seed=seed, **kwargs)
    if name in ("pimc", "search"):
        from stichzoo.policies.search import PIMCPolicy

        module = game_policy_module(game.name)
        rollout = kwargs.pop("rollout", None)
        if rollout is None and hasattr(module, "rollout_policy"):
            rollout = module.rollout_policy(game, seed)
        value = kwargs.pop("value", getattr(module, "search_value", None))
        kwargs = {**getattr(module, "SEARCH_DEFAULTS", {}), **kwargs}
        return PIMCPolicy(game, seed=seed, rollout=rollout, value=value, **kwargs)
    if name == "ppo":
        path = kwargs.pop("path", None)
        if not path:
            raise ValueError("policy 'ppo' needs a file: ppo:path=runs/<run>/policy.pt")
        from stichzoo.policies.learned import TorchPolicy

        return TorchPolicy.load(path, game, seed=seed, **kwargs)
    raise ValueError(f"unknown policy {name!r}; known policies: {', '.join(POLICY_NAMES)}")
