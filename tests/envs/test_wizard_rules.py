"""Wizard rules, one test per rule, with hand-built cards (RULES.md section 1)."""

from __future__ import annotations

import random

import pytest

from stichzoo.envs.core.game import IllegalActionError
from stichzoo.envs.core.tricks import Trick
from stichzoo.envs.wizard.rules import (
    BID,
    CHOOSE_TRUMP,
    DECK,
    LEAD_NONE,
    NO_TRUMP,
    PLAY,
    SUITS,
    TRUMP_PENDING,
    WizardGame,
    WizardOptions,
    round_score,
    trick_winner,
)
from tests.helpers import random_playout

B, R, G, Y = range(4)


def cards(text: str) -> list[int]:
    return DECK.parse(text)


def winner(text: str, trump: int) -> int:
    return trick_winner(cards(text), trump)


def play_state(hands: list[str], trump: int = NO_TRUMP, leader: int = 0):
    """A state in the play phase with the given hands (one string per seat)."""
    n = len(hands)
    size = max(len(h.split()) for h in hands)
    game = WizardGame(WizardOptions(num_players=n, rounds=(size,)))
    s = game.new_game(seed=0)
    s.hands = [DECK.mask(h) for h in hands]
    s.trump = trump
    s.phase = PLAY
    s.bids = [0] * n
    s.trick = Trick(leader, n)
    s.follow = LEAD_NONE
    s.played = 0
    s.voids = [0] * n
    s.current_player = leader
    return s


def legal_names(s) -> set[str]:
    return {DECK.names[c] for c in s.legal_actions()}


# -- trick winner ----------------------------------------------------------------


def test_first_wizard_wins():
    assert winner("R5 W Y13 W", trump=R) == 1
    assert winner("W R13 W", trump=R) == 0


def test_trump_beats_led_suit():
    assert winner("B13 R2 B12", trump=R) == 1


def test_highest_trump_wins_among_trumps():
    assert winner("B13 R2 R9 R4", trump=R) == 2


def test_highest_card_of_led_suit_wins_without_trump():
    assert winner("B5 G13 B9 Y12", trump=R) == 2  # G13 neither led nor trump
    assert winner("B5 G13 B9 Y12", trump=NO_TRUMP) == 2


def test_led_suit_is_first_non_jester():
    # the Jester leads, blue is the suit to follow; G13 is off-suit
    assert winner("N B3 G13 B7", trump=NO_TRUMP) == 3


def test_all_jesters_first_jester_wins():
    assert winner("N N N", trump=R) == 0
    assert winner("N N N N", trump=NO_TRUMP) == 0


def test_jesters_then_wizard():
    assert winner("N N W R13", trump=R) == 2


def test_jester_never_wins_against_a_number():
    assert winner("N B1 N", trump=R) == 1


# -- following suit ----------------------------------------------------------------


def test_must_follow_led_suit_wizard_and_jester_free():
    s = play_state(["B5 R1", "B2 R9 W N G4", "Y1 Y2 Y3 Y4 Y5"])
    s.step(DECK.parse_one("B5"))
    assert legal_names(s) == {"B2", "W1", "N1"}


def test_void_may_play_anything():
    s = play_state(["B5 R1", "R9 G4 W", "Y1 Y2 Y3"])
    s.step(DECK.parse_one("B5"))
    assert legal_names(s) == {"R9", "G4", "W1"}
    s.step(DECK.parse_one("G4"))
    assert s.voids[1] == 1 << B  # showing out of blue is public knowledge


def test_led_wizard_frees_the_trick():
    s = play_state(["W R1", "B2 R9 G4", "Y1 Y2 Y3"])
    s.step(DECK.parse_one("W"))
    assert legal_names(s) == {"B2", "R9", "G4"}


def test_led_jester_then_first_number_sets_the_suit():
    s = play_state(["N R1", "G2 R9 B4", "G5 R3 Y3"])
    s.step(DECK.parse_one("N"))
    assert legal_names(s) == {"G2", "R9", "B4"}  # nothing to follow yet
    s.step(DECK.parse_one("G2"))
    assert legal_names(s) == {"G5"}  # green now has to be followed


def test_jesters_then_wizard_frees_the_trick():
    s = play_state(["N R1", "W R9", "G5 R3"])
    s.step(DECK.parse_one("N"))
    s.step(DECK.parse_one("W"))
    assert legal_names(s) == {"G5", "R3"}


def test_wizard_and_jester_always_playable_when_following():
    s = play_state(["R5 B1", "R1 W N", "R2 R3 R4"])
    s.step(DECK.parse_one("R5"))
    assert legal_names(s) == {"R1", "W1", "N1"}


def test_trick_winner_leads_next_and_counts_trick():
    s = play_state(["B5 G1", "B9 G2", "B1 G3"], trump=NO_TRUMP, leader=0)
    for c in ("B5", "B9", "B1"):
        s.step(DECK.parse_one(c))
    assert s.tricks_won == [0, 1, 0]
    assert s.current_player == 1 and s.trick.leader == 1 and s.trick.empty


# -- trump determination ----------------------------------------------------------


def _deal_with_turned(turned: str, n: int = 4, size: int = 2):
    game = WizardGame(WizardOptions(num_players=n, rounds=(size,)))
    order = list(range(60))
    t = DECK.parse_one(turned)
    order.remove(t)
    order.insert(n * size, t)
    return game.new_state([order])


def test_turned_suit_card_sets_trump():
    s = _deal_with_turned("G7")
    assert s.trump == G and s.phase == BID and s.current_player == 1


def test_turned_jester_means_no_trump():
    s = _deal_with_turned("N")
    assert s.trump == NO_TRUMP and s.phase == BID


def test_turned_wizard_dealer_chooses_suit():
    s = _deal_with_turned("W")
    assert s.trump == TRUMP_PENDING and s.phase == CHOOSE_TRUMP
    assert s.current_player == s.dealer == 0
    g = s.game
    assert s.legal_actions() == [g.trump0 + i for i in range(4)]  # no "no trump"
    s.step(g.trump0 + Y)
    assert s.trump == Y and s.phase == BID and s.current_player == 1


def test_last_round_has_no_trump():
    for n in (3, 4, 5, 6):
        game = WizardGame(WizardOptions(num_players=n, rounds=(60 // n,)))
        s = game.new_game(seed=1)
        assert s.trump_card == -1 and s.trump == NO_TRUMP and s.phase == BID


# -- bidding ------------------------------------------------------------------------


def test_bids_start_left_of_dealer_and_range_0_to_r():
    game = WizardGame(WizardOptions(num_players=4, rounds=(3,), first_dealer=2))
    s = game.new_game(seed=5)
    if s.phase == CHOOSE_TRUMP:
        s.step(game.trump0)
    assert s.current_player == 3
    assert s.legal_actions() == [game.bid0 + b for b in range(4)]
    for _ in range(4):
        s.step(game.bid0 + 1)
    assert s.phase == PLAY and s.current_player == 3  # left of dealer leads


def _bidding_state(restriction: bool, others: list[int], size: int = 3):
    game = WizardGame(WizardOptions(num_players=4, rounds=(size,),
                                    dealer_bid_restriction=restriction))
    s = game.new_game(seed=2)
    if s.phase == CHOOSE_TRUMP:
        s.step(game.trump0)
    for b in others:
        s.step(game.bid0 + b)
    assert s.current_player == s.dealer
    return s, game


def test_dealer_restriction_forbids_sum_equal_to_hand_size():
    s, game = _bidding_state(True, [1, 0, 1])
    assert s.legal_actions() == [game.bid0 + b for b in (0, 2, 3)]
    with pytest.raises(IllegalActionError, match="bid 1"):
        s.step(game.bid0 + 1)


def test_dealer_restriction_no_effect_when_sum_already_exceeds():
    s, game = _bidding_state(True, [2, 1, 1])
    assert s.legal_actions() == [game.bid0 + b for b in range(4)]


def test_no_dealer_restriction_by_default():
    s, game = _bidding_state(False, [1, 0, 1])
    assert s.legal_actions() == [game.bid0 + b for b in range(4)]


# -- scoring ----------------------------------------------------------------------------


@pytest.mark.parametrize("bid,tricks,score", [
    (0, 0, 20), (1, 1, 30), (2, 2, 40), (5, 5, 70),
    (1, 3, -20), (3, 0, -30), (0, 2, -20), (4, 3, -10),
])
def test_round_score(bid, tricks, score):
    assert round_score(bid, tricks) == score


def test_round_scored_from_bids_and_tricks():
    s = play_state(["B5", "B9", "B1"], trump=NO_TRUMP)
    s.bids = [0, 1, 1]
    for c in ("B5", "B9", "B1"):
        s.step(DECK.parse_one(c))
    assert s.round_scores[-1] == [20, 30, -10]
    assert s.totals == [20, 30, -10] and s.over


@pytest.mark.parametrize("n,rounds", [(3, 20), (4, 15), (5, 12), (6, 10)])
def test_round_count_per_player_count(n, rounds):
    game = WizardGame(WizardOptions(num_players=n))
    assert game.round_sizes == tuple(range(1, rounds + 1))
    s = random_playout(game.new_game(seed=n, log=True), random.Random(n))
    assert [r["hand_size"] for r in s.log] == list(range(1, rounds + 1))
    assert [r["dealer"] for r in s.log] == [i % n for i in range(rounds)]


def test_equal_totals_share_the_win():
    s = play_state(["B5", "B9", "B1"])
    s.totals = [40, 10, 40]
    assert s.winners() == [0, 2]


# -- options ------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs,msg", [
    ({"num_players": 2}, "num_players"),
    ({"num_players": 7}, "num_players"),
    ({"rounds": [16]}, "rounds"),
    ({"rounds": [0]}, "rounds"),
    ({"rounds": 5}, "rounds"),
    ({"rounds": []}, "rounds"),
    ({"first_dealer": 4}, "first_dealer"),
    ({"dealer_bid_restriction": "yes"}, "dealer_bid_restriction"),
])
def test_bad_options(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        WizardOptions(**{"num_players": 4, **kwargs})


def test_suit_letters_and_deck():
    assert SUITS == "BRGY" and DECK.size == 60
    assert DECK.names[DECK.parse_one("R7")] == "R7"
    assert cards("W W N") == [52, 53, 56]
    with pytest.raises(ValueError, match="unknown card"):
        DECK.parse("X9")
