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
bot = TorchPolicy.load(sys.argv[1], game)
state = game.new_game(seed=1)
assert bot.act(Decision(game, state)) in state.legal_actions()
# ``import stichzoo`` registers the Gymnasium ids (training.gym.registry); nothing else
assert not [m for m in sys.modules if m.startswith("stichzoo.training.")
            and m not in ("stichzoo.training.gym", "stichzoo.training.gym.registry")], \
    "read through training"
print(type(bot.net).__module__)
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


@pytest.mark.parametrize("class_path", OLD_PATHS)
def test_a_policy_file_naming_an_old_class_path_loads(class_path, tmp_path):
    from stichzoo.policies.runtimes.torch_policy import TorchPolicy, save_policy

    game = _game()
    path = tmp_path / "policy.pt"
    save_policy(_phase_policy(game), game, str(path))
    saved = th.load(path, weights_only=False)
    assert (saved["stichzoo"]["policy_class"]
            == "stichzoo.policies.runtimes.networks.PhaseTrunkPolicy")
    saved["stichzoo"]["policy_class"] = class_path
    th.save(saved, path)
    bot = TorchPolicy.load(str(path), game)
    state = game.new_game(seed=1)
    assert bot.act(Decision(game, state)) in state.legal_actions()
    # a fresh process: the class comes from policies, not through training's alias
    out = subprocess.run([sys.executable, "-c", LOAD, str(path)], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "stichzoo.policies.runtimes.networks"
