"""``stichzoo arena``'s arguments, apart from the arena itself so that building the command
line parser imports no tournament code (training/cli.py builds every subcommand's parser)."""

from __future__ import annotations

import argparse

#: kept here as well as in arena.py: the parser must not import the arena (see above)
ARENA_SEED = 271828
LEADERBOARD = "runs/arena/leaderboard.json"
RUNG_KEYS = ("random", "heuristic", "pimc", "search", "network")


def add_arguments(a: argparse.ArgumentParser, games: list[str]) -> None:
    """The arena's arguments on parser ``a`` (docs/arena.md)."""
    a.add_argument("game", choices=games)
    a.add_argument("challenger", help="a policy spec: python:pkg.mod:Class, 'cmd:node bot.js', "
                                      "http://host:port/bots/NAME/act, openspiel:ismcts, or "
                                      "one of ours (heuristic, pimc:worlds=8, ...); outside "
                                      "bots take |deadline_ms=N (default 1000)")
    a.add_argument("--games", type=int, default=100,
                   help="games per rung (rounded up to whole deals of every seat assignment)")
    a.add_argument("--workers", type=int, default=0, help="processes (default: all cores)")
    a.add_argument("--seed", type=int, default=ARENA_SEED,
                   help=f"tournament seed (default {ARENA_SEED}: used by no training or "
                        f"ladder match)")
    a.add_argument("--rungs", nargs="+", choices=RUNG_KEYS, metavar="RUNG",
                   help=f"only these rungs ({', '.join(RUNG_KEYS)}; default all)")
    a.add_argument("--option", action="append", default=[], metavar="KEY=JSON",
                   help="game option, e.g. --option 'rounds=[1,2]' (rungs whose network was "
                        "trained for the default table are then skipped, with the reason)")
    a.add_argument("--match-think-time", action="store_true",
                   help="give the PIMC rung as many worlds as makes its mean think time the "
                        "challenger's")
    a.add_argument("--think-decisions", type=int, default=50,
                   help="positions on which every bot's think time is measured (default 50)")
    a.add_argument("--out", help="folder for arena.md, arena.png, arena.json (default "
                                 "runs/arena/<game>_<challenger>)")
    a.add_argument("--leaderboard", default=LEADERBOARD,
                   help=f"the leaderboard JSON file the run is added to (default {LEADERBOARD})")
    a.add_argument("--quiet", action="store_true", help="no progress bars")
