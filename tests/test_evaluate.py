"""The duplicate tournament runner: lineups, statistics, reproducibility, outputs, CLI errors."""

from __future__ import annotations

import json
import math

import pytest

from stichzoo.training.cli import main as cli_main
from stichzoo.training.evaluate import (
    TournamentConfig,
    default_lineup,
    mean_ci,
    paired_test,
    parse_policy_spec,
    run_tournament,
    seat_assignments,
    write_outputs,
)


def test_default_lineup_and_assignments():
    assert default_lineup(["a", "b"], 4) == ["a", "b", "b", "b"]
    assert default_lineup(["a", "b", "c"], 3) == ["a", "b", "c"]
    assert default_lineup(["a"], 3) == ["a", "a", "a"]
    assert len(seat_assignments(["a", "b", "b", "b"])) == 4  # a in every seat
    assert len(seat_assignments(["a", "b", "c"])) == 6  # every permutation
    six = seat_assignments(list("abcdef"))  # 720 permutations: rotations instead
    assert len(six) == 6 and all(sorted(a) == list("abcdef") for a in six)
    for seat in range(6):
        assert {a[seat] for a in six} == set("abcdef")
    with pytest.raises(ValueError, match="3 policies for 2 seats"):
        default_lineup(["a", "b", "c"], 2)


def test_policy_specs():
    assert parse_policy_spec("pimc:worlds=8,horizon=game") == ("pimc", {"worlds": 8,
                                                                        "horizon": "game"})
    with pytest.raises(ValueError, match="unknown policy 'alphago'"):
        parse_policy_spec("alphago")
    with pytest.raises(ValueError, match="key=value"):
        parse_policy_spec("pimc:worlds")


def test_statistics():
    ci = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert ci["mean"] == 2.5
    # t(0.975, 3) = 3.182; sd = 1.291; half = 3.182 * 1.291 / 2
    assert ci["hi"] - ci["mean"] == pytest.approx(3.182446 * 1.2909944 / 2, rel=1e-4)
    test = paired_test([1.0, 1.2, 0.8, 1.1, 0.9])
    assert test["lo"] > 0 and test["p_value"] < 0.001
    null = paired_test([1.0, -1.0, 0.5, -0.5])
    assert null["lo"] < 0 < null["hi"] and null["p_value"] > 0.5
    assert math.isnan(mean_ci([3.0])["lo"])


def test_bad_config_errors():
    with pytest.raises(ValueError, match="num_players"):
        TournamentConfig("wizard", 9, ["random"] * 9, deals=1)
    with pytest.raises(ValueError, match="unknown option"):
        TournamentConfig("wizard", 3, ["random"] * 3, deals=1, options={"colour": 2})
    with pytest.raises(ValueError, match="baseline"):
        TournamentConfig("wizard", 3, ["random"] * 3, deals=1, baseline="heuristic")


def _report(workers):
    cfg = TournamentConfig("wizard", 3, ["random"] * 3, deals=6, seed=3,
                           options={"rounds": [2, 3]}, workers=workers)
    report = run_tournament(cfg, progress=False)
    for key in ("wall_seconds", "workers", "mean_game_seconds"):
        report.pop(key)
    report["config"].pop("workers")
    return report


def test_reproducible_whatever_the_workers():
    assert json.dumps(_report(1), sort_keys=True) == json.dumps(_report(2), sort_keys=True)


def test_outputs_written(tmp_path):
    cfg = TournamentConfig("hoch_tief", 3, ["random"] * 3, deals=3, seed=1, options={"rounds": 1},
                           workers=1)
    report = run_tournament(cfg, progress=False)
    paths = write_outputs(report, str(tmp_path))
    assert json.loads((tmp_path / "report.json").read_text())["games"] == 3
    assert any(p.endswith("report.png") for p in paths) and (tmp_path / "report.png").stat().st_size


def test_cli_errors_are_clear(capsys):
    assert cli_main(["eval", "wizard", "--policies", "nonsense", "--games", "2"]) == 2
    assert "unknown policy 'nonsense'" in capsys.readouterr().err
    assert cli_main(["eval", "wizard", "--option", "colour=1", "--policies", "random",
                     "--games", "2"]) == 2
    assert "unknown option" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main(["eval", "chess"])


def test_cli_runs(capsys):
    assert cli_main(["eval", "wizard", "--players", "3", "--policies", "random", "--games", "3",
                     "--option", "rounds=[1]", "--workers", "1", "--quiet"]) == 0
    assert "wizard 3p: 3 games" in capsys.readouterr().out
