"""stichzoo: five trick-taking card games for reinforcement learning.

    from stichzoo.envs import wizard_v0
    env = wizard_v0.env(num_players=4)

The code lives in the repository's top-level folders ``envs/``,
``policies/`` and ``training/``; the build maps them to the subpackages
``stichzoo.envs``, ``stichzoo.policies`` and ``stichzoo.training`` (see
``[tool.setuptools]`` in pyproject.toml), so an installed stichzoo puts
exactly one top-level name, ``stichzoo``, into site-packages and cannot be
shadowed by a user's own ``envs`` or ``training`` package.  This folder
holds only the package root.

Importing ``stichzoo`` registers every game with PettingZoo's registry
(``pettingzoo.make("aec", "stichzoo/wizard-v0")``) and its single-seat view
with Gymnasium's (``gymnasium.make("stichzoo/Wizard-v0")``, see
``stichzoo.training.gym.registry``); it loads numpy, gymnasium and
pettingzoo only - the games, the bots and training load on first use.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from pkgutil import extend_path

# Run from a checkout beside a regular (non-editable) install, this folder is
# found first on sys.path; extending the search path keeps the installed
# subpackages reachable instead of hiding them.
__path__ = extend_path(__path__, __name__)

from stichzoo import envs
from stichzoo.training.gym.registry import register_with_gymnasium

register_with_gymnasium()

try:
    __version__ = version("stichzoo")
except PackageNotFoundError:  # pragma: no cover - a source tree that is not installed
    __version__ = "0+unknown"

__all__ = ["__version__", "envs"]
