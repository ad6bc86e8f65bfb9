"""PIMC with the exact endgame (the lab's ``pimc:endgame=K``) in Hoch & Tief: referee, kernel, spec.

Why: from K cards in the hand of the seat to act, each sampled world's rest of
the round is solved exactly (max^n) in place of its play-outs.  The Python
solver (``policies.games.hoch_tief.endgame_values``) is the referee: it must
agree with the brute force over the rules core, card for card; the kernel's
search (``Kernel.pimc(..., endgame=K)``) must give the Python loop's values
and leave the search's generator where the loop leaves it; above K cards a
hand nothing changes; a game without an endgame refuses the argument.
"""

from __future__ import annotations

import pytest

import stichzoo.policies.lab  # noqa: F401 - registers the lab's pimc:endgame=
from stichzoo import envs
from stichzoo.envs import kernel
from stichzoo.envs.core.cards import bit_list
from stichzoo.policies.base import Decision
from stichzoo.policies.games.hoch_tief import endgame_values
from stichzoo.policies.specs import build_policy
from tests.policies.test_kernel_endgame_hoch_tief import _brute, _game, _position

HAS_KERNEL = "hoch_tief" in kernel.compiled_games() and kernel.core("hoch_tief") == "c"


@pytest.mark.parametrize("n,cards,into", [(3, 1, 0), (3, 3, 2), (4, 2, 1), (4, 3, 0),
                                          (5, 2, 4), (6, 2, 3)])
def test_python_endgame_equals_the_brute_force(n, cards, into):
    game = _game(n, rounds=2)
    for seed in range(2):
        s = _position(game, 77 * n + 5 * cards + into + seed, cards, into)
        legal = bit_list(s.legal_mask())
        for seat in sorted({s.current_player, (s.current_player + 2) % n}):
            want, _ = _brute(s, seat)
            got = endgame_values(s, legal, seat)
            assert got == [want[a] for a in legal], (n, cards, into, seed, seat)


def _values(spec: str, game, state):
    policy = build_policy(spec, game, seed=11)
    values = policy.values(Decision(game, state))
    return [(v.action, v.value, v.stderr) for v in values.values], policy.rng.getstate()


@pytest.mark.skipif(not HAS_KERNEL, reason="the kernel (with hoch_tief) is not built")
@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_kernel_endgame_equals_the_python_loop(n):
    game = _game(n, rounds=2)
    for seed, (cards, into) in enumerate([(1, 1), (2, 0), (3, n - 1)]):
        if n >= 5 and cards == 3:
            cards = 2  # the Python referee's tree grows fast: keep the test cheap
        s = _position(game, 900 + 10 * n + seed, cards, into)
        kernel_side = _values("pimc:endgame=3,worlds=5,rollouts=2", game, s)
        python_side = _values("pimc:endgame=3,worlds=5,rollouts=2,kernel=0", game, s)
        assert kernel_side == python_side, (n, seed)


def test_endgame_only_from_k_cards():
    """Four cards a hand with endgame=3: the play-outs run, exactly as without the lever;
    with two cards the solve decides (and draws no play-out numbers)."""
    game = _game(4, rounds=2)
    s = _position(game, 31, 4, 1)
    assert _values("pimc:endgame=3,worlds=4,kernel=0", game, s) == \
        _values("pimc:worlds=4,kernel=0", game, s)
    s2 = _position(game, 32, 2, 1)
    _solved, state = _values("pimc:endgame=3,worlds=4,kernel=0", game, s2)
    _played, state_played = _values("pimc:worlds=4,kernel=0", game, s2)
    assert state != state_played  # the play-outs drew numbers, the solve did not


@pytest.mark.parametrize("bad", ["endgame=-1", "endgame=7", "endgame=1.5",
                                 "endgame=2,horizon=game"])
def test_bad_endgame_refused(bad):
    with pytest.raises(ValueError, match="endgame"):
        build_policy(f"pimc:{bad}", _game(4), seed=0)


def test_the_product_refuses_the_lab_lever(monkeypatch):
    """Without the lab's registration endgame= names the lab's command."""
    from stichzoo.policies import specs

    monkeypatch.setattr(specs, "OPTIONS", [o for o in specs.OPTIONS if "endgame" not in o[1]])
    with pytest.raises(ValueError, match="lab lever"):
        specs.make_policy("pimc", _game(4), 0, endgame=3)
    assert specs.make_policy("pimc", _game(4), 0, endgame=0).endgame == 0


def test_a_game_without_an_endgame_refuses_it():
    cls = envs.game_class("wunder_punkt")
    with pytest.raises(ValueError, match="no exact endgame"):
        build_policy("pimc:endgame=2", cls(cls.Options(num_players=4)), seed=0)
