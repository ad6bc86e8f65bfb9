"""Wunder Punkt through the PettingZoo API: what only it shows (rewards, records, secret picks).

The contract every env keeps (api and seed tests, registration, records,
illegal moves, options) is tested once for all games in test_env_contract.py.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from stichzoo.envs import wunder_punkt_v0
from stichzoo.envs.core.record import replay, to_json
from stichzoo.envs.wunder_punkt.rules import DECK, DECK_SIZE, PLAY, SORE
from tests.helpers import assert_no_leak, play_env

CONFIGS = [dict(num_players=n) for n in (3, 4, 5, 6)] + [dict(num_players=3, larger_hands=True)]
IDS = ["3p", "4p", "5p", "6p", "3p-larger"]


def picks_pending(raw) -> bool:
    return raw.state_.phase == SORE


def step_until(raw, done, rng=None):
    """Random legal actions on a raw env until ``done(raw)``."""
    rng = rng or random.Random(0)
    while not done(raw):
        raw.step(rng.choice(raw.legal_actions()))


def test_action_space():
    e = wunder_punkt_v0.env(num_players=5)
    e.reset(seed=0)
    assert e.action_space("player_0").n == 2 * DECK_SIZE


# -- rewards ---------------------------------------------------------------------------------


def test_score_reward_arrives_at_the_end_of_each_round():
    raw = wunder_punkt_v0.raw_env(num_players=3, rounds=2)
    raw.reset(seed=3)
    rng = random.Random(3)
    seen = []
    while not raw.state_.over:
        raw.step(rng.choice(raw.legal_actions()))
        if any(raw.rewards.values()):
            seen.append((raw.state_.round_index, dict(raw.rewards)))
    state = raw.state_
    assert len(seen) == 2  # once per round (unless a round scores all zero)
    for (_, rewards), scores in zip(seen, state.round_scores):
        assert [rewards[f"player_{p}"] for p in range(3)] == scores


# -- records -----------------------------------------------------------------------------------


@pytest.mark.parametrize("opts", CONFIGS, ids=IDS)
def test_record_holds_every_pick(opts):
    e = wunder_punkt_v0.env(**opts)
    play_env(e, seed=11)
    raw = e.unwrapped
    record = json.loads(to_json(raw.record()))
    rnd = record["rounds"][0]
    assert len(rnd["sore_cards"]) == raw.game.num_players
    assert {"hands", "tricks", "won", "removed", "scores", "totals"} <= set(rnd)


def test_record_of_a_game_in_progress_replays():
    raw = wunder_punkt_v0.raw_env(num_players=4)
    raw.reset(seed=2)
    step_until(raw, lambda r: len(r.state_.history) >= 30)
    again = replay(raw.record())
    assert again.history == raw.state_.history and again.hands == raw.state_.hands


# -- hidden information ----------------------------------------------------------------------


def resample_hidden(state, seat: int, rng: random.Random):
    """Re-deal the other seats' hands and their face-down picks among themselves."""
    n = state.num_players
    pending = state.phase == SORE
    others = [p for p in range(n) if p != seat]
    pool = 0
    for p in others:
        pool |= state.hands[p]
        if pending and state.sore_cards[p] >= 0:
            pool |= 1 << state.sore_cards[p]
    cards = [c for c in range(DECK_SIZE) if pool >> c & 1]
    rng.shuffle(cards)
    for p in others:
        if pending and state.sore_cards[p] >= 0:
            state.sore_cards[p] = cards.pop()
        k = state.hands[p].bit_count()
        state.hands[p] = sum(1 << c for c in cards[:k])
        del cards[:k]
    assert not cards
    return state


@pytest.mark.parametrize("opts", CONFIGS, ids=IDS)
def test_no_leak(opts):
    checks = assert_no_leak(lambda: wunder_punkt_v0.env(**opts, rounds=1), resample_hidden,
                            games=3, seed=5)
    assert checks > 0


def test_pending_pick_hidden_until_all_picked():
    raw = wunder_punkt_v0.raw_env(num_players=4)
    raw.reset(seed=9)
    state = raw.state_
    first = state.current_player  # left of the dealer
    hand = state.hands[first]
    a, b = [c for c in range(DECK_SIZE) if hand >> c & 1][:2]
    raw.step(DECK_SIZE + a)
    views = {p: raw.observe(f"player_{p}")["observation"] for p in range(4)}
    # the same position with the other pick: only the picker's own view changes
    alt = state.clone()
    alt.hands[first] ^= (1 << a) | (1 << b)
    alt.sore_cards[first] = b
    raw.state_ = alt
    for p in range(4):
        same = np.array_equal(views[p], raw.observe(f"player_{p}")["observation"])
        assert same == (p != first), f"player_{p}"
    raw.state_ = state
    render = raw.encoder.render(state, (first + 1) % 4)
    assert "??" in render and DECK.names[a] not in render.split("hand of")[0]
    # once everybody has picked, all picks are face up for everyone
    step_until(raw, lambda r: r.state_.phase == PLAY)
    layout = raw.encoder.layout
    for p in range(4):
        obs = layout.split(raw.observe(f"player_{p}")["observation"])
        rel = (first - p) % 4
        assert obs["sore_cards"][rel * DECK_SIZE + a] == 1.0
        assert obs["picked"].sum() == 4
        assert obs["sore_cards"].sum() == 4 and obs["sore_suits"].sum() == 4


def test_own_pick_is_visible_to_the_picker():
    raw = wunder_punkt_v0.raw_env(num_players=3)
    raw.reset(seed=4)
    seat = raw.state_.current_player
    action = raw.legal_actions()[0]
    raw.step(action)
    obs = raw.encoder.layout.split(raw.observe(f"player_{seat}")["observation"])
    assert obs["sore_cards"][action - DECK_SIZE] == 1.0
    other = raw.encoder.layout.split(raw.observe(f"player_{(seat + 1) % 3}")["observation"])
    assert other["sore_cards"].sum() == 0 and other["sore_suits"].sum() == 0
    assert other["picked"][(seat - (seat + 1)) % 3] == 1.0  # a face-down card is public


def test_global_state_holds_pending_picks():
    raw = wunder_punkt_v0.raw_env(num_players=4)
    raw.reset(seed=0)
    seat = raw.state_.current_player
    action = raw.legal_actions()[0]
    raw.step(action)
    st = raw.encoder.state_layout.split(raw.state())
    assert st["all_sore_cards"][seat * DECK_SIZE + action - DECK_SIZE] == 1.0


def test_action_mask_matches_rules_and_only_for_the_agent_to_act():
    raw = wunder_punkt_v0.raw_env(num_players=4)
    raw.reset(seed=1)
    rng = random.Random(1)
    for _ in range(60):
        cur = raw.state_.current_player
        for p in range(4):
            mask = raw.observe(f"player_{p}")["action_mask"]
            if p == cur:
                assert list(np.flatnonzero(mask)) == raw.state_.legal_actions()
            else:
                assert not mask.any()
        raw.step(rng.choice(raw.legal_actions()))


# -- errors and render -----------------------------------------------------------------------


def test_illegal_play_names_the_card():
    raw = wunder_punkt_v0.raw_env(num_players=3)
    raw.reset(seed=5)
    step_until(raw, lambda r: r.state_.phase == PLAY)
    state = raw.state_
    seat = state.current_player
    not_held = next(c for c in range(DECK_SIZE) if not state.hands[seat] >> c & 1)
    with pytest.raises(ValueError, match=f"{DECK.names[not_held]}.*player_{seat}"):
        raw.step(not_held)
    with pytest.raises(ValueError, match="not an integer"):
        raw.step(1.5)


def test_render_ansi_and_show_all_hands():
    raw = wunder_punkt_v0.raw_env(num_players=3, render_mode="ansi")
    raw.reset(seed=0)
    text = raw.render()
    assert "Wunder Punkt" in text and "phase: sore" in text
    assert text.count("hand of") == 1
    raw_all = wunder_punkt_v0.raw_env(num_players=3, render_mode="ansi", show_all_hands=True)
    raw_all.reset(seed=0)
    assert raw_all.render().count("hand of") == 3
    step_until(raw, lambda r: r.state_.over)
    assert "game over" in raw.render()
