"""Wunder Punkt random-play fuzz and properties on the rules core.

Thousands of random games check the invariants that must hold whatever is
played: every card in play is in exactly one place, every decision is
legal by construction, round scores match an independent recount, and the
game ends after the right number of rounds and decisions.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from stichzoo.envs.wunder_punkt.rules import (
    CARD_NUMBER,
    CARD_SUIT,
    DECK_SIZE,
    PLAY,
    SORE,
    WunderPunktGame,
    WunderPunktOptions,
    trick_winner,
)

CONFIGS = [(3, False), (4, False), (5, False), (6, False), (3, True)]


def reference_winner(cards: list[int]) -> int:
    """The winner rule written the other way round: rank candidates by (number, -position)."""
    led = CARD_SUIT[cards[0]]
    non_aces = [(CARD_NUMBER[c], -i, CARD_SUIT[c] != led) for i, c in enumerate(cards)
                if CARD_NUMBER[c] > 0]
    foreign = [x for x in non_aces if x[2]]
    pool = foreign or non_aces
    return -max(pool)[1] if pool else -1


def reference_score(won: int, sore_card: int) -> int:
    sore = CARD_SUIT[sore_card]
    total = 0
    for c in range(DECK_SIZE):
        if (won | 1 << sore_card) >> c & 1:
            total += -CARD_NUMBER[c] if CARD_SUIT[c] == sore else 1
    return total


@settings(max_examples=400, deadline=None)
@given(st.integers(3, 6).flatmap(
    lambda n: st.lists(st.integers(0, DECK_SIZE - 1), min_size=n, max_size=n, unique=True)))
def test_trick_winner_matches_reference(cards):
    assert trick_winner(cards) == reference_winner(cards)


def check_conservation(s, used: int) -> None:
    places = [*s.hands, *s.won, s.removed, sum(1 << c for c in s.trick.cards)]
    places += [1 << c for c in s.sore_cards if c >= 0]
    union = 0
    for p in places:
        assert union & p == 0, "a card is in two places"
        union |= p
    assert union == used, "a card went missing"


def test_random_play_invariants():
    rng = random.Random(2024)
    games = 0
    all_ace_tricks = 0
    for k in range(1500):
        n, larger = CONFIGS[k % len(CONFIGS)]
        rounds = None if k % 3 else 1 + k % 4
        g = WunderPunktGame(WunderPunktOptions(num_players=n, larger_hands=larger, rounds=rounds,
                                               first_dealer=k % n))
        s = g.new_game(seed=k, log=True)
        used = g.used
        decisions = 0
        while not s.over:
            legal = s.legal_mask()
            seat = s.current_player
            assert legal, "someone to act without a legal action"
            if s.phase == SORE:
                assert legal == s.hands[seat] << DECK_SIZE
            else:
                assert s.phase == PLAY and legal == s.hands[seat]
                if not s.trick.cards:
                    check_conservation(s, used)
                    assert len({h.bit_count() for h in s.hands}) == 1
            s.apply(rng.choice(s.legal_actions()))
            decisions += 1
        games += 1
        assert len(s.round_scores) == g.num_rounds
        assert decisions == g.num_rounds * n * g.hand_size
        assert [sum(col) for col in zip(*s.round_scores)] == s.totals
        for r, rec in enumerate(s.log):
            assert len(rec["tricks"]) == g.hand_size - 1
            won = [sum(1 << c for c in g.deck.parse(w)) for w in rec["won"]]
            sore = g.deck.parse(rec["sore_cards"])
            assert [reference_score(w, c) for w, c in zip(won, sore)] == rec["scores"]
            assert rec["scores"] == s.round_scores[r]
            for t in rec["tricks"]:
                ref = reference_winner(g.deck.parse(t["cards"]))
                assert t["winner"] == (None if ref < 0 else t["seats"][ref])
                all_ace_tricks += t["winner"] is None
            removed = sum(1 << c for c in g.deck.parse(rec["removed"]))
            assert removed.bit_count() == n * sum(t["winner"] is None for t in rec["tricks"])
        assert s.winners() == [p for p in range(n) if s.totals[p] == max(s.totals)]
    assert games == 1500
    assert all_ace_tricks > 0  # the all-Ace path was exercised
