"""``encode_many`` of Hoch & Tief and Geheimtrumpf: bit for bit the scalar ``encode``.

The batched engine writes the observations of N games into one (N, size)
array with ``encode_many``; ``encode`` stays the reference.  Every test
compares the two on random states - every decision of seeded random games
(the game-over state included), determinized worlds, every seat or several
seats per state - in shuffled batches that mix phases, rounds and seats.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from stichzoo.envs import game_class
from stichzoo.policies.base import encoder_for

# (game, options): every player count and each option that changes the observation
# (round count, first dealer / start player, short games that reach game over)
CASES = [
    ("hoch_tief", {"num_players": 3}),
    ("hoch_tief", {"num_players": 4, "rounds": 2, "first_dealer": 3}),
    ("hoch_tief", {"num_players": 5, "rounds": 1, "first_dealer": 2}),
    ("hoch_tief", {"num_players": 6, "rounds": 1, "first_dealer": 5}),
    ("geheimtrumpf", {"num_players": 3, "round_limit": 2}),
    ("geheimtrumpf", {"num_players": 4, "round_limit": 2, "first_start": 2}),
    ("geheimtrumpf", {"num_players": 4}),  # long games: no game over, but deep rounds
    ("geheimtrumpf", {"num_players": 3, "round_limit": 3, "first_start": 1}),
]
IDS = [f"{g}-" + "-".join(f"{k}{v}" for k, v in o.items()) for g, o in CASES]
# what the collected states must cover, by (game, whether the games end)
REQUIRED_PHASES = {
    ("hoch_tief", True): {"play", "game_over"},
    ("geheimtrumpf", True): {"task_draft", "card_draft", "task_choice", "play", "check_off",
                             "game_over"},
    ("geheimtrumpf", False): {"task_draft", "card_draft", "task_choice", "play", "check_off"},
}


def make(name: str, options: dict):
    cls = game_class(name)
    game = cls(cls.Options(**options))
    return game, encoder_for(game)


def collect(game, games: int, seed: int, max_states: int = 2000) -> list:
    """A clone of the state at every decision of ``games`` random games, and each final state;
    plus, for some decisions, a determinized world of a random seat (search bots encode those)."""
    rng = random.Random(seed)
    out = []
    for g in range(games):
        s = game.new_game(seed * 1000 + g)
        for _ in range(max_states):
            out.append(s.clone())
            if s.over or s.truncated:
                break
            if rng.random() < 0.05:
                out.append(game.determinize(s, rng.randrange(game.num_players), rng))
            s.step(rng.choice(s.legal_actions()))
    return out


def reference(enc, states, seats) -> np.ndarray:
    ref = np.full((len(states), enc.layout.size), np.nan, np.float32)
    for i, (s, p) in enumerate(zip(states, seats)):
        enc.encode(s, p, ref[i])
    return ref


def batched(enc, states, seats) -> np.ndarray:
    out = np.full((len(states), enc.layout.size), 7.0, np.float32)  # all overwritten
    enc.encode_many(states, seats, out)
    return out


@pytest.mark.parametrize(("name", "options"), CASES, ids=IDS)
def test_encode_many_equals_encode(name, options):
    game, enc = make(name, options)
    n = game.num_players
    rng = random.Random(f"{name} {options}")
    states = collect(game, games=8 if name == "hoch_tief" else 4, seed=len(options) + n,
                     max_states=600)
    phases = {s.phase_name for s in states}
    assert phases >= REQUIRED_PHASES[name, "round_limit" in options or name == "hoch_tief"]
    pairs = []
    for s in states:  # every seat for a third of the states, two random seats otherwise
        seats = range(n) if rng.random() < 0.34 else rng.sample(range(n), 2)
        pairs += [(s, p) for p in seats]
    rng.shuffle(pairs)
    i = 0
    for size in [1, 2, 7, 64, 300, 1024] * 100:  # mixed batch sizes, the last one ragged
        if i >= len(pairs):
            break
        batch = pairs[i:i + size]
        i += size
        states_b = [s for s, _ in batch]
        seats_b = [p for _, p in batch]
        ref = reference(enc, states_b, seats_b)
        got = batched(enc, states_b, seats_b)
        assert got.dtype == np.float32
        if not np.array_equal(got, ref):
            bad = int(np.flatnonzero((got != ref).any(axis=1))[0])
            s, p = batch[bad]
            cols = np.flatnonzero(got[bad] != ref[bad])
            names = sorted({d["name"] for d in enc.layout.describe() for c in cols
                            if d["offset"] <= c < d["offset"] + d["size"]})
            raise AssertionError(f"{name} {options}: state in phase {s.phase_name}, seat {p}: "
                                 f"pieces {names} differ")


@pytest.mark.parametrize(("name", "options"), [CASES[1], CASES[5]], ids=[IDS[1], IDS[5]])
def test_small_and_repeated_batches(name, options):
    game, enc = make(name, options)
    n = game.num_players
    states = collect(game, games=1, seed=5, max_states=400)
    rng = random.Random(3)
    for s in [*rng.sample(states, 20), states[-1]]:
        for p in range(n):  # batch of one, every seat
            assert np.array_equal(batched(enc, [s], [p]), reference(enc, [s], [p]))
        # the same state object twice: same seat, then two seats
        q = rng.randrange(n)
        assert np.array_equal(batched(enc, [s, s], [q, q]), reference(enc, [s, s], [q, q]))
        pair = [q, (q + 1) % n]
        assert np.array_equal(batched(enc, [s, s], pair), reference(enc, [s, s], pair))
    # numpy ints as seats, a tuple of states, and an empty batch
    picked = tuple(rng.sample(states, 10))
    seats = np.arange(10) % n
    ref = reference(enc, picked, [int(p) for p in seats])
    assert np.array_equal(batched(enc, picked, seats), ref)
    enc.encode_many([], [], np.zeros((0, enc.layout.size), np.float32))


@pytest.mark.parametrize(("name", "options"), [CASES[0], CASES[4]], ids=[IDS[0], IDS[4]])
def test_states_are_only_read(name, options):
    game, enc = make(name, options)
    states = collect(game, games=1, seed=9, max_states=300)[::3]
    seats = [i % game.num_players for i in range(len(states))]
    before = reference(enc, states, seats)
    batched(enc, states, seats)
    assert np.array_equal(reference(enc, states, seats), before)


@pytest.mark.parametrize("name", ["hoch_tief", "geheimtrumpf"])
def test_bad_arguments_raise(name):
    game, enc = make(name, {"num_players": 4})
    s = game.new_game(1)
    size = enc.layout.size
    two = [s, s]
    frozen = np.zeros((2, size), np.float32)
    frozen.flags.writeable = False
    for out in (np.zeros((3, size), np.float32),  # wrong row count
                np.zeros((2, size + 1), np.float32),  # wrong width
                np.zeros(2 * size, np.float32),  # not 2-d
                np.zeros((2, size), np.float64),  # wrong dtype
                np.zeros((2, size), np.float16),
                np.zeros((2, size + 3), np.float32)[:, :size],  # not C-contiguous
                np.zeros((2, 2 * size), np.float32)[:, ::2],
                np.asfortranarray(np.zeros((2, size), np.float32)),
                frozen,
                np.zeros((2, size), np.float32).tolist()):  # not an array
        with pytest.raises(ValueError):
            enc.encode_many(two, [0, 1], out)
    out = np.zeros((2, size), np.float32)
    with pytest.raises(ValueError):
        enc.encode_many(two, [0], out)  # seats do not match the states
    out = np.zeros((1, size), np.float32)
    for seat in (-1, 4):
        with pytest.raises(ValueError):
            enc.encode_many([s], [seat], out)


def test_hoch_tief_suit_score_table():
    """The batch encoder's per-suit score table is ``score_taken`` of one suit's cards."""
    from stichzoo.envs.hoch_tief.encode import suit_scores
    from stichzoo.envs.hoch_tief.rules import lookups, score_taken

    rng = random.Random(0)
    for n in (3, 4, 5, 6):
        t = lookups(n)
        table = suit_scores(t.numbers)
        assert table.shape == (1 << t.numbers,)
        masks = range(1 << t.numbers) if n <= 4 else rng.sample(range(1 << t.numbers), 3000)
        for x in masks:
            assert table[x] == score_taken(x, t)
