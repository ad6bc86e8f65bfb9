"""Wizard's compiled kernel (envs/kernel/src/wizard.c) against the Python core.

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

if kernel._kernel is None or "wizard" not in kernel.compiled_games():  # pragma: no cover
    pytest.skip("the compiled kernel (with wizard) is not built", allow_module_level=True)

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.kernel.differential import compare, make
from stichzoo.envs.wizard.kernel import kernel_options
from stichzoo.envs.wizard.rules import (
    BID,
    CHOOSE_TRUMP,
    DECK_SIZE,
    GAME_OVER,
    PLAY,
    WizardGame,
    WizardOptions,
)
from tests.envs.kernel.calls import assert_batch_calls_match, poke, put, some_states

#: every player count and option the Python core offers
OPTION_SETS = [
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 5},
    {"num_players": 6},
    {"num_players": 4, "dealer_bid_restriction": True},
    {"num_players": 6, "dealer_bid_restriction": True, "first_dealer": 5},
    {"num_players": 3, "first_dealer": 2, "rounds": [20, 1, 20]},  # no card turned: no trump
    {"num_players": 5, "dealer_bid_restriction": True, "first_dealer": 1,
     "rounds": [12, 3, 12, 1, 7, 12, 2, 12, 5, 12, 1, 12, 4, 12]},  # 14 rounds: 2 packed ints
    {"num_players": 4, "first_dealer": 3, "rounds": [15]},
]

#: wz_state's layout (wizard.c): kz_head (48 bytes), then these fields
HEAD = {"current_player": 0, "phase": 4, "over": 8, "truncated": 12, "round_index": 16,
        "decisions": 20}
TOTALS = 24
HANDS, PLAYED, BIDS, WON, VOIDS, TRICK = 48, 96, 104, 110, 116, 122
TRICK_LEN, LEADER, FOLLOW, TRUMP, TRUMP_CARD, DEALER, HAND_SIZE = range(128, 135)
ORDERS = 136


def _id(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())[:60]


@pytest.mark.parametrize("options", OPTION_SETS, ids=_id)
def test_random_play_matches_python(options):
    rep = compare("wizard", options, games=3, seed=68, policy="random", observe="all",
                  illegal_rate=0.05, replay_rate=0.01)
    assert rep.games == 3 and rep.endings["over"] == 3 and rep.illegal_tries > 0


@pytest.mark.parametrize("policy", ["first", "last", "mixed"])
@pytest.mark.parametrize("options", [OPTION_SETS[0], OPTION_SETS[3], OPTION_SETS[4],
                                     OPTION_SETS[7]], ids=_id)
def test_extreme_play_matches_python(options, policy):
    # "first" bids 0 and plays low cards (blue first, Jesters late); "last"
    # bids the whole hand and plays Jesters, then Wizards: all-Jester tricks,
    # Wizard leads that free the trick, the dealer's forbidden bid
    rep = compare("wizard", options, games=2, seed=7, policy=policy, observe="actor")
    assert rep.games == 2


def test_rare_paths_are_reached():
    """A turned Wizard (the dealer chooses trump), a forbidden dealer bid and a trick
    of Jesters only are all met (Jesters first: the highest legal id is played)."""
    _, _, k = make("wizard", {"num_players": 3, "dealer_bid_restriction": True})
    states = k.new_states(1)
    seen = set()
    rng = random.Random(1)
    for seed in range(4):
        k.start(states, 0, k.deal(seed))
        while not k.head(states, 0)["over"]:
            phase = k.head(states, 0)["phase"]
            legal = bit_list(k.legal(states, 0))
            if phase == CHOOSE_TRUMP:
                seen.add("choose_trump")
            if phase == BID and len(legal) == states[0, HAND_SIZE]:
                seen.add("forbidden_bid")
            if phase == PLAY and states[0, TRICK_LEN] == 2 and legal[-1] >= 56 and all(
                    c >= 56 for c in states[0, TRICK:TRICK + 2]):
                seen.add("jesters")
            k.apply(states, 0, legal[-1] if phase == PLAY else rng.choice(legal))
    assert seen == {"choose_trump", "forbidden_bid", "jesters"}
    rep = compare("wizard", {"num_players": 3, "dealer_bid_restriction": True}, games=2,
                  seed=1, policy=lambda s, legal, rng: legal[-1] if s.phase == PLAY
                  else rng.choice(legal), observe="all")
    assert rep.games == 2


@pytest.mark.parametrize("options", OPTION_SETS, ids=_id)
def test_config_and_deal(options):
    game, encoder, k = make("wizard", options)
    assert (k.num_players, k.num_actions, k.obs_size) == (
        game.num_players, game.num_actions, encoder.layout.size)
    assert (k.num_orders, k.order_len) == (len(game.round_sizes), DECK_SIZE)
    for seed in (0, 1, 2**32 - 1, 2**32, 2**63 - 1):
        orders = game.deal(random.Random(seed))
        assert k.deal(seed) == bytes(c for o in orders for c in o)


def test_long_round_lists_pack():
    """``rounds`` may list any number of hand sizes: 12 go into one option int."""
    rounds = [r % 20 + 1 for r in range(37)]
    game = WizardGame(WizardOptions(num_players=3, rounds=rounds))
    opts = kernel_options(game)
    assert opts[:4] == [3, 0, 0, 37] and len(opts) == 4 + 4
    assert [opts[4 + i // 12] >> 5 * (i % 12) & 31 for i in range(37)] == rounds
    rep = compare("wizard", {"num_players": 3, "rounds": rounds}, games=1, seed=3,
                  observe="actor")
    assert rep.games == 1


@pytest.mark.parametrize("opts", [[2, 0, 0, 1, 1], [7, 0, 0, 1, 1], [4, 2, 0, 1, 1],
                                  [4, 0, 4, 1, 1], [4, 0, -1, 1, 1], [4, 0, 0, 0],
                                  [4, 0, 0, 1, 0], [4, 0, 0, 1, 16], [6, 0, 0, 1, 11],
                                  [4, 0, 0, 2, 1], [4, 0, 0, 1, 1, 1], [4, 0, 0, 13, 1],
                                  [4, 0, 0], [4, 0, 0, 337] + [1] * 28])
def test_bad_options_refused(opts):
    with pytest.raises(ValueError):
        kernel.Kernel("wizard", opts)


def test_bad_deck_orders_refused():
    _, _, k = make("wizard", {"num_players": 3, "rounds": [2, 20]})
    states = k.new_states(1)
    flat = bytearray(k.deal(5))
    for at, bad in ((7, 60), (100, 255)):  # not a card
        wrong = bytearray(flat)
        wrong[at] = bad
        with pytest.raises(ValueError):
            k.start(states, 0, bytes(wrong))
    wrong = bytearray(flat)
    wrong[61] = wrong[60]  # a card twice in the second round
    with pytest.raises(ValueError):
        k.start(states, 0, bytes(wrong))
    with pytest.raises(ValueError):
        k.start(states, 0, bytes(flat[:-1]))


def test_illegal_ids_refused():
    game, _, k = make("wizard", {"num_players": 4, "dealer_bid_restriction": True})
    states = k.new_states(1)
    seed = next(s for s in range(100) if game.new_game(s).phase == CHOOSE_TRUMP)
    k.start(states, 0, k.deal(seed))
    state = game.new_game(seed)

    def refused(action):
        before = states.tobytes()
        with pytest.raises(IllegalActionError):
            k.apply(states, 0, action)
        assert states.tobytes() == before

    def play(action):
        state.step(action)
        k.apply(states, 0, action)

    hand = state.hands[state.current_player]
    for a in (-1, -1000, game.num_actions, 10**6, (hand & -hand).bit_length() - 1,
              game.bid0, game.bid0 + 1):  # cards and bids while trump is chosen
        refused(a)
    play(game.trump0 + 2)
    assert k.head(states, 0)["phase"] == BID
    for a in (game.trump0, game.bid0 + 2, 0, game.num_actions - 1):  # bid above the hand size
        refused(a)
    for _ in range(3):  # round 1 (one card each): three bids of 0 ...
        play(game.bid0)
    refused(game.bid0 + 1)  # ... and the dealer may not make the sum 1
    play(game.bid0)
    assert k.head(states, 0)["phase"] == PLAY
    hand = state.hands[state.current_player]
    refused(next(c for c in range(DECK_SIZE) if not hand >> c & 1))  # not in the hand
    refused(game.bid0)
    while not state.over:
        play(state.legal_actions()[-1])
    assert k.head(states, 0)["phase"] == GAME_OVER
    for a in range(game.num_actions):
        refused(a)


@pytest.mark.parametrize("options", [OPTION_SETS[0], OPTION_SETS[3], OPTION_SETS[7]], ids=_id)
def test_random_bytes_are_refused(options):
    _, _, k = make("wizard", options)
    rng = np.random.default_rng(1)
    states = rng.integers(0, 256, (200, k.state_size), dtype=np.uint8)
    assert all(poke(k, states, i) for i in range(len(states)))


@pytest.mark.parametrize("options", [OPTION_SETS[4], OPTION_SETS[6]], ids=_id)
def test_corrupted_fields_are_refused(options):
    """Each field that indexes or bounds a loop, set out of range, raises KernelStateError."""
    _, _, k = make("wizard", options)
    n = k.num_players
    states = some_states(k, 60, 9, 200)
    base = next(states[i:i + 1].copy() for i in range(len(states))
                if k.head(states, i)["phase"] == PLAY and states[i, TRICK_LEN] > 0
                and k.head(states, i)["round_index"] < k.num_orders - 1)
    k.valid(base, 0)
    # the next round's deck order is checked (a card id >= 60 would be a shift past
    # the hand's bits); those dealt are never read again
    here = ORDERS + k.head(base, 0)["round_index"] * DECK_SIZE
    nxt = here + DECK_SIZE
    dealt = base.copy()
    put(dealt, here, 1, 255)
    k.valid(dealt, 0)
    fields = [(HEAD["phase"], 4, v) for v in (-1, 4, 1 << 30)] + [
        (HEAD["current_player"], 4, v) for v in (-2, -1, n, 99)] + [
        (HEAD["over"], 4, 2), (HEAD["over"], 4, 1), (HEAD["truncated"], 4, 1),
        (HEAD["round_index"], 4, -1), (HEAD["round_index"], 4, k.num_orders),
        (HEAD["decisions"], 4, -5), (TOTALS, 4, 2**31 - 1), (TOTALS + 4 * (n - 1), 4, -2**31),
        (HANDS, 8, 1 << 60), (HANDS + 8 * (n - 1), 8, 1 << 63), (PLAYED, 8, 1 << 61),
        (BIDS, 1, -2), (BIDS + n - 1, 1, 21), (WON, 1, 200), (VOIDS + n - 1, 1, 16),
        (TRICK, 1, 60), (TRICK_LEN, 1, n), (TRICK_LEN, 1, -1), (TRICK_LEN, 1, 100),
        (LEADER, 1, n), (LEADER, 1, -1), (FOLLOW, 1, 4), (FOLLOW, 1, -3), (TRUMP, 1, 4),
        (TRUMP, 1, -3), (TRUMP, 1, -2), (TRUMP_CARD, 1, 60), (TRUMP_CARD, 1, -2),
        (DEALER, 1, n), (HAND_SIZE, 1, 0), (HAND_SIZE, 1, 21), (nxt, 1, 60), (nxt + 59, 1, 255)]
    for off, size, value in fields:
        states = base.copy()
        put(states, off, size, value)
        assert poke(k, states, 0), (off, size, value)


def test_later_deck_orders_are_checked_before_their_turn():
    """A later round's order is checked while the round before it is played
    (valid() reads only the next round's, the one apply may deal)."""
    _, _, k = make("wizard", {"num_players": 4})
    states = k.new_states(1)
    k.start(states, 0, k.deal(8))
    put(states, ORDERS + 3 * DECK_SIZE + 5, 1, 77)  # round 4's order
    rng = random.Random(0)
    while k.head(states, 0)["round_index"] < 2:
        k.apply(states, 0, rng.choice(bit_list(k.legal(states, 0))))
    assert poke(k, states, 0)


@pytest.mark.parametrize("options", [OPTION_SETS[1], OPTION_SETS[7]], ids=_id)
def test_byte_flips_never_crash(options):
    """Random bytes changed in real states: refused, or played on safely to the end."""
    _, _, k = make("wizard", options)
    states = some_states(k, 30, 5, 200)
    rng = random.Random(2)
    for _ in range(300):
        i = rng.randrange(len(states))
        bad = states[i:i + 1].copy()
        for _ in range(rng.randrange(1, 4)):
            bad[0, rng.randrange(ORDERS)] = rng.randrange(256)  # the fields, not the orders
        poke(k, bad, 0)


def test_batch_calls_match_single_calls():
    """step/observe (the batch engine's calls) agree with apply/encode/legal."""
    _, _, k = make("wizard", {"num_players": 5, "rounds": [3, 12, 1]})
    assert_batch_calls_match(k, rows=16, first_seed=40, rng_seed=4, steps=1000)
