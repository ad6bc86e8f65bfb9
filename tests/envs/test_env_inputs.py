"""What the raw env accepts as input: integer action ids after reset(), nothing else.

Each refusal must be a clear ``ValueError`` that leaves the game as it was.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from stichzoo.envs import GAMES, env_module


def started(game: str):
    raw = env_module(game).raw_env()
    raw.reset(seed=3)
    return raw


def snapshot(raw) -> str:
    return json.dumps(raw.record(), sort_keys=True) + raw.agent_selection


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("make", [bool, np.bool_])
def test_a_bool_is_not_an_action(game, make):
    raw = started(game)
    before = snapshot(raw)
    for flag in (True, False):  # Python would take them for actions 1 and 0
        with pytest.raises(ValueError, match=r"illegal action .* not an integer action id"):
            raw.step(make(flag))
    assert snapshot(raw) == before


@pytest.mark.parametrize("game", GAMES)
def test_a_float_is_not_an_action(game):
    raw = started(game)
    before = snapshot(raw)
    legal = raw.legal_actions()[0]
    for action in (float(legal), np.float32(legal), np.float64(legal), float("inf"),
                   float("nan"), 60.0, np.array(float(legal))):
        with pytest.raises(ValueError, match=r"illegal action .* not an integer action id"):
            raw.step(action)
    assert snapshot(raw) == before


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("kind", [np.int64, np.int32, np.int16, np.uint16, np.array])
def test_numpy_integers_are_actions(game, kind):
    raw = started(game)
    legal = raw.legal_actions()[0]
    raw.step(kind(legal))
    assert raw.rules_state.history[-1][1] == legal and type(raw.rules_state.history[-1][1]) is int


@pytest.mark.parametrize("game", GAMES)
def test_use_before_reset_says_so(game):
    raw = env_module(game).raw_env()
    for call in (lambda: raw.step(0), lambda: raw.observe("player_0"), raw.last, raw.state,
                 raw.legal_actions, raw.record, raw.agent_iter):
        with pytest.raises(ValueError, match=r"reset\(\) must be called before \w+\(\)"):
            call()
    raw.reset(seed=0)
    raw.step(raw.legal_actions()[0])


@pytest.mark.parametrize("game", GAMES)
def test_reset_options_that_would_change_the_game_are_refused_by_name(game):
    raw = env_module(game).raw_env()
    for key in (*raw.game.options.as_dict(), "reward", "render_mode"):
        with pytest.raises(ValueError, match=rf"'{key}' cannot be set by reset\(options=\.\.\.\)"):
            raw.reset(seed=1, options={"x": 1, key: None})
    with pytest.raises(ValueError, match="must be a dict or None"):
        raw.reset(options=["num_players"])
    raw.reset(seed=1, options={})
    first = raw.record()
    for options in (None, {"options": 1}):  # PettingZoo's api_test probe: accepted
        raw.reset(seed=1, options=options)
        assert raw.record() == first


@pytest.mark.parametrize("game", GAMES)
def test_wrapped_env_keeps_pettingzoo_conventions(game):
    env = env_module(game).env()
    with pytest.raises(AssertionError, match="reset"):  # OrderEnforcingWrapper's own error
        env.step(0)
    with pytest.raises(ValueError, match="'num_players' cannot be set by reset"):
        env.reset(seed=2, options={"num_players": 3})
    env.reset(seed=2, options={})
    legal = int(np.flatnonzero(env.last()[0]["action_mask"])[0])
    for action in (True, float(legal)):  # refused like any action outside the space
        with pytest.raises(AssertionError, match="not in action space"):
            env.step(action)
    env.step(np.int64(legal))
    assert env.unwrapped.rules_state.history[-1][1] == legal
