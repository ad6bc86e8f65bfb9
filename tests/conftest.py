"""Fixtures shared across test modules.

Training is the suite's expensive setup, and several modules need a trained
run (the smoke tests, numpy/torch parity, policy-file checks, ONNX export
and the bot server).  ``tiny_run`` trains each (game, heads) pair once per
test session - once for all pytest-xdist workers, behind a file lock - with
every stage of a real run switched on: the warm start, PPO with self-play
snapshots, checkpoints and TensorBoard logs.  Only the sizes are tiny.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = {"silberne_ananas": 3}
#: configs/ subfolders read by the model fitters' loaders, not the training config's: the
#: Wizard bid model, the leaf value and the tricks to come (stichzoo fit), and the lab's
#: belief and standing models; test_config_strict
MODEL_CONFIG_DIRS = ("bid_model", "leaf_value", "tricks_to_come", "belief", "standing")


#: set (by scripts/test.sh) to a file: the run's durations are written there (test_durations)
DURATIONS_ENV = "STICHZOO_TEST_DURATIONS"


class DurationsFile:
    """Every test's setup, call and teardown seconds and the run's wall time, as JSON.

    scripts/test.sh keeps each run's in ``build/`` (``test-durations.json``, the RLlib leg's
    ``rllib-test-durations.json``), so a slow test is found from the last run, not a rerun
    - the suite's time is budgeted (5 minutes on two cores).  In the controller only: with
    pytest-xdist the workers' reports reach it.
    """

    def __init__(self, path: str):
        self.path = Path(path)
        self.start = time.monotonic()
        self.tests: dict[str, dict] = {}

    def pytest_runtest_logreport(self, report) -> None:
        test, domain = report.nodeid, report.location[2]
        if "[" in domain and "[" not in test:  # schemathesis: one node id, a case per operation
            test = f"{test.rsplit('::', 1)[0]}::{domain}"
        entry = self.tests.setdefault(test, {"outcome": "passed"})
        entry[report.when] = round(report.duration, 3)
        if report.outcome != "passed" and entry["outcome"] == "passed":
            entry["outcome"] = report.outcome

    def pytest_sessionfinish(self, session, exitstatus) -> None:
        tests = [{"test": nodeid, **entry,
                  "seconds": round(sum(entry.get(w, 0.0) for w in ("setup", "call", "teardown")),
                                   3)} for nodeid, entry in self.tests.items()]
        tests.sort(key=lambda t: -t["seconds"])
        self.path.parent.mkdir(parents=True, exist_ok=True)
        head = {"command": ["pytest", *sys.argv[1:]], "exitstatus": int(exitstatus),
                "wall_seconds": round(time.monotonic() - self.start, 1),
                "test_seconds": round(sum(t["seconds"] for t in tests), 1), "count": len(tests)}
        lines = [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
        rows = ",\n".join(f"  {json.dumps(t)}" for t in tests)  # one test a line, slowest first
        self.path.write_text("{\n" + "\n".join(lines) + '\n "tests": [\n' + rows + "\n ]\n}\n")


def pytest_configure(config) -> None:
    path = os.environ.get(DURATIONS_ENV)
    if path and not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        config.pluginmanager.register(DurationsFile(path), "stichzoo-test-durations")


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
