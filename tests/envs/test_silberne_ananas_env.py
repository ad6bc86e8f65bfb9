"""Silberne Ananas through the PettingZoo API: what only it shows (leaks, the Joker, standing).

The contract every env keeps (api and seed tests, registration, records,
illegal moves, options) is tested once for all games in test_env_contract.py.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from stichzoo.envs import silberne_ananas_v1
from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.record import to_json
from stichzoo.envs.silberne_ananas.rules import GIVE, GIVE0, JOKER, PLAY
from stichzoo.envs.silberne_ananas.standing import standing
from tests.helpers import assert_no_leak, play_env

ENV_ID = "silberne_ananas_v1"


def test_spaces():
    env = silberne_ananas_v1.env()
    env.reset(seed=0)
    obs_space = env.observation_space("player_0")
    assert obs_space["observation"].shape == (387,)
    assert env.action_space("player_0").n == 36
    labels = [env.unwrapped.game.action_label(a) for a in (0, 3, 7, 32, 33, 34, 35)]
    assert labels == ["7h", "10h", "Ah", "Joker", "give self", "give left", "give right"]
    assert env.unwrapped.game.parse_action("give right") == 35


# -- no leak -----------------------------------------------------------------------------


def _resample_hidden(state, seat, rng):
    """Re-deal the other two hands among themselves and reshuffle the future deals."""
    others = [s for s in range(3) if s != seat]
    pool = bit_list(state.hands[others[0]] | state.hands[others[1]])
    rng.shuffle(pool)
    for s in others:
        k = state.hands[s].bit_count()
        state.hands[s] = sum(1 << c for c in pool[:k])
        del pool[:k]
    future = []
    for i, o in enumerate(state.deck_orders):
        if i > state.deal_index:
            o = list(o)
            rng.shuffle(o)
            o = tuple(o)
        future.append(o)
    state.deck_orders = future
    return state


def test_no_leak():
    checks = assert_no_leak(lambda: silberne_ananas_v1.raw_env(), _resample_hidden,
                            games=1, seed=5)
    assert checks > 300


def test_no_leak_would_catch_a_leak():
    """The leak check itself must fail when an encoder reads another hand."""
    raw = silberne_ananas_v1.raw_env(match=False)
    original = raw.encoder.encode

    def leaky(state, seat, out):
        original(state, seat, out)
        out[0] = float((state.hands[(seat + 1) % 3] >> JOKER) & 1)

    raw.encoder.encode = leaky
    with pytest.raises(AssertionError, match="hidden information"):
        assert_no_leak(lambda: raw, _resample_hidden, games=3, seed=0)


# -- observation and mask -----------------------------------------------------------------


def test_observation_shows_own_hand_and_public_trick():
    raw = silberne_ananas_v1.raw_env()
    raw.reset(seed=3)
    s = raw.state_
    lay = raw.encoder.layout
    leader = s.current_player
    obs = raw.observe(f"player_{leader}")["observation"]
    assert bit_list(s.hands[leader]) == list(np.flatnonzero(obs[lay.slice("hand")]))
    card = s.legal_actions()[0]
    raw.step(card)
    nxt = s.current_player
    obs = raw.observe(f"player_{nxt}")["observation"]
    trick = obs[lay.slice("current_trick")].reshape(3, 33)
    assert trick[(leader - nxt) % 3, card] == 1.0 and trick.sum() == 1.0
    assert obs[lay.slice("lead_suit")][card // 8] == 1.0
    assert obs[lay.slice("trick_leader")][(leader - nxt) % 3] == 1.0


def _play_until_gift(raw, seed):
    raw.reset(seed=seed)
    s = raw.state_
    rng = random.Random(seed)
    while s.phase != GIVE:
        raw.step(rng.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("offset", [0, 1, 2])
def test_joker_gift_through_the_env(offset):
    raw = silberne_ananas_v1.raw_env(match=False)
    s = _play_until_gift(raw, seed=11)  # the Joker falls in the third trick
    assert len(s.history) == 9
    giver = s.current_player
    agent = f"player_{giver}"
    assert raw.agent_selection == agent
    mask = raw.observe(agent)["action_mask"]
    assert list(np.flatnonzero(mask)) == [GIVE0, GIVE0 + 1, GIVE0 + 2]
    for other in range(3):
        if other != giver:
            assert not raw.observe(f"player_{other}")["action_mask"].any()
    obs = raw.observe(agent)["observation"]
    assert obs[raw.encoder.layout.slice("phase")][GIVE] == 1.0
    before = s.tricks_won[:]
    raw.step(GIVE0 + offset)
    taker = (giver + offset) % 3
    assert s.phase == PLAY and s.tricks_won[taker] == before[taker] + 1
    assert raw.agent_selection == f"player_{taker}" and s.trick.leader == taker
    assert s.no_joker == [True, True, True]  # the Joker is out: public


def test_no_joker_is_set_when_the_jokers_trick_is_taken_as_documented():
    """The piece's doc: set for all once the Joker's trick is taken; during that trick and its
    gift the Joker shows in ``played``, and a seat that played the Joker is not yet marked."""
    raw = silberne_ananas_v1.raw_env(match=False)
    s = _play_until_gift(raw, seed=11)
    lay = raw.encoder.layout
    obs = raw.observe(f"player_{s.current_player}")["observation"]
    assert obs[lay.slice("played")][JOKER] == 1.0
    assert obs[lay.slice("no_joker")][0] == 0.0  # the giver: it played the Joker
    raw.step(GIVE0)
    for seat in range(3):
        assert obs_of(raw, seat)[lay.slice("no_joker")].tolist() == [1.0, 1.0, 1.0]


def obs_of(raw, seat: int) -> np.ndarray:
    return raw.observe(f"player_{seat}")["observation"]


def test_mask_is_zero_for_agents_not_to_act():
    raw = silberne_ananas_v1.raw_env()
    raw.reset(seed=0)
    for seat in range(3):
        mask = raw.observe(f"player_{seat}")["action_mask"]
        assert mask.any() == (seat == raw.state_.current_player)


# -- rewards ---------------------------------------------------------------------------------


def test_every_deal_pays_43():
    env = silberne_ananas_v1.env()
    total = play_env(env, seed=4)
    s = env.unwrapped.state_
    assert sum(total.values()) == 43 * len(s.deal_scores)


@pytest.mark.parametrize("kwargs", [{}, {"match": False}, {"alone_variant": True}])
def test_standing_rewards_sum_to_the_win_share_less_the_start(kwargs):
    """Potential-based shaping: whatever the play, a match pays win share - standing(0, 0, 0)."""
    start = standing([0, 0, 0], 100)
    for seed in range(3):
        env = silberne_ananas_v1.env(reward="standing", reward_scale=5.0, **kwargs)
        total = play_env(env, seed=seed)
        win = env.unwrapped.state_.winners()
        want = [(1.0 / len(win) if i in win else 0.0) - start[i] for i in range(3)]
        assert [total[f"player_{i}"] for i in range(3)] == pytest.approx(want, abs=1e-9)


def test_standing_rewards_come_after_every_deal():
    """Each deal's end pays every seat the change of its middle chance, nothing in between."""
    env = silberne_ananas_v1.env(reward="standing")
    env.reset(seed=5)
    raw = env.unwrapped
    rng = random.Random(5)
    paid = 0
    while not raw.state_.over:
        before = list(raw.state_.totals)
        deal = raw.state_.deal_index
        mask = raw.observe(raw.agent_selection)["action_mask"]
        env.step(rng.choice(list(np.flatnonzero(mask))))
        state = raw.state_
        got = [raw.rewards[f"player_{i}"] for i in range(3)]
        if state.totals == before:
            assert got == [0, 0, 0]
            continue
        paid += 1
        after = standing(state.totals, 100) if not state.over else \
            [1.0 / len(state.winners()) if i in state.winners() else 0.0 for i in range(3)]
        want = [a - b for a, b in zip(after, standing(before, 100), strict=True)]
        assert got == pytest.approx(want) and (state.over or state.deal_index == deal + 1)
    assert paid == len(state.deal_scores) >= 2


def test_standing_is_the_middle_chance():
    """Equal totals are a fair draw; a seat between the others stands best."""
    assert sum(standing([30, 30, 30], 100)) == pytest.approx(1.0, abs=0.05)
    low, mid, high = standing([40, 50, 60], 100)
    assert mid > low and mid > high


def test_standing_reward_is_refused_where_the_game_has_none():
    from stichzoo.envs import wizard_v0
    from stichzoo.envs.core.batch import BatchEnv

    with pytest.raises(ValueError, match=r"^wizard: reward='standing' needs"):
        wizard_v0.env(reward="standing")
    with pytest.raises(ValueError, match="standing"):
        BatchEnv("hoch_tief", 2, reward="standing")


# -- records ------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{}, {"match": False, "first_dealer": 2}])
def test_record_holds_every_deal_and_gift(kwargs):
    env = silberne_ananas_v1.env(**kwargs)
    play_env(env, seed=8)
    rec = json.loads(to_json(env.unwrapped.record()))
    assert rec["env"] == ENV_ID and len(rec["deck_orders"]) == env.unwrapped.game.max_deals
    first = rec["rounds"][0]
    assert len(first["tricks"]) == 11 and all(len(h) == 11 for h in first["hands"])
    gifts = [t for r in rec["rounds"] for t in r["tricks"] if "gift" in t]
    assert all("Joker" in t["cards"] for t in gifts)
    assert len(gifts) == len(rec["rounds"])  # one Joker trick per deal


def test_render_ansi():
    env = silberne_ananas_v1.env(render_mode="ansi", match=False)
    env.reset(seed=0)
    text = env.render()
    assert "Silberne Ananas" in text and "hand of player_1" in text
    assert "hand of player_0" not in text
    raw = silberne_ananas_v1.raw_env(render_mode="ansi", show_all_hands=True)
    raw.reset(seed=0)
    assert all(f"hand of player_{i}" in raw.render() for i in range(3))


def test_voids_and_no_joker_are_public_and_relative():
    raw = silberne_ananas_v1.raw_env()
    raw.reset(seed=0)
    s = raw.state_
    # hand-set a void shown by seat 2 in spades, who thereby cannot hold the Joker
    s.voids[2] = 1 << 2
    s.no_joker[2] = True
    lay = raw.encoder.layout
    for seat in range(3):
        obs = raw.observe(f"player_{seat}")["observation"]
        rel = (2 - seat) % 3
        voids = obs[lay.slice("voids")].reshape(3, 4)
        assert voids[rel, 2] == 1.0 and voids.sum() == 1.0
        assert list(np.flatnonzero(obs[lay.slice("no_joker")])) == [rel]


def test_global_state_holds_every_hand():
    raw = silberne_ananas_v1.raw_env()
    raw.reset(seed=0)
    st = raw.state()
    off = raw.encoder.state_layout.offsets["all_hands"]
    hands = st[off:off + 99].reshape(3, 33)
    assert hands.sum() == 33 and (hands.sum(axis=0) == 1).all()
    assert st[raw.encoder.state_layout.offsets["to_act"] + raw.state_.current_player] == 1.0


def test_render_gift_and_game_over():
    raw = silberne_ananas_v1.raw_env(render_mode="ansi", match=False)
    s = _play_until_gift(raw, seed=11)
    assert "played the Joker" in raw.render()
    rng = random.Random(0)
    while not s.over:
        raw.step(rng.choice(s.legal_actions()))
    text = raw.render()
    assert "game over" in text and f"player_{s.winners()[0]}" in text
