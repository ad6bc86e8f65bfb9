"""What the games' kernel tests share: states at random points, every call that reads a
state, and the batch calls checked against the one-game calls.

The per-game files (``test_<game>.py``) say only what is their game's - its options,
its rare positions, its state's field offsets - and call these for the rest.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from stichzoo.envs import kernel
from stichzoo.envs.core.cards import bit_list


def some_states(k, count: int, seed: int, most_moves: int) -> np.ndarray:
    """``count`` games, each dealt from a seed and played up to ``most_moves`` random
    legal moves (so every phase, game over included, turns up)."""
    rng = random.Random(seed)
    states = k.new_states(count)
    for i in range(count):
        k.start(states, i, k.deal(rng.getrandbits(32)))
        for _ in range(rng.randrange(0, most_moves)):
            mask = k.legal(states, i)
            if not mask:
                break
            k.apply(states, i, rng.choice(bit_list(mask)))
    return states


def poke(k, states: np.ndarray, i: int, play_out: bool = True) -> bool:
    """Every call that reads state ``i``; True when the state was refused (then by every
    call alike).  An accepted state is played on: to its end (``play_out``; a state
    ``valid()`` accepts stays valid under legal actions) or one move."""
    out = np.zeros(k.obs_size, np.float32)
    try:
        k.valid(states, i)
    except kernel.Kernel.KernelStateError:
        for call in (lambda: k.legal(states, i), lambda: k.encode(states, i, 0, out),
                     lambda: k.win_share(states, i), lambda: k.apply(states, i, 0)):
            with pytest.raises(kernel.Kernel.KernelStateError):
                call()
        return True
    rng = random.Random(i)
    while True:
        mask = k.legal(states, i)
        for seat in range(k.num_players):
            k.encode(states, i, seat, out)
        k.win_share(states, i)
        if not mask:
            return False
        if not play_out:
            k.apply(states, i, (mask & -mask).bit_length() - 1)
            return False
        k.apply(states, i, rng.choice(bit_list(mask)))


def put(states: np.ndarray, off: int, size: int, value: int) -> None:
    """Write ``value`` (little-endian, ``size`` bytes) at byte ``off`` of state row 0."""
    states[0, off:off + size] = np.frombuffer(
        int(value).to_bytes(size, "little", signed=value < 0 or size == 4), np.uint8)


def state_calls(k, states: np.ndarray) -> Iterator[Callable[[], object]]:
    """Every call that reads state row 0; each must raise KernelStateError or succeed."""
    obs = np.zeros(k.obs_size, np.float32)
    yield lambda: k.legal(states, 0)
    yield lambda: k.win_share(states, 0)
    for seat in range(k.num_players):
        yield lambda seat=seat: k.encode(states, 0, seat, obs)
    yield lambda: k.observe(states, None, np.zeros((1, k.obs_size), np.float32),
                            np.zeros((1, k.num_actions), np.int8), np.zeros(1, np.int64))


def assert_batch_calls_match(k, rows: int, first_seed: int, rng_seed: int, steps: int) -> None:
    """``rows`` games stepped by ``step``/``observe`` (the batch engine's calls) and by
    ``apply``/``encode``/``legal`` one at a time agree - masks, observations, flags, deltas
    and the states themselves after every step - and every game is played to its end
    within ``steps`` steps."""
    n = k.num_players
    states = k.new_states(rows)
    k.new_games(states, np.arange(rows, dtype=np.int64),
                np.arange(rows, dtype=np.uint64) + first_seed)
    single = states.copy()
    obs = np.zeros((rows, k.obs_size), np.float32)
    mask = np.zeros((rows, k.num_actions), np.int8)
    to_act = np.zeros(rows, np.int64)
    deltas = np.zeros((rows, n), np.int32)
    flags = np.zeros(rows, np.uint8)
    one = np.zeros(k.obs_size, np.float32)
    rng = random.Random(rng_seed)
    for _ in range(steps):
        k.observe(states, None, obs, mask, to_act)
        live = np.flatnonzero(to_act >= 0)
        if not len(live):
            break
        acts = []
        for i in live.tolist():
            m = k.legal(single, i)
            assert bit_list(m) == np.flatnonzero(mask[i]).tolist()
            k.encode(single, i, int(to_act[i]), one)
            assert obs[i].tobytes() == one.tobytes()
            acts.append(rng.choice(bit_list(m)))
        flags[:] = 0
        assert k.step(states, live.astype(np.int64), np.array(acts, np.int64), deltas, flags) == -1
        for i, a in zip(live.tolist(), acts):
            f, d = k.apply(single, i, a)
            assert f == flags[i] and (not f & kernel.KZ_DELTAS or tuple(deltas[i]) == d)
        assert states.tobytes() == single.tobytes()
    k.observe(states, None, obs, mask, to_act)
    assert (to_act == -1).all()  # every game played to its end
