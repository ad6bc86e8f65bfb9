"""scripts/recipes/expert_generations.sh and wizard_expert.sh: which commands the recipe runs.

The generations take an hour and more, so the scripts run here in a copy of
the repository's layout whose ``.venv/bin/stichzoo`` is a stand-in that logs
its arguments and makes the folders the real one would. What is checked is
the recipe itself: each generation's settings (``GEN_<g>`` after the shared
ones, so they win), the bid refits (``REFITS``) and the last one
(``REFIT_LAST``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FAKE = """#!/usr/bin/env bash
# logs its arguments; makes what the real command would leave behind
echo "$*" >> calls.log
if [ "$1" = train ]; then
    run="$4"
    mkdir -p "$run/expert/iteration_4"
elif [ "$1 $2" = "fit bid_model" ]; then
    mkdir -p "$7/bot"
fi
"""


@pytest.fixture
def layout(tmp_path: Path) -> Path:
    """A repository copy with the scripts, the Wizard recipe and the stand-in stichzoo."""
    (tmp_path / "scripts" / "recipes").mkdir(parents=True)
    for name in ("expert_generations.sh", "wizard_expert.sh", "evals.sh"):
        shutil.copy(ROOT / "scripts" / "recipes" / name, tmp_path / "scripts" / "recipes" / name)
    for folder in ("configs/expert", "configs/bid_model"):
        (tmp_path / folder).mkdir(parents=True)
        shutil.copy(ROOT / folder / "wizard.yaml", tmp_path / folder / "wizard.yaml")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    python = tmp_path / ".venv" / "bin" / "python"   # this interpreter, with its packages
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    fake = tmp_path / ".venv" / "bin" / "stichzoo"
    fake.write_text(FAKE)
    fake.chmod(0o755)
    return tmp_path


def _run(layout: Path, *args: str, **env: str) -> list[str]:
    """Run wizard_expert.sh in the layout; the stand-in's calls, one line each."""
    clean = {k: v for k, v in os.environ.items()
             if k not in ("REFITS", "OPPONENT", "OPPONENT_FROM", "REFIT_LAST", "GEN_13", "ROOT",
                          "START", "GEN_13_WORKERS", "NO_EVAL")}
    done = subprocess.run(["bash", "scripts/recipes/wizard_expert.sh", *args], cwd=layout,
                          env={**clean, **env}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return (layout / "calls.log").read_text().splitlines()


def test_the_shipped_recipe_ends_with_a_generation_at_pimc_tables_and_keeps_its_bids(layout):
    calls = _run(layout)
    trains = [c for c in calls if c.startswith("train ")]
    refits = [c for c in calls if c.startswith("fit bid_model wizard ")]
    assert len(trains) == 13
    assert not any("eval." in c for c in trains)   # each iteration is evaluated (NO_EVAL unset)
    # refits after 6, 8, 10, 11 and 12; none after the last generation (REFIT_LAST=0)
    assert [c.split("--out ")[1] for c in refits] == [
        f"runs/wizard_expert/tricks_{g}" for g in (6, 8, 10, 11, 12)]
    last = trains[-1].split()
    # generation 13 starts from (and is guided by) the refit after 12 ...
    assert "expert.start=runs/wizard_expert/tricks_12/bot" in last
    # ... and its own settings come after the shared ones, so they win
    assert last.index("seed=650041") > last.index("seed=12")
    assert last.index("expert.opponent_seats=3") > last.index("expert.opponent_seats=2")
    assert last[-10:] == ["--set", "seed=650041", "--set", "expert.opponent_seats=3",
                          "--set", "expert.opponent_share=1.0", "--set", "expert.workers=1",
                          "--set", "train.torch_threads=1"]
    for g, call in enumerate(trains[:12], start=1):
        assert "seed=650041" not in call, g
        assert ("expert.opponent=pimc" in call) == (g >= 11), g


def test_the_pipeline_labels_the_thirteenth_generation_on_more_processes(layout):
    """GEN_13_WORKERS (scripts/recipes/wizard_pipeline.sh: 2) changes that one setting only."""
    last = [c for c in _run(layout, GEN_13_WORKERS="2") if c.startswith("train ")][-1].split()
    assert last[-10:] == ["--set", "seed=650041", "--set", "expert.opponent_seats=3",
                          "--set", "expert.opponent_share=1.0", "--set", "expert.workers=2",
                          "--set", "train.torch_threads=1"]


def test_no_eval_turns_off_each_generations_evaluations_before_its_own_settings(layout):
    """NO_EVAL=1 (scripts/recipes/evals.sh): every generation without the evaluation of its
    iterations' networks, set before GEN_<g>'s own settings (which still win)."""
    trains = [c.split() for c in _run(layout, NO_EVAL="1") if c.startswith("train ")]
    assert len(trains) == 13
    for g, call in enumerate(trains, start=1):
        assert "eval.opponents=[]" in call and "eval.every=0" in call, g
    assert trains[-1][-10:-8] == ["--set", "seed=650041"]


def test_twelve_generations_are_the_bot_shipped_before_with_the_last_refit(layout):
    calls = _run(layout, "12")
    trains = [c for c in calls if c.startswith("train ")]
    refits = [c.split("--out ")[1] for c in calls if c.startswith("fit bid_model wizard ")]
    assert len(trains) == 12
    assert refits == [f"runs/wizard_expert/tricks_{g}" for g in (6, 8, 10, 11)] + [
        "runs/wizard_expert/tricks"]
    assert all("650041" not in c for c in trains)


def test_finished_generations_are_kept(layout):
    _run(layout, "12")
    calls = _run(layout)   # thirteen: only the refit after 12 and generation 13 are new
    assert len([c for c in calls if c.startswith("train ")]) == 13
    tail = calls[calls.index(next(c for c in calls if "tricks_12" in c)):]
    assert len(tail) == 2 and tail[1].startswith("train ") and "gen_13" in tail[1]
