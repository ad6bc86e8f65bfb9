"""Rendering: the table as a picture (``rgb_array``) in every game, and the single-seat view's
render modes; drawing never changes the game (observations, rewards, random streams)."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

from stichzoo import envs
from stichzoo.envs.core import picture
from stichzoo.envs.core.picture import frame_size, table_picture
from stichzoo.envs.registry import display_of
from stichzoo.training.gym.single_seat import SingleSeatEnv

GAMES = list(envs.GAMES)


def _short(game: str, **kwargs):
    return envs.env_module(game).raw_env(**display_of(game).short_options, **kwargs)


@pytest.mark.parametrize("game", GAMES)
def test_rgb_array_frames_of_a_whole_game(game):
    """Every frame is HxWx3 uint8 of the env's one frame size; a move changes the picture."""
    env = _short(game, render_mode="rgb_array")
    assert {"ansi", "human", "rgb_array"} <= set(env.metadata["render_modes"])
    assert env.metadata["render_fps"] > 0
    env.reset(seed=2)
    size = frame_size(env.game)
    first = env.render()
    assert first.shape == (*size, 3) and first.dtype == np.uint8
    state, k, last = env.state_, 0, first
    while not (state.over or state.truncated):
        env.step(state.legal_actions()[k % len(state.legal_actions())])
        k += 1
        if k % 9 == 1 or state.over or state.truncated:  # every ninth move and the end: fast
            frame = env.render()
            assert frame.shape == (*size, 3) and frame.dtype == np.uint8
            assert not np.array_equal(frame, last), f"move {k} left the picture unchanged"
            last = frame


@pytest.mark.parametrize("game", GAMES)
def test_drawing_changes_nothing(game):
    """The same seed plays the same game, rewards and observations drawn or not."""
    def play(mode: str | None) -> tuple:
        env = _short(game, render_mode=mode)
        env.reset(seed=11)
        seen = []
        while not (env.state_.over or env.state_.truncated):
            agent = env.agent_selection
            if mode is not None and len(seen) % 6 == 0:  # every sixth decision: fast enough
                env.render()
            obs = env.observe(agent)
            seen.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(),
                         dict(env._cumulative_rewards)))
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(env.np_random.choice(legal)))  # the env's own stream picks
        return seen, env.record(), env.np_random.bit_generator.state
    assert play("rgb_array") == play(None)


def test_show_all_hands_draws_every_hand():
    env = envs.env_module("hoch_tief").raw_env(render_mode="rgb_array", show_all_hands=True)
    one = envs.env_module("hoch_tief").raw_env(render_mode="rgb_array")
    env.reset(seed=1)
    one.reset(seed=1)
    frame = env.render()
    assert frame.shape == (*frame_size(env.game, True), 3)
    assert frame.shape[0] > one.render().shape[0]  # room for four hands, not one


def test_the_picture_is_drawn_for_a_seat():
    """Another seat's picture shows another hand (the public table is the same)."""
    env = envs.env_module("wizard").raw_env(render_mode="rgb_array")
    env.reset(seed=3)
    state = env.state_
    assert np.array_equal(env.render(), table_picture(env.game, state, state.current_player))
    other = (state.current_player + 1) % env.game.num_players
    assert not np.array_equal(env.render(), table_picture(env.game, state, other))


def test_without_pillow_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)  # as if Pillow were not installed
    env = envs.env_module("wizard").raw_env(render_mode="rgb_array")
    env.reset(seed=0)
    with pytest.raises(gym.error.DependencyNotInstalled, match=r"stichzoo\[render\]"):
        env.render()
    assert isinstance(picture.WIDTH, int)


def test_envs_import_no_pillow():
    code = ("import sys; from stichzoo.envs import wizard_v0; import stichzoo.envs.core.picture; "
            "assert 'PIL' not in sys.modules, 'Pillow imported with the envs'")
    subprocess.run([sys.executable, "-c", code], check=True)


# -- the single-seat view ---------------------------------------------------------------


def test_single_seat_human_prints_the_learners_table(capsys):
    env = SingleSeatEnv("hoch_tief", options={"num_players": 3, "rounds": 1}, seat=1,
                        render_mode="human")
    env.reset(seed=0)
    shown = capsys.readouterr().out
    state = env.aec.state_
    assert shown.strip() == env.aec.encoder.render(state, 1, False).strip()
    assert "hand of player_1" in shown and "hand of player_0" not in shown
    assert env.render() is None and capsys.readouterr().out.strip() == shown.strip()
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert "hand of player_1" in capsys.readouterr().out
    assert env.aec.render_mode is None  # the AEC env never prints the opponents' hands


def test_single_seat_ansi_and_rgb_array():
    ansi = SingleSeatEnv("wizard", seat=2, render_mode="ansi")
    ansi.reset(seed=5)
    assert "hand of player_2" in ansi.render()
    env = SingleSeatEnv("wizard", seat=2, render_mode="rgb_array")
    env.reset(seed=5)
    frame = env.render()
    assert frame.shape == (*frame_size(env.game), 3) and frame.dtype == np.uint8
    assert np.array_equal(frame, table_picture(env.game, env.aec.state_, 2))
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert not np.array_equal(frame, env.render())


def test_single_seat_rendering_changes_no_episode():
    def episode(mode):
        env = SingleSeatEnv("wunder_punkt", options={"rounds": 1}, opponents=["heuristic"],
                            render_mode=mode)
        obs, _ = env.reset(seed=7)
        out, done = [obs.tobytes()], False
        while not done:
            if mode:
                env.render()
            obs, reward, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[-1]))
            out.append((obs.tobytes(), reward))
        return out, env.aec.record()
    assert episode("rgb_array") == episode(None)
