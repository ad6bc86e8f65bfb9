"""The kernel checked against the Python core, decision for decision.

Why: the Python core is the referee.  ``compare`` plays games in both from
the same seeds and, at every decision, compares what a user of either
could see - the deck orders, the seat to act, the phase, the round, the
decision count, the totals, the legal mask, the observation of the seat to
act (or of every seat) bit for bit, the score deltas of every action, the
game's end (over or truncated) and the win shares - and raises an
``AssertionError`` naming the first difference.  Adversarial play is mixed
in: illegal ids must be refused by both cores alike, and every so often the
kernel's game is rebuilt from its deck orders and the actions so far and
must come out byte for byte the same (a replay).

``tests/envs/kernel/`` runs a fast subset per game; ``scripts/checks/
check_kernel.py`` runs a million decisions per game and configuration.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.game import Game, GameState, IllegalActionError, win_share
from stichzoo.envs.kernel import KZ_DELTAS, KZ_OVER, KZ_TRUNCATED, Kernel, flat_orders, load
from stichzoo.envs.registry import env_module, game_class

#: a policy: (python state, legal action ids, rng) -> action
Chooser = Callable[[GameState, list[int], random.Random], int]


def _first(state: GameState, legal: list[int], rng: random.Random) -> int:
    return legal[0]


def _last(state: GameState, legal: list[int], rng: random.Random) -> int:
    return legal[-1]


def _random(state: GameState, legal: list[int], rng: random.Random) -> int:
    return legal[rng.randrange(len(legal))]


def _mixed(state: GameState, legal: list[int], rng: random.Random) -> int:
    """Random, first or last by turns: reaches extreme lines (lowest bids, all-high play)."""
    return (_random, _first, _last)[rng.randrange(3)](state, legal, rng)


POLICIES: dict[str, Chooser] = {"random": _random, "first": _first, "last": _last, "mixed": _mixed}


@dataclass
class Report:
    """What a comparison covered (every counted item agreed)."""

    game: str
    options: dict
    games: int = 0
    decisions: int = 0
    observations: int = 0
    illegal_tries: int = 0
    replays: int = 0
    endings: dict = field(default_factory=lambda: {"over": 0, "truncated": 0})


def make(name: str, options: dict | None = None) -> tuple[Game, Any, Kernel]:
    """The Python game, its env's encoder and the kernel, under ``options``."""
    cls = game_class(name)
    game = cls(cls.Options(**(options or {})))
    encoder = env_module(name).raw_env.encoder_cls(game)
    return game, encoder, load(game, force=True)


def _fail(where: str, what: str, py: Any, kz: Any) -> None:
    raise AssertionError(f"{where}: {what} differs - python {py!r}, kernel {kz!r}")


def _same_obs(a: np.ndarray, b: np.ndarray) -> bool:
    return a.tobytes() == b.tobytes()


def compare(name: str, options: dict | None = None, *, games: int = 10, seed: int = 0,
            policy: str | Chooser = "random", observe: str = "actor",
            illegal_rate: float = 0.02, replay_rate: float = 0.002) -> Report:
    """Play ``games`` games of ``name`` in both cores and compare everything (module docstring).

    ``observe``: "actor" (the seat to act), "all" (every seat) or "none".
    """
    game, encoder, k = make(name, options)
    choose = POLICIES[policy] if isinstance(policy, str) else policy
    rng = random.Random(seed)
    rep = Report(name, dict(options or {}))
    n, size = game.num_players, encoder.layout.size
    py_obs = np.zeros(size, np.float32)
    kz_obs = np.zeros(size, np.float32)
    states = k.new_states(2)
    for g in range(games):
        deck_seed = rng.getrandbits(63)
        orders = game.deal(random.Random(deck_seed))
        state = game.new_state(orders)
        flat = flat_orders(state.deck_orders)
        if k.deal(deck_seed) != flat:
            _fail(f"game {g} (deck seed {deck_seed})", "deal", flat[:20], k.deal(deck_seed)[:20])
        k.start(states, 0, flat)
        actions: list[int] = []
        while True:
            where = (f"{name} {options or {}} game {g} (deck seed {deck_seed}) "
                     f"decision {len(actions)}")
            head = k.head(states, 0)
            for key, py in (("current_player", state.current_player), ("phase", state.phase),
                            ("over", state.over), ("truncated", state.truncated),
                            ("round_index", state.round_index), ("decisions", len(state.history)),
                            ("totals", tuple(state.totals))):
                if head[key] != py:
                    _fail(where, key, py, head[key])
            done = state.over or state.truncated
            mask = 0 if done else state.legal_mask()
            if k.legal(states, 0) != mask:
                _fail(where, "legal mask", bit_list(mask), bit_list(k.legal(states, 0)))
            seats = {"actor": [state.current_player] if not done else [],
                     "all": range(n), "none": []}[observe]
            for seat in seats:
                encoder.encode(state, seat, py_obs)
                k.encode(states, 0, seat, kz_obs)
                if not _same_obs(py_obs, kz_obs):
                    bad = np.flatnonzero(py_obs.view(np.uint32) != kz_obs.view(np.uint32))
                    pieces = sorted({p["name"] for p in encoder.layout.describe() for i in bad[:50]
                                     if p["offset"] <= i < p["offset"] + p["size"]})
                    _fail(where, f"observation of seat {seat} at {bad[:8].tolist()} "
                          f"(pieces {pieces})", py_obs[bad[:8]].tolist(), kz_obs[bad[:8]].tolist())
                rep.observations += 1
            if done:
                break
            if rng.random() < illegal_rate:
                _try_illegal(k, states, state, game, rng, where)
                rep.illegal_tries += 1
            legal = bit_list(mask)
            action = choose(state, legal, rng)
            state.step(action)
            flags, deltas = k.apply(states, 0, action)
            actions.append(action)
            rep.decisions += 1
            py_deltas = tuple(state.last_deltas) if state.last_deltas is not None else None
            kz_deltas = deltas if flags & KZ_DELTAS else None
            if py_deltas != kz_deltas:
                _fail(where, f"score deltas of action {action}", py_deltas, kz_deltas)
            if bool(flags & KZ_OVER) != state.over or bool(flags & KZ_TRUNCATED) != state.truncated:
                _fail(where, "game end flags", (state.over, state.truncated), flags)
            if rng.random() < replay_rate:
                _replay(k, states, flat, actions, where)
                rep.replays += 1
        share = tuple(win_share(state.winners(), n))
        if k.win_share(states, 0) != share:
            _fail(f"{name} game {g}", "win share", share, k.win_share(states, 0))
        rep.endings["over" if state.over else "truncated"] += 1
        rep.games += 1
    return rep


def _try_illegal(k: Kernel, states: np.ndarray, state: GameState, game: Game,
                 rng: random.Random, where: str) -> None:
    """An id outside the mask (or outside the ids) must be refused by both, changing nothing."""
    mask = state.legal_mask()
    illegal = [a for a in range(-2, game.num_actions + 3) if a < 0 or a >= game.num_actions
               or not (mask >> a) & 1]
    a = illegal[rng.randrange(len(illegal))]
    before = states[0].tobytes()
    for core, act in (("python", lambda: state.step(a)), ("kernel", lambda: k.apply(states, 0, a))):
        try:
            act()
        except IllegalActionError:
            continue
        raise AssertionError(f"{where}: the {core} core accepted illegal action {a}")
    if states[0].tobytes() != before:
        raise AssertionError(f"{where}: a refused action {a} changed the kernel's state")


def _replay(k: Kernel, states: np.ndarray, flat: bytes, actions: list[int], where: str) -> None:
    """The same deck orders and actions give the same state bytes (determinism)."""
    k.start(states, 1, flat)
    for a in actions:
        k.apply(states, 1, a)
    if states[1].tobytes() != states[0].tobytes():
        raise AssertionError(f"{where}: replaying {len(actions)} actions gave another state")


__all__ = ["POLICIES", "Report", "compare", "make"]
