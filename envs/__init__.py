"""stichzoo environments: five trick-taking card games as PettingZoo AEC envs.

    from stichzoo.envs import wizard_v0
    env = wizard_v0.env(num_players=4)

    from stichzoo.envs import BatchEnv            # N games at once (docs/batch.md)
    batch = BatchEnv("wizard", num_envs=256, num_players=4)

Importing this package registers every game with PettingZoo's registry
(``pettingzoo.make("aec", "stichzoo/wizard-v0")``).  Game modules load on
first use, so ``import stichzoo.envs`` stays light.
"""

from __future__ import annotations

import importlib

from stichzoo.envs.registry import ENV_IDS, GAMES, env_module, game_class, register_with_pettingzoo

__all__ = ["ENV_IDS", "GAMES", "BatchEnv", "env_module", "game_class", *ENV_IDS]

register_with_pettingzoo()


def __getattr__(name: str):
    if name == "BatchEnv":  # N games stepped together (envs/core/batch.py), loaded on use
        from stichzoo.envs.core.batch import BatchEnv

        return BatchEnv
    if name in ENV_IDS:
        return importlib.import_module(f"stichzoo.envs.{name}")
    raise AttributeError(f"module 'stichzoo.envs' has no attribute {name!r}")
