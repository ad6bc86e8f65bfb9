"""The single-learner vector env on the kernel equals it on the Python core.

With opponents that read only the observation and mask (uniform random here;
trained networks' files alike) the env steps the compiled kernel, the
opponents acting on ``ArrayDecision``s; the observations, rewards, endings
and final observations are the Python core's, step for step.  Opponents
that read rules states keep the Python core.
"""

from __future__ import annotations

import numpy as np
import pytest

from stichzoo.envs.kernel import compiled_games
from stichzoo.training.gym.vector import SeatVectorEnv

pytestmark = pytest.mark.skipif("wizard" not in compiled_games(), reason="no kernel")


def _run(core: str, opponents: list, game: str = "wizard", options=None):
    v = SeatVectorEnv(game, 12, options=options or {"num_players": 4, "rounds": (1, 2, 3)},
                      opponents=opponents, core=core)
    obs, info = v.reset(seed=3)
    rng = np.random.default_rng(0)
    seen = [obs.copy()]
    for _ in range(200):
        m = info["action_mask"]
        noise = rng.random(m.shape)
        noise[~m] = -1
        obs, reward, term, trunc, info = v.step(noise.argmax(1))
        seen += [obs.copy(), reward.copy(), term.copy(), trunc.copy()]
        if "final_obs" in info:
            seen += [np.stack([f for f in info["final_obs"] if f is not None])]
    return v.batch.core, seen


@pytest.mark.parametrize("game, options", [("wizard", None), ("hoch_tief", {"rounds": 1})])
def test_random_opponents_play_on_the_kernel_as_on_the_python_core(game, options):
    core_py, py = _run("python", ["random"], game, options)
    core_kz, kz = _run("auto", ["random"], game, options)
    assert (core_py, core_kz) == ("python", "c")
    assert len(py) == len(kz) and all(a.tobytes() == b.tobytes() for a, b in zip(py, kz))


def test_opponents_that_read_rules_states_keep_the_python_core():
    assert _run("auto", ["random", "heuristic"])[0] == "python"
