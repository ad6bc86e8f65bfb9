"""The learned search bot: PIMC with a shipped network as its prior (``pimc:guide=bot:<game>``).

It must stay as honest as plain PIMC (the guide reads only the seat's own
observation, the worlds only what the seat has seen), spend the same
work as plain PIMC at its budget, search only the guide's ``keep``
favourites, and refuse a guide or a ``keep`` that cannot work.
"""

from __future__ import annotations

import random

import pytest

from stichzoo.envs.registry import game_class
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision
from stichzoo.policies.specs import build_policy, parse_policy_spec
from tests.policies.test_search_honesty import redeal, states

#: the shipped bots' tables: (game, options)
SHIPPED = [
    ("wizard", dict(num_players=4)),
    ("wunder_punkt", dict(num_players=4)),
    ("silberne_ananas", dict()),
    ("hoch_tief", dict(num_players=4)),
    ("geheimtrumpf", dict(num_players=4)),
]
IDS = [g for g, _ in SHIPPED]


def game_of(name: str, opts: dict):
    cls = game_class(name)
    return cls(cls.Options(**opts))


def guided(game, worlds: int = 2, keep: int = 2, trust: float = 0):
    return build_policy(f"pimc:guide=bot:{game.name},worlds={worlds},keep={keep},trust={trust}",
                        game, seed=13, cache=False)


class CountingGame:
    """A game whose ``determinize`` counts its calls: one call is one sampled world."""

    def __init__(self, game):
        self._game = game
        self.worlds = 0

    def __getattr__(self, name):
        return getattr(self._game, name)

    def determinize(self, state, seat, rng):
        self.worlds += 1
        return self._game.determinize(state, seat, rng)


class CountingKernel:
    """The kernel's search, counting the worlds it is asked to draw into ``game.worlds``."""

    def __init__(self, kernel, game: CountingGame):
        self._kernel = kernel
        self._game = game

    def __getattr__(self, name):
        return getattr(self._kernel, name)

    def pimc(self, states, i, seat, actions, worlds, rollouts, mt):
        self._game.worlds += worlds
        return self._kernel.pimc(states, i, seat, actions, worlds, rollouts, mt)


def counting(search, game) -> None:
    """Count every world ``search`` samples, in the Python loop or in the kernel."""
    search.game = CountingGame(game)
    if search._kernel is not None:
        search._kernel = CountingKernel(search._kernel, search.game)


@pytest.mark.parametrize("trust", [0, 1])
@pytest.mark.parametrize("name, opts", SHIPPED, ids=IDS)
def test_guided_search_is_honest(name, opts, trust):
    """Its action and values (fixed seed) must not change when what the seat cannot see is
    re-dealt."""
    game = game_of(name, opts)
    rng = random.Random(3)
    checks = 0
    for s in states(game, 31, 3, 16):
        if len(s.legal_actions()) < 3:
            continue
        want = guided(game, trust=trust).act(Decision(game, s))
        assert want in s.legal_actions()
        r = redeal(game, s, s.current_player, rng)
        assert guided(game, trust=trust).act(Decision(game, r)) == want, s.phase_name
        # and so are the values behind it, the unsearched actions' missing ones included
        values = guided(game, trust=trust).values(Decision(game, s))
        assert values.action == want
        assert guided(game, trust=trust).values(Decision(game, r)) == values, s.phase_name
        checks += 1
    assert checks >= 3


@pytest.mark.parametrize("name, opts", SHIPPED, ids=IDS)
def test_guided_search_spends_the_plain_budget_on_the_guides_favourites(name, opts):
    game = game_of(name, opts)
    bot = make_policy("bot", game, seed=0)
    seen = 0
    for s in states(game, 32, 3, 20):
        legal = s.legal_actions()
        if len(legal) < 3:
            continue
        d = Decision(game, s)
        search = guided(game, worlds=2, keep=2)
        counting(search, game)
        action = search.act(d)
        if search.phases and s.phase_name not in search.phases:  # the guide is not asked here
            assert search.game.worlds == 2  # plain PIMC: its own budget, every action
            continue
        probs = bot.probabilities(d.observation, d.action_mask)
        top = sorted(legal, key=lambda a: (-probs[a], a))[:2]
        assert action in top, "the search chose an action the guide did not put forward"
        # plain: 2 worlds x (sampling + a rollout per legal action); guided: W x (c + 2),
        # a world's sampling costing c rollouts (the game's SEARCH_DEFAULTS, measured)
        c = search.world_cost
        priced = {"hoch_tief": 2, "wunder_punkt": 0.2, "silberne_ananas": 0.2, "wizard": 4}
        assert c == priced.get(name, 1)
        if s.phase_name in search.follow:  # the guide decides this phase alone (follow)
            assert search.game.worlds == 0
            continue
        assert search.game.worlds == int(2 * (len(legal) + c) // (2 + c))
        seen += 1
    assert seen >= 3


def test_without_enough_actions_the_guide_is_not_asked():
    game = game_of("wizard", dict(num_players=4))
    search = guided(game, worlds=2, keep=40)
    s = game.new_game(1)
    legal = s.legal_actions()
    assert search.candidates(Decision(game, s), legal) == (legal, 2)


def test_trust_lets_the_guide_choose_only_among_actions_the_search_cannot_separate():
    """Hand-made rollout values in three shared worlds: candidate 1 is within noise of
    the best (0), candidate 2 is worse in every world; the guide likes 2, then 1."""
    game = game_of("wizard", dict(num_players=4))
    search = guided(game, trust=1)
    per_world = [[1.0, 2.0, 3.0], [0.9, 2.1, 2.8], [-5.0, -5.0, -5.0]]
    legal = [10, 11, 12]
    probs = {10: 0.1, 11: 0.3, 12: 0.6}
    assert search._trusted(per_world, 0, probs, legal) == 1
    # the best itself is level with itself: a guide that likes it most keeps it
    assert search._trusted(per_world, 0, {10: 0.5, 11: 0.3, 12: 0.2}, legal) == 0
    # at a stricter trust the noisy candidate is no longer level
    assert guided(game, trust=0.1)._trusted(per_world, 0, probs, legal) == 0


def test_trust_still_spends_the_plain_budget_and_picks_a_candidate():
    game = game_of("hoch_tief", dict(num_players=4))
    for s in states(game, 33, 3, 12):
        legal = s.legal_actions()
        if len(legal) < 3:
            continue
        search = guided(game, worlds=3, keep=2, trust=2)
        counting(search, game)
        chosen, _ = search.candidates(Decision(game, s), legal)
        assert search.act(Decision(game, s)) in chosen
        assert search.game.worlds == int(3 * (len(legal) + 2) // (2 + 2))  # world_cost 2


def test_a_dearer_world_buys_fewer_extra_worlds():
    """``world_cost``: sampling a world costs c rollouts, so pruning 10 actions to 3 frees
    (10 + c) / (3 + c) of the plain budget per world, not 11 / 4."""
    game = game_of("wizard", dict(num_players=4))
    s = next(s for s in states(game, 34, 3, 40) if len(s.legal_actions()) >= 6)
    legal = s.legal_actions()
    for c, want in [(1, 12 * (len(legal) + 1) // 4), (3, 12 * (len(legal) + 3) // 6),
                    (0, 12 * len(legal) // 3)]:
        search = build_policy(f"pimc:guide=bot:wizard,worlds=12,keep=3,world_cost={c}", game,
                              seed=13, cache=False)
        assert search.candidates(Decision(game, s), legal)[1] == want
    for bad in (-1, 101, True, "x"):
        with pytest.raises(ValueError, match="world_cost"):
            make_policy("pimc", game, world_cost=bad)


def test_the_spec_names_the_guide():
    assert parse_policy_spec("pimc:guide=bot:wizard,keep=3") == (
        "pimc", {"guide": "bot:wizard", "keep": 3})


@pytest.mark.parametrize("spec, message", [
    ("pimc:guide=heuristic", "the guide must be a trained network"),
    ("pimc:guide=bot:wizard,keep=0", "keep=0"),
    ("pimc:guide=bot:wizard,keep=1.5", "keep=1.5"),
    ("pimc:guide=bot:hoch_tief", "hoch_tief"),
    ("pimc:guide=bot:wizard,trust=-1", "trust=-1"),
    ("pimc:guide=bot:wizard,trust=11", "trust=11"),
    ("pimc:guide=bot:wizard,trust=true", "trust=True"),
    ("pimc:trust=1", "trust needs a guide"),
])
def test_bad_guides_are_refused_by_name(spec, message):
    game = game_of("wizard", dict(num_players=4))
    with pytest.raises(ValueError, match=message):
        build_policy(spec, game, seed=0, cache=False)


def test_follow_lets_the_guide_decide_a_phase_alone():
    """``follow=sore``: in the sore phase the network's favourite, no world sampled, and no
    value claimed for any action; the play phase is searched as before."""
    game = game_of("wunder_punkt", dict(num_players=4))
    bot = make_policy("bot", game, seed=0)
    s = game.new_game(5)
    assert s.phase_name == "sore"
    d = Decision(game, s)
    search = build_policy("pimc:guide=bot:wunder_punkt,follow=sore", game, seed=13, cache=False)
    counting(search, game)
    values = search.values(d)
    probs = bot.probabilities(d.observation, d.action_mask)
    assert values.action == min(d.legal_actions, key=lambda a: (-probs[a], a))
    assert search.game.worlds == 0
    assert all(v.value is None and "guide decides the sore phase" in v.reason
               for v in values.values)
    assert {v.action for v in values.values} == set(d.legal_actions)
    play = next(x for x in states(game, 35, 3, 30)
                if x.phase_name == "play" and len(x.legal_actions()) > 1)
    assert search.values(Decision(game, play)).why != values.why
    assert search.game.worlds > 0


def test_phases_ask_the_guide_only_there():
    """``phases=sore`` (Wunder Punkt's default): the sore pick searches the guide's
    candidates; a play decision is plain PIMC - the same choice and values as ``pimc``."""
    game = game_of("wunder_punkt", dict(num_players=4))
    search = build_policy("search", game, seed=13, cache=False)
    assert search.phases == ("sore",) and search.follow == ()
    plain = build_policy("pimc", game, seed=13, cache=False)
    play = [x for x in states(game, 36, 3, 30)
            if x.phase_name == "play" and len(x.legal_actions()) > search.keep][:3]
    assert play
    for s in play:
        assert search.values(Decision(game, s)) == plain.values(Decision(game, s))
    s = game.new_game(5)
    d = Decision(game, s)
    values = search.values(d)
    assert sum(v.value is not None for v in values.values) == search.keep  # its candidates


def test_follow_and_phases_defaults_and_refusals():
    game = game_of("wunder_punkt", dict(num_players=4))
    # plain PIMC has no guide and so none of the guided defaults
    assert build_policy("pimc", game, seed=0, cache=False).phases == ()
    assert build_policy("pimc:guide=bot:wunder_punkt", game, seed=0, cache=False).phases == (
        "sore",)
    assert build_policy("pimc:guide=bot:wunder_punkt,phases=none", game, seed=0,
                        cache=False).phases == ()
    for key in ("follow", "phases"):
        with pytest.raises(ValueError, match=f"{key} needs a guide"):
            build_policy(f"pimc:{key}=sore", game, seed=0, cache=False)
        with pytest.raises(ValueError, match="no phase 'bid'"):
            build_policy(f"pimc:guide=bot:wunder_punkt,{key}=bid", game, seed=0, cache=False)
    gt = game_of("geheimtrumpf", dict(num_players=4))
    search = build_policy("pimc:guide=bot:geheimtrumpf,follow=task_draft+card_draft", gt,
                          seed=0, cache=False)
    assert search.follow == ("task_draft", "card_draft")
