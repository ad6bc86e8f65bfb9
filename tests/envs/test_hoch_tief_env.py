"""Hoch & Tief through the PettingZoo API: what only Hoch & Tief shows (leaks, taken cards).

The contract every env keeps (api and seed tests, registration, records,
illegal moves, options) is tested once for all games in test_env_contract.py.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from stichzoo.envs import hoch_tief_v0
from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.record import replay
from stichzoo.envs.core.tricks import Trick
from stichzoo.envs.hoch_tief.encode import SCORE_SCALE
from stichzoo.envs.hoch_tief.rules import MAX_ROUNDS, NUM_SUITS
from tests.helpers import assert_no_leak, play_env


@pytest.mark.parametrize("n", [3, 6])
def test_action_space(n):
    env = hoch_tief_v0.env(num_players=n)
    env.reset(seed=0)
    assert env.action_space("player_0").n == 15 * n


def test_score_bounds_hold_for_longest_game():
    """The Box bounds of the score pieces cover the most a game can score."""
    lay = hoch_tief_v0.raw_env(num_players=6).encoder.layout
    best_round = NUM_SUITS * (18 + 17)  # two highest cards of every suit
    assert best_round / SCORE_SCALE <= lay.piece("taken_score").high
    assert MAX_ROUNDS * best_round / SCORE_SCALE <= lay.piece("scores").high


def _resample_hidden(state, seat, rng):
    """Swap what ``seat`` cannot see: the other hands and the deals of later rounds."""
    n = state.num_players
    hidden = [c for s in range(n) if s != seat for c in bit_list(state.hands[s])]
    rng.shuffle(hidden)
    for s in range(n):
        if s == seat:
            continue
        k = state.hands[s].bit_count()
        state.hands[s] = sum(1 << c for c in hidden[:k])
        del hidden[:k]
    future = []
    for i, o in enumerate(state.deck_orders):
        if i > state.round_index:
            o = list(o)
            rng.shuffle(o)
            o = tuple(o)
        future.append(o)
    state.deck_orders = future
    return state


@pytest.mark.parametrize("n", [3, 4, 6])
def test_no_leak(n):
    checks = assert_no_leak(lambda: hoch_tief_v0.raw_env(num_players=n, rounds=2),
                            _resample_hidden, games=1, seed=10 * n)
    assert checks == 2 * 15 * n * n


def test_no_leak_would_catch_a_leak():
    """The leak check itself must fail when an encoder reads another hand."""
    raw = hoch_tief_v0.raw_env(num_players=4, rounds=1)
    original = raw.encoder.encode

    def leaky(state, seat, out):
        original(state, seat, out)
        out[0] = float(state.hands[(seat + 1) % 4] & 1)

    raw.encoder.encode = leaky
    with pytest.raises(AssertionError, match="hidden information"):
        assert_no_leak(lambda: raw, _resample_hidden, games=2, seed=0)


def test_observation_shows_own_hand_and_current_trick_relative():
    raw = hoch_tief_v0.raw_env(num_players=4, rounds=1)
    raw.reset(seed=3)
    s = raw.state_
    lay = raw.encoder.layout
    seat = s.current_player
    obs = raw.observe(f"player_{seat}")["observation"]
    assert bit_list(s.hands[seat]) == list(np.flatnonzero(obs[lay.slice("hand")]))
    assert obs[lay.slice("trick_leader")][0] == 1.0  # I lead
    assert obs[lay.slice("led_suit")].sum() == 0.0
    card = s.legal_actions()[0]
    s.step(card)
    nxt = s.current_player
    obs = raw.observe(f"player_{nxt}")["observation"]
    trick = obs[lay.slice("current_trick")].reshape(4, 60)
    assert trick[(seat - nxt) % 4, card] == 1.0 and trick.sum() == 1.0
    assert obs[lay.slice("led_suit")][card // 12] == 1.0
    assert obs[lay.slice("trick_leader")][(seat - nxt) % 4] == 1.0


def test_taken_cards_are_in_every_observation():
    """Taken cards lie face up: every seat sees every seat's, at the right relative seat."""
    raw = hoch_tief_v0.raw_env(num_players=3, rounds=1)
    raw.reset(seed=0)
    s = raw.state_
    deck = raw.game.deck
    s.hands = [deck.mask("A3 B1"), deck.mask("A9 B2"), deck.mask("A1 B3")]
    s.trick = Trick(0, 3)
    s.current_player = 0
    raw.agent_selection = "player_0"
    for c in ("A3", "A9", "A1"):
        raw.step(deck.parse_one(c))
    # lowest (seat 2) took A9; highest (seat 1) took A3 + A1 and leads
    lay = raw.encoder.layout
    for seat in range(3):
        obs = raw.observe(f"player_{seat}")["observation"]
        taken = obs[lay.slice("taken")].reshape(3, 45)
        assert set(deck.format(np.flatnonzero(taken[(1 - seat) % 3]))) == {"A3", "A1"}
        assert set(deck.format(np.flatnonzero(taken[(2 - seat) % 3]))) == {"A9"}
        assert taken[(0 - seat) % 3].sum() == 0
        scores = obs[lay.slice("taken_score")] * SCORE_SCALE
        assert np.allclose(scores[[(0 - seat) % 3, (1 - seat) % 3, (2 - seat) % 3]], [0, 4, 9])
        played = obs[lay.slice("played")]
        assert set(deck.format(np.flatnonzero(played))) == {"A3", "A9", "A1"}
    assert raw.agent_selection == "player_1"


def test_voids_are_observed():
    raw = hoch_tief_v0.raw_env(num_players=3, rounds=1)
    raw.reset(seed=0)
    s = raw.state_
    deck = raw.game.deck
    s.hands = [deck.mask("A3 B1"), deck.mask("C9 B2"), deck.mask("A1 B3")]
    s.trick = Trick(0, 3)
    s.current_player = 0
    raw.agent_selection = "player_0"
    raw.step(deck.parse_one("A3"))
    raw.step(deck.parse_one("C9"))  # seat 1 shows out of A
    lay = raw.encoder.layout
    obs = raw.observe("player_2")["observation"]
    voids = obs[lay.slice("voids")].reshape(3, 5)
    assert voids[(1 - 2) % 3, 0] == 1.0 and voids.sum() == 1.0


def test_observations_stay_in_space_through_a_game():
    env = hoch_tief_v0.env(num_players=5, rounds=2)
    env.reset(seed=8)
    space = env.observation_space("player_0")
    rng = random.Random(8)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        assert space.contains(obs)
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(list(np.flatnonzero(obs["action_mask"])))))
    raw = env.unwrapped
    final = raw.observe("player_0")["observation"]
    lay = raw.encoder.layout
    assert final[lay.slice("phase")][1] == 1.0 and final[lay.slice("round_progress")][0] == 1.0
    assert final[lay.slice("hand")].sum() == 0
    assert final[lay.slice("taken")].sum() == 75  # the last round's cards stay face up


def test_a_game_has_a_round_per_player():
    env = hoch_tief_v0.env(num_players=4)
    play_env(env, seed=7)
    assert len(env.unwrapped.state_.round_scores) == 4


def test_win_reward_is_shared_on_equal_totals():
    env = hoch_tief_v0.env(num_players=3, rounds=1, reward="win")
    env.reset(seed=0)
    raw = env.unwrapped
    s = raw.state_
    deck = raw.game.deck
    # the last trick of the round: A9 (seat 0), B8 (seat 1), C1 (seat 2)
    s.hands = [deck.mask("A9"), deck.mask("B8"), deck.mask("C1")]
    s.taken = [0, deck.mask("B9 C9"), deck.mask("E9")]
    s.trick = Trick(0, 3)
    s.current_player = 0
    raw.agent_selection = "player_0"
    total = dict.fromkeys(env.possible_agents, 0.0)
    for c in ("A9", "B8", "C1"):
        env.step(deck.parse_one(c))
        for a in env.possible_agents:
            total[a] += env.rewards[a]
    assert s.totals == [9, 18, 18]
    assert total == {"player_0": 0.0, "player_1": 0.5, "player_2": 0.5}


def test_record_replays_the_round_scores_and_holds_every_trick():
    for n, seed in ((3, 1), (4, 2), (6, 3)):
        env = hoch_tief_v0.env(num_players=n, first_dealer=1)
        play_env(env, seed=seed)
        record = json.loads(json.dumps(env.unwrapped.record()))
        state = replay(record)
        assert state.round_scores == env.unwrapped.state_.round_scores
        rnd = record["rounds"][1]
        assert rnd["dealer"] == 2 % n
        assert set(rnd) >= {"dealer", "hands", "tricks", "taken", "scores", "totals"}
        trick = rnd["tricks"][0]
        assert set(trick) >= {"leader", "cards", "seats", "high", "low", "high_seat",
                              "low_seat", "high_card_to", "rest_to", "winner"}
        assert rnd["tricks"][1]["leader"] == trick["high_seat"]


def test_render_ansi_and_human(capsys):
    env = hoch_tief_v0.env(num_players=3, rounds=1, render_mode="ansi")
    env.reset(seed=2)
    for _ in range(4):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    s = env.unwrapped.state_
    text = env.render()
    assert "taken" in text and f"hand of player_{s.current_player}" in text
    assert text.count("hand of") == 1
    for p in range(3):
        for name in env.unwrapped.game.deck.format_mask(s.taken[p]):
            assert name in text
    env.unwrapped.show_all_hands = True
    assert env.render().count("hand of") == 3
    human = hoch_tief_v0.env(num_players=3, rounds=1, render_mode="human")
    human.reset(seed=2)
    assert human.render() is None
    assert "Hoch & Tief - round 1/1" in capsys.readouterr().out
