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

import importlib.abc
import sys
from typing import Any

from stichzoo.policies.base import Decision, Policy, RandomPolicy
from stichzoo.policies.specs import POLICY_NAMES, game_policy_module, make_policy

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
