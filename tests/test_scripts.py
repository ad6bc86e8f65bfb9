"""The command-line scripts run (fast settings) and configs load."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import load_script

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> str:
    out = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, check=True)
    return out.stdout


def test_play_script(tmp_path):
    rec = tmp_path / "rec.json"
    out = run("scripts/play.py", "--games", "3", "--players", "3", "--record", str(rec))
    assert "3 random wizard games" in out and "decisions/s" in out
    assert json.loads(rec.read_text())["game"] == "wizard"


def test_play_script_bad_option():
    out = subprocess.run([sys.executable, "scripts/play.py", "--option", "colour=1"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "unknown option" in out.stderr


def test_bench_script_json():
    out = run("scripts/bench/env_steps.py", "--game", "wizard", "geheimtrumpf", "--seconds",
              "0.05", "--repeats", "1", "--json", "--no-memory")
    rows = json.loads(out)["results"]
    assert [r["game"] for r in rows] == ["wizard", "geheimtrumpf"]
    for row in rows:
        assert row["aec"]["decisions_per_s"] > 0 and row["core"]["games_per_s"] > 0
        assert row["clone"]["decisions_per_s"] > 0


def test_bench_memory_probe():
    sys.path.insert(0, str(ROOT / "scripts" / "bench"))
    try:
        import env_steps
    finally:
        sys.path.pop(0)
    assert 0 < env_steps.memory_of_envs("hoch_tief", 3, count=20) < 10


def test_import_stichzoo_is_light():
    code = ("import sys, stichzoo, stichzoo.envs; heavy = [m for m in ('torch', "
            "'stable_baselines3', 'onnxruntime') if m in sys.modules]; print(heavy)")
    assert run("-c", code).strip() == "[]"


def test_main_job_trains_evaluates_and_prints_the_ladder(tmp_path):
    """scripts/main.sh end to end, cut to seconds (the install step is skipped: the suite's
    own venv is in use by the other tests): a warm start, three PPO iterations on one
    torch thread (the suite runs two tests at once), the final evaluation, the ladder."""
    out = subprocess.run(
        ["bash", "scripts/main.sh", "--set", "train.total_timesteps=300",
         "--set", "train.torch_threads=1", "--set", "pretrain.steps=2000",
         "--set", "pretrain.epochs=1", "--set", "batch.games=8",
         "--set", "batch.rollout_steps=16", "--set", "options.rounds=[1,2]",
         "--final-games", "8", "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "STICHZOO_NO_SETUP": "1", "STICHZOO_RUN_DIR": str(tmp_path / "run")})
    assert out.returncode == 0, out.stderr[-2000:]
    assert "- heuristic: score" in out.stdout
    assert "The ladder" in out.stdout and "this run (network)" in out.stdout


def test_bench_search_script():
    from stichzoo.policies.specs import learned_search

    out = run("scripts/bench/search_time.py", "--games", "geheimtrumpf", "--decisions", "3")
    lines = [x for x in out.splitlines() if x.startswith("geheimtrumpf")]
    assert [x.split()[1] for x in lines] == ["pimc", learned_search("geheimtrumpf")]
    out = run("scripts/bench/search_time.py", "--games", "wizard", "--decisions", "3", "--lab",
              "--specs", "pimc:worlds=2", "pimc:infer=0.5,worlds=2")
    lines = [x for x in out.splitlines() if x.startswith("wizard")]
    assert [x.split()[1] for x in lines] == ["pimc:worlds=2", "pimc:infer=0.5,worlds=2"]


def test_inference_signal_script_measures_agreement():
    module = load_script("scripts/probes/inference_signal.py")
    assert module.wizard(deals=1).startswith("wizard: ")
    assert "under the true trumps" in module.geheimtrumpf(games=1)


def test_search_regret_script_charges_each_choice_against_the_reference():
    module = load_script("scripts/probes/search_regret.py")
    specs = ["pimc:worlds=1", "pimc:guide=bot:{game},worlds=1"]
    rows = module.measure("geheimtrumpf", specs, count=6, depth=2, seed=5)
    assert [r["spec"] for r in rows] == ["pimc:worlds=1", "pimc:guide=bot:geheimtrumpf,worlds=1"]
    assert all(r["regret"] >= 0 and r["positions"] == 6 for r in rows)
    assert rows[0]["coverage"] is None and 0 <= rows[1]["coverage"] <= 1
    assert abs(rows[1]["difference"][0] - (rows[1]["regret"] - rows[0]["regret"])) < 1e-9
    again = module.measure("geheimtrumpf", specs, count=6, depth=2, seed=5)
    assert [r["regret"] for r in again] == [r["regret"] for r in rows]  # seeded: the same
    for r in rows:  # the split: every position in one kind, the kinds' means average to all
        by_kind = r["by_kind"].values()
        assert sum(count for _, _, count in by_kind) == 6
        assert abs(sum(m * count for m, _, count in by_kind) / 6 - r["regret"]) < 1e-9
    out = run("scripts/probes/search_regret.py", "--games", "wizard", "--positions", "3",
              "--depth", "1", "--specs", "pimc:worlds=2", "--split")
    assert "| wizard | `pimc:worlds=2` | 3 |" in out and "| kind of decision |" in out


def test_search_agreement_script_counts_alike_choices():
    """A search agrees with itself on the same worlds; the rates are printed."""
    out = run("scripts/probes/search_agreement.py", "--game", "silberne_ananas", "--positions",
              "4", "--specs", "pimc:worlds=2", "pimc:worlds=2")
    assert "plays 'pimc:worlds=2''s action in 1.000" in out and "4 positions" in out


def test_curves_script_measures_saved_policies(tmp_path, capsys):
    """A tiny run's snapshots against random: TensorBoard scalars, a cache, a PNG."""
    import yaml

    from stichzoo.training import config as config_mod
    from stichzoo.training.train import train
    from tests.conftest import tiny_config

    cfg = tiny_config("wizard")
    cfg["algo"] = "batch_ppo"
    cfg["options"]["rounds"] = [1, 2]
    cfg["batch"].update(games=8, rollout_steps=10)
    cfg["train"].update(total_timesteps=200, checkpoint_every=100, batch_size=64)
    cfg["selfplay"]["snapshot_every"] = 100
    cfg["eval"].update(every=0)
    run_dir = train(config_mod.validate(cfg), run_dir=str(tmp_path / "run"), progress_bar=False,
                    verbose=False)
    png = tmp_path / "curve.png"
    out = run("scripts/figures/curves.py", run_dir, "--opponents", "random", "--games", "8",
              "--points", "0", "--workers", "1", "--out", str(png))
    assert png.stat().st_size > 1000 and "wrote" in out
    cache = json.loads((Path(run_dir) / "eval" / "curve.json").read_text())
    steps = yaml.safe_load((Path(run_dir) / "train_summary.yaml").read_text())["steps"]
    assert {v["samples"] for v in cache.values()} >= {steps}
    assert all("curve/vs_random/score_diff" in v["scalars"] for v in cache.values())
    # measured points are not measured again: the script's measure, called as its main
    # calls it (in this process: a second start of the script would only import again)
    curves = load_script("scripts/figures/curves.py")
    again = curves.measure(run_dir, ["random"], [8], [0], seed=3083, workers=1)
    assert "score diff" not in capsys.readouterr().out
    assert again["points"] == list(cache.values())


def test_curve_minutes_chain_the_legs_of_a_resumed_run(tmp_path):
    """One event file per leg: the minutes run on across a resume, not back to 0 (and the
    days between legs are not counted)."""
    import time

    from stichzoo.training import config as config_mod
    from stichzoo.training.train import train
    from tests.conftest import tiny_config

    curves = load_script("scripts/figures/curves.py")
    cfg = tiny_config("wizard")
    cfg["algo"] = "batch_ppo"
    cfg["options"]["rounds"] = [1, 2]
    cfg["batch"].update(games=8, rollout_steps=10)
    cfg["train"].update(total_timesteps=200, checkpoint_every=100, batch_size=64)
    cfg["eval"].update(every=0)
    cfg = config_mod.validate(cfg)
    run_dir = train(cfg, run_dir=str(tmp_path / "run"), progress_bar=False, verbose=False)
    first = curves.minutes_at(run_dir)
    time.sleep(2.5)  # the next leg's event file needs a later name; the pause is not counted
    cfg["train"]["total_timesteps"] = 400
    leg = time.time()
    train(cfg, run_dir=run_dir, resume=True, progress_bar=False, verbose=False)
    leg = time.time() - leg
    both = curves.minutes_at(run_dir)
    assert len(list((Path(run_dir) / "tb" / "batch_ppo").glob("events.out.tfevents.*"))) == 2
    assert {k: v for k, v in both.items() if k in first} == first
    steps = sorted(both)
    assert all(both[a] <= both[b] for a, b in itertools.pairwise(steps))
    # the pause is not in (an event file is named by the whole second it was made in)
    assert both[steps[-1]] - max(first.values()) <= (leg + 1) / 60 + 1e-3


def test_probe_imitation_script_measures_fidelity_pieces_and_search_labels(tmp_path):
    out = run("scripts/probes/probe_imitation.py", "configs/lab/batch/hoch_tief.yaml", "--samples",
              "1500", "--arch", "16", "--epochs", "1", "--feature", "suit_state", "--distil",
              "pimc:worlds=2", "--labels", "40", "--games", "8", "--threads", "1",
              "--out", str(tmp_path))
    assert "observation 870 floats" in out  # 645 of hoch_tief_v0 + the 225 of the probe piece
    assert "[16] fitted" in out and "held-out agreement" in out
    assert "[imitation + search labels]" in out and "[search labels alone]" in out
    assert out.count("vs heuristic (8 games)") == 3


def test_probe_imitation_refuses_another_games_piece():
    out = subprocess.run([sys.executable, "scripts/probes/probe_imitation.py",
                          "configs/quick/wizard.yaml", "--feature", "suit_state"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "is a hoch_tief piece" in out.stderr


def test_bench_analysis_script():
    out = run("scripts/bench/analysis_time.py", "--seed", "2", "--games", "hoch_tief",
              "geheimtrumpf")
    lines = out.strip().splitlines()
    assert len(lines) == 2 and all("decisions searched in" in line for line in lines), out


def test_stamp_bot_records_the_generations_that_made_a_bot(tmp_path):
    """scripts/recipes/stamp_bot.py: each generation's command and minutes, the recipe, and the
    last generation's summary with every generation's time (and a bid refit's) summed."""
    from stichzoo.training import config as config_mod

    stamp_bot = load_script("scripts/recipes/stamp_bot.py")
    for g, seconds in ((1, 600), (2, 720), (3, 60)):  # gen_3: a later run's, not this bot's
        run = tmp_path / f"gen_{g}"
        run.mkdir()
        (run / "command").write_text(f"stichzoo train gen {g}\n")
        (run / "seconds").write_text(str(seconds))
        (run / "train_summary.yaml").write_text(config_mod.dump({"steps": 10 * g}))
    (tmp_path / "tricks").mkdir()
    (tmp_path / "tricks" / "seconds").write_text("120")
    prov: dict = {}
    stamp_bot.generations(str(tmp_path), 2, str(ROOT / "configs" / "expert" / "wizard.yaml"),
                          prov)
    assert prov["generations"] == [{"command": "stichzoo train gen 1", "minutes": 10.0},
                                   {"command": "stichzoo train gen 2", "minutes": 12.0}]
    assert prov["config"]["game"] == "wizard" and prov["config"]["expert"]["iterations"] == 4
    assert prov["steps"] == 20
    assert prov["training"]["wall_seconds"] == 600 + 720 + 120


def test_stamp_bot_records_the_ppo_legs_after_the_generations(tmp_path):
    """--after (geheimtrumpf_pipeline.sh): each leg's command and minutes in order, the
    resumed run's summary as the bot's, its wall time the generations' plus the legs'."""
    from stichzoo.training import config as config_mod

    stamp_bot = load_script("scripts/recipes/stamp_bot.py")
    run = tmp_path / "ppo"
    (run / "legs").mkdir(parents=True)
    (run / "train_summary.yaml").write_text(config_mod.dump({"steps": 1_615_452}))
    for k, seconds in ((1, 648), (2, 708)):
        (run / "legs" / f"command_{k}").write_text(f"stichzoo train --resume leg {k}\n")
        (run / "legs" / f"seconds_{k}").write_text(str(seconds))
    prov: dict = {"training": {"wall_seconds": 3600}, "steps": 3220}
    stamp_bot.after(str(run / "legs"), prov)
    assert prov["legs_after"] == [{"command": "stichzoo train --resume leg 1", "minutes": 10.8},
                                  {"command": "stichzoo train --resume leg 2", "minutes": 11.8}]
    assert prov["steps"] == 1_615_452
    assert prov["training"]["wall_seconds"] == 3600 + (10.8 + 11.8) * 60
    with pytest.raises(SystemExit, match="no command_1"):
        stamp_bot.after(str(tmp_path), {})


def test_phase_swap_script_of_a_bot_against_itself_changes_nothing():
    """The shipped bot as its own candidate: in every phase and alone, the same decisions,
    so the same tasks on the same deal (a difference of exactly 0; one deal, its four seat
    assignments: a second deal repeated the same check for a second of the test's three)."""
    out = run("scripts/probes/phase_swap.py", "geheimtrumpf", "policies/bots/geheimtrumpf",
              "--deals", "1", "--seed", "5", "--phases", "all", "card_draft",
              "task_choice+play")
    rows = [line.split(" | ") for line in out.splitlines() if line.startswith("| ")]
    assert [r[0] for r in rows] == ["| all", "| card_draft", "| task_choice+play"]
    for row in rows:
        assert row[1].startswith("+0.000 ") and row[3] == "4 |", row


def test_phase_swap_script_names_a_phase_the_game_lacks():
    out = subprocess.run([sys.executable, "scripts/probes/phase_swap.py", "geheimtrumpf",
                          "policies/bots/geheimtrumpf", "--deals", "1", "--seed", "5",
                          "--phases", "bidding"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "no phase 'bidding'; its phases are task_draft, card_draft" in out.stderr
    assert "(or all for every phase)" in out.stderr


@pytest.mark.parametrize("script", sorted(p.relative_to(ROOT).as_posix()
                                          for p in (ROOT / "scripts").rglob("*.sh")))
def test_shell_script_parses(script):
    """Every shell script of scripts/ parses (``bash -n``): the long repro pipelines are run
    by hand, hours at a time, so a syntax slip would show only at the step it breaks."""
    out = subprocess.run(["bash", "-n", script], cwd=ROOT, capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("no_eval, evals, final", [
    ("", "", "--final-eval"),
    ("1", "--set eval.every=0 --set eval.opponents=[]", ""),
])
def test_no_eval_leaves_out_every_evaluation_of_the_repro_scripts(no_eval, evals, final):
    """scripts/recipes/evals.sh: NO_EVAL=1 turns off the periodic, per-iteration and final
    evaluations of the scripts that train (the networks stay the same to the bit:
    tests/training/test_batch_ppo.py); without it every curve is kept."""
    out = subprocess.run(["bash", "-c", 'set -euo pipefail; source scripts/recipes/evals.sh; '
                          'echo "${EVALS[*]}|${FINAL_EVAL[*]}"'], cwd=ROOT, capture_output=True,
                         text=True, env={**os.environ, "NO_EVAL": no_eval}, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"{evals}|{final}"
    users = [p.name for p in (ROOT / "scripts" / "recipes").glob("*.sh")
             if "source scripts/recipes/evals.sh" in p.read_text()]
    assert {"expert_generations.sh", "geheimtrumpf_2legs.sh", "geheimtrumpf_legs.sh",
            "wizard_hour.sh"} <= set(users)
