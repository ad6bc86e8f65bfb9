"""PettingZoo entry point for Wizard: ``from stichzoo.envs import wizard_v0``.

See envs/wizard/env.py.
"""

from stichzoo.envs.wizard.env import __doc__, env, raw_env  # noqa: F401

__all__ = ["env", "raw_env"]
