"""Batch engine throughput beside the AEC loop (and a peer), all in one run, one core.

    python scripts/bench/batch_engine.py              # every game, N = 256 games per batch
    python scripts/bench/batch_engine.py --game wizard --num-envs 64 256 1024 --seconds 5
    python scripts/bench/batch_engine.py --peers      # + OpenSpiel oh_hell with its tensor
    python scripts/bench/batch_engine.py --game wizard --vector random heuristic  # + vector env

Per game, uniformly random legal play:

- ``aec``: the AEC loop of scripts/bench/env_steps.py (``env()``, ``agent_iter``,
  ``last()``, sample from the mask, ``step``);
- ``batch``: ``BatchEnv.step`` on N games at once, observation and mask of
  every game written each step, actions sampled from the mask batch, on
  each core of ``--cores`` (``c``: the compiled kernel, ``python``: the
  Python rules cores; a game whose kernel does not write its observation
  runs the Python core under either name, and the row says so);
- ``vector`` (``--vector OPPONENT...``): the single-learner Gymnasium vector
  env (``stichzoo.training.gym.vector.SeatVectorEnv``) over the same N games,
  the learner's actions sampled uniformly from ``infos["action_mask"]`` as
  ``batch`` samples them (one argmax over masked noise; Gymnasium's own
  ``MultiDiscrete.sample(mask=...)`` loops over the games in Python and
  would cost a fifth of the time), the other seats played inside by OPPONENT
  (a policy spec).  Reported as learner decisions/s (vector steps x N, what
  a trainer gets) and all decisions/s (opponents' moves included, to set
  beside ``batch``); beside it the single-seat view
  (``stichzoo.training.gym.single_seat.SingleSeatEnv``, one game, the same
  opponents), what ``gymnasium.make_vec(..., vectorization_mode="sync")``
  steps N times per vector step.

Decisions/s is the median of ``--repeats`` runs of ``--seconds`` each; the
batch rate is also given as a multiple of the same game's AEC loop.  A
benchmark, not a test: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import env_steps

from stichzoo import envs
from stichzoo.envs import BatchEnv


def run_batch(game: str, players: int, num_envs: int, seconds: float,
              seed: int, core: str = "auto") -> tuple[int, int, float]:
    batch = BatchEnv(game, num_envs, num_players=players, core=core)
    rng = np.random.default_rng(seed)
    batch.reset(seed=seed)
    steps = 0
    start = env_steps.clock()
    while True:
        batch.step(batch.sample_legal(rng))
        steps += 1
        elapsed = env_steps.clock() - start
        if elapsed >= seconds:
            return int(batch.episodes.sum()), steps * num_envs, elapsed


def run_vector(game: str, players: int, num_envs: int, seconds: float, seed: int,
               opponent: str) -> tuple[int, int, float, int]:
    """(games, learner decisions, seconds, all decisions) of the single-learner vector env."""
    from stichzoo.training.gym.vector import SeatVectorEnv

    vec = SeatVectorEnv(game, num_envs, options={"num_players": players},
                        opponents=[opponent])
    batch, counted = vec.batch, [0]
    step_games = batch.step_games

    def count_step_games(games, actions, **kwargs):
        counted[0] += len(actions)
        return step_games(games, actions, **kwargs)

    batch.step_games = count_step_games
    rng = np.random.default_rng(seed)
    _, infos = vec.reset(seed=seed)
    counted[0] = steps = 0
    start = env_steps.clock()
    while True:
        noise = rng.random(infos["action_mask"].shape, dtype=np.float32)
        noise[~infos["action_mask"]] = -1.0
        _, _, _, _, infos = vec.step(noise.argmax(axis=1))
        steps += 1
        elapsed = env_steps.clock() - start
        if elapsed >= seconds:
            return int(batch.episodes.sum()), steps * num_envs, elapsed, counted[0]


def run_single_seat(game: str, players: int, seconds: float, seed: int,
                    opponent: str) -> tuple[int, int, float]:
    """(games, learner decisions, seconds) of one single-seat view, masked random actions."""
    from stichzoo.training.gym.single_seat import SingleSeatEnv

    env = SingleSeatEnv(game, options={"num_players": players}, opponents=[opponent],
                        illegal="raise")
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    games = decisions = 0
    start = env_steps.clock()
    while True:
        _, _, terminated, truncated, _ = env.step(int(rng.choice(
            np.flatnonzero(env.action_masks()))))
        decisions += 1
        if terminated or truncated:
            games += 1
            env.reset()
        elapsed = env_steps.clock() - start
        if elapsed >= seconds:
            return games, decisions, elapsed


def _median_rate(fn, repeats: int) -> float:
    return statistics.median(d / t for _, d, t in (fn() for _ in range(repeats)))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", nargs="+", default=list(envs.GAMES), choices=list(envs.GAMES))
    p.add_argument("--num-envs", nargs="+", type=int, default=[256])
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--peers", action="store_true", help="OpenSpiel oh_hell 4p with "
                                                         "information_state_tensor each step")
    p.add_argument("--vector", nargs="+", default=[], metavar="OPPONENT",
                   help="also the single-learner vector env with these opponents (policy "
                        "specs: random, heuristic...)")
    p.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                   help="wall time, or this process's CPU time (time.process_time: what a quiet "
                        "machine would show when other jobs load this one)")
    p.add_argument("--cores", nargs="+", default=["c", "python"], choices=["c", "python"])
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.clock == "cpu":
        env_steps.clock = time.process_time
    rows = []
    for game in args.game:
        players = env_steps.USUAL_PLAYERS.get(game, 4)
        aec = _median_rate(
            lambda g=game, n=players: env_steps.run_aec(g, n, args.seconds, args.seed),
            args.repeats)
        row = {"game": game, "players": players, "aec_decisions_per_s": aec, "batch": {}}
        for core in args.cores:
            runs = BatchEnv(game, 1, num_players=players,
                            core="auto" if core == "c" else "python").core
            for n_envs in args.num_envs:
                rate = _median_rate(lambda g=game, n=players, k=n_envs, c=runs:
                                    run_batch(g, n, k, args.seconds, args.seed, c), args.repeats)
                row["batch"][f"{core} N={n_envs}"] = {"decisions_per_s": rate,
                                                      "x_aec": rate / aec, "core": runs}
        row["vector"], row["single_seat"] = {}, {}
        for opponent in args.vector:
            row["single_seat"][opponent] = _median_rate(
                lambda g=game, n=players, o=opponent:
                run_single_seat(g, n, args.seconds, args.seed, o), args.repeats)
            for n_envs in args.num_envs:
                runs = [run_vector(game, players, n_envs, args.seconds, args.seed, opponent)
                        for _ in range(args.repeats)]
                row["vector"][f"{opponent} N={n_envs}"] = {
                    "learner_decisions_per_s": statistics.median(d / t for _, d, t, _ in runs),
                    "decisions_per_s": statistics.median(a / t for _, _, t, a in runs)}
        rows.append(row)
        if not args.json:
            batch = ", ".join(f"{k}: {v['decisions_per_s']:,.0f}/s ({v['x_aec']:.1f}x AEC"
                              f"{'' if k.startswith(v['core']) else ', ran ' + v['core']})"
                              for k, v in row["batch"].items())
            print(f"{game} {players}p: AEC {aec:,.0f} decisions/s; batch {batch}", flush=True)
            for k, v in row["vector"].items():
                print(f"  vector env, opponents {k}: {v['learner_decisions_per_s']:,.0f} learner "
                      f"decisions/s ({v['decisions_per_s']:,.0f} decisions/s in all)",
                      flush=True)
            for k, v in row["single_seat"].items():
                print(f"  single-seat view, opponents {k}: {v:,.0f} learner decisions/s",
                      flush=True)
    peers = {}
    if args.peers:
        try:
            peers["oh_hell_infostate"] = _median_rate(
                lambda: env_steps.peer_oh_hell(args.seconds, args.seed, True), args.repeats)
        except ImportError as e:  # open_spiel is in the bench extra
            print(f"peer skipped: {e}", file=sys.stderr)
        if peers and not args.json:
            rate = peers["oh_hell_infostate"]
            print(f"peer: OpenSpiel oh_hell 4p + information_state_tensor {rate:,.0f} "
                  f"decisions/s")
            for row in rows:
                if row["game"] == "wizard":
                    for k, v in row["batch"].items():
                        print(f"  Wizard batch {k}: {v['decisions_per_s'] / rate:.1f}x the "
                              f"peer")
    if args.json:
        print(json.dumps({"results": rows, "peers": peers}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
