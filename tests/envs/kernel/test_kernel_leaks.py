"""No leak through the kernel: what a seat cannot see does not reach its kernel observation.

The leak tests of each env (``tests/envs/test_*_env.py``) re-deal what a
seat cannot see in a Python state; a kernel state is only ever reached by
play, so here the hidden information is changed *before* play: the deck
orders are changed where the seat cannot see - two cards of the current
deal that two other seats still hold change places, and every later deal
is reshuffled - and the game's actions are replayed on both deals in the
kernel.  The seat's observation and legal mask must be identical; the
observation of a seat whose hand changed must differ in most checks (so
the change is real and the test can fail).  A swap that makes a past play
illegal (a card of a suit its holder showed out of) is skipped.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from stichzoo.envs.core.game import IllegalActionError
from stichzoo.envs.kernel import compiled_games, flat_orders
from stichzoo.envs.kernel.differential import make

GAMES = compiled_games()
pytestmark = pytest.mark.skipif(not GAMES, reason="the kernel is not built")
OPTIONS = {"wizard": [{"num_players": 3}, {"num_players": 5}],
           "wunder_punkt": [{}, {"num_players": 6}], "silberne_ananas": [{}],
           "hoch_tief": [{"num_players": 3}, {}], "geheimtrumpf": [{"num_players": 3}, {}]}
#: the parts of a deck order shuffled apart (Geheimtrumpf's: number cards, the trump
#: suit stack, the trump value stack); other games shuffle the whole order
PARTS = {"geheimtrumpf": ((0, 36), (36, 41), (41, 51))}
#: games whose hands are public (Geheimtrumpf drafts face-up cards: its secrets - the
#: trumps picked, the tasks chosen - are the env leak test's, tests/envs/test_geheimtrumpf_env.py,
#: and the kernel's observation equals the Python one bit for bit); here only its later
#: deals change
PUBLIC_HANDS = {"geheimtrumpf"}


def _kernel_view(k, orders: bytes, actions: bytes, seat: int) -> tuple[bytes, int] | None:
    states = k.new_states(1)
    try:
        k.replay(states, 0, orders, actions)
    except IllegalActionError:
        return None
    out = np.zeros(k.obs_size, np.float32)
    k.encode(states, 0, seat, out)
    return out.tobytes(), k.legal(states, 0) if k.head(states, 0)["current_player"] == seat else -1


@pytest.mark.parametrize("game_name", GAMES)
def test_hidden_cards_do_not_reach_the_kernel_observation(game_name):
    checks = changed = seen = 0
    for options in OPTIONS[game_name]:
        game, _, k = make(game_name, options)
        rng = random.Random(hash(game_name) % 1000)
        for g in range(3):
            state = game.new_game(seed=100 + g)
            while not (state.over or state.truncated) and len(state.history) < 400:
                if rng.random() < 0.3:
                    done, visible = _check(k, state, rng)
                    checks += done
                    seen += visible
                    changed += 1
                state.step(rng.choice(state.legal_actions()))
    assert checks >= changed // 3 > 0, (checks, changed)
    if game_name not in PUBLIC_HANDS:
        assert seen >= checks // 3, (seen, checks)  # the hidden swaps were real ones


def _check(k, state, rng: random.Random) -> int:
    """One position: every seat, one hidden swap each; returns the seats checked and how
    many of the swaps the seat holding the moved card saw (the swap was real)."""
    n = state.num_players
    visible = 0
    actions = bytes(a for _, a in state.history)
    r = state.round_index
    done = 0
    for seat in range(n):
        order = list(state.deck_orders[r])
        holders = {c: s for s in range(n) if s != seat for c in _cards(state.hands[s])}
        spots = [i for i, c in enumerate(order) if c in holders]
        pairs = [(i, j) for i in spots for j in spots if holders[order[i]] < holders[order[j]]]
        if k.name in PUBLIC_HANDS:
            pairs = [(0, 0)]  # only the later deals are hidden
        if not pairs:
            continue
        i, j = rng.choice(pairs)
        swapped = order[:]
        swapped[i], swapped[j] = swapped[j], swapped[i]
        orders = [list(o) for o in state.deck_orders]
        orders[r] = swapped
        for later in orders[r + 1:]:
            for a, b in PARTS.get(k.name, ((0, len(later)),)):
                part = later[a:b]
                rng.shuffle(part)
                later[a:b] = part
        before = _kernel_view(k, flat_orders(state.deck_orders), actions, seat)
        after = _kernel_view(k, flat_orders(orders), actions, seat)
        if after is None:
            continue  # the swap breaks a past play: not the same public history
        assert before == after, (f"{k.name}: seat {seat}'s kernel observation changed with "
                                 f"hidden cards (decision {len(actions)})")
        if k.name in PUBLIC_HANDS:
            done += 1
            continue
        mover = holders[order[i]]  # this seat's hand changed: its observation differs, mostly
        seen = (_kernel_view(k, flat_orders(state.deck_orders), actions, mover) !=
                _kernel_view(k, flat_orders(orders), actions, mover))
        done += 1
        visible += seen
    return done, visible


def _cards(hand: int) -> list[int]:
    return [c for c in range(hand.bit_length()) if (hand >> c) & 1]
