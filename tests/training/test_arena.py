"""The arena (training/evaluation/arena.py) and its worked examples on a tiny budget.

The examples (scripts/arena_examples/, docs/arena.md) each play a few games against the
cheap rungs here; scripts/arena_examples/full_budget.sh rates them on the docs' budget.
"""

from __future__ import annotations

import json
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from stichzoo.policies import outside
from stichzoo.training import cli
from stichzoo.training.evaluation import arena
from stichzoo.training.evaluation.arena_args import RUNG_KEYS
from tests.helpers import ROOT

TEN_LINES = f"python:{ROOT / 'scripts' / 'arena_examples' / 'ten_line_bot.py'}:Bot"
NODE_BOT = f"cmd:node {shlex.quote(str(ROOT / 'scripts' / 'arena_examples' / 'bot.js'))}"
QUIET = {"progress": False, "say": lambda *a: None}


def tiny(challenger: str, **kw) -> arena.ArenaConfig:
    """Four games against random and the heuristic, five timed positions, one worker."""
    return arena.ArenaConfig(game="wizard", challenger=challenger,
                             **{"games": 4, "workers": 1, "rungs": ["random", "heuristic"],
                                "think_decisions": 5, **kw})


def check_played(result: dict, rungs=("random", "heuristic")) -> None:
    assert list(result["rungs"]) == list(rungs)
    for r in result["rungs"].values():
        assert r["games"] == 4 and r["forfeits"] is None, r
        assert r["score_difference"]["mean"] is not None
    t = result["think_ms"]["challenger"]
    assert t["decisions"] == 5 and t["forfeits"] == 0 and t["p99"] >= 0
    assert result["forfeits"] == 0


def test_the_rungs_are_the_ladders_and_the_command_line_offers_them():
    assert tuple(k for k, _, _ in arena.RUNGS) == RUNG_KEYS
    specs = arena.rung_specs("wizard")
    assert specs["network"] == "bot:wizard"
    assert specs["search"] == "pimc:guide=bot:wizard,follow=bid"
    assert arena.ARENA_SEED not in (0, 1, 2, 2027, 86420, 104729)


def _rung(label: str, verdict: str) -> dict:
    return {"label": label, "verdict": verdict}


@pytest.mark.parametrize("verdicts,words", [
    (("above", "above", "above", "below"), "between PIMC and the learned search"),
    (("above", "below", "below", "below"), "between random and heuristic"),
    (("below", "below", "below", "below"), "below random"),
    (("above", "above", "above", "above"), "above the learned search, the top of the climb"),
    (("above", "level", "below", "below"), "level with heuristic, above random, below PIMC"),
    (("above", "above", "n/a", "n/a"), "above heuristic; no verdict against PIMC, the learned"),
    (("n/a",) * 4, "no verdict"),
])
def test_the_verdict_in_words(verdicts, words):
    rungs = {k: _rung(label, v) for (k, label, _), v in zip(arena.RUNGS, verdicts)}
    assert arena.placement(rungs).startswith(words)


def test_a_rung_with_the_same_result_in_every_deal_is_named_so():
    same = {"label": "the shipped network", "deals": 25,
            "score_difference": {"mean": 0.0, "lo": None, "hi": None}}
    assert arena.rung_verdict(same, "score_difference") == arena.SAME
    assert arena.rung_verdict({**same, "deals": 1}, "score_difference") == "n/a"
    rungs = {"heuristic": {"label": "heuristic", "verdict": "above"},
             "network": {**same, "verdict": arena.SAME}}
    assert arena.placement(rungs).endswith("alone: the same in every deal (it plays as the "
                                           "network)")


def test_a_rung_that_cannot_sit_or_is_the_challenger_is_skipped_with_its_reason():
    cfg = tiny("heuristic", rungs=["heuristic", "network"], options={"rounds": [1, 2]})
    result = arena.run_arena(cfg, **QUIET)
    assert result["rungs"]["heuristic"]["skipped"] == "the challenger itself"
    assert "bot:wizard" in result["rungs"]["network"]["spec"]
    assert result["rungs"]["network"]["skipped"]  # trained for the default table only


def test_the_ten_line_python_bot_and_the_reports(tmp_path):
    result = arena.run_arena(tiny(TEN_LINES), **QUIET)
    check_played(result)
    again = arena.run_arena(tiny(TEN_LINES), **QUIET)
    for rung in (again, result):  # same seed, same games: all but the wall time
        for r in rung["rungs"].values():
            r.pop("wall_seconds")
    assert again["rungs"] == result["rungs"]
    paths = arena.write_reports(result, "stichzoo arena ...", str(tmp_path / "out"))
    assert [p.rsplit("/", 1)[1] for p in paths] == ["arena.json", "arena.md", "arena.png"]
    text = (tmp_path / "out" / "arena.md").read_text()
    assert "**Verdict:" in text and "| heuristic | `heuristic` | 4 |" in text
    board = str(tmp_path / "board.json")
    for _ in range(2):
        arena.add_to_leaderboard(board, arena.leaderboard_entry(result, "stichzoo arena x"))
    entries = arena.load_leaderboard(board)["entries"]
    assert len(entries) == 2 and entries[0]["seed"] == arena.ARENA_SEED
    assert {"command", "versions", "date", "verdict", "think_ms"} <= set(entries[0])
    assert "`stichzoo arena x`" in arena.leaderboard_markdown(board)


def test_the_command_line_end_to_end(tmp_path, capsys):
    board, out = tmp_path / "board.json", tmp_path / "out"
    assert cli.main(["arena", "wizard", "random", "--games", "4", "--workers", "1",
                     "--rungs", "heuristic", "--think-decisions", "3", "--quiet",
                     "--match-think-time", "--leaderboard", str(board), "--out", str(out),
                     "--option", "rounds=[1,2]"]) == 0
    printed = capsys.readouterr().out
    assert "# Arena: `random` on wizard" in printed and "added to the leaderboard" in printed
    entry = json.loads(board.read_text())["entries"][0]
    assert entry["command"].startswith("stichzoo arena wizard random")
    assert entry["options"] == {"rounds": [1, 2]} and entry["match_think_time"]
    with pytest.raises(SystemExit):  # argparse refuses an unknown rung
        cli.main(["arena", "wizard", "random", "--rungs", "nope"])
    assert cli.main(["arena", "wizard", "python:no_such_mod:Bot", "--leaderboard",
                     str(board)]) == 2


def test_pimc_at_the_challengers_think_time():
    cfg = tiny("pimc:worlds=2", rungs=["pimc"], match_think_time=True, games=4)
    result = arena.run_arena(cfg, **QUIET)
    spec = result["rungs"]["pimc"]["spec"]
    assert spec.startswith("pimc:worlds=") and spec != "pimc"
    game = cfg.table()
    assert arena.matched_pimc(game, 10.0, 5.0) == "pimc:worlds=24"  # 12 worlds, twice the time
    assert arena.matched_pimc(game, 0.001, 5.0) == "pimc:worlds=1"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_node_bot_over_json_lines():
    check_played(arena.run_arena(tiny(NODE_BOT), **QUIET))
    outside._kill_all()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_our_own_server_as_an_http_challenger():
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "stichzoo.training.cli", "serve",
                               "--port", str(port), "--levels", "heuristic", "--no-tables"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/bots", timeout=1).read()
                break
            except OSError:
                assert server.poll() is None, "stichzoo serve did not start"
                time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/bots/wizard-heuristic/act"
        result = arena.run_arena(tiny(url), **QUIET)
        check_played(result)
        # the served heuristic is our heuristic: the same moves, so level to the point
        assert result["rungs"]["heuristic"]["score_difference"]["mean"] == 0
    finally:
        server.kill()
        server.wait()


def test_openspiel_ismcts_on_wizard():
    pytest.importorskip("pyspiel")
    cfg = tiny("openspiel:ismcts|simulations=10,deadline_ms=20000",
               options={"rounds": [1]}, rungs=["random"])
    check_played(arena.run_arena(cfg, **QUIET), rungs=("random",))


def test_a_hanging_challenger_ends_in_a_report_with_its_forfeits():
    bot = shlex.quote(str(ROOT / "tests" / "policies" / "misbehaving_bot.py"))
    spec = f"cmd:{shlex.quote(sys.executable)} {bot} hang 3|deadline_ms=200"
    result = arena.run_arena(tiny(spec, rungs=["random"], options={"rounds": [1, 2]}), **QUIET)
    f = result["rungs"]["random"]["forfeits"]
    assert f["games"] >= 1 and set(f["reasons"]) == {"timeout"} and result["forfeits"] >= 1
    text = arena.markdown(result, "x")
    assert "**Forfeits:" in text and "timeout" in text
    outside._kill_all()
