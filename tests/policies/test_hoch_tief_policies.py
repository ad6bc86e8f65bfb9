"""Hoch & Tief bots: determinize, the heuristic (legal, honest), PIMC, metrics."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.hoch_tief import rules
from stichzoo.envs.hoch_tief.encode import HochTiefEncoder
from stichzoo.envs.hoch_tief.metrics import METRIC_NAMES, seat_metrics
from stichzoo.envs.hoch_tief.rules import HochTiefGame, HochTiefOptions
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision, RandomPolicy
from stichzoo.policies.games.hoch_tief import SEARCH_DEFAULTS, Heuristic, search_value


def _game(n, rounds=None):
    return HochTiefGame(HochTiefOptions(num_players=n, rounds=rounds))


def _obs(enc, state, seat):
    out = np.zeros(enc.layout.size, np.float32)
    enc.encode(state, seat, out)
    return out


def _void_mask(state, p):
    t = state.lookups
    return sum(t.suit_mask[s] for s in range(5) if state.voids[p] >> s & 1)


def _states(n, games, seed, rounds=1):
    """Every decision state of ``games`` random games (clones)."""
    game = _game(n, rounds)
    rng = random.Random(seed)
    for g in range(games):
        s = game.new_game(seed + g)
        while not s.over:
            yield game, s.clone()
            s.apply(rng.choice(s.legal_actions()))


@pytest.mark.parametrize("n", [3, 4, 6])
def test_determinize_keeps_the_view_and_is_consistent(n):
    rng = random.Random(n)
    checks = 0
    for game, s in _states(n, 2, seed=10 * n):
        enc = HochTiefEncoder(game)
        for seat in (s.current_player, (s.current_player + 1) % n):
            d = game.determinize(s, seat, rng)
            assert d is not s and d.log is None
            assert np.array_equal(_obs(enc, s, seat), _obs(enc, d, seat))
            assert d.hands[seat] == s.hands[seat]
            assert d.taken == s.taken and d.voids == s.voids
            if seat == s.current_player:
                assert d.legal_mask() == s.legal_mask()
            # same cards in the other hands, same sizes, observed voids kept
            pool = pool_d = 0
            for p in range(n):
                assert d.hands[p].bit_count() == s.hands[p].bit_count()
                if p != seat:
                    pool |= s.hands[p]
                    pool_d |= d.hands[p]
                    assert not d.hands[p] & _void_mask(s, p)
            assert pool == pool_d
            # the current deck order deals the new hands plus the cards played this round
            order = d.deck_orders[d.round_index]
            assert sorted(order) == list(range(15 * n))
            played = d.tricks_played * n + len(d.trick.cards)
            dealt = d.hands[:]
            for p, c in d.history[len(d.history) - played:]:
                dealt[p] |= 1 << c
            for k, c in enumerate(order):
                assert dealt[(d.dealer + 1 + k) % n] >> c & 1
            checks += 1
    assert checks == 2 * 2 * 15 * n


def test_determinize_varies_hidden_cards_and_future_deals():
    game = _game(4)
    s = game.new_game(3)
    rng = random.Random(0)
    for _ in range(10):
        s.apply(rng.choice(s.legal_actions()))
    seen = Counter()
    for _ in range(30):
        d = game.determinize(s, s.current_player, rng)
        seen[(tuple(d.hands), tuple(d.deck_orders[1:]))] += 1
        assert d.deck_orders[0] != s.deck_orders[0] or d.hands == s.hands
    assert len(seen) == 30
    # the state itself is untouched
    assert s.deck_orders == game.new_game(3).deck_orders


def test_determinize_after_the_game_is_a_plain_copy():
    game = _game(3, rounds=1)
    s = game.new_game(1)
    rng = random.Random(1)
    while not s.over:
        s.apply(rng.choice(s.legal_actions()))
    d = game.determinize(s, 0, rng)
    assert d.over and d.totals == s.totals and d.hands == s.hands


def _small_case():
    t = rules.lookups(3)
    pool = sum(1 << c for c in (0, 1, 2, 9, 10, 18, 19))  # A1 A2 A3 B1 B2 C1 C2
    sizes = [2, 2, 3]
    banned = [t.suit_mask[0] & pool, (t.suit_mask[0] | t.suit_mask[1]) & pool, 0]
    return t, pool, sizes, banned


def _all_valid(pool, sizes, banned):
    import itertools
    cards = bit_list(pool)
    out = set()
    for perm in itertools.permutations(cards):
        hands, i = [], 0
        for k in sizes:
            hands.append(sum(1 << c for c in perm[i:i + k]))
            i += k
        if not any(h & b for h, b in zip(hands, banned)):
            out.add(tuple(hands))
    return out


@pytest.mark.parametrize("dealer", ["exact", "mixed", "rejection"])
def test_constrained_deals_are_uniform_over_the_valid_deals(dealer):
    t, pool, sizes, banned = _small_case()
    valid = _all_valid(pool, sizes, banned)
    fn = {"exact": rules._exact_deal, "mixed": rules._mixed_deal,
          "rejection": rules.constrained_deal}[dealer]
    rng = random.Random(7)
    draws = 200 * len(valid)
    counts = Counter(tuple(fn(pool, sizes, banned, t, rng)) for _ in range(draws))
    assert set(counts) == valid
    assert min(counts.values()) > 120 and max(counts.values()) < 280


def test_exact_deal_gives_up_to_the_mixed_deal_when_counting_is_too_costly(monkeypatch):
    t, pool, sizes, banned = _small_case()
    monkeypatch.setattr(rules, "_COUNT_BUDGET", 0)
    monkeypatch.setattr(rules, "_REJECTION_TRIES", 0)
    with pytest.raises(rules._TooHard):
        rules._exact_deal(pool, sizes, banned, t, random.Random(0))
    hands = rules.constrained_deal(pool, sizes, banned, t, random.Random(0))
    assert tuple(hands) in _all_valid(pool, sizes, banned)


def test_impossible_voids_are_refused():
    t = rules.lookups(3)
    pool = 0b11  # A1 A2 to a hand void in A
    with pytest.raises(ValueError, match="voids"):
        rules._exact_deal(pool, [2], [pool], t, random.Random(0))
    with pytest.raises(ValueError, match="voids"):
        rules._mixed_deal(pool, [2], [pool], t, random.Random(0))


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_heuristic_plays_legal_cards(n):
    game = _game(n)
    for g in range(3):
        bots = [Heuristic(game, seed=g) if (p + g) % 2 == 0 else RandomPolicy(g)
                for p in range(n)]
        s = game.new_game(g)
        while not s.over:
            p = s.current_player
            a = bots[p].act(Decision(game, s))
            assert a in s.legal_actions()
            s.apply(a)
        assert len(s.round_scores) == n


@pytest.mark.parametrize("n", [3, 4, 6])
def test_heuristic_is_honest(n):
    """The action must not change when what the seat cannot see is re-dealt."""
    rng = random.Random(100 + n)
    bot_a = Heuristic(_game(n), seed=0)
    bot_b = Heuristic(_game(n), seed=0)
    checks = 0
    for game, s in _states(n, 2, seed=n):
        seat = s.current_player
        d = game.determinize(s, seat, rng)
        assert bot_a.act(Decision(game, s)) == bot_b.act(Decision(game, d))
        checks += 1
    assert checks == 2 * 15 * n


def test_search_value_is_the_margin():
    game = _game(4, rounds=1)
    s = game.new_game(5)
    root = s.clone()
    rng = random.Random(0)
    while not s.over:
        s.apply(rng.choice(s.legal_actions()))
    v = search_value(root, s, 0)
    assert v == pytest.approx(s.totals[0] - sum(s.totals[1:]) / 3)


def test_make_policy_and_pimc_smoke():
    game = _game(3, rounds=1)
    h = make_policy("heuristic", game, seed=1)
    assert h.name == "heuristic"
    assert make_policy("pimc", game).worlds == SEARCH_DEFAULTS["worlds"]
    pimc = make_policy("pimc", game, seed=1, worlds=2)
    assert pimc.name == "pimc" and pimc.worlds == 2
    s = game.new_game(2)
    bots = [pimc, h, make_policy("random", game, seed=3)]
    while not s.over:
        a = bots[s.current_player].act(Decision(game, s))
        assert a in s.legal_actions()
        s.apply(a)
    assert s.over


def test_seat_metrics_on_a_finished_game():
    game = _game(4)
    s = game.new_game(9, log=True)
    bots = [Heuristic(game) for _ in range(4)]
    while not s.over:
        s.apply(bots[s.current_player].act(Decision(game, s)))
    ms = seat_metrics(s)
    assert len(ms) == 4
    for seat, m in enumerate(ms):
        assert set(m) == set(METRIC_NAMES)
        assert m["mean_round_score"] == pytest.approx(s.totals[seat] / 4)
        assert 0 <= m["three_plus_suits"] <= 5
    # every card of every round is taken by somebody
    assert sum(m["mean_cards_taken"] for m in ms) == pytest.approx(60)
    with pytest.raises(ValueError, match="log"):
        seat_metrics(game.new_game(9))


def test_seat_metrics_counts_three_plus_suits():
    game = _game(3, rounds=1)
    s = game.new_game(0, log=True)
    s.log[-1]["taken"] = [["A1", "A2", "A3", "B9"], ["C9"], []]
    s.log[-1]["scores"] = [12, 9, 0]
    ms = seat_metrics(s)
    assert ms[0] == {"mean_round_score": 12.0, "three_plus_suits": 1.0, "mean_cards_taken": 4.0}
    assert ms[2]["mean_cards_taken"] == 0.0
