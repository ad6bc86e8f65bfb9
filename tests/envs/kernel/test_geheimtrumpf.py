"""Geheimtrumpf's compiled kernel (envs/kernel/src/geheimtrumpf.c) against the Python core.

Why: the Python core (envs/geheimtrumpf/rules.py, encode.py) is the referee;
the kernel must match it decision for decision and observation float for
float, for both player counts and every option, and must refuse what the
rules refuse: illegal ids, and states that are not states (random bytes, a
field out of range) - as an exception, never a crash.  The observation's
reading pieces (reading.py, chances.py, steering.py) are written by
geheimtrumpf_reading.c; here every other piece is compared, every seat's
view at every decision.  The long run is scripts/checks/check_kernel.py;
this file is the fast subset.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from stichzoo.envs import kernel
from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.game import IllegalActionError
from tests.envs.kernel.calls import assert_batch_calls_match, state_calls

pytestmark = pytest.mark.skipif("geheimtrumpf" not in kernel.compiled_games(),
                                reason="the kernel is built without geheimtrumpf")

if "geheimtrumpf" in kernel.compiled_games():
    from stichzoo.envs.kernel.differential import compare, make

# both player counts, every first start player, the default round limit (games
# end with winners), short limits (truncated games, the limit's last round)
OPTIONS = [
    {},
    {"num_players": 3},
    {"num_players": 3, "first_start": 2, "round_limit": 3},
    {"num_players": 3, "first_start": 1, "round_limit": 12},
    {"num_players": 4, "first_start": 3, "round_limit": 1},
    {"num_players": 4, "first_start": 1, "round_limit": 7},
    {"num_players": 4, "first_start": 2, "round_limit": 20},
]

#: the pieces geheimtrumpf_reading.c writes (compared once that file is in)
READING = ("trump_candidates", "trumps", "led_beaters", "trick_winner", "takes_trick", "overtake",
           "safe", "take_chances", "task_chances", "win_chances", "task_state", "trick_reading")


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: repr(o))
@pytest.mark.parametrize("policy", ["random", "mixed"])
def test_matches_python_core(options, policy):
    """Masks, phases, seats, totals, deltas, endings, win shares, illegal ids, replays."""
    games = 6
    rep = compare("geheimtrumpf", options, games=games, seed=68 + len(options), policy=policy,
                  observe="none", illegal_rate=0.05, replay_rate=0.01)
    assert rep.games == games and rep.decisions >= games * (4 * 3 + 9 * 3 + 2 + 9 * 3)


def _observations_match(options, games, seed, policy):
    """Play ``games`` games in both cores; every seat's observation at every decision
    must agree bit for bit outside the reading pieces."""
    game, encoder, k = make("geheimtrumpf", options)
    layout = encoder.layout
    keep = np.ones(layout.size, bool)
    for name in READING:
        keep[layout.slice(name)] = False
    rng = random.Random(seed)
    states = k.new_states(1)
    py, kz = np.zeros(layout.size, np.float32), np.zeros(layout.size, np.float32)
    seen = 0
    for g in range(games):
        deck_seed = rng.getrandbits(63)
        state = game.new_game(deck_seed)
        k.start(states, 0, k.deal(deck_seed))
        while True:
            for seat in range(game.num_players):
                encoder.encode(state, seat, py)
                k.encode(states, 0, seat, kz)
                bad = np.flatnonzero((py.view(np.uint32) != kz.view(np.uint32)) & keep)
                if len(bad):
                    pieces = sorted({p["name"] for p in layout.describe() for i in bad
                                     if p["offset"] <= i < p["offset"] + p["size"]})
                    raise AssertionError(
                        f"{options} game {g} decision {len(state.history)} seat {seat}: "
                        f"{pieces} at {bad[:6].tolist()}: python {py[bad[:6]].tolist()}, "
                        f"kernel {kz[bad[:6]].tolist()}")
                seen += 1
            if state.over or state.truncated:
                break
            legal = bit_list(state.legal_mask())
            action = {"random": legal[rng.randrange(len(legal))], "first": legal[0],
                      "last": legal[-1]}[policy]
            state.step(action)
            k.apply(states, 0, action)
    return seen


@pytest.mark.parametrize("options", [OPTIONS[0], OPTIONS[1], OPTIONS[2], OPTIONS[5]],
                         ids=lambda o: repr(o))
def test_every_seats_observation(options):
    for policy, games in (("random", 2), ("first", 1), ("last", 1)):
        assert _observations_match(options, games, seed=len(options), policy=policy) > 100


def test_long_round_limit():
    """The largest round limit: 10,000 deck orders in the state."""
    rep = compare("geheimtrumpf", {"num_players": 3, "round_limit": 10_000}, games=1, seed=3,
                  observe="none")
    assert rep.endings["over"] == 1


def test_deal_matches_python():
    game, _, k = make("geheimtrumpf", {"num_players": 3, "round_limit": 30})
    assert k.num_orders == 30 and k.order_len == 51 and k.num_actions == 105
    for seed in (0, 1, 2**32 - 1, 2**32, 2**63 - 1, 123456789012345):
        assert k.deal(seed) == kernel.flat_orders(game.deal(random.Random(seed)))


def test_sizes_match_python():
    for n in (3, 4):
        _, encoder, k = make("geheimtrumpf", {"num_players": n})
        assert (k.num_players, k.obs_size) == (n, encoder.layout.size)


def test_bad_options_refused():
    for opts in ([2, 50, 0], [5, 50, 0], [4, 0, 0], [4, 10_001, 0], [4, 50, 4], [3, 50, 3],
                 [4, 50, -1], [4, 50], [4, 50, 0, 0]):
        with pytest.raises(ValueError):
            kernel.Kernel("geheimtrumpf", opts)


def test_bad_deck_orders_refused():
    _, _, k = make("geheimtrumpf", {"num_players": 4, "round_limit": 2})
    states = k.new_states(1)
    good = bytearray(k.deal(3))
    # a number card in the suit stack, a card twice, a stack card out of its stack,
    # an id past the deck - in the first or the second order
    for i, v in ((0, 36), (5, good[6]), (51 + 40, 41), (51 + 50, 40), (51 + 7, 255)):
        bad = bytearray(good)
        bad[i] = v
        with pytest.raises(ValueError):
            k.start(states, 0, bytes(bad))
    with pytest.raises(ValueError):
        k.start(states, 0, bytes(good[:-1]))
    k.start(states, 0, bytes(good))


def _play(k, states, rng, moves):
    for _ in range(moves):
        mask = k.legal(states, 0)
        if not mask:
            return
        k.apply(states, 0, rng.choice(bit_list(mask)))


def _midgame(k, seed=7, moves=23):
    """A state ``moves`` decisions into its game, and the rng that played it."""
    states = k.new_states(1)
    k.start(states, 0, k.deal(seed))
    rng = random.Random(seed)
    _play(k, states, rng, moves)
    return states, rng


def test_illegal_ids_refused():
    _, _, k = make("geheimtrumpf", {"num_players": 4})
    for moves in (3, 16 + 10, 16 + 36 + 3 + 5):  # task draft, card draft, play
        states, _ = _midgame(k, moves=moves)
        mask = k.legal(states, 0)
        before = states.tobytes()
        for a in [-1, -(2**31), k.num_actions, 127, 128, 2**40] + [
                a for a in range(k.num_actions) if not mask >> a & 1]:
            with pytest.raises((IllegalActionError, OverflowError)):
                k.apply(states, 0, a)
        assert states.tobytes() == before
    # the batch step names the first illegal action and applies nothing
    legal = bit_list(mask)
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


# byte offsets of gt_state's fields (geheimtrumpf.h); kz_head is the first 48 bytes
HEAD_PHASE, HEAD_OVER, HEAD_TRUNCATED, HEAD_ROUND = 4, 8, 12, 16
HEAD_DECISIONS, HEAD_TOTALS = 20, 24
TRUMP_MASK, ROWS, LAYOUT, HANDS, WON_CARDS, FOLLOW = 48, 56, 128, 136, 168, 200
START, TRUMP_SUIT, TRUMP_VALUE, DRAW, LAST_WINNER = 208, 212, 213, 214, 215
HELD, CHECKED, TASK_HOLDERS, CHOSEN, TRICKS_WON = 216, 224, 232, 243, 247
ROWS_DRAFTED, DRAFT_ROWS, ROW_WINNERS = 251, 252, 288
ROW_LEN, ROW_CARDS, NUM_TRICKS, TRICK_LEADERS, TRICK_WINNERS, TRICKS = 297, 298, 302, 303, 312, 321
TRICK_LEADER, TRICK_LEN, TRICK_CARDS, ORDERS = 357, 358, 359, 363

# (moves into the game, [(offset, value, numpy type)]) - each must be refused
_CORRUPTIONS = {
    "card_draft": (16 + 10, [
        (0, 4, "<i4"), (0, -1, "<i4"), (HEAD_PHASE, 6, "<i4"), (HEAD_PHASE, -1, "<i4"),
        (HEAD_PHASE, 0, "<i4"), (HEAD_PHASE, 5, "<i4"), (HEAD_OVER, 1, "<i4"),
        (HEAD_TRUNCATED, 2, "<i4"), (HEAD_ROUND, 50, "<i4"), (HEAD_ROUND, -1, "<i4"),
        (HEAD_DECISIONS, -1, "<i4"), (HEAD_DECISIONS, 2**31 - 1, "<i4"),
        (HEAD_TOTALS, 5, "<i4"), (HEAD_TOTALS + 4, -1, "<i4"),
        (ROWS + 8, 1 << 40, "<u8"), (LAYOUT, 1 << 36, "<u8"), (HANDS + 8, 1 << 63, "<u8"),
        (HANDS, 0, "<u8"), (WON_CARDS + 24, 1 << 50, "<u8"), (FOLLOW, 1 << 36, "<u8"),
        (START, 4, "<i4"), (START, -1, "<i4"), (TRUMP_SUIT, 4, "i1"), (TRUMP_SUIT, -2, "i1"),
        (TRUMP_VALUE, 10, "i1"), (TRUMP_VALUE, -1, "i1"), (DRAW, 50, "u1"), (DRAW, 255, "u1"),
        (TRUMP_MASK, 1, "<u8"), (LAST_WINNER, 4, "i1"), (LAST_WINNER, -2, "i1"),
        (HELD, 1 << 11, "<u2"), (CHECKED + 2, 1, "<u2"), (TASK_HOLDERS + 3, 3, "u1"),
        (CHOSEN + 1, 11, "i1"), (CHOSEN, -2, "i1"), (TRICKS_WON + 2, 10, "u1"),
        (TRICKS_WON, 1, "u1"), (ROWS_DRAFTED, 10, "u1"), (ROWS_DRAFTED, 9, "u1"),
        (DRAFT_ROWS + 1, 36, "u1"), (ROW_WINNERS, 4, "i1"), (ROW_WINNERS, -1, "i1"),
        (ROW_LEN, 4, "u1"), (ROW_LEN, 255, "u1"), (NUM_TRICKS, 10, "u1"),
        (TRICK_LEADER, 4, "u1"), (TRICK_LEN, 5, "u1")]),
    "play": (16 + 36 + 3 + 5, [
        (0, 3, "<i4"), (HEAD_PHASE, 2, "<i4"), (HEAD_PHASE, 4, "<i4"), (NUM_TRICKS, 9, "u1"),
        (NUM_TRICKS, 2, "u1"), (TRICK_LEADERS, 4, "u1"), (TRICKS + 2, 36, "u1"),
        (TRICK_LEN, 4, "u1"), (TRICK_LEN, 0, "u1"), (TRICK_CARDS, 200, "u1"),
        (FOLLOW, 0, "<u8"), (HANDS, 0, "<u8"), (TRICKS_WON + 1, 9, "u1"),
        (DRAFT_ROWS + 35, 40, "u1"), (ROW_WINNERS + 8, 7, "i1")]),
}


@pytest.mark.parametrize("where", sorted(_CORRUPTIONS))
def test_corrupted_fields_refused(where):
    _, _, k = make("geheimtrumpf", {"num_players": 4, "round_limit": 2})
    moves, changes = _CORRUPTIONS[where]
    good, _ = _midgame(k, moves=moves)
    k.valid(good, 0)
    for off, v, fmt in changes:
        states = good.copy()
        new = np.array([v], fmt).view(np.uint8)
        assert states[0, off:off + len(new)].tobytes() != new.tobytes(), (where, off, v)
        states[0, off:off + len(new)] = new
        for call in state_calls(k, states):
            with pytest.raises(k.KernelStateError):
                call()
        with pytest.raises(k.KernelStateError):
            k.apply(states, 0, 0)


def test_corrupted_next_deck_order_refused():
    """The deck order of the next round is checked before a decision deals it."""
    _, _, k = make("geheimtrumpf", {"num_players": 3, "round_limit": 3})
    states, _ = _midgame(k, moves=12 + 27 + 2 + 26)  # the round's last card is next
    assert k.head(states, 0)["phase"] == 3
    states[0, ORDERS + 51 + 40] = 41
    with pytest.raises(k.KernelStateError):
        k.legal(states, 0)


@pytest.mark.parametrize("n", [3, 4])
def test_random_bytes_never_crash(n):
    """Whole rows of random bytes are refused; random bytes written into a real state
    are refused or give a state the kernel can step (whatever it is, no crash)."""
    _, _, k = make("geheimtrumpf", {"num_players": n, "round_limit": 3})
    rng = np.random.default_rng(n)
    for _ in range(50):
        states = rng.integers(0, 256, (1, k.state_size), dtype=np.uint8)
        for call in state_calls(k, states):
            with pytest.raises(k.KernelStateError):
                call()
    for moves in (4 * n - 1, 4 * n + 5, 4 * n + 9 * n + 2 + n, 4 * n + 9 * n + n + 8 * n + 1):
        good, prng = _midgame(k, seed=n + moves, moves=moves)
        for _ in range(150):
            states = good.copy()
            where = rng.integers(0, ORDERS + 3 * 51, rng.integers(1, 4))
            states[0, where] = rng.integers(0, 256, len(where), dtype=np.uint8)
            try:
                for call in state_calls(k, states):
                    call()
                for _ in range(2 * n):  # play on from the changed state
                    mask = k.legal(states, 0)
                    if not mask:
                        break
                    k.apply(states, 0, prng.choice(bit_list(mask)))
                    for call in state_calls(k, states):
                        call()
            except k.KernelStateError:
                pass


def test_batch_calls_match_single_calls():
    """step/observe (the batch engine's calls) agree with apply/encode/legal."""
    _, _, k = make("geheimtrumpf", {"num_players": 3, "round_limit": 2})
    assert_batch_calls_match(k, rows=12, first_seed=99, rng_seed=2, steps=300)
