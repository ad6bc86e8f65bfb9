"""The search's per-action values: the numbers behind its move, and the bot server's hints.

``PIMCPolicy.values`` must be the search ``act`` plays (the same action,
from the same rollouts), rate the chosen action best among what it
searched (or, under ``trust``, within its trust of the best), give standard
errors that are >= 0 and shrink with more worlds, and say of each action
it did not search that it has no value, and why.  Honesty (values unchanged
by a re-deal of what the seat cannot see) is in test_search_honesty.py and
test_guided_search.py.
"""

from __future__ import annotations

import statistics

import pytest

from stichzoo.envs.registry import game_class
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision
from stichzoo.policies.search import ActionValue, SearchValues
from tests.policies.test_guided_search import guided
from tests.policies.test_search_honesty import CASES, IDS, game_of, states


def decisions(game, seed: int, limit: int, least: int = 2):
    """Decisions of a random game with at least ``least`` legal actions."""
    for s in states(game, seed, 2, 40 * limit):
        if len(s.legal_actions()) >= least:
            yield Decision(game, s)
            limit -= 1
            if not limit:
                return


@pytest.mark.parametrize("name, opts, stride, limit", CASES[:5], ids=IDS[:5])
def test_values_are_the_search_act_plays(name, opts, stride, limit):
    game = game_of(name, opts)
    for d in decisions(game, 41, 6):
        values = make_policy("pimc", game, seed=5, worlds=3).values(d)
        assert values.action == make_policy("pimc", game, seed=5, worlds=3).act(d)
        assert [v.action for v in values.values] == d.legal_actions
        chosen = values.of(values.action)
        assert chosen.difference == 0.0 and chosen.difference_stderr == 0.0
        assert values.why == "the best value"
        for v in values.values:
            assert v.worlds == 3 and v.reason is None
            assert v.value <= chosen.value
            assert v.stderr >= 0 and v.difference_stderr >= 0
            assert v.difference == pytest.approx(v.value - chosen.value)
        # ties go to the lowest action id, as in act
        best = [v.action for v in values.values if v.value == chosen.value]
        assert values.action == min(best)


def test_a_forced_move_is_not_searched_and_has_no_value():
    game = game_of("wizard", dict(num_players=4))
    s = game.new_game(3)
    while len(s.legal_actions()) != 1:
        s.apply(s.legal_actions()[0])
    values = make_policy("pimc", game, seed=0).values(Decision(game, s))
    assert values == SearchValues(s.legal_actions()[0], "the only legal action", (ActionValue(
        s.legal_actions()[0], None, None, 0, None, None, "the only legal action: not searched"),))


def test_one_world_gives_values_without_standard_errors():
    game = game_of("wunder_punkt", dict(num_players=4))
    d = next(decisions(game, 42, 1))
    values = make_policy("pimc", game, seed=0, worlds=1).values(d)
    for v in values.values:
        assert v.value is not None and v.stderr is None and v.worlds == 1
        assert v.difference_stderr == (0.0 if v.action == values.action else None)


def test_standard_errors_shrink_with_more_worlds():
    """sd / sqrt(worlds): 16x the worlds gives about a quarter of the standard error."""
    game = game_of("hoch_tief", dict(num_players=4))
    few, many = [], []
    for d in decisions(game, 43, 3, least=3):
        for worlds, out in ((4, few), (64, many)):
            for v in make_policy("pimc", game, seed=1, worlds=worlds).values(d).values:
                out.append(v.stderr)
    assert min(few + many) >= 0
    assert statistics.fmean(many) < 0.5 * statistics.fmean(few)


@pytest.mark.parametrize("trust", [0, 1])
def test_the_learned_search_values_its_candidates_only(trust):
    game = game_class("wizard")(game_class("wizard").Options(num_players=4))
    seen = 0
    for d in decisions(game, 44, 4, least=4):
        search = guided(game, worlds=2, keep=2, trust=trust)
        chosen, worlds = search.candidates(d, d.legal_actions)
        values = guided(game, worlds=2, keep=2, trust=trust).values(d)
        assert values.action == guided(game, worlds=2, keep=2, trust=trust).act(d)
        assert values.action in chosen
        for v in values.values:
            if v.action in chosen:
                assert v.worlds == worlds and v.value is not None and v.stderr >= 0
            else:
                assert (v.value, v.stderr, v.worlds, v.difference) == (None, None, 0, None)
                assert v.reason == "not searched: outside the guide's 2 candidates"
        top = max(v.value for v in values.values if v.value is not None)
        if trust == 0:
            assert values.of(values.action).value == top
            assert values.why == "the best value"
        else:
            assert "the guide's favourite" in values.why
            # within trust standard errors of the best: the paired difference says so
            best = next(v for v in values.values if v.value == top)
            assert best.difference <= trust * best.difference_stderr + 1e-9
        seen += 1
    assert seen >= 3


def test_standard_error_is_that_of_the_mean_over_worlds():
    from stichzoo.policies.search import _stderr

    xs = [1.0, 2.5, -3.0, 4.0, 0.5]
    assert _stderr(xs) == pytest.approx(statistics.stdev(xs) / len(xs) ** 0.5)
    assert _stderr([2.0, 2.0, 2.0]) == 0.0
    assert _stderr([1.0]) is None


def test_several_rollouts_per_world_average_within_the_world():
    game = game_of("wunder_punkt", dict(num_players=4))
    for d in decisions(game, 45, 3):
        values = make_policy("pimc", game, seed=2, worlds=3, rollouts=2).values(d)
        assert values.action == make_policy("pimc", game, seed=2, worlds=3, rollouts=2).act(d)
        chosen = values.of(values.action)
        for v in values.values:
            assert v.worlds == 3 and v.stderr >= 0 and v.value <= chosen.value
