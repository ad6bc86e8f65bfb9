"""Geheimtrumpf rules, one test per rule, with hand-built cards.

Every worked example of the rule book is here verbatim: the ranking
example (hearts trump, value 5), the draft example (Ben 7S, Carla 6H,
Dan 2C, Anna 5D -> Anna) and the check-off example (Ben meets "exactly 2",
Carla misses "no clubs", Anna as start player checks one of hers).
"""

from __future__ import annotations

import itertools
import random

import pytest

from stichzoo.envs.core.game import IllegalActionError
from stichzoo.envs.core.tricks import Trick
from stichzoo.envs.geheimtrumpf.rules import (
    CARD_DRAFT,
    CHECK_OFF,
    DECK,
    DECK_SIZE,
    FEWEST_TRICKS,
    GAME_OVER,
    LAST_TRICK,
    MOST_TRICKS,
    NO_TRICK,
    NO_TRUMP_SUIT,
    NO_TRUMP_VALUE,
    NUM_CARDS,
    NUM_TASKS,
    ONE_TRICK,
    PLAY,
    SUIT_STACK0,
    TASK_CHOICE,
    TASK_DRAFT,
    TASK_NAMES,
    THREE_TRICKS,
    TRUMPS,
    TWO_TRICKS,
    VALUE_STACK0,
    GeheimtrumpfGame,
    GeheimtrumpfOptions,
    task_met,
    trick_winner,
    trumps_of_order,
)

H, D, S, C = range(4)
NO_HEARTS, NO_DIAMONDS, NO_SPADES, NO_CLUBS = 7, 8, 9, 10
ANNA, BEN, CARLA, DAN = range(4)


def cards(text: str) -> list[int]:
    return DECK.parse(text)


def mask(text: str) -> int:
    return DECK.mask(text)


def winner(text: str, suit: int = NO_TRUMP_SUIT, value: int = NO_TRUMP_VALUE) -> int:
    return trick_winner(cards(text), TRUMPS[(suit, value)].power)


def tasks(*ids: int) -> int:
    m = 0
    for t in ids:
        m |= 1 << t
    return m


def order_with(rows: str = "", suit: int = NO_TRUMP_SUIT, value: int = NO_TRUMP_VALUE,
               seed: int = 0) -> list[int]:
    """A deck order whose layout starts with ``rows`` and whose stacks draw the given trumps."""
    first = cards(rows)
    rest = [c for c in range(NUM_CARDS) if c not in first]
    random.Random(seed).shuffle(rest)
    suits = [c for c in range(SUIT_STACK0, VALUE_STACK0)
             if c != SUIT_STACK0 + (suit if suit >= 0 else 4)]
    values = [c for c in range(VALUE_STACK0, DECK_SIZE)
              if c != VALUE_STACK0 + (value - 1 if value else 9)]
    return (first + rest + suits + [SUIT_STACK0 + (suit if suit >= 0 else 4)] + values
            + [VALUE_STACK0 + (value - 1 if value else 9)])


def drafted_game(n: int = 4, round_limit: int = 3, orders=None, log: bool = False):
    """A state after a task draft that gives seat ``s`` tasks ``3s .. 3s+3`` mod 11.

    Start player of round 1 is seat 0, so seat 1 has first choice.
    """
    game = GeheimtrumpfGame(GeheimtrumpfOptions(num_players=n, round_limit=round_limit))
    if orders is None:
        orders = game.deal(random.Random(7))
    s = game.new_state(orders, log=log)
    for k in range(4):
        for seat in range(n):
            s.step(game.DRAFT_TASK0 + (seat * 3 + k) % NUM_TASKS)
    assert s.phase == CARD_DRAFT
    return s


def play_state(hands: list[str], suit: int = NO_TRUMP_SUIT, value: int = NO_TRUMP_VALUE,
               leader: int = 0):
    """A state in the play phase with the given hands; the start player sits right of the leader."""
    n = len(hands)
    s = drafted_game(n)
    s.start = (leader - 1) % n
    s.set_trumps(suit, value)
    s.hands = [mask(h) for h in hands]
    s.phase = PLAY
    s.trick = Trick(leader, n)
    s.follow = 0
    s.current_player = leader
    s.held = [tasks(0, 1, 2, 3), tasks(4, 5, 6, 7), tasks(8, 9, 10, 0), tasks(1, 2, 3, 4)][:n]
    s.chosen = [-1] * n
    return s


def legal_names(s) -> set[str]:
    return {DECK.names[c] for c in s.legal_actions()}


def play(s, *names: str) -> None:
    for name in names:
        s.step(DECK.parse_one(name))


# -- the deck -----------------------------------------------------------------------


def test_deck_names_and_aliases():
    assert DECK.size == DECK_SIZE == 51
    assert cards("AH 9H AD 9C") == [0, 8, 9, 35]
    assert cards("1S") == cards("AS")
    assert DECK.names[SUIT_STACK0:VALUE_STACK0] == ("10H", "10D", "10S", "10C", "JK")
    assert DECK.names[VALUE_STACK0:] == (*tuple(f"V{v}" for v in range(1, 10)), "VJK")


def test_trumps_are_the_bottom_card_of_each_stack():
    assert trumps_of_order(order_with(suit=H, value=5)) == (H, 5)
    assert trumps_of_order(order_with(suit=NO_TRUMP_SUIT, value=NO_TRUMP_VALUE)) == (-1, 0)
    assert trumps_of_order(order_with(suit=C, value=NO_TRUMP_VALUE)) == (C, 0)


def test_trump_draws_cover_five_suits_and_ten_values():
    game = GeheimtrumpfGame(GeheimtrumpfOptions(round_limit=600))
    draws = [trumps_of_order(o) for o in game.deal(random.Random(3))]
    suits = {d[0] for d in draws}
    values = {d[1] for d in draws}
    assert suits == {-1, 0, 1, 2, 3} and values == set(range(10))
    nones = sum(d[0] == -1 for d in draws)
    assert 80 < nones < 160  # about 1 in 5


# -- ranking (the trick winner) --------------------------------------------------------


def test_rule_book_ranking_example():
    # hearts trump, trump value 5: 5H beats all; then 5S 5D 5C (first played
    # wins); then 9H 8H 7H 6H 4H 3H 2H AH.
    assert winner("9H 5S 5H 5D", H, 5) == 2
    assert winner("5S 5D 5C 9H", H, 5) == 0
    assert winner("9H 5C 5D 5S", H, 5) == 1
    assert winner("5D 5S", H, 5) == 0 and winner("5S 5D", H, 5) == 0
    order = ["9H", "8H", "7H", "6H", "4H", "3H", "2H", "AH"]
    for hi, lo in itertools.pairwise(order):
        assert winner(f"{lo} {hi}", H, 5) == 1
        assert winner(f"{hi} {lo}", H, 5) == 0


def test_obertrumpf_beats_everything():
    assert winner("9H 5S 5D 5H", H, 5) == 3


def test_trump_value_cards_equal_first_played_wins():
    assert winner("AD 5C 5S 5D", H, 5) == 1


def test_trump_value_beats_trump_suit():
    assert winner("9H 5C", H, 5) == 1


def test_trump_suit_beats_led_suit():
    assert winner("9S AH 8S", H, 5) == 1


def test_no_trump_highest_of_led_suit_wins():
    assert winner("4S 9D 7S 2S", H, 5) == 2  # 9D neither led nor trump


def test_trump_value_card_of_led_suit_is_a_trump_not_the_led_suit():
    # 5S led with value 5: it is a trump, the spades played after are not trumps
    assert winner("5S 9S 8S", H, 5) == 0
    # a trump-value card played to a spade lead wins as a trump
    assert winner("9S 5S", D, 5) == 1


def test_no_trump_suit_only_the_value():
    assert winner("9H 3D 3S", NO_TRUMP_SUIT, 3) == 1
    assert winner("9H 8H", NO_TRUMP_SUIT, 3) == 0


def test_no_trump_value_only_the_suit():
    assert winner("9H 5C 2C", C, NO_TRUMP_VALUE) == 1
    assert winner("9H 5S", C, NO_TRUMP_VALUE) == 0


def test_neither_trump_highest_of_led_suit():
    assert winner("4C 9H 7C AC", NO_TRUMP_SUIT, NO_TRUMP_VALUE) == 2


# -- following ----------------------------------------------------------------------------


def test_must_follow_led_suit():
    s = play_state(["4S AH", "2S 9S 9D", "AC 2C"], H, 5)
    play(s, "4S")
    assert legal_names(s) == {"2S", "9S"}


def test_trump_value_card_of_led_suit_does_not_follow_it():
    # spades led, value 5: 5S is a trump, not a spade - holding only 5S and
    # a diamond, the player is void in spades and may play either
    s = play_state(["4S AH", "5S 9D", "AC 2C"], H, 5)
    play(s, "4S")
    assert legal_names(s) == {"5S", "9D"}
    # holding a spade too, they must play the spade, not the 5S
    s = play_state(["4S AH", "5S 2S 9D", "AC 2C"], H, 5)
    play(s, "4S")
    assert legal_names(s) == {"2S"}


def test_led_trump_value_card_does_not_ask_for_its_printed_suit():
    # 5S led (value 5, hearts trump): a trump is led, spades need not follow
    s = play_state(["5S AH", "9S 2H 9D", "AC 2C"], H, 5)
    play(s, "5S")
    assert legal_names(s) == {"2H"}  # any trump must be played: the trump suit card
    s = play_state(["5S AH", "9S 9D", "AC 2C"], H, 5)
    play(s, "5S")
    assert legal_names(s) == {"9S", "9D"}  # no trump: anything


def test_trump_led_forces_any_trump():
    # trump suit card led: trump-value cards of other suits follow it too
    s = play_state(["3H AS", "5C 9S 9D", "AC 2C"], H, 5)
    play(s, "3H")
    assert legal_names(s) == {"5C"}
    s = play_state(["3H AS", "5C 9H 9D", "AC 2C"], H, 5)
    play(s, "3H")
    assert legal_names(s) == {"5C", "9H"}


def test_void_may_play_anything():
    s = play_state(["4S AH", "9D 2C 7H", "AC 2D"], H, 5)
    play(s, "4S")
    assert legal_names(s) == {"9D", "2C", "7H"}


def test_follow_with_no_trump_suit():
    # value 3 only: a 3 led asks for a 3; a suit led asks for that suit without its 3
    s = play_state(["3H AH", "3C 9H 9D", "AC 2D"], NO_TRUMP_SUIT, 3)
    play(s, "3H")
    assert legal_names(s) == {"3C"}
    s = play_state(["4D AH", "3D 9H", "AC 2C"], NO_TRUMP_SUIT, 3)
    play(s, "4D")
    assert legal_names(s) == {"3D", "9H"}  # 3D is not a diamond: void


def test_follow_with_no_trump_value():
    s = play_state(["4C AH", "5C 9H 9D", "AC 2D"], C, NO_TRUMP_VALUE)
    play(s, "4C")
    assert legal_names(s) == {"5C"}
    s = play_state(["4D AH", "3D 5C 9H", "AC 2C"], C, NO_TRUMP_VALUE)
    play(s, "4D")
    assert legal_names(s) == {"3D"}  # plain suit followed; trump not required


def test_follow_with_neither_trump():
    s = play_state(["4D AH", "3D 5D 9H", "AC 2C"])
    play(s, "4D")
    assert legal_names(s) == {"3D", "5D"}


def test_leader_may_lead_anything():
    s = play_state(["4D 5H AS", "3D", "AC"], H, 5)
    assert legal_names(s) == {"4D", "5H", "AS"}


def test_trick_winner_leads_next_and_takes_cards():
    s = play_state(["4D AS", "9D AH", "2D AC"], H, 5, leader=0)
    play(s, "4D", "9D", "2D")
    assert s.tricks_won == [0, 1, 0] and s.won_cards[1] == mask("4D 9D 2D")
    assert s.current_player == 1 and s.trick.leader == 1 and s.trick.empty


# -- the task draft ---------------------------------------------------------------------


def _fresh(n: int = 4, **kw):
    game = GeheimtrumpfGame(GeheimtrumpfOptions(num_players=n, round_limit=2, **kw))
    return game, game.new_game(seed=1)


def test_task_draft_round_robin_from_first_start_player():
    _game, s = _fresh(4, first_start=2)
    assert s.phase == TASK_DRAFT and s.current_player == 2
    seen = []
    for _k in range(16):
        seen.append(s.current_player)
        s.step(min(s.legal_actions()))
    assert seen == [2, 3, 0, 1] * 4
    assert all(h.bit_count() == 4 for h in s.held)
    assert s.phase == CARD_DRAFT and s.start == 2 and s.current_player == 3


def test_task_draft_four_different_tasks():
    game, s = _fresh(4)
    s.step(game.DRAFT_TASK0 + 3)  # seat 0 takes exactly_three
    for seat in (1, 2, 3):
        s.step(game.DRAFT_TASK0 + seat + 5)
    assert s.current_player == 0
    assert game.DRAFT_TASK0 + 3 not in s.legal_actions()
    with pytest.raises(IllegalActionError, match="draft three_tricks"):
        s.step(game.DRAFT_TASK0 + 3)


def test_task_draft_at_most_two_holders():
    game, s = _fresh(4)
    s.step(game.DRAFT_TASK0 + NO_TRICK)
    s.step(game.DRAFT_TASK0 + NO_TRICK)
    assert s.task_holders[NO_TRICK] == 2
    assert game.DRAFT_TASK0 + NO_TRICK not in s.legal_actions()
    with pytest.raises(IllegalActionError, match="legal actions"):
        s.step(game.DRAFT_TASK0 + NO_TRICK)


def test_task_draft_never_gets_stuck_and_respects_limits():
    rng = random.Random(0)
    for n in (3, 4):
        for _ in range(300):
            _game, s = _fresh(n)
            while s.phase == TASK_DRAFT:
                legal = s.legal_actions()
                assert legal
                s.step(rng.choice(legal))
            assert all(h.bit_count() == 4 for h in s.held)
            assert all(c <= 2 for c in s.task_holders) and sum(s.task_holders) == 4 * n


# -- the card draft -----------------------------------------------------------------------


def test_rule_book_draft_example():
    # Anna is start player; hearts trump, value 5.  Ben has first choice and
    # takes 7S from row 1, Carla 6H, Dan 2C, Anna 5D: Anna would have won.
    s = drafted_game(4, 1, orders=[order_with("7S 6H 2C 5D", H, 5)])
    game = s.game
    assert s.start == ANNA and s.current_player == BEN
    for seat, card in ((BEN, "7S"), (CARLA, "6H"), (DAN, "2C"), (ANNA, "5D")):
        assert s.current_player == seat
        s.step(game.TAKE0 + DECK.parse_one(card))
    assert s.row_winners == [ANNA]
    assert s.draft_rows == [tuple(cards("7S 6H 2C 5D"))]
    # the row judgement is the play ranking: same function, same answer
    assert winner("7S 6H 2C 5D", H, 5) == 3


def test_draft_order_first_choice_moves_left_and_start_player_drafts():
    s = drafted_game(4)
    g = s.game
    firsts = []
    for _row in range(9):
        firsts.append(s.current_player)
        takers = []
        for _ in range(4):
            takers.append(s.current_player)
            s.step(min(s.legal_actions()))
        assert sorted(takers) == [0, 1, 2, 3]
        assert takers == [(firsts[-1] + i) % 4 for i in range(4)]
    assert firsts == [(1 + r) % 4 for r in range(9)]
    assert all(h.bit_count() == 9 for h in s.hands)
    assert s.layout == 0 and s.phase == TASK_CHOICE
    assert g.TAKE0 == 36


def test_take_only_from_the_current_row():
    s = drafted_game(4, orders=[order_with("7S 6H 2C 5D 9H 9D 9S 9C")] * 3)
    g = s.game
    assert legal_names_take(s) == {"7S", "6H", "2C", "5D"}
    s.step(g.TAKE0 + DECK.parse_one("6H"))
    assert legal_names_take(s) == {"7S", "2C", "5D"}
    with pytest.raises(IllegalActionError, match="take 9H"):
        s.step(g.TAKE0 + DECK.parse_one("9H"))


def legal_names_take(s) -> set[str]:
    return {DECK.names[a - s.game.TAKE0] for a in s.legal_actions()}


def test_three_players_fourth_card_set_aside():
    order = order_with("7S 6H 2C 5D 9H 9D 9S 9C")
    s = drafted_game(3, orders=[order] * 3)
    g = s.game
    assert legal_names_take(s) == {"7S", "6H", "2C"}  # 5D lies face down
    for _ in range(27):
        s.step(min(s.legal_actions()))
    assert s.phase == TASK_CHOICE and all(h.bit_count() == 9 for h in s.hands)
    aside = sum(1 << order[4 * i + 3] for i in range(9))
    assert not any(h & aside for h in s.hands)
    assert g.num_players == 3


def test_row_winner_announced_with_real_trumps():
    s = drafted_game(4, orders=[order_with("9S 2H AS 8S", H, NO_TRUMP_VALUE)] * 3)
    g = s.game
    for card in ("9S", "2H", "AS", "8S"):
        s.step(g.TAKE0 + DECK.parse_one(card))
    assert s.row_winners == [2]  # seat 1 led 9S, seat 2's 2H is a trump


# -- task choice ------------------------------------------------------------------------


def _to_task_choice(n: int = 4):
    s = drafted_game(n)
    while s.phase == CARD_DRAFT:
        s.step(min(s.legal_actions()))
    return s


def test_task_choice_every_player_but_the_start_player():
    s = _to_task_choice(4)
    g = s.game
    assert s.start == 0
    order = []
    while s.phase == TASK_CHOICE:
        seat = s.current_player
        order.append(seat)
        legal = s.legal_actions()
        assert legal == [g.CHOOSE_TASK0 + t for t in range(NUM_TASKS)
                         if (s.held[seat] >> t) & 1]
        s.step(legal[-1])
    assert order == [1, 2, 3]
    assert s.chosen[0] == -1 and all(t >= 0 for t in s.chosen[1:])
    assert s.phase == PLAY and s.current_player == 1  # left of start leads


def test_task_choice_only_unchecked_tasks():
    s = _to_task_choice(4)
    g = s.game
    held = s.held[1]
    first = min(t for t in range(NUM_TASKS) if (held >> t) & 1)
    s.checked[1] = 1 << first
    assert g.CHOOSE_TASK0 + first not in s.legal_actions()
    assert len(s.legal_actions()) == 3


def test_picks_hidden_until_all_have_picked():
    s = _to_task_choice(4)
    s.step(s.legal_actions()[0])
    assert s.chosen_visible_to(1, 1) and not s.chosen_visible_to(2, 1)
    s.step(s.legal_actions()[0])
    s.step(s.legal_actions()[0])
    assert s.phase == PLAY and s.chosen_visible_to(2, 1) and s.chosen_visible_to(0, 3)


def test_trumps_known_to_start_player_only_during_the_draft():
    s = drafted_game(4)
    assert s.trumps_known_to(0) and not s.trumps_known_to(1)
    while s.phase == CARD_DRAFT:
        s.step(min(s.legal_actions()))
    assert all(s.trumps_known_to(p) for p in range(4))


# -- what each task asks ---------------------------------------------------------------


def _met(task, seat, won, won_cards=None, last=-1):
    return task_met(task, seat, won, [mask(w) for w in (won_cards or [""] * len(won))], last)


def test_task_no_trick():
    assert _met(NO_TRICK, 0, [0, 4, 5]) and not _met(NO_TRICK, 1, [0, 4, 5])


@pytest.mark.parametrize("task,k", [(ONE_TRICK, 1), (TWO_TRICKS, 2), (THREE_TRICKS, 3)])
def test_task_exactly_k_tricks(task, k):
    for t in range(10):
        assert _met(task, 0, [t, 9 - t, 0]) == (t == k)


def test_task_most_tricks_strictly():
    assert _met(MOST_TRICKS, 0, [4, 3, 2])
    assert not _met(MOST_TRICKS, 0, [4, 4, 1])  # a tie is not "more than every other"
    assert not _met(MOST_TRICKS, 1, [4, 3, 2])


def test_task_fewest_tricks_strictly():
    assert _met(FEWEST_TRICKS, 2, [4, 3, 2])
    assert not _met(FEWEST_TRICKS, 2, [5, 2, 2])
    assert _met(FEWEST_TRICKS, 0, [0, 1, 4, 4])


def test_task_last_trick():
    assert _met(LAST_TRICK, 1, [3, 3, 3], last=1)
    assert not _met(LAST_TRICK, 0, [3, 3, 3], last=1)


@pytest.mark.parametrize("task,suit_card", [
    (NO_HEARTS, "2H"), (NO_DIAMONDS, "2D"), (NO_SPADES, "2S"), (NO_CLUBS, "2C")])
def test_task_no_suit_counts_printed_suit(task, suit_card):
    others = {NO_HEARTS: "3D 3S 3C", NO_DIAMONDS: "3H 3S 3C",
              NO_SPADES: "3H 3D 3C", NO_CLUBS: "3H 3D 3S"}[task]
    assert _met(task, 0, [1, 0, 0], [others, "", ""])
    assert not _met(task, 0, [2, 0, 0], [f"{others} {suit_card}", "", ""])
    assert _met(task, 1, [1, 0, 0], [f"{others} {suit_card}", "", ""])  # won nothing


def test_task_names_table():
    assert TASK_NAMES == ("no_trick", "one_trick", "two_tricks", "three_tricks", "most_tricks",
                          "fewest_tricks", "last_trick", "no_hearts", "no_diamonds",
                          "no_spades", "no_clubs")


# -- check-off ------------------------------------------------------------------------------


#: the 32 cards of the first eight tricks (Anna 2, Ben 2, Carla 1 with the 2C, Dan 3);
#: the last trick is then played with 9H AH 2H 3D
STANDARD_WON = ["3H 4H 5H 6H 7H 8H 4S 5S", "2D 4D 5D 6D 7D 8D AD 9D", "2C 6C 7C 8C",
                "2S 3S 6S 7S 8S 9S AS 9C 3C 4C 5C AC"]


def _last_trick_state(won_before, won_cards_before, chosen, hands, start=ANNA):
    """Four players before the last trick; ``hands`` one card each; no trumps."""
    s = play_state(hands, leader=(start + 1) % 4)
    s.tricks_won = list(won_before)
    s.won_cards = [mask(w) for w in won_cards_before]
    s.chosen = list(chosen)
    s.held = [tasks(0, 4, 6, 9), tasks(TWO_TRICKS, 5, 6, 7),
              tasks(NO_CLUBS, 1, 3, 8), tasks(MOST_TRICKS, 0, 5, 8)]
    s.start = start
    return s


def test_rule_book_check_off_example():
    s = _last_trick_state(
        won_before=[2, 2, 1, 3], won_cards_before=STANDARD_WON,
        chosen=[-1, TWO_TRICKS, NO_CLUBS, MOST_TRICKS],
        hands=["9H", "AH", "2H", "3D"], start=ANNA)
    g = s.game
    # Ben leads AH, Carla 2H, Dan 3D, Anna 9H: Anna wins the last trick
    play(s, "AH", "2H", "3D", "9H")
    assert s.tricks_won == [3, 2, 1, 3]
    # Ben met two_tricks at once (+1); Carla and Dan missed
    assert s.last_deltas == [0, 1, 0, 0]
    assert s.checked == [0, tasks(TWO_TRICKS), 0, 0] and s.totals == [0, 1, 0, 0]
    # Anna met "no clubs", which Carla chose and missed: she checks one of hers
    assert s.phase == CHECK_OFF and s.current_player == ANNA
    assert s.legal_actions() == [g.CHECK0 + t for t in (0, 4, 6, 9)]
    s.step(g.CHECK0 + 6)
    assert s.checked[ANNA] == tasks(6) and s.totals == [1, 1, 0, 0]
    assert s.last_deltas == [1, 0, 0, 0]
    assert s.phase == CARD_DRAFT and s.start == BEN and s.round_index == 1


def test_start_player_checks_only_once_however_many_tasks_met():
    # Carla (no clubs) and Dan (most tricks... here: no_trick) both miss
    # tasks Anna meets; Anna still checks exactly one
    s = _last_trick_state(
        won_before=[0, 2, 2, 4],
        won_cards_before=["", "2D 4D 5D 6D 7D 8D 9D 3H", "2C 6C 7C 8C 4H 5H 6H 7H",
                          "2S 3S 4S 5S 6S 7S 8S 9S AS 9C 3C 4C 5C AC 8H AH"],
        chosen=[-1, TWO_TRICKS, NO_CLUBS, NO_TRICK],
        hands=["AD", "9H", "2H", "3D"], start=ANNA)
    s.held[DAN] = tasks(NO_TRICK, 5, 6, 8)
    g = s.game
    play(s, "9H", "2H", "3D", "AD")  # Ben wins: 3 tricks, misses two_tricks
    assert s.tricks_won == [0, 3, 2, 4]
    # Anna has no trick and no clubs: meets Carla's, Dan's and not Ben's; once
    assert s.phase == CHECK_OFF and s.current_player == ANNA
    s.step(g.CHECK0 + 0)
    assert s.totals[ANNA] == 1 and s.phase == CARD_DRAFT


def test_no_check_off_when_nobody_missed_what_start_met():
    s = _last_trick_state(
        won_before=[2, 2, 1, 3], won_cards_before=STANDARD_WON,
        chosen=[-1, TWO_TRICKS, MOST_TRICKS, MOST_TRICKS],
        hands=["9H", "AH", "2H", "3D"], start=ANNA)
    play(s, "AH", "2H", "3D", "9H")
    # Ben met his; Carla and Dan missed "most tricks", which Anna (3, tied) missed too
    assert s.totals == [0, 1, 0, 0]
    assert s.phase == CARD_DRAFT


def test_start_player_gets_nothing_for_a_task_another_met():
    s = _last_trick_state(
        won_before=[2, 2, 1, 3], won_cards_before=STANDARD_WON,
        chosen=[-1, NO_CLUBS, MOST_TRICKS, MOST_TRICKS],
        hands=["9H", "AH", "2H", "3D"], start=ANNA)
    s.held[BEN] = tasks(NO_CLUBS, 5, 6, 7)
    play(s, "AH", "2H", "3D", "9H")
    # Anna meets "no clubs" - but Ben chose it and met it himself
    assert s.totals == [0, 1, 0, 0] and s.phase == CARD_DRAFT


# -- game end ---------------------------------------------------------------------------------


def test_all_four_checked_wins_and_ends_the_game():
    s = _last_trick_state(
        won_before=[2, 2, 1, 3], won_cards_before=STANDARD_WON,
        chosen=[-1, TWO_TRICKS, MOST_TRICKS, MOST_TRICKS],
        hands=["9H", "AH", "2H", "3D"], start=ANNA)
    s.checked[BEN] = tasks(5, 6, 7)
    s.totals = [0, 3, 0, 0]
    play(s, "AH", "2H", "3D", "9H")
    assert s.over and s.phase == GAME_OVER and s.current_player == -1
    assert s.winners() == [BEN] and s.legal_mask() == 0
    with pytest.raises(IllegalActionError, match="over"):
        s.step(0)


def test_several_finishing_in_the_same_round_share_the_win():
    s = _last_trick_state(
        won_before=[2, 2, 1, 3], won_cards_before=STANDARD_WON,
        chosen=[-1, TWO_TRICKS, NO_CLUBS, MOST_TRICKS],
        hands=["9H", "AH", "2H", "3D"], start=ANNA)
    g = s.game
    s.checked[BEN] = tasks(5, 6, 7)
    s.checked[ANNA] = tasks(0, 4, 9)
    s.totals = [3, 3, 0, 0]
    play(s, "AH", "2H", "3D", "9H")
    assert not s.over and s.phase == CHECK_OFF  # the start player's check comes first
    s.step(g.CHECK0 + 6)
    assert s.over and s.winners() == [ANNA, BEN]


def test_round_limit_truncates():
    # nobody can finish in one round (at most one check each), so one round truncates
    rng = random.Random(4)
    game = GeheimtrumpfGame(GeheimtrumpfOptions(num_players=4, round_limit=1))
    s = game.new_game(seed=4)
    while not (s.over or s.truncated):
        s.step(rng.choice(s.legal_actions()))
    assert s.truncated and not s.over and s.current_player == -1 and s.phase == GAME_OVER
    assert s.winners() == [] and s.legal_mask() == 0


def test_start_player_moves_left_each_round():
    game = GeheimtrumpfGame(GeheimtrumpfOptions(num_players=3, round_limit=5, first_start=1))
    s = game.new_game(seed=9, log=True)
    rng = random.Random(9)
    while not (s.over or s.truncated):
        s.step(rng.choice(s.legal_actions()))
    assert [r["start"] for r in s.log] == [(1 + i) % 3 for i in range(len(s.log))]


# -- misc ----------------------------------------------------------------------------------


def test_illegal_action_names_it_and_changes_nothing():
    s = drafted_game(4)
    before = (s.history[:], s.hands[:], s.layout, s.current_player)
    with pytest.raises(IllegalActionError) as e:
        s.step(0)  # playing 9.. a card during the draft
    msg = str(e.value)
    assert "AH" in msg and "player_1" in msg and "card_draft" in msg and "take" in msg
    assert (s.history, s.hands, s.layout, s.current_player) == before


def test_clone_is_independent():
    s = drafted_game(4)
    c = s.clone()
    c.step(c.legal_actions()[0])
    assert s.hands == [0, 0, 0, 0] and c.hands != s.hands and c.log is None
    assert len(s.history) + 1 == len(c.history)


@pytest.mark.parametrize("kwargs,msg", [
    ({"num_players": 2}, "num_players"),
    ({"num_players": 5}, "num_players"),
    ({"round_limit": 0}, "round_limit"),
    ({"round_limit": "10"}, "round_limit"),
    ({"first_start": 4}, "first_start"),
])
def test_bad_options(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        GeheimtrumpfOptions(**{"num_players": 4, **kwargs})


def test_bad_deck_orders_rejected():
    game = GeheimtrumpfGame(GeheimtrumpfOptions(round_limit=1))
    with pytest.raises(ValueError, match="deck orders needed"):
        game.new_state([])
    bad = order_with()
    bad[0], bad[40] = bad[40], bad[0]
    with pytest.raises(ValueError, match="number cards"):
        game.new_state([bad])


# -- random-play fuzz on the rules core ---------------------------------------------------


def _check_invariants(s) -> None:
    n = s.num_players
    assert all(s.checked[p] & ~s.held[p] == 0 for p in range(n))
    assert s.totals == [m.bit_count() for m in s.checked]
    assert all(h <= 2 for h in s.task_holders)
    if s.phase in (TASK_DRAFT,):
        return
    assert all(h.bit_count() == 4 for h in s.held)
    if s.phase == GAME_OVER:
        return
    # card conservation: every face-up card is in the layout, a hand, a trick or won
    face_up = sum(s.rows)
    assert face_up.bit_count() == 9 * n
    played = sum(s.won_cards) | sum(1 << c for c in s.trick.cards)
    parts = [s.layout, *s.hands, played]
    assert sum(p.bit_count() for p in parts) == face_up.bit_count()
    union = 0
    for p in parts:
        union |= p
    assert union == face_up
    assert sum(s.tricks_won) == len(s.tricks) and sum(len(c) for _, c, _ in s.tricks) == \
        sum(w.bit_count() for w in s.won_cards)
    if s.phase == CARD_DRAFT:
        assert not s.tricks and len(s.row_winners) == len(s.draft_rows) == s.draft_row
        assert s.current_player == (s.row_first(s.draft_row) + len(s.row_cards)) % n
    if s.phase in (TASK_CHOICE, PLAY, CHECK_OFF):
        assert s.layout == 0 and len(s.row_winners) == 9
    if s.phase == PLAY:
        sizes = [h.bit_count() for h in s.hands]
        assert sizes == [9 - len(s.tricks) - (s.trick.card_of(p) is not None)
                         for p in range(n)]
        assert all(s.chosen[p] >= 0 for p in range(n) if p != s.start)
        assert s.chosen[s.start] == -1
    if s.phase == CHECK_OFF:
        assert len(s.tricks) == 9 and s.current_player == s.start and s.start_may_check()


@pytest.mark.parametrize("n", [3, 4])
def test_fuzz_every_step_invariants(n):
    rng = random.Random(n)
    game = GeheimtrumpfGame(GeheimtrumpfOptions(num_players=n, round_limit=6))
    for g in range(40):
        s = game.new_game(seed=g, log=True)
        gained = [0] * n
        while not (s.over or s.truncated):
            legal = s.legal_actions()
            assert legal and s.current_player >= 0
            s.step(rng.choice(legal))
            if s.last_deltas:
                gained = [a + b for a, b in zip(gained, s.last_deltas)]
            _check_invariants(s)
        assert gained == s.totals
        assert s.round_index < 6 and len(s.log) == s.round_index + 1
        assert all(r["tricks_won"] is not None and sum(r["tricks_won"]) == 9 for r in s.log)


def _actions(mask: int) -> list[int]:
    """The set bits of ``mask``, lowest first: the legal actions, found in a few steps (a
    scan of every action was 40% of the fuzz below)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def test_fuzz_thousands_of_games_end_properly():
    rng = random.Random(11)
    games = {n: GeheimtrumpfGame(GeheimtrumpfOptions(num_players=n)) for n in (3, 4)}
    ended = 0
    for g in range(1500):
        game = games[3 + g % 2]
        s = game.new_game(seed=g)
        while not (s.over or s.truncated):
            legal = s.legal_mask()
            assert legal
            acts = _actions(legal)
            s.apply(rng.choice(acts))
        _check_invariants(s)
        if s.over:
            ended += 1
            assert s.winners() and all(s.totals[p] == 4 for p in s.winners())
            assert all(t < 4 for p, t in enumerate(s.totals) if p not in s.winners())
        else:
            assert s.round_index == game.round_limit - 1 and s.winners() == []
    assert ended > 1400  # random play nearly always finishes well inside 50 rounds
