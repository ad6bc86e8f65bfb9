"""Wunder Punkt bots: determinize, the heuristic (legal, honest), PIMC smoke, metrics."""

from __future__ import annotations

import random

import numpy as np
import pytest

from stichzoo.envs.wunder_punkt.encode import WunderPunktEncoder
from stichzoo.envs.wunder_punkt.metrics import seat_metrics
from stichzoo.envs.wunder_punkt.rules import (
    DECK_SIZE,
    PLAY,
    SORE,
    WunderPunktGame,
    WunderPunktOptions,
)
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision, RandomPolicy
from stichzoo.policies.games.wunder_punkt import Heuristic

CONFIGS = [dict(num_players=n) for n in (3, 4, 5, 6)] + [dict(num_players=3, larger_hands=True)]
IDS = ["3p", "4p", "5p", "6p", "3p-larger"]


def game_of(**opts) -> WunderPunktGame:
    return WunderPunktGame(WunderPunktOptions(**opts))


def observe(enc: WunderPunktEncoder, state, seat: int) -> np.ndarray:
    out = np.zeros(enc.layout.size, np.float32)
    enc.encode(state, seat, out)
    return out


def random_states(game, seed: int, games: int = 2, stride: int = 3):
    """States at many decisions of random games (every ``stride``-th decision)."""
    rng = random.Random(seed)
    for g in range(games):
        s = game.new_game(seed * 100 + g)
        i = 0
        while not s.over:
            if i % stride == 0:
                yield s
            s.apply(rng.choice(s.legal_actions()))
            i += 1


# -- determinize -------------------------------------------------------------------------


@pytest.mark.parametrize("opts", CONFIGS, ids=IDS)
def test_determinize_keeps_the_seats_view_and_conserves_cards(opts):
    game = game_of(**opts)
    enc = WunderPunktEncoder(game)
    rng = random.Random(1)
    checks = 0
    for s in random_states(game, seed=3):
        snapshot = (s.hands[:], s.sore_cards[:], s.history[:], list(s.deck_orders))
        for seat in range(game.num_players):
            w = game.determinize(s, seat, rng)
            assert w.log is None and w is not s
            assert np.array_equal(observe(enc, s, seat), observe(enc, w, seat))
            assert w.legal_mask() == s.legal_mask() or w.current_player != seat
            assert w.hands[seat] == s.hands[seat]
            assert w.sore_cards[seat] == s.sore_cards[seat]
            # the same cards are in the hidden part, each seat keeps its hand size
            hidden_s = hidden_w = 0
            for p in range(game.num_players):
                assert w.hands[p].bit_count() == s.hands[p].bit_count()
                assert (w.sore_cards[p] >= 0) == (s.sore_cards[p] >= 0)
                if p != seat:
                    hidden_s |= s.hands[p]
                    hidden_w |= w.hands[p]
                    if s.phase == SORE and s.sore_cards[p] >= 0:
                        hidden_s |= 1 << s.sore_cards[p]
                        hidden_w |= 1 << w.sore_cards[p]
                    elif s.phase == PLAY:  # revealed picks are public
                        assert w.sore_cards[p] == s.sore_cards[p]
            assert hidden_s == hidden_w
            # a real game: its deck orders and history replay to the same world
            again = game.new_state(w.deck_orders)
            for _, a in w.history:
                again.step(a)
            assert (again.hands, again.sore_cards, again.won, again.totals) == (
                w.hands, w.sore_cards, w.won, w.totals)
            checks += 1
        # the original is untouched
        assert snapshot == (s.hands, s.sore_cards, s.history, list(s.deck_orders))
    assert checks > 50


def test_determinize_varies_hands_pending_picks_and_future_deals():
    game = game_of(num_players=4)
    s = game.new_game(5)
    rng = random.Random(0)
    for _ in range(2):  # two seats have laid a face-down card
        s.apply(rng.choice(s.legal_actions()))
    seat = s.current_player
    picker = s.history[0][0]
    hands, picks, futures = set(), set(), set()
    for _ in range(40):
        w = game.determinize(s, seat, rng)
        hands.add(w.hands[(seat + 1) % 4])
        picks.add(w.sore_cards[picker])
        futures.add(w.deck_orders[1])
        assert w.history[0] == (picker, DECK_SIZE + w.sore_cards[picker])
        assert w.hands[picker] >> w.sore_cards[picker] & 1 == 0
    assert len(hands) > 30 and len(picks) > 5 and len(futures) == 40
    # after the reveal the picks are fixed, the hands still vary
    while s.phase == SORE:
        s.apply(rng.choice(s.legal_actions()))
    ws = [game.determinize(s, seat, rng) for _ in range(20)]
    assert all(w.sore_cards == s.sore_cards for w in ws)
    assert len({w.hands[(seat + 2) % 4] for w in ws}) > 15


def test_determinize_of_a_finished_game_is_a_clone():
    game = game_of(num_players=3, rounds=1)
    s = game.new_game(0)
    rng = random.Random(0)
    while not s.over:
        s.apply(rng.choice(s.legal_actions()))
    w = game.determinize(s, 0, rng)
    assert w.over and w.totals == s.totals


# -- heuristic ---------------------------------------------------------------------------


@pytest.mark.parametrize("opts", CONFIGS, ids=IDS)
def test_heuristic_plays_only_legal_actions(opts):
    game = game_of(**opts)
    bot = Heuristic(game, seed=0)
    rnd = RandomPolicy(1)
    phases = set()
    for g in range(4):
        s = game.new_game(g)
        while not s.over:
            d = Decision(game, s)
            use_bot = g % 2 == 0 or s.current_player == 0  # vs heuristics and vs random
            a = bot.act(d) if use_bot else rnd.act(d)
            assert s.legal_mask() >> a & 1, (s.phase_name, a)
            phases.add(s.phase)
            s.step(a)
    assert phases == {SORE, PLAY}


@pytest.mark.parametrize("opts", CONFIGS, ids=IDS)
def test_heuristic_is_honest(opts):
    """The action must not change when what the seat cannot see is re-dealt."""
    game = game_of(**opts)
    bot = Heuristic(game, seed=0)
    rng = random.Random(2)
    checks = 0
    for s in random_states(game, seed=7, stride=2):
        seat = s.current_player
        want = bot.act(Decision(game, s))
        for _ in range(3):
            w = game.determinize(s, seat, rng)
            assert bot.act(Decision(game, w)) == want
            checks += 1
    assert checks > 50


def test_heuristic_picks_a_cheap_card():
    game = game_of(num_players=4)
    bot = Heuristic(game)
    for g in range(20):
        s = game.new_game(g)
        seat = s.current_player
        card = bot.act(Decision(game, s)) - DECK_SIZE
        same_suit = [c for c in range(DECK_SIZE)
                     if s.hands[seat] >> c & 1 and c // 13 == card // 13]
        assert card == min(same_suit)  # the lowest card of its suit (an Ace when held)


def test_heuristic_dumps_a_sore_card_on_the_winner_and_takes_a_good_trick():
    game = game_of(num_players=4)
    # seat 3 (sore diamonds) plays last; hearts led, seat 1 (sore hearts) wins with the off-suit
    # 10c; the led-suit Kh cannot beat it: dumped on seat 1 it costs them 13
    hands = ["2d", "3d", "4d", "Ks 3c 2s Kh 5h"]
    s = game.position(hands, ["2s", "2h", "3s", "Ad"], leader=0, trick="4h 10c 5s")
    bot = Heuristic(game)
    assert game.action_label(bot.act(Decision(game, s))) == "Kh"
    # the same trick without a victim (seat 1 sore diamonds): take it with the off-suit King
    s = game.position(hands, ["2s", "3d", "3s", "Ad"], leader=0, trick="4h 10c 5s")
    assert game.action_label(bot.act(Decision(game, s))) == "Ks"


# -- registry and search -----------------------------------------------------------------


def test_make_policy_and_pimc_smoke():
    game = game_of(num_players=3, rounds=1)
    h = make_policy("heuristic", game, seed=0)
    assert h.name == "heuristic"
    bots = [make_policy("pimc", game, seed=0, worlds=2), h, make_policy("random", game, seed=1)]
    assert bots[0].name == "pimc"
    s = game.new_game(0, log=True)
    while not s.over:
        s.step(bots[s.current_player].act(Decision(game, s)))
    assert len(s.round_scores) == 1


def test_seat_metrics_add_up_to_the_scores():
    game = game_of(num_players=4)
    bot = Heuristic(game)
    s = game.new_game(9, log=True)
    while not s.over:
        s.step(bot.act(Decision(game, s)))
    m = seat_metrics(s)
    assert len(m) == 4
    for p in range(4):
        assert set(m[p]) == {"sore_points", "plus_points", "mean_round_score"}
        assert m[p]["sore_points"] <= 0 <= m[p]["plus_points"]
        assert m[p]["mean_round_score"] * game.num_rounds == pytest.approx(s.totals[p])
    with pytest.raises(ValueError, match="log=True"):
        seat_metrics(game.new_game(0))
