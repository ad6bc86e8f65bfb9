"""Step throughput of every env: random legal play, through the AEC API and on the raw core.

    python scripts/bench/env_steps.py                  # every game at its usual table size
    python scripts/bench/env_steps.py --game wizard --players 3 4 5 6 --seconds 10
    python scripts/bench/env_steps.py --json > bench.json
    python scripts/bench/env_steps.py --peers          # also PettingZoo classic + OpenSpiel peers

Per game and player count, two loops of uniformly random legal play:

- ``aec``: exactly as a user drives the env - ``env()`` with PettingZoo's
  wrappers, ``agent_iter``, ``last()``, sample from ``action_mask``, ``step``;
- ``core``: the pure rules state - ``legal_actions()``, a random choice,
  ``apply()`` - no observation, no wrappers.

Each loop runs whole games for ``--seconds`` and is repeated ``--repeats``
times; the median run is reported (games/s and decisions/s).  Also per
game: ``clone()`` rate of mid-game states (search bots live on it) and the
memory of 1,000 live envs.  ``--peers`` measures, in the same process and
with the same loop, what a user would otherwise pick: PettingZoo's
``texas_holdem_v4`` and ``leduc_holdem_v4`` (needs rlcard and pygame) and
OpenSpiel's ``oh_hell`` with 4 players (needs open_spiel; shimmy for its
PettingZoo wrapper), and prints our rates as multiples of theirs.  A
benchmark, not a test: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

import numpy as np

from stichzoo import envs

USUAL_PLAYERS = {"silberne_ananas": 3}



#: the clock the loops read: wall time, or the process's CPU time (``--clock cpu`` of
#: batch_engine.py, for a machine other jobs load: it counts only this process's work)
clock = time.perf_counter

def valid_player_counts(game: str) -> list[int]:
    cls = envs.game_class(game)
    counts = []
    for n in range(2, 9):
        try:
            cls.Options(num_players=n)
        except ValueError:
            continue
        counts.append(n)
    return counts


def for_seconds(seconds: float, play) -> tuple[int, int, float]:
    """Play games one after another until ``seconds`` have passed: (games, decisions, seconds).

    ``play(i)`` plays game ``i`` and returns its decisions; every benchmark loop here is this
    one clock around its own game.
    """
    games = decisions = 0
    start = clock()
    while True:
        decisions += play(games)
        games += 1
        elapsed = clock() - start
        if elapsed >= seconds:
            return games, decisions, elapsed


def run_aec(game: str, players: int, seconds: float, seed: int) -> tuple[int, int, float]:
    return _aec_loop(envs.env_module(game).env(num_players=players), seconds, seed)


def run_core(game: str, players: int, seconds: float, seed: int) -> tuple[int, int, float]:
    cls = envs.game_class(game)
    g = cls(cls.Options(num_players=players))
    choice = random.Random(seed).choice

    def play(i: int) -> int:
        s = g.new_game(seed=seed + i)
        decisions = 0
        while not (s.over or s.truncated):
            s.apply(choice(s.legal_actions()))
            decisions += 1
        return decisions

    return for_seconds(seconds, play)


def run_clone(game: str, players: int, seconds: float, seed: int) -> tuple[int, int, float]:
    """Clones of mid-game states (random points of random games), in a tight loop."""
    cls = envs.game_class(game)
    g = cls(cls.Options(num_players=players))
    rng = random.Random(seed)
    states = []
    for i in range(20):
        s = g.new_game(seed=seed + i)
        for _ in range(rng.randrange(5, 120)):
            if s.over or s.truncated:
                break
            s.apply(rng.choice(s.legal_actions()))
        states.append(s)
    clones = 0
    start = clock()
    while True:
        for s in states:
            s.clone()
        clones += len(states)
        elapsed = clock() - start
        if elapsed >= seconds:
            return 1, clones, elapsed


def memory_of_envs(game: str, players: int, count: int = 1000) -> float:
    """MB allocated by ``count`` live, reset envs (tracemalloc)."""
    import gc
    import tracemalloc

    module = envs.env_module(game)
    module.env(num_players=players).reset(seed=0)  # imports and caches outside the count
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    live = []
    for i in range(count):
        e = module.env(num_players=players)
        e.reset(seed=i)
        live.append(e)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del live
    return (after - before) / 1e6


# -- peers -----------------------------------------------------------------------------


def _pz_classic(name: str):
    import importlib

    return importlib.import_module(f"pettingzoo.classic.{name}")


def peer_pettingzoo(name: str, seconds: float, seed: int) -> tuple[int, int, float]:
    env = _pz_classic(name).env()
    return _aec_loop(env, seconds, seed)


def _aec_loop(env, seconds: float, seed: int) -> tuple[int, int, float]:
    """Random legal play of any AEC env (ours, or a peer's whose mask is in the info)."""
    rng = np.random.default_rng(seed)

    def play(i: int) -> int:
        env.reset(seed=seed + i)
        decisions = 0
        for _agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.integers(len(legal))]))
            decisions += 1
        return decisions

    return for_seconds(seconds, play)


def play_spiel(game, seconds: float, seed: int,
               read: str | None = None) -> tuple[int, int, float]:
    """Random games of a pyspiel game for ``seconds``: (games, decisions, seconds).

    Chance outcomes are drawn uniformly (not counted as decisions); ``read`` names a state
    method called before every decision (e.g. ``"information_state_tensor"``), so the cost
    of what a learner reads shows.
    """
    rng = random.Random(seed)

    def play(_: int) -> int:
        s = game.new_initial_state()
        decisions = 0
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(rng.choice(s.chance_outcomes())[0])
                continue
            if read:
                getattr(s, read)()
            s.apply_action(rng.choice(s.legal_actions()))
            decisions += 1
        return decisions

    return for_seconds(seconds, play)


def peer_oh_hell(seconds: float, seed: int, infostate: bool) -> tuple[int, int, float]:
    """OpenSpiel oh_hell 4p in C++ via pyspiel; decisions = player moves (chance excluded)."""
    import pyspiel

    return play_spiel(pyspiel.load_game("oh_hell", {"players": 4}), seconds, seed,
                      "information_state_tensor" if infostate else None)


def peer_oh_hell_shimmy(seconds: float, seed: int) -> tuple[int, int, float]:
    from shimmy import OpenSpielCompatibilityV0

    env = OpenSpielCompatibilityV0(game_name="oh_hell", config={"players": 4})
    return _aec_loop(env, seconds, seed)


PEERS = {
    "pz_texas_holdem_v4": lambda sec, seed: peer_pettingzoo("texas_holdem_v4", sec, seed),
    "pz_leduc_holdem_v4": lambda sec, seed: peer_pettingzoo("leduc_holdem_v4", sec, seed),
    "os_oh_hell_4p_core": lambda sec, seed: peer_oh_hell(sec, seed, infostate=False),
    "os_oh_hell_4p_infostate": lambda sec, seed: peer_oh_hell(sec, seed, infostate=True),
    "os_oh_hell_4p_shimmy_aec": peer_oh_hell_shimmy,
}


def measure(fn, game: str, players: int, seconds: float, repeats: int) -> dict:
    runs = []
    for r in range(repeats):
        games, decisions, elapsed = fn(game, players, seconds, seed=1000 * r)
        runs.append({"games_per_s": games / elapsed, "decisions_per_s": decisions / elapsed,
                     "decisions_per_game": decisions / games})
    median = statistics.median(run["decisions_per_s"] for run in runs)
    best = min(runs, key=lambda run: abs(run["decisions_per_s"] - median))
    return {**best, "runs": runs}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", nargs="*", default=list(envs.GAMES), choices=list(envs.GAMES))
    p.add_argument("--players", nargs="*", type=int, help="player counts (default: usual)")
    p.add_argument("--seconds", type=float, default=3.0, help="length of one run")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", action="store_true", help="print JSON only")
    p.add_argument("--peers", action="store_true", help="also measure the installed peers")
    p.add_argument("--no-memory", action="store_true", help="skip the 1,000-env memory probe")
    args = p.parse_args(argv)
    results = []
    for game in args.game:
        counts = valid_player_counts(game)
        wanted = args.players or [USUAL_PLAYERS.get(game, 4)]
        for n in wanted:
            if n not in counts:
                if not args.json:
                    print(f"{game}: {n} players not allowed (allowed: {counts}); skipped",
                          file=sys.stderr)
                continue
            row = {"game": game, "players": n}
            for loop, fn in (("aec", run_aec), ("core", run_core), ("clone", run_clone)):
                if not args.json:
                    print(f"  measuring {game} {n}p {loop} ({args.repeats} x {args.seconds:g} s)",
                          file=sys.stderr, flush=True)
                row[loop] = measure(fn, game, n, args.seconds, args.repeats)
            if not args.no_memory:
                row["memory_mb_per_1000_envs"] = memory_of_envs(game, n)
            results.append(row)
    peers = {}
    if args.peers:
        for name, fn in PEERS.items():
            if not args.json:
                print(f"  measuring peer {name}", file=sys.stderr, flush=True)
            try:
                peers[name] = measure(lambda g, n, sec, seed, fn=fn: fn(sec, seed), name, 0,
                                      args.seconds, args.repeats)
            except Exception as e:  # not installed, or it failed: say so, go on
                peers[name] = {"error": f"{type(e).__name__}: {e}"}
    if args.json:
        print(json.dumps({"seconds": args.seconds, "repeats": args.repeats, "results": results,
                          "peers": peers}, indent=1))
        return 0
    print(f"\nmedian of {args.repeats} runs of {args.seconds:g} s, random legal play")
    print(f"{'game':<16}{'n':>3}{'AEC games/s':>13}{'AEC dec/s':>11}"
          f"{'core games/s':>14}{'core dec/s':>12}{'clones/s':>11}{'MB/1000 envs':>14}")
    for row in results:
        a, c, k = row["aec"], row["core"], row["clone"]
        mem = row.get("memory_mb_per_1000_envs", float("nan"))
        print(f"{row['game']:<16}{row['players']:>3}{a['games_per_s']:>13.1f}"
              f"{a['decisions_per_s']:>11.0f}{c['games_per_s']:>14.1f}{c['decisions_per_s']:>12.0f}"
              f"{k['decisions_per_s']:>11.0f}{mem:>14.1f}")
    if peers:
        print("\npeers (same loop, same process)")
        for name, r in peers.items():
            shown = r.get("error") or f"{r['decisions_per_s']:.0f} decisions/s"
            print(f"  {name:<28}{shown}")
        texas = peers.get("pz_texas_holdem_v4", {}).get("decisions_per_s")
        oh_core = peers.get("os_oh_hell_4p_core", {}).get("decisions_per_s")
        oh_info = peers.get("os_oh_hell_4p_infostate", {}).get("decisions_per_s")
        print("\nratios")
        for row in results:
            label = f"{row['game']} {row['players']}p"
            aec, core = row["aec"]["decisions_per_s"], row["core"]["decisions_per_s"]
            if texas:
                print(f"  {label:<20} AEC / texas_holdem_v4 AEC   {aec / texas:6.2f}x")
            if oh_info and row["game"] == "wizard":
                print(f"  {label:<20} AEC / oh_hell + infostate   {aec / oh_info:6.2f}x")
            if oh_core and row["game"] == "wizard":
                print(f"  {label:<20} core / oh_hell core          {core / oh_core:6.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
