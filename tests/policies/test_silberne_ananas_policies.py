"""Silberne Ananas bots: determinize, heuristic legality and honesty, PIMC hooks, metrics."""

from __future__ import annotations

import random

import numpy as np
import pytest

from stichzoo.envs.silberne_ananas.encode import SilberneAnanasEncoder
from stichzoo.envs.silberne_ananas.metrics import METRIC_NAMES, seat_metrics
from stichzoo.envs.silberne_ananas.rules import (
    DECK_SIZE,
    GIVE,
    JOKER,
    NUM_SUITS,
    PLAY,
    SUIT_MASK,
    SilberneAnanasGame,
    SilberneAnanasOptions,
)
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision
from stichzoo.policies.games.silberne_ananas import (
    FastRollout,
    Heuristic,
    _sample_hands,
    match_value,
    search_value,
    taker_values,
)


def _game(**kw) -> SilberneAnanasGame:
    return SilberneAnanasGame(SilberneAnanasOptions(**kw))


def _obs(enc, state, seat):
    out = np.zeros(enc.layout.size, np.float32)
    enc.encode(state, seat, out)
    return out


def _random_states(game, games, seed):
    """Every state (before each action) of ``games`` random games."""
    rng = random.Random(seed)
    for _ in range(games):
        s = game.new_state(game.deal(rng))
        while not s.over:
            yield s
            s.apply(rng.choice(s.legal_actions()))


# -- determinize ---------------------------------------------------------------------------


def test_determinize_keeps_the_view_conserves_cards_and_respects_voids():
    game = _game()
    enc = SilberneAnanasEncoder(game)
    rng = random.Random(1)
    checks = voids_seen = joker_bans = 0
    for n, s in enumerate(_random_states(game, 2, seed=3)):
        if n % 3:
            continue
        for seat in range(3):
            d = game.determinize(s, seat, rng)
            assert d is not s and d.log is None
            assert np.array_equal(_obs(enc, s, seat), _obs(enc, d, seat))
            assert d.hands[seat] == s.hands[seat]
            assert [h.bit_count() for h in d.hands] == [h.bit_count() for h in s.hands]
            assert d.hands[0] | d.hands[1] | d.hands[2] | d.played == (1 << DECK_SIZE) - 1
            assert d.hands[0] & d.hands[1] == 0 and d.hands[1] & d.hands[2] == 0
            assert d.hands[0] & d.hands[2] == 0 and d.played & (d.hands[0] | d.hands[1]) == 0
            for p in range(3):
                for suit in range(NUM_SUITS):
                    if (s.voids[p] >> suit) & 1:
                        voids_seen += 1
                        assert d.hands[p] & SUIT_MASK[suit] == 0
                if s.no_joker[p]:
                    joker_bans += 1
                    assert not (d.hands[p] >> JOKER) & 1
            # the deck orders replay to the same game: the current deal's order fits the hands
            r = game.new_state(d.deck_orders)
            for _, action in d.history:
                r.apply(action)
            assert r.hands == d.hands and r.totals == d.totals
            # the past deals are public and kept
            assert d.deck_orders[: s.deal_index] == s.deck_orders[: s.deal_index]
            checks += 1
    assert checks > 200 and voids_seen > 100 and joker_bans > 100


def test_heuristic_samples_respect_voids():
    game = _game()
    rng = random.Random(3)
    for n, s in enumerate(_random_states(game, 1, seed=13)):
        seat = s.current_player
        if seat < 0 or n % 2:
            continue
        hands = _sample_hands(s, seat, rng)
        assert hands[seat] == s.hands[seat]
        assert [h.bit_count() for h in hands] == [h.bit_count() for h in s.hands]
        assert hands[0] | hands[1] | hands[2] == s.hands[0] | s.hands[1] | s.hands[2]
        for p in range(3):
            for suit in range(NUM_SUITS):
                if (s.voids[p] >> suit) & 1:
                    assert hands[p] & SUIT_MASK[suit] == 0
            if s.no_joker[p]:
                assert not (hands[p] >> JOKER) & 1


def test_determinize_varies_the_hidden_part():
    game = _game()
    rng = random.Random(0)
    s = game.new_state(game.deal(rng))
    for _ in range(6):  # a few cards into the first deal
        s.apply(rng.choice(s.legal_actions()))
    seat = s.current_player
    other = (seat + 1) % 3
    hands = {game.determinize(s, seat, rng).hands[other] for _ in range(30)}
    futures = {game.determinize(s, seat, rng).deck_orders[1] for _ in range(10)}
    assert len(hands) > 20 and len(futures) == 10
    assert s.deck_orders[1] not in futures


def test_determinize_of_a_finished_game_is_a_copy():
    game = _game(match=False)
    rng = random.Random(2)
    s = game.new_state(game.deal(rng))
    while not s.over:
        s.apply(rng.choice(s.legal_actions()))
    d = game.determinize(s, 0, rng)
    assert d.over and d.totals == s.totals


# -- heuristic -------------------------------------------------------------------------------


@pytest.mark.parametrize("match", [True, False])
def test_heuristic_plays_only_legal_actions_in_every_phase(match):
    game = _game(match=match)
    rng = random.Random(4)
    phases = {PLAY: 0, GIVE: 0}
    for g in range(3 if match else 12):
        bots = [Heuristic(game, seed=g * 3 + i) if (g + i) % 3 else None for i in range(3)]
        s = game.new_state(game.deal(rng))
        while not s.over:
            bot = bots[s.current_player]
            if bot is None:
                action = rng.choice(s.legal_actions())
            else:
                action = bot.act(Decision(game, s))
                assert action in s.legal_actions()
                phases[s.phase] += 1
            s.step(action)
    assert phases[PLAY] > 100 and phases[GIVE] >= 3


def test_heuristic_is_honest():
    """The action must not change when what the seat cannot see is re-dealt."""
    game = _game()
    bot = Heuristic(game, seed=0)
    rng = random.Random(7)
    checked = 0
    for n, s in enumerate(_random_states(game, 3, seed=8)):
        if n % 2 or len(s.legal_actions()) < 2:
            continue
        seat = s.current_player
        bot.rng = random.Random(n)
        a = bot.act(Decision(game, s))
        for _ in range(2):
            d = game.determinize(s, seat, rng)
            bot.rng = random.Random(n)
            assert bot.act(Decision(game, d)) == a
        checked += 1
    assert checked > 50


def test_gift_follows_the_taker_values():
    game = _game(match=False)
    seen = 0
    for s in _random_states(game, 20, seed=12):
        if s.phase != GIVE:
            continue
        seat = s.current_player
        w = taker_values(s)[seat]
        action = Heuristic(game, seed=0).act(Decision(game, s))
        taker = (seat + action - 33) % 3
        assert w[taker] == max(w)
        seen += 1
    assert seen == 20


# -- values and search -------------------------------------------------------------------


def test_match_value_is_a_middle_chance():
    for totals in ([0, 0, 0], [40, 50, 60], [90, 20, 55], [10, 80, 81]):
        v = [match_value(totals, s) for s in range(3)]
        assert all(0.0 <= x <= 1.0 for x in v)
        assert sum(v) == pytest.approx(1.0, abs=1e-3)
    assert match_value([40, 50, 60], 1) > match_value([40, 50, 60], 0)
    assert match_value([40, 50, 60], 1) > match_value([40, 50, 60], 2)


def test_search_value_is_the_win_share_at_the_end():
    game = _game(match=False)
    rng = random.Random(5)
    s = game.new_state(game.deal(rng))
    root = s.clone()
    while not s.over:
        s.apply(rng.choice(s.legal_actions()))
    assert [search_value(root, s, p) for p in range(3)] == [
        1.0 if p == s.bonus_seat else 0.0 for p in range(3)]


def test_make_policy_and_pimc_smoke():
    game = _game(match=False)
    heur = make_policy("heuristic", game, seed=0)
    assert heur.name == "heuristic"
    pimc = make_policy("pimc", game, seed=0, worlds=2)
    assert pimc.name == "pimc"
    rng = random.Random(9)
    s = game.new_state(game.deal(rng))
    bots = [pimc, heur, make_policy("random", game, seed=1)]
    while not s.over:
        action = bots[s.current_player].act(Decision(game, s))
        assert action in s.legal_actions()
        s.step(action)
    assert s.over and len(s.winners()) == 1


@pytest.mark.parametrize("lead", ["greedy", "random"])
def test_rollout_policy_plays_legal_actions(lead):
    game = _game(match=False)
    bot = FastRollout(game, seed=0, lead=lead)
    rng = random.Random(10)
    for _ in range(5):
        s = game.new_state(game.deal(rng))
        while not s.over:
            action = bot.act(Decision(game, s))
            assert action in s.legal_actions()
            s.step(action)


# -- metrics --------------------------------------------------------------------------------


def test_seat_metrics_on_a_finished_match():
    game = _game()
    rng = random.Random(6)
    s = game.new_state(game.deal(rng), log=True)
    bots = [make_policy("heuristic", game, seed=i) for i in range(3)]
    while not s.over:
        s.step(bots[s.current_player].act(Decision(game, s)))
    m = seat_metrics(s)
    assert len(m) == 3 and all(tuple(d) == METRIC_NAMES for d in m)
    deals = len(s.deal_scores)
    assert sum(d["middle_rate"] for d in m) == pytest.approx(1.0)
    assert sum(d["mean_deal_score"] for d in m) == pytest.approx(43.0)
    assert sum(d["mean_tricks"] for d in m) == pytest.approx(11.0)
    assert sum(d["joker_rate"] for d in m) == pytest.approx(1.0)
    assert sum(d["match_win"] for d in m) == pytest.approx(1.0)
    for p in range(3):
        assert m[p]["mean_deal_score"] * deals == pytest.approx(s.totals[p])
    with pytest.raises(ValueError, match="log=True"):
        seat_metrics(game.new_state(game.deal(rng)))
