"""Hoch & Tief's exact endgame in the kernel (``Kernel.solve``) against a brute force in Python.

Why: the solver (envs/kernel/src/hoch_tief_search.c, ``ht_solve``) claims the
max^n value of the rest of the round from a world with every hand known -
each seat maximising its own margin (its round score minus the mean of the
others', PIMC's search value), ties to the lowest card id.  The brute force
below walks the same tree over the Python rules core (``clone`` + ``apply``,
to the round's end) with the same rule, so the two must agree to 1e-12 on
every legal card and choose the same best card, on small endgames (1-3
cards a hand, mid-trick too) at every player count.  Past its node budget
the solver must say so (None), and bad input must raise, never crash.
"""

from __future__ import annotations

import contextlib
import random

import numpy as np
import pytest

from stichzoo import envs
from stichzoo.envs import kernel
from stichzoo.envs.core.cards import bit_list
from stichzoo.policies.games.hoch_tief import search_value

pytestmark = pytest.mark.skipif(
    "hoch_tief" not in kernel.compiled_games() or kernel.core("hoch_tief") != "c",
    reason="the kernel (with hoch_tief) is not built or is switched off")


def _game(n: int, rounds: int = 1):
    cls = envs.game_class("hoch_tief")
    return cls(cls.Options(num_players=n, rounds=rounds))


def _position(game, seed: int, cards: int, into_trick: int):
    """A random game's state: `cards` cards in each hand, `into_trick` of the trick played."""
    rng = random.Random(seed)
    s = game.new_game(rng.randrange(1 << 30))
    n = game.options.num_players
    target = (15 - cards) * n + into_trick
    played = 0
    while played < target:
        s.apply(rng.choice(bit_list(s.legal_mask())))
        played += 1
    return s


def _brute(root, seat: int) -> tuple[dict[int, float], int]:
    """max^n over the rules core: {card: seat's value} and the mover's best card."""
    n = len(root.totals)
    rnd = root.round_index

    def gains(end) -> list[int]:
        return [end.totals[p] - root.totals[p] for p in range(n)]

    def rec(s):  # the round's end state under max^n from s
        if s.over or s.round_index != rnd:
            return s
        mover = s.current_player
        best, best_key = None, None
        for card in bit_list(s.legal_mask()):  # ascending: strict > keeps the lowest id
            c = s.clone()
            c.apply(card)
            end = rec(c)
            g = gains(end)
            key = n * g[mover] - sum(g)  # the margin times n - 1, exactly
            if best is None or key > best_key:
                best, best_key = end, key
        return best

    values, keys = {}, {}
    mover = root.current_player
    for card in bit_list(root.legal_mask()):
        c = root.clone()
        c.apply(card)
        end = rec(c)
        values[card] = search_value(root, end, seat)
        g = gains(end)
        keys[card] = n * g[mover] - sum(g)
    best = max(sorted(keys), key=lambda a: keys[a])  # max keeps the first (lowest) of ties
    return values, best


def _kernel_state(game, state):
    k = kernel.load(game, force=True)
    rows = kernel.twin(k, state)
    assert rows is not None
    return k, rows


CASES = ([(n, c, t) for n in (3, 4, 5) for c in (1, 2, 3) for t in (0, 1, n - 1)]
         + [(6, c, t) for c in (1, 2) for t in (0, 2, 5)] + [(6, 3, 5), (6, 3, 0)]
         # four cards a hand: (3, 4, 0) with the transposition table on (from 4n cards)
         + [(3, 4, 0), (3, 4, 2), (4, 4, 3)])


@pytest.mark.parametrize("n,cards,into", CASES, ids=lambda v: str(v))
def test_solve_equals_the_brute_force(n, cards, into):
    game = _game(n, rounds=2)
    for seed in range(3 if cards < 3 else 1 if n * cards >= 16 else 2):
        s = _position(game, 1000 * n + 10 * cards + into + seed, cards, into)
        k, rows = _kernel_state(game, s)
        for seat in sorted({s.current_player, (s.current_player + 1) % n}):
            got = k.solve(rows, 0, 10**8, seat)
            assert got is not None
            values, nodes = got
            want, best = _brute(s, seat)
            assert sorted(values) == sorted(want) == bit_list(s.legal_mask())
            for a in want:
                assert abs(values[a] - want[a]) <= 1e-12, (n, cards, into, seed, a)
            assert nodes >= 1 + len(want)
            if seat == s.current_player:  # the same best card, ties to the lowest id
                assert max(sorted(values), key=lambda a: values[a]) == best
        assert k.solve(rows, 0, 10**8) == k.solve(rows, 0, 10**8, s.current_player)


def test_transposition_table_positions():
    """Four cards a hand at a trick's start: the solver's table is on (from 4n cards)."""
    game = _game(3, rounds=2)
    for seed in range(5):
        s = _position(game, 500 + seed, 4, 0)
        k, rows = _kernel_state(game, s)
        values, _ = k.solve(rows, 0, 10**8)
        want, best = _brute(s, s.current_player)
        assert all(abs(values[a] - want[a]) <= 1e-12 for a in want)
        assert max(sorted(values), key=lambda a: values[a]) == best


def test_last_round_and_last_card():
    """The game's last round (the solve ends at game over) and a single forced card."""
    game = _game(3, rounds=1)
    s = _position(game, 7, 1, 2)
    k, rows = _kernel_state(game, s)
    values, nodes = k.solve(rows, 0, 100)
    want, _ = _brute(s, s.current_player)
    (card, value), = want.items()
    assert list(values) == [card] and abs(values[card] - value) <= 1e-12
    assert nodes == 2


def test_budget_exhaustion_is_reported():
    game = _game(4)
    s = _position(game, 3, 5, 0)
    k, rows = _kernel_state(game, s)
    assert k.solve(rows, 0, 50) is None
    values, nodes = k.solve(rows, 0, 10**9)
    assert nodes > 50 and len(values) == len(bit_list(s.legal_mask()))
    assert k.solve(rows, 0, nodes) is not None and k.solve(rows, 0, nodes - 1) is None


def test_bad_input_raises():
    game = _game(4)
    s = _position(game, 5, 2, 1)
    k, rows = _kernel_state(game, s)
    with pytest.raises(ValueError):
        k.solve(rows, 0, 0)
    with pytest.raises(ValueError):
        k.solve(rows, 0, 100, 4)
    with pytest.raises(ValueError):
        k.solve(rows, 0, 100, -1)
    with pytest.raises((IndexError, ValueError)):
        k.solve(rows, 1, 100)
    with pytest.raises(TypeError):
        k.solve(rows, 0, "many")
    with pytest.raises((TypeError, ValueError)):
        k.solve(np.zeros((1, 3), np.uint8), 0, 100)
    bad = rows.copy()
    bad[0, :] = 255  # every field out of range: the state check refuses it
    with pytest.raises(ValueError):
        k.solve(bad, 0, 100)
    rng = np.random.default_rng(0)
    for _ in range(200):  # random byte flips: an exception or an answer, never a crash
        b = rows.copy()
        for _ in range(3):
            b[0, rng.integers(b.shape[1])] = rng.integers(256)
        with contextlib.suppress(ValueError):
            k.solve(b, 0, 10000)
    game1 = _game(4, rounds=1)
    s1 = _position(game1, 6, 1, 3)
    s1.apply(bit_list(s1.legal_mask())[0])
    assert s1.over
    k1, rows1 = _kernel_state(game1, s1)
    with pytest.raises(ValueError):
        k1.solve(rows1, 0, 100)
