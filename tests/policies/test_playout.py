"""Hoch & Tief's fast uniform play-out against the rules core: same scores, same draws."""

from __future__ import annotations

import random

import pytest

from stichzoo import envs
from stichzoo.envs.core.cards import bit_list
from stichzoo.policies.base import Decision
from stichzoo.policies.games.hoch_tief import uniform_playout
from stichzoo.policies.specs import build_policy


def _game(players: int):
    cls = envs.game_class("hoch_tief")
    return cls(cls.Options(num_players=players))


def _slow(state, rng) -> list[int]:
    """PIMC's own uniform play-out of the round through the rules core: the round's scores."""
    s = state.clone()
    before = s.totals[:]
    r = s.round_index
    while not s.over and s.round_index == r:
        s.apply(rng.choice(bit_list(s.legal_mask())))
    return [a - b for a, b in zip(s.totals, before, strict=True)]


def _states(game, count: int, seed: int):
    """Mid-round states of random games: every trick position, rounds after the first too."""
    rng = random.Random(seed)
    for g in range(count):
        s = game.new_game(seed * 1000 + g)
        for _ in range(rng.randrange(0, 15 * game.num_players * 2)):
            if s.over:
                break
            s.apply(rng.choice(bit_list(s.legal_mask())))
        if not s.over:
            yield s


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_playout_scores_and_draws_equal_the_rules_core(players):
    game = _game(players)
    for k, state in enumerate(_states(game, 150, players)):
        fast_rng, slow_rng = random.Random(k), random.Random(k)
        snapshot = (state.hands[:], state.taken[:], list(state.trick.cards), state.totals[:])
        assert uniform_playout(state, fast_rng) == _slow(state, slow_rng)
        assert fast_rng.getstate() == slow_rng.getstate()  # the same draws, so PIMC is unchanged
        assert snapshot == (state.hands, state.taken, state.trick.cards, state.totals)


def test_pimc_chooses_exactly_as_without_the_fast_path():
    game = _game(4)
    fast = build_policy("pimc:worlds=6", game, seed=3, cache=False)
    slow = build_policy("pimc:worlds=6,playout=rules", game, seed=3, cache=False)
    assert fast.playout is uniform_playout and slow.playout is None
    for state in _states(game, 25, 9):
        a, b = fast.values(Decision(game, state)), slow.values(Decision(game, state))
        assert a == b


def test_other_rollouts_keep_their_own_path_and_playout_rules_turns_it_off():
    game = _game(4)
    assert build_policy("pimc:rollout=heuristic", game, seed=0, cache=False).playout is None
    assert build_policy("pimc:horizon=game", game, seed=0, cache=False).playout is None
    assert build_policy("pimc:playout=rules", game, seed=0, cache=False).playout is None
    assert build_policy("search", game, seed=0, cache=False).playout is uniform_playout
    with pytest.raises(ValueError, match="choose fast"):
        build_policy("pimc:playout=1", game, seed=0, cache=False)
