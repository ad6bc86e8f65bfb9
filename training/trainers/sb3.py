"""Self-play training with sb3-contrib's MaskablePPO (``algo: maskable_ppo``).

The learner holds one seat of :class:`~stichzoo.training.gym.single_seat.SingleSeatEnv`
(the Gymnasium view), the other seats are drawn from the opponent pool, which
self-play snapshots of the learner join as training goes.  What is logged:
the tags every trainer logs (docs/training.md): ``charts/`` episode return,
length and win share; ``losses/`` and ``time/`` (SB3's own ``train/`` names
translated by :mod:`stichzoo.training.tags`, ``losses/entropy`` as +entropy);
``eval/vs_<opponent>/`` (:mod:`stichzoo.training.evaluation.run_eval`); ``<game>/`` the
game's own metrics from evaluation and from training episodes; the config as
text.  The run folder is :class:`~stichzoo.training.runs.RunPaths`.
"""

from __future__ import annotations

import glob
import os
import time

from stichzoo.training.config import game_of
from stichzoo.training.evaluation.run_eval import (
    evaluate_policy_file,
    evaluation_line,
    evaluation_scalars,
)
from stichzoo.training.runs import Budget, RunPaths, budget_bar, config_text, new_run_dir
from stichzoo.training.tags import sb3_logger


def make_env_fn(cfg: dict, rank: int):
    """The constructor of env ``rank`` (SB3's vector envs build each env in its process)."""

    def _init():
        import torch

        torch.set_num_threads(1)
        from stichzoo.training.gym.single_seat import OpponentPool, SingleSeatEnv

        env = SingleSeatEnv(cfg["game"], options=cfg["options"],
                            opponents=OpponentPool(cfg["opponents"], keep=cfg["selfplay"]["keep"]),
                            reward=cfg["env"]["reward"],
                            reward_scale=float(cfg["env"]["reward_scale"]))
        env.reset(seed=cfg["seed"] * 1000 + rank)
        return env

    return _init


def build_vec_env(cfg: dict):
    """``train.n_envs`` single-seat envs, in processes (``subproc``) or in this one."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    fns = [make_env_fn(cfg, i) for i in range(cfg["train"]["n_envs"])]
    if cfg["train"]["vec_env"] == "subproc" and len(fns) > 1:
        vec = SubprocVecEnv(fns, start_method="fork")
    else:
        vec = DummyVecEnv(fns)
    vec.seed(cfg["seed"])
    return VecMonitor(vec)


def train_sb3(cfg: dict, run_dir: str | None = None, resume: bool = False,
              progress_bar: bool = True, verbose: bool = True) -> str:
    """Train per ``cfg`` with MaskablePPO; returns the run folder."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from stichzoo.policies.base import encoder_for
    from stichzoo.policies.runtimes.networks import policy_setup
    from stichzoo.policies.runtimes.torch_policy import save_policy

    torch.set_num_threads(cfg["train"]["torch_threads"])
    run_start = time.time()  # the time budget (train.max_minutes) includes the warm start
    game = game_of(cfg)
    run_dir = run_dir or new_run_dir(cfg)
    paths = RunPaths(run_dir)
    paths.make()
    paths.write_config(cfg)

    vec = build_vec_env(cfg)
    t = cfg["train"]
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
        from stichzoo.training.trainers.pretrain import warm_start

        pretrain_stats = warm_start(model, cfg, verbose=verbose)
    # (after the warm start: its final stats are logged once, at step 0, as the batch trainer's)
    model.set_logger(sb3_logger(os.path.join(paths.tb, "maskable_ppo")))
    for snap in sorted(glob.glob(os.path.join(paths.snapshots, "*.pt")))[-cfg["selfplay"]["keep"]:]:
        vec.env_method("add_snapshot", snap)

    class Loop(BaseCallback):
        """Checkpoints, self-play snapshots, evaluation and the TensorBoard extras."""

        def __init__(self):
            super().__init__()
            self.bar = None
            self.rollout_time = 0.0
            self.update_time = 0.0
            self._mark = time.time()
            self.next_ckpt = self.next_snap = self.next_eval = 0

        def _on_training_start(self) -> None:
            now = self.num_timesteps
            self.bar = budget_bar(progress_bar, budget, now)
            self.next_ckpt = now + t["checkpoint_every"]
            self.next_snap = now + (cfg["selfplay"]["snapshot_every"] or 10**18)
            self.next_eval = now + (cfg["eval"]["every"] or 10**18)
            for fmt in self.logger.output_formats:
                writer = getattr(fmt, "writer", None)
                if writer is not None:
                    writer.add_text("config", config_text(cfg), 0)
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
            if self.bar:
                self.bar.update(n)
            return not budget.time_up()

        def _on_training_end(self) -> None:
            if self.bar:
                self.bar.close()

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

    budget = Budget.of(cfg, run_start)
    loop = Loop()
    start = time.time()
    remaining = max(0, t["total_timesteps"] - model.num_timesteps)
    model.learn(total_timesteps=remaining, callback=loop, reset_num_timesteps=not latest)
    wall = time.time() - start
    loop.save_checkpoint()
    vec.close()
    steps = model.num_timesteps
    total = loop.rollout_time + loop.update_time
    summary = {"steps": steps, "wall_seconds": time.time() - run_start,
               "ppo_seconds": wall, "pretrain": pretrain_stats,
               "fps": (steps - (latest[1] if latest else 0)) / max(wall, 1e-9),
               "rollout_share": loop.rollout_time / total if total else float("nan"),
               **budget.outcome(steps)}
    paths.write_summary(summary)
    if verbose:
        print(f"trained {steps:,} of {t['total_timesteps']:,} steps in "
              f"{summary['wall_seconds'] / 60:.1f} min ({summary['fps']:.0f} fps, "
              f"rollout {summary['rollout_share']:.0%} of the time); policy: {paths.policy}")
    budget.announce(steps)
    return run_dir


def policy_from_checkpoint(checkpoint: str, cfg: dict, out: str) -> str:
    """Write the policy file (``.pt``) of a PPO checkpoint (``model_<steps>.zip``)."""
    from sb3_contrib import MaskablePPO

    from stichzoo.policies.runtimes.networks import PhaseTrunkPolicy
    from stichzoo.policies.runtimes.torch_policy import save_policy

    model = MaskablePPO.load(checkpoint, device="cpu",
                             custom_objects={"policy_class": PhaseTrunkPolicy}
                             if cfg["train"]["heads"] == "phase" else None)
    save_policy(model.policy, game_of(cfg), out, {"checkpoint": os.path.basename(checkpoint)})
    return out


__all__ = ["build_vec_env", "make_env_fn", "policy_from_checkpoint", "train_sb3"]
