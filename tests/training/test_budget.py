"""Samples or minutes, whichever ends first: the progress bar, and a run the guard stops short.

A run is counted in samples (``train.total_timesteps``) and guarded by the
clock (``train.max_minutes``).  The bar shows the sooner end; a run the guard
stops before its samples says so in its last lines, in its summary and in its
ladder row (issue 32, items 4 and 8).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import time
from pathlib import Path

import yaml

from stichzoo.training.evaluation import ladder
from stichzoo.training.runs import Budget, BudgetBar, shortfall_of

ROOT = Path(__file__).resolve().parents[2]


def test_the_time_left_is_the_sooner_of_the_two_ends():
    one_minute = Budget(samples=1_100_000, minutes=1.0, start=1000.0)
    # 10 s in at 40 samples/s the samples would take 7.6 hours: the guard ends first, in 50 s
    assert one_minute.left(400, rate=40.0, now=1010.0) == (50.0, "time")
    assert one_minute.left(0, rate=None, now=1010.0) == (50.0, "time")  # no rate yet
    hour = Budget(samples=1_100_000, minutes=60.0, start=1000.0)
    left, which = hour.left(100_000, rate=5000.0, now=1030.0)
    assert which == "samples" and left == 200.0
    assert hour.left(1_100_000, rate=5000.0, now=1030.0) == (0.0, "samples")
    assert one_minute.left(400, rate=40.0, now=2000.0) == (0.0, "time")  # past the guard


def test_a_one_minute_run_never_promises_hours():
    budget = Budget(samples=1_100_000, minutes=1.0, start=0.0)
    out = io.StringIO()
    bar = BudgetBar(budget, done=0, file=out)
    start = bar._leg[1]
    budget.start = start - 10  # 10 s into the run (its warm start), 2 s into training
    bar.done = 80  # 40 samples/s: the samples alone would need 7.6 hours
    text = bar.status(now=start + 2)
    assert text == "80/1,100,000 samples | 0:12 of 1:00 | 0:48 left (the time guard ends first)"
    assert abs(bar.fraction(now=start + 2) - 0.2) < 1e-9  # the guard is further along
    bar.update(120)
    bar.close()
    assert "hours" not in out.getvalue() and "left" in out.getvalue()


def test_in_a_log_file_the_bar_is_a_line_at_a_time():
    """Not a terminal (``nohup ... > log``): whole lines, no carriage returns, none in between."""
    budget = Budget(samples=1000, minutes=10.0, start=time.time())
    out = io.StringIO()
    bar = BudgetBar(budget, done=0, file=out)
    bar.update(10)  # sooner than a line a minute: nothing yet
    assert out.getvalue() == ""
    bar._drawn -= BudgetBar.LINE_EVERY
    bar.update(500)
    bar.close()
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue() and len(lines) == 2
    assert lines[0].startswith(" 50% 500/1,000 samples") and lines[1].endswith("first)")


def test_a_short_run_is_said_in_its_summary_line():
    assert shortfall_of({"steps": 1200, "budget_samples": 1200, "max_minutes": 30}) is None
    assert shortfall_of({"steps": 5}) is None  # a summary from before the budget fields
    line = shortfall_of({"steps": 180_614, "budget_samples": 1_100_000, "max_minutes": 30})
    assert line.startswith("BUDGET NOT REACHED") and "180,614 of its 1,100,000" in line
    assert "train.max_minutes=30" in line


def _row(**training) -> dict:
    return {"games": 400, "deals": 100,
            "score_difference": {"mean": -6.2, "lo": -15.1, "hi": 2.6},
            "win_rate_difference": {"mean": 0.0, "lo": -0.05, "hi": 0.05},
            "win_rate": None, "opponent": "heuristic", "command": "stichzoo eval ...",
            **({"training": training} if training else {})}


def test_ladder_rows_say_a_short_budget_and_old_rows_load(tmp_path):
    old = _row()  # recorded before the training field: loads and prints as before
    assert not ladder.short_of_budget(old)
    assert ladder.format_row("x", "heuristic", old, "wizard").endswith("level")
    full = _row(samples=1_100_000, budget_samples=1_100_000, budget_reached=True)
    assert ladder.format_row("x", "heuristic", full, "wizard").endswith("level")
    short = _row(samples=180_614, budget_samples=1_100_000, budget_reached=False)
    assert ladder.format_row("x", "heuristic", short, "wizard").endswith(
        "level (BUDGET NOT REACHED: 180,614 of 1,100,000 samples)")
    path = tmp_path / "ladder.json"
    path.write_text(json.dumps({"schema": ladder.SCHEMA, "seed": ladder.SEED, "games": {
        "hoch_tief": {"network_vs_pimc": short, "search_vs_pimc": old}}}))
    data = ladder.load(str(path))
    assert "BUDGET NOT REACHED: 180,614 of 1,100,000 samples" in ladder.markdown(data)
    text = ladder.show(data)
    assert text.splitlines()[-1].startswith("BUDGET NOT REACHED (hoch_tief, network_vs_pimc)")


def test_the_main_job_says_when_the_guard_stopped_it(tmp_path):
    """scripts/main.sh with a guard that trips (3 s for 100M samples): the trainer's last
    line, the line after the final evaluation, the summary and the ladder's row and last
    line all say the budget was not reached.  One torch thread: the suite runs two tests at
    once on two cores."""
    run = tmp_path / "run"
    out = subprocess.run(
        ["bash", "scripts/main.sh", "--set", "train.total_timesteps=100000000",
         "--set", "train.max_minutes=0.05", "--set", "train.torch_threads=1",
         "--set", "pretrain.steps=500",
         "--set", "pretrain.epochs=1", "--set", "batch.games=8",
         "--set", "batch.rollout_steps=16", "--set", "options.rounds=[1,2]",
         "--final-games", "8", "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "STICHZOO_NO_SETUP": "1", "STICHZOO_RUN_DIR": str(run)})
    assert out.returncode == 0, out.stderr[-2000:]
    summary = yaml.safe_load((run / "train_summary.yaml").read_text())
    assert summary["budget_reached"] is False and summary["stopped_by"] == "time"
    assert summary["budget_samples"] == 100_000_000 and summary["steps"] < 100_000_000
    lines = out.stdout.strip().splitlines()
    said = [i for i, line in enumerate(lines) if line.startswith("BUDGET NOT REACHED")]
    assert len(said) >= 3  # the trainer's last line, after the final evaluation, the ladder's
    assert lines[-1].startswith("BUDGET NOT REACHED (wizard, this run)")
    row = next(line for line in lines if line.startswith("this run (network)"))
    assert f"(BUDGET NOT REACHED: {summary['steps']:,} of 100,000,000 samples)" in row
