"""The single-seat view passes Gymnasium's and SB3's env checkers and is registered with Gymnasium.

Generic tools step with unmasked ``action_space.sample()``; the view must
survive that the PettingZoo way (an illegal move ends the episode with -1)
unless asked to raise, and ``gymnasium.make`` must build it by id.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

from stichzoo import envs
from stichzoo.envs.core.game import IllegalActionError
from stichzoo.training.gym.registry import GYM_IDS
from stichzoo.training.gym.single_seat import ILLEGAL_REWARD, SingleSeatEnv

GAMES = list(envs.GAMES)
# built directly (no spec), the checker says it cannot try the other render modes: expected
NO_SPEC = "ignore:.*Not able to test alternative render modes"


def _illegal_action(env: SingleSeatEnv) -> int:
    return int(np.flatnonzero(~env.action_masks())[0])


def test_gymnasium_ids_one_per_game():
    assert GYM_IDS == {
        "wizard": "stichzoo/Wizard-v0",
        "wunder_punkt": "stichzoo/WunderPunkt-v0",
        "silberne_ananas": "stichzoo/SilberneAnanas-v1",
        "hoch_tief": "stichzoo/HochTief-v0",
        "geheimtrumpf": "stichzoo/Geheimtrumpf-v4",
    }
    assert set(GYM_IDS.values()) <= set(gym.registry)


@pytest.mark.filterwarnings(NO_SPEC)
@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_check_env(game):
    gymnasium_check_env(SingleSeatEnv(game))
    # made by id, the env has a spec: the checker also tests every render mode and close()
    gymnasium_check_env(gym.make(GYM_IDS[game]).unwrapped)


@pytest.mark.parametrize("game", GAMES)
def test_sb3_check_env(game):
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3_checker.check_env(SingleSeatEnv(game))


@pytest.mark.filterwarnings(NO_SPEC)
def test_checkers_pass_with_heuristic_opponents():
    """Seeded resets and steps stay deterministic with bots that are not random."""
    gymnasium_check_env(SingleSeatEnv("wizard", opponents=["heuristic"], render_mode="ansi"))


@pytest.mark.parametrize("game", GAMES)
def test_spec_set_by_make_and_kwargs_pass_through(game):
    env = gym.make(GYM_IDS[game])
    assert env.spec is not None and env.spec.id == GYM_IDS[game]
    assert env.unwrapped.spec is not None and env.unwrapped.game_name == game
    assert SingleSeatEnv(game).spec is None  # built directly, as Gymnasium does it


def test_make_passes_options_and_opponents():
    env = gym.make("stichzoo/HochTief-v0", options={"num_players": 3, "rounds": 1},
                   opponents=["heuristic"], seat=1, illegal="raise", render_mode="ansi")
    raw = env.unwrapped
    assert raw.game.num_players == 3 and raw.fixed_seat == 1 and raw.illegal == "raise"
    assert raw.pool.entries[0].policy == "heuristic"
    env.reset(seed=0)
    assert isinstance(env.render(), str)
    with pytest.raises(IllegalActionError):
        env.step(_illegal_action(raw))


def test_render_before_reset_is_a_clear_error():
    env = SingleSeatEnv("wizard")
    with pytest.raises(gym.error.ResetNeeded, match=r"render\(\) before reset\(\)"):
        env.render()
    with pytest.raises(gym.error.ResetNeeded, match=r"step\(\) before reset\(\)"):
        env.step(0)
    env.reset(seed=0)
    assert isinstance(env.render(), str) and env.render()


@pytest.mark.parametrize("game", GAMES)
def test_illegal_action_terminates_with_the_penalty_by_default(game):
    env = SingleSeatEnv(game, options={"num_players": 3})
    obs, _ = env.reset(seed=4)
    before = env.aec.state_.current_player, env.aec.record()
    action = _illegal_action(env)
    obs2, reward, terminated, truncated, info = env.step(action)
    assert reward == ILLEGAL_REWARD == -1.0
    assert terminated is True and truncated is False
    assert info["illegal_action"] == action and "illegal" in info["illegal_reason"]
    assert info["seat"] == env.seat
    assert np.array_equal(obs, obs2) and env.observation_space.contains(obs2)
    assert (env.aec.state_.current_player, env.aec.record()) == before  # nothing was played
    assert not env.action_masks().any()
    with pytest.raises(gym.error.ResetNeeded, match="episode ended"):
        env.step(action)
    env.reset(seed=5)  # a fresh episode plays on
    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_illegal_action_raises_with_the_option():
    env = SingleSeatEnv("wizard", illegal="raise")
    env.reset(seed=1)
    with pytest.raises(IllegalActionError, match="illegal action"):
        env.step(_illegal_action(env))
    # the refused move changed nothing: a legal one is still accepted
    _, _, terminated, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert isinstance(terminated, bool)


@pytest.mark.parametrize("illegal", ["terminate", "raise"])
@pytest.mark.parametrize("action", [-1, 10_000, 1.5, "3", None])
def test_actions_outside_the_space_raise_in_both_modes(illegal, action):
    env = SingleSeatEnv("hoch_tief", illegal=illegal)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="not in the action space"):
        env.step(action)


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="illegal='ignore'"):
        SingleSeatEnv("wizard", illegal="ignore")
    with pytest.raises(ValueError, match="render_mode='rgb_array_list' is not supported"):
        SingleSeatEnv("wizard", render_mode="rgb_array_list")


def test_masked_play_never_ends_illegally():
    """What MaskablePPO does - only masked actions - plays whole games as before."""
    env = SingleSeatEnv("geheimtrumpf", opponents=["random"])
    rng = np.random.default_rng(0)
    for seed in range(3):
        env.reset(seed=seed)
        done = False
        while not done:
            _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            done = term or trunc
        assert "illegal_action" not in info and "final_totals" in info
