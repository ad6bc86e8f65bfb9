"""Geheimtrumpf through the PettingZoo API: what only it shows (secret trumps and tasks, records).

The contract every env keeps (api and seed tests, registration, records,
illegal moves, options) is tested once for all games in test_env_contract.py.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from stichzoo.envs import geheimtrumpf_v4
from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.record import replay
from stichzoo.envs.geheimtrumpf.rules import (
    CARD_DRAFT,
    GAME_OVER,
    NUM_CARDS,
    NUM_SUITS,
    PLAY,
    ROW_LEN,
    ROWS,
    SUIT_STACK0,
    TASK_CHOICE,
    TASK_DRAFT,
    TRUMPS,
    VALUE_STACK0,
    VALUES,
    trick_winner,
)
from tests.helpers import assert_no_leak, play_env


def test_action_space():
    env = geheimtrumpf_v4.env(num_players=4)
    env.reset(seed=0)
    assert env.action_space("player_0").n == 105


# -- nothing hidden leaks -------------------------------------------------------------------


def _shuffle_sections(order, rng):
    numbers, suits, values = (list(order[:NUM_CARDS]), list(order[NUM_CARDS:VALUE_STACK0]),
                              list(order[VALUE_STACK0:]))
    for part in (numbers, suits, values):
        rng.shuffle(part)
    return tuple(numbers + suits + values)


def _with_trumps(order, suit, value):
    """``order`` with its stacks rearranged so that they draw ``suit`` and ``value``."""
    s_card = SUIT_STACK0 + (suit if suit >= 0 else NUM_SUITS)
    v_card = VALUE_STACK0 + (value - 1 if value else VALUES)
    suits = [c for c in order[NUM_CARDS:VALUE_STACK0] if c != s_card] + [s_card]
    values = [c for c in order[VALUE_STACK0:] if c != v_card] + [v_card]
    return tuple(list(order[:NUM_CARDS]) + suits + values)


def _consistent_trumps(state):
    """Every trump draw under which the announced row winners would have been the same."""
    out = []
    for key, t in TRUMPS.items():
        if all((state.row_first(r) + trick_winner(list(cards), t.power)) % state.num_players
               == state.row_winners[r] for r, cards in enumerate(state.draft_rows)):
            out.append(key)
    return out


def _resample_hidden(state, seat, rng):
    """Change everything ``seat`` cannot know, keeping what it has seen consistent.

    Future rounds' shuffles and trumps; during the draft (for all but the
    start player) the trumps, among those that agree with the announced
    row winners; with 3 players which face-down card lies in which row;
    the other players' secret task choices before the reveal.
    """
    n = state.num_players
    r = state.round_index
    orders = list(state.deck_orders)
    first_hidden = r if state.phase == TASK_DRAFT else r + 1
    for i in range(first_hidden, len(orders)):
        orders[i] = _shuffle_sections(orders[i], rng)
    if state.phase not in (TASK_DRAFT, GAME_OVER):
        if state.phase == CARD_DRAFT and seat != state.start:
            suit, value = rng.choice(_consistent_trumps(state))
            state.set_trumps(suit, value)
            orders[r] = _with_trumps(orders[r], suit, value)
        if n == 3:
            order = list(orders[r])
            aside = [order[i * ROW_LEN + 3] for i in range(ROWS)]
            rng.shuffle(aside)
            for i, c in enumerate(aside):
                order[i * ROW_LEN + 3] = c
            orders[r] = tuple(order)
        if state.phase == TASK_CHOICE:
            for p in range(n):
                if p != seat and state.chosen[p] >= 0:
                    open_tasks = bit_list(state.held[p] & ~state.checked[p])
                    state.chosen[p] = rng.choice(open_tasks)
    state.deck_orders = orders
    return state


@pytest.mark.parametrize("n", [3, 4])
def test_no_leak(n):
    checks = assert_no_leak(lambda: geheimtrumpf_v4.raw_env(num_players=n, round_limit=2),
                            _resample_hidden, games=2, seed=10 * n)
    assert checks > 500


def test_resampling_really_changes_the_secrets():
    """The leak test is only as good as its resampling: it must move each secret."""
    raw = geheimtrumpf_v4.raw_env(num_players=3, round_limit=2)
    raw.reset(seed=5)
    s = raw.state_
    rng = random.Random(0)
    while s.phase != CARD_DRAFT:
        s.step(s.legal_actions()[0])
    s.step(s.legal_actions()[0])
    trumps = {(c.trumps.suit, c.trumps.value)
              for c in (_resample_hidden(s.clone(), 1, rng) for _ in range(30))}
    assert len(trumps) > 5  # one card taken: many draws still fit
    asides = {tuple(_resample_hidden(s.clone(), 1, rng).deck_orders[0][3::4][:9])
              for _ in range(10)}
    assert len(asides) > 5
    while s.phase != TASK_CHOICE:
        s.step(s.legal_actions()[0])
    s.step(s.legal_actions()[0])  # seat 1 chooses; seat 2 must not learn it
    chosen = {_resample_hidden(s.clone(), 2, rng).chosen[1] for _ in range(30)}
    assert len(chosen) > 1


def _leak_check_fails(leak):
    raw = geheimtrumpf_v4.raw_env(num_players=3, round_limit=2)
    original = raw.encoder.encode

    def leaky(state, seat, out):
        original(state, seat, out)
        out[0] = leak(state, seat)

    raw.encoder.encode = leaky
    with pytest.raises(AssertionError, match="hidden information"):
        assert_no_leak(lambda: raw, _resample_hidden, games=1, seed=0)


def test_no_leak_would_catch_trumps_leaked_during_the_draft():
    _leak_check_fails(lambda s, seat: float(s.trumps.value + 10 * s.trumps.suit))


def test_no_leak_would_catch_the_set_aside_card_of_a_row():
    _leak_check_fails(lambda s, seat: float(s.deck_orders[s.round_index][3]))


def test_no_leak_would_catch_secret_choices():
    _leak_check_fails(lambda s, seat: float(s.chosen[(seat + 1) % 3]))


# -- what the observation shows ----------------------------------------------------------------


def _obs(raw, seat):
    lay = raw.encoder.layout
    return lay.split(raw.observe(f"player_{seat}")["observation"])


def _to_phase(raw, phase, seed=3):
    """Reset and play random legal actions through the env until ``phase`` begins."""
    raw.reset(seed=seed)
    s = raw.state_
    rng = random.Random(seed)
    while s.phase != phase:
        raw.step(rng.choice(s.legal_actions()))
    return s


def test_trumps_visible_to_start_player_only_during_the_draft():
    raw = geheimtrumpf_v4.raw_env(num_players=4)
    s = _to_phase(raw, CARD_DRAFT)
    for seat in range(4):
        o = _obs(raw, seat)
        if seat == s.start:
            assert o["trumps_known"][0] == 1 and o["trump_suit"].sum() == 1
            assert o["trump_value"].sum() == 1
            t = s.trumps
            assert o["trump_suit"][t.suit if t.suit >= 0 else 4] == 1
        else:
            assert o["trumps_known"][0] == 0
            assert o["trump_suit"].sum() == o["trump_value"].sum() == 0
    while s.phase == CARD_DRAFT:
        raw.step(s.legal_actions()[0])
    assert all(_obs(raw, seat)["trumps_known"][0] == 1 for seat in range(4))


def test_layout_rows_and_announcements_in_the_observation():
    raw = geheimtrumpf_v4.raw_env(num_players=3)
    s = _to_phase(raw, CARD_DRAFT)
    order = s.deck_orders[0]
    o = _obs(raw, 0)
    layout = o["layout"].reshape(ROWS, NUM_CARDS)
    for r in range(ROWS):
        assert list(np.flatnonzero(layout[r])) == sorted(order[4 * r: 4 * r + 3])
    assert layout.sum() == 27  # the face-down fourth cards never appear
    for _ in range(3):
        raw.step(s.legal_actions()[0])
    o = _obs(raw, 2)
    winners = o["row_winners"].reshape(ROWS, 3)
    assert winners[0, (s.row_winners[0] - 2) % 3] == 1 and winners.sum() == 1
    draft = o["draft"].reshape(ROWS, 3, NUM_CARDS)
    for i, c in enumerate(s.draft_rows[0]):
        taker = (s.row_first(0) + i) % 3
        assert draft[0, (taker - 2) % 3, c] == 1
        assert o["hands"].reshape(3, NUM_CARDS)[(taker - 2) % 3, c] == 1  # hands are public
    assert o["draft_row"][1] == 1


def test_chosen_tasks_hidden_until_all_have_chosen():
    raw = geheimtrumpf_v4.raw_env(num_players=4)
    s = _to_phase(raw, TASK_CHOICE)
    first = s.current_player
    raw.step(s.legal_actions()[0])
    t = s.chosen[first]
    own = _obs(raw, first)["chosen"].reshape(4, 11)
    assert own[0, t] == 1 and own.sum() == 1
    for seat in range(4):
        if seat != first:
            assert _obs(raw, seat)["chosen"].sum() == 0
    while s.phase == TASK_CHOICE:
        raw.step(s.legal_actions()[0])
    assert s.phase == PLAY
    for seat in range(4):
        assert _obs(raw, seat)["chosen"].sum() == 3  # all but the start player's


def test_tricks_in_the_observation():
    raw = geheimtrumpf_v4.raw_env(num_players=4)
    s = _to_phase(raw, PLAY)
    for _ in range(6):
        raw.step(s.legal_actions()[0])
    leader, cards, winner = s.tricks[0]
    o = _obs(raw, 1)
    tricks = o["tricks"].reshape(9, 4, NUM_CARDS)
    for i, c in enumerate(cards):
        assert tricks[0, (leader + i - 1) % 4, c] == 1
    assert tricks[1].sum() == 2 and tricks[2:].sum() == 0
    assert o["won_cards"].reshape(4, NUM_CARDS)[(winner - 1) % 4].sum() == 4
    assert o["tricks_won"].reshape(4, 10)[(winner - 1) % 4, 1] == 1


# -- rewards, determinism, records ----------------------------------------------------------


def test_totals_are_the_tasks_checked():
    for n, seed in ((3, 7), (4, 8)):
        env = geheimtrumpf_v4.env(num_players=n)
        play_env(env, seed=seed)
        s = env.unwrapped.state_
        assert s.totals == [m.bit_count() for m in s.checked]


def test_truncated_game_ends_for_all_without_win_reward():
    env = geheimtrumpf_v4.env(num_players=4, round_limit=1, reward="win")
    rewards = play_env(env, seed=2)
    s = env.unwrapped.state_
    assert s.truncated and not s.over and s.winners() == []
    assert all(v == 0 for v in rewards.values()) and env.agents == []


def test_record_holds_the_drafts_and_every_deck_order():
    for n, seed, kw in ((3, 1, {}), (4, 2, {}), (4, 3, {"round_limit": 2, "first_start": 2})):
        env = geheimtrumpf_v4.env(num_players=n, **kw)
        play_env(env, seed=seed)
        record = json.loads(json.dumps(env.unwrapped.record()))
        rnd = record["rounds"][0]
        assert set(rnd) >= {"round", "start", "trump_suit", "trump_value", "rows", "set_aside",
                            "task_draft", "draft", "chosen", "tricks", "tricks_won", "met",
                            "start_checks", "checked", "totals"}
        assert len(rnd["task_draft"]) == 4 * n and len(rnd["draft"]) == 9
        assert len(rnd["tricks"]) == 9 and len(rnd["set_aside"]) == (9 if n == 3 else 0)
        assert all(len(o) == 51 for o in record["deck_orders"])
        assert len(record["deck_orders"]) == kw.get("round_limit", 50)


def test_replay_rejects_a_tampered_deck_order():
    env = geheimtrumpf_v4.env(num_players=4, round_limit=1)
    play_env(env, seed=1)
    record = env.unwrapped.record()
    # a number card swapped into the trump-suit stack is not a deck order
    record["deck_orders"][0][0], record["deck_orders"][0][40] = \
        record["deck_orders"][0][40], record["deck_orders"][0][0]
    with pytest.raises(ValueError, match="deck order"):
        replay(record)


def test_render_ansi_and_human(capsys):
    env = geheimtrumpf_v4.env(num_players=3, render_mode="ansi")
    env.reset(seed=2)
    s = env.unwrapped.state_
    assert "task draft" in env.render()
    while s.phase != CARD_DRAFT or s.current_player == s.start:
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    text = env.render()
    assert "trumps: secret" in text and "row 1:" in text and text.count("hand of") == 3
    env.unwrapped.show_all_hands = True
    assert "trumps: suit" in env.render()
    human = geheimtrumpf_v4.env(num_players=3, render_mode="human")
    human.reset(seed=2)
    assert human.render() is None
    assert "Geheimtrumpf - task draft" in capsys.readouterr().out
