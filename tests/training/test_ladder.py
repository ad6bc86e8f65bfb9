"""The ladder (evaluation/ladder.py): measured matches, their verdicts, and what is printed."""

from __future__ import annotations

import json
import os

import pytest

from stichzoo.training.evaluation import ladder
from tests.helpers import load_script


def _entry(mean: float, lo: float, hi: float, wmean: float = 0.0, wlo: float = -0.1,
           whi: float = 0.1) -> dict:
    return {"games": 100, "deals": 25,
            "score_difference": {"mean": mean, "lo": lo, "hi": hi},
            "win_rate_difference": {"mean": wmean, "lo": wlo, "hi": whi},
            "win_rate": {"mean": 0.3, "lo": 0.2, "hi": 0.4}, "opponent": "pimc"}


def test_verdicts_follow_the_interval():
    assert ladder.verdict({"mean": 3, "lo": 1, "hi": 5}) == "above"
    assert ladder.verdict({"mean": -3, "lo": -5, "hi": -1}) == "below"
    assert ladder.verdict({"mean": 1, "lo": -1, "hi": 3}) == "level"
    assert ladder.verdict(None) == "n/a"


def test_silberne_ananas_is_judged_on_the_win_rate():
    assert ladder.objective("silberne_ananas") == "win_rate_difference"
    assert ladder.objective("wizard") == "score_difference"
    # a score gain with a win-rate loss is a loss in Silberne Ananas
    matches = {"network_vs_heuristic": _entry(5, 1, 9, -0.2, -0.3, -0.1)}
    assert "below heuristic" in ladder.placement("silberne_ananas", matches)
    assert "above heuristic" in ladder.placement("wizard", matches)


def test_placement_reads_the_climb_and_the_network():
    matches = {"heuristic_vs_random": _entry(500, 480, 520),
               "pimc_vs_heuristic": _entry(100, 80, 120),
               "network_vs_heuristic": _entry(20, 10, 30),
               "network_vs_pimc": _entry(-90, -120, -60),
               "search_vs_pimc": _entry(2, -10, 14)}
    text = ladder.placement("wizard", matches)
    assert text == ("random < heuristic < pimc = learned search; "
                    "network alone: above heuristic, below pimc")


def test_show_prints_every_recorded_match_and_a_fresh_run(tmp_path):
    data = {"schema": ladder.SCHEMA, "seed": ladder.SEED,
            "games": {"hoch_tief": {"pimc_vs_heuristic": _entry(20, 16, 24)}}}
    run = tmp_path / "run"
    report = {"games": 400, "deals": 100,
              "policies": {"ppo:path=x.pt": {"win_rate": {"mean": 0.3, "lo": 0.25, "hi": 0.35}},
                           "heuristic": {"win_rate": None}},
              "versus_baseline": {"ppo:path=x.pt": {
                  "score_difference": {"mean": 12.5, "lo": 3.25, "hi": 21.75},
                  "win_rate_difference": {"mean": 0.02, "lo": -0.01, "hi": 0.05}}}}
    (run / "eval" / "final_vs_heuristic").mkdir(parents=True)
    (run / "eval" / "final_vs_heuristic" / "report.json").write_text(json.dumps(report))
    text = ladder.show(data, str(run))
    assert "hoch_tief (4 players; judged on score difference)" in text
    assert "+20.00 [+16.00, +24.00]" in text
    assert "this run (network)" in text and "+12.50 [+3.25, +21.75]" in text
    assert "wizard (4 players" in text  # the fresh run's game gets its table


def test_measure_records_each_match_with_its_command_once(tmp_path, monkeypatch):
    path = str(tmp_path / "ladder.json")
    monkeypatch.setattr(ladder, "MATCHES", (
        ladder.Match("heuristic_vs_random", "heuristic", "heuristic", "random", 8),))
    data = ladder.measure(["geheimtrumpf"], workers=1, out_dir=str(tmp_path / "eval"), path=path)
    entry = data["games"]["geheimtrumpf"]["heuristic_vs_random"]
    assert entry["games"] == 8 and entry["player"] == "heuristic"
    assert entry["command"] == ("stichzoo eval geheimtrumpf --players 4 --policies 'heuristic' "
                                "'random' --games 8 --seed 2027")
    assert os.path.exists(tmp_path / "eval" / "geheimtrumpf_heuristic_vs_random" / "report.json")
    before = os.path.getmtime(path)
    ladder.measure(["geheimtrumpf"], workers=1, out_dir=str(tmp_path / "eval"), path=path)
    assert os.path.getmtime(path) == before, "a recorded match is not played again"


def test_the_target_match_records_both_sides_think_time(tmp_path, monkeypatch):
    """The target is played on its own seed and games per game, and its row carries both
    sides' think time on the same positions, with the command that times them."""
    path = str(tmp_path / "ladder.json")
    monkeypatch.setattr(ladder, "THINK_DECISIONS", 3)
    monkeypatch.setattr(ladder, "MATCHES", (
        ladder.Match("search_target", "target", "heuristic", "random", 8, seed=5,
                     more_games=(("silberne_ananas", 12),), think=True),))
    data = ladder.measure(["geheimtrumpf"], workers=1, out_dir=str(tmp_path / "eval"), path=path)
    entry = data["games"]["geheimtrumpf"]["search_target"]
    assert entry["command"].endswith("--games 8 --seed 5")
    assert ladder.MATCHES[0].games_of("silberne_ananas") == 12
    t = entry["think_ms"]
    assert t["decisions"] == 3 and t["player"] > 0 and t["opponent"] > 0
    assert t["command"] == ("python scripts/bench/search_time.py --games geheimtrumpf "
                            "--decisions 3 --specs 'random' 'heuristic'")
    assert "think " in ladder.format_row("target", "random", entry, "geheimtrumpf")


def test_a_row_that_thinks_longer_is_marked():
    entry = {**_entry(4, 1, 7), "command": "X",
             "think_ms": {"player": 6.0, "opponent": 5.0, "decisions": 100, "command": "Y"}}
    assert ladder._think(entry) == "6.00 / 5.00 ms (thinks longer)"
    entry["think_ms"]["player"] = 5.2  # within the timing's slack
    assert ladder._think(entry) == "5.20 / 5.00 ms"
    text = ladder.markdown({"schema": ladder.SCHEMA, "seed": ladder.SEED,
                            "games": {"wizard": {"search_target": entry}}})
    assert "| above | 5.20 / 5.00 ms | `X`<br>`Y` |" in text


def test_the_target_decides_the_learned_search_rung():
    matches = {"search_vs_pimc": _entry(2, -10, 14), "search_target": _entry(5, 1, 9)}
    assert ladder.placement("wizard", matches) == "random < learned search"
    from stichzoo.policies.serve import levels

    for game, found in ladder.load()["games"].items():  # the served "hard" level reads it too
        if "search_target" in found:
            assert levels.rule_strength(game, "search")[0]["games"] == found["search_target"][
                "games"]


def test_a_foreign_file_is_refused(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"schema": "something/else"}))
    with pytest.raises(ValueError, match="not a ladder file"):
        ladder.load(str(bad))


def test_the_committed_ladder_names_its_commands():
    data = ladder.load()
    for game, matches in data["games"].items():
        assert game in ladder.PLAYERS
        for key, entry in matches.items():
            match = next(m for m in ladder.MATCHES if m.key == key)
            assert entry["command"] == match.command(game)


def test_markdown_lists_every_rung_with_its_command():
    data = {"schema": ladder.SCHEMA, "seed": ladder.SEED,
            "games": {"wizard": {"search_vs_pimc": {**_entry(4, 1, 7), "command": "X"}}}}
    text = ladder.markdown(data)
    assert "| wizard | learned search | pimc | 100 | +4.00 [+1.00, +7.00]" in text
    assert "| above |  | `X` |" in text
    assert "- wizard: random < heuristic < pimc < learned search" in text


def test_the_cli_prints_the_ladder(capsys):
    from stichzoo.training import cli

    assert cli.main(["ladder"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("The ladder") and "wizard (4 players" in out
    assert cli.main(["ladder", "--markdown"]) == 0
    assert "| game | bot | vs |" in capsys.readouterr().out


def test_the_docs_show_the_committed_ladder():
    """The results page's table is ``stichzoo ladder --markdown`` of policies/ladder.json,
    verbatim: the docs build (scripts/docs_pages.py) puts it where the page's marker is."""
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    with open(os.path.join(root, "docs", "results.md")) as f:
        assert "\n<!-- generated: ladder -->\n" in f.read()
    docs_pages = load_script("scripts/docs_pages.py")
    page = docs_pages.pages(reference=False)["results.md"]
    assert "<!-- generated:" not in page
    table = ladder.markdown(ladder.load())
    assert "\n" + table + "\n" in page


def test_each_games_table_is_its_shipped_bots_table():
    """The ladder's table per game comes from the registry (the rules' default player count);
    the shipped bot of each game was trained there."""
    from stichzoo.envs.registry import GAMES
    from stichzoo.policies.runtimes.onnx_policy import read_manifest, shipped_bot

    assert set(ladder.PLAYERS) == set(GAMES)
    for game, players in ladder.PLAYERS.items():
        assert read_manifest(shipped_bot(game))["num_players"] == players, game
