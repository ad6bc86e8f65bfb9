"""PettingZoo entry point for Geheimtrumpf: ``from stichzoo.envs import geheimtrumpf_v4``.

See envs/geheimtrumpf/env.py for the env's documentation.
"""

from stichzoo.envs.geheimtrumpf.env import __doc__, env, raw_env  # noqa: F401

__all__ = ["env", "raw_env"]
