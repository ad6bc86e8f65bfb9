"""Train a policy from one YAML config: the config's ``algo`` picks the trainer.

    stichzoo train configs/wizard.yaml                      # a new run
    stichzoo train configs/wizard.yaml --set train.total_timesteps=20000 --set seed=1
    stichzoo train --resume runs/wizard__maskable_ppo__0__20261130-031500

Three trainers write the same run folder (:mod:`stichzoo.training.runs`) and
evaluate the same way (:mod:`stichzoo.training.evaluation.run_eval`):

* ``maskable_ppo`` - sb3-contrib's MaskablePPO on the single-seat Gymnasium
  view (:mod:`stichzoo.training.trainers.sb3`);
* ``batch_ppo`` - self-play PPO on the batch engine, every seat a sample
  (:mod:`stichzoo.training.trainers.ppo`), after the stages its config names -
  warm start, start bot, expert iteration (:mod:`stichzoo.training.trainers.pipeline`);
* ``rllib_ppo`` - RLlib's multi-agent PPO, on a local Ray or a cluster
  (:mod:`stichzoo.training.rllib.run`).
"""

from __future__ import annotations

#: names this module held before the split -> the module that holds them now (still
#: importable from here, loaded on first use: the SB3 loop imports torch)
_MOVED = {
    "RunPaths": "runs", "new_run_dir": "runs",
    "evaluate_policy_file": "run_eval", "evaluation_line": "run_eval",
    "evaluation_scalars": "run_eval", "final_evaluation": "run_eval",
    "periodic_evaluation": "run_eval",
    "build_vec_env": "sb3", "make_env_fn": "sb3", "policy_from_checkpoint": "sb3",
    "game_of": "config",
}


def train(cfg: dict, run_dir: str | None = None, resume: bool = False,
          progress_bar: bool = True, verbose: bool = True) -> str:
    """Train per ``cfg`` (a checked config) with the trainer its ``algo`` names; returns the
    run folder.  ``resume`` continues ``run_dir`` from its latest checkpoint."""
    if cfg["algo"] == "batch_ppo":
        from stichzoo.training.trainers.pipeline import train_batch as trainer
    elif cfg["algo"] == "rllib_ppo":
        from stichzoo.training.rllib.run import train_rllib as trainer
    else:
        from stichzoo.training.trainers.sb3 import train_sb3 as trainer
    return trainer(cfg, run_dir=run_dir, resume=resume, progress_bar=progress_bar,
                   verbose=verbose)


def __getattr__(name: str):
    where = _MOVED.get(name)
    if where == "runs":
        from stichzoo.training import runs as module
    elif where == "run_eval":
        from stichzoo.training.evaluation import run_eval as module
    elif where == "sb3":
        from stichzoo.training.trainers import sb3 as module
    elif where == "config":
        from stichzoo.training import config as module
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(module, name)


__all__ = ["train"]
