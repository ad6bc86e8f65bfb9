"""Wizard bots: determinize, the heuristic (legal, honest), PIMC, metrics."""

from __future__ import annotations

import random

import numpy as np
import pytest

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.wizard.metrics import METRIC_NAMES, seat_metrics
from stichzoo.envs.wizard.rules import (
    BID,
    CHOOSE_TRUMP,
    DECK_SIZE,
    PLAY,
    SUIT_MASK,
    WizardGame,
    WizardOptions,
    _deal_constrained,
)
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision, encoder_for
from stichzoo.policies.games.wizard import FastHeuristic, Heuristic, choose_trump


def _game(n=4, **kw):
    return WizardGame(WizardOptions(num_players=n, **kw))


def _states(game, seed, every=1):
    """The states of one random game, every ``every``-th decision."""
    rng = random.Random(seed)
    s = game.new_game(seed)
    i = 0
    while not s.over:
        if i % every == 0:
            yield s
        s.apply(rng.choice(bit_list(s.legal_mask())))
        i += 1


def _check_world(game, s, d, seat, enc, a, b):
    n = s.num_players
    enc.encode(s, seat, a)
    enc.encode(d, seat, b)
    assert np.array_equal(a, b), "determinize changed what the seat sees"
    assert d.log is None and d.hands[seat] == s.hands[seat]
    for p in range(n):
        assert d.hands[p].bit_count() == s.hands[p].bit_count()
        for suit in range(4):
            if d.voids[p] >> suit & 1:
                assert not d.hands[p] & SUIT_MASK[suit], "a void was broken"
    union = 0
    for h in d.hands:
        assert not union & h
        union |= h
    assert not union & d.played
    # the rebuilt deck orders are shuffles and re-deal this round's hands
    game.checked_orders(d.deck_orders, len(game.round_sizes), range(DECK_SIZE))
    assert d.deck_orders[: s.round_index] == s.deck_orders[: s.round_index]
    order = d.deck_orders[d.round_index]
    r = d.hand_size
    dealt = [0] * n
    for k in range(n * r):
        dealt[(d.dealer + 1 + k) % n] |= 1 << order[k]
    for p in range(n):
        assert d.hands[p] & ~dealt[p] == 0
    assert sum(dealt) - sum(d.hands) == sum(1 << c for c in bit_list(d.played))
    if d.trump_card >= 0:
        assert order[n * r] == d.trump_card


@pytest.mark.parametrize("n", [3, 4, 6])
def test_determinize_keeps_the_view_and_the_rules(n):
    game = _game(n)
    enc = encoder_for(game)
    a = np.zeros(enc.layout.size, np.float32)
    b = a.copy()
    rng = random.Random(n)
    checks = 0
    for s in _states(game, seed=n, every=3):
        for seat in range(n):
            d = game.determinize(s, seat, rng)
            _check_world(game, s, d, seat, enc, a, b)
            checks += 1
    assert checks > 300


def test_determinize_varies_the_hidden_part_and_leaves_the_state_alone():
    game = _game(4)
    rng = random.Random(1)
    s = game.new_game(5)
    for _ in range(40):  # into round 3 or so
        s.apply(rng.choice(bit_list(s.legal_mask())))
    before = (s.hands[:], s.deck_orders[:], s.played, s.history[:])
    seat = s.current_player
    worlds = [game.determinize(s, seat, rng) for _ in range(20)]
    assert (s.hands, s.deck_orders, s.played, s.history) == before
    for p in range(4):
        if p != seat and s.hands[p]:
            assert len({w.hands[p] for w in worlds}) > 1
    assert len({w.deck_orders[-1] for w in worlds}) > 1


def test_determinize_respects_voids_in_tight_late_rounds():
    """Last round of 4 players: all 60 cards dealt, so voids really constrain."""
    game = _game(4, rounds=(15,))
    enc = encoder_for(game)
    a = np.zeros(enc.layout.size, np.float32)
    b = a.copy()
    rng = random.Random(0)
    voids_seen = 0
    for seed in range(4):
        for s in _states(game, seed, every=2):
            voids_seen += sum(1 for v in s.voids if v)
            d = game.determinize(s, s.current_player, rng)
            _check_world(game, s, d, s.current_player, enc, a, b)
    assert voids_seen > 50


def test_constrained_deal_fits_voids_and_sizes():
    rng = random.Random(3)
    cards = list(range(DECK_SIZE))
    bans = [SUIT_MASK[0] | SUIT_MASK[1], SUIT_MASK[2], 0]
    for _ in range(50):
        hands = _deal_constrained(cards[:], [15, 20, 25], bans, rng)
        assert [h.bit_count() for h in hands] == [15, 20, 25]
        assert all(not h & ban for h, ban in zip(hands, bans))
        assert sum(hands) == (1 << DECK_SIZE) - 1
    with pytest.raises(ValueError, match="no deal"):  # 26 blue+red cards, room for 20
        _deal_constrained(cards[:], [40, 20], [SUIT_MASK[0] | SUIT_MASK[1], 0], rng)


@pytest.mark.parametrize("n,restrict", [(3, False), (4, True), (5, False), (6, True)])
def test_heuristics_play_legal_actions_in_every_phase(n, restrict):
    game = _game(n, dealer_bid_restriction=restrict)
    phases = set()
    for seed in range(3):
        rng = random.Random(seed)
        bots = [Heuristic(game, seed=seed), FastHeuristic(game), None]
        s = game.new_game(seed)
        while not s.over:
            seat = s.current_player
            bot = bots[(seat + seed) % 3]
            legal = s.legal_mask()
            a = rng.choice(bit_list(legal)) if bot is None else bot.act(Decision(game, s))
            assert legal >> a & 1, f"illegal action {game.action_label(a)}"
            if bot is not None:
                phases.add(s.phase)
            s.apply(a)
    assert {BID, PLAY} <= phases
    # a Wizard turned: the trump choice
    for bot in (Heuristic(game), FastHeuristic(game)):
        order = [c for c in range(DECK_SIZE) if c != 52]
        order.insert(n, 52)  # round 1: n cards dealt, the Wizard turned
        st = game.new_state([order] * len(game.round_sizes))
        assert st.phase == CHOOSE_TRUMP
        a = bot.act(Decision(game, st))
        assert st.legal_mask() >> a & 1


def test_heuristic_picks_its_strongest_suit_and_bids_sensibly():
    game = _game(4, rounds=(5,))
    # seat 1 (left of dealer 0) gets order[0], order[4], ...: R13 R12 R11 W N
    mine = [game.deck.parse(c)[0] for c in ("R13", "R12", "R11", "W1", "N1")]
    rest = [c for c in range(DECK_SIZE) if c not in mine and c != 53]
    order = []
    for c in mine:
        order += [c, rest.pop(), rest.pop(), rest.pop()]
    order.append(53)  # a Wizard turned: the dealer (seat 0) chooses
    order += rest
    s = game.new_state([order])
    assert s.phase == CHOOSE_TRUMP
    s.apply(game.trump0 + 1)  # red
    bid = Heuristic(game).act(Decision(game, s)) - game.bid0
    assert s.current_player == 1 and 3 <= bid <= 4
    assert choose_trump(sum(1 << c for c in mine)) == 1


@pytest.mark.parametrize("n", [3, 4, 5])
def test_heuristic_action_does_not_depend_on_hidden_cards(n):
    """The honesty test: re-deal what the seat cannot see; the action must not change."""
    game = _game(n)
    rng = random.Random(n)
    bots = [Heuristic(game, seed=0), FastHeuristic(game, seed=0)]
    checks = 0
    for s in _states(game, seed=10 + n, every=2):
        seat = s.current_player
        for bot in bots:
            bot.rng = random.Random(7)
            a = bot.act(Decision(game, s))
            for _ in range(2):
                d = game.determinize(s, seat, rng)
                bot.rng = random.Random(7)
                assert bot.act(Decision(game, d)) == a
                checks += 1
    assert checks > 500


def test_make_policy_and_pimc_smoke():
    game = _game(4, rounds=(3, 4))
    h = make_policy("heuristic", game, seed=1)
    assert isinstance(h, Heuristic) and h.name == "heuristic"
    pimc = make_policy("pimc", game, seed=1, worlds=3)
    assert pimc.name == "pimc" and isinstance(pimc.rollout, FastHeuristic)
    bots = [pimc, h, make_policy("random", game, seed=2), h]
    s = game.new_game(3, log=True)
    while not s.over:
        a = bots[s.current_player].act(Decision(game, s))
        assert s.legal_mask() >> a & 1
        s.apply(a)
    assert len(s.round_scores) == 2


def test_seat_metrics_on_a_finished_game():
    game = _game(3, rounds=(2, 5, 7))
    s = game.new_game(4, log=True)
    bot = Heuristic(game)
    while not s.over:
        s.apply(bot.act(Decision(game, s)))
    m = seat_metrics(s)
    assert len(m) == 3 and all(set(d) == set(METRIC_NAMES) for d in m)
    for seat, d in enumerate(m):
        assert 0.0 <= d["bid_hit_rate"] <= 1.0
        assert d["mean_round_score"] * 3 == pytest.approx(s.totals[seat])
        hits = sum(1 for rs in s.round_scores if rs[seat] >= 20)
        assert d["bid_hit_rate"] == pytest.approx(hits / 3)
        assert d["mean_tricks"] * 3 == pytest.approx(
            sum(r["tricks_won"][seat] for r in s.log))
        assert d["mean_abs_bid_error"] >= 0.0
    with pytest.raises(ValueError, match="log"):
        seat_metrics(game.new_game(0))
