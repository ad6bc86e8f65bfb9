"""Random games per second through the OpenSpiel adapter, beside our AEC env (docs/openspiel.md).

    python scripts/bench/openspiel_speed.py                      # every game, 3 s per loop
    python scripts/bench/openspiel_speed.py --game wizard --seconds 5 --mccfr

Per game at its usual table size (the full game), three loops of uniformly
random legal play, each for ``--seconds``:

- ``aec``: our PettingZoo env as a user drives it (``env()``, ``agent_iter``,
  ``last()``, a random action from the mask, ``step``);
- ``openspiel``: the pyspiel game (``stichzoo_<game>``) through OpenSpiel's
  API - chance outcomes drawn uniformly, ``legal_actions()``,
  ``apply_action()``;
- ``openspiel+infostate``: the same, reading the acting player's
  ``information_state_string`` at every decision (what tabular algorithms do).

``--mccfr`` also times OpenSpiel's external-sampling MCCFR iterations on the
smallest Wizard (3 players, one card).  A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import json
import time

from env_steps import play_spiel, run_aec  # the env benchmark's loops (same folder)

from stichzoo import envs
from stichzoo.envs import openspiel

PLAYERS = {"silberne_ananas": 3}


def run_openspiel(game: str, players: int, seconds: float, seed: int,
                  infostate: bool) -> tuple[int, int, float]:
    return play_spiel(openspiel.load(game, num_players=players), seconds, seed,
                      "information_state_string" if infostate else None)


def run_mccfr(seconds: float) -> tuple[int, float]:
    from open_spiel.python.algorithms import external_sampling_mccfr as mccfr

    g = openspiel.load("wizard", num_players=3, rounds="[1]")
    solver = mccfr.ExternalSamplingSolver(g, mccfr.AverageType.SIMPLE)
    iterations = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        solver.iteration()
        iterations += 1
    return iterations, time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", nargs="*", default=list(envs.GAMES), choices=list(envs.GAMES))
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--mccfr", action="store_true", help="also time MCCFR on 1-card Wizard")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = p.parse_args(argv)
    rows = []
    for game in args.game:
        n = PLAYERS.get(game, 4)
        row = {"game": game, "players": n}
        loops = {
            "aec": (run_aec, ()),
            "openspiel": (run_openspiel, (False,)),
            "openspiel+infostate": (run_openspiel, (True,)),
        }
        for name, (run, extra) in loops.items():
            games, decisions, elapsed = run(game, n, args.seconds, args.seed, *extra)
            row[f"{name} games/s"] = round(games / elapsed, 2)
            row[f"{name} decisions/s"] = round(decisions / elapsed)
        rows.append(row)
    if args.mccfr:
        iterations, elapsed = run_mccfr(args.seconds)
        rows.append({"mccfr wizard 3p 1 card iterations/s": round(iterations / elapsed, 1)})
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    for row in rows:
        print("  ".join(f"{k}={v}" for k, v in row.items()))


if __name__ == "__main__":
    main()
