"""PettingZoo entry point for Hoch & Tief: ``from stichzoo.envs import hoch_tief_v0``.

See envs/hoch_tief/env.py.
"""

from stichzoo.envs.hoch_tief.env import __doc__, env, raw_env  # noqa: F401

__all__ = ["env", "raw_env"]
