"""Search bots that do not peek: PIMC and its sampled worlds, in all five games.

A search bot is handed the true rules state, which holds more than its seat
may know; it may touch the hidden part only through
``game.determinize(state, seat, rng)``.  These tests hold every game's
``determinize`` - and so PIMC - to that contract:

- a sampled world is a real game: ``game.new_state(world.deck_orders)``
  stepped (checked) through ``world.history`` gives back the world, every
  field but the log.  Every ``determinize`` rebuilds the current round's
  deck order to deal the re-sampled hands and rewrites the history entries
  of re-sampled secret picks, so this holds in all five games;
- it agrees with everything the seat sees: the same observation (the env's
  encoder), legal mask and player to act as the true state;
- it depends only on what the seat sees: ``determinize`` with the same RNG
  gives the same world on the true state and on a re-deal of it;
- so PIMC with a fixed seed takes the same action on the true state and on
  its re-deals.

A re-deal changes only what the seat cannot see.  As in the per-game
honesty tests it is drawn by ``determinize`` itself (with an RNG of its
own), then replayed through the rules into a fresh state, so every re-deal
is a real game too.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from stichzoo.envs.core.tricks import Trick
from stichzoo.envs.registry import game_class
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision, encoder_for
from stichzoo.policies.specs import build_policy

#: (game, options, stride between sampled decisions, number of sampled decisions)
CASES = [
    ("wizard", dict(num_players=4), 3, 24),
    ("wunder_punkt", dict(num_players=3), 3, 24),
    ("silberne_ananas", dict(), 3, 16),
    ("hoch_tief", dict(num_players=4), 3, 16),
    ("geheimtrumpf", dict(num_players=4, round_limit=3), 4, 24),
    ("geheimtrumpf", dict(num_players=3, round_limit=3), 4, 24),
]
IDS = ["wizard", "wunder_punkt", "silberne_ananas", "hoch_tief", "geheimtrumpf-4p",
       "geheimtrumpf-3p"]
#: phases in which a secret pick of another seat may be pending: always sampled
SECRET_PHASES = {"sore", "task_choice"}
WORLDS = 3  # PIMC's sampled worlds per decision: few, for speed


def game_of(name: str, opts: dict):
    cls = game_class(name)
    return cls(cls.Options(**opts))


def states(game, seed: int, stride: int, limit: int):
    """``limit`` states of a random game: every ``stride``-th decision, and every decision
    while a secret pick may be pending.  The states must not be changed."""
    rng = random.Random(seed)
    s = game.new_game(seed)
    i = taken = 0
    while not (s.over or s.truncated) and taken < limit:
        if i % stride == 0 or s.phase_name in SECRET_PHASES:
            yield s
            taken += 1
        s.apply(rng.choice(s.legal_actions()))
        i += 1


def _plain(v):
    if isinstance(v, Trick):
        return ("trick", v.leader, v.num_players, tuple(v.cards))
    if isinstance(v, (list, tuple)):
        return tuple(_plain(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _plain(x)) for k, x in v.items()))
    if dataclasses.is_dataclass(v):  # e.g. Geheimtrumpf's Trumps
        return (type(v).__name__, *(_plain(getattr(v, f.name)) for f in dataclasses.fields(v)))
    return v


def snapshot(state) -> dict:
    """Every field of a rules state (the log aside), as plain comparable values."""
    out = {}
    for cls in type(state).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if name in ("log", "game", "lookups") or name in out:
                continue
            v = getattr(state, name)
            out[name] = tuple(tuple(o) for o in v) if name == "deck_orders" else _plain(v)
    return out


def replay(game, world):
    """A fresh state dealt from ``world``'s deck orders, stepped through its history."""
    again = game.new_state([list(o) for o in world.deck_orders])
    for p, a in world.history:
        assert again.current_player == p, "the history names the wrong player to act"
        again.step(a)  # checked: a world whose history breaks the rules fails here
    return again


def redeal(game, state, seat: int, rng: random.Random):
    """``state`` with only what ``seat`` cannot see re-dealt, as a real (replayed) game."""
    return replay(game, game.determinize(state, seat, rng))


def honest_states(game, spec: str, seed: int, rng: random.Random, found):
    """The states of ``found`` with two or more legal actions where the search ``spec``
    (built afresh with ``seed``) plays a legal action and the same one on a re-deal of what
    the seat cannot see; yields each with that action."""
    for s in found:
        if len(s.legal_actions()) < 2:
            continue
        want = build_policy(spec, game, seed=seed).act(Decision(game, s))
        assert want in s.legal_actions()
        r = redeal(game, s, s.current_player, rng)
        assert build_policy(spec, game, seed=seed).act(Decision(game, r)) == want, spec
        yield s, want


def observe(enc, state, seat: int) -> np.ndarray:
    out = np.zeros(enc.layout.size, np.float32)
    enc.encode(state, seat, out)
    return out


def pimc(game):
    return make_policy("pimc", game, seed=11, worlds=WORLDS)


# -- the sampled worlds ------------------------------------------------------------------


@pytest.mark.parametrize("name, opts, stride, limit", CASES, ids=IDS)
def test_sampled_worlds_replay_and_show_the_seat_what_it_sees(name, opts, stride, limit):
    game = game_of(name, opts)
    enc = encoder_for(game)
    n = game.num_players
    rng = random.Random(5)
    checks = 0
    for i, s in enumerate(states(game, 21, stride, limit)):
        before = snapshot(s)
        for seat in {s.current_player, (s.current_player + 1 + i) % n}:
            want = observe(enc, s, seat)
            for _ in range(2):
                w = game.determinize(s, seat, rng)
                assert w is not s and w.log is None
                assert snapshot(replay(game, w)) == snapshot(w), (
                    f"{s.phase_name}: the world does not replay from its own history")
                assert np.array_equal(observe(enc, w, seat), want), (
                    f"{s.phase_name}: the world shows seat {seat} something else")
                assert w.current_player == s.current_player
                if seat == s.current_player:
                    assert w.legal_mask() == s.legal_mask()
                checks += 1
        assert snapshot(s) == before, "determinize changed the true state"
    assert checks >= 2 * limit


@pytest.mark.parametrize("name, opts, stride, limit", CASES, ids=IDS)
def test_sampled_worlds_depend_only_on_what_the_seat_sees(name, opts, stride, limit):
    """The same RNG gives the same world on the true state and on a re-deal of it."""
    game = game_of(name, opts)
    rng = random.Random(6)
    moved = 0
    for k, s in enumerate(states(game, 22, stride, limit)):
        seat = s.current_player
        r = redeal(game, s, seat, rng)
        moved += snapshot(r) != snapshot(s)
        a = game.determinize(s, seat, random.Random(k))
        b = game.determinize(r, seat, random.Random(k))
        assert snapshot(a) == snapshot(b), (
            f"{s.phase_name}: the sampled world depends on what seat {seat} cannot see")
    assert moved > limit // 2  # the re-deals do move the hidden part


# -- PIMC --------------------------------------------------------------------------------


@pytest.mark.parametrize("name, opts, stride, limit", CASES, ids=IDS)
def test_pimc_is_honest(name, opts, stride, limit):
    """PIMC's action (fixed seed) must not change when what the seat cannot see is re-dealt."""
    game = game_of(name, opts)
    rng = random.Random(7)
    checks = 0
    for s in states(game, 23, stride, limit):
        if len(s.legal_actions()) < 2:
            continue
        seat = s.current_player
        want = pimc(game).act(Decision(game, s))
        for _ in range(2):
            r = redeal(game, s, seat, rng)
            assert pimc(game).act(Decision(game, r)) == want, s.phase_name
            checks += 1
    assert checks >= limit // 2


# -- the two leaks this file was written for ---------------------------------------------


def test_wunder_punkt_worlds_do_not_follow_the_true_deal():
    """Regression: the card pool was the true other hands in seat order, then shuffled,
    so a fixed RNG drew a world (and a PIMC action) that followed the true deal."""
    game = game_of("wunder_punkt", dict(num_players=3))
    s = game.new_game(500)
    rng = random.Random(500)
    for _ in range(47):
        s.apply(rng.choice(s.legal_actions()))
    seat = s.current_player
    redeals = [redeal(game, s, seat, random.Random(k)) for k in range(6)]
    assert len({tuple(r.hands) for r in redeals}) == 6
    world = snapshot(game.determinize(s, seat, random.Random(0)))
    want = make_policy("pimc", game, seed=0, worlds=4).act(Decision(game, s))
    for r in redeals:
        assert snapshot(game.determinize(r, seat, random.Random(0))) == world
        assert make_policy("pimc", game, seed=0, worlds=4).act(Decision(game, r)) == want


def test_geheimtrumpf_worlds_rewrite_the_secret_task_choices_in_the_history():
    """Regression: ``chosen`` was re-drawn but the history kept the true secret choices."""
    game = game_of("geheimtrumpf", dict(num_players=4))
    s = game.new_game(41)
    rng = random.Random(41)
    while not (s.phase_name == "task_choice" and s.current_player == 2):
        s.apply(rng.choice(s.legal_actions()))
    assert s.history[-1] == (1, game.CHOOSE_TASK0 + 10)  # seat 1 chose task 10, unseen by seat 2
    drawn = set()
    for k in range(200):
        w = game.determinize(s, 2, random.Random(k))
        p, a = w.history[-1]
        assert p == 1 and a == game.CHOOSE_TASK0 + w.chosen[1]
        assert w.history[:-1] == s.history[:-1]
        drawn.add(w.chosen[1])
    assert len(drawn) > 1 and drawn <= {t for t in range(11) if s.held[1] >> t & 1}
    # and the choices replay: the world's history gives the world's secret picks
    w = game.determinize(s, 2, random.Random(1))
    assert replay(game, w).chosen == w.chosen


@pytest.mark.parametrize("name, opts, stride, limit", CASES, ids=IDS)
def test_pimc_values_are_honest(name, opts, stride, limit):
    """Every action's value and standard error (fixed seed) is unchanged by a re-deal of
    what the seat cannot see: the values are played in the same sampled worlds."""
    game = game_of(name, opts)
    rng = random.Random(8)
    checks = 0
    for s in states(game, 24, stride, limit):
        if len(s.legal_actions()) < 2:
            continue
        want = pimc(game).values(Decision(game, s))
        assert all(v.value is not None for v in want.values)
        r = redeal(game, s, s.current_player, rng)
        assert pimc(game).values(Decision(game, r)) == want, s.phase_name
        checks += 1
    assert checks >= limit // 4


@pytest.mark.parametrize("spec", ["pimc:infer=1,worlds=3",
                                  "pimc:policy=0.5,worlds=3,candidates=9,plays=6"])
def test_wizard_inference_searches_are_honest(spec):
    """The searches whose worlds are weighted by the other seats' bids and plays (the bid fit,
    ``infer=``; the shipped network's likelihood, ``policy=``) read those only from the world:
    a re-deal of what the seat cannot see leaves their values unchanged (fixed seed)."""
    if "policy=" in spec:
        pytest.importorskip("onnxruntime")
    game = game_of("wizard", dict(num_players=4))
    rng = random.Random(9)
    checks = 0
    for s in states(game, 25, 3, 40):
        if len(s.legal_actions()) < 2 or s.bids.count(-1) == 4:
            continue
        want = make_policy_spec(spec, game).values(Decision(game, s))
        r = redeal(game, s, s.current_player, rng)
        assert make_policy_spec(spec, game).values(Decision(game, r)) == want, s.phase_name
        checks += 1
    assert checks >= 8


def make_policy_spec(spec: str, game):
    from stichzoo.policies.specs import build_policy

    return build_policy(spec, game, seed=13)
