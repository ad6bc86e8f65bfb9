"""The arena: any bot - ours or an outside one - rated against every rung of a game's ladder.

    stichzoo arena wizard 'cmd:node scripts/arena_examples/bot.js' --games 200

One duplicate tournament per rung (random, heuristic, PIMC, the learned search, the shipped
network - each at the ladder's settings, :mod:`stichzoo.training.evaluation.ladder`), the
challenger in one seat and the rung in the others, judged on the game's objective with the
paired 95% interval and the duplicate rating of :mod:`stichzoo.training.evaluation.tournament`.
The verdict places the challenger on the climb random < heuristic < PIMC < learned search in
words ("between PIMC and the learned search"), and beside the network alone.

Think time is part of the result: every bot's mean and p99 wall time per decision on the
same positions, taken in turns (:func:`think_times`); ``match_think_time`` gives the PIMC
rung as many worlds as makes its mean think time the challenger's (:func:`matched_pimc`).

Every run adds an entry - command, seeds, versions, date, figures - to a leaderboard file
(:data:`LEADERBOARD`, or the shipped one the docs page is made from, :data:`DOCS_LEADERBOARD`).
"""

from __future__ import annotations

import datetime
import json
import math
import os
import platform
import shlex
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from stichzoo import envs
from stichzoo.envs.core.game import build_options
from stichzoo.envs.registry import env_id
from stichzoo.policies.base import Decision
from stichzoo.policies.serve.levels import LADDER_FILE
from stichzoo.policies.specs import build_policy, learned_search, search_hooks
from stichzoo.training.evaluation.arena_args import ARENA_SEED, LEADERBOARD
from stichzoo.training.evaluation.ladder import PLAYERS, objective, verdict
from stichzoo.training.evaluation.think_time import positions
from stichzoo.training.evaluation.tournament import (
    TournamentConfig,
    default_lineup,
    run_tournament,
    seat_assignments,
)

SCHEMA = "stichzoo.arena/1"
#: the arena's tournament seed (ARENA_SEED): no training, tuning or ladder match uses it
#: (training seeds are small, evaluation 104729+, the ladder 2027 and 86420, the baselines 1
#: and 2); where ``stichzoo arena`` keeps its entries unless told (LEADERBOARD, --leaderboard)
#: the leaderboard shipped with the docs (docs/arena.md's table is made from it)
DOCS_LEADERBOARD = os.path.join(os.path.dirname(LADDER_FILE), "arena_leaderboard.json")
#: the rungs: key, label, spec (``{game}``: the game's name; ``search``: its learned search)
RUNGS = (("random", "random", "random"), ("heuristic", "heuristic", "heuristic"),
         ("pimc", "PIMC", "pimc"), ("search", "the learned search", "{search}"),
         ("network", "the shipped network", "bot:{game}"))
#: the ladder's climb, in order; the network stands beside it
CLIMB = ("random", "heuristic", "pimc", "search")


@dataclass
class ArenaConfig:
    """One arena run: ``games`` per rung (rounded up to whole deals of every seat
    assignment), ``rungs`` a subset of :data:`RUNGS`' keys (None: all)."""

    game: str
    challenger: str
    games: int = 100
    seed: int = ARENA_SEED
    workers: int = 0
    rungs: list[str] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    match_think_time: bool = False
    think_decisions: int = 50

    def __post_init__(self):
        if self.game not in envs.GAMES:
            raise ValueError(f"unknown game {self.game!r}; known games: {', '.join(envs.GAMES)}")
        unknown = [r for r in self.rungs or () if r not in {k for k, _, _ in RUNGS}]
        if unknown:
            raise ValueError(f"unknown rung(s) {', '.join(unknown)}; the rungs are "
                             f"{', '.join(k for k, _, _ in RUNGS)}")
        for name, value, low in (("games", self.games, 1), ("think_decisions",
                                                             self.think_decisions, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be an integer of at least {low}, not {value!r}")

    def table(self):
        """The game at the arena's table: the ladder's player count, the options on top."""
        cls = envs.game_class(self.game)
        return cls(build_options(cls.Options, self.game,
                                 {"num_players": PLAYERS[self.game], **self.options}))


def rung_specs(game: str) -> dict[str, str]:
    """Each rung's spec for ``game``, at the ladder's settings."""
    return {key: spec.format(game=game, search=learned_search(game)) for key, _, spec in RUNGS}


# -- think time ----------------------------------------------------------------------------


def think_times(game, specs: dict[str, str], decisions: int, seed: int) -> dict[str, dict]:
    """Each spec's mean and p99 (nearest rank) wall time (ms) per decision on the same ``decisions``
    positions (heuristic self-play, :func:`think_time.positions`), the bots taking turns
    position by position so the machine's load hits them alike.  An outside bot is warmed
    up first (a process starts) and its forfeits counted, not timed."""
    states = positions(game, decisions, seed)
    policies = {name: build_policy(spec, game, seed=seed, cache=False)
                for name, spec in specs.items()}
    times: dict[str, list[float]] = {name: [] for name in specs}
    forfeits = dict.fromkeys(specs, 0)
    for policy in policies.values():  # a process starts, a model loads: not think time
        policy.act(Decision(game, states[0].clone()))
    for state in states:
        for name, policy in policies.items():
            if getattr(policy, "forfeit", None) is not None:
                policy.reset()
            start = time.perf_counter()
            policy.act(Decision(game, state.clone()))
            elapsed = (time.perf_counter() - start) * 1000
            if getattr(policy, "forfeit", None) is not None:
                forfeits[name] += 1
            else:
                times[name].append(elapsed)
    out = {}
    for name, ms in times.items():
        ms.sort()
        out[name] = {"mean": round(statistics.fmean(ms), 3) if ms else None,
                     "p99": round(ms[math.ceil(0.99 * len(ms)) - 1], 3) if ms else None,
                     "decisions": len(ms), "forfeits": forfeits[name]}
    return out


def matched_pimc(game, challenger_ms: float, pimc_ms: float) -> str:
    """PIMC at the challenger's think time: the rung's worlds scaled by the ratio of the mean
    think times (PIMC's time grows with its worlds), at least one."""
    worlds = search_hooks(game.name).defaults.get("worlds", 12)
    scaled = max(1, min(4096, round(worlds * challenger_ms / max(pimc_ms, 1e-6))))
    return f"pimc:worlds={scaled}"


# -- the run ---------------------------------------------------------------------------------


def run_arena(cfg: ArenaConfig, progress: bool = True, say=print) -> dict:
    """Play the challenger against every rung; the arena's result (see module docstring)."""
    game = cfg.table()
    build_policy(cfg.challenger, game, seed=0, cache=False)  # a bad spec fails here
    wanted = cfg.rungs or [k for k, _, _ in RUNGS]
    specs = rung_specs(cfg.game)
    rungs: dict[str, dict] = {}
    sitting: dict[str, str] = {}
    for key, label, _ in RUNGS:
        if key not in wanted:
            continue
        spec = specs[key]
        if spec == cfg.challenger:
            rungs[key] = {"label": label, "spec": spec, "skipped": "the challenger itself"}
            continue
        try:
            build_policy(spec, game, seed=0, cache=False)
        except ValueError as e:  # the network fits its own table only
            reason = " ".join(str(e).split()).replace(os.getcwd() + os.sep, "")
            rungs[key] = {"label": label, "spec": spec, "skipped": reason}
            continue
        sitting[key] = spec
    say(f"arena: timing {cfg.think_decisions} decisions of each bot")
    timed = {"challenger": cfg.challenger, **sitting}
    think = think_times(game, timed, cfg.think_decisions, cfg.seed)
    if cfg.match_think_time and "pimc" in sitting and think["challenger"]["mean"]:
        sitting["pimc"] = matched_pimc(game, think["challenger"]["mean"], think["pimc"]["mean"])
        think["pimc"] = think_times(game, {"pimc": sitting["pimc"]}, cfg.think_decisions,
                                    cfg.seed)["pimc"]
        say(f"arena: the PIMC rung at the challenger's think time: {sitting['pimc']}")
    key_of = objective(cfg.game)
    for key, label, _ in RUNGS:
        if key not in sitting:
            continue
        spec = sitting[key]
        lineup = default_lineup([cfg.challenger, spec], PLAYERS[cfg.game])
        deals = max(1, math.ceil(cfg.games / len(seat_assignments(lineup))))
        tcfg = TournamentConfig(game=cfg.game, players=PLAYERS[cfg.game], lineup=lineup,
                                deals=deals, seed=cfg.seed, options=cfg.options,
                                baseline=spec, workers=cfg.workers)
        say(f"arena: {cfg.challenger} vs {label} ({spec}), {deals * len(seat_assignments(lineup))}"
            f" games")
        report = run_tournament(tcfg, progress=progress)
        vs = report["versus_baseline"][cfg.challenger]
        rungs[key] = {
            "label": label, "spec": spec, "games": report["games"], "deals": report["deals"],
            "score_difference": _stat(vs["score_difference"]),
            "win_rate_difference": _stat(vs["win_rate_difference"]),
            "duplicate_rating": _stat(report["duplicate_ratings"].get(cfg.challenger)),
            "verdict": _verdict(_stat(vs[key_of])),  # rung_verdict's input
            "forfeits": report["forfeits"].get(cfg.challenger),
            "wall_seconds": round(report["wall_seconds"], 1)}
    order = {k: i for i, (k, _, _) in enumerate(RUNGS)}
    rungs = dict(sorted(rungs.items(), key=lambda kv: order[kv[0]]))
    for r in rungs.values():
        if "skipped" not in r:
            r["verdict"] = rung_verdict(r, key_of)
    return {"schema": SCHEMA, "config": asdict(cfg), "objective": key_of,
            "players": PLAYERS[cfg.game], "rungs": rungs, "think_ms": think,
            "forfeits": sum((r.get("forfeits") or {}).get("games", 0) for r in rungs.values()),
            "verdict": placement(rungs)}


def _stat(d: dict | None) -> dict | None:
    if not d or d.get("lo") is None:
        return None if not d or d.get("mean") is None else {"mean": round(d["mean"], 4),
                                                             "lo": None, "hi": None}
    return {k: round(float(d[k]), 4) for k in ("mean", "lo", "hi")}


def _verdict(stat: dict | None) -> str:
    """The ladder's verdict (above / level / below), n/a without an interval."""
    return "n/a" if stat is None or stat.get("lo") is None else verdict(stat)


#: the verdict of a rung that gave the challenger the same result in every deal (a bot that
#: plays as the rung: no spread, so no interval - and nothing to decide)
SAME = "the same in every deal"


def rung_verdict(rung: dict, objective_key: str) -> str:
    """above / level / below the rung on the objective's 95% interval; :data:`SAME` when
    every deal gave the same result (no spread, no interval); n/a without an interval."""
    stat = rung.get(objective_key)
    if stat and stat.get("lo") is None and stat.get("mean") == 0 and rung.get("deals", 0) > 1:
        return SAME
    return _verdict(stat)


def placement(rungs: dict[str, dict]) -> str:
    """Where the challenger stands, in words, from each rung's verdict (95% intervals).

    "between PIMC and the learned search": above PIMC, below the learned search; a rung
    without a verdict (skipped, or too few deals for an interval) is named as such.
    """
    known = [(k, rungs[k]) for k in CLIMB if k in rungs and "verdict" in rungs[k]]
    decided = [(k, r) for k, r in known if r["verdict"] in ("above", "level", "below", SAME)]
    if not decided:
        return "no verdict: no rung had enough deals for a 95% interval (play more --games)"
    above = [r["label"] for _, r in decided if r["verdict"] == "above"]
    level = [r["label"] for _, r in decided if r["verdict"] in ("level", SAME)]
    below = [r["label"] for _, r in decided if r["verdict"] == "below"]
    if level:
        words = (f"level with {' and '.join(level)}" + (f", above {above[-1]}" if above else "")
                 + (f", below {below[0]}" if below else ""))
    elif above and below:
        words = f"between {above[-1]} and {below[0]}"
    elif above:
        words = f"above {above[-1]}" + (", the top of the climb" if above[-1] ==
                                        rungs.get("search", {}).get("label") else "")
    else:
        words = f"below {below[0]}"
    first_below = next((i for i, (_, r) in enumerate(decided) if r["verdict"] == "below"), None)
    if first_below is not None and any(r["verdict"] == "above"
                                       for _, r in decided[first_below + 1:]):
        words += " (not in order: it beats a higher rung than one it loses to)"
    open_rungs = [r["label"] for _, r in known if r["verdict"] == "n/a"]
    if open_rungs:
        words += f"; no verdict against {', '.join(open_rungs)} (too few deals)"
    network = rungs.get("network")
    if network and "verdict" in network:
        words += f"; against {network['label']} alone: {network['verdict']}"
        if network["verdict"] == SAME:
            words += " (it plays as the network)"
    return words


# -- the leaderboard and the reports ------------------------------------------------------


def versions() -> dict[str, str]:
    """What the figures depend on: stichzoo, the game's env version, Python."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        ours = version("stichzoo")
    except PackageNotFoundError:  # pragma: no cover - run from a bare checkout
        ours = "unknown"
    return {"stichzoo": ours, "python": platform.python_version()}


def leaderboard_entry(result: dict, command: str) -> dict:
    """The leaderboard's entry of an arena result: the command, seeds, versions and date."""
    cfg = result["config"]
    return {"game": cfg["game"], "env": env_id(cfg["game"]),
            "challenger": cfg["challenger"], "command": command, "seed": cfg["seed"],
            "games_per_rung": cfg["games"], "options": cfg["options"],
            "match_think_time": cfg["match_think_time"], "versions": versions(),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "verdict": result["verdict"], "objective": result["objective"],
            "forfeits": result["forfeits"], "think_ms": result["think_ms"],
            "rungs": result["rungs"]}


def load_leaderboard(path: str) -> dict:
    if not os.path.exists(path):
        return {"schema": SCHEMA, "entries": []}
    with open(path) as f:
        data = json.load(f)
    if data.get("schema") != SCHEMA:
        raise ValueError(f"{path}: not an arena leaderboard (schema {data.get('schema')!r})")
    return data


def add_to_leaderboard(path: str, entry: dict) -> None:
    """Append ``entry`` (written whole, then renamed: an interrupted write loses nothing)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    data = load_leaderboard(path)
    data["entries"].append(entry)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)


def _fmt(stat: dict | None, digits: int) -> str:
    if stat is None:
        return "n/a"
    if stat.get("lo") is None:
        return f"{stat['mean']:+.{digits}f} [n/a]"
    return f"{stat['mean']:+.{digits}f} [{stat['lo']:+.{digits}f}, {stat['hi']:+.{digits}f}]"


def _ms(t: dict | None) -> str:
    if not t or t.get("mean") is None:
        return "n/a"
    return f"{t['mean']:.2f} / {t['p99']:.2f}"


def _games(n: int) -> str:
    return f"{n} game" + ("" if n == 1 else "s")


def markdown(result: dict, command: str) -> str:
    """The arena's report as markdown: the verdict, one row per rung, think times, forfeits."""
    cfg = result["config"]
    digits = 3 if result["objective"] == "win_rate_difference" else 2
    measure = "win rate" if result["objective"] == "win_rate_difference" else "score"
    lines = [f"# Arena: `{cfg['challenger']}` on {cfg['game']}", "",
             f"**Verdict: {result['verdict']}.**", "",
             f"`{command}`", "",
             f"{result['players']} players, the challenger in one seat and the rung in the "
             f"others, every deal in every seat assignment (duplicate), seed {cfg['seed']}; "
             f"judged on the {measure} difference with its paired 95% interval over deals.", "",
             "| rung | spec | games | score diff [95%] | win-rate diff [95%] | duplicate rating "
             "[95%] | verdict | forfeits | think ms mean / p99 |",
             "|---|---|---:|---|---|---|---|---:|---|"]
    for key, r in result["rungs"].items():
        if "skipped" in r:
            lines.append(f"| {r['label']} | `{r['spec']}` | 0 | skipped: {r['skipped']} "
                         f"| | | | | |")
            continue
        forfeits = (r.get("forfeits") or {}).get("games", 0)
        lines.append(f"| {r['label']} | `{r['spec']}` | {r['games']} | "
                     f"{_fmt(r['score_difference'], 2)} | {_fmt(r['win_rate_difference'], 3)} | "
                     f"{_fmt(r['duplicate_rating'], digits)} | {r['verdict']} | {forfeits} | "
                     f"{_ms(result['think_ms'].get(key))} |")
    t = result["think_ms"]["challenger"]
    lines += ["", f"The challenger thinks {_ms(t)} ms per decision (mean / p99 over "
                  f"{t['decisions']} positions, wall time, each bot in turn on the same "
                  f"positions)" + (f"; it forfeited {t['forfeits']} of them" if t["forfeits"]
                                   else "") + "."]
    forfeited = {k: r["forfeits"] for k, r in result["rungs"].items() if r.get("forfeits")}
    if forfeited:
        lines += ["", f"**Forfeits: {_games(result['forfeits'])}.** A forfeited game was played "
                      f"to its end by the challenger's stand-in (its fallback, random unless "
                      f"the spec says otherwise), so the figures rate the bot together with "
                      f"its stand-in:", ""]
        for key, f in forfeited.items():
            reasons = ", ".join(f"{n} {r}" for r, n in sorted(f["reasons"].items()))
            lines.append(f"- against {result['rungs'][key]['label']}: {_games(f['games'])} "
                         f"({reasons}); first: {f['first']}")
    return "\n".join(lines) + "\n"


def plot(result: dict, path: str) -> str | None:
    """The PNG: the challenger's difference to each rung with its 95% interval, and the think
    times; None without matplotlib (the eval extra)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is in the eval extra
        return None
    key = result["objective"]
    played = [(r["label"], r[key]) for r in result["rungs"].values() if r.get(key)]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 3.6), gridspec_kw={"width_ratios": [3, 2]})
    for i, (_, stat) in enumerate(played):
        lo, hi = stat.get("lo"), stat.get("hi")
        color = {"above": "tab:green", "below": "tab:red"}.get(_verdict(stat), "tab:gray")
        if lo is not None:
            ax.errorbar(stat["mean"], i, xerr=[[stat["mean"] - lo], [hi - stat["mean"]]],
                        fmt="o", color=color, capsize=4)
        else:
            ax.plot(stat["mean"], i, "o", color=color, fillstyle="none")
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(range(len(played)), [label for label, _ in played])
    ax.set_xlabel(f"challenger - rung, {key.replace('_', ' ')} (95% interval)")
    ax.set_title(f"{result['config']['game']}: {result['verdict']}"[:90], fontsize=9)
    names = list(result["think_ms"])
    means = [result["think_ms"][n]["mean"] or 0 for n in names]
    p99 = [result["think_ms"][n]["p99"] or 0 for n in names]
    bx.barh(range(len(names)), p99, color="lightgray", label="p99")
    bx.barh(range(len(names)), means, color="tab:blue", label="mean")
    bx.set_yticks(range(len(names)), names)
    bx.set_xscale("symlog", linthresh=0.1)
    bx.set_xlabel("think time per decision (ms)")
    bx.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_reports(result: dict, command: str, out_dir: str) -> list[str]:
    """``arena.json``, ``arena.md`` and ``arena.png`` in ``out_dir``."""
    os.makedirs(out_dir, exist_ok=True)
    paths = [os.path.join(out_dir, "arena.json"), os.path.join(out_dir, "arena.md")]
    with open(paths[0], "w") as f:
        json.dump({**result, "command": command}, f, indent=1, allow_nan=False)
    with open(paths[1], "w") as f:
        f.write(markdown(result, command))
    png = plot(result, os.path.join(out_dir, "arena.png"))
    return paths + ([png] if png else [])


def default_out(cfg: ArenaConfig) -> str:
    """``runs/arena/<game>_<challenger as a file name>``."""
    slug = "".join(c if c.isalnum() else "_" for c in cfg.challenger).strip("_")[:60]
    return os.path.join("runs", "arena", f"{cfg.game}_{slug or 'bot'}")


def command_of(cfg: ArenaConfig, out: str | None = None, leaderboard: str | None = None) -> str:
    """The command line that reproduces a run, every setting spelled out (the seed too)."""
    argv = ["stichzoo", "arena", cfg.game, cfg.challenger, "--games", str(cfg.games),
            "--seed", str(cfg.seed)]
    if cfg.rungs:
        argv += ["--rungs", *cfg.rungs]
    for key, value in cfg.options.items():
        argv += ["--option", f"{key}={json.dumps(value, separators=(',', ':'))}"]
    if cfg.match_think_time:
        argv.append("--match-think-time")
    if cfg.think_decisions != 50:
        argv += ["--think-decisions", str(cfg.think_decisions)]
    return shlex.join(argv)


def leaderboard_markdown(path: str = DOCS_LEADERBOARD) -> str:
    """The leaderboard as a markdown table (docs/arena.md), newest first."""
    entries = load_leaderboard(path)["entries"]
    if not entries:
        return "*No arena run recorded yet.*"
    rows = ["| game | challenger | verdict | vs random / heuristic / PIMC / learned search / "
            "network | think ms mean / p99 | forfeits | games per rung | date, versions | "
            "command |", "|---|---|---|---|---|---:|---:|---|---|"]
    for e in reversed(entries):
        rungs = {k: {**r, "verdict": rung_verdict(r, e["objective"])} if "skipped" not in r
                 else r for k, r in e["rungs"].items()}
        verdict_words = placement(rungs)  # from the recorded figures, in today's words
        digits = 3 if e["objective"] == "win_rate_difference" else 2
        cells = [_fmt(e["rungs"].get(k, {}).get(e["objective"]), digits)
                 if "skipped" not in e["rungs"].get(k, {"skipped": 1}) else "-"
                 for k, _, _ in RUNGS]
        v = e["versions"]
        rows.append(f"| {e['game']} | `{e['challenger']}` | {verdict_words} | "
                    f"{' / '.join(cells)} | {_ms(e['think_ms'].get('challenger'))} | "
                    f"{e['forfeits']} | {e['games_per_rung']} | {e['date']}, stichzoo "
                    f"{v['stichzoo']}, Python {v['python']} | `{e['command']}` |")
    return "\n".join(rows)


__all__ = ["ARENA_SEED", "DOCS_LEADERBOARD", "LEADERBOARD", "RUNGS", "ArenaConfig",
           "add_to_leaderboard", "leaderboard_entry", "leaderboard_markdown", "markdown",
           "matched_pimc", "placement", "plot", "run_arena", "think_times", "write_reports"]


def main(args) -> int:
    """``stichzoo arena`` (training/cli.py's arguments): run, report, add to the leaderboard."""
    cfg = ArenaConfig(game=args.game, challenger=args.challenger, games=args.games,
                      seed=args.seed, workers=args.workers, rungs=args.rungs,
                      options=args.options, match_think_time=args.match_think_time,
                      think_decisions=args.think_decisions)
    command = command_of(cfg)
    result = run_arena(cfg, progress=not args.quiet)
    print(markdown(result, command))
    for path in write_reports(result, command, args.out or default_out(cfg)):
        print(f"wrote {path}")
    add_to_leaderboard(args.leaderboard, leaderboard_entry(result, command))
    print(f"added to the leaderboard {args.leaderboard}")
    return 0
