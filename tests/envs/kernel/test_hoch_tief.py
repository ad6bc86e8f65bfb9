"""Hoch & Tief's compiled kernel (envs/kernel/src/hoch_tief.c) against the Python core.

Why: the Python core (envs/hoch_tief/rules.py, encode.py) is the referee;
the kernel must match it decision for decision and observation float for
float, for every player count and option, and must refuse what the rules
refuse: illegal ids, and states that are not states (random bytes, a field
out of range) - as an exception, never a crash.  The long run is
scripts/checks/check_kernel.py; this file is the fast subset.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from stichzoo.envs import kernel
from stichzoo.envs.core.game import IllegalActionError
from tests.envs.kernel.calls import assert_batch_calls_match, state_calls

pytestmark = pytest.mark.skipif("hoch_tief" not in kernel.compiled_games(),
                                reason="the kernel is built without hoch_tief")

if "hoch_tief" in kernel.compiled_games():
    from stichzoo.envs.kernel.differential import compare, make

# every player count, the default rounds (one per player), one round, many
# rounds and every first dealer somewhere
OPTIONS = [
    {},
    {"num_players": 3},
    {"num_players": 3, "rounds": 1, "first_dealer": 2},
    {"num_players": 4, "rounds": 5, "first_dealer": 3},
    {"num_players": 5},
    {"num_players": 5, "rounds": 2, "first_dealer": 4},
    {"num_players": 6},
    {"num_players": 6, "rounds": 1, "first_dealer": 5},
    {"num_players": 6, "rounds": 3, "first_dealer": 1},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: repr(o))
@pytest.mark.parametrize("policy", ["random", "mixed"])
def test_matches_python_core(options, policy):
    games = 20 if options.get("num_players", 4) >= 5 and options.get("rounds") is None else 40
    rep = compare("hoch_tief", options, games=games, seed=68 + len(options), policy=policy,
                  illegal_rate=0.05, replay_rate=0.01)
    assert rep.games == games and rep.endings["over"] == games


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_every_seats_observation(n):
    """Every seat's view (not only the actor's), first- and last-card play."""
    for policy in ("first", "last"):
        compare("hoch_tief", {"num_players": n, "rounds": 1}, games=3, seed=n, policy=policy,
                observe="all")


def test_fifty_rounds():
    compare("hoch_tief", {"num_players": 3, "rounds": 50, "first_dealer": 1}, games=1, seed=5)


def test_deal_matches_python():
    game, _, k = make("hoch_tief", {"num_players": 5, "rounds": 3})
    for seed in (0, 1, 2**32 - 1, 2**32, 2**63 - 1, 123456789012345):
        want = kernel.flat_orders(game.deal(random.Random(seed)))
        assert k.deal(seed) == want


def test_bad_options_refused():
    for opts in ([2, 2, 0], [7, 7, 0], [4, 0, 0], [4, 51, 0], [4, 4, 4], [4, 4, -1], [4, 4]):
        with pytest.raises(ValueError):
            kernel.Kernel("hoch_tief", opts)


def test_bad_deck_orders_refused():
    _game, _, k = make("hoch_tief", {"num_players": 4, "rounds": 2})
    states = k.new_states(1)
    good = bytearray(k.deal(3))
    for i, v in ((0, 60), (5, good[6]), (60 + 7, 255)):
        bad = bytearray(good)
        bad[i] = v
        with pytest.raises(ValueError):
            k.start(states, 0, bytes(bad))
    with pytest.raises(ValueError):
        k.start(states, 0, bytes(good[:-1]))


def _midgame(k, seed=7, moves=23):
    """A state some way into its first round, and the rng that played it."""
    states = k.new_states(1)
    k.start(states, 0, k.deal(seed))
    rng = random.Random(seed)
    for _ in range(moves):
        legal = [a for a in range(k.num_actions) if k.legal(states, 0) >> a & 1]
        k.apply(states, 0, rng.choice(legal))
    return states, rng


def test_illegal_ids_refused():
    _, _, k = make("hoch_tief", {"num_players": 4})
    states, _ = _midgame(k)
    mask = k.legal(states, 0)
    before = states.tobytes()
    for a in [-1, -(2**31), k.num_actions, 127, 128, 2**40] + [
            a for a in range(k.num_actions) if not mask >> a & 1]:
        with pytest.raises((IllegalActionError, OverflowError)):
            k.apply(states, 0, a)
    assert states.tobytes() == before
    # the batch step names the first illegal action and applies nothing
    legal = [a for a in range(k.num_actions) if mask >> a & 1]
    illegal = next(a for a in range(k.num_actions) if not mask >> a & 1)
    two = np.repeat(states, 2, axis=0)
    deltas = np.zeros((2, 4), np.int32)
    flags = np.zeros(2, np.uint8)
    got = k.step(two, np.array([0, 1], np.int64), np.array([legal[0], illegal], np.int64),
                 deltas, flags)
    assert got == 1 and two.tobytes() == np.repeat(states, 2, axis=0).tobytes()
    # a finished game takes no action
    states = k.new_states(1)
    k.start(states, 0, k.deal(1))
    while not k.head(states, 0)["over"]:
        m = k.legal(states, 0)
        k.apply(states, 0, (m & -m).bit_length() - 1)
    assert k.legal(states, 0) == 0
    with pytest.raises(IllegalActionError):
        k.apply(states, 0, 0)


# byte offsets of the fields of ht_state (hoch_tief.c) after the 48-byte kz_head;
# hands and taken cards are two 64-bit words of card ids per seat
HEAD_PHASE, HEAD_OVER, HEAD_TRUNCATED, HEAD_ROUND, HEAD_DECISIONS = 4, 8, 12, 16, 20
DEALER, LEADER, TRICKS, NTRICK, TRICK, VOIDS = 48, 52, 56, 60, 64, 70
HANDS = 80
TAKEN = HANDS + 6 * 16
SCORE = TAKEN + 6 * 16
ORDERS = SCORE + 6 * 4


@pytest.mark.parametrize("n", [3, 6])
def test_corrupted_fields_refused(n):
    _, _, k = make("hoch_tief", {"num_players": n, "rounds": 2})
    good, _ = _midgame(k, moves=2 * n + 1)  # one card in the current trick
    size = 15 * n
    i32 = [(0, n), (0, -2), (HEAD_PHASE, 2), (HEAD_PHASE, 1), (HEAD_OVER, 1), (HEAD_TRUNCATED, 1),
           (HEAD_ROUND, 2), (HEAD_ROUND, -1), (HEAD_DECISIONS, -1), (DEALER, n), (DEALER, -1),
           (LEADER, n), (LEADER, -1), (TRICKS, 16), (NTRICK, n), (NTRICK, -1),
           (24 + 4 * (n - 1), 2**31 - 1)]  # a total near overflow
    u8 = [(TRICK, size), (TRICK, 255), (VOIDS + n - 1, 32), (ORDERS + size + 3, size),
          (ORDERS + 2 * size - 1, 200)]
    i64 = [(HANDS + 8, -1), (TAKEN + (n - 1) * 16 + 8, -(2**63)),  # no card id >= 128
           (HANDS + 16 * (n - 1) + 8 * (15 * n // 64), 1 << 15 * n % 64)]  # card id 15n
    for off, v, fmt in ([(o, v, "<i4") for o, v in i32] + [(o, v, "<i8") for o, v in i64]
                        + [(o, v, "u1") for o, v in u8]):
        states = good.copy()
        states[0, off:off + np.dtype(fmt).itemsize] = np.array([v], fmt).view(np.uint8)
        for call in state_calls(k, states):
            with pytest.raises(k.KernelStateError):
                call()
        with pytest.raises(k.KernelStateError):
            k.apply(states, 0, 0)


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_random_bytes_never_crash(n):
    """Whole rows of random bytes are refused; random bytes written into a real state
    are refused or give a state the kernel can step (whatever it is, no crash)."""
    _, _, k = make("hoch_tief", {"num_players": n})
    rng = np.random.default_rng(n)
    for _ in range(50):
        states = rng.integers(0, 256, (1, k.state_size), dtype=np.uint8)
        for call in state_calls(k, states):
            with pytest.raises(k.KernelStateError):
                call()
    good, prng = _midgame(k, seed=n, moves=5 * n + 2)
    for _trial in range(300):
        states = good.copy()
        where = rng.integers(0, ORDERS + 2 * 15 * n, rng.integers(1, 4))
        states[0, where] = rng.integers(0, 256, len(where), dtype=np.uint8)
        try:
            for call in state_calls(k, states):
                call()
            for _ in range(3 * n):  # play on from the changed state
                mask = k.legal(states, 0)
                if not mask:
                    break
                legal = [a for a in range(k.num_actions) if mask >> a & 1]
                k.apply(states, 0, prng.choice(legal))
                for call in state_calls(k, states):
                    call()
        except k.KernelStateError:
            pass


def test_batch_calls_match_single_calls():
    """step/observe (the batch engine's calls) agree with apply/encode/legal."""
    _, _, k = make("hoch_tief", {"num_players": 5, "rounds": 2})
    assert_batch_calls_match(k, rows=16, first_seed=99, rng_seed=2, steps=160)
