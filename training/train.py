"""Self-play training with sb3-contrib's MaskablePPO, driven by one YAML config.

    stichzoo train configs/wizard.yaml                      # a new run
    stichzoo train configs/wizard.yaml --set train.total_timesteps=20000 --set seed=1
    stichzoo train --resume runs/wizard__maskable_ppo__0__20261130-031500

A run lives in ``runs/<game>__<algo>__<seed>__<time>/``: ``config.yaml`` (the
checked config, defaults filled in), ``tb/`` (TensorBoard), ``checkpoints/``
(full PPO state, for resuming), ``snapshots/`` (frozen learner policies for
the self-play pool), ``policy.pt`` (the latest policy, loadable as
``ppo:path=...``) and ``eval/`` (tournament reports).

What is logged, in stable TensorBoard groups: ``charts/`` episode return,
length and win share; ``eval/vs_<opponent>/`` mean score, win rate, score
difference to the opponent with their 95% intervals; ``<game>/`` the game's
own metrics from evaluation and from training episodes; SB3's ``train/``
(losses, entropy, KL, clip fraction), ``time/`` (fps) and ``rollout/``; the
config as text.
"""

from __future__ import annotations

import glob
import os
import re
import time
from dataclasses import dataclass

import numpy as np

from stichzoo.training import config as config_mod


@dataclass
class RunPaths:
    root: str

    @property
    def tb(self) -> str:
        return os.path.join(self.root, "tb")

    @property
    def checkpoints(self) -> str:
        return os.path.join(self.root, "checkpoints")

    @property
    def snapshots(self) -> str:
        return os.path.join(self.root, "snapshots")

    @property
    def eval(self) -> str:
        return os.path.join(self.root, "eval")

    @property
    def policy(self) -> str:
        return os.path.join(self.root, "policy.pt")

    @property
    def config(self) -> str:
        return os.path.join(self.root, "config.yaml")

    def make(self) -> None:
        for d in (self.root, self.checkpoints, self.snapshots, self.eval):
            os.makedirs(d, exist_ok=True)

    def latest_checkpoint(self) -> tuple[str, int] | None:
        found = []
        for path in glob.glob(os.path.join(self.checkpoints, "model_*.zip")):
            m = re.search(r"model_(\d+)\.zip$", path)
            if m:
                found.append((int(m.group(1)), path))
        if not found:
            return None
        steps, path = max(found)
        return path, steps


def make_env_fn(cfg: dict, rank: int):
    def _init():
        import torch

        torch.set_num_threads(1)
        from stichzoo.training.single_seat import OpponentPool, SingleSeatEnv

        env = SingleSeatEnv(cfg["game"], options=cfg["options"],
                            opponents=OpponentPool(cfg["opponents"], keep=cfg["selfplay"]["keep"]),
                            reward=cfg["env"]["reward"],
                            reward_scale=float(cfg["env"]["reward_scale"]))
        env.reset(seed=cfg["seed"] * 1000 + rank)
        return env

    return _init


def build_vec_env(cfg: dict):
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    fns = [make_env_fn(cfg, i) for i in range(cfg["train"]["n_envs"])]
    if cfg["train"]["vec_env"] == "subproc" and len(fns) > 1:
        vec = SubprocVecEnv(fns, start_method="fork")
    else:
        vec = DummyVecEnv(fns)
    vec.seed(cfg["seed"])
    return VecMonitor(vec)


def game_of(cfg: dict):
    from stichzoo import envs
    from stichzoo.envs.core.game import build_options

    cls = envs.game_class(cfg["game"])
    return cls(build_options(cls.Options, cfg["game"], cfg["options"]))


def evaluate_policy_file(cfg: dict, policy_path: str, opponent: str, games: int, seed: int,
                         workers: int = 0, progress: bool = False) -> dict:
    """Duplicate tournament: the learner in one seat, ``opponent`` in the others."""
    from stichzoo.training.evaluate import TournamentConfig, run_tournament, seat_assignments

    n = game_of(cfg).num_players
    lineup = [f"ppo:path={policy_path}"] + [opponent] * (n - 1)
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


def new_run_dir(cfg: dict) -> str:
    """``runs/<game>__<algo>__<seed>__<time>``, unique even for runs started in one second."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = os.path.join("runs", f"{cfg['game']}__{cfg['algo']}__{cfg['seed']}__{stamp}")
    run_dir, suffix = base, 1
    while os.path.exists(run_dir):
        suffix += 1
        run_dir = f"{base}-{suffix}"
    return run_dir


def _learner(rep: dict) -> str:
    return next(p for p in rep["policies"] if p.startswith("ppo"))


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
    from stichzoo.training.evaluate import format_interval

    me = _learner(rep)
    versus = rep["versus_baseline"][me]
    return (f"vs {opponent}: score diff {format_interval(versus['score_difference'], '+.2f')}, "
            f"win-rate diff {format_interval(versus['win_rate_difference'], '+.3f')}")


def train(cfg: dict, run_dir: str | None = None, resume: bool = False,
          progress_bar: bool = True, verbose: bool = True) -> str:
    """Train per ``cfg``; returns the run folder."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from stichzoo.policies.learned import save_policy
    from stichzoo.policies.networks import policy_setup

    if cfg["algo"] == "batch_ppo":
        from stichzoo.training.batch_ppo import train_batch

        return train_batch(cfg, run_dir=run_dir, resume=resume, progress_bar=progress_bar,
                           verbose=verbose)
    torch.set_num_threads(cfg["train"]["torch_threads"])
    run_start = time.time()  # the time budget (train.max_minutes) includes the warm start
    game = game_of(cfg)
    run_dir = run_dir or new_run_dir(cfg)
    paths = RunPaths(run_dir)
    paths.make()
    with open(paths.config, "w") as f:
        f.write(config_mod.dump(cfg))

    vec = build_vec_env(cfg)
    t = cfg["train"]
    from stichzoo.policies.base import encoder_for

    policy_cls, policy_kwargs = policy_setup(t["heads"], t["net_arch"], encoder_for(game).layout)
    latest = paths.latest_checkpoint() if resume else None
    if latest and latest[1] >= t["total_timesteps"]:
        vec.close()
        raise ValueError(f"{run_dir} has already trained {latest[1]} steps of "
                         f"train.total_timesteps={t['total_timesteps']}; raise it to go on")
    if latest:
        model = MaskablePPO.load(latest[0], env=vec, tensorboard_log=paths.tb,
                                 custom_objects={"policy_class": policy_cls})
        if verbose:
            print(f"resuming {run_dir} from {latest[0]} ({latest[1]} steps)")
    else:
        model = MaskablePPO(
            policy_cls, vec, learning_rate=t["learning_rate"], n_steps=t["n_steps"],
            batch_size=t["batch_size"], n_epochs=t["n_epochs"], gamma=t["gamma"],
            gae_lambda=t["gae_lambda"], clip_range=t["clip_range"], ent_coef=t["ent_coef"],
            vf_coef=t["vf_coef"], max_grad_norm=t["max_grad_norm"], target_kl=t["target_kl"],
            policy_kwargs=policy_kwargs, tensorboard_log=paths.tb, seed=cfg["seed"], verbose=0,
            device="cpu")
    pretrain_stats = None
    if not latest and cfg["pretrain"]["steps"] > 0:
        from stichzoo.training.pretrain import warm_start

        pretrain_stats = warm_start(model, cfg, verbose=verbose)
    for snap in sorted(glob.glob(os.path.join(paths.snapshots, "*.pt")))[-cfg["selfplay"]["keep"]:]:
        vec.env_method("add_snapshot", snap)

    class Loop(BaseCallback):
        """Checkpoints, self-play snapshots, evaluation and the TensorBoard extras."""

        def __init__(self):
            super().__init__()
            self.start = run_start
            self.rollout_time = 0.0
            self.update_time = 0.0
            self._mark = time.time()
            self.next_ckpt = self.next_snap = self.next_eval = 0

        def _on_training_start(self) -> None:
            now = self.num_timesteps
            self.next_ckpt = now + t["checkpoint_every"]
            self.next_snap = now + (cfg["selfplay"]["snapshot_every"] or 10**18)
            self.next_eval = now + (cfg["eval"]["every"] or 10**18)
            for fmt in self.logger.output_formats:
                writer = getattr(fmt, "writer", None)
                if writer is not None:
                    writer.add_text("config", "```\n" + config_mod.dump(cfg) + "\n```", 0)
                    for key, value in (pretrain_stats or {}).items():
                        writer.add_scalar(f"pretrain/{key}", value, 0)

        def _on_rollout_start(self) -> None:
            self.update_time += time.time() - self._mark
            self._mark = time.time()

        def _on_rollout_end(self) -> None:
            self.rollout_time += time.time() - self._mark
            self._mark = time.time()
            total = self.rollout_time + self.update_time
            if total > 0:
                self.logger.record("time/rollout_share", self.rollout_time / total)

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                ep = info.get("episode")
                if ep:
                    self.logger.record_mean("charts/episode_return", ep["r"])
                    self.logger.record_mean("charts/episode_length", ep["l"])
                if "win_share" in info:
                    self.logger.record_mean("charts/win_share", info["win_share"])
                    for k, v in (info.get("metrics") or {}).items():
                        self.logger.record_mean(f"{cfg['game']}/train_{k}", v)
            n = self.num_timesteps
            if n >= self.next_ckpt:
                self.save_checkpoint()
                self.next_ckpt = n + t["checkpoint_every"]
            if n >= self.next_snap:
                snap = os.path.join(paths.snapshots, f"step_{n:010d}.pt")
                save_policy(self.model.policy, game, snap, {"steps": n})
                self.training_env.env_method("add_snapshot", snap)
                self.next_snap = n + cfg["selfplay"]["snapshot_every"]
            if n >= self.next_eval:
                self.evaluate(cfg["eval"]["games"])
                self.next_eval = n + cfg["eval"]["every"]
            if (time.time() - self.start) / 60 > t["max_minutes"]:
                if verbose:
                    print(f"time limit of {t['max_minutes']} min reached at {n} steps")
                return False
            return True

        def save_checkpoint(self) -> None:
            n = self.num_timesteps
            self.model.save(os.path.join(paths.checkpoints, f"model_{n}.zip"))
            save_policy(self.model.policy, game, paths.policy, {"steps": n, "run": run_dir})

        def evaluate(self, games: int) -> dict:
            n = self.num_timesteps
            path = os.path.join(paths.eval, "policy_under_eval.pt")
            save_policy(self.model.policy, game, path, {"steps": n})
            line = [f"step {n}:"]
            results = {}
            for opp in cfg["eval"]["opponents"]:
                rep = evaluate_policy_file(cfg, path, opp, games, seed=cfg["seed"] + 7919,
                                           workers=cfg["eval"]["workers"])
                results[opp] = rep
                for tag, value in evaluation_scalars(rep, cfg["game"], opp).items():
                    self.logger.record(tag, value)
                line.append(evaluation_line(rep, opp))
            self.logger.dump(n)
            if verbose:
                print(" | ".join(line), flush=True)
            return results

    loop = Loop()
    start = time.time()
    remaining = max(0, t["total_timesteps"] - model.num_timesteps)
    model.learn(total_timesteps=remaining, callback=loop, reset_num_timesteps=not latest,
                tb_log_name="ppo", progress_bar=progress_bar)
    wall = time.time() - start
    loop.save_checkpoint()
    vec.close()
    steps = model.num_timesteps
    total = loop.rollout_time + loop.update_time
    summary = {"steps": steps, "wall_seconds": time.time() - run_start,
               "ppo_seconds": wall, "pretrain": pretrain_stats,
               "fps": (steps - (latest[1] if latest else 0)) / max(wall, 1e-9),
               "rollout_share": loop.rollout_time / total if total else float("nan")}
    with open(os.path.join(run_dir, "train_summary.yaml"), "w") as f:
        f.write(config_mod.dump(summary))
    if verbose:
        print(f"trained {steps} steps in {summary['wall_seconds'] / 60:.1f} min "
              f"({summary['fps']:.0f} fps, "
              f"rollout {summary['rollout_share']:.0%} of the time); policy: {paths.policy}")
    return run_dir


def policy_from_checkpoint(checkpoint: str, cfg: dict, out: str) -> str:
    """Write the policy file (``.pt``) of a PPO checkpoint (``model_<steps>.zip``)."""
    from sb3_contrib import MaskablePPO

    from stichzoo.policies.learned import save_policy
    from stichzoo.policies.networks import PhaseTrunkPolicy

    model = MaskablePPO.load(checkpoint, device="cpu",
                             custom_objects={"policy_class": PhaseTrunkPolicy}
                             if cfg["train"]["heads"] == "phase" else None)
    save_policy(model.policy, game_of(cfg), out, {"checkpoint": os.path.basename(checkpoint)})
    return out


def final_evaluation(run_dir: str, games: int | None = None, workers: int = 0,
                     progress: bool = True) -> dict[str, dict]:
    """The run's policy against each eval opponent, ``eval.final_games`` games each."""
    from stichzoo.training.evaluate import format_report, write_outputs

    cfg = config_mod.load(os.path.join(run_dir, "config.yaml"))
    games = games or cfg["eval"]["final_games"]
    paths = RunPaths(run_dir)
    steps = int(_read_yaml(os.path.join(run_dir, "train_summary.yaml")).get("steps", 0))
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


def _read_yaml(path: str) -> dict:
    import yaml

    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return yaml.safe_load(f) or {}


def _summary_writer(log_dir: str):
    """TensorBoard's own writer for the final evaluation (beside SB3's run logs)."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:  # pragma: no cover - tensorboard is in the train extra
        return None
    return SummaryWriter(log_dir=log_dir)


__all__ = ["RunPaths", "evaluation_scalars", "final_evaluation", "np", "train"]
