"""scripts/figures/paired.py: two bots against one baseline on the same deals, paired per deal."""

from __future__ import annotations

import json
import os
import sys

import pytest

from stichzoo.training.cli import main
from tests.helpers import load_script


def _paired():
    return load_script("scripts/figures/paired.py")


def _tournament(tmp_path, bot: str, games: int = 66) -> tuple[str, str]:
    out, records = tmp_path / f"{bot}_out", tmp_path / f"{bot}.jsonl"
    assert main(["eval", "wizard", "--players", "3", "--policies", bot, "random",
                 "--games", str(games), "--seed", "5", "--workers", "1", "--quiet", "--option",
                 "rounds=[2]", "--out", str(out), "--records", str(records)]) == 0
    return str(out), str(records)


def test_the_margins_are_the_reports_and_pair_by_deal(tmp_path, monkeypatch, capsys):
    """Each deal's margin averages to the report's score difference; a bot paired with
    itself on the same deals differs by exactly zero."""
    paired = _paired()
    heuristic = _tournament(tmp_path, "heuristic")
    bot, margin = paired.margins(*heuristic)
    with open(os.path.join(heuristic[0], "report.json")) as f:
        report = json.load(f)
    assert bot == "heuristic" and len(margin) == report["deals"] == 22
    diff = report["versus_baseline"]["heuristic"]["score_difference"]["mean"]
    assert sum(margin.values()) / len(margin) == pytest.approx(diff)
    monkeypatch.setattr(sys, "argv", ["paired.py", *heuristic, *heuristic])
    paired.main()
    assert "heuristic - heuristic, paired over 22 deals: +0.00 (no variation between deals)" \
        in capsys.readouterr().out


def test_records_that_are_not_the_tournaments_are_refused(tmp_path):
    paired = _paired()
    out, records = _tournament(tmp_path, "heuristic", games=3)
    with open(records) as f:
        first = f.readline()
    with open(records, "w") as f:
        f.write(first)
    with pytest.raises(SystemExit, match="1 records for 3 games"):
        paired.margins(out, records)
