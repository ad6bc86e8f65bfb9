"""Fixtures shared across test modules.

Training is the suite's expensive setup, and several modules need a trained
run (the smoke tests, numpy/torch parity, policy-file checks, ONNX export
and the bot server).  ``tiny_run`` trains each (game, heads) pair once per
test session - once for all pytest-xdist workers, behind a file lock - with
every stage of a real run switched on: the warm start, PPO with self-play
snapshots, checkpoints and TensorBoard logs.  Only the sizes are tiny.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = {"silberne_ananas": 3}
#: configs/ subfolders read by the model fitters' loaders, not the training config's: the
#: Wizard bid model, the leaf value and the tricks to come (stichzoo fit), and the lab's
#: belief and standing models; test_config_strict
MODEL_CONFIG_DIRS = ("bid_model", "leaf_value", "tricks_to_come", "belief", "standing")


def training_configs() -> list[Path]:
    """Every committed training config: configs/**/*.yaml outside :data:`MODEL_CONFIG_DIRS`."""
    return sorted(p for p in (ROOT / "configs").rglob("*.yaml")
                  if p.parent.name not in MODEL_CONFIG_DIRS)


def sb3_recipe(game: str) -> Path:
    """The game's SB3 (MaskablePPO) recipe: configs/sb3/<game>.yaml, or configs/<game>.yaml
    where the shipped bot itself came from SB3 (Silberne Ananas)."""
    variant = ROOT / "configs" / "sb3" / f"{game}.yaml"
    return variant if variant.exists() else ROOT / "configs" / f"{game}.yaml"


def tiny_config(game: str, heads: str = "shared") -> dict:
    """The game's SB3 recipe, shrunk to seconds: every stage runs, briefly."""
    from stichzoo.training import config as config_mod

    cfg = config_mod.load(str(sb3_recipe(game)))
    assert cfg["algo"] == "maskable_ppo", f"{game}: the SB3 recipe trains {cfg['algo']}"
    cfg["train"].update(total_timesteps=256, n_steps=128, batch_size=64, n_envs=1,
                        vec_env="dummy", n_epochs=1, checkpoint_every=128, heads=heads,
                        net_arch=[32])
    cfg["pretrain"].update(steps=400, epochs=1, batch_size=64)
    cfg["eval"].update(every=0, games=2, workers=1)
    cfg["selfplay"]["snapshot_every"] = 128
    cfg["opponents"] = [{"policy": "random", "weight": 1}, {"policy": "self", "weight": 1}]
    return config_mod.validate(cfg)


@pytest.fixture(scope="session", autouse=True)
def sb3_logs_in_the_sessions_folder(tmp_path_factory) -> None:
    """An SB3 model given no logger makes a folder ``SB3-<date>`` in the system's temp
    directory for each ``learn`` (the SB3 face's test and docs/batch.md's example left
    dozens in /tmp); ``SB3_LOGDIR`` puts them in the session's own folder instead."""
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3_logs"))


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory) -> Callable[..., Path]:
    """``tiny_run(game, heads="shared")``: the folder of a tiny finished training run.

    Read-only: a test that changes a run copies it first (``copy_run``).
    """
    from filelock import FileLock

    base = tmp_path_factory.getbasetemp()
    # pytest-xdist workers each get a basetemp below one session folder: share that
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "tiny_runs"
    shared.mkdir(exist_ok=True)

    def get(game: str, heads: str = "shared") -> Path:
        from stichzoo.training.train import train

        run = shared / f"{game}-{heads}"
        with FileLock(str(run) + ".lock"):
            if not (run / "policy.pt").exists():
                partial = shared / f"{game}-{heads}.partial"
                shutil.rmtree(partial, ignore_errors=True)
                train(tiny_config(game, heads), run_dir=str(partial), progress_bar=False,
                      verbose=False)
                os.replace(partial, run)
        return run

    return get


def copy_run(run: Path, to: Path) -> Path:
    shutil.copytree(run, to)
    return to
