"""scripts/probes/bid_errors.py: where a Wizard bot misses its bids, from a tournament's records."""

from __future__ import annotations

import json
import os

import pytest

from stichzoo.training.cli import main
from tests.helpers import load_script


def _script():
    return load_script("scripts/probes/bid_errors.py")


def _tournament(tmp_path, game: str = "wizard") -> tuple[str, str]:
    out, records = tmp_path / "out", tmp_path / "games.jsonl"
    assert main(["eval", game, "--players", "3", "--policies", "heuristic", "random",
                 "--games", "12", "--seed", "5", "--workers", "1", "--quiet",
                 "--out", str(out), "--records", str(records)]
                + (["--option", "rounds=[2, 3]"] if game == "wizard" else [])) == 0
    return str(out), str(records)


def test_rounds_go_to_the_policy_of_their_seat_and_match_the_report(tmp_path):
    """Every round of every seat lands with the policy the report seated there; per policy the
    hit rate and the mean bid are the report's own metrics."""
    script = _script()
    out, records = _tournament(tmp_path)
    found = script.rounds_by_policy(out, records)
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    assert set(found) == {"heuristic", "random"}
    assert sum(len(rows) for rows in found.values()) == 12 * 3 * 2  # games x seats x rounds
    for policy, rows in found.items():
        metrics = report["policies"][policy]["metrics"]
        hits = sum(r["tricks"] == r["bid"] for r in rows) / len(rows)
        assert hits == pytest.approx(metrics["bid_hit_rate"]["mean"])
        assert sum(r["bid"] for r in rows) / len(rows) == pytest.approx(metrics["mean_bid"]["mean"])
        assert {r["turn"] for r in rows} == {0, 1, 2}
    lines = script.table(found["heuristic"])
    assert lines[0].startswith("| bid | share | hit |")
    assert lines[-1].endswith(f"over {len(found['heuristic'])} rounds")


def test_a_tournament_of_another_game_is_refused(tmp_path):
    out, records = _tournament(tmp_path, "hoch_tief")
    with pytest.raises(SystemExit, match="bids are Wizard's"):
        _script().rounds_by_policy(out, records)
