"""The ladder: where every bot of a game stands, from duplicate tournaments.

    stichzoo ladder [--run runs/<run>] [--markdown]
    stichzoo ladder --measure [--games wizard ...] [--only MATCH ...]
    (also: python -m stichzoo.training.evaluation.ladder show|measure)

The ladder climbs random < heuristic < pimc < learned search, one match per
rung against the rung below, and places the network alone (the shipped ONNX
bot, no search) against the heuristic and against plain PIMC.  Each match
is a duplicate tournament judged on the game's own objective - Silberne
Ananas on the win rate, every other game on the score - with 95% intervals.

The rungs come from where they are measured, never typed in by hand:

- heuristic vs random and pimc vs heuristic: the baseline
  tournaments (``bash scripts/figures/baselines.sh 400 200``, seeds 1 and 2), as
  the bot server's levels read them (:data:`stichzoo.policies.serve.levels.BASELINES`);
- the network vs the heuristic: the shipped bot's manifest (its run's final
  evaluation, 1,000 games, seed 104729);
- the network vs pimc and the learned search vs pimc: :data:`MATCHES`,
  played by ``measure`` with seed :data:`SEED` and written with the command
  that reproduces each into ``policies/ladder.json`` (one match at a time,
  so an interrupted measurement keeps what it finished);
- the target (``search_target``, issue 29): the learned search against plain
  PIMC again, on 400 games (600 in Silberne Ananas) of seed
  :data:`TARGET_SEED`, with both sides' think time per decision on the same
  100 positions measured in the same run (:mod:`stichzoo.training.evaluation.think_time`)
  - a search that wins by thinking longer does not meet it.

``show`` prints the ladder; with ``--run`` it adds a fresh run's final
evaluation against the heuristic (the main job does this).

A row may say how its network was trained: ``"training": {"samples": N,
"budget_samples": M, "budget_reached": bool}`` (a fresh run's row always has
it, from the run's ``train_summary.yaml``; rows recorded before the field have
none and load as before).  A row whose training stopped short of its sample
budget - the time guard ended it - is marked in its verdict, and the ladder's
last line says so: such a row measures a shorter run than its recipe.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from dataclasses import dataclass

from stichzoo.envs.registry import GAMES, default_players, metrics_of
from stichzoo.policies.serve.levels import LADDER_FILE  # one file, read by the bot server too
from stichzoo.policies.specs import learned_search
from stichzoo.training.runs import RunPaths

SCHEMA = "stichzoo.ladder/1"
#: tournament seed of every ladder match: training seeds are small and evaluation uses 104729+
SEED = 2027
#: the target match's seed (used by no training or tuning; 400 games give 100 deals of it)
TARGET_SEED = 86420
#: positions on which the target match times both sides (:func:`think_time.compare`)
THINK_DECISIONS = 100
#: games judged on the win rate (the middle total wins Silberne Ananas): those whose metrics
#: say so (``WIN_RATE_DECIDES`` in envs/<game>/metrics.py, as the tournament reads it)
WIN_RATE_GAMES = tuple(name for name in GAMES
                       if getattr(metrics_of(name), "WIN_RATE_DECIDES", False))
#: each game's table: its rules' default player count, where the shipped bots were trained
#: (policies/bots/<game>/manifest.json says the same; tests/training/test_ladder.py checks it)
PLAYERS = {name: default_players(name) for name in GAMES}


@dataclass(frozen=True)
class Match:
    """One rung's match: ``player`` in one seat, ``opponent`` in all the others."""

    key: str
    label: str
    player: str
    opponent: str
    games: int
    seed: int = SEED
    #: games per game where a game needs more than ``games`` (Silberne Ananas' coarse win rate)
    more_games: tuple[tuple[str, int], ...] = ()
    #: also time both sides on the same positions (the target's equal think time)
    think: bool = False

    def specs(self, game: str) -> tuple[str, str]:
        search = learned_search(game)
        return (self.player.format(game=game, search=search),
                self.opponent.format(game=game, search=search))

    def games_of(self, game: str) -> int:
        return dict(self.more_games).get(game, self.games)

    def command(self, game: str) -> str:
        a, b = self.specs(game)
        return (f"stichzoo eval {game} --players {PLAYERS[game]} --policies '{a}' '{b}' "
                f"--games {self.games_of(game)} --seed {self.seed}")


#: the matches the ladder measures itself (the others are measured elsewhere, see above)
MATCHES = (
    Match("network_vs_pimc", "network (shipped bot)", "bot:{game}", "pimc", 100),
    Match("search_vs_pimc", "learned search", "{search}", "pimc", 100),
    Match("search_target", "learned search (target)", "{search}", "pimc", 400,
          seed=TARGET_SEED, more_games=(("silberne_ananas", 600),), think=True),
)
#: every rung in the order shown: (key, label)
RUNGS = (("heuristic_vs_random", "heuristic"), ("pimc_vs_heuristic", "pimc"),
         ("network_vs_heuristic", "network (shipped bot)"),
         ("network_vs_pimc", "network (shipped bot)"), ("search_vs_pimc", "learned search"),
         ("search_target", "learned search (target)"))


def objective(game: str) -> str:
    return "win_rate_difference" if game in WIN_RATE_GAMES else "score_difference"


def summary(report: dict, player: str) -> dict:
    """What the ladder keeps of a tournament report: the player's differences and win rate."""
    vs = report["versus_baseline"][player]
    return {"games": report["games"], "deals": report["deals"],
            "score_difference": _interval(vs["score_difference"]),
            "win_rate_difference": _interval(vs.get("win_rate_difference")),
            "win_rate": _interval(report["policies"][player]["win_rate"]),
            "wall_seconds": round(float(report.get("wall_seconds", 0.0)), 1)}


def _interval(d: dict | None) -> dict | None:
    if not d or d.get("lo") is None:
        return None
    return {k: round(float(d[k]), 4) for k in ("mean", "lo", "hi")}


def verdict(stat: dict | None) -> str:
    """above / below / level: does the 95% interval clear zero?"""
    if stat is None:
        return "n/a"
    if stat["lo"] > 0:
        return "above"
    if stat["hi"] < 0:
        return "below"
    return "level"


# -- measuring ------------------------------------------------------------------------


def load(path: str = LADDER_FILE) -> dict:
    if not os.path.exists(path):
        return {"schema": SCHEMA, "seed": SEED, "games": {}}
    with open(path) as f:
        data = json.load(f)
    if data.get("schema") != SCHEMA:
        raise ValueError(f"{path}: not a ladder file (schema {data.get('schema')!r})")
    return data


def save(data: dict, path: str = LADDER_FILE) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def measure(games: list[str], only: list[str] | None = None, workers: int = 0,
            out_dir: str = "runs/eval/ladder", path: str = LADDER_FILE,
            redo: bool = False) -> dict:
    """Play the matches not yet recorded with the same command (all of them with ``redo``)."""
    from stichzoo.training.evaluation.report import write_outputs
    from stichzoo.training.evaluation.tournament import (
        TournamentConfig,
        default_lineup,
        run_tournament,
        seat_assignments,
    )

    data = load(path)
    for game in games:
        for match in MATCHES:
            if only and match.key not in only:
                continue
            a, b = match.specs(game)
            done = data["games"].get(game, {}).get(match.key, {})
            if not redo and done.get("command") == match.command(game):
                continue
            lineup = default_lineup([a, b], PLAYERS[game])
            deals = max(1, math.ceil(match.games_of(game) / len(seat_assignments(lineup))))
            cfg = TournamentConfig(game=game, players=PLAYERS[game], lineup=lineup,
                                   deals=deals, seed=match.seed, workers=workers)
            print(f"{game}: {match.command(game)}", flush=True)
            report = run_tournament(cfg, progress=False)
            write_outputs(report, os.path.join(out_dir, f"{game}_{match.key}"))
            entry = {**summary(report, a), "player": a, "opponent": b,
                     "command": match.command(game)}
            if match.think:
                entry["think_ms"] = think(game, a, b)
            data = load(path)  # another measurement may have written meanwhile
            data["games"].setdefault(game, {})[match.key] = entry
            save(data, path)
            print(f"  {format_row(match.label, b, entry, game)}", flush=True)
    return data


def think(game: str, player: str, opponent: str) -> dict:
    """Both sides' mean think time (ms) per decision on the same positions, in one run."""
    from stichzoo.training.evaluation.think_time import compare

    times = compare(game, [player, opponent], THINK_DECISIONS)
    return {"player": times[player]["mean"], "opponent": times[opponent]["mean"],
            "decisions": THINK_DECISIONS,
            "command": f"python scripts/bench/search_time.py --games {game} "
                       f"--decisions {THINK_DECISIONS} --specs '{opponent}' '{player}'"}


# -- showing ---------------------------------------------------------------------------


def _fmt(stat: dict | None, digits: int) -> str:
    if stat is None:
        return "n/a"
    return f"{stat['mean']:+.{digits}f} [{stat['lo']:+.{digits}f}, {stat['hi']:+.{digits}f}]"


def short_of_budget(entry: dict) -> bool:
    """Did the row's network train less than its sample budget? (False when the row
    does not say: rows recorded before the ``training`` field.)"""
    training = entry.get("training") or {}
    return training.get("budget_reached") is False


def _short_note(entry: dict) -> str:
    """The verdict's mark on a row whose network stopped short of its sample budget."""
    if not short_of_budget(entry):
        return ""
    t = entry["training"]
    return f" (BUDGET NOT REACHED: {t['samples']:,} of {t['budget_samples']:,} samples)"


#: think-time ratio (bot / opponent) above which a row is marked as thinking longer: the timing
#: of the same positions one after the other still varies by a few percent with the load
THINK_SLACK = 1.05


def _think(entry: dict) -> str:
    """A timed row's think times, ``bot / opponent ms``, marked when the bot thinks longer."""
    t = entry.get("think_ms")
    if not t:
        return ""
    note = (" (thinks longer)" if t["player"] > THINK_SLACK * t["opponent"] else "")
    return f"{t['player']:.2f} / {t['opponent']:.2f} ms{note}"


def format_row(label: str, opponent: str, entry: dict, game: str) -> str:
    key = objective(game)
    mark = _short_note(entry)
    think = _think(entry)
    return (f"{label:24} {'vs ' + opponent:14} {entry['games']:>6}  "
            f"{_fmt(entry['score_difference'], 2):28} {_fmt(entry['win_rate_difference'], 3):26} "
            f"{verdict(entry[key])}{mark}" + (f"; think {think}" if think else ""))


def training_of(run_dir: str) -> dict | None:
    """A row's ``training`` field from the run's ``train_summary.yaml`` (None if it cannot say)."""
    trained = RunPaths(run_dir).read_summary()
    if "budget_samples" not in trained:
        return None
    return {"samples": int(trained["steps"]), "budget_samples": int(trained["budget_samples"]),
            "budget_reached": bool(trained["budget_reached"])}


def fresh_run(run_dir: str) -> dict | None:
    """A run's final evaluation against the heuristic, as a ladder entry (None if missing)."""
    report_path = os.path.join(run_dir, "eval", "final_vs_heuristic", "report.json")
    if not os.path.exists(report_path):
        return None
    with open(report_path) as f:
        report = json.load(f)
    me = next(p for p in report["policies"] if p.startswith("ppo"))
    entry = {**summary(report, me), "player": me, "opponent": "heuristic"}
    training = training_of(run_dir)
    if training is not None:
        entry["training"] = training
    return entry


def placement(game: str, matches: dict) -> str:
    """The climb, and where the network alone sits, in words - from the verdicts."""
    key = objective(game)
    out = []
    climb = ["random"]
    search = "search_target" if "search_target" in matches else "search_vs_pimc"  # the larger
    for k, name in (("heuristic_vs_random", "heuristic"), ("pimc_vs_heuristic", "pimc"),
                    (search, "learned search")):
        if k in matches:
            v = verdict(matches[k][key])
            climb.append({"above": "<", "level": "=", "below": ">"}.get(v, "?") + " " + name)
    out.append(" ".join(climb))
    spots = []
    for k, name in (("network_vs_heuristic", "heuristic"), ("network_vs_pimc", "pimc")):
        if k in matches:
            spots.append(f"{verdict(matches[k][key])} {name}")
    if spots:
        out.append("network alone: " + ", ".join(spots))
    return "; ".join(out)


def measured_elsewhere(game: str) -> dict[str, dict]:
    """The rungs the ladder does not play: the baseline tables and the shipped bot's manifest."""
    from stichzoo.policies.serve import levels

    out = {}
    for key, kind in (("heuristic_vs_random", "heuristic"), ("pimc_vs_heuristic", "pimc")):
        for m in levels.rule_strength(game, kind):
            out[key] = _entry_of(m, "bash scripts/figures/baselines.sh 400 200 (seeds 1 and 2)")
    manifest_path = os.path.join(os.path.dirname(LADDER_FILE), "bots", game, "manifest.json")
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
        for m in levels.trained_strength(manifest):
            if m["opponent"] == "heuristic":
                ev = manifest["provenance"]["evaluation"]["vs_heuristic"]
                out["network_vs_heuristic"] = _entry_of(m, ev.get("command") or (
                    f"stichzoo eval {game} --players {PLAYERS[game]} --policies bot:{game} "
                    f"heuristic --games {m['games']} --seed 104729"))
    return out


def _entry_of(match: dict, command: str) -> dict:
    return {"games": match["games"], "opponent": match["opponent"],
            "score_difference": match["score_difference"],
            "win_rate_difference": match["win_rate_difference"],
            "win_rate": match.get("win_rate"), "command": command}


def rungs(data: dict, game: str) -> dict[str, dict]:
    """Every rung measured for ``game``: elsewhere, then the ladder's own matches."""
    return {**measured_elsewhere(game), **data["games"].get(game, {})}


def show(data: dict, run_dir: str | None = None, run_game: str = "wizard") -> str:
    header = (f"{'bot':24} {'opponent':14} {'games':>6}  {'score diff [95%]':28} "
              f"{'win-rate diff [95%]':26} verdict")
    lines = [f"The ladder (duplicate tournaments, seed {data.get('seed', SEED)}; "
             f"verdict on the game's objective, 95% intervals)"]
    fresh = fresh_run(run_dir) if run_dir else None
    for game in PLAYERS:
        matches = rungs(data, game)
        extra = fresh if game == run_game else None
        if not matches and extra is None:
            continue
        lines += ["", f"{game} ({PLAYERS[game]} players; judged on "
                      f"{objective(game).replace('_', ' ')})", header]
        for key, label in RUNGS:
            if key in matches:
                lines.append(format_row(label, matches[key]["opponent"], matches[key], game))
        if extra is not None:
            lines.append(format_row("this run (network)", "heuristic", extra, game))
        lines.append("  " + placement(game, matches))
    short = [(game, key, e) for game in PLAYERS for key, e in rungs(data, game).items()
             if short_of_budget(e)]
    if fresh is not None and short_of_budget(fresh):
        short.append((run_game, "this run", fresh))
    for game, key, e in short:  # the last lines: a short run's row never passes unseen
        t = e["training"]
        lines += ["", f"BUDGET NOT REACHED ({game}, {key}): the network trained "
                      f"{t['samples']:,} of its {t['budget_samples']:,} samples (the time guard "
                      f"stopped it), so this row measures a shorter run than its recipe"]
    return "\n".join(lines)


def markdown(data: dict) -> str:
    """The ladder as markdown (docs/results.md): every rung of every game, with its command."""
    rows = ["| game | bot | vs | games | score diff [95%] | win-rate diff [95%] | verdict | "
            "think ms: bot / vs | command |", "|---|---|---|---:|---|---|---|---|---|"]
    for game in PLAYERS:
        matches = rungs(data, game)
        for key, label in RUNGS:
            if key not in matches:
                continue
            e = matches[key]
            rows.append(f"| {game} | {label} | {e['opponent']} | {e['games']} | "
                        f"{_fmt(e['score_difference'], 2)} | {_fmt(e['win_rate_difference'], 3)} | "
                        f"{verdict(e[objective(game)])}{_short_note(e)} | {_think(e)} | "
                        f"`{e['command']}`" + (f"<br>`{e['think_ms']['command']}`"
                                              if e.get("think_ms") else "") + " |")
    places = [f"- {game}: {placement(game, rungs(data, game))}" for game in PLAYERS]
    return "\n".join([*rows, "", *places])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m stichzoo.training.evaluation.ladder",
                                 description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("show", help="print the ladder")
    s.add_argument("--run", help="a run folder whose final evaluation joins the table")
    s.add_argument("--file", default=LADDER_FILE)
    s.add_argument("--markdown", action="store_true",
                   help="the ladder as markdown (docs/results.md) instead")
    m = sub.add_parser("measure", help="play the ladder's matches and record them")
    m.add_argument("--games", nargs="+", default=list(PLAYERS), choices=list(PLAYERS))
    m.add_argument("--only", nargs="+", choices=[x.key for x in MATCHES])
    m.add_argument("--workers", type=int, default=0)
    m.add_argument("--file", default=LADDER_FILE)
    m.add_argument("--redo", action="store_true", help="play recorded matches again")
    args = ap.parse_args(argv)
    if args.cmd == "show":
        data = load(args.file)
        print(markdown(data) if args.markdown else show(data, args.run))
    else:
        measure(args.games, args.only, args.workers, path=args.file, redo=args.redo)
    return 0


if __name__ == "__main__":
    sys.exit(main())
