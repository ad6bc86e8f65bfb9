"""PettingZoo entry point for Wunder Punkt: ``from stichzoo.envs import wunder_punkt_v0``.

See envs/wunder_punkt/env.py for the docs page.
"""

from stichzoo.envs.wunder_punkt.env import __doc__, env, raw_env  # noqa: F401

__all__ = ["env", "raw_env"]
