"""The shared core: card notation, the one follow-suit function, the trick, layouts, options."""

from __future__ import annotations

import numpy as np
import pytest

from stichzoo.envs.core.cards import Deck, bit_list, bits, mask_of
from stichzoo.envs.core.game import build_options
from stichzoo.envs.core.observation import Layout, Piece, mask_bits_into, put_bits
from stichzoo.envs.core.tricks import Trick, follow_mask
from stichzoo.envs.wizard.rules import WizardOptions

DECK = Deck(["7h", "8h", "7s", "8s", "J1", "J2"], aliases={"J": [4, 5]})


def test_bits_and_masks():
    assert bit_list(0b101001) == [0, 3, 5] == list(bits(0b101001))
    assert mask_of([0, 3, 5]) == 0b101001
    assert bit_list(0) == []


def test_deck_notation_round_trip_and_aliases():
    assert DECK.parse("7h 8s") == [0, 3]
    assert DECK.parse("J, J") == [4, 5]
    assert DECK.format(DECK.parse("8h J2")) == ["8h", "J2"]
    assert DECK.format_mask(DECK.mask("8s 7h")) == ["7h", "8s"]
    with pytest.raises(ValueError, match="unknown card"):
        DECK.parse("9h")
    with pytest.raises(ValueError, match=r"7h.*more often"):
        DECK.parse("7h 7h")
    with pytest.raises(ValueError, match="more often"):
        DECK.parse("J J J")


HEARTS = DECK.mask("7h 8h")


def test_follow_holding_the_suit_must_follow():
    assert follow_mask(DECK.mask("7h 7s 8s"), HEARTS) == DECK.mask("7h")


def test_follow_void_plays_anything():
    hand = DECK.mask("7s 8s J1")
    assert follow_mask(hand, HEARTS) == hand


def test_follow_nothing_to_follow():
    hand = DECK.mask("7h 7s")
    assert follow_mask(hand, 0) == hand


def test_follow_free_cards_always_allowed():
    jokers = DECK.mask("J1 J2")
    assert follow_mask(DECK.mask("7h 7s J1"), HEARTS, free=jokers) == DECK.mask("7h J1")


def test_follow_forced_card_when_void():
    jokers = DECK.mask("J1 J2")
    assert follow_mask(DECK.mask("7s J1"), HEARTS, forced_if_void=jokers) == DECK.mask("J1")
    # holding the suit, the forced card is not forced (and not allowed)
    assert follow_mask(DECK.mask("7h J1"), HEARTS, forced_if_void=jokers) == DECK.mask("7h")


def test_trick_seats_and_completion():
    t = Trick(leader=2, num_players=3)
    assert t.empty and t.next_seat == 2
    t.play(0)
    t.play(3)
    assert t.seat_of(1) == 0 and t.next_seat == 1 and not t.complete
    assert t.card_of(0) == 3 and t.card_of(1) is None
    c = t.copy()
    t.play(5)
    assert t.complete and not c.complete
    assert t.as_dict(DECK.names) == {"leader": 2, "cards": ["7h", "8s", "J2"], "seats": [2, 0, 1]}


def test_layout_offsets_bounds_and_bits():
    lay = Layout([Piece("a", 3), Piece("b", 2, low=-5, high=5)])
    assert lay.size == 5 and lay.offsets == {"a": 0, "b": 3}
    assert list(lay.low) == [0, 0, 0, -5, -5]
    buf = np.zeros(lay.size, np.float32)
    put_bits(buf, 0, 0b101)
    assert list(buf) == [1, 0, 1, 0, 0]
    m = np.zeros(11, np.int8)
    mask_bits_into(m, (1 << 10) | 1)
    assert list(np.flatnonzero(m)) == [0, 10]
    with pytest.raises(ValueError, match="duplicate"):
        Layout([Piece("a", 1), Piece("a", 1)])


def test_unknown_option_is_named():
    with pytest.raises(ValueError, match=r"unknown option\(s\) 'colour'.*known options"):
        build_options(WizardOptions, "wizard", {"colour": 1})


def test_views_use_only_public_rules_api():
    """A player view rebuilds states through the rules' public API, never their private helpers."""
    import ast
    from pathlib import Path

    from stichzoo import envs

    root = Path(__file__).resolve().parents[2] / "envs"
    for game in envs.GAMES:
        tree = ast.parse((root / game / "view.py").read_text())
        private = []
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and "stichzoo" in node.module:
                private += [a.name for a in node.names if a.name.startswith("_")]
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                    and not (isinstance(node.value, ast.Name) and node.value.id == "self")):
                private.append(ast.unparse(node))
        assert not private, f"{game}/view.py uses private rules helpers: {private}"


def test_shuffle_is_random_shuffle_exactly():
    """The inlined shuffle draws what ``random.Random.shuffle`` draws: same order, same state."""
    import random

    from stichzoo.envs.core.game import shuffle

    for seed in range(400):
        for n in (0, 1, 2, 3, 7, 16, 36, 40, 60, 61, 100, 257):
            ours, theirs = random.Random(seed), random.Random(seed)
            a, b = list(range(n)), list(range(n))
            ours_rng_before = ours.getstate()
            shuffle(ours, a)
            theirs.shuffle(b)
            assert a == b and ours.getstate() == theirs.getstate()
            assert n < 2 or ours.getstate() != ours_rng_before


def test_shuffle_falls_back_for_other_generators():
    import random

    from stichzoo.envs.core.game import shuffle

    class Counting(random.Random):
        calls = 0

        def shuffle(self, x):
            Counting.calls += 1
            super().shuffle(x)

    cards = list(range(10))
    shuffle(Counting(1), cards)
    assert Counting.calls == 1 and sorted(cards) == list(range(10))
