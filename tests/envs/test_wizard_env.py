"""Wizard through the PettingZoo API: what only Wizard shows (leaks, fuzz, records, render).

The contract every env keeps (api and seed tests, registration, records,
illegal moves, options) is tested once for all games in test_env_contract.py.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from stichzoo.envs import wizard_v0
from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.wizard.rules import DECK_SIZE, PLAY, WizardGame, WizardOptions
from tests.helpers import assert_no_leak, play_env, random_playout


def test_action_space():
    env = wizard_v0.env(num_players=4)
    env.reset(seed=0)
    assert env.action_space("player_0").n == 60 + 16 + 4


def _resample_hidden(state, seat, rng):
    """Swap every card ``seat`` cannot see: other hands, undealt cards, future deals."""
    n = state.num_players
    order = list(state.deck_orders[state.round_index])
    r = state.hand_size
    visible = state.hands[seat] | state.played
    if state.trump_card >= 0:
        visible |= 1 << state.trump_card
    hidden = [c for c in range(DECK_SIZE) if not (visible >> c) & 1]
    rng.shuffle(hidden)
    for s in range(n):
        if s == seat:
            continue
        k = state.hands[s].bit_count()
        state.hands[s] = sum(1 << c for c in hidden[:k])
        del hidden[:k]
    del order, r
    future = []
    for i, o in enumerate(state.deck_orders):
        if i <= state.round_index:
            future.append(o)
        else:
            o = list(o)
            rng.shuffle(o)
            future.append(tuple(o))
    state.deck_orders = future
    return state


@pytest.mark.parametrize("n", [3, 4, 6])
def test_no_leak(n):
    checks = assert_no_leak(lambda: wizard_v0.raw_env(num_players=n), _resample_hidden,
                            games=2, seed=10 * n)
    assert checks > 100


def test_no_leak_would_catch_a_leak():
    """The leak check itself must fail when an encoder reads another hand."""
    raw = wizard_v0.raw_env(num_players=4)
    original = raw.encoder.encode

    def leaky(state, seat, out):
        original(state, seat, out)
        out[0] = float(state.hands[(seat + 1) % 4] & 1)

    raw.encoder.encode = leaky
    with pytest.raises(AssertionError, match="hidden information"):
        assert_no_leak(lambda: raw, _resample_hidden, games=3, seed=0)


def test_observation_shows_own_hand_and_public_trick():
    raw = wizard_v0.raw_env(num_players=4, rounds=[3])
    raw.reset(seed=3)
    s = raw.state_
    while s.phase != PLAY:
        s.step(s.legal_actions()[0])
    lay = raw.encoder.layout
    obs = raw.observe(f"player_{s.current_player}")["observation"]
    hand = obs[lay.slice("hand")]
    assert bit_list(s.hands[s.current_player]) == list(np.flatnonzero(hand))
    leader = s.current_player
    card = s.legal_actions()[0]
    s.step(card)
    # the next player sees the leader's card at relative seat n-1
    obs = raw.observe(f"player_{s.current_player}")["observation"]
    trick = obs[lay.slice("current_trick")].reshape(4, 60)
    assert trick[(leader - s.current_player) % 4, card] == 1.0
    assert trick.sum() == 1.0


def test_fuzz_invariants():
    """Thousands of random games on the rules core: conservation and scoring hold."""
    rng = random.Random(123)
    games = 0
    for n in (3, 4, 5, 6):
        full = WizardGame(WizardOptions(num_players=n))
        short = WizardGame(WizardOptions(num_players=n, rounds=(1, 2, 3)))
        for g in range(600):
            game = full if g < 40 else short
            s = game.new_game(seed=rng.randrange(1 << 30), log=True)
            steps = 0
            while not s.over:
                legal = s.legal_actions()
                assert legal, "a player to act always has a legal action"
                # card conservation: hands + played + unseen = 60, no overlap
                seen = s.played
                for h in s.hands:
                    assert not seen & h
                    seen |= h
                assert s.played.bit_count() + sum(h.bit_count() for h in s.hands) == \
                    s.num_players * s.hand_size
                s.step(rng.choice(legal))
                steps += 1
            assert steps < 10_000
            for rec, scores in zip(s.log, s.round_scores):
                assert sum(rec["tricks_won"]) == rec["hand_size"] == len(rec["tricks"])
                cards = [c for t in rec["tricks"] for c in t["cards"]]
                assert len(cards) == len(set(cards)) == n * rec["hand_size"]
                assert rec["scores"] == scores
            assert s.totals == [sum(col) for col in zip(*s.round_scores)]
            assert len(s.round_scores) == len(game.round_sizes)
            games += 1
    assert games == 2400


def test_record_holds_every_round():
    for n, seed in ((3, 1), (4, 2), (6, 3)):
        env = wizard_v0.env(num_players=n, dealer_bid_restriction=True)
        play_env(env, seed=seed)
        record = json.loads(json.dumps(env.unwrapped.record()))
        rnd = record["rounds"][2]
        assert set(rnd) >= {"hand_size", "dealer", "hands", "trump_card", "trump", "bids",
                            "tricks", "scores", "totals"}
        assert rnd["tricks"][0]["winner"] in range(n)


def test_render_ansi_and_human(capsys):
    env = wizard_v0.env(num_players=3, rounds=[3], render_mode="ansi")
    env.reset(seed=2)
    s = env.unwrapped.state_
    while s.phase != PLAY:
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    text = env.render()
    assert "trump" in text and "bid" in text and f"hand of player_{s.current_player}" in text
    assert text.count("hand of") == 1
    env.unwrapped.show_all_hands = True
    assert env.render().count("hand of") == 3
    human = wizard_v0.env(num_players=3, rounds=[1], render_mode="human")
    human.reset(seed=2)
    assert human.render() is None
    assert "Wizard - round 1/1" in capsys.readouterr().out


def test_clone_is_independent():
    game = WizardGame(WizardOptions(num_players=4))
    s = game.new_game(seed=3)
    rng = random.Random(0)
    for _ in range(30):
        s.step(rng.choice(s.legal_actions()))
    c = s.clone()
    snapshot = (list(s.hands), list(s.bids), list(s.trick.cards), list(s.totals))
    random_playout(c, rng)
    assert (list(s.hands), list(s.bids), list(s.trick.cards), list(s.totals)) == snapshot
    assert c.over and not s.over
