"""Wunder Punkt rules, one test per rule, with hand-built cards (RULES.md section 2).

The seed's worked examples (three tricks, two scores) appear verbatim, with
Anna, Ben, Carla and Dan at seats 0, 1, 2, 3.
"""

from __future__ import annotations

import random

import pytest

from stichzoo.envs.core.game import IllegalActionError, build_options
from stichzoo.envs.wunder_punkt.rules import (
    CARD_NUMBER,
    CARD_SUIT,
    DECK,
    DECK_SIZE,
    GAME_OVER,
    PLAY,
    SORE,
    WunderPunktGame,
    WunderPunktOptions,
    card_points,
    round_score,
    trick_winner,
    used_cards,
)
from tests.helpers import random_playout

C, D, H, S = range(4)
ANNA, BEN, CARLA, DAN = range(4)


def cards(text: str) -> list[int]:
    return DECK.parse(text)


def winner(text: str) -> int:
    return trick_winner(cards(text))


def game(**opts) -> WunderPunktGame:
    return WunderPunktGame(WunderPunktOptions(**opts))


def names(mask: int) -> set[str]:
    return set(DECK.format_mask(mask))


def sore_action(card: str) -> int:
    return DECK_SIZE + DECK.parse_one(card)


# -- cards --------------------------------------------------------------------------


def test_card_numbers_ace_zero_court_cards_11_to_13():
    assert [CARD_NUMBER[c] for c in cards("Ah 2h 3h 9h 10h Jh Qh Kh")] == [0, 2, 3, 9, 10, 11,
                                                                         12, 13]
    assert 1 not in CARD_NUMBER
    assert sorted(set(CARD_NUMBER)) == [0, *range(2, 14)]


def test_card_notation_aliases():
    assert DECK.parse("Th") == DECK.parse("10h")
    assert DECK.parse("9♦ K♦ 7♠ 4♥ Q♣") == cards("9d Kd 7s 4h Qc")
    assert CARD_SUIT[DECK.parse_one("Ks")] == S


@pytest.mark.parametrize(
    ("n", "larger", "top", "count", "per_player"),
    [(3, False, "9", 36, 12), (4, False, "K", 52, 13), (5, False, "10", 40, 8),
     (6, False, "Q", 48, 8), (3, True, "Q", 48, 16)],
)
def test_cards_in_play_per_player_count(n, larger, top, count, per_player):
    used = used_cards(n, larger)
    assert used.bit_count() == count
    order = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    ranks = order[: order.index(top) + 1]
    assert names(used) == {r + s for r in ranks for s in "cdhs"}
    g = game(num_players=n, larger_hands=larger)
    s = g.new_game(seed=3)
    assert [h.bit_count() for h in s.hands] == [per_player] * n
    union = 0
    for h in s.hands:
        assert union & h == 0
        union |= h
    assert union == used  # all cards in play are dealt


def test_deal_one_card_at_a_time_starting_left_of_dealer():
    g = game(num_players=4, first_dealer=2)
    orders = g.deal(random.Random(5))
    s = g.new_state(orders)
    first = orders[0]
    assert (s.hands[3] >> first[0]) & 1  # left of dealer 2 is seat 3
    assert (s.hands[0] >> first[1]) & 1
    assert (s.hands[2] >> first[3]) & 1  # the dealer gets the 4th card


# -- options ------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 7, 0, "4", True])
def test_bad_player_count(n):
    with pytest.raises(ValueError, match="num_players"):
        WunderPunktOptions(num_players=n)


def test_larger_hands_only_for_three_players():
    with pytest.raises(ValueError, match="larger_hands"):
        WunderPunktOptions(num_players=4, larger_hands=True)
    with pytest.raises(ValueError, match="larger_hands"):
        WunderPunktOptions(num_players=3, larger_hands="yes")


@pytest.mark.parametrize("rounds", [0, -1, 101, 2.5, "3", [3]])
def test_bad_rounds(rounds):
    with pytest.raises(ValueError, match="rounds"):
        WunderPunktOptions(num_players=4, rounds=rounds)


def test_bad_first_dealer():
    with pytest.raises(ValueError, match="first_dealer"):
        WunderPunktOptions(num_players=3, first_dealer=3)


def test_unknown_option_named():
    with pytest.raises(ValueError, match="'trump'"):
        build_options(WunderPunktOptions, "wunder_punkt", {"trump": 1})


def test_bad_deck_order_refused():
    g = game(num_players=3)
    orders = g.deal(random.Random(0))
    orders[1] = [*orders[1][:-1], DECK.parse_one("Kh")]  # Kh is not in play with 3
    with pytest.raises(ValueError, match="deck order"):
        g.new_state(orders)
    with pytest.raises(ValueError, match="deck orders needed"):
        g.new_state(orders[:1])


# -- the sore suit ----------------------------------------------------------------------


def test_picks_start_left_of_dealer_and_dealer_picks_last():
    g = game(num_players=4, first_dealer=1)
    s = g.new_game(seed=0)
    assert s.phase == SORE
    order = []
    while s.phase == SORE:
        order.append(s.current_player)
        s.step(s.legal_actions()[0])
    assert order == [2, 3, 0, 1]
    assert s.phase == PLAY
    assert s.current_player == 2  # left of the dealer leads the first trick


def test_sore_pick_legal_actions_are_the_hand_in_the_sore_range():
    g = game(num_players=3)
    s = g.new_game(seed=1)
    seat = s.current_player
    assert s.legal_mask() == s.hands[seat] << DECK_SIZE
    assert all(a >= DECK_SIZE for a in s.legal_actions())
    with pytest.raises(IllegalActionError):
        s.step(s.legal_actions()[0] - DECK_SIZE)  # a play action during the pick


def test_picked_card_leaves_the_hand_and_sets_the_sore_suit():
    g = game(num_players=4)
    s = g.position(["2h 5c 9d", "3s 4s 5s", "7d 8d 9c", "Ah Kh Qs"])
    assert s.phase == SORE and s.current_player == 1
    s.step(sore_action("4s"))
    assert names(s.hands[1]) == {"3s", "5s"}
    assert s.sore_cards[1] == DECK.parse_one("4s")
    assert s.sore_suit(1) == S
    assert not s.sore_revealed()


def test_picks_revealed_at_once_when_all_have_picked():
    g = game(num_players=3)
    s = g.new_game(seed=2, log=True)
    for _ in range(2):
        s.step(s.legal_actions()[0])
        assert not s.sore_revealed()
        assert s.log[-1]["sore_cards"] is None  # the record reveals nothing early
    s.step(s.legal_actions()[-1])
    assert s.sore_revealed()
    assert s.log[-1]["sore_cards"] == DECK.format(s.sore_cards)


def test_players_may_share_a_sore_suit():
    g = game(num_players=3)
    s = g.position(["2h 5c", "3h 4s", "7h 8d"])
    for card in ("3h", "7h", "2h"):
        s.step(sore_action(card))
    assert [s.sore_suit(p) for p in range(3)] == [H, H, H]
    assert s.phase == PLAY


# -- no follow rule -----------------------------------------------------------------


def test_every_card_in_hand_is_legal():
    g = game(num_players=3)
    s = g.position(["2h 5c", "3h 4s 9h", "7h 8d"], ["Ac", "Ad", "Ah"], leader=0, trick="2h")
    assert s.current_player == 1
    assert set(DECK.format(s.legal_actions())) == {"3h", "4s", "9h"}  # 4s though hearts held


def test_every_card_legal_when_leading():
    g = game(num_players=3)
    s = g.position(["2h 5c Kd", "3h", "7h"], ["Ac", "Ad", "Ah"], leader=0)
    assert s.legal_mask() == s.hands[0]


# -- trick winner -----------------------------------------------------------------------


def test_seed_example_1_foreign_suit_beats_led_suit():
    # Anna leads 9d; Ben 4h, Carla Kd, Dan 7s: the higher foreign card, Dan's 7s, wins.
    assert winner("9♦ 4♥ K♦ 7♠") == DAN


def test_seed_example_2_equal_numbers_first_played_wins():
    # Dan leads Qc; Anna 6h, Ben 6s, Carla Ad: Anna played her 6 first and wins.
    assert winner("Q♣ 6♥ 6♠ A♦") == 1  # position 1 of a trick led by Dan = Anna


def test_seed_example_3_only_led_suit_highest_wins():
    # Anna leads 8c; Ben 10c, Carla Ah, Dan 5c: the Ace does not count, 10c wins.
    assert winner("8♣ 10♣ A♥ 5♣") == BEN


def test_seed_example_2_through_the_engine_anna_takes_her_own_sore_card():
    g = game(num_players=4)
    s = g.position(["6h 2c", "6s 2d", "Ad 3c", "Qc 3d"], ["2h", "As", "5c", "4c"],
                   leader=DAN)
    for card in ("Qc", "6h", "6s", "Ad"):
        s.step(DECK.parse_one(card))
    assert names(s.won[ANNA]) == {"Qc", "6h", "6s", "Ad"}
    assert s.current_player == ANNA  # the winner leads the next trick
    assert card_points(s.won[ANNA], H) == 3 - 6


def test_highest_foreign_number_wins_whatever_its_suit():
    assert winner("5c 9d 10h 2s") == 2
    assert winner("Kc 3d 2h Qs") == 3  # Kc is led: foreign Qs beats it


def test_foreign_tie_first_played_wins():
    assert winner("2c 8d 8h 8s") == 1
    assert winner("2c 3d 8h 8s") == 2


def test_highest_led_card_wins_without_foreign_cards():
    assert winner("5c 9c 2c") == 1
    assert winner("Kc 9c 2c") == 0


def test_aces_never_win():
    assert winner("5c Ad Ah As") == 0  # foreign Aces are passed over
    assert winner("Ac 2c Ah") == 1  # the led Ace does not win either
    assert winner("Ad Ac 2c Ah") == 2  # led suit d; 2c is a foreign non-Ace


def test_led_suit_is_the_first_card_even_when_an_ace():
    # Led suit clubs (the Ace): 5h is foreign and beats the higher club 9c.
    assert winner("Ac 5h 9c") == 1
    assert winner("Ac 9c Kc") == 2  # only the led suit: the highest club wins


def test_all_aces_nobody_wins():
    assert winner("Ac Ad Ah") == -1
    assert winner("Ah Ac Ad As") == -1


def test_all_aces_trick_leaves_the_game_and_the_same_player_leads_again():
    g = game(num_players=3)
    s = g.position(["Ac 2c", "Ad 3d", "Ah 4h"], ["9c", "9d", "9h"], leader=1, won=["", "", ""])
    hands_before = sum(h.bit_count() for h in s.hands)
    for card in ("Ad", "Ah", "Ac"):
        s.step(DECK.parse_one(card))
    assert names(s.removed) == {"Ac", "Ad", "Ah"}
    assert s.won == [0, 0, 0]
    assert s.current_player == 1 and s.trick.leader == 1 and not s.trick.cards
    assert sum(h.bit_count() for h in s.hands) == hands_before - 3
    # card conservation: hands + won + removed + sore cards hold every card once
    total = s.removed | sum(s.hands) | sum(s.won) | sum(1 << c for c in s.sore_cards)
    assert total.bit_count() == 3 + 3 + 3


def test_all_aces_trick_in_a_real_deal_conserves_cards():
    g = game(num_players=3)
    orders = g.deal(random.Random(0))
    # deal Ac, Ad, Ah first in round 0: seats 1, 2 and 0 each get one Ace
    aces = cards("Ac Ad Ah")
    order = [c for c in orders[0] if c not in aces]
    orders[0] = aces + order  # left of dealer 0 is seat 1: seat 1 Ac, seat 2 Ad, seat 0 Ah
    s = g.new_state(orders, log=True)
    while s.phase == SORE:  # lay a non-Ace
        s.step(next(a for a in s.legal_actions() if CARD_NUMBER[a - DECK_SIZE] > 0))
    for card in ("Ac", "Ad", "Ah"):
        s.step(DECK.parse_one(card))
    assert s.current_player == 1 and s.trick.leader == 1
    assert s.log[-1]["tricks"][0]["winner"] is None
    used = g.used
    total = s.removed | sum(s.won) | sum(1 << c for c in s.sore_cards)
    for h in s.hands:
        total |= h
    assert total == used
    random_playout(s, random.Random(1))
    assert s.log[0]["removed"] == ["Ac", "Ad", "Ah"]


def test_winner_takes_all_cards_aces_included():
    g = game(num_players=3)
    s = g.position(["5c 2d", "Ah 3d", "9d 4d"], ["Kc", "Kd", "Kh"], leader=0)
    for card in ("5c", "Ah", "9d"):
        s.step(DECK.parse_one(card))
    assert names(s.won[2]) == {"5c", "Ah", "9d"}
    assert s.current_player == 2


# -- scoring ------------------------------------------------------------------------------

OTHER_14 = "2c 3c 4c 5c 6c 7c 8c 9c 2d 3d 4d 5d 6d 7d"
OTHER_10 = "2c 3c 4c 5c 6c 7c 8c 9c 2d 3d"


def test_seed_scoring_example_anna_minus_4():
    # Anna (sore hearts) laid 2h, won 6h, 10h and 14 cards of other suits: -2-6-10+14 = -4.
    won = DECK.mask(f"6h 10h {OTHER_14}")
    assert round_score(won, DECK.parse_one("2h")) == -4


def test_seed_scoring_example_ben_minus_2():
    # Ben (sore spades) laid As, won 3s, 9s and 10 other cards: 0-3-9+10 = -2.
    won = DECK.mask(f"3s 9s {OTHER_10}")
    assert round_score(won, DECK.parse_one("As")) == -2


def test_sore_cards_count_minus_their_number():
    assert card_points(DECK.mask("Kh Qh Jh 10h"), H) == -(13 + 12 + 11 + 10)


def test_sore_ace_costs_nothing():
    assert card_points(DECK.mask("Ah"), H) == 0
    assert round_score(0, DECK.parse_one("Ah")) == 0


def test_other_suits_count_plus_one_whatever_the_number():
    assert card_points(DECK.mask("Kc Ad 2s Qs"), H) == 4


def test_laid_sore_card_counts_even_with_no_tricks():
    assert round_score(0, DECK.parse_one("Kd")) == -13


def test_round_end_scores_totals_and_rewards():
    g = game(num_players=3, rounds=2)
    s = g.position(["5c", "3d", "9d"], ["Kc", "2d", "Ah"], leader=0,
                   won=["", "4d 7d Qc", "Ks"])
    for card in ("5c", "3d", "9d"):
        s.step(DECK.parse_one(card))
    # 9d wins (foreign vs led clubs, higher than 3d): seat 2 takes 5c 3d 9d, plus Ks, sore Ah
    expected = [-13, -2 - 4 - 7 + 1, 0 + 4]
    assert s.last_deltas == expected
    assert s.totals == expected
    assert s.round_scores == [expected]
    assert s.round_index == 1 and s.dealer == 1  # the deal moves one seat left
    assert s.phase == SORE and s.current_player == 2


# -- the game ------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_rounds_default_to_number_of_players_and_dealer_moves_left(n):
    g = game(num_players=n, first_dealer=n - 1)
    s = g.new_game(seed=n, log=True)
    random_playout(s, random.Random(n))
    assert [r["dealer"] for r in s.log] == [(n - 1 + r) % n for r in range(n)]
    assert len(s.round_scores) == n
    assert s.phase == GAME_OVER and s.current_player == -1 and s.legal_mask() == 0


def test_fixed_number_of_rounds():
    g = game(num_players=5, rounds=2)
    s = random_playout(g.new_game(seed=0), random.Random(0))
    assert len(s.round_scores) == 2


def test_winners_highest_total_ties_share():
    g = game(num_players=4)
    s = g.new_game(seed=0)
    s.totals = [3, 7, -2, 7]
    assert s.winners() == [1, 3]
    s.totals = [-5, -1, -9, -3]
    assert s.winners() == [1]


def test_illegal_action_raises_names_it_and_changes_nothing():
    g = game(num_players=3)
    s = g.position(["2h 5c", "3h 4s", "7h 8d"], ["Ac", "Ad", "Ah"], leader=0)
    before = (s.hands[:], s.history[:], s.trick.cards[:], s.current_player)
    with pytest.raises(ValueError) as e:
        s.step(DECK.parse_one("3h"))
    msg = str(e.value)
    assert "3h" in msg and "player_0" in msg and "2h" in msg and "5c" in msg
    assert (s.hands, s.history, s.trick.cards, s.current_player) == before
    with pytest.raises(IllegalActionError):
        s.step(sore_action("2h"))  # a pick in the play phase
    with pytest.raises(IllegalActionError):
        s.step(2 * DECK_SIZE)


def test_action_labels_round_trip():
    g = game(num_players=4)
    assert g.num_actions == 104
    assert g.action_label(DECK.parse_one("10h")) == "10h"
    assert g.action_label(sore_action("Qs")) == "sore Qs"
    assert g.parse_action("sore Qs") == sore_action("Qs")


def test_same_seed_same_game():
    g = game(num_players=4)
    a = random_playout(g.new_game(seed=11), random.Random(4))
    b = random_playout(g.new_game(seed=11), random.Random(4))
    assert a.history == b.history and a.totals == b.totals
    c = g.new_game(seed=12)
    assert c.hands != g.new_game(seed=11).hands


def test_clone_is_independent():
    g = game(num_players=4)
    s = g.new_game(seed=3)
    for _ in range(10):
        s.step(s.legal_actions()[0])
    c = s.clone()
    assert c.log is None
    c.step(c.legal_actions()[0])
    assert len(s.history) == 10 and len(c.history) == 11
    assert s.hands != c.hands or s.trick.cards != c.trick.cards
