"""Policy files (``*.pt``) written before the network classes moved below policies still load.

A file names its network class by path: ``training.networks.X`` (before the
packages were namespaced), ``stichzoo.training.networks.X`` (before the
classes moved to policies), ``stichzoo.policies.networks.X`` (before 0.2.0 put them in
:mod:`stichzoo.policies.runtimes.networks`) and the path of today.
Each loads, plays a legal move, and loading does not go through training's alias.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

th = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from stichzoo import envs  # noqa: E402
from stichzoo.policies import Decision  # noqa: E402

OLD_PATHS = ("training.networks.PhaseTrunkPolicy",
             "stichzoo.training.networks.PhaseTrunkPolicy",
             "stichzoo.policies.networks.PhaseTrunkPolicy")

LOAD = """
import sys
from stichzoo import envs
from stichzoo.policies import Decision
from stichzoo.policies.runtimes.torch_policy import TorchPolicy
g = envs.game_class("wizard")
game = g(g.Options(rounds=(1, 2)))
for path in sys.argv[1:]:
    bot = TorchPolicy.load(path, game)
    state = game.new_game(seed=1)
    assert bot.act(Decision(game, state)) in state.legal_actions()
    print(type(bot.net).__module__)
# ``import stichzoo`` registers the Gymnasium ids (training.gym.registry); nothing else
assert not [m for m in sys.modules if m.startswith("stichzoo.training.")
            and m not in ("stichzoo.training.gym", "stichzoo.training.gym.registry")], \
    "read through training"
"""


def _game():
    g = envs.game_class("wizard")
    return g(g.Options(rounds=(1, 2)))


def _phase_policy(game):
    import gymnasium as gym
    import numpy as np

    from stichzoo.policies.base import encoder_for
    from stichzoo.policies.runtimes.networks import policy_setup

    layout = encoder_for(game).layout
    cls, kwargs = policy_setup("phase", [16], layout)
    obs = gym.spaces.Box(-np.inf, np.inf, (layout.size,), np.float32)
    return cls(obs, gym.spaces.Discrete(game.num_actions), lambda _: 3e-4, **kwargs)


def _old_file(game, class_path: str, path) -> None:
    """A policy file at ``path`` naming its network class by ``class_path``."""
    from stichzoo.policies.runtimes.torch_policy import save_policy

    save_policy(_phase_policy(game), game, str(path))
    saved = th.load(path, weights_only=False)
    assert (saved["stichzoo"]["policy_class"]
            == "stichzoo.policies.runtimes.networks.PhaseTrunkPolicy")
    saved["stichzoo"]["policy_class"] = class_path
    th.save(saved, path)


@pytest.mark.parametrize("class_path", OLD_PATHS)
def test_a_policy_file_naming_an_old_class_path_loads(class_path, tmp_path):
    from stichzoo.policies.runtimes.torch_policy import TorchPolicy

    game = _game()
    path = tmp_path / "policy.pt"
    _old_file(game, class_path, path)
    bot = TorchPolicy.load(str(path), game)
    state = game.new_game(seed=1)
    assert bot.act(Decision(game, state)) in state.legal_actions()


def test_old_class_paths_load_in_a_fresh_process_without_training(tmp_path):
    """A fresh process loads a file of each old class path: the class comes from policies,
    not through training's alias.  One process for all of them (its start-up, torch's
    import, is the test's time); loading one path leaves nothing the next could use, as
    ``torch_policy.MOVED_MODULES`` only renames."""
    game = _game()
    paths = [tmp_path / f"policy_{k}.pt" for k in range(len(OLD_PATHS))]
    for class_path, path in zip(OLD_PATHS, paths):
        _old_file(game, class_path, path)
    out = subprocess.run([sys.executable, "-c", LOAD, *map(str, paths)], capture_output=True,
                         text=True, check=True)
    assert out.stdout.split() == ["stichzoo.policies.runtimes.networks"] * len(OLD_PATHS)
