"""scripts/probes/headroom.py: the headroom probes run (tiny size), write their table, are
deterministic for a seed, and the cheating probe stays out of every policy name."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from stichzoo.policies.specs import POLICY_NAMES, build_policy, make_policy
from tests.helpers import load_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "probes" / "headroom.py"


def _script():
    return load_script("scripts/probes/headroom.py")


def test_headroom_script_prints_and_writes_its_table(tmp_path):
    md, js = tmp_path / "table.md", tmp_path / "results.json"
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--games", "wizard", "--deals", "1", "--workers", "1",
         "--variants", "true_deal", "worlds", "--worlds-factor", "2", "--markdown", str(md),
         "--json", str(js)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True).stdout
    assert "true deal (cheating probe)" in out and "worlds x2 (24)" in out and " ms (" in out
    table = md.read_text().splitlines()
    assert table[0].startswith("| game (one round) |") and len(table) == 4
    assert table[2].startswith("| wizard (1 deals x 4 seats) | points | true deal")
    report = json.loads(js.read_text())[0]
    assert report["seed"] == 424242 and report["baseline"]["think_ms"] > 0
    assert [r["variant"] for r in report["rows"]] == ["true deal (cheating probe)",
                                                      "worlds x2 (24)"]


def test_headroom_deal_is_deterministic_for_a_seed():
    headroom = _script()
    task = ("wizard", 7, 3, 2, ("true_deal", "random", "pimc:infer=0.5,worlds=3"))
    first, second = headroom.play_deal(task), headroom.play_deal(task)
    assert set(first["variants"]) == {"true deal (cheating probe)", "rollout: random",
                                      "pimc:infer=0.5,worlds=3"}  # --specs: any spec
    assert first["baseline"] == second["baseline"]
    assert {k: v["diff"] for k, v in first["variants"].items()} == \
        {k: v["diff"] for k, v in second["variants"].items()}


def test_cheating_probe_sees_the_true_deal_and_leaves_the_game_alone():
    headroom = _script()
    game = headroom.make_game("wizard")
    probe = headroom.true_deal_pimc(game, seed=1)
    state = game.new_game(5)
    world = probe.game.determinize(state, 0, None)
    assert world.hands == state.hands and world is not state
    assert "determinize" not in vars(game)  # the shared game still re-deals
    assert "determinize" not in vars(make_policy("pimc", game, seed=1).game)


@pytest.mark.parametrize("spec", ["true_deal", "true-deal", "cheat", "oracle", "perfect",
                                  "pimc:true_deal=1", "pimc:sees_deal=true",
                                  "pimc:determinize=false"])
def test_cheating_probe_is_no_policy_spec(spec):
    from stichzoo.envs.wizard.rules import WizardGame

    game = WizardGame(WizardGame.Options())
    with pytest.raises(ValueError):
        build_policy(spec, game, seed=0, cache=False)


def test_cheating_probe_lives_only_in_the_script():
    assert not any("true" in name or "cheat" in name for name in POLICY_NAMES)
    for package in ("envs", "policies", "training"):
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text()
            assert "true_deal" not in text and "headroom" not in text, path


def test_pooled_runs_join_their_deals(tmp_path, capsys):
    """scripts/probes/pool_headroom.py: the per-deal differences of two runs are one sample."""
    pool = load_script("scripts/probes/pool_headroom.py")
    for i, (seed, diffs) in enumerate(((1, [1.0, 2.0]), (2, [3.0]))):
        report = {"game": "wizard", "measure": "points", "seed": seed,
                  "baseline": {"think_ms": 2.0, "decisions": 10},
                  "rows": [{"variant": "v", "diffs": diffs, "think_ms": 3.0, "decisions": 10}]}
        (tmp_path / f"{i}.json").write_text(json.dumps([report]))
    pool.main([str(tmp_path / "0.json"), str(tmp_path / "1.json")])
    out = capsys.readouterr().out
    assert "wizard v: +2.00 [" in out and "3 deals, seeds [1, 2]" in out and "(1.50x)" in out
