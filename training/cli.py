"""The ``stichzoo`` command.

    stichzoo eval wizard --players 4 --policies heuristic random --games 2000
    stichzoo eval hoch_tief --policies pimc heuristic --games 400 --out runs/eval/ht
    stichzoo eval wizard --policies bot:wizard heuristic --games 1000   (a shipped bot)
    stichzoo play wizard --opponents heuristic pimc bot:wizard --seed 7   (you and bots)
    stichzoo train wizard --final-eval        (the packaged recipe of the shipped Wizard bot)
    stichzoo train configs/sb3/wizard.yaml --set train.total_timesteps=20000   (a file)
    stichzoo train --backend rllib wizard --address HEAD:6379   (RLlib, a Ray cluster)
    stichzoo export runs/<run> --out policies/bots/wizard
    stichzoo dataset wizard --policies heuristic --games 100 --out wizard.npz   (training arrays)
    stichzoo dataset --records games.jsonl --out games.npz   (records -> arrays)
    stichzoo serve --port 8000                    (the shipped bots; or --bots DIR, --stdio)
    stichzoo ladder [--run runs/<run>] [--markdown]   (where every bot stands)
    stichzoo fit leaf_value hoch_tief   (a learned value in place of PIMC's play-outs)
    stichzoo fit tricks_to_come silberne_ananas   (the tricks to come, heuristic:future=)
    stichzoo fit bid_model wizard --config FILE --out DIR   (Wizard bids from predicted tricks)

``eval`` plays a duplicate tournament (see :mod:`stichzoo.training.evaluation`) and
prints per policy the mean score and win rate with 95% intervals, the
difference to the baseline with its test, ratings by the game's objective
(duplicate and openskill; docs/evaluation.md) and per-game metrics;
``--out`` writes ``report.json`` and ``report.png``.  ``fit`` makes a model that is not a
bot (:mod:`stichzoo.training.fit`); the lab's fitters and policy options join the same
subcommands under ``python -m stichzoo.training.lab`` (``fit belief wizard``).

One spelling across the subcommands: a list follows its flag, separated by
spaces (``--policies heuristic random``, ``--games wizard hoch_tief``); the
older spellings keep working unadvertised - commas (``--lineup a,b,c,d``,
``--opponents heuristic,pimc``, a policy spec's own ``pimc:worlds=8,rollouts=2``
stays whole) and a repeated flag (``--cors-origin A --cors-origin B``).
Overrides are ``KEY=VALUE``, one per flag: ``--option rounds=[5]`` sets a game
option in ``eval``, ``play`` and ``train``; ``--set train.n_envs=2`` any key
of a training config.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import textwrap

from stichzoo import __version__, configs, envs
from stichzoo.envs.core.rewards import REWARD_MODES
from stichzoo.envs.kernel import describe as kernel_line
from stichzoo.envs.registry import default_players
from stichzoo.policies.specs import split_specs


class _Items(argparse.Action):
    """A list argument: items after the flag, separated by spaces, and (the older spelling)
    by commas; a repeated flag adds to the list.  ``choices`` are checked after the split
    (argparse would check ``a,b`` as one item), with argparse's own message."""

    def __init__(self, option_strings, dest, nargs="+", choices=None, **kwargs):
        super().__init__(option_strings, dest, nargs=nargs, **kwargs)
        self.allowed = list(choices) if choices is not None else None

    def split(self, values: list[str]) -> list[str]:
        return [v.strip() for item in values for v in item.split(",") if v.strip()]

    def __call__(self, parser, namespace, values, option_string=None):
        items = self.split(values)
        for item in items if self.allowed is not None else []:
            if item not in self.allowed:
                choices = ", ".join(map(repr, self.allowed))
                raise argparse.ArgumentError(self, f"invalid choice: {item!r} (choose from "
                                                   f"{choices})")
        current = getattr(namespace, self.dest, None)
        fresh = current is None or current is self.default  # the first use replaces the default
        setattr(namespace, self.dest, items if fresh else [*current, *items])


class _Specs(_Items):
    """A list of policy specs: a comma inside a spec's arguments does not split it."""

    def split(self, values: list[str]) -> list[str]:
        return split_specs(values)


def _options(items: list[str]) -> dict:
    options = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"--option {item!r}: use KEY=VALUE (VALUE as JSON, e.g. 'rounds=[5]')")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def cmd_eval(args: argparse.Namespace) -> int:
    from stichzoo.training.evaluation.report import format_report, write_outputs
    from stichzoo.training.evaluation.tournament import (
        TournamentConfig,
        default_lineup,
        run_tournament,
        seat_assignments,
    )

    lineup = args.lineup or default_lineup(args.policies, args.players)
    per_deal = len(seat_assignments(lineup))
    cfg = TournamentConfig(game=args.game, players=args.players, lineup=lineup,
                           deals=max(1, math.ceil(args.games / per_deal)), seed=args.seed,
                           options=_options(args.option), baseline=args.baseline,
                           workers=args.workers)
    if args.records:
        _check_output_file(args.records, ".jsonl", "--records")
    report = run_tournament(cfg, progress=not args.quiet, records=bool(args.records))
    records = report.pop("records", None)
    print(format_report(report))
    if args.out:
        for path in write_outputs(report, args.out):
            print(f"wrote {path}")
    if records is not None:
        _write_records(args.records, records)
    return 0


def _check_output_file(path: str, ending: str, flag: str) -> None:
    """Refuse an output file before the games are played, not after."""
    if not path.endswith(ending):
        raise ValueError(f"{flag} {path}: the file must end in {ending}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{flag} {path}: the folder {folder} does not exist")


def _write_records(path: str, records: list[dict]) -> None:
    from stichzoo.envs.core.record import to_json

    with open(path, "w", encoding="utf-8") as f:
        for record in records:
            f.write(to_json(record) + "\n")
    print(f"wrote {path} ({len(records)} game records, one per line)")


def cmd_dataset(args: argparse.Namespace) -> int:
    """Records (files) or freshly played games -> one .npz of training arrays (docs/datasets.md)."""
    import time

    from stichzoo.envs.core import dataset

    _check_output_file(args.out, ".npz", "--out")
    kwargs = {"reward": args.reward, "reward_scale": args.reward_scale, "gamma": args.gamma}
    if args.records:
        if args.game or args.policies or args.lineup or args.save_records:
            raise ValueError("--records converts record files; drop the game and --policies, "
                             "--lineup, --save-records (they play new games)")
        records = dataset.read_records(args.records)
        start = time.perf_counter()
        data = dataset.from_records(records, **kwargs)
        seconds = time.perf_counter() - start
        source = f"{len(records)} records"
    else:
        if not args.game:
            raise ValueError("name a game to play (stichzoo dataset wizard --policies heuristic) "
                             "or record files to convert (--records FILE.jsonl)")
        from stichzoo.training.evaluation.dataset import play_dataset
        from stichzoo.training.evaluation.tournament import (
            TournamentConfig,
            default_lineup,
            seat_assignments,
        )

        if args.save_records:
            _check_output_file(args.save_records, ".jsonl", "--save-records")
        players = args.players or default_players(args.game)
        lineup = args.lineup or default_lineup(args.policies or ["heuristic"], players)
        per_deal = len(seat_assignments(lineup))
        cfg = TournamentConfig(game=args.game, players=players, lineup=lineup,
                               deals=max(1, math.ceil(args.games / per_deal)), seed=args.seed,
                               options=_options(args.option), workers=args.workers)
        start = time.perf_counter()
        data, records = play_dataset(cfg, progress=not args.quiet, **kwargs)
        seconds = time.perf_counter() - start
        source = f"{len(records)} games of {' '.join(lineup)} (seed {args.seed})"
        if args.save_records:
            _write_records(args.save_records, records)
    dataset.save(args.out, data)
    rows = len(data["action"])
    print(f"wrote {args.out}: {rows} decisions from {source}, {data['meta']['env']}, "
          f"reward {data['meta']['reward']}, {rows / max(seconds, 1e-9):,.0f} decisions/s")
    return 0


#: the fitters' old subcommands, kept one release: the model each fits now
RENAMED_FITTERS = {"leaf": "leaf_value", "future": "tricks_to_come", "tricks": "bid_model"}
#: the lab's fitters (their old subcommands, and their names under ``fit``)
LAB_FITTERS = ("belief", "standing")


def _lab_fitter(model: str, game: str) -> ValueError:
    return ValueError(f"{model} is a lab fitter: python -m stichzoo.training.lab fit {model} "
                      f"{game}")


def cmd_fit(args: argparse.Namespace) -> int:
    """A model that is not a bot (:mod:`stichzoo.training.fit`): its config (``--config``,
    else configs/<folder>/<game>.yaml) with the ``--set`` overrides, then collect, fit,
    held-out quality and save - or, with ``--evaluate``, the quality of a saved model."""
    from stichzoo.training import fit
    from stichzoo.training.config import apply_override

    if args.model in LAB_FITTERS and args.model not in fit.MODELS:
        raise _lab_fitter(args.model, args.game)
    entry = fit.model_fit(args.model)
    if args.game not in entry.games:
        raise ValueError(f"{entry.name} is fitted for {', '.join(entry.games)}, not "
                         f"{args.game}")
    steps = entry.steps()
    overrides: dict = {"game": args.game} if "game" in getattr(steps, "SCHEMA", {}) else {}
    for item in args.set:
        apply_override(overrides, item)
    cfg = steps.load_config(entry.config_path(args.game, args.config), overrides)
    flags = {f.name: getattr(args, f.name) for m in fit.MODELS.values() for f in m.flags
             if getattr(args, f.name, None) is not None}
    log = print if not args.quiet else (lambda *_: None)
    if args.evaluate:
        report = fit.measure(entry.name, cfg, args.evaluate, log, **flags)
    else:
        report = fit.run(entry.name, cfg, args.out, log, **flags)
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=1)
    return 0


def cmd_renamed_fitter(args: argparse.Namespace) -> int:
    """``stichzoo leaf`` and the other old fitter subcommands: the new spelling on stderr,
    then ``stichzoo fit``."""
    print(f"{args.prog} {args.command} is now: {args.prog} fit {args.model} {args.game}",
          file=sys.stderr)
    return cmd_fit(args)


def cmd_lab_fitter(args: argparse.Namespace) -> int:
    """``stichzoo belief``, ``stichzoo standing``: lab fitters now, run from the lab."""
    raise _lab_fitter(args.command, args.game)


def cmd_play(args: argparse.Namespace) -> int:
    """A terminal table for one person and bots (:mod:`stichzoo.policies.tables.terminal`)."""
    try:
        from stichzoo.policies.tables.terminal import play_from_args
    except ImportError as e:  # rich is in the play extra
        if (e.name or "").split(".")[0] != "rich":
            raise
        raise ValueError(f"stichzoo play needs {e.name or 'rich'}: "
                         f"pip install 'stichzoo[play]'") from None
    return play_from_args(args.game, players=args.players, opponents=args.opponents,
                          seed=args.seed, seat=args.seat, options=_options(args.option),
                          record=args.record)


def _backend_overrides(args: argparse.Namespace) -> None:
    """``--backend rllib`` is ``algo: rllib_ppo`` (a resumed run keeps its own algo)."""
    if args.backend == "rllib":
        if args.algo:
            raise ValueError(f"--algo {args.algo} picks a local trainer; with --backend rllib "
                             f"RLlib's PPO trains (drop --algo)")
        if not args.resume:
            args.set = [*args.set, "algo=rllib_ppo"]


def _check_backend(args: argparse.Namespace, cfg: dict) -> None:
    """The config's trainer and the flags agree; RLlib is importable if it is the trainer."""
    if args.backend == "rllib" and cfg["algo"] != "rllib_ppo":
        raise ValueError(f"--resume {args.resume}: that run trained with algo: {cfg['algo']}, "
                         f"not RLlib; resume it without --backend rllib")
    if args.backend == "local" and cfg["algo"] == "rllib_ppo":
        raise ValueError("the config says algo: rllib_ppo (RLlib); use --backend rllib, or "
                         "--algo maskable_ppo|batch_ppo to train locally")
    if args.address and cfg["algo"] != "rllib_ppo":
        raise ValueError("--address is a Ray cluster's; use it with --backend rllib")
    if cfg["algo"] == "rllib_ppo":
        from stichzoo.training.rllib import require_ray

        try:
            require_ray()
        except ImportError as e:
            raise ValueError(str(e)) from None


def config_file(name: str) -> str:
    """The config ``stichzoo train NAME`` reads: the file NAME if there is one, else the
    packaged recipe of that name (``wizard``, ``sb3/wizard``, ``configs/wizard.yaml``)."""
    if os.path.exists(name):
        return name
    packaged = configs.recipe(name)
    if packaged is None:
        raise ValueError(f"config file {name} does not exist, and no packaged recipe has that "
                         f"name (they are: {', '.join(configs.recipes())})")
    return str(packaged)


def cmd_train(args: argparse.Namespace) -> int:
    _backend_overrides(args)
    args.set = [*(f"options.{item}" for item in args.option), *args.set]
    if args.algo:
        args.set = [*args.set, f"algo={args.algo}"]
    if args.device:
        args.set = [*args.set, f"batch.device={args.device}"]
    """Check everything the run needs (config, folders, flags), then train.

    Every refusal happens before :func:`~stichzoo.training.train.train` creates
    the run folder, so a refused command leaves nothing behind.
    """
    from stichzoo.training import config as config_mod

    if args.final_games is not None and args.final_games < 1:
        raise ValueError(f"--final-games {args.final_games}: use a number of games >= 1")
    if args.resume:
        if args.config or args.run_dir:
            raise ValueError("--resume RUN_DIR continues a run with its own config.yaml; "
                             "drop the config file and --run-dir (use --set to change values)")
        if not os.path.isdir(args.resume):
            raise ValueError(f"--resume {args.resume}: no such run folder")
        config_path = os.path.join(args.resume, "config.yaml")
        if not os.path.isfile(config_path):
            raise ValueError(f"--resume {args.resume}: not a run folder (it has no config.yaml)")
        cfg = config_mod.load(config_path, args.set)
        from stichzoo.training.runs import RunPaths

        latest = RunPaths(args.resume).latest_checkpoint()
        if latest and latest[1] >= cfg["train"]["total_timesteps"]:
            raise ValueError(f"--resume {args.resume}: the run has trained {latest[1]} steps, "
                             f"train.total_timesteps={cfg['train']['total_timesteps']} is "
                             f"reached; raise it with --set train.total_timesteps=N")
    else:
        if not args.config:
            raise ValueError("name a config file, a packaged recipe (a game, e.g. wizard) or "
                             "--resume RUN_DIR")
        cfg = config_mod.load(config_file(args.config), args.set)
        if args.run_dir and os.path.exists(args.run_dir):
            raise ValueError(f"--run-dir {args.run_dir} exists; use --resume to continue it")
    _check_backend(args, cfg)
    from stichzoo.training.evaluation.run_eval import final_evaluation
    from stichzoo.training.runs import RunPaths, shortfall_of
    from stichzoo.training.train import train

    if cfg["algo"] == "rllib_ppo":
        from stichzoo.training.rllib.run import train_rllib

        run_dir = train_rllib(cfg, run_dir=args.resume or args.run_dir, resume=bool(args.resume),
                              address=args.address, progress_bar=not args.quiet)
    elif args.resume:
        run_dir = train(cfg, run_dir=args.resume, resume=True, progress_bar=not args.quiet)
    else:
        run_dir = train(cfg, run_dir=args.run_dir, progress_bar=not args.quiet)
    if args.final_eval:
        final_evaluation(run_dir, games=args.final_games, progress=not args.quiet)
        # the run's last line again, below the evaluation: a short run never passes unseen
        line = shortfall_of(RunPaths(run_dir).read_summary())
        if line:
            print(line, flush=True)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from stichzoo.training.checkpoints import export_checkpoint, is_checkpoint
    from stichzoo.training.export import export_bot, export_run

    if os.path.isdir(args.source):
        out = export_run(args.source, args.out)
    elif is_checkpoint(args.source):
        out = export_checkpoint(args.source, args.out)
    else:
        out = export_bot(args.source, args.out)
    print(f"exported {args.source} -> {out} (model.onnx, manifest.json)")
    return 0


def cmd_ladder(args: argparse.Namespace) -> int:
    """The ladder (:mod:`stichzoo.training.evaluation.ladder`): print it, or measure its matches."""
    from stichzoo.training.evaluation import ladder

    if args.measure:
        ladder.measure(args.games or list(ladder.PLAYERS), args.only, args.workers,
                       redo=args.redo)
    data = ladder.load()
    print(ladder.markdown(data) if args.markdown else ladder.show(data, args.run))
    return 0


def cmd_arena(args: argparse.Namespace) -> int:
    """Rate a bot against every rung of the game's ladder (docs/arena.md)."""
    from stichzoo.training.evaluation import arena

    args.options = _options(args.option)
    return arena.main(args)


def _add_arena(sub) -> None:
    from stichzoo.training.evaluation.arena_args import add_arguments

    a = sub.add_parser("arena", help="rate any bot (python:, cmd:, http://, openspiel:, or "
                                     "ours) against every rung of the ladder")
    add_arguments(a, list(envs.GAMES))
    a.set_defaults(func=cmd_arena)


def _serve_settings(args: argparse.Namespace) -> dict:
    """The serve command's options as the server reads them (JSON-ready: a spawned worker
    gets them through its environment, policies/serve/server.py)."""
    keys = ("bots", "host", "port", "levels", "cors_origin", "allowed_host", "trusted_proxy",
            "max_body_bytes", "request_timeout", "keep_alive", "limit_concurrency",
            "no_tables", "max_tables", "max_tables_per_client", "creations_per_minute",
            "searches_per_minute", "max_memory_mb", "max_analyses", "idle_timeout", "store",
            "keep_days", "workers", "search_processes")
    from stichzoo.policies.tables.store_sqlite import default_store_path

    settings = {k: getattr(args, k) for k in keys}
    settings["store"] = args.store or default_store_path()
    return settings


def _table_store(args: argparse.Namespace):
    """The web table's store with the serve options' limits (0 turns a per-client one off)."""
    from stichzoo.policies.serve.server import open_store

    return open_store(_serve_settings(args))


def cmd_serve(args: argparse.Namespace) -> int:
    """Check the limits, load (and verify) the bots, then serve; limits: docs/bots.md."""
    from stichzoo.policies.serve import serve_stdio

    for flag, value in (("--max-body-bytes", args.max_body_bytes),
                        ("--request-timeout", args.request_timeout),
                        ("--keep-alive", args.keep_alive),
                        ("--limit-concurrency", args.limit_concurrency),
                        ("--idle-timeout", args.idle_timeout),
                        ("--max-tables", args.max_tables),
                        ("--max-analyses", args.max_analyses),
                        ("--workers", args.workers)):
        if value <= 0:
            raise ValueError(f"{flag} {value}: use a number > 0")
    for flag, value in (("--max-tables-per-client", args.max_tables_per_client),
                        ("--creations-per-minute", args.creations_per_minute),
                        ("--searches-per-minute", args.searches_per_minute),
                        ("--max-memory-mb", args.max_memory_mb),
                        ("--keep-days", args.keep_days),
                        ("--search-processes", args.search_processes)):
        if value < 0:
            raise ValueError(f"{flag} {value}: use a number >= 0 (0: no limit)")
    if args.stdio:
        return serve_stdio(args.bots, levels=args.levels, max_line_bytes=args.max_body_bytes)
    from stichzoo.policies.serve.server import run
    from stichzoo.policies.tables.store_sqlite import StoreError

    try:
        run(_serve_settings(args))
    except StoreError as e:
        print(f"stichzoo serve: {e}", file=sys.stderr)
        return 2
    return 0


def _fit_arguments(parser: argparse.ArgumentParser, flags: list) -> None:
    """What ``fit`` and its old spellings take after the model and the game."""
    parser.add_argument("game", choices=list(envs.GAMES), metavar="GAME",
                        help=f"one of: {', '.join(envs.GAMES)} (the model's)")
    parser.add_argument("--config", help="the config (default: configs/<model's folder>/"
                                         "<game>.yaml)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config key, once per flag (--set seed=1, "
                             "--set collect.workers=2)")
    parser.add_argument("--out", help="where the model goes (default: the config's out, else "
                                      "runs/<model>/<game>...); bid_model: a folder, the bot "
                                      "in OUT/bot")
    parser.add_argument("--report", metavar="FILE.json", help="also write the report here")
    parser.add_argument("--evaluate", metavar="FILE",
                        help="fit nothing: the held-out quality of this saved model (the "
                             "config's held-out games)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    for model, flag in flags:
        parser.add_argument(f"--{flag.name}", type=flag.type, metavar=flag.metavar,
                            help=f"{model}: {flag.help}")


def _add_fit(sub) -> None:
    """``fit``, and the fitters' old subcommands: hidden, so that the help shows the product."""
    from stichzoo.training.fit import MODELS

    flags = [(m.name, f) for m in MODELS.values() for f in m.flags]
    models = "\n".join(textwrap.fill(
        f"{m.name} ({', '.join(m.games) if len(m.games) < len(envs.GAMES) else 'every game'})"
        f": {m.summary}", 78, initial_indent="  ", subsequent_indent="    ")
        for m in MODELS.values())
    fp = sub.add_parser("fit", help="fit a model that is not a bot: collect, fit, held-out "
                                    "quality, save (leaf_value, tricks_to_come, bid_model)",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        description=f"Fit a model from self-play: collect, fit, held-out "
                                    f"quality, save.\n\nmodels:\n{models}")
    fp.add_argument("model", metavar="MODEL", help=f"one of: {', '.join(MODELS)}")
    _fit_arguments(fp, flags)
    fp.set_defaults(func=cmd_fit)
    for old, model in RENAMED_FITTERS.items():
        _fit_arguments(sub.add_parser(old), flags)
        sub.choices[old].set_defaults(func=cmd_renamed_fitter, model=model)
    for old in LAB_FITTERS:
        lab = sub.add_parser(old)
        lab.add_argument("game")
        lab.add_argument("rest", nargs=argparse.REMAINDER)
        lab.set_defaults(func=cmd_lab_fitter)



class _Version(argparse.Action):
    """``--version``: the version, then which rules core runs (kept on its own line, which
    argparse's own version action would rewrap)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"stichzoo {__version__}\n{kernel_line()}")
        parser.exit()

def build_parser(prog: str = "stichzoo") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description="stichzoo: train, evaluate, export")
    p.add_argument("--version", action=_Version, help="the version and the rules core, then exit")
    p.set_defaults(prog=prog)
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("eval", help="duplicate tournament between policies")
    e.add_argument("game", choices=list(envs.GAMES))
    e.add_argument("--players", type=int, default=4)
    e.add_argument("--policies", action=_Specs, default=["heuristic", "random"],
                   metavar="SPEC",
                   help="policy specs, e.g. heuristic random 'pimc:worlds=8' bot:wizard "
                        "onnx:path=DIR ppo:path=FILE.pt; the first is seated once, the others "
                        "fill the table")
    e.add_argument("--lineup", action=_Specs, metavar="SPEC",
                   help="the seats' policy specs in seat order, instead of --policies")
    e.add_argument("--games", type=int, default=400, help="games in total (rounded up to whole "
                                                           "deals of all seat assignments)")
    e.add_argument("--baseline", help="policy to compare against (default: the last in the "
                                      "lineup)")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--option", action="append", default=[], metavar="KEY=JSON",
                   help="game option, e.g. --option 'rounds=[5]'")
    e.add_argument("--workers", type=int, default=0, help="processes (default: all cores)")
    e.add_argument("--out", help="folder for report.json and report.png")
    e.add_argument("--records", metavar="FILE.jsonl",
                   help="also write every game's record, one per line (docs/records.md; "
                        "stichzoo dataset --records FILE turns them into training arrays)")
    e.add_argument("--quiet", action="store_true", help="no progress bar")
    e.set_defaults(func=cmd_eval)
    d = sub.add_parser("dataset", help="game records or freshly played games -> training "
                                       "arrays in one .npz (docs/datasets.md)")
    d.add_argument("game", nargs="?", choices=list(envs.GAMES),
                   help="play new games of this game (with --policies or --lineup)")
    d.add_argument("--records", action=_Items, metavar="PATH",
                   help="convert these records instead: .json (one record), .jsonl (one per "
                        "line) or folders of them")
    d.add_argument("--out", required=True, metavar="FILE.npz", help="the dataset file to write")
    d.add_argument("--players", type=int, default=None,
                   help="seats (default: the game's usual number)")
    d.add_argument("--policies", action=_Specs, metavar="SPEC",
                   help="policy specs as in eval (default: heuristic in every seat); the first "
                        "is seated once, the others fill the table, in every seat assignment")
    d.add_argument("--lineup", action=_Specs, metavar="SPEC",
                   help="the seats' policy specs in seat order, instead of --policies")
    d.add_argument("--games", type=int, default=100, help="games to play (rounded up to whole "
                                                          "deals of all seat assignments)")
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--option", action="append", default=[], metavar="KEY=JSON",
                   help="game option, e.g. --option 'rounds=[5]'")
    d.add_argument("--workers", type=int, default=0, help="processes (default: all cores)")
    d.add_argument("--save-records", metavar="FILE.jsonl",
                   help="also write the played games' records, one per line")
    d.add_argument("--reward", choices=list(REWARD_MODES), default=None,
                   help="reward mode as the env's reward= (default: the records' env_kwargs, "
                        "else score)")
    d.add_argument("--reward-scale", type=float, default=None,
                   help="as the env's reward_scale= (default: the records', else 1)")
    d.add_argument("--gamma", type=float, default=1.0,
                   help="discount of the return per later decision of the seat (default 1)")
    d.add_argument("--quiet", action="store_true", help="no progress bar")
    d.set_defaults(func=cmd_dataset)
    pl = sub.add_parser("play", help="play a game against bots in the terminal")
    pl.add_argument("game", choices=list(envs.GAMES))
    pl.add_argument("--players", type=int, default=None,
                    help="seats at the table (default: the game's usual number)")
    pl.add_argument("--opponents", action=_Specs, default=["heuristic"], metavar="SPEC",
                    help="policy specs of the bots, e.g. heuristic pimc bot:wizard; fewer "
                         "than the bot seats repeat in turn")
    pl.add_argument("--seed", type=int, default=None,
                    help="deal and bot seed; the same seed replays the same deal "
                         "(default: a random one, shown at the start)")
    pl.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (default 0)")
    pl.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="game option, e.g. --option rounds=1,2 (as the web form takes it) "
                         "or JSON as in eval: --option 'rounds=[1,2]'")
    pl.add_argument("--record", metavar="FILE",
                    help="where to save the game record at the end (default: "
                         "stichzoo-<game>-<seed>.json in the current folder)")
    pl.set_defaults(func=cmd_play)
    t = sub.add_parser("train", help="self-play training from a YAML config (a file, or a "
                                      "packaged recipe by name: stichzoo train wizard)")
    t.add_argument("config", nargs="?",
                   help="a config file, or a packaged recipe by name: a game (wizard: the "
                        "recipe of its shipped bot) or a variant (sb3/wizard, quick/wizard)")
    t.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config value, e.g. --set train.total_timesteps=20000")
    t.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="game option, e.g. --option 'rounds=[1,2]' (as in eval; short for "
                        "--set options.KEY=VALUE)")
    t.add_argument("--algo", choices=["maskable_ppo", "batch_ppo"],
                   help="maskable_ppo: SB3's MaskablePPO on the single-seat view; batch_ppo: "
                        "all-seat self-play PPO on the batch engine; default: the config's algo")
    t.add_argument("--device", choices=["cpu", "cuda"],
                   help="batch_ppo: where the network runs (default: batch.device)")
    t.add_argument("--backend", choices=["local", "rllib"],
                   help="local: this machine's trainers (--algo); rllib: RLlib's multi-agent "
                        "PPO on Ray (algo: rllib_ppo; pip install 'stichzoo[rllib]', "
                        "docs/cluster.md); default: as the config's algo says")
    t.add_argument("--address", metavar="HOST:PORT",
                   help="--backend rllib: the Ray cluster to train on (HOST:PORT of its head, "
                        "'auto', or ray://HOST:10001); default: RAY_ADDRESS, else a local Ray")
    t.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its last checkpoint")
    t.add_argument("--run-dir", help="folder of a new run (default: runs/<game>__<algo>__<seed>__"
                                     "<time>)")
    t.add_argument("--final-eval", action="store_true",
                   help="after training, evaluate against eval.opponents (eval.final_games)")
    t.add_argument("--final-games", type=int, help="games per final evaluation")
    t.add_argument("--quiet", action="store_true", help="no progress bars")
    t.set_defaults(func=cmd_train)
    x = sub.add_parser("export", help="turn a run (or policy file) into an ONNX bot directory")
    x.add_argument("source", help="a run folder (runs/...), a policy file (.pt) or a batch "
                                  "run's checkpoint (runs/<run>/checkpoints/model_<n>.pt)")
    x.add_argument("--out", required=True, help="bot directory to write")
    x.set_defaults(func=cmd_export)
    v = sub.add_parser("serve", help="serve exported bots over HTTP or JSON lines")
    from stichzoo.policies.runtimes.onnx_policy import SHIPPED_BOTS

    v.add_argument("--bots", default=SHIPPED_BOTS,
                   help="folder of bot directories (default: the bots shipped with stichzoo)")
    v.add_argument("--host", default="127.0.0.1")
    v.add_argument("--port", type=int, default=8000)
    v.add_argument("--stdio", action="store_true", help="JSON lines on stdin/stdout instead")
    from stichzoo.policies import serve as serve_mod
    from stichzoo.policies.serve import levels as levels_mod

    v.add_argument("--levels", action=_Specs, nargs="*", default=list(levels_mod.DEFAULT_LEVELS),
                   metavar="SPEC",
                   help="rule bots served for every game as <game>-<kind> (default: random "
                        "heuristic pimc; e.g. 'pimc:worlds=24'); none: trained bots only")
    v.add_argument("--cors-origin", action=_Items, default=[], metavar="ORIGIN",
                   help="let browser pages from these origins call the server (e.g. "
                        "http://localhost:5173; '*' for any); none by default")
    v.add_argument("--allowed-host", action=_Items, default=[], metavar="NAME",
                   help="host names (NAME or NAME:PORT) the server answers to besides its IP "
                        "addresses and localhost, e.g. the machine's name when serving "
                        "with --host 0.0.0.0; other Host headers get 403 (DNS-rebinding "
                        "defence)")
    v.add_argument("--trusted-proxy", action=_Items, default=[], metavar="ADDRESS",
                   help="reverse proxies (addresses or networks, e.g. 127.0.0.1 or "
                        "10.0.0.0/8) whose Forwarded / X-Forwarded-For client address the "
                        "per-client limits count; from any other connection those headers "
                        "are ignored (default: none)")
    v.add_argument("--max-body-bytes", type=int, default=serve_mod.DEFAULT_MAX_BODY_BYTES,
                   help="largest request body or JSON line, else 413 (default: 1 MiB)")
    v.add_argument("--request-timeout", type=float, default=serve_mod.DEFAULT_REQUEST_TIMEOUT,
                   help="seconds a client has to send a whole request (default: 10)")
    v.add_argument("--keep-alive", type=int, default=serve_mod.DEFAULT_KEEP_ALIVE,
                   help="seconds an idle keep-alive connection stays open (default: 5)")
    v.add_argument("--limit-concurrency", type=int,
                   default=serve_mod.DEFAULT_LIMIT_CONCURRENCY,
                   help="connections and requests at once, beyond it 503 (default: 1000)")
    from stichzoo.policies.tables import table as table_mod

    v.add_argument("--no-tables", action="store_true",
                   help="no browser table (/, /tables): the bot API alone")
    v.add_argument("--max-tables", type=int, default=table_mod.DEFAULT_MAX_TABLES,
                   help="tables open at once, beyond it 503 (default: %(default)s)")
    v.add_argument("--max-tables-per-client", type=int,
                   default=table_mod.DEFAULT_MAX_TABLES_PER_CLIENT,
                   help="tables one client (remote address) may hold open, beyond it 429 "
                        "(default: %(default)s; 0: no limit)")
    v.add_argument("--creations-per-minute", type=int,
                   default=table_mod.DEFAULT_CREATIONS_PER_MINUTE,
                   help="tables one client may create per minute, beyond it 429 (default: "
                        "%(default)s; 0: no limit)")
    v.add_argument("--searches-per-minute", type=int,
                   default=table_mod.DEFAULT_SEARCHES_PER_MINUTE,
                   help="hints and game analyses one client may ask for per minute on "
                        "average (ten seconds' worth at once), beyond it 429 (default: "
                        "%(default)s; 0: no limit)")
    v.add_argument("--max-memory-mb", type=float, default=table_mod.DEFAULT_MAX_MEMORY_MB,
                   help="no new table while the server holds more resident memory (MiB), "
                        "503 instead (default: %(default)s; 0: no limit)")
    v.add_argument("--max-analyses", type=int, default=table_mod.DEFAULT_MAX_ANALYSES,
                   help="game analyses computed at once (one search per decision of the "
                        "person), beyond it 503 (default: %(default)s)")
    v.add_argument("--idle-timeout", type=float, default=table_mod.DEFAULT_IDLE_TIMEOUT,
                   help="seconds an untouched table is kept in memory (default: %(default)s; "
                        "with a --store file it is resumed from there afterwards)")
    v.add_argument("--store", default=None, metavar="PATH",
                   help="the SQLite file that keeps every table, move by move, across "
                        "restarts (default: tables.sqlite in the per-user data folder, "
                        "~/.local/share/stichzoo on Linux); 'memory': tables live in the "
                        "process only and a restart loses them (docs/operations.md)")
    v.add_argument("--keep-days", type=float, default=table_mod.DEFAULT_KEEP_DAYS,
                   help="delete tables without a move for this many days from the store, "
                        "finished and abandoned ones (default: %(default)s; 0: keep all)")
    v.add_argument("--search-processes", type=int, default=1,
                   help="processes per server process that search the hints, so a hint "
                        "never holds up another table's move (default: 1; 0: in the "
                        "request's thread; docs/operations.md)")
    v.add_argument("--workers", type=int, default=1,
                   help="server processes sharing the port and the store file; any of them "
                        "serves any table (default: 1; docs/operations.md)")
    v.set_defaults(func=cmd_serve)
    lad = sub.add_parser("ladder", help="where every bot stands: random < heuristic < pimc < "
                                        "learned search, and the network alone")
    lad.add_argument("--run", help="a run folder whose final evaluation joins the table")
    lad.add_argument("--markdown", action="store_true",
                     help="the ladder as markdown (docs/results.md)")
    lad.add_argument("--measure", action="store_true",
                     help="first play the matches not yet in policies/ladder.json")
    lad.add_argument("--games", action=_Items, choices=list(envs.GAMES), metavar="GAME",
                     help=f"with --measure: these games only ({', '.join(envs.GAMES)})")
    lad.add_argument("--only", action=_Items,
                     choices=["network_vs_pimc", "search_vs_pimc", "search_target"],
                     metavar="MATCH", help="with --measure: these matches only (network_vs_pimc, "
                                           "search_vs_pimc, search_target: 400 games and "
                                           "think time)")
    lad.add_argument("--redo", action="store_true", help="with --measure: play recorded ones again")
    lad.add_argument("--workers", type=int, default=0)
    lad.set_defaults(func=cmd_ladder)
    _add_arena(sub)
    _add_fit(sub)
    # the old fitter subcommands have no help line, and the list names only the others
    shown = [n for n in sub.choices if n not in RENAMED_FITTERS and n not in LAB_FITTERS]
    sub.metavar = "{" + ",".join(shown) + "}"
    return p


def main(argv: list[str] | None = None, prog: str = "stichzoo") -> int:
    """Run one command; a user error is one line on stderr and exit status 2, never a traceback.

    ``ValueError`` is how stichzoo reports a bad config, option or argument;
    ``OSError`` (a folder that cannot be written, a file that vanished) is the
    user's environment, not a bug, so it is reported the same way.
    """
    args = build_parser(prog).parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, OSError) as e:
        print(f"{prog}: error: {_one_line(e)}", file=sys.stderr)
        return 2


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


if __name__ == "__main__":
    sys.exit(main())
