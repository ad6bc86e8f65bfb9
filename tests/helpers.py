"""Test harness shared by every game's tests: strict api_test, random play, leak check."""

from __future__ import annotations

import importlib
import importlib.util
import random
import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
from pettingzoo.test import seed_test

from stichzoo.envs.core.game import GameState

_api = importlib.import_module("pettingzoo.test.api_test")

ROOT = Path(__file__).resolve().parent.parent


def load_script(path: str) -> ModuleType:
    """The script at ``path`` (from the repository root) as a fresh module.

    The scripts are files run by path, not a package, so a test that calls
    their functions loads them the same way: by file, named after it.
    """
    file = ROOT / path
    spec = importlib.util.spec_from_file_location(file.stem, file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def strict_api_test(env_fn: Callable, env_name: str, num_cycles: int = 1000) -> None:
    """PettingZoo's api_test with every warning an error.

    PettingZoo's api_test keeps hard-coded allowlists of env names whose
    observations are Dicts holding an ``action_mask`` (its own classic card
    and board games) and whose mask may be all zero (after the game ended).
    Ours are of exactly that kind, so they join the same lists; every other
    warning fails the test.
    """
    for allow in (_api.env_obs_dicts, _api.env_obs_space, _api.env_all_zeros_obs):
        if env_name not in allow:
            allow.append(env_name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _api.api_test(env_fn(), num_cycles=num_cycles)
        seed_test(env_fn, num_cycles=num_cycles)


def random_playout(state: GameState, rng: random.Random, max_steps: int = 100_000) -> GameState:
    """Play uniformly random legal actions until the game ends (checked steps)."""
    for _ in range(max_steps):
        if state.over or state.truncated:
            return state
        state.step(rng.choice(state.legal_actions()))
    raise AssertionError("game did not end")


def play_env(env, seed: int, rng: random.Random | None = None) -> dict:
    """Drive an AEC env with random legal actions through agent_iter; returns summed rewards."""
    rng = rng or random.Random(seed)
    env.reset(seed=seed)
    total: dict[str, float] = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0, f"{agent} to act with no legal action"
        env.step(int(rng.choice(list(legal))))
    return total


def assert_no_leak(
    env_fn: Callable,
    resample_hidden: Callable[[GameState, int, random.Random], GameState],
    games: int = 20,
    seed: int = 0,
) -> int:
    """Change what a seat cannot see; its observation must not change.

    At every decision of ``games`` random games, for every seat, build a
    state that differs only in information hidden from that seat
    (``resample_hidden(state, seat, rng)``) and compare the seat's
    observation of both states.  Returns the number of comparisons made.
    """
    rng = random.Random(seed)
    env = env_fn()
    raw = env.unwrapped
    checks = 0
    for g in range(games):
        raw.reset(seed=seed + g)
        while not (raw.state_.over or raw.state_.truncated):
            original = raw.state_
            n = raw.game.num_players
            for seat in range(n):
                agent = f"player_{seat}"
                before = raw.observe(agent)
                other = resample_hidden(original.clone(), seat, rng)
                raw.state_ = other
                after = raw.observe(agent)
                raw.state_ = original
                assert np.array_equal(before["observation"], after["observation"]), (
                    f"observation of {agent} changed with hidden information "
                    f"(game {g}, decision {len(original.history)})")
                assert np.array_equal(before["action_mask"], after["action_mask"])
                checks += 1
            original.step(rng.choice(original.legal_actions()))
    return checks


def resample_hands(state, seat: int, rng: random.Random, hidden_pool: int,
                   hand_attr: str = "hands") -> None:
    """Re-deal ``hidden_pool`` cards among the other seats' hands, keeping each hand's size.

    ``hidden_pool`` must include the other seats' hands; any extra cards in it
    (undealt, face-down) may move into hands and the leftovers are returned
    to nowhere - callers store them where the game keeps unseen cards.
    """
    hands = getattr(state, hand_attr)
    pool = [c for c in range(hidden_pool.bit_length()) if (hidden_pool >> c) & 1]
    rng.shuffle(pool)
    for s in range(len(hands)):
        if s == seat:
            continue
        k = hands[s].bit_count()
        new = 0
        for c in pool[:k]:
            new |= 1 << c
        del pool[:k]
        hands[s] = new
    return pool


def decision_views(game, count: int, seed: int, least: int = 2) -> list[tuple[GameState, dict]]:
    """(state, view of the seat to act) at ``count`` decisions of random games with at least
    ``least`` legal actions: the requests a bot or hint test sends."""
    views = importlib.import_module(f"stichzoo.envs.{game.name}.view")
    rng = random.Random(seed)
    state, out = game.new_game(seed=seed), []
    while len(out) < count:
        if state.over or state.truncated:
            state = game.new_game(seed=rng.randrange(1 << 30))
            continue
        if len(state.legal_actions()) >= least:
            out.append((state.clone(), views.to_view(state, state.current_player)))
        state.step(rng.choice(state.legal_actions()))
    return out


def where_called(monkeypatch, owner, name: str) -> list[str]:
    """Wrap ``owner.name`` so each call records where it ran: "event loop" or "worker thread"
    (a server must not block its event loop with a search)."""
    import asyncio

    seen: list[str] = []
    inner = getattr(owner, name)

    def spy(*args, **kwargs):
        try:
            asyncio.get_running_loop()
            seen.append("event loop")
        except RuntimeError:
            seen.append("worker thread")
        return inner(*args, **kwargs)

    monkeypatch.setattr(owner, name, spy)
    return seen
