"""Bots that play stichzoo games, all behind one interface (:mod:`stichzoo.policies.base`).

    from stichzoo.policies import make_policy
    bot = make_policy("heuristic", game, seed=0)   # or "random", "pimc", "ppo", "onnx", "bot"
    action = bot.act(Decision(game, state))

The same names are the policy specs of tournaments, training opponent
pools and the warm-start teacher (``"pimc:worlds=8"``): ``ppo:path=FILE.pt``
is a trained torch policy, ``onnx:path=DIR`` an exported bot folder and
``bot:NAME`` (``bot:wizard``) the bot that ships with stichzoo for a game;
``search`` is the learned search bot, PIMC guided by the game's shipped bot
(``pimc:guide=bot:<game>``; ``search:guide=onnx:path=DIR`` names another).

Each game's rule-based bot lives in ``policies/<game>.py`` as ``Heuristic``;
the search bot (:mod:`stichzoo.policies.search`) serves all games.  The bot
server is :mod:`stichzoo.policies.serve`, human play :mod:`stichzoo.policies.tables`.
"""

from __future__ import annotations

import importlib
import importlib.abc
import os
import sys
from typing import Any

from stichzoo.policies.base import Decision, Policy, RandomPolicy

POLICY_NAMES = ("random", "heuristic", "pimc", "search", "ppo", "onnx", "bot")

__all__ = ["POLICY_NAMES", "Decision", "Policy", "RandomPolicy", "game_policy_module",
           "make_policy"]

#: modules that moved when policies/ was split by concern (bots, serve/, tables/)
MOVED_MODULES = {
    "stichzoo.policies.bot_registry": "stichzoo.policies.serve.registry",
    "stichzoo.policies.levels": "stichzoo.policies.serve.levels",
    "stichzoo.policies.table": "stichzoo.policies.tables.table",
    "stichzoo.policies.terminal": "stichzoo.policies.tables.terminal",
    "stichzoo.policies.web_table": "stichzoo.policies.tables.web",
}


class _MovedModules(importlib.abc.MetaPathFinder):
    """Importing a moved module fails with an ImportError that names where it lives now."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname in MOVED_MODULES:
            raise ModuleNotFoundError(f"{fullname} has moved: import "
                                      f"{MOVED_MODULES[fullname]}", name=fullname)
        return None


if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
    sys.meta_path.append(_MovedModules())  # last: only asked once no file was found


def __getattr__(name: str) -> Any:
    """``from stichzoo.policies import table`` (a moved module) names the new path too."""
    moved = MOVED_MODULES.get(f"{__name__}.{name}")
    if moved is not None:
        raise ModuleNotFoundError(f"{__name__}.{name} has moved: import {moved}",
                                  name=f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
        guide = kwargs.pop("guide", f"bot:{game.name}" if name == "search" else None)
        if isinstance(guide, str):  # a policy spec: pimc:guide=bot:wizard
            from stichzoo.policies.specs import build_policy

            guide = build_policy(guide, game, seed=0 if seed is None else seed)
        kwargs = {**getattr(module, "SEARCH_DEFAULTS", {}), **kwargs, "guide": guide}
        return PIMCPolicy(game, seed=seed, rollout=rollout, value=value, **kwargs)
    if name == "ppo":
        path = kwargs.pop("path", None)
        if not path:
            raise ValueError("policy 'ppo' needs a file: ppo:path=runs/<run>/policy.pt")
        path = str(path)
        if os.path.isdir(path):
            hint = (f"onnx:path={path}" if os.path.isfile(os.path.join(path, "manifest.json"))
                    else f"ppo:path={os.path.join(path, 'policy.pt')}")
            raise ValueError(f"policy 'ppo': {path} is a folder, not a policy file; "
                             f"try {hint}")
        if not os.path.isfile(path):
            raise ValueError(f"policy 'ppo': no policy file {path}")
        from stichzoo.policies.learned import TorchPolicy

        return TorchPolicy.load(path, game, seed=seed, **kwargs)
    if name in ("onnx", "bot"):
        from stichzoo.policies.onnx_bot import OnnxPolicy, shipped_bot

        if name == "bot":
            which = kwargs.pop("of", None) or game.name
            path = shipped_bot(str(which))
        else:
            path = kwargs.pop("path", None)
            if not path:
                raise ValueError("policy 'onnx' needs a bot folder: onnx:path=policies/bots/wizard")
            path = str(path)
            if not os.path.isdir(path):
                raise ValueError(f"policy 'onnx': {path} is not a bot folder (model.onnx + "
                                 f"manifest.json)")
        deterministic = kwargs.pop("deterministic", True)
        if kwargs:
            raise ValueError(f"policy {name!r}: unknown argument(s) {', '.join(sorted(kwargs))}")
        return OnnxPolicy.load(path, game, deterministic=bool(deterministic), seed=seed)
    raise ValueError(f"unknown policy {name!r}; known policies: {', '.join(POLICY_NAMES)}")
