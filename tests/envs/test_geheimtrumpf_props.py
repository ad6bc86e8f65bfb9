"""Geheimtrumpf ranking and follow rule against a literal reading of the rule book.

The engine works on precomputed bitmasks and power tables; these tests
restate both rules the slow, obvious way (straight from the rule book's
wording) and compare on random tricks under every trump draw.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from stichzoo.envs.core.tricks import follow_mask
from stichzoo.envs.geheimtrumpf.rules import (
    CARD_SUIT,
    CARD_VALUE,
    NUM_CARDS,
    TRUMPS,
    GeheimtrumpfGame,
    GeheimtrumpfOptions,
    trick_winner,
)

SUITS = list(range(-1, 4))
VALUES = list(range(0, 10))


def _is_tv(c, tv):
    return tv != 0 and CARD_VALUE[c] == tv


def _is_ts(c, ts):
    return ts >= 0 and CARD_SUIT[c] == ts


def naive_winner(cards, ts, tv):
    """1. Obertrumpf; 2. other trump values, first played; 3. trump suit 9..A; 4. led suit."""
    for i, c in enumerate(cards):
        if _is_tv(c, tv) and _is_ts(c, ts):
            return i
    for i, c in enumerate(cards):
        if _is_tv(c, tv):
            return i
    in_trump_suit = [(CARD_VALUE[c], i) for i, c in enumerate(cards) if _is_ts(c, ts)]
    if in_trump_suit:
        return max(in_trump_suit)[1]
    led = CARD_SUIT[cards[0]]
    return max((CARD_VALUE[c], i) for i, c in enumerate(cards) if CARD_SUIT[c] == led)[1]


def naive_legal(hand, led, ts, tv):
    """Trump led: any trump; else the led printed suit without trump cards; else anything."""
    def trump(c):
        return _is_tv(c, tv) or _is_ts(c, ts)

    if trump(led):
        need = [c for c in hand if trump(c)]
    else:
        need = [c for c in hand if not trump(c) and CARD_SUIT[c] == CARD_SUIT[led]]
    return sorted(need or hand)


@settings(max_examples=400, deadline=None)
@given(st.permutations(range(NUM_CARDS)), st.sampled_from(SUITS), st.sampled_from(VALUES),
       st.integers(3, 4))
def test_trick_winner_matches_rule_book(perm, ts, tv, n):
    cards = list(perm[:n])
    assert trick_winner(cards, TRUMPS[(ts, tv)].power) == naive_winner(cards, ts, tv)


@settings(max_examples=400, deadline=None)
@given(st.permutations(range(NUM_CARDS)), st.sampled_from(SUITS), st.sampled_from(VALUES),
       st.integers(1, 9))
def test_follow_rule_matches_rule_book(perm, ts, tv, k):
    led, hand = perm[0], list(perm[1:1 + k])
    t = TRUMPS[(ts, tv)]
    m = 0
    for c in hand:
        m |= 1 << c
    legal = follow_mask(m, t.group[led])
    assert [c for c in range(NUM_CARDS) if (legal >> c) & 1] == naive_legal(hand, led, ts, tv)


def test_every_trump_draw_exhaustively_on_random_tricks():
    rng = random.Random(0)
    for (ts, tv), t in TRUMPS.items():
        for _ in range(60):
            cards = rng.sample(range(NUM_CARDS), 4)
            assert trick_winner(cards, t.power) == naive_winner(cards, ts, tv)


def test_announcements_and_tricks_use_the_same_winner_rule():
    """In random games every row announcement and every trick winner is the ranking's answer."""
    rng = random.Random(1)
    for n in (3, 4):
        game = GeheimtrumpfGame(GeheimtrumpfOptions(num_players=n, round_limit=4))
        for g in range(30):
            s = game.new_game(seed=g, log=True)
            while not (s.over or s.truncated):
                s.step(rng.choice(s.legal_actions()))
            for rnd in s.log:
                ts = "HDSC".index(rnd["trump_suit"]) if rnd["trump_suit"] else -1
                tv = rnd["trump_value"] or 0
                for row in rnd["draft"]:
                    cards = game.deck.parse(row["cards"])
                    assert row["first"] == (rnd["start"] + 1 + row["row"]) % n
                    assert row["winner"] == (row["first"] + naive_winner(cards, ts, tv)) % n
                for trick in rnd["tricks"]:
                    cards = game.deck.parse(trick["cards"])
                    assert trick["winner"] == trick["seats"][naive_winner(cards, ts, tv)]
