"""Hoch & Tief's PIMC in the kernel (envs/kernel/src/hoch_tief_search.c) against the Python loop.

Why: the kernel's search must leave the bot's play exactly as it was - the
same worlds (``determinize``: rejection deals, the exact count-weighted deal
and the mixed deal where counting gives up), the same play-outs and values,
drawn from the search's random.Random in the same order.  So PIMC with the
kernel (the default spec) and the Python loop (``pimc:kernel=0``), seeded
alike, must give equal values for every action and leave their generators
in the same state, position after position: heuristic and random games,
every player count, other rounds and first dealers, other worlds and
rollouts.  The Python loop is also watched to see that the positions reach
every deal path, so a change that stops exercising one shows here.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from stichzoo import envs
from stichzoo.envs import kernel
from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.hoch_tief import rules
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision
from stichzoo.policies.specs import build_policy

pytestmark = pytest.mark.skipif(
    "hoch_tief" not in kernel.compiled_games() or kernel.core("hoch_tief") != "c",
    reason="the kernel (with hoch_tief) is not built or is switched off")

# every player count, the default rounds (one per player), one round, many
# rounds and other first dealers
OPTIONS = [
    {"num_players": 3},
    {"num_players": 3, "rounds": 1, "first_dealer": 2},
    {"num_players": 4},
    {"num_players": 4, "rounds": 7, "first_dealer": 3},
    {"num_players": 5, "rounds": 2, "first_dealer": 4},
    {"num_players": 6},
    {"num_players": 6, "rounds": 1, "first_dealer": 5},
]

#: the default budget (36 worlds, one rollout) and others; the pair differs only in kernel=0
SPECS = ["pimc", "pimc:worlds=5,rollouts=3", "pimc:worlds=1", "pimc:worlds=9,rollouts=2"]


def _game(options: dict):
    cls = envs.game_class("hoch_tief")
    return cls(cls.Options(**options))


def _positions(game, players: str, seed: int, take: float):
    """Decisions (two or more legal cards) of whole games, heuristic or uniformly random."""
    rng = random.Random(seed)
    bot = make_policy("heuristic", game, seed=seed) if players == "heuristic" else None
    s = game.new_game(rng.randrange(1 << 30))
    while not s.over:
        legal = bit_list(s.legal_mask())
        if len(legal) > 1 and rng.random() < take:
            yield s.clone()
        s.apply(bot.act(Decision(game, s)) if bot else rng.choice(legal))


def _same(game, state, spec: str, seed: int) -> None:
    fast = build_policy(spec, game, seed=seed, cache=False)
    slow = build_policy(spec + (",kernel=0" if ":" in spec else ":kernel=0"), game, seed=seed,
                        cache=False)
    assert fast._kernel is not None and slow._kernel is None  # no silent fall-back
    # a used generator, not a fresh one: its position in the block matters too
    for p in (fast, slow):
        p.rng.random()
    got = fast.values(Decision(game, state))
    want = slow.values(Decision(game, state))
    assert got == want, (spec, seed, state.round_index, state.history[-5:])
    assert fast.rng.getstate() == slow.rng.getstate()


@pytest.fixture
def deal_paths(monkeypatch):
    """How often the Python loop's determinize reached the exact and the mixed deal."""
    seen = Counter()
    exact, mixed = rules._exact_deal, rules._mixed_deal

    def exact_deal(*args):
        seen["exact"] += 1
        return exact(*args)

    def mixed_deal(*args):
        seen["mixed"] += 1
        return mixed(*args)

    monkeypatch.setattr(rules, "_exact_deal", exact_deal)
    monkeypatch.setattr(rules, "_mixed_deal", mixed_deal)
    return seen


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(f"{v}" for v in o.values()))
def test_kernel_values_equal_the_python_loop(options, deal_paths):
    game = _game(options)
    pick = random.Random(len(options) * 10 + options["num_players"])
    take = min(1.0, 2.5 / (game.num_rounds * game.num_players))  # about 50 positions
    count = 0
    for k, players in enumerate(("heuristic", "random")):
        for state in _positions(game, players, seed=k + 7 * options["num_players"], take=take):
            spec = SPECS[0] if pick.random() < 0.25 else pick.choice(SPECS[1:])
            _same(game, state, spec, seed=pick.randrange(1000))
            count += 1
    assert count >= 40
    # rejection fails: the exact deal draws (with three players rejection nearly always works)
    if options["num_players"] >= 4:
        assert deal_paths["exact"] > deal_paths["mixed"]
    if options["num_players"] >= 5:  # voids in many hands: counting gives up, the mixed deal
        assert deal_paths["mixed"] > 0


def test_every_trick_position_and_round_of_one_game():
    """Every decision of one four-player game of three rounds: leading, following, last."""
    game = _game({"num_players": 4, "rounds": 3, "first_dealer": 1})
    for i, state in enumerate(_positions(game, "random", seed=11, take=1.0)):
        if i % 3 == 0:
            _same(game, state, "pimc:worlds=4,rollouts=2", seed=i)


def test_kernel_search_is_on_by_default_and_kernel_0_turns_it_off():
    game = _game({"num_players": 4})
    assert kernel.load(game).has_search
    assert build_policy("pimc", game, seed=0, cache=False)._kernel is not None
    assert build_policy("pimc:kernel=0", game, seed=0, cache=False)._kernel is None
    assert build_policy("pimc:playout=rules", game, seed=0, cache=False)._kernel is None
