"""Geheimtrumpf's reading pieces in the compiled kernel (envs/kernel/src/geheimtrumpf_reading.c).

Why: the reading (envs/geheimtrumpf/reading.py, chances.py, steering.py) is
the part of the observation that computes the most - chance estimates as
Poisson-binomials, the trick played ahead by the heuristic's steering - so
its floats are the easiest to get a last bit wrong (a sum in another order,
a tie broken the other way).  Every reading piece of every seat's view must
equal the Python encoder's bit for bit, in positions of random and of
heuristic games (the heuristic reaches the steering's task lines: exact
counts met, "last trick" kept, "no suit" shed), under every player count.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from stichzoo.envs import kernel

if kernel._kernel is None or "geheimtrumpf" not in kernel.compiled_games():  # pragma: no cover
    pytest.skip("the compiled kernel (with geheimtrumpf) is not built", allow_module_level=True)

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.kernel.differential import make
from stichzoo.policies.base import Decision
from stichzoo.policies.games.geheimtrumpf import Heuristic

#: the pieces write_reading fills (versions 1..4), in layout order
READING = ("trump_candidates", "trumps", "led_beaters", "trick_winner", "takes_trick",
           "overtake", "safe", "take_chances", "task_chances", "win_chances", "task_state",
           "trick_reading")


def _slices(encoder) -> dict[str, slice]:
    return {name: encoder.layout.slice(name) for name in READING}


def _play(options: dict, games: int, seed: int, policy: str) -> tuple[int, set[str]]:
    """Play ``games`` games in both cores; compare every seat's reading at every decision.

    Returns the number of observations compared and the pieces seen non-zero.
    """
    game, encoder, k = make("geheimtrumpf", options)
    slices = _slices(encoder)
    n = game.num_players
    rng = random.Random(seed)
    heuristic = Heuristic(game)
    states = k.new_states(1)
    py = np.zeros(encoder.layout.size, np.float32)
    kz = np.zeros(encoder.layout.size, np.float32)
    seen: set[str] = set()
    count = 0
    for g in range(games):
        deck_seed = rng.getrandbits(63)
        state = game.new_state(game.deal(random.Random(deck_seed)))
        k.start(states, 0, kernel.flat_orders(state.deck_orders))
        while not (state.over or state.truncated):
            for seat in range(n):
                encoder.encode(state, seat, py)
                k.encode(states, 0, seat, kz)
                for name, sl in slices.items():
                    a, b = py[sl], kz[sl]
                    if a.tobytes() != b.tobytes():
                        bad = np.flatnonzero(a.view(np.uint32) != b.view(np.uint32))
                        raise AssertionError(
                            f"{options} {policy} game {g} (deck seed {deck_seed}) decision "
                            f"{len(state.history)}, phase {state.phase_name}, seat {seat}: "
                            f"{name} differs at {bad[:8].tolist()} - python "
                            f"{a[bad[:8]].tolist()}, kernel {b[bad[:8]].tolist()}")
                    if a.any():
                        seen.add(name)
                count += 1
            legal = bit_list(state.legal_mask())
            if policy == "heuristic":
                action = heuristic.act(Decision(game, state))
            else:
                action = legal[rng.randrange(len(legal))]
            state.step(action)
            k.apply(states, 0, action)
    return count, seen


@pytest.mark.parametrize("options", [
    {"num_players": 4},
    {"num_players": 3},
    {"num_players": 4, "first_start": 3, "round_limit": 3},
    {"num_players": 3, "first_start": 2, "round_limit": 2},
], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_reading_random_play(options):
    count, seen = _play(options, games=1, seed=11, policy="random")
    assert count > 0
    assert {"trump_candidates", "win_chances", "trick_reading"} <= seen


@pytest.mark.parametrize("n", [3, 4])
def test_reading_heuristic_play(n):
    # heuristic games end in a few rounds; two games cover every reading piece
    _, seen = _play({"num_players": n}, games=2, seed=5 + n, policy="heuristic")
    assert seen == set(READING)


def test_reading_matches_encode_many():
    """The batch encoder (encode_many) writes the same reading as the kernel's encode."""
    game, encoder, k = make("geheimtrumpf", {"num_players": 4})
    slices = _slices(encoder)
    rng = random.Random(3)
    state = game.new_state(game.deal(random.Random(3)))
    states = k.new_states(1)
    k.start(states, 0, kernel.flat_orders(state.deck_orders))
    pys, kzs, seats = [], [], []
    for _ in range(260):  # the task draft, the card draft and the first tricks
        seat = state.current_player
        kz = np.zeros(encoder.layout.size, np.float32)
        k.encode(states, 0, seat, kz)
        pys.append(state.clone())
        kzs.append(kz)
        seats.append(seat)
        legal = bit_list(state.legal_mask())
        a = legal[rng.randrange(len(legal))]
        state.step(a)
        k.apply(states, 0, a)
    out = np.zeros((len(pys), encoder.layout.size), np.float32)
    encoder.encode_many(pys, seats, out)
    for i, kz in enumerate(kzs):
        for name, sl in slices.items():
            assert out[i, sl].tobytes() == kz[sl].tobytes(), (i, name)
