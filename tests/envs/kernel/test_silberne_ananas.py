"""Silberne Ananas's compiled kernel (envs/kernel/src/silberne_ananas.c) against the Python core.

Why: the Python rules core is the referee; the kernel must agree with it
decision for decision (masks, deltas, totals, phases, the game's end, win
shares, the deal) and observation for observation, bit for bit, under every
option - the reading pieces included (taker values from the match standing,
card takers by exact enumeration over the unseen cards), whose floats are
the easiest to get a last bit wrong - and must refuse illegal ids and
corrupted states with an exception, never a crash.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from stichzoo.envs import kernel
from stichzoo.envs.core.game import IllegalActionError, win_share

if kernel._kernel is None or "silberne_ananas" not in kernel.compiled_games():  # pragma: no cover
    pytest.skip("the compiled kernel (with silberne_ananas) is not built", allow_module_level=True)

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.kernel.differential import compare, make
from stichzoo.envs.silberne_ananas.kernel import kernel_options
from stichzoo.envs.silberne_ananas.rules import (
    DECK_SIZE,
    GAME_OVER,
    GIVE,
    JOKER,
    PLAY,
    SilberneAnanasGame,
    SilberneAnanasOptions,
)
from stichzoo.policies.base import Decision
from stichzoo.policies.games.silberne_ananas import Heuristic
from tests.envs.kernel.calls import assert_batch_calls_match, poke, put, some_states

#: every option the Python core offers (the player count is always 3)
OPTION_SETS = [
    {},
    {"match": False},
    {"match": False, "first_dealer": 2},
    {"alone_variant": True},
    {"target_score": 1},  # the first deal ends the match
    {"target_score": 44, "first_dealer": 1},  # 3 deals drawn: 3 * 43 / 43 + 1
    {"target_score": 30, "alone_variant": True, "first_dealer": 2},
    {"target_score": 150, "alone_variant": True, "num_players": 3},
]

#: sa_state's layout (silberne_ananas.c): kz_head (48 bytes), then these fields
HEAD = {"current_player": 0, "phase": 4, "over": 8, "truncated": 12, "round_index": 16,
        "decisions": 20}
TOTALS = 24
HANDS, PLAYED, END_VALUE, TAKER_VALUES = 48, 72, 80, 1952
LEADER, TRICK_LEN, LEAD_SUIT, JOKER_SEAT, BONUS_SEAT = range(2024, 2029)
TRICK, WON, VOIDS, NO_JOKER, ORDERS = 2029, 2032, 2035, 2038, 2041

#: the reading pieces (observation version 1, reading.py)
READING = ("taker_values", "best_taker", "card_takers", "card_values")


def _id(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())[:60] or "default"


@pytest.mark.parametrize("options", OPTION_SETS, ids=_id)
def test_random_play_matches_python(options):
    games = 2 if options.get("match", True) and options.get("target_score", 100) > 50 else 12
    rep = compare("silberne_ananas", options, games=games, seed=68, policy="random",
                  observe="all", illegal_rate=0.05, replay_rate=0.01)
    assert rep.games == games and rep.endings["over"] == games and rep.illegal_tries > 0


@pytest.mark.parametrize("policy", ["first", "last", "mixed"])
@pytest.mark.parametrize("options", [OPTION_SETS[1], OPTION_SETS[4], OPTION_SETS[6]], ids=_id)
def test_extreme_play_matches_python(options, policy):
    # "first" leads and follows low (hearts first, the Joker last) and gives every
    # Joker trick to its player; "last" plays the Joker whenever it may and gives
    # to the right: lopsided tricks, all-to-one deals, early ends of the match
    rep = compare("silberne_ananas", options, games=4, seed=7, policy=policy, observe="actor")
    assert rep.games == 4


def test_long_match_matches_python():
    """target_score 1000: 70 deck orders, late deals whose ends all finish the match."""
    rep = compare("silberne_ananas", {"target_score": 1000}, games=1, seed=3, observe="actor",
                  replay_rate=0.0)
    assert rep.games == 1 and rep.decisions > 20 * 33


def _reading_slices(encoder) -> dict[str, slice]:
    return {name: encoder.layout.slice(name) for name in READING}


def _heuristic_games(options: dict, games: int, seed: int) -> tuple[int, set[str]]:
    """Heuristic games (Joker gifts to the best taker, middle-aiming leads) in both cores;
    every seat's reading compared at every decision.  Returns (observations, pieces seen)."""
    game, encoder, k = make("silberne_ananas", options)
    slices = _reading_slices(encoder)
    bot = Heuristic(game, seed=seed, samples=2)
    rng = random.Random(seed)
    states = k.new_states(1)
    py = np.zeros(encoder.layout.size, np.float32)
    kz = np.zeros(encoder.layout.size, np.float32)
    seen: set[str] = set()
    count = 0
    for g in range(games):
        deck_seed = rng.getrandbits(63)
        state = game.new_state(game.deal(random.Random(deck_seed)))
        k.start(states, 0, kernel.flat_orders(state.deck_orders))
        while True:
            for seat in range(3):
                encoder.encode(state, seat, py)
                k.encode(states, 0, seat, kz)
                for name, sl in slices.items():
                    a, b = py[sl], kz[sl]
                    if a.tobytes() != b.tobytes():
                        bad = np.flatnonzero(a.view(np.uint32) != b.view(np.uint32))
                        raise AssertionError(
                            f"{options} game {g} (deck seed {deck_seed}) decision "
                            f"{len(state.history)}, phase {state.phase_name}, seat {seat}: "
                            f"{name} differs at {bad[:8].tolist()} - python "
                            f"{a[bad[:8]].tolist()}, kernel {b[bad[:8]].tolist()}")
                    if a.any():
                        seen.add(name)
                assert py.tobytes() == kz.tobytes(), f"game {g} decision {len(state.history)}"
                count += 1
            if state.over:
                break
            action = bot.act(Decision(game, state))
            state.step(action)
            k.apply(states, 0, action)
    return count, seen


@pytest.mark.parametrize("options", [{"target_score": 40}, {"match": False},
                                     {"target_score": 60, "alone_variant": True}], ids=_id)
def test_reading_in_heuristic_play(options):
    count, seen = _heuristic_games(options, games=2, seed=5)
    assert count > 0 and seen == set(READING)


def test_reading_of_rare_positions():
    """Positions random play meets seldom, by a policy that seeks them: the Joker led as
    the last card, the Joker thrown when void (a forced gift), voids shown early (the
    deal model's forced cards and bans).  Every seat's whole observation is compared."""

    def seek(state, legal, rng):
        if JOKER in legal:
            return JOKER  # throw (or lead) the Joker whenever allowed
        if state.phase == GIVE:
            return legal[rng.randrange(len(legal))]
        # shed the suit with fewest cards first: voids early, forced cards in the models
        hand = state.hands[state.current_player]
        return min(legal, key=lambda c: (bin(hand & (0xFF << 8 * (c // 8))).count("1"), c))

    for options in ({"match": False}, {"target_score": 50, "alone_variant": True}):
        rep = compare("silberne_ananas", options, games=4, seed=21, policy=seek, observe="all")
        assert rep.games == 4


@pytest.mark.parametrize("options", OPTION_SETS, ids=_id)
def test_config_and_deal(options):
    game, encoder, k = make("silberne_ananas", options)
    assert (k.num_players, k.num_actions, k.obs_size) == (3, game.num_actions,
                                                          encoder.layout.size)
    assert (k.num_orders, k.order_len) == (game.max_deals, DECK_SIZE)
    assert k.state_size % 8 == 0 and k.state_size >= ORDERS + game.max_deals * DECK_SIZE
    for seed in (0, 1, 2**32 - 1, 2**32, 2**63 - 1):
        orders = game.deal(random.Random(seed))
        assert k.deal(seed) == bytes(c for o in orders for c in o)
    states = k.new_states(1)
    k.start(states, 0, k.deal(9))
    assert states[0, ORDERS:ORDERS + game.max_deals * DECK_SIZE].tobytes() == k.deal(9)
    # the win shares of a game not yet scored (a single deal: no middle seat yet)
    assert k.win_share(states, 0) == tuple(win_share(game.new_game(9).winners(), 3))


def test_kernel_options_order():
    game = SilberneAnanasGame(SilberneAnanasOptions(match=True, target_score=130,
                                                    alone_variant=True, first_dealer=2))
    assert kernel_options(game) == [3, 1, 130, 1, 2, 3 * 129 // 43 + 1]
    single = SilberneAnanasGame(SilberneAnanasOptions(match=False, target_score=7))
    assert kernel_options(single) == [3, 0, 7, 0, 0, 1]


@pytest.mark.parametrize("opts", [[3, 1, 100, 0, 0], [3, 1, 100, 0, 0, 7, 1], [4, 1, 100, 0, 0, 7],
                                  [2, 1, 100, 0, 0, 7], [3, 2, 100, 0, 0, 7],
                                  [3, 1, 0, 0, 0, 1], [3, 1, 1001, 0, 0, 70],
                                  [3, 1, 100, 2, 0, 7], [3, 0, 100, 1, 0, 1],
                                  [3, 1, 100, 0, 3, 7], [3, 1, 100, 0, -1, 7],
                                  [3, 1, 100, 0, 0, 6], [3, 1, 100, 0, 0, 8], [3, 0, 100, 0, 0, 7],
                                  [3, 0, 100, 0, 0, 0]])
def test_bad_options_refused(opts):
    with pytest.raises(ValueError):
        kernel.Kernel("silberne_ananas", opts)


def test_bad_deck_orders_refused():
    _, _, k = make("silberne_ananas", {"target_score": 44})
    states = k.new_states(1)
    flat = bytearray(k.deal(5))
    for at, bad in ((7, 33), (40, 255)):  # not a card
        wrong = bytearray(flat)
        wrong[at] = bad
        with pytest.raises(ValueError):
            k.start(states, 0, bytes(wrong))
    wrong = bytearray(flat)
    wrong[34] = wrong[33]  # a card twice in the second deal
    with pytest.raises(ValueError):
        k.start(states, 0, bytes(wrong))
    with pytest.raises(ValueError):
        k.start(states, 0, bytes(flat[:-1]))


def test_illegal_ids_refused():
    game, _, k = make("silberne_ananas", {"match": False})
    # a deal where the Joker's holder must keep it when leading (it is not its last card)
    seed = next(s for s in range(100)
                if game.new_game(s).hands[game.new_game(s).current_player] >> JOKER & 1)
    state = game.new_game(seed)
    states = k.new_states(1)
    k.start(states, 0, k.deal(seed))

    def refused(action):
        before = states.tobytes()
        with pytest.raises(IllegalActionError):
            k.apply(states, 0, action)
        assert states.tobytes() == before

    def play(action):
        state.step(action)
        k.apply(states, 0, action)

    hand = state.hands[state.current_player]
    for a in (-1, -1000, game.num_actions, 10**6, JOKER, 33, 34, 35,  # the Joker led early
              next(c for c in range(DECK_SIZE) if not hand >> c & 1)):  # not in the hand
        refused(a)
    lead = min(bit_list(hand & ~(1 << JOKER)))
    play(lead)
    nxt = state.hands[state.current_player]
    if nxt & (0xFF << 8 * (lead // 8)):  # must follow: another suit is refused
        refused(min(bit_list(nxt & ~(0xFF << 8 * (lead // 8)))))
    while not state.over:
        if state.phase == GIVE:
            for a in range(DECK_SIZE):
                refused(a)
        play(state.legal_actions()[-1])
    assert k.head(states, 0)["phase"] == GAME_OVER
    for a in range(game.num_actions):
        refused(a)


@pytest.mark.parametrize("options", [OPTION_SETS[0], OPTION_SETS[1], OPTION_SETS[6]], ids=_id)
def test_random_bytes_are_refused(options):
    _, _, k = make("silberne_ananas", options)
    rng = np.random.default_rng(1)
    states = rng.integers(0, 256, (200, k.state_size), dtype=np.uint8)
    assert all(poke(k, states, i) for i in range(len(states)))


def test_corrupted_fields_are_refused():
    """Each field that indexes or bounds a loop, set out of range, raises KernelStateError."""
    _, _, k = make("silberne_ananas", {"target_score": 60})
    states = some_states(k, 60, 9, 120)
    base = next(states[i:i + 1].copy() for i in range(len(states))
                if k.head(states, i)["phase"] == PLAY and states[i, TRICK_LEN] == 2
                and k.head(states, i)["round_index"] < k.num_orders - 1)
    give = next(states[i:i + 1].copy() for i in range(len(states))
                if k.head(states, i)["phase"] == GIVE)
    k.valid(base, 0)
    k.valid(give, 0)
    # the next deal's deck order is checked (a card id >= 33 would be a shift past the
    # hand's bits, a card twice a short hand); the one dealt is never read again
    here = ORDERS + k.head(base, 0)["round_index"] * DECK_SIZE
    nxt = here + DECK_SIZE
    dealt = base.copy()
    put(dealt, here, 1, 255)
    k.valid(dealt, 0)
    seat = int(base[0, HEAD["current_player"]])
    hand = int.from_bytes(base[0, HANDS + 8 * seat:HANDS + 8 * seat + 8].tobytes(), "little")
    fields = [(HEAD["phase"], 4, v) for v in (-1, 3, 1 << 30, GIVE, GAME_OVER)] + [
        (HEAD["current_player"], 4, v) for v in (-2, -1, 3, 99, (seat + 1) % 3)] + [
        (HEAD["over"], 4, 2), (HEAD["over"], 4, 1), (HEAD["truncated"], 4, 1),
        (HEAD["round_index"], 4, -1), (HEAD["round_index"], 4, k.num_orders),
        (HEAD["decisions"], 4, -5), (TOTALS, 4, 2**31 - 1), (TOTALS + 8, 4, -2**31),
        (HANDS, 8, 1 << 60), (HANDS + 16, 8, 1 << 63), (PLAYED, 8, 1 << 40),
        (HANDS + 8 * seat, 8, hand & (hand - 1)),  # a card lost
        (PLAYED, 8, 0), (WON, 1, 200), (WON + 2, 1, 11), (VOIDS + 2, 1, 16), (NO_JOKER, 1, 2),
        (TRICK, 1, 33), (TRICK + 1, 1, 255), (TRICK_LEN, 1, 3), (TRICK_LEN, 1, -1),
        (TRICK_LEN, 1, 100), (TRICK_LEN, 1, 1), (LEADER, 1, 3), (LEADER, 1, -1),
        (LEAD_SUIT, 1, 4), (LEAD_SUIT, 1, -2), (LEAD_SUIT, 1, (base[0, LEAD_SUIT] + 1) % 4),
        (JOKER_SEAT, 1, 3), (JOKER_SEAT, 1, -2), (BONUS_SEAT, 1, 3), (BONUS_SEAT, 1, -2),
        (nxt, 1, 33), (nxt + 32, 1, 255), (nxt + 5, 1, int(base[0, nxt + 6]))]
    for off, size, value in fields:
        states = base.copy()
        put(states, off, size, value)
        assert poke(k, states, 0), (off, size, value)
    giver = int(give[0, HEAD["current_player"]])
    for off, size, value in [(JOKER_SEAT, 1, -1), (TRICK_LEN, 1, 2), (HEAD["phase"], 4, PLAY),
                             (HEAD["current_player"], 4, (giver + 1) % 3)]:
        states = give.copy()
        put(states, off, size, value)
        assert poke(k, states, 0), ("give", off, size, value)


@pytest.mark.parametrize("options", [OPTION_SETS[0], OPTION_SETS[6]], ids=_id)
def test_byte_flips_never_crash(options):
    """Random bytes changed in real states: refused, or played on safely to the end
    (the reading's cached values included: wrong floats, never a wrong index)."""
    _, _, k = make("silberne_ananas", options)
    states = some_states(k, 30, 5, 120)
    rng = random.Random(2)
    for _ in range(300):
        i = rng.randrange(len(states))
        bad = states[i:i + 1].copy()
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(ORDERS) if rng.random() < 0.8 else rng.randrange(LEADER, ORDERS)
            bad[0, at] = rng.randrange(256)
        poke(k, bad, 0)


def test_batch_calls_match_single_calls():
    """step/observe (the batch engine's calls) agree with apply/encode/legal."""
    _, _, k = make("silberne_ananas", {"target_score": 45})
    assert_batch_calls_match(k, rows=12, first_seed=40, rng_seed=4, steps=1000)
