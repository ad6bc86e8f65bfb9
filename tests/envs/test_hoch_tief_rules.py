"""Hoch & Tief rules, one test per rule, with hand-built cards (RULES.md section 4)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stichzoo.envs.core.game import IllegalActionError
from stichzoo.envs.core.tricks import Trick
from stichzoo.envs.hoch_tief.rules import (
    GAME_OVER,
    HAND_SIZE,
    PLAY,
    HochTiefGame,
    HochTiefOptions,
    high_low,
    lookups,
    score_taken,
)


def game(n: int = 3, **kw) -> HochTiefGame:
    return HochTiefGame(HochTiefOptions(num_players=n, **kw))


def names(n: int, mask: int) -> set[str]:
    return set(lookups(n).deck.format_mask(mask))


def play_state(hands: list[str], leader: int = 0, trick: str = "", taken=None, **kw):
    """A play-phase state with the given hands (one string per seat).

    ``trick``: cards already played to the current trick, starting with the
    leader's.  ``taken``: face-up cards per seat.
    """
    n = len(hands)
    g = game(n, **kw)
    deck = g.deck
    s = g.new_game(seed=0)
    s.hands = [deck.mask(h) for h in hands]
    s.taken = [deck.mask(t) for t in taken] if taken else [0] * n
    s.voids = [0] * n
    cards = deck.parse(trick)
    s.trick = Trick(leader, n, cards)
    s.current_player = (leader + len(cards)) % n
    return s


def play(s, *cards: str) -> None:
    """Play cards in turn (checked)."""
    for c in cards:
        s.step(s.game.deck.parse_one(c))


def legal_names(s) -> set[str]:
    return {s.game.deck.names[c] for c in s.legal_actions()}


# -- the deck -------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_deck_uses_numbers_1_to_3n_in_five_suits(n):
    t = lookups(n)
    assert t.size == 5 * 3 * n == HAND_SIZE * n
    assert t.deck.names[0] == "A1"
    assert t.deck.names[-1] == f"E{3 * n}"
    assert {name[0] for name in t.deck.names} == set("ABCDE")
    assert max(t.number) == 3 * n and min(t.number) == 1


def test_card_notation_depends_on_player_count():
    assert lookups(3).deck.parse("A9 E1") == [8, 36]
    assert lookups(4).deck.parse("A10 e12") == [9, 59]  # case-insensitive
    with pytest.raises(ValueError, match="A10"):
        lookups(3).deck.parse("A10")  # 3 players use 1..9 only


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_deal_gives_everybody_15_cards_and_uses_all(n):
    s = game(n).new_game(seed=n)
    assert [h.bit_count() for h in s.hands] == [HAND_SIZE] * n
    union = 0
    for h in s.hands:
        assert not union & h
        union |= h
    assert union == s.game.deck.full_mask


def test_deal_starts_left_of_dealer_one_card_at_a_time():
    g = game(3)
    order = list(range(45))
    s = g.new_state([order] * 3)
    assert s.dealer == 0
    assert s.hands[1] & 1  # the first card (A1) goes to the dealer's left
    assert s.hands[1] == sum(1 << c for c in range(0, 45, 3))
    assert s.hands[2] == sum(1 << c for c in range(1, 45, 3))
    assert s.hands[0] == sum(1 << c for c in range(2, 45, 3))


def test_left_of_dealer_leads_first_and_dealer_rotates_left():
    s = game(4, first_dealer=2).new_game(seed=1)
    assert s.dealer == 2 and s.current_player == 3 and s.trick.leader == 3
    rng = random.Random(0)
    while s.round_index == 0:
        s.step(rng.choice(s.legal_actions()))
    assert s.dealer == 3 and s.current_player == 0


def test_default_rounds_is_player_count_and_option_overrides():
    assert game(5).num_rounds == 5
    assert game(5, rounds=2).num_rounds == 2


# -- following suit ---------------------------------------------------------------


def test_leader_may_lead_any_card():
    s = play_state(["A1 B5 C9", "A2 B6 C8", "A3 B7 C7"])
    assert legal_names(s) == {"A1", "B5", "C9"}


def test_must_follow_led_suit():
    s = play_state(["A1 B5 C9", "A2 B6 C8", "A3 B7 C7"], trick="B5")
    assert legal_names(s) == {"B6"}


def test_void_in_led_suit_may_play_any_card():
    s = play_state(["A1 B5 C9", "A2 A4 C8", "A3 B7 C7"], trick="B5")
    assert legal_names(s) == {"A2", "A4", "C8"}


def test_follow_means_suit_not_number():
    # A high number of another suit does not count as following
    s = play_state(["A1 B5 C9", "B9 D5 A5", "A3 B7 C7"], trick="D1")
    assert legal_names(s) == {"D5"}


def test_illegal_card_raises_and_changes_nothing():
    s = play_state(["A1 B5 C9", "A2 B6 C8", "A3 B7 C7"], trick="B5")
    before = (s.hands[:], s.trick.cards[:], s.current_player, s.history[:])
    with pytest.raises(IllegalActionError) as e:
        play(s, "A2")
    msg = str(e.value)
    assert "A2" in msg and "player_1" in msg and "B6" in msg
    assert (s.hands, s.trick.cards, s.current_player, s.history) == (
        before[0], before[1], before[2], before[3])
    with pytest.raises(IllegalActionError):
        s.step(99)  # no such card
    with pytest.raises(IllegalActionError):
        s.step(s.game.deck.parse_one("A3"))  # not in player_1's hand


def test_showing_out_is_recorded_as_a_void():
    s = play_state(["A1 B5", "A2 C8", "B3 B7"], trick="B5")
    play(s, "C8")
    assert s.voids[1] == 1 << 1  # suit B
    assert s.voids[2] == 0


# -- highest and lowest card --------------------------------------------------------


def test_highest_and_lowest_ignore_suits():
    # A3, E9, C1: E9 highest although A was led, C1 lowest
    assert high_low([3, 9, 1]) == (1, 2)


def test_tie_for_highest_last_played_counts_highest():
    assert high_low([9, 2, 9]) == (2, 1)
    assert high_low([9, 9, 2, 5]) == (1, 2)


def test_tie_for_lowest_last_played_counts_lowest():
    assert high_low([1, 8, 1]) == (1, 2)
    assert high_low([2, 2, 8, 5]) == (2, 1)


def test_all_equal_last_card_is_highest_and_lowest():
    assert high_low([4, 4, 4]) == (2, 2)
    assert high_low([7, 7, 7, 7, 7]) == (4, 4)


@given(st.lists(st.integers(1, 18), min_size=3, max_size=6))
def test_high_low_matches_reference(numbers):
    """Highest: greatest number, later beats earlier; lowest: least number, later beats earlier."""
    positions = range(len(numbers))
    hi = max(positions, key=lambda i: (numbers[i], i))
    lo = min(positions, key=lambda i: (numbers[i], -i))
    assert high_low(numbers) == (hi, lo)


# -- who takes what ------------------------------------------------------------------


def test_lowest_takes_highest_card_and_highest_takes_the_rest_and_leads():
    s = play_state(["A3 B1", "A9 B2", "A1 B3"], leader=0)
    play(s, "A3", "A9", "A1")
    assert names(3, s.taken[2]) == {"A9"}  # lowest (A1) takes the highest card
    assert names(3, s.taken[1]) == {"A3", "A1"}  # highest (A9) takes the rest
    assert s.taken[0] == 0
    assert s.current_player == 1 and s.trick.leader == 1 and s.trick.cards == []


def test_highest_may_come_from_a_suit_not_led():
    s = play_state(["A3 B1", "E9 B2", "C1 B3"], leader=0)
    play(s, "A3", "E9", "C1")  # seats 1 and 2 are void in A
    assert names(3, s.taken[2]) == {"E9"}
    assert names(3, s.taken[1]) == {"A3", "C1"}
    assert s.current_player == 1


def test_tied_highest_goes_to_last_player_of_the_number():
    s = play_state(["A9 B1", "B9 B2", "A2 B3"], leader=0)
    play(s, "A9", "B9", "A2")
    # B9 (played later) is highest: seat 1 takes A9 + A2 and leads; A2's seat 2 takes B9
    assert names(3, s.taken[2]) == {"B9"}
    assert names(3, s.taken[1]) == {"A9", "A2"}
    assert s.current_player == 1


def test_tied_lowest_goes_to_last_player_of_the_number():
    s = play_state(["A1 B1", "A8 B2", "C1 B3"], leader=0)
    play(s, "A1", "A8", "C1")
    # C1 (played later) is lowest: seat 2 gets the A8
    assert names(3, s.taken[2]) == {"A8"}
    assert names(3, s.taken[1]) == {"A1", "C1"}
    assert s.taken[0] == 0


def test_lowest_and_highest_players_are_neighbours():
    # 4 players, leader 1: seat 2 plays high, seat 3 (its left neighbour) plays low
    s = play_state(["A5 B1", "A6 B2", "A12 B3", "A2 B4"], leader=1)
    play(s, "A6", "A12", "A2", "A5")
    assert names(4, s.taken[3]) == {"A12"}
    assert names(4, s.taken[2]) == {"A6", "A2", "A5"}
    assert s.taken[0] == 0 and s.taken[1] == 0
    assert s.current_player == 2


def test_lowest_player_sitting_before_highest_player():
    # the low card's player is the leader, the high card is played last
    s = play_state(["A5 B1", "A1 B2", "A6 B3", "A9 B4"], leader=1)
    play(s, "A1", "A6", "A9", "A5")
    assert names(4, s.taken[1]) == {"A9"}
    assert names(4, s.taken[3]) == {"A1", "A6", "A5"}
    assert s.current_player == 3


def test_all_equal_trick_goes_wholly_to_last_player():
    # highest and lowest are the same seat: the last card's player takes everything
    s = play_state(["A4 B1", "B4 B2", "C4 B3", "D4 B5"], leader=2)
    play(s, "C4", "D4", "A4", "B4")
    assert names(4, s.taken[1]) == {"A4", "B4", "C4", "D4"}
    assert s.taken[0] == s.taken[2] == s.taken[3] == 0
    assert s.current_player == 1


def test_last_player_decides_who_gets_the_high_card():
    """The seed's remark: playing last, you choose who takes which cards."""
    hands = ["A5 B1", "A9 B2", "A1 A7"]
    s = play_state(hands, leader=0)
    play(s, "A5", "A9", "A1")  # last player goes lowest: takes the A9 itself
    assert names(3, s.taken[2]) == {"A9"}
    assert names(3, s.taken[1]) == {"A5", "A1"}
    s = play_state(hands, leader=0)
    play(s, "A5", "A9", "A7")  # ... or leaves the A9 to the leader's A5
    assert names(3, s.taken[0]) == {"A9"}
    assert names(3, s.taken[1]) == {"A5", "A7"}
    assert s.taken[2] == 0


def test_taken_cards_accumulate_over_tricks():
    s = play_state(["A3 B1", "A9 B2", "A1 B3"], leader=0, taken=["", "C5", "E2"])
    play(s, "A3", "A9", "A1")
    assert names(3, s.taken[1]) == {"C5", "A3", "A1"}
    assert names(3, s.taken[2]) == {"E2", "A9"}


# -- scoring -------------------------------------------------------------------------


def score(n: int, cards: str) -> int:
    t = lookups(n)
    return score_taken(t.deck.mask(cards), t)


def test_score_no_cards():
    assert score(6, "") == 0


def test_score_one_card_of_a_suit_counts_its_number():
    assert score(6, "A17") == 17


def test_score_two_cards_of_a_suit_count_their_numbers():
    assert score(6, "A17 A18") == 35


def test_score_three_cards_of_a_suit_count_one_each():
    # the seed's warning: a third card in a suit ruins it
    assert score(6, "A1 A17 A18") == 3


def test_score_more_cards_of_a_suit_count_one_each():
    assert score(6, "B1 B2 B16 B17 B18") == 5
    assert score(3, "C1 C2 C3 C4 C5 C6 C7 C8 C9") == 9


def test_score_is_per_suit():
    # A: 2 cards (9 + 8); B: 1 card (7); C: 3 cards (3); D: 4 cards (4); E: none
    assert score(3, "A9 A8 B7 C9 C8 C7 D1 D2 D3 D9") == 17 + 7 + 3 + 4


def finish_round(hands: list[str], leader: int, taken: list[str]):
    """Play out the last trick of a round: each hand holds one card."""
    s = play_state(hands, leader=leader, taken=taken, rounds=1)
    s.current_player = leader
    s.trick = Trick(leader, len(hands))
    for k in range(len(hands)):
        seat = (leader + k) % len(hands)
        s.step(s.game.deck.parse_one(hands[seat]))
    return s


def test_round_end_scores_taken_cards_and_game_ends():
    # last trick A9 (seat 0), B8 (seat 1), C1 (seat 2):
    # highest A9 -> seat 0 takes B8 + C1; lowest C1 -> seat 2 takes A9
    s = finish_round(["A9", "B8", "C1"], leader=0, taken=["A1", "B9", "A2 A3"])
    assert names(3, s.taken[0]) == {"A1", "B8", "C1"}
    assert names(3, s.taken[2]) == {"A2", "A3", "A9"}
    assert s.round_scores == [[1 + 8 + 1, 9, 3]]
    assert s.last_deltas == [10, 9, 3]
    assert s.totals == [10, 9, 3]
    assert s.over and s.phase == GAME_OVER and s.current_player == -1
    assert s.legal_mask() == 0
    assert s.winners() == [0]
    with pytest.raises(IllegalActionError, match="over"):
        s.step(0)


def test_equal_totals_share_the_win():
    s = finish_round(["A9", "B8", "C1"], leader=0, taken=["", "B9 C9", "E9"])
    # seat 0: B8 + C1 = 9; seat 1: B9 + C9 = 18; seat 2: A9 + E9 = 18
    assert s.totals == [9, 18, 18]
    assert s.winners() == [1, 2]


def test_last_deltas_only_at_round_end():
    s = game(3).new_game(seed=3)
    rng = random.Random(3)
    seen = 0
    while not s.over:
        s.step(rng.choice(s.legal_actions()))
        if s.last_deltas is not None:
            seen += 1
            assert s.last_deltas == s.round_scores[-1]
    assert seen == 3


def test_next_round_redeals_and_totals_accumulate():
    g = game(3, rounds=2)
    s = g.new_game(seed=5)
    rng = random.Random(5)
    while s.round_index == 0:
        s.step(rng.choice(s.legal_actions()))
    assert s.phase == PLAY and not s.over
    assert [h.bit_count() for h in s.hands] == [15, 15, 15]
    assert s.taken == [0, 0, 0] and s.voids == [0, 0, 0]
    assert s.totals == s.round_scores[0]
    while not s.over:
        s.step(rng.choice(s.legal_actions()))
    assert s.totals == [a + b for a, b in zip(*s.round_scores)]


def test_clone_is_independent():
    s = game(4).new_game(seed=2)
    rng = random.Random(2)
    for _ in range(10):
        s.step(rng.choice(s.legal_actions()))
    c = s.clone()
    assert c.log is None
    c.step(c.legal_actions()[0])
    assert len(c.history) == len(s.history) + 1
    assert c.hands != s.hands or c.trick.cards != s.trick.cards


# -- options --------------------------------------------------------------------------


@pytest.mark.parametrize("kw, match", [
    ({"num_players": 2}, "num_players"),
    ({"num_players": 7}, "num_players"),
    ({"num_players": True}, "num_players"),
    ({"rounds": 0}, "rounds"),
    ({"rounds": 51}, "rounds"),
    ({"rounds": 2.5}, "rounds"),
    ({"first_dealer": 4}, "first_dealer"),
    ({"first_dealer": -1}, "first_dealer"),
])
def test_bad_options_raise(kw, match):
    kw.setdefault("num_players", 4)
    with pytest.raises(ValueError, match=match):
        HochTiefOptions(**kw)


def test_bad_deck_orders_raise():
    g = game(3)
    with pytest.raises(ValueError, match="deck orders"):
        g.new_state([list(range(45))])
    with pytest.raises(ValueError, match="each of the 45"):
        g.new_state([[*list(range(44)), 0]] * 3)


def test_action_labels_are_card_names():
    g = game(4)
    assert g.num_actions == 60
    assert g.action_label(0) == "A1" and g.action_label(59) == "E12"
    assert g.parse_action("C7") == g.deck.parse_one("C7")
    assert g.action_label(60).startswith("<invalid")


# -- fuzz ------------------------------------------------------------------------------


def check_invariants(s) -> None:
    full = s.game.deck.full_mask
    seen = 0
    for m in (*s.hands, *s.taken, *(1 << c for c in s.trick.cards)):
        assert not seen & m, "a card is in two places"
        seen |= m
    assert seen == full, "cards lost"
    n = s.num_players
    # everybody has played the same number of cards, up to the current trick
    played_now = [(seat - s.trick.leader) % n < len(s.trick.cards) for seat in range(n)]
    for seat in range(n):
        assert s.hands[seat].bit_count() == HAND_SIZE - s.tricks_played - played_now[seat]
    assert sum(t.bit_count() for t in s.taken) == n * s.tricks_played


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_fuzz_random_games(n):
    """Random games: card conservation, trick counts, scores, termination."""
    g = game(n)
    gr = HochTiefGame(HochTiefOptions(num_players=n, rounds=1))
    rng = random.Random(100 + n)
    for i in range(2000):
        full = i % 20 == 0  # every 20th game a full n-round game, the rest one round
        s = (g if full else gr).new_game(seed=i)
        steps = 0
        while not s.over:
            if steps % n == 0:
                check_invariants(s)
            legal = s.legal_mask()
            assert legal and legal & ~s.hands[s.current_player] == 0
            before_round = s.round_index
            s.step(rng.choice(s.legal_actions()))
            steps += 1
            if s.last_deltas is not None:
                assert s.last_deltas == s.round_scores[-1]
                assert s.round_index == before_round + 1 or s.over
        rounds = g.num_rounds if full else 1
        assert steps == rounds * HAND_SIZE * n
        assert len(s.round_scores) == rounds
        assert s.totals == [sum(r[k] for r in s.round_scores) for k in range(n)]
        # a seat's round score never exceeds the best a round can give: five suits of
        # the two highest numbers
        for r in s.round_scores:
            assert all(0 <= x <= 5 * (6 * n - 1) for x in r)
            assert sum(r) > 0  # 15n cards taken: somebody scores
        assert s.current_player == -1 and s.legal_mask() == 0


def test_fuzz_round_log_matches_trick_rule():
    """Every logged trick obeys the high/low rule and the taken cards add up."""
    for n in (3, 4, 5, 6):
        g = game(n)
        s = g.new_game(seed=n, log=True)
        rng = random.Random(n)
        while not s.over:
            s.step(rng.choice(s.legal_actions()))
        deck = g.deck
        for rnd in s.log:
            taken: list[set[str]] = [set() for _ in range(n)]
            assert len(rnd["tricks"]) == HAND_SIZE
            for tr in rnd["tricks"]:
                nums = [g.lookups.number[deck.parse_one(c)] for c in tr["cards"]]
                hi, lo = high_low(nums)
                assert tr["high"] == tr["cards"][hi] and tr["low"] == tr["cards"][lo]
                assert tr["high_seat"] == tr["seats"][hi] and tr["low_seat"] == tr["seats"][lo]
                taken[tr["low_seat"]].add(tr["high"])
                taken[tr["high_seat"]] |= set(tr["cards"]) - {tr["high"]}
            assert [set(t) for t in rnd["taken"]] == taken
            assert rnd["scores"] == [score_taken(deck.mask(t), g.lookups) for t in rnd["taken"]]
