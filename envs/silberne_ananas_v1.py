"""PettingZoo entry point for Silberne Ananas: ``from stichzoo.envs import silberne_ananas_v1``.

See envs/silberne_ananas/env.py.
"""

from stichzoo.envs.silberne_ananas.env import __doc__, env, raw_env  # noqa: F401

__all__ = ["env", "raw_env"]
