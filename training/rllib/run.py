"""Train with RLlib into the run folder every trainer writes (``algo: rllib_ppo``).

    stichzoo train --backend rllib configs/wizard.yaml                    # a local Ray
    stichzoo train --backend rllib configs/wizard.yaml --address HEAD:6379  # a cluster

The folder is the one :class:`stichzoo.training.train.RunPaths` lays out, so
``stichzoo export runs/<run>``, ``--final-eval`` and ``ppo:path=`` read it
unchanged: ``config.yaml``; ``policy.pt`` (the learner module's SB3 network,
written by :func:`~stichzoo.policies.runtimes.torch_policy.save_policy`); ``snapshots/`` (the
league's frozen copies, as policy files); ``checkpoints/rllib_<samples>/``
(RLlib's own ``Algorithm.save_to_path``, for ``--resume``); ``eval/``;
``tb/rllib`` (TensorBoard, under the tags the other trainers log, docs/training.md:
``charts/``, ``<game>/train_<metric>``, ``losses/``, ``time/``, ``eval/``);
``train_summary.yaml`` - which also says which cluster nodes sampled how much.

``train.total_timesteps`` counts learner samples (decisions of the
``learner`` module), as in the batch trainer; a snapshot's or a rule bot's
decision is not one.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import re
import time
from typing import Any

from stichzoo.training.rllib import require_ray

require_ray()

import ray  # noqa: E402
from ray.rllib.utils.metrics import ENV_RUNNER_SAMPLING_TIMER, LEARNER_UPDATE_TIMER  # noqa: E402

from stichzoo.training import config as config_mod  # noqa: E402
from stichzoo.training.rllib.algo import ppo_config  # noqa: E402
from stichzoo.training.rllib.callbacks import flat_metrics, learner_decisions  # noqa: E402
from stichzoo.training.rllib.env import LEARNER, snapshot_module  # noqa: E402
from stichzoo.training.rllib.learner import APPROX_KL, CLIP_FRACTION  # noqa: E402
from stichzoo.training.rllib.module import sb3_policy  # noqa: E402

PROGRESS = "stichzoo_progress.json"  # beside RLlib's files in each checkpoint
_PREFIX = "policy."  # the SB3 policy inside the RLModule


# -- Ray -------------------------------------------------------------------------------

def connect(address: str | None) -> bool:
    """Join the cluster at ``address`` (or ``RAY_ADDRESS``), else start a new local Ray.

    Without an address the run gets a Ray of its own (``address="local"``),
    never whatever ``ray start`` left on this machine (``--address auto``
    joins that); it has no dashboard (no web port for a training run) and
    Ray's default token authentication.  Returns whether this call started
    (and so must end) the Ray connection; an initialised Ray is used as it is.
    """
    if ray.is_initialized():
        return False
    quiet = {"logging_level": "ERROR", "log_to_driver": True}
    if address or os.environ.get("RAY_ADDRESS"):
        ray.init(address=address, **quiet)
    else:
        ray.init(address="local", include_dashboard=False, **quiet)
    return True


# -- weights between RLlib and policy files ----------------------------------------------

def learner_weights(algo) -> dict:
    """The learner module's state (numpy arrays) from the learner group."""
    return algo.learner_group.get_weights(module_ids=[LEARNER])[LEARNER]


def to_sb3(cfg: dict, weights: dict):
    """An SB3 policy holding the module's weights: what ``policy.pt`` is made of."""
    import torch as th

    t = cfg["train"]
    policy = sb3_policy(cfg["game"], cfg["options"], t["net_arch"], t["heads"])
    state = {k[len(_PREFIX):]: th.as_tensor(v) for k, v in weights.items()
             if k.startswith(_PREFIX)}
    policy.load_state_dict(state)
    return policy


def from_sb3(policy) -> dict:
    return {_PREFIX + k: v.detach().cpu().numpy() for k, v in policy.state_dict().items()}


def set_module_weights(algo, module_id: str, weights: dict) -> None:
    """Put weights into a module on the learners and ship them to every env runner."""
    algo.learner_group.set_weights({module_id: weights})
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group,
                                       policies=[module_id], inference_only=True,
                                       timeout_seconds=None)


def tell_envs_live_snapshots(algo, count: int) -> None:
    """Every env (on every node) may now seat ``count`` snapshot modules for ``self``."""
    def _set(runner, n=count):
        for env in getattr(getattr(runner, "env", None), "envs", None) or []:
            env.unwrapped.set_live_snapshots(n)

    algo.env_runner_group.foreach_env_runner(_set, local_env_runner=True)


def sample_sources(algo) -> list[dict[str, Any]]:
    """Per env runner: the Ray node it runs on and the decisions its envs served."""
    def _report(runner):
        decisions: dict[str, int] = {}
        for env in getattr(getattr(runner, "env", None), "envs", None) or []:
            for module, n in env.unwrapped.decisions.items():
                decisions[module] = decisions.get(module, 0) + n
        return {"node_id": ray.get_runtime_context().get_node_id(),
                "node_ip": ray.util.get_node_ip_address(), "decisions": decisions}

    return [r for r in algo.env_runner_group.foreach_env_runner(_report, local_env_runner=True)
            if r["decisions"]]


# -- checkpoints -------------------------------------------------------------------------

def latest_checkpoint(checkpoints: str) -> tuple[str, int] | None:
    found = []
    for path in glob.glob(os.path.join(checkpoints, "rllib_*")):
        m = re.search(r"rllib_(\d+)$", path)
        if m and os.path.exists(os.path.join(path, PROGRESS)):
            found.append((int(m.group(1)), path))
    if not found:
        return None
    steps, path = max(found)
    return path, steps


# -- the loop --------------------------------------------------------------------------------

class Progress:
    """What the loop counts, saved with each checkpoint so ``--resume`` goes on from it."""

    def __init__(self, samples: int = 0, iterations: int = 0, snapshots: int = 0):
        self.samples, self.iterations, self.snapshots = samples, iterations, snapshots

    def as_dict(self) -> dict[str, int]:
        return {"samples": self.samples, "iterations": self.iterations,
                "snapshots": self.snapshots}


def _warm_start(cfg: dict, algo, verbose: bool) -> dict[str, float]:
    """The batch trainer's warm start (teacher in every seat), then into the learner module."""
    from stichzoo.training.trainers.labels import teacher_data
    from stichzoo.training.trainers.pretrain import behaviour_clone

    p, t = cfg["pretrain"], cfg["train"]
    start = time.time()
    data = teacher_data(cfg, p["steps"], seed=cfg["seed"] + 31337)
    if verbose:
        print(f"pretrain: {len(data['action'])} {p['teacher']} decisions (every seat) "
              f"in {time.time() - start:.0f} s", flush=True)
    policy = sb3_policy(cfg["game"], cfg["options"], t["net_arch"], t["heads"])
    stats = behaviour_clone(policy, data, p["epochs"], p["batch_size"], p["learning_rate"],
                            verbose=verbose, schedule=p["lr_schedule"])
    stats.update(seconds=time.time() - start, samples=float(len(data["action"])))
    set_module_weights(algo, LEARNER, from_sb3(policy))
    return stats


#: RLlib's learner results of the learner module -> our tags (docs/training.md), same signs:
#: RLlib's ``policy_loss`` is minus the clipped surrogate and ``entropy`` +entropy, as ours
LEARNER_TAGS = {"policy_loss": "losses/policy_loss", "vf_loss": "losses/value_loss",
                "entropy": "losses/entropy", "vf_explained_var": "losses/explained_variance",
                APPROX_KL: "losses/approx_kl", CLIP_FRACTION: "losses/clip_fraction",
                "gradients_default_optimizer_global_norm": "losses/grad_norm",
                "default_optimizer_learning_rate": "charts/learning_rate"}


def update_scalars(result: dict) -> dict[str, float]:
    """The learner module's update, and the iteration's sampling share, as our tags."""
    learner = result.get("learners", {}).get(LEARNER, {})
    out = {ours: float(learner[theirs]) for theirs, ours in LEARNER_TAGS.items()
           if theirs in learner}
    timers = result.get("timers", {})
    sampling, update = (float(timers.get(k, 0.0)) for k in (ENV_RUNNER_SAMPLING_TIMER,
                                                           LEARNER_UPDATE_TIMER))
    if sampling + update > 0:
        out["time/rollout_share"] = sampling / (sampling + update)
    return out


def train_rllib(cfg: dict, run_dir: str | None = None, resume: bool = False,
                address: str | None = None, progress_bar: bool = True,
                verbose: bool = True) -> str:
    """Train per ``cfg`` with RLlib (local Ray, or the cluster at ``address``); the run folder."""
    import torch as th
    from torch.utils.tensorboard import SummaryWriter

    from stichzoo.policies.runtimes.torch_policy import save_policy
    from stichzoo.training.config import game_of
    from stichzoo.training.evaluation.run_eval import periodic_evaluation
    from stichzoo.training.runs import Budget, RunPaths, budget_bar, new_run_dir

    t = cfg["train"]
    th.set_num_threads(t["torch_threads"])
    run_start = time.time()
    game = game_of(cfg)
    run_dir = run_dir or new_run_dir(cfg)
    paths = RunPaths(run_dir)
    latest = latest_checkpoint(paths.checkpoints) if resume else None
    if latest and latest[1] >= t["total_timesteps"]:
        raise ValueError(f"{run_dir} has already trained {latest[1]} learner samples of "
                         f"train.total_timesteps={t['total_timesteps']}; raise it to go on")
    paths.make()
    with open(paths.config, "w") as f:
        f.write(config_mod.dump(cfg))
    started = connect(address)
    algo = None
    try:
        algo = ppo_config(cfg).build_algo()
        progress, pretrain_stats = Progress(), None
        if latest:
            algo.restore_from_path(latest[0])
            with open(os.path.join(latest[0], PROGRESS)) as f:
                progress = Progress(**json.load(f))
            algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group,
                                               inference_only=True, timeout_seconds=None)
            if verbose:
                print(f"resuming {run_dir} from {latest[0]} ({progress.samples} samples)")
        elif cfg["pretrain"]["steps"] > 0:
            pretrain_stats = _warm_start(cfg, algo, verbose)
        keep = cfg["selfplay"]["keep"]
        tell_envs_live_snapshots(algo, min(progress.snapshots, keep))
        writer = SummaryWriter(os.path.join(paths.tb, "rllib"))
        if not latest:
            writer.add_text("config", "```\n" + config_mod.dump(cfg) + "\n```", 0)
            for key, value in (pretrain_stats or {}).items():
                writer.add_scalar(f"pretrain/{key}", value, 0)

        def save_policy_file(path: str, extra: dict) -> None:
            save_policy(to_sb3(cfg, learner_weights(algo)), game, path, extra)

        def save_checkpoint() -> None:
            ckpt = os.path.join(paths.checkpoints, f"rllib_{progress.samples}")
            algo.save_to_path(ckpt)
            with open(os.path.join(ckpt, PROGRESS), "w") as f:
                json.dump(progress.as_dict(), f)
            save_policy_file(paths.policy, {"steps": progress.samples, "run": run_dir,
                                            "algo": "rllib_ppo"})

        snap_every = cfg["selfplay"]["snapshot_every"]
        next_ckpt = progress.samples + t["checkpoint_every"]
        next_snap = progress.samples + snap_every if snap_every else None
        next_eval = progress.samples + cfg["eval"]["every"] if cfg["eval"]["every"] else None
        budget = Budget.of(cfg, run_start)
        bar = budget_bar(progress_bar, budget, progress.samples)
        loop_start, loop_samples, env_steps = time.time(), progress.samples, 0
        while progress.samples < t["total_timesteps"]:
            if budget.time_up():
                break
            result = algo.train()
            new = learner_decisions(result)
            env_steps += int(result.get("env_runners", {}).get("num_env_steps_sampled", 0))
            progress.samples += new
            progress.iterations += 1
            if bar:
                bar.update(progress.samples)
            n = progress.samples
            elapsed = max(1e-9, time.time() - loop_start)
            writer.add_scalar("time/fps", (n - loop_samples) / elapsed, n)
            writer.add_scalar("time/env_steps_per_s", env_steps / elapsed, n)
            for tag, value in {**flat_metrics(result), **update_scalars(result)}.items():
                writer.add_scalar(tag, value, n)
            if n >= next_ckpt:
                save_checkpoint()
                next_ckpt = n + t["checkpoint_every"]
            if next_snap is not None and n >= next_snap:
                slot = progress.snapshots % keep
                weights = learner_weights(algo)
                set_module_weights(algo, snapshot_module(slot), weights)
                progress.snapshots += 1
                tell_envs_live_snapshots(algo, min(progress.snapshots, keep))
                save_policy(to_sb3(cfg, weights), game,
                            os.path.join(paths.snapshots, f"step_{n:010d}.pt"),
                            {"steps": n, "module": snapshot_module(slot)})
                next_snap = n + snap_every
            if next_eval is not None and n >= next_eval and not budget.time_up():
                path = os.path.join(paths.eval, "policy_under_eval.pt")
                save_policy_file(path, {"steps": n})
                periodic_evaluation(cfg, path, writer, n, verbose)
                next_eval = n + cfg["eval"]["every"]
        if bar:
            bar.close()
        save_checkpoint()
        writer.close()
        elapsed = max(1e-9, time.time() - loop_start)
        summary = {"algo": "rllib_ppo", "steps": progress.samples,
                   "iterations": progress.iterations, "wall_seconds": time.time() - run_start,
                   "pretrain": pretrain_stats,
                   "fps": (progress.samples - loop_samples) / elapsed,
                   "env_steps_per_s": env_steps / elapsed,
                   "ray": {"version": ray.__version__, "nodes": len(ray.nodes()),
                           "num_env_runners": cfg["rllib"]["num_env_runners"],
                           "num_learners": cfg["rllib"]["num_learners"]},
                   "sample_sources": sample_sources(algo), **budget.outcome(progress.samples)}
        with open(os.path.join(run_dir, "train_summary.yaml"), "w") as f:
            f.write(config_mod.dump(summary))
        if verbose:
            print(f"trained {progress.samples:,} of {t['total_timesteps']:,} learner samples in "
                  f"{summary['wall_seconds'] / 60:.1f} min ({summary['fps']:.0f} samples/s, "
                  f"{summary['env_steps_per_s']:.0f} env steps/s on "
                  f"{summary['ray']['nodes']} node(s)); policy: {paths.policy}")
        budget.announce(progress.samples)
    finally:
        if algo is not None:
            algo.stop()
            with contextlib.suppress(OSError):  # RLlib's empty ~/ray_results/<time> folder
                os.rmdir(algo.logdir)
        if started:
            ray.shutdown()
    return run_dir


__all__ = ["connect", "latest_checkpoint", "train_rllib"]
