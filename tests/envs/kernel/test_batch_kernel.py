"""The batch engine on the kernel equals the batch engine on the Python core, array for array.

Same seeds, same actions: the same observations, masks, seats, rewards in
every mode, game ends, final totals and win shares, through ``step`` and
``step_games``; the rules states it hands out (replayed) are the Python
core's own; and ``STICHZOO_KERNEL=python`` or ``core="python"`` runs the
Python core.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from stichzoo.envs import BatchEnv
from stichzoo.envs.core.game import IllegalActionError
from stichzoo.envs.kernel import compiled_games, core
from stichzoo.envs.registry import game_class

GAMES = compiled_games()
pytestmark = pytest.mark.skipif(not GAMES, reason="the kernel is not built")

_ARRAYS = ("obs", "mask", "to_act", "rewards", "dones", "truncated", "final_totals",
           "final_win_share", "episodes")


#: options under which games end within the test's steps (game ends and redeals are covered)
SHORT = {"wizard": {"rounds": (1, 2, 3)}, "wunder_punkt": {"rounds": 1}, "hoch_tief": {"rounds": 1},
         "silberne_ananas": {"target_score": 10}, "geheimtrumpf": {"round_limit": 2}}


def _modes(game: str) -> list[str]:
    return ["score", "win", "margin"] + (["standing"] if game_class(game).has_standing else [])


def _pair(game: str, n: int, **kw) -> tuple[BatchEnv, BatchEnv]:
    py, kz = BatchEnv(game, n, core="python", **kw), BatchEnv(game, n, core="c", **kw)
    assert (py.core, kz.core) == ("python", "c")
    return py, kz


def _same(py: BatchEnv, kz: BatchEnv, where: str) -> None:
    for name in _ARRAYS:
        a, b = getattr(py, name), getattr(kz, name)
        assert a.tobytes() == b.tobytes(), f"{where}: {name} differs"


@pytest.mark.parametrize("game", GAMES)
def test_step_equals_the_python_core_in_every_reward_mode(game):
    for mode in _modes(game):
        py, kz = _pair(game, 6, reward=mode, reward_scale=0.5, **SHORT[game])
        py.reset(seed=11)
        kz.reset(seed=11)
        rng = np.random.default_rng(5)
        for t in range(400):
            _same(py, kz, f"{game} {mode} step {t}")
            a = py.sample_legal(rng)
            py.step(a)
            kz.step(a)
        assert kz.episodes.sum() > 0


@pytest.mark.parametrize("game", GAMES)
def test_step_games_and_replayed_states(game):
    py, kz = _pair(game, 5, log=True, **SHORT[game])
    py.reset(seed=2)
    kz.reset(seed=2)
    rng = np.random.default_rng(1)
    for t in range(300):
        rows = np.flatnonzero(rng.random(5) < 0.6)
        a = py.sample_legal(rng)[rows]
        observe = bool(t % 3)
        py.step_games(rows, a, observe=observe)
        kz.step_games(rows, a, observe=observe)
        if not observe:
            py.observe(rows)
            kz.observe(rows)
        _same(py, kz, f"{game} step_games {t}")
    for i in range(5):
        assert kz.states[i].history == py.states[i].history
        assert kz.states[i].legal_mask() == py.states[i].legal_mask()
        f_py, f_kz = py.final_states[i], kz.final_states[i]
        assert (f_py is None) == (f_kz is None)
        if f_py is not None:
            assert f_kz.history == f_py.history and f_kz.totals == f_py.totals
            assert f_kz.log == f_py.log
            out_py = np.zeros(py.obs_size, np.float32)
            out_kz = np.zeros(kz.obs_size, np.float32)
            py.final_observation(i, 0, out_py)
            kz.final_observation(i, 0, out_kz)
            assert out_py.tobytes() == out_kz.tobytes()


@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_action_is_refused_before_anything_moves(game):
    kz = BatchEnv(game, 3, core="c")
    kz.reset(seed=0)
    before = kz._kstates.copy()
    acts = kz.sample_legal(np.random.default_rng(0))
    acts[1] = int(np.flatnonzero(kz.mask[1] == 0)[0]) if (kz.mask[1] == 0).any() else -1
    with pytest.raises(IllegalActionError, match="game 1: illegal action"):
        kz.step(acts)
    assert (kz._kstates == before).all()
    with pytest.raises(ValueError, match="integer action ids"):
        kz.step(np.zeros(3, np.float32))


def test_the_python_core_is_forced_by_the_environment():
    code = ("from stichzoo.envs import BatchEnv, kernel; import stichzoo.envs.kernel as k; "
            f"print(k.core(), BatchEnv({GAMES[0]!r}, 2).core)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "STICHZOO_KERNEL": "python"}, check=True)
    assert out.stdout.split() == ["python", "python"]
    assert core() == "c"


@pytest.mark.skipif(os.environ.get("STICHZOO_REQUIRE_KERNEL") != "1",
                    reason="only where the kernel must be built (scripts/test.sh, CI)")
def test_every_game_is_compiled_where_the_kernel_is_required():
    """scripts/test.sh builds the kernel: a game with a C file missing from it must fail,
    not skip (every game has one today)."""
    from pathlib import Path

    from stichzoo.envs import GAMES as ALL

    src = Path(__file__).resolve().parents[3] / "envs" / "kernel" / "src"
    assert sorted(compiled_games()) == sorted(g for g in ALL if (src / f"{g}.c").exists())
    path = os.environ.get("STICHZOO_KERNEL_PATH")
    if path:  # the sanitizer build is the one loaded
        from stichzoo.envs.kernel import _kernel

        assert os.path.samefile(_kernel.__file__, path)


def test_a_game_named_twice_in_one_step_is_refused():
    """Kernel.step checks every action before applying any; a game named twice would get
    its second action checked against the state before its first: refused by name."""
    from stichzoo.envs.kernel import load

    batch = BatchEnv(GAMES[0], 3, core="c")
    batch.reset(seed=0)
    k = load(batch.game, force=True)
    before = batch._kstates.copy()
    acts = batch.sample_legal(np.random.default_rng(0))
    rows = np.array([1, 1], np.int64)
    with pytest.raises(ValueError, match="game 1 is named twice"):
        k.step(batch._kstates, rows, acts[[1, 1]].astype(np.int64), batch._deltas, batch._flags)
    assert (batch._kstates == before).all()
