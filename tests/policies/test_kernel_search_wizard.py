"""Wizard's PIMC in the kernel (envs/kernel/src/wizard_search.c) against the Python loop.

Why: the kernel's search must choose exactly what the Python search chose -
the same worlds (every draw of ``WizardGame.determinize`` from the same
``random.Random``, in the same order), the same play-outs (FastHeuristic's
bids and cards) and the same values - only sooner.  Checked here: on many
positions (random and heuristic games, every phase PIMC decides, every player
count, the dealer's restriction, a first dealer, hand-size lists, several
seeds), the default spec (kernel on) and ``pimc:kernel=0`` give identical
``values(decision)`` - the action and every ActionValue - and leave their
generators in the same state; also with other worlds and rollouts, and on
positions whose voids send the deal to its constrained fallback
(``_deal_constrained``, with ``random.choices``).
"""

from __future__ import annotations

import random

import pytest

from stichzoo import envs
from stichzoo.envs import kernel
from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.wizard import rules
from stichzoo.envs.wizard.rules import BID, CHOOSE_TRUMP, PLAY
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision
from stichzoo.policies.specs import build_policy

if kernel.core("wizard") != "c":  # pragma: no cover - only without the compiled kernel
    pytest.skip("the compiled kernel (with wizard) is not built", allow_module_level=True)

#: player counts and options: every count, the restriction, a first dealer, hand-size lists
OPTION_SETS = [
    {"num_players": 3},
    {"num_players": 4, "dealer_bid_restriction": True},
    {"num_players": 5, "first_dealer": 2},
    {"num_players": 6, "dealer_bid_restriction": True, "first_dealer": 5},
    {"num_players": 3, "first_dealer": 1, "rounds": [20, 1, 20]},  # the last card dealt: no trump
    {"num_players": 4, "dealer_bid_restriction": True, "rounds": [3, 15, 7]},
]


def _game(options: dict):
    cls = envs.game_class("wizard")
    return cls(cls.Options(**options))


def _positions(game, count: int, seed: int, heuristic: bool) -> list:
    """Decision states (two or more legal actions) of random or heuristic games, every phase."""
    rng = random.Random(seed)
    bot = make_policy("heuristic", game, seed=seed) if heuristic else None
    out = []
    while len(out) < count:
        s = game.new_game(rng.getrandbits(32))
        while not s.over and len(out) < count:
            legal = bit_list(s.legal_mask())
            # choose_trump is rare: always taken; bids and cards now and then
            if len(legal) > 1 and (s.phase == CHOOSE_TRUMP or rng.random() < 0.12):
                out.append(s.clone())
            s.apply(bot.act(Decision(game, s)) if bot else rng.choice(legal))
    return out


def _same(game, state, seed: int, spec: str = "pimc") -> None:
    """The kernel's search and the Python loop on one position: same values, same generator."""
    fast = build_policy(spec, game, seed=seed, cache=False)
    slow = build_policy(f"{spec},kernel=0" if ":" in spec else f"{spec}:kernel=0", game,
                        seed=seed, cache=False)
    assert fast._kernel is not None, "the kernel's search is not used: nothing is compared"
    assert slow._kernel is None
    got = fast.values(Decision(game, state))
    want = slow.values(Decision(game, state))
    assert got == want, (state.phase_name, state.round_index, state.history)
    assert fast.rng.getstate() == slow.rng.getstate()


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}"
                                                                        for k, v in o.items()))
def test_the_kernel_searches_as_the_python_loop(options):
    game = _game(options)
    phases = set()
    for k, heuristic in enumerate((False, True)):
        for i, state in enumerate(_positions(game, 24, 7 * k + len(options), heuristic)):
            phases.add(state.phase)
            _same(game, state, seed=i)
    assert {BID, PLAY} <= phases


def test_choose_trump_and_several_budgets():
    """The dealer's trump choice, and budgets other than the default (rollouts > 1 too)."""
    game = _game({"num_players": 4})
    states = _positions(game, 60, 11, heuristic=True)
    assert any(s.phase == CHOOSE_TRUMP for s in states)
    specs = ["pimc:worlds=1", "pimc:worlds=5,rollouts=3", "pimc:worlds=20,rollouts=2"]
    for i, state in enumerate(states):
        _same(game, state, seed=100 + i, spec=specs[i % len(specs)])


def test_the_constrained_deal(monkeypatch):
    """Late in long rounds of random play many voids are known: rejection gives up after 40
    tries and the deal falls back to ``_deal_constrained`` (its shuffle and random.choices)."""
    calls = []
    constrained = rules._deal_constrained

    def counted(*args):
        calls.append(1)
        return constrained(*args)

    monkeypatch.setattr(rules, "_deal_constrained", counted)
    for players in (3, 5):
        game = _game({"num_players": players, "rounds": [60 // players]})
        rng = random.Random(players)
        done = 0
        while done < 6:
            s = game.new_game(rng.getrandbits(32))
            while not s.over:
                legal = bit_list(s.legal_mask())
                if (len(legal) > 1 and s.phase == PLAY
                        and sum(v.bit_count() for v in s.voids) >= 4 and rng.random() < 0.5):
                    _same(game, s, seed=done, spec="pimc:worlds=6")
                    done += 1
                s.apply(rng.choice(legal))
    assert calls, "no position reached the constrained deal"


def test_the_learned_search():
    """The learned search (``pimc:guide=bot:wizard``): the guide's candidates, with the worlds
    their budget buys, searched on the kernel as in the loop."""
    game = _game({"num_players": 4})
    for i, state in enumerate(_positions(game, 30, 5, heuristic=True)):
        _same(game, state, seed=i, spec="pimc:guide=bot:wizard")
