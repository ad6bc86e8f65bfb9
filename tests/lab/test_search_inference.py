"""PIMC that infers: worlds drawn by how well they explain what the other seats did (issue 29).

``pimc:infer=<strength>`` keeps each uniform world (``determinize``) with the
chance the game's inference gives it (rejection sampling, at most ``tries``
draws per kept world).  These tests hold it to what it promises:

- the inference reads only the world: the seat's own cards, public facts and
  sampled hands - so the search stays honest (re-deal what the seat cannot
  see, fixed seed, same action);
- a world that explains the bids is kept more often than one that does not;
- the sampler keeps a world with exactly the inference's chance, and after
  ``tries`` misses takes the likeliest world it drew;
- without ``infer`` the search draws the same worlds as before (same RNG use).
"""

from __future__ import annotations

import math
import random

import pytest

import stichzoo.policies.lab  # noqa: F401  (registers pimc:infer=, the lab lever tested here)
from stichzoo.envs.registry import game_class
from stichzoo.envs.wizard.rules import BID, DECK, PLAY
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision
from stichzoo.policies.games.wizard import estimate_tricks
from stichzoo.policies.lab.bid_inference import inference
from stichzoo.policies.search import PIMCPolicy
from stichzoo.policies.specs import build_policy
from tests.policies.test_search_honesty import redeal, states


def wizard(**opts):
    cls = game_class("wizard")
    return cls(cls.Options(**{"num_players": 4, **opts}))


def after_bids(game, seed: int):
    """A state in the play phase of a random round (the bids made by a heuristic)."""
    s = game.new_game(seed)
    heuristic = make_policy("heuristic", game, seed=seed)
    while s.phase != PLAY:
        s.apply(heuristic.act(Decision(game, s)))
    return s


def test_pimc_with_inference_is_honest():
    game = wizard(rounds=[6])
    rng = random.Random(3)
    checks = 0
    for s in states(game, 31, 2, 14):
        if len(s.legal_actions()) < 2:
            continue
        seat = s.current_player
        want = build_policy("pimc:infer=1,worlds=3", game, seed=5).act(Decision(game, s))
        r = redeal(game, s, seat, rng)
        assert build_policy("pimc:infer=1,worlds=3", game, seed=5).act(Decision(game, r)) == want
        checks += 1
    assert checks >= 6


def test_a_world_that_explains_the_bids_is_likelier():
    """Seat 1 bid 0; a world that gives it the four Wizards explains that worse than one that
    gives it small cards."""
    game = wizard(rounds=[5])
    chance = inference(game, 1.0)
    s = after_bids(game, 4)
    for _ in range(200):  # find a deal where seat 1 bid 0 and holds no Wizard
        if s.bids[1] == 0:
            break
        s = after_bids(game, random.randrange(10**6))
    assert s.bids[1] == 0
    seat = 0
    worlds = [game.determinize(s, seat, random.Random(i)) for i in range(300)]
    wizards = [w for w in worlds if (w.hands[1] >> 52 & 0xF).bit_count() >= 2]
    none = [w for w in worlds if not (w.hands[1] >> 52 & 0xF)]
    assert wizards and none
    mean = lambda ws: sum(chance(w, seat) for w in ws) / len(ws)  # noqa: E731
    assert mean(wizards) < 0.5 * mean(none)


def test_the_chance_is_the_bid_fit():
    """The chance is exp(-sum d^2 / (2 sigma^2)) over the other seats' bids, by the hands the
    bidders held when they bid (hand now + cards played this round)."""
    game = wizard(rounds=[3])
    s = game.new_game(8)
    # play the bids and the first trick with the lowest legal action
    while s.phase != PLAY or s.trick.cards:
        s.apply(min(s.legal_actions()))
    world = game.determinize(s, 0, random.Random(1))
    turned = 1 << world.trump_card if world.trump_card >= 0 else 0
    played = {p: 0 for p in range(4)}
    for p, a in world.history:
        if a < 60:
            played[p] |= 1 << a
    sigma = 0.25 + 0.09 * 3
    misfit = 0.0
    for p in (1, 2, 3):
        hand = world.hands[p] | played[p]
        est = estimate_tricks(hand, ((1 << 60) - 1) & ~(hand | turned),
                              world.trump if world.trump >= 0 else -1, 4)
        misfit += (world.bids[p] - est) ** 2
    assert inference(game, 1.0)(world, 0) == pytest.approx(math.exp(-misfit / (2 * sigma**2)))
    assert inference(game, 0.5)(world, 0) == pytest.approx(math.exp(-0.5 * misfit / (2 * sigma**2)))


def test_before_any_bid_every_world_is_kept():
    game = wizard(rounds=[4])
    s = game.new_game(2)
    while s.phase != BID:
        s.apply(min(s.legal_actions()))
    assert inference(game, 1.0)(game.determinize(s, s.current_player, random.Random(0)),
                                s.current_player) == 1.0


class _Counted:
    """An inference of fixed chances, one per draw, that records the worlds it saw."""

    def __init__(self, chances):
        self.chances = list(chances)
        self.seen = []

    def __call__(self, world, seat):
        self.seen.append(world)
        return self.chances[len(self.seen) - 1]


def test_the_sampler_keeps_by_chance_and_falls_back_to_the_likeliest():
    game = wizard(rounds=[4])
    s = after_bids(game, 9)
    never = _Counted([0.0, 0.3, 0.1, 0.0])
    search = PIMCPolicy(game, worlds=1, seed=0, infer=never, tries=4)
    search.rng.random = lambda: 0.99  # no draw is kept by chance
    kept = search._inferred(s, 0, search.rng)
    assert len(never.seen) == 4 and kept is never.seen[1]
    always = _Counted([1.0, 1.0])
    search = PIMCPolicy(game, worlds=1, seed=0, infer=always, tries=4)
    assert search._inferred(s, 0, search.rng) is always.seen[0] and len(always.seen) == 1


def test_without_inference_the_search_is_unchanged():
    game = wizard(rounds=[5])
    s = after_bids(game, 12)
    plain = make_policy("pimc", game, seed=3).values(Decision(game, s))
    again = build_policy("pimc:infer=0", game, seed=3).values(Decision(game, s))
    assert plain == again


def test_inference_arguments_are_checked():
    game = wizard(rounds=[2])
    with pytest.raises(ValueError, match="strength"):
        build_policy("pimc:infer=20", game, seed=0)
    with pytest.raises(ValueError, match="tries"):
        build_policy("pimc:infer=1,tries=0", game, seed=0)
    hoch = game_class("hoch_tief")(game_class("hoch_tief").Options())
    with pytest.raises(ValueError, match="no inference"):
        build_policy("pimc:infer=1", hoch, seed=0)
    assert DECK.names[52] == "W1"


def test_determinize_is_its_two_steps():
    """Wizard's determinize is deal_others then world_of, draw for draw, so the inference's
    cheaper sampler (judge the hands, then build the world) draws worlds of the same kind."""
    from tests.policies.test_search_honesty import snapshot

    game = wizard()
    for k, s in enumerate(states(game, 41, 5, 12)):
        seat = (s.current_player + k) % 4
        one = game.determinize(s, seat, random.Random(k))
        rng = random.Random(k)
        two = game.world_of(s, seat, game.deal_others(s, seat, rng), rng)
        assert snapshot(one) == snapshot(two)


def test_the_rollout_player_is_a_spec_argument():
    """``pimc:rollout=random`` plays worlds out uniformly (as the headroom probes' variant),
    ``rollout=heuristic`` with the game's full heuristic; anything else is refused by name."""
    from stichzoo.policies.games.wizard import FastHeuristic, Heuristic

    game = wizard(rounds=[3])
    assert isinstance(build_policy("pimc", game, seed=0).rollout, FastHeuristic)
    assert build_policy("pimc:rollout=random", game, seed=0).rollout is None
    assert isinstance(build_policy("pimc:rollout=heuristic", game, seed=0).rollout, Heuristic)
    with pytest.raises(ValueError, match="rollout='bot'; choose random or heuristic"):
        build_policy("pimc:rollout=bot", game, seed=0)
    s = after_bids(game, 3)
    uniform = build_policy("pimc:rollout=random,worlds=4", game, seed=2)
    assert uniform.act(Decision(game, s)) in s.legal_actions()
