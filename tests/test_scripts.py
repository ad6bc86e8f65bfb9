"""The command-line scripts run (fast settings) and configs load."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
    out = run("scripts/bench.py", "--game", "wizard", "geheimtrumpf", "--seconds", "0.05",
              "--repeats", "1", "--json", "--no-memory")
    rows = json.loads(out)["results"]
    assert [r["game"] for r in rows] == ["wizard", "geheimtrumpf"]
    for row in rows:
        assert row["aec"]["decisions_per_s"] > 0 and row["core"]["games_per_s"] > 0
        assert row["clone"]["decisions_per_s"] > 0


def test_bench_memory_probe():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import bench
    finally:
        sys.path.pop(0)
    assert 0 < bench.memory_of_envs("hoch_tief", 3, count=20) < 10


def test_import_stichzoo_is_light():
    code = ("import sys, stichzoo, stichzoo.envs; heavy = [m for m in ('torch', "
            "'stable_baselines3', 'onnxruntime') if m in sys.modules]; print(heavy)")
    assert run("-c", code).strip() == "[]"
