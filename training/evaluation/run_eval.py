"""A run's learner against its ``eval.opponents``: during training and at the end.

Every trainer evaluates the same way: a duplicate tournament of the learner's
policy file in one seat against an opponent in the others.  During training
(:func:`periodic_evaluation`, seed ``cfg.seed + 7919``) the results go to
TensorBoard's ``eval/`` group; the final evaluation (:func:`final_evaluation`,
``--final-eval``, seed ``cfg.seed + 104729``: never the same deals) writes a
report per opponent under ``eval/`` and TensorBoard's ``final/`` group.
"""

from __future__ import annotations

import os

from stichzoo.training import config as config_mod
from stichzoo.training.runs import RunPaths


def evaluate_policy_file(cfg: dict, policy_path: str, opponent: str, games: int, seed: int,
                         workers: int = 0, progress: bool = False,
                         player: str | None = None) -> dict:
    """Duplicate tournament: the learner in one seat, ``opponent`` in the others;
    ``player``: the learner's spec, if not the policy file itself (an exported bot of it)."""
    import torch as th

    from stichzoo.training.evaluation.tournament import (
        TournamentConfig,
        run_tournament,
        seat_assignments,
    )

    # Checking the lineup loads the policy, and a network's construction draws from torch's
    # global generator, which the trainer's snapshot seats sample from (measured: the state
    # moves, and a run with periodic evaluations ended with other weights than one
    # without). With its own copy of the state an evaluation during training leaves the
    # training's games, and its network, as they are.
    with th.random.fork_rng(devices=[]):
        n = config_mod.game_of(cfg).num_players
        lineup = [player or f"ppo:path={policy_path}"] + [opponent] * (n - 1)
        per_deal = len(seat_assignments(lineup))
        tcfg = TournamentConfig(game=cfg["game"], players=n, lineup=lineup,
                                deals=max(1, -(-games // per_deal)), seed=seed,
                                options={k: v for k, v in cfg["options"].items()
                                         if k != "num_players"},
                                baseline=opponent, workers=workers)
        return run_tournament(tcfg, progress=progress)


def periodic_evaluation(cfg: dict, policy_path: str, writer, samples: int,
                        verbose: bool) -> None:
    """The learner against each ``eval.opponents`` during training: TensorBoard ``eval/``
    scalars at ``samples`` and, if ``verbose``, one line.  Seed ``cfg.seed + 7919``, never
    the final evaluation's deals."""
    line = [f"{samples} samples:"]
    for opp in cfg["eval"]["opponents"]:
        rep = evaluate_policy_file(cfg, policy_path, opp, cfg["eval"]["games"],
                                   seed=cfg["seed"] + 7919, workers=cfg["eval"]["workers"])
        for tag, value in evaluation_scalars(rep, cfg["game"], opp).items():
            writer.add_scalar(tag, value, samples)
        line.append(evaluation_line(rep, opp))
    if verbose:
        print(" | ".join(line), flush=True)


def _learner(rep: dict) -> str:
    """The evaluated player: the policy that is not the baseline (a policy file or a bot)."""
    return next(p for p in rep["policies"] if p != rep["baseline"])


def evaluation_scalars(rep: dict, game: str, opponent: str, group: str = "eval") -> dict:
    """The TensorBoard scalars of one evaluation of the learner against ``opponent``.

    ``<group>/vs_<opp>/`` mean score, win rate, score and win-rate difference
    against the opponent, each with its 95% interval (``_lo``/``_hi``), and
    ``<game>/<group>_vs_<opp>_<metric>`` for the game's own metrics.  A
    value the evaluation could not estimate (too few deals) is left out.
    """
    me = _learner(rep)
    mine = rep["policies"][me]
    versus = rep["versus_baseline"][me]
    opp = opponent.split(":")[0]
    tag = f"{group}/vs_{opp}"
    out: dict[str, float] = {}

    def put(name: str, stat: dict | None) -> None:
        if stat is None:
            return
        out[f"{name}"] = stat["mean"]
        if stat.get("lo") is not None:
            out[f"{name}_lo"], out[f"{name}_hi"] = stat["lo"], stat["hi"]

    put(f"{tag}/mean_score", mine["score"])
    put(f"{tag}/win_rate", mine["win_rate"])
    put(f"{tag}/score_diff", versus["score_difference"])
    put(f"{tag}/win_rate_diff", versus["win_rate_difference"])
    prefix = "" if group == "eval" else f"{group}_"
    for k, v in mine["metrics"].items():
        put(f"{game}/{prefix}vs_{opp}_{k}", v)
    return out


def evaluation_line(rep: dict, opponent: str) -> str:
    from stichzoo.training.evaluation.report import format_interval

    me = _learner(rep)
    versus = rep["versus_baseline"][me]
    return (f"vs {opponent}: score diff {format_interval(versus['score_difference'], '+.2f')}, "
            f"win-rate diff {format_interval(versus['win_rate_difference'], '+.3f')}")


def final_evaluation(run_dir: str, games: int | None = None, workers: int = 0,
                     progress: bool = True) -> dict[str, dict]:
    """The run's policy against each eval opponent, ``eval.final_games`` games each."""
    from stichzoo.training.evaluation.report import format_report, write_outputs

    paths = RunPaths(run_dir)
    cfg = config_mod.load(paths.config)
    games = games or cfg["eval"]["final_games"]
    steps = int(paths.read_summary().get("steps", 0))
    out = {}
    writer = _summary_writer(os.path.join(paths.tb, "final"))
    for opp in cfg["eval"]["opponents"]:
        rep = evaluate_policy_file(cfg, paths.policy, opp, games,
                                   seed=cfg["seed"] + 104729, workers=workers, progress=progress)
        write_outputs(rep, os.path.join(paths.eval, f"final_vs_{opp.split(':')[0]}"))
        print(format_report(rep))
        if writer is not None:
            for tag, value in evaluation_scalars(rep, cfg["game"], opp, group="final").items():
                writer.add_scalar(tag, value, steps)
        out[opp] = rep
    if writer is not None:
        writer.close()
    return out


def _summary_writer(log_dir: str):
    """TensorBoard's own writer for the final evaluation (beside the trainer's run logs)."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:  # pragma: no cover - tensorboard is in the train extra
        return None
    return SummaryWriter(log_dir=log_dir)


__all__ = ["evaluate_policy_file", "evaluation_line", "evaluation_scalars", "final_evaluation",
           "periodic_evaluation"]
