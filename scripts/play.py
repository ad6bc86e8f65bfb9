"""Play random games through the PettingZoo AEC API and say what happened.

    python scripts/play.py --game wizard --players 4 --games 300 --seed 0

Every seat samples uniformly from its action mask, exactly as a user's loop
would (``agent_iter`` / ``last`` / ``step``).  Prints per seat the mean
score and win share, and the throughput; ``--record FILE`` writes the last
game's JSON record.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np

from stichzoo import envs


def play(game: str, players: int, games: int, seed: int, options: dict) -> dict:
    module = envs.env_module(game)
    env = module.env(num_players=players, **options)
    rng = np.random.default_rng(seed)
    totals: list[list[float]] = []
    wins = np.zeros(players)
    decisions = 0
    start = time.perf_counter()
    for g in range(games):
        env.reset(seed=seed + g)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            decisions += 1
        state = env.unwrapped.rules_state
        totals.append(list(state.totals))
        winners = state.winners()
        for s in winners:
            wins[s] += 1 / len(winners)
    elapsed = time.perf_counter() - start
    return {
        "game": game, "players": players, "games": games, "seed": seed,
        "decisions": decisions, "seconds": elapsed,
        "games_per_s": games / elapsed, "decisions_per_s": decisions / elapsed,
        "mean_score": [statistics.fmean(t[s] for t in totals) for s in range(players)],
        "min_score": [min(t[s] for t in totals) for s in range(players)],
        "max_score": [max(t[s] for t in totals) for s in range(players)],
        "win_share": list(wins / games),
        "last_record": env.unwrapped.record(),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="wizard", choices=list(envs.GAMES))
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--option", action="append", default=[], metavar="KEY=JSON",
                   help="game option, e.g. --option 'rounds=[5]' (repeatable)")
    p.add_argument("--record", help="write the last game's record to this JSON file")
    args = p.parse_args(argv)
    options = {}
    for item in args.option:
        key, _, value = item.partition("=")
        options[key] = json.loads(value)
    try:
        result = play(args.game, args.players, args.games, args.seed, options)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{result['games']} random {args.game} games, {args.players} players, "
          f"seed {args.seed}, through the AEC API")
    print("seat       mean score    min    max  win share")
    for s in range(args.players):
        print(f"player_{s}  {result['mean_score'][s]:>10.1f} {result['min_score'][s]:>6} "
              f"{result['max_score'][s]:>6}  {result['win_share'][s]:>8.3f}")
    print(f"{result['decisions']} decisions in {result['seconds']:.2f} s: "
          f"{result['games_per_s']:.1f} games/s, {result['decisions_per_s']:.0f} decisions/s")
    if args.record:
        with open(args.record, "w") as f:
            json.dump(result["last_record"], f, indent=1)
        print(f"last game's record written to {args.record}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
