"""Wunder Punkt's compiled kernel (envs/kernel/src/wunder_punkt.c) against the Python core.

Why: the Python rules core is the referee; the kernel must agree with it
decision for decision (masks, deltas, totals, phases, the game's end, win
shares, the deal) and observation for observation, bit for bit, under every
option and player count - and must refuse illegal ids and corrupted states
with an exception, never a crash.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from stichzoo.envs import kernel
from stichzoo.envs.core.game import IllegalActionError

if kernel._kernel is None:  # pragma: no cover - only without a C compiler
    pytest.skip("the compiled kernel is not built", allow_module_level=True)

from stichzoo.envs.kernel.differential import compare, make
from stichzoo.envs.wunder_punkt.rules import DECK_SIZE, GAME_OVER, PLAY
from tests.envs.kernel.calls import assert_batch_calls_match, poke, some_states

#: every player count and option the Python core offers
OPTION_SETS = [
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 5},
    {"num_players": 6},
    {"num_players": 3, "larger_hands": True},
    {"num_players": 4, "rounds": 1, "first_dealer": 3},
    {"num_players": 5, "rounds": 2, "first_dealer": 4},
    {"num_players": 6, "rounds": 9, "first_dealer": 2},
    {"num_players": 3, "larger_hands": True, "rounds": 5, "first_dealer": 1},
]

#: wp_state's layout (wunder_punkt.c): kz_head (48 bytes), then these fields
HEAD = {"current_player": 0, "phase": 4, "over": 8, "truncated": 12, "round_index": 16,
        "decisions": 20}
TOTALS = 24
DEALER, LEADER, TRICK_LEN, SORE_CARDS, TRICK, HANDS, WON, REMOVED, ORDERS = (
    48, 52, 56, 60, 66, 72, 120, 168, 176)


def _id(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())


@pytest.mark.parametrize("options", OPTION_SETS, ids=_id)
def test_random_play_matches_python(options):
    rep = compare("wunder_punkt", options, games=6, seed=68, policy="random", observe="all",
                  illegal_rate=0.05, replay_rate=0.01)
    assert rep.games == 6 and rep.endings["over"] == 6 and rep.illegal_tries > 0


@pytest.mark.parametrize("policy", ["first", "last", "mixed"])
@pytest.mark.parametrize("options", [OPTION_SETS[0], OPTION_SETS[1], OPTION_SETS[3],
                                     OPTION_SETS[4]], ids=_id)
def test_extreme_play_matches_python(options, policy):
    # "first" lays low clubs and leads Aces (all-Ace tricks, nobody wins);
    # "last" plays high spades (foreign-suit ties, the first played keeps them)
    rep = compare("wunder_punkt", options, games=3, seed=7, policy=policy, observe="actor")
    assert rep.games == 3


def test_all_ace_tricks_match_python():
    """Aces played whenever held: tricks of Aces only (nobody wins, the cards leave) happen."""
    seen = []

    def aces_first(state, legal, rng):
        seen.append(state.removed)
        aces = [a for a in legal if a < DECK_SIZE and a % 13 == 0]
        return aces[0] if aces else legal[rng.randrange(len(legal))]

    for options in ({"num_players": 3}, {"num_players": 4}):
        compare("wunder_punkt", options, games=8, seed=5, policy=aces_first, observe="all")
    assert any(seen)


@pytest.mark.parametrize("options", OPTION_SETS, ids=_id)
def test_config_and_deal(options):
    game, encoder, k = make("wunder_punkt", options)
    assert (k.num_players, k.num_actions, k.obs_size) == (
        game.num_players, game.num_actions, encoder.layout.size)
    assert (k.num_orders, k.order_len) == (game.num_rounds, len(game.used_list))
    for seed in (0, 1, 2**32 - 1, 2**32, 2**63 - 1):
        orders = game.deal(random.Random(seed))
        assert k.deal(seed) == bytes(c for o in orders for c in o)


@pytest.mark.parametrize("opts", [[2, 0, 2, 0], [7, 0, 7, 0], [4, 1, 4, 0], [3, 2, 3, 0],
                                  [4, 0, 0, 0], [4, 0, 101, 0], [4, 0, 4, 4], [4, 0, 4, -1],
                                  [4, 0, 4]])
def test_bad_options_refused(opts):
    with pytest.raises(ValueError):
        kernel.Kernel("wunder_punkt", opts)


def test_bad_deck_orders_refused():
    _, _, k = make("wunder_punkt", {"num_players": 3})
    states = k.new_states(1)
    flat = bytearray(k.deal(5))
    for bad in (52, 12):  # not a card; a King, not in play with 3 players
        wrong = bytearray(flat)
        wrong[7] = bad
        with pytest.raises(ValueError):
            k.start(states, 0, bytes(wrong))
    wrong = bytearray(flat)
    wrong[1] = wrong[0]  # a card twice
    with pytest.raises(ValueError):
        k.start(states, 0, bytes(wrong))
    with pytest.raises(ValueError):
        k.start(states, 0, bytes(flat[:-1]))


def test_illegal_ids_refused():
    game, _, k = make("wunder_punkt", {"num_players": 4})
    states = k.new_states(1)
    k.start(states, 0, k.deal(11))
    state = game.new_game(11)

    def refused(action):
        before = states.tobytes()
        with pytest.raises(IllegalActionError):
            k.apply(states, 0, action)
        assert states.tobytes() == before

    hand = state.hands[state.current_player]
    card = (hand & -hand).bit_length() - 1
    for a in (-1, -1000, 2 * DECK_SIZE, 10**6, card):  # a play action in the sore phase
        refused(a)
    refused(DECK_SIZE + next(c for c in range(DECK_SIZE) if not hand >> c & 1))
    for _ in range(4):  # every seat picks: the play phase
        a = (state.legal_mask() & -state.legal_mask()).bit_length() - 1
        state.step(a)
        k.apply(states, 0, a)
    assert k.head(states, 0)["phase"] == PLAY
    hand = state.hands[state.current_player]
    card = (hand & -hand).bit_length() - 1
    refused(DECK_SIZE + card)  # a sore action in the play phase
    refused(state.sore_cards[state.current_player])  # the laid card is out of the hand
    while not state.over:
        a = state.legal_actions()[-1]
        state.step(a)
        k.apply(states, 0, a)
    assert k.head(states, 0)["phase"] == GAME_OVER
    for a in range(2 * DECK_SIZE):
        refused(a)


@pytest.mark.parametrize("options", [OPTION_SETS[0], OPTION_SETS[3], OPTION_SETS[7]], ids=_id)
def test_random_bytes_are_refused(options):
    _, _, k = make("wunder_punkt", options)
    rng = np.random.default_rng(1)
    states = rng.integers(0, 256, (200, k.state_size), dtype=np.uint8)
    assert all(poke(k, states, i, play_out=False) for i in range(len(states)))


@pytest.mark.parametrize("options", [OPTION_SETS[1], OPTION_SETS[4]], ids=_id)
def test_corrupted_fields_are_refused(options):
    """Each field that indexes or bounds a loop, set out of range, raises KernelStateError."""
    _, _, k = make("wunder_punkt", options)
    n = k.num_players
    base = some_states(k, 1, 3, 220)
    k.valid(base, 0)
    fields = [(HEAD["phase"], 4, v) for v in (-1, 3, 1 << 30)] + [
        (HEAD["current_player"], 4, v) for v in (-2, n, 99)] + [
        (HEAD["over"], 4, 2), (HEAD["truncated"], 4, 1), (HEAD["round_index"], 4, -1),
        (HEAD["round_index"], 4, k.num_orders), (HEAD["decisions"], 4, -5),
        (TOTALS, 4, 2**31 - 1), (TOTALS + 4 * (n - 1), 4, -2**31),
        (DEALER, 4, n), (DEALER, 4, -1), (LEADER, 4, n), (LEADER, 4, -7),
        (TRICK_LEN, 4, n + 1), (TRICK_LEN, 4, -1),
        (SORE_CARDS, 1, 52), (SORE_CARDS + n - 1, 1, 200), (ORDERS, 1, 52),
        (ORDERS + k.num_orders * k.order_len - 1, 1, 255),
        (HANDS, 8, 1 << 60), (HANDS + 8 * (n - 1), 8, 1 << 52), (WON + 8, 8, 1 << 63),
        (REMOVED, 8, 1 << 55), (HANDS + 8 * n, 8, 1) if n < 6 else (HANDS, 8, 1 << 53)]
    for off, size, value in fields:
        states = base.copy()
        states[0, off:off + size] = np.frombuffer(
            int(value).to_bytes(size, "little", signed=value < 0 or size == 4), np.uint8)
        assert poke(k, states, 0, play_out=False), (off, size, value)
    # the trick's cards, in the play phase
    states = some_states(k, 40, 9, 220)
    for i in range(len(states)):
        if k.head(states, i)["phase"] == PLAY and states[i, TRICK_LEN] > 0:
            bad = states[i:i + 1].copy()
            bad[0, TRICK] = 99
            assert poke(k, bad, 0, play_out=False)
            bad = states[i:i + 1].copy()
            bad[0, TRICK_LEN] = n  # a complete trick is never pending in play
            assert poke(k, bad, 0, play_out=False)
            break
    else:
        pytest.fail("no trick in progress among the sampled states")


@pytest.mark.parametrize("options", [OPTION_SETS[1], OPTION_SETS[5]], ids=_id)
def test_byte_flips_never_crash(options):
    """Random bytes flipped in real states: refused, or played on safely."""
    _, _, k = make("wunder_punkt", options)
    states = some_states(k, 30, 5, 220)
    rng = random.Random(2)
    for _ in range(400):
        i = rng.randrange(len(states))
        bad = states[i:i + 1].copy()
        for _ in range(rng.randrange(1, 4)):
            bad[0, rng.randrange(k.state_size)] = rng.randrange(256)
        poke(k, bad, 0, play_out=False)


def test_batch_calls_match_single_calls():
    """step/observe (the batch engine's calls) agree with apply/encode/legal."""
    _, _, k = make("wunder_punkt", {"num_players": 5})
    assert_batch_calls_match(k, rows=16, first_seed=40, rng_seed=4, steps=1000)
