"""Wizard's exact endgame (``pimc:endgame=K``): the referee, the kernel's solver, the search.

Why: from K cards in the hand of the seat to act (play phase), each sampled
world's rest of the round is solved by max^n - each seat maximising its own
round score, ties to the lowest card id - in place of its play-out.  The
Python solver (``policies.games.wizard.endgame_values``, which tries one
Wizard and one Jester of a hand) must equal a brute force over the rules core
that tries every card; the kernel's ``solve`` and ``pimc(..., endgame=K)``
must equal the Python side value for value, and leave the search's generator
where the Python loop leaves it.
"""

from __future__ import annotations

import random

import pytest

import stichzoo.policies.lab  # noqa: F401 - registers the lab's pimc:endgame=
from stichzoo import envs
from stichzoo.envs import kernel
from stichzoo.envs.core.cards import bit_list
from stichzoo.policies.base import Decision
from stichzoo.policies.games.wizard import endgame_values, search_value
from stichzoo.policies.specs import build_policy

HAS_KERNEL = "wizard" in kernel.compiled_games() and kernel.core("wizard") == "c"


def _game(n: int, hand: int = 7):
    cls = envs.game_class("wizard")
    return cls(cls.Options(num_players=n, rounds=[hand, hand]))


def _position(game, seed: int, cards: int, into: int):
    """A random game in its first round's play: `cards` cards a hand, `into` of the trick
    played (random bids, random legal cards), the first such from `seed` on where the seat
    to act has a choice of two cards or more (one card a hand: none has)."""
    n = game.options.num_players
    while True:
        rng = random.Random(seed)
        s = game.new_game(rng.randrange(1 << 30))
        while s.phase_name != "play":
            s.apply(rng.choice(s.legal_actions()))
        hand = s.hands[s.current_player].bit_count()
        for _ in range((hand - cards) * n + into):
            s.apply(rng.choice(bit_list(s.legal_mask())))
        if cards == 1 or len(bit_list(s.legal_mask())) >= 2:
            return s
        seed += 1000


def _brute(root, seat: int) -> list[float]:
    """max^n over the rules core, every legal card tried: seat's value per legal card."""
    rnd = root.round_index

    def rec(s):
        if s.over or s.round_index != rnd:
            return s
        mover, best, best_gain = s.current_player, None, None
        for card in bit_list(s.legal_mask()):  # ascending ids, strict >: the lowest best
            c = s.clone()
            c.apply(card)
            end = rec(c)
            gain = end.totals[mover] - root.totals[mover]
            if best is None or gain > best_gain:
                best, best_gain = end, gain
        return best

    out = []
    for card in bit_list(root.legal_mask()):
        c = root.clone()
        c.apply(card)
        out.append(search_value(root, rec(c), seat))
    return out


@pytest.mark.parametrize("n,cards,into", [(3, 1, 0), (3, 2, 1), (3, 3, 2), (4, 2, 0),
                                          (4, 2, 3), (4, 3, 1), (5, 2, 2), (6, 2, 4)])
def test_python_endgame_equals_the_brute_force(n, cards, into):
    game = _game(n)
    for seed in range(3 if cards < 3 else 1):
        s = _position(game, 100 * n + 10 * cards + into + seed, cards, into)
        legal = bit_list(s.legal_mask())
        for seat in sorted({s.current_player, (s.current_player + 1) % n}):
            assert endgame_values(s, legal, seat) == _brute(s, seat), (n, cards, into, seed)


@pytest.mark.skipif(not HAS_KERNEL, reason="the kernel (with wizard) is not built")
@pytest.mark.parametrize("n", [3, 4, 6])
def test_kernel_solve_equals_the_referee(n):
    game = _game(n)
    k = kernel.load(game, force=True)
    for seed in range(4):
        s = _position(game, 500 + 10 * n + seed, 1 + seed % 3, seed % n)
        rows = kernel.twin(k, s)
        legal = bit_list(s.legal_mask())
        for seat in range(n):
            values, nodes = k.solve(rows, 0, 10**9, seat)
            assert list(values) == legal
            assert [values[a] for a in legal] == endgame_values(s, legal, seat)
            assert nodes >= 1 + len(legal)
    rows = kernel.twin(k, _position(game, 90 + n, 3, 0))
    assert k.solve(rows, 0, 3) is None  # past its node budget: not solved
    assert k.solve(rows, 0, 10**9) is not None


@pytest.mark.skipif(not HAS_KERNEL, reason="the kernel (with wizard) is not built")
@pytest.mark.parametrize("n", [3, 4])
def test_kernel_solve_runs_of_cards(n):
    """Four cards a hand, where the kernel tries one card of each run of a suit (no card of
    another hand or of the trick between): the referee tries every run's card."""
    game = _game(n)
    k = kernel.load(game, force=True)
    for seed in range(3):
        s = _position(game, 4000 + 10 * n + seed, 4, seed % n)
        rows = kernel.twin(k, s)
        legal = bit_list(s.legal_mask())
        seat = s.current_player
        values, _ = k.solve(rows, 0, 10**9, seat)
        assert [values[a] for a in legal] == endgame_values(s, legal, seat)


def _values(spec: str, game, state):
    policy = build_policy(spec, game, seed=13)
    got = policy.values(Decision(game, state))
    return [(v.action, v.value, v.stderr) for v in got.values], policy.rng.getstate()


@pytest.mark.skipif(not HAS_KERNEL, reason="the kernel (with wizard) is not built")
@pytest.mark.parametrize("n", [3, 4, 5])
def test_kernel_endgame_equals_the_python_loop(n):
    game = _game(n)
    for seed in range(3):
        s = _position(game, 700 + 10 * n + seed, 1 + seed, (seed + 1) % n)
        kernel_side = _values("pimc:endgame=3,worlds=4", game, s)
        python_side = _values("pimc:endgame=3,worlds=4,kernel=0", game, s)
        assert kernel_side == python_side, (n, seed)


def _bidding(game, seed: int):
    """A random game in its first round's bids, one bid made or more."""
    rng = random.Random(seed)
    s = game.new_game(rng.randrange(1 << 30))
    while s.phase_name != "bid":
        s.apply(rng.choice(s.legal_actions()))
    for _ in range(rng.randrange(game.options.num_players)):
        s.apply(rng.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("n,hand", [(3, 3), (4, 2), (5, 2)])
def test_bids_solved_in_short_rounds(n, hand):
    """A bid in a round of K cards or fewer: the other bids as the play-out makes them, then
    the round solved - the referee equals a brute force that makes those bids through the
    rules core and tries every card; the kernel equals the loop."""
    from stichzoo.policies.games.wizard import _bids_made

    game = _game(n, hand)
    for seed in range(3):
        s = _bidding(game, 60 + 10 * n + seed)
        bids = s.legal_actions()
        seat = s.current_player
        want = []
        for bid in bids:
            c = s.clone()
            c.apply(bid)
            played = _bids_made(c)
            mover = _brute(played, played.current_player)  # the mover's best: the lowest
            best = mover.index(max(mover))
            want.append(_brute(played, seat)[best])  # bids score nothing: totals unchanged
        assert endgame_values(s, bids, seat) == want
        if HAS_KERNEL:
            assert _values("pimc:endgame=3,worlds=3", game, s) == \
                _values("pimc:endgame=3,worlds=3,kernel=0", game, s)


def test_long_rounds_bid_by_play_outs():
    """A bid with more than K cards a hand: the play-outs decide, as without the lever."""
    game = _game(4, 6)
    s = _bidding(game, 5)
    assert _values("pimc:endgame=3,worlds=3,kernel=0", game, s) == \
        _values("pimc:worlds=3,kernel=0", game, s)
