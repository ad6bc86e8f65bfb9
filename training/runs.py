"""A run folder: where one training run keeps its config, logs, checkpoints and policies.

Every trainer (the SB3 loop, the batch trainer, RLlib) writes the same layout
under ``runs/<game>__<algo>__<seed>__<time>/``: ``config.yaml`` (the checked
config, defaults filled in), ``tb/`` (TensorBoard), ``checkpoints/`` (the
trainer's full state, for resuming), ``snapshots/`` (frozen learner policies
for the self-play pool), ``policy.pt`` (the latest policy, loadable as
``ppo:path=...``), ``eval/`` (tournament reports) and ``train_summary.yaml``.
"""

from __future__ import annotations

import glob
import os
import re
import time
from dataclasses import dataclass

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

    @property
    def summary(self) -> str:
        return os.path.join(self.root, "train_summary.yaml")

    def make(self) -> None:
        for d in (self.root, self.checkpoints, self.snapshots, self.eval):
            os.makedirs(d, exist_ok=True)

    def write_config(self, cfg: dict) -> None:
        """``config.yaml``: the checked config, so ``--resume`` and the final evaluation
        read exactly what the run trained with."""
        with open(self.config, "w") as f:
            f.write(config_mod.dump(cfg))

    def write_summary(self, summary: dict) -> None:
        with open(self.summary, "w") as f:
            f.write(config_mod.dump(summary))

    def read_summary(self) -> dict:
        """``train_summary.yaml``, or ``{}`` for a run that has not finished one."""
        import yaml

        if not os.path.exists(self.summary):
            return {}
        with open(self.summary) as f:
            return yaml.safe_load(f) or {}

    def latest_checkpoint(self, suffix: str = ".zip") -> tuple[str, int] | None:
        """The newest ``checkpoints/model_<steps><suffix>`` and its steps (SB3 writes
        ``.zip``, the batch trainer ``.pt``); None before the first one."""
        found = []
        for path in glob.glob(os.path.join(self.checkpoints, f"model_*{suffix}")):
            m = re.search(rf"model_(\d+){re.escape(suffix)}$", path)
            if m:
                found.append((int(m.group(1)), path))
        if not found:
            return None
        steps, path = max(found)
        return path, steps


def new_run_dir(cfg: dict) -> str:
    """``runs/<game>__<algo>__<seed>__<time>``, unique even for runs started in one second."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = os.path.join("runs", f"{cfg['game']}__{cfg['algo']}__{cfg['seed']}__{stamp}")
    run_dir, suffix = base, 1
    while os.path.exists(run_dir):
        suffix += 1
        run_dir = f"{base}-{suffix}"
    return run_dir


def config_text(cfg: dict) -> str:
    """The config as TensorBoard's ``config`` text (a Markdown code block)."""
    return "```\n" + config_mod.dump(cfg) + "\n```"


def sample_bar(enabled: bool, total: int, done: int):
    """A tqdm bar over learner samples, or None (disabled, or tqdm missing)."""
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is in the train extra
        return None
    return tqdm(total=total, initial=done, unit="sample", dynamic_ncols=True)


__all__ = ["RunPaths", "config_text", "new_run_dir", "sample_bar"]
