"""Silberne Ananas rules, one test per rule, with hand-built cards (RULES.md section 3)."""

from __future__ import annotations

import itertools
import random

import pytest

from stichzoo.envs.core.game import IllegalActionError, build_options
from stichzoo.envs.core.tricks import Trick
from stichzoo.envs.silberne_ananas.rules import (
    DECK,
    DECK_SIZE,
    GAME_OVER,
    GIVE,
    GIVE0,
    JOKER,
    NO_SUIT,
    PLAY,
    SilberneAnanasGame,
    SilberneAnanasOptions,
    alone_rule,
    deal_scores,
    max_deals,
    middle_rule,
    middle_seat,
    trick_winner,
)

GIVE_SELF, GIVE_LEFT, GIVE_RIGHT = GIVE0, GIVE0 + 1, GIVE0 + 2


def cards(text: str) -> list[int]:
    return DECK.parse(text)


def winner(text: str) -> int:
    return trick_winner(cards(text))


def play_state(hands: list[str], leader: int = 0, trick: str = "", tricks_won=None, **options):
    """A state in the play phase: ``hands`` per seat, ``leader`` to lead.

    ``trick``: cards already played to the current trick, in order from the
    leader; they are added to the players' hands first and then played
    through the checked ``step``, so the trick's bookkeeping is the engine's.
    """
    game = SilberneAnanasGame(SilberneAnanasOptions(**options))
    s = game.new_game(seed=0)
    played = cards(trick)
    hands_m = [DECK.mask(h) for h in hands]
    for i, c in enumerate(played):
        hands_m[(leader + i) % 3] |= 1 << c
    s.hands = hands_m
    s.played = 0
    s.voids = [0, 0, 0]
    s.no_joker = [False] * 3
    s.tricks_won = list(tricks_won) if tricks_won else [0, 0, 0]
    s.trick = Trick(leader, 3)
    s.lead_suit = NO_SUIT
    s.joker_seat = -1
    s.phase = PLAY
    s.current_player = leader
    for c in played:
        s.step(c)
    return s


def legal_names(s) -> set[str]:
    return {DECK.names[c] for c in s.legal_actions()}


def play(s, text: str) -> None:
    for c in cards(text):
        s.step(c)


# -- the deck and the deal ----------------------------------------------------------


def test_deck_has_32_cards_and_a_joker():
    assert DECK.size == DECK_SIZE == 33
    assert DECK.names[JOKER] == "Joker"
    assert DECK.parse("X") == DECK.parse("joker") == [JOKER]
    assert DECK.parse("Th") == DECK.parse("10h")
    ranks = ["7", "8", "9", "10", "J", "Q", "K", "A"]
    for suit in "hdsc":
        ids = cards(" ".join(r + suit for r in ranks))
        assert ids == sorted(ids)  # ids rise with rank within a suit


def test_all_cards_dealt_eleven_each_one_at_a_time_from_left_of_dealer():
    game = SilberneAnanasGame(SilberneAnanasOptions(first_dealer=1))
    s = game.new_game(seed=3)
    assert s.dealer == 1
    assert [h.bit_count() for h in s.hands] == [11, 11, 11]
    assert s.hands[0] | s.hands[1] | s.hands[2] == (1 << 33) - 1
    order = s.deck_orders[0]
    assert (s.hands[2] >> order[0]) & 1 and (s.hands[0] >> order[1]) & 1
    assert s.current_player == 2 and s.trick.leader == 2  # left of the dealer leads


def test_dealer_moves_left_each_deal():
    s = play_state(["Ah", "Kh", "Qh"], leader=1, tricks_won=[4, 3, 3])
    play(s, "Kh Qh Ah")  # seat 1 Kh, seat 2 Qh, seat 0 Ah: middle card Kh (seat 1)
    assert s.deal_index == 1 and s.dealer == 1 and s.current_player == 2


# -- trick winner -------------------------------------------------------------------


@pytest.mark.parametrize("trick, pos", [
    ("7h 8h 9h", 1), ("9h 8h 7h", 1), ("Ah 7h Kh", 2), ("Kh Ah 7h", 0),
    ("7s As 10s", 2), ("10c Jc Qc", 1), ("Qd Ad Jd", 0),
])
def test_three_of_one_suit_middle_card_wins(trick, pos):
    assert winner(trick) == pos


@pytest.mark.parametrize("trick, pos", [
    ("Ah Kh 7s", 2), ("Ah 7s Kh", 1), ("7s Ah Kh", 0), ("7d Ad 8h", 2), ("Jc 9s 8c", 1),
])
def test_two_of_one_suit_the_other_suit_wins(trick, pos):
    assert winner(trick) == pos


@pytest.mark.parametrize("trick, pos", [
    ("Ah Kd 7s", 2), ("Ah 7c Kd", 1), ("7s Ah Kd", 0),  # red, red, black: the black card
    ("As Kc 7h", 2), ("As 7d Kc", 1), ("7h As Kc", 0),  # black, black, red: the red card
])
def test_three_suits_the_odd_colour_wins(trick, pos):
    assert winner(trick) == pos


def test_rank_never_matters_against_the_odd_suit():
    assert winner("Ah Kh 7d") == 2  # the lowest card in the trick takes it


def test_trick_taker_counts_trick_and_leads_next():
    s = play_state(["Ah 7c", "Kh 8c", "7s 9c"], leader=0)
    play(s, "Ah Kh 7s")  # seat 2 is void in hearts and plays the odd suit
    assert s.tricks_won == [0, 0, 1]
    assert s.current_player == 2 and s.trick.leader == 2 and not s.trick.cards


# -- following suit and the Joker -------------------------------------------------------


def test_must_follow_led_suit_and_joker_is_no_suit_card():
    s = play_state(["7c", "Ah 7s Joker", "8c"], leader=0, trick="Kh")
    assert legal_names(s) == {"Ah"}


def test_void_without_joker_may_play_anything():
    s = play_state(["7c", "Ad 7s 8c", "9c"], leader=0, trick="Kh")
    assert legal_names(s) == {"Ad", "7s", "8c"}


def test_void_with_joker_must_play_the_joker():
    s = play_state(["7c", "Ad 7s Joker", "9c"], leader=0, trick="Kh")
    assert legal_names(s) == {"Joker"}


def test_third_player_follows_the_led_suit_after_a_joker():
    s = play_state(["7c Ac", "Joker 8c", "9h Jc"], leader=0, trick="Kh")
    assert legal_names(s) == {"Joker"}
    s.step(JOKER)
    assert legal_names(s) == {"9h"}


def test_joker_cannot_be_led_before_the_last_card():
    s = play_state(["Joker 7h 8s", "Ah Kh Qh", "Ac Kc Qc"], leader=0)
    assert legal_names(s) == {"7h", "8s"}
    with pytest.raises(IllegalActionError):
        s.step(JOKER)


def test_joker_may_be_led_as_last_card_and_frees_the_trick():
    s = play_state(["Joker", "Ah", "Kc"], leader=0)
    assert legal_names(s) == {"Joker"}
    s.step(JOKER)
    assert s.lead_suit == NO_SUIT
    assert legal_names(s) == {"Ah"}


def test_showing_out_is_public_void_and_proves_no_joker():
    s = play_state(["7c 8c", "Ad 7s", "9h 9c"], leader=0, trick="Kh")
    s.step(DECK.parse_one("Ad"))
    assert s.voids[1] == 1 << 0 and s.no_joker == [False, True, False]


# -- the Joker's gift ----------------------------------------------------------------


@pytest.mark.parametrize("action, taker", [(GIVE_SELF, 1), (GIVE_LEFT, 2), (GIVE_RIGHT, 0)])
def test_joker_gift_decides_who_takes_and_leads(action, taker):
    s = play_state(["Kh 7c", "Joker 8c", "Ah 9c"], leader=0)
    play(s, "Kh Joker Ah")
    assert s.phase == GIVE and s.current_player == 1
    assert s.legal_actions() == [GIVE_SELF, GIVE_LEFT, GIVE_RIGHT]
    s.step(action)
    expected = [0, 0, 0]
    expected[taker] = 1
    assert s.tricks_won == expected
    assert s.phase == PLAY and s.current_player == taker and s.trick.leader == taker


def test_joker_takes_even_when_a_rule_would_pick_another_card():
    # without the Joker the odd suit (7c, seat 2) would win; the Joker's player decides
    s = play_state(["Kh 8s", "Ah 9s", "Joker 7d"], leader=0)
    play(s, "Kh Ah Joker")
    assert s.phase == GIVE and s.current_player == 2
    s.step(GIVE_RIGHT)  # right of seat 2 is seat 1
    assert s.tricks_won == [0, 1, 0] and s.current_player == 1


def test_joker_gift_on_the_last_trick_ends_the_deal():
    s = play_state(["Joker", "Ah", "Kc"], leader=0, tricks_won=[3, 4, 3], match=False)
    play(s, "Joker Ah Kc")
    assert s.phase == GIVE and not s.over
    s.step(GIVE_LEFT)
    assert s.over and s.tricks_won == [3, 5, 3]


def test_gift_actions_only_after_the_joker_trick():
    s = play_state(["Kh 7c", "Joker 8c", "Ah 9c"], leader=0)
    for a in (GIVE_SELF, GIVE_LEFT, GIVE_RIGHT):
        with pytest.raises(IllegalActionError):
            s.step(a)


# -- scoring ---------------------------------------------------------------------------


def test_seed_example_1():
    # A = seat 0; B (right of A) = seat 2; C (right of B, left of A) = seat 1
    t = [5, 3, 3]  # A 5, C 3, B 3
    base = deal_scores(t)
    assert (base[0], base[2], base[1]) == (11, 9, 13)  # A, B, C
    assert middle_seat(base) == 0  # A: 11 + 10 = 21


def test_seed_example_2():
    t = [5, 2, 4]  # A 5, C 2, B 4
    base = deal_scores(t)
    assert (base[0], base[2], base[1]) == (13, 8, 12)
    assert middle_seat(base) == 1  # C: 12 + 10 = 22


def test_seed_example_1_through_the_engine():
    s2 = play_state(["Kc", "Ah", "Kd"], leader=0, tricks_won=[4, 3, 3], match=False)
    play(s2, "Kc Ah Kd")  # black, red, red: seat 0's Kc takes the last trick: A 5, C 3, B 3
    assert s2.tricks_won == [5, 3, 3]
    assert s2.last_deltas == [21, 13, 9] and s2.totals == [21, 13, 9]
    assert s2.over and s2.winners() == [0]  # single deal: the middle scorer


def test_seed_example_2_through_the_engine():
    s = play_state(["Kc", "Ah", "Kd"], leader=0, tricks_won=[4, 2, 4], match=False)
    play(s, "Kc Ah Kd")
    assert s.tricks_won == [5, 2, 4]
    assert s.last_deltas == [13, 22, 8] and s.winners() == [1]


def test_deal_scores_sum_to_33_and_never_tie_for_every_trick_split():
    for t0 in range(12):
        for t1 in range(12 - t0):
            base = deal_scores([t0, t1, 11 - t0 - t1])
            assert sum(base) == 33
            assert len(set(base)) == 3


def test_own_trick_one_point_right_neighbours_trick_two_points():
    assert deal_scores([11, 0, 0]) == [11, 22, 0]  # seat 1's right neighbour is seat 0
    assert deal_scores([0, 11, 0]) == [0, 11, 22]
    assert deal_scores([0, 0, 11]) == [22, 0, 11]


# -- match end and winners ----------------------------------------------------------------


def test_match_lasts_at_most_the_documented_number_of_deals():
    assert max_deals(100) == 7
    for target in range(1, 1001):
        k = max_deals(target)
        assert 43 * k > 3 * (target - 1) >= 43 * (k - 1)
    game = SilberneAnanasGame(SilberneAnanasOptions())
    assert len(game.deal(random.Random(0))) == 7
    assert len(SilberneAnanasGame(SilberneAnanasOptions(match=False)).deal(random.Random(0))) == 1


def test_match_ends_after_the_deal_where_someone_reaches_100():
    s = play_state(["Kc", "Ah", "Kd"], leader=0, tricks_won=[4, 3, 3])
    s.totals = [79, 80, 40]
    play(s, "Kc Ah Kd")  # +21, +13, +9
    assert s.over and s.totals == [100, 93, 49]
    assert s.winners() == [1]  # the middle total


def test_match_continues_while_everyone_is_below_100():
    s = play_state(["Kc", "Ah", "Kd"], leader=0, tricks_won=[4, 3, 3])
    s.totals = [78, 80, 40]
    play(s, "Kc Ah Kd")
    assert not s.over and s.totals == [99, 93, 49] and s.deal_index == 1
    assert s.last_deltas == [21, 13, 9]
    assert [h.bit_count() for h in s.hands] == [11, 11, 11]


@pytest.mark.parametrize("totals, win", [
    ([105, 90, 60], [1]),      # distinct: the middle total
    ([60, 105, 105], [0]),     # the two highest equal: the third wins
    ([60, 60, 105], [0, 1]),   # [decision] the two lowest equal: they share
    ([100, 100, 100], [0, 1, 2]),
])
def test_middle_rule(totals, win):
    assert middle_rule(totals) == win


@pytest.mark.parametrize("totals, win", [
    ([105, 90, 60], [0]),      # alone over 100
    ([105, 101, 60], [2]),     # alone under 100
    ([105, 101, 100], [1]),    # [decision] all three over: middle rule
    ([100, 100, 100], [0, 1, 2]),
])
def test_alone_variant(totals, win):
    assert alone_rule(totals, 100) == win


def test_alone_variant_decides_winners_of_a_match():
    s = play_state(["Kc", "Ah", "Kd"], leader=0, tricks_won=[4, 3, 3], alone_variant=True)
    s.totals = [79, 90, 40]
    play(s, "Kc Ah Kd")  # 100, 103, 49: two reached 100
    assert s.over and s.winners() == [2]


def test_target_score_option():
    s = play_state(["Kc", "Ah", "Kd"], leader=0, tricks_won=[4, 3, 3], target_score=20)
    play(s, "Kc Ah Kd")
    assert s.over and s.winners() == [1]  # totals 21, 13, 9


# -- options and illegal actions --------------------------------------------------------


@pytest.mark.parametrize("kwargs, msg", [
    ({"num_players": 4}, "exactly 3 players"),
    ({"num_players": 2}, "exactly 3 players"),
    ({"target_score": 0}, "target_score"),
    ({"first_dealer": 3}, "first_dealer"),
    ({"match": "yes"}, "match"),
    ({"alone_variant": 1}, "alone_variant"),
    ({"match": False, "alone_variant": True}, "needs match=True"),
    ({"rounds": 3}, "unknown option"),
])
def test_bad_options(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        build_options(SilberneAnanasOptions, "silberne_ananas", kwargs)


def test_illegal_action_names_action_player_and_legal_actions_and_changes_nothing():
    s = play_state(["7c 8c", "Ah 7s Joker", "9c Tc"], leader=0, trick="Kh")
    before = (s.hands[:], s.trick.cards[:], s.history[:], s.current_player)
    with pytest.raises(IllegalActionError) as e:
        s.step(JOKER)
    msg = str(e.value)
    assert "Joker" in msg and "player_1" in msg and "Ah" in msg
    assert (s.hands, s.trick.cards, s.history, s.current_player) == before
    with pytest.raises(IllegalActionError):
        s.step(99)


def test_deterministic_given_seed():
    game = SilberneAnanasGame(SilberneAnanasOptions())
    a, b = game.new_game(seed=42), game.new_game(seed=42)
    assert a.deck_orders == b.deck_orders and a.hands == b.hands
    assert game.new_game(seed=43).deck_orders != a.deck_orders


def test_clone_is_independent():
    game = SilberneAnanasGame(SilberneAnanasOptions())
    s = game.new_game(seed=1)
    c = s.clone()
    c.step(c.legal_actions()[0])
    assert s.history == [] and s.hands != c.hands and c.log is None


# -- fuzz ---------------------------------------------------------------------------------


def _check_invariants(s) -> None:
    full = (1 << 33) - 1
    union = 0
    for h in s.hands:
        assert not union & h
        union |= h
    assert not union & s.played
    assert union | s.played == full
    in_trick = sum(1 << c for c in s.trick.cards)
    assert s.played & in_trick == in_trick
    sizes = [h.bit_count() for h in s.hands]
    assert max(sizes) - min(sizes) <= 1
    assert sum(s.tricks_won) * 3 + len(s.trick.cards) == 33 - sum(sizes)


@pytest.mark.parametrize("options, games", [({}, 1500), ({"match": False}, 1500),
                                            ({"alone_variant": True, "first_dealer": 2}, 500)])
def test_random_play_fuzz(options, games):
    game = SilberneAnanasGame(SilberneAnanasOptions(**options))
    rng = random.Random(7)
    target = game.options.target_score
    for g in range(games):
        s = game.new_game(seed=g, log=(g % 50 == 0))
        deals_seen = 0
        while not s.over:
            if g % 10 == 0:
                _check_invariants(s)
            legal = s.legal_actions()
            assert legal
            if s.phase == PLAY and s.trick.cards == [] and JOKER in legal:
                assert s.hands[s.current_player] == 1 << JOKER
            s.step(rng.choice(legal))
            if s.last_deltas is not None:
                deals_seen += 1
                d = s.last_deltas
                base = d[:]
                base[s.bonus_seat] -= 10
                assert sum(base) == 33 and len(set(base)) == 3  # never a tie
                assert sorted(base)[1] == base[s.bonus_seat]  # the bonus went to the middle
                assert max(s.totals) < target or s.over or not game.options.match
        assert s.phase == GAME_OVER and s.current_player == -1 and s.legal_actions() == []
        assert deals_seen == len(s.deal_scores) <= game.max_deals
        assert [sum(col) for col in zip(*s.deal_scores)] == s.totals
        assert sum(s.totals) == 43 * deals_seen
        if game.options.match:
            assert max(s.totals) >= target
            before_last = [t - d for t, d in zip(s.totals, s.deal_scores[-1])]
            assert max(before_last) < target  # ended after the first deal reaching it
        else:
            assert deals_seen == 1
        w = s.winners()
        assert w and all(0 <= x < 3 for x in w)
        if s.log is not None:
            assert len(s.log) == deals_seen
            for d in s.log:
                assert len(d["tricks"]) == 11 and sum(d["tricks_won"]) == 11
                assert d["base_scores"] == deal_scores(d["tricks_won"])
                bonus = [10 if i == d["bonus_seat"] else 0 for i in range(3)]
                assert d["scores"] == [b + x for b, x in zip(d["base_scores"], bonus)]


# -- the trick winner against a literal reading of the rule ---------------------------------


def _reference_winner(trick: list[int]) -> int:
    """The rule as the book words it, written independently of the engine's shortcuts."""
    suits = [c // 8 for c in trick]
    if len(set(suits)) == 1:
        middle = sorted(trick)[1]
        return trick.index(middle)
    if len(set(suits)) == 2:
        return next(i for i, s in enumerate(suits) if suits.count(s) == 1)
    colours = ["red" if s in (0, 1) else "black" for s in suits]
    return next(i for i, k in enumerate(colours) if colours.count(k) == 1)


def test_trick_winner_matches_the_rule_for_every_joker_free_trick():
    n = 0
    for trick in itertools.permutations(range(32), 3):
        pos = trick_winner(list(trick))
        assert pos == _reference_winner(list(trick)), DECK.format(trick)
        n += 1
    assert n == 32 * 31 * 30


def test_the_same_card_wins_whatever_the_play_order():
    rng = random.Random(0)
    for _ in range(2000):
        trick = rng.sample(range(32), 3)
        card = trick[trick_winner(trick)]
        for perm in itertools.permutations(trick):
            assert perm[trick_winner(list(perm))] == card
