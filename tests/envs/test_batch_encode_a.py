"""``encode_many`` of Wizard, Wunder Punkt and Silberne Ananas equals ``encode`` row by row.

The batched engine writes the observations of many games at once with
``encoder.encode_many(states, seats, out)``; policies were trained on
``encode``, so the batch must be bit for bit the same - in every phase,
after the game ended, for every seat (not only the one to act) and under
every option.  The states come from seeded random play, cloned at every
decision, mixed and cut into batches of many sizes.
"""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest

from stichzoo.envs import game_class
from stichzoo.envs.core.batch_bits import (
    bit_rows,
    by_relative_seat,
    popcount_u64,
    seat_lookups,
    small_ints,
    trick_columns,
    u64_rows,
    unpack_u64,
)
from stichzoo.envs.core.observation import put_bits
from stichzoo.policies.base import encoder_for

#: (game, options, games to play): every option that changes what an observation holds
CASES = [
    ("wizard", {"num_players": 3, "rounds": (1, 2, 19, 20)}, 8),
    ("wizard", {"num_players": 4}, 4),
    ("wizard", {"num_players": 4, "rounds": (3, 15), "dealer_bid_restriction": True,
                "first_dealer": 2}, 16),
    ("wizard", {"num_players": 5, "rounds": (12, 4), "dealer_bid_restriction": True}, 10),
    ("wizard", {"num_players": 6, "rounds": (1, 10), "first_dealer": 5}, 10),
    ("wunder_punkt", {"num_players": 3}, 10),
    ("wunder_punkt", {"num_players": 3, "larger_hands": True, "rounds": 2, "first_dealer": 1}, 10),
    ("wunder_punkt", {"num_players": 4, "rounds": 2}, 12),
    ("wunder_punkt", {"num_players": 5, "rounds": 3, "first_dealer": 4}, 10),
    ("wunder_punkt", {"num_players": 6, "rounds": 2}, 10),
    ("silberne_ananas", {}, 6),
    ("silberne_ananas", {"match": False, "first_dealer": 2}, 40),
    ("silberne_ananas", {"alone_variant": True, "target_score": 40, "first_dealer": 1}, 12),
    ("silberne_ananas", {"target_score": 1000}, 1),
]


def make_game(name: str, options: dict):
    cls = game_class(name)
    return cls(cls.Options(**options))


def random_states(game, games: int, seed: int) -> list:
    """A clone of the state at every decision of ``games`` random games, game-over states too."""
    rng = random.Random(seed)
    states = []
    for g in range(games):
        s = game.new_game(seed * 1000 + g)
        while True:
            states.append(s.clone())
            if s.over:
                break
            s.apply(rng.choice(s.legal_actions()))
    return states


def reference(encoder, states, seats) -> np.ndarray:
    """Row by row with the scalar ``encode`` (into a dirty buffer: it must overwrite all)."""
    ref = np.full((len(states), encoder.layout.size), 7.0, np.float32)
    for i, (s, p) in enumerate(zip(states, seats)):
        encoder.encode(s, p, ref[i])
    return ref


def check_batches(encoder, pairs: list, rng: random.Random) -> int:
    """Cut shuffled (state, seat) pairs into batches of mixed sizes; each must match."""
    rng.shuffle(pairs)
    sizes = [1, 2, 3, 5, 17, 64, 256, 600]
    i = k = 0
    while i < len(pairs):
        chunk = pairs[i:i + sizes[k % len(sizes)]]
        i += len(chunk)
        k += 1
        states = [s for s, _ in chunk]
        seats = [p for _, p in chunk]
        out = np.full((len(chunk), encoder.layout.size), -3.0, np.float32)
        encoder.encode_many(states, seats, out)
        ref = reference(encoder, states, seats)
        if not np.array_equal(out, ref):
            row = int(np.flatnonzero((out != ref).any(axis=1))[0])
            bad = np.flatnonzero(out[row] != ref[row])
            names = [next(p.name for p in encoder.layout.pieces
                          if encoder.layout.offsets[p.name] <= c
                          < encoder.layout.offsets[p.name] + p.size) for c in bad]
            s = states[row]
            raise AssertionError(
                f"row {row} (seat {seats[row]}, phase {s.phase_name}, decision "
                f"{len(s.history)}) differs in {sorted(set(names))}")
    return k


@pytest.mark.parametrize(("name", "options", "games"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_encode_many_equals_encode(name: str, options: dict, games: int):
    game = make_game(name, options)
    encoder = encoder_for(game)
    states = random_states(game, games, seed=len(options) * 7 + games)
    n = game.num_players
    assert any(s.over for s in states)
    phases = {s.phase for s in states}
    assert len(phases) >= 3, f"random play reached phases {phases} only"
    rng = random.Random(42)
    # every seat of every state where there are few, else three random seats per state
    per_state = n if len(states) * n <= 8000 else 3
    pairs = [(s, p) for s in states for p in rng.sample(range(n), per_state)]
    assert check_batches(encoder, pairs, rng) > 3


@pytest.mark.parametrize("name", ["wizard", "wunder_punkt", "silberne_ananas"])
def test_small_and_repeated_batches(name: str):
    game = make_game(name, {"num_players": 3})
    encoder = encoder_for(game)
    states = random_states(game, 1, seed=3)
    size = encoder.layout.size
    s = states[len(states) // 2]
    for seat in range(3):  # a batch of one, each seat
        out = np.full((1, size), 9.0, np.float32)
        encoder.encode_many([s], [seat], out)
        assert np.array_equal(out, reference(encoder, [s], [seat]))
    # the same state object twice, same and other seat; a numpy array of seats
    for seats in ([1, 1], np.array([0, 2]), (2, 0)):
        out = np.full((2, size), 9.0, np.float32)
        encoder.encode_many([s, s], seats, out)
        assert np.array_equal(out, reference(encoder, [s, s], list(seats)))
    # an empty batch writes nothing and does not fail
    encoder.encode_many([], [], np.zeros((0, size), np.float32))
    # the states are read, not changed
    before = reference(encoder, states, [0] * len(states))
    encoder.encode_many(states, [0] * len(states), np.zeros((len(states), size), np.float32))
    assert np.array_equal(before, reference(encoder, states, [0] * len(states)))


@pytest.mark.parametrize("name", ["wizard", "wunder_punkt", "silberne_ananas"])
def test_bad_out_is_refused(name: str):
    game = make_game(name, {"num_players": 3})
    encoder = encoder_for(game)
    states = random_states(game, 1, seed=5)[:4]
    seats = [0, 1, 2, 0]
    size = encoder.layout.size
    bad = [
        np.zeros((4, size), np.float64),  # wrong dtype
        np.zeros((4, size + 1), np.float32),  # wrong shape
        np.zeros((5, size), np.float32),
        np.zeros((4 * size,), np.float32),
        np.zeros((4, 2 * size), np.float32)[:, ::2],  # not contiguous
        np.zeros((4, size + 3), np.float32)[:, :size],
        np.asfortranarray(np.zeros((4, size), np.float32)),
        np.zeros((4, size), np.float32).tolist(),  # not an array
    ]
    for out in bad:
        with pytest.raises(ValueError):
            encoder.encode_many(states, seats, out)
    frozen = np.zeros((4, size), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError):
        encoder.encode_many(states, seats, frozen)
    with pytest.raises(ValueError):  # one seat too few
        encoder.encode_many(states, seats[:3], np.zeros((4, size), np.float32))


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_wizard_turned_wizard_and_jester(n: int):
    """Rare deals on purpose: a turned Wizard (the dealer chooses trump) and a turned Jester."""
    game = make_game("wizard", {"num_players": n, "rounds": (2, 3), "first_dealer": n - 1})
    encoder = encoder_for(game)
    rng = random.Random(n)
    states = []
    for turned in (52, 57):  # W1, N2
        orders = []
        for r in (2, 3):
            order = [c for c in range(60) if c != turned]
            rng.shuffle(order)
            order.insert(n * r, turned)
            orders.append(order)
        s = game.new_state(orders)
        while True:
            states.append(s.clone())
            if s.over:
                break
            s.apply(rng.choice(s.legal_actions()))
    assert sum(s.phase_name == "choose_trump" for s in states) == 2
    check_batches(encoder, [(s, p) for s in states for p in range(n)], rng)


def test_wunder_punkt_round_score_of_odd_positions():
    """Round scores are recounted from masks: a sore card among the won cards (a puzzle
    position may hold one) must count once, as ``round_score`` counts it."""
    game = make_game("wunder_punkt", {"num_players": 3})
    encoder = encoder_for(game)
    states = [
        game.position(["2h 5c", "3h 4s", "7h 8d"], ["Ac", "Kd", "Ah"], leader=1,
                      won=["Ac 2c Kc 9h", "Kd Qd", ""]),
        game.position(["2h 5c", "3h 4s", "7h 8d"], ["9c", "Kd", "Ah"], leader=2, trick="7h",
                      won=["Ac 2c Kc 9h Ad", "5d", "3s 4s 5s 6s 7s 8s 9s"]),
        game.position(["2h 5c", "3h 4s", "7h 8d"], ["9c", None, "Ah"]),
    ]
    pairs = [(s, p) for s in states for p in range(3)]
    out = np.zeros((len(pairs), encoder.layout.size), np.float32)
    encoder.encode_many([s for s, _ in pairs], [p for _, p in pairs], out)
    assert np.array_equal(out, reference(encoder, [s for s, _ in pairs], [p for _, p in pairs]))


def test_batch_bits_helpers():
    rng = random.Random(0)
    masks = [0, 1, (1 << 63) | 5, (1 << 64) - 1, *(rng.getrandbits(60) for _ in range(50))]
    for nbits in (1, 33, 52, 60, 64, 65, 130):
        wide = [m | (rng.getrandbits(nbits - 64) << 64) if nbits > 64 else m & ((1 << nbits) - 1)
                for m in masks]
        want = np.zeros((len(wide), nbits), np.float32)
        for i, m in enumerate(wide):
            put_bits(want[i], 0, m)
        assert np.array_equal(bit_rows(wide, nbits), want), nbits
    m = u64_rows(masks[:52], 4)
    assert m.shape == (13, 4)
    assert np.array_equal(popcount_u64(m), [[x.bit_count() for x in masks[i:i + 4]]
                                            for i in range(0, 52, 4)])
    assert unpack_u64(m, 64).shape == (13, 4, 64)
    with pytest.raises(ValueError):
        small_ints([1, 256], 2)
    with pytest.raises(ValueError):
        unpack_u64(m, 65)
    assert small_ints([1, 2, 3, 4], 2).tolist() == [[1, 2], [3, 4]]
    for n in (3, 4, 6):
        rel, abs_ = seat_lookups(n)
        for seat in range(n):
            for a in range(n):
                assert rel[seat, a] == (a - seat) % n
                assert abs_[seat, rel[seat, a]] == a
        table = np.arange(2 * 5 * n).reshape(2, 5 * n)
        got = by_relative_seat(table, (1, 2 + n), abs_[[0, n - 1]])
        assert got.shape == (2, 2, n)
        assert got[1, 1, 0] == table[1, 2 + n + n - 1]
        cols = trick_columns(n, 100, 10, dump=-1)
        assert cols[(2 % n * n + 1) * 256 + 7] == 100 + ((2 % n + 1) % n) * 10 + 7
        assert cols[(1 * n + 0) * 256 + 255] == -1


@pytest.mark.parametrize("name", ["wizard", "wunder_punkt", "silberne_ananas"])
def test_bad_seats_are_refused(name: str):
    game = make_game(name, {"num_players": 3})
    encoder = encoder_for(game)
    states = random_states(game, 1, seed=6)[:2]
    out = np.zeros((2, encoder.layout.size), np.float32)
    for seats in ([0, 3], [-1, 0]):
        with pytest.raises(ValueError):
            encoder.encode_many(states, seats, out)


def test_threads_do_not_share_work_arrays():
    """Two threads batching with one encoder (same batch size) get their own rows."""
    game = make_game("wizard", {"num_players": 4, "rounds": (5,)})
    encoder = encoder_for(game)
    states = random_states(game, 4, seed=8)
    batches = [(states[i::2][:40], [(i + k) % 4 for k in range(40)]) for i in range(2)]
    refs = [reference(encoder, st, se) for st, se in batches]
    failures: list[int] = []

    def work(i: int) -> None:
        st, se = batches[i]
        out = np.zeros((40, encoder.layout.size), np.float32)
        for _ in range(60):
            encoder.encode_many(st, se, out)
            if not np.array_equal(out, refs[i]):
                failures.append(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
