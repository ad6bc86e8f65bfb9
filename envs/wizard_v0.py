"""PettingZoo entry point for Wizard: ``from envs import wizard_v0``; see envs/wizard/env.py."""

from stichzoo.envs.wizard.env import __doc__, env, raw_env  # noqa: F401

__all__ = ["env", "raw_env"]
