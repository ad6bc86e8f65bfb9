"""``stichzoo play``, driven as a person would: in a pseudo-terminal, key by key (pexpect).

Each game is played to its end screen with fast bots and a short game option;
on the way the person types a wrong number, garbage and a label, asks for
help, and each time gets a message and the prompt again.  The record saved
at the end must replay to the totals the end screen showed.  Leaving early
(``q``, Ctrl-C, end of input) exits cleanly, and a bad opponent spec is one
line and exit status 2.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from stichzoo.envs.core.record import replay
from stichzoo.policies.tables.terminal import split_specs, suit_of

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parents[2]
PROMPT = r"Your move \(1-(\d+), a label"
SAVED = r"Record saved to (\S+\.json)"
TOTALS = r"Final totals \(seat 0\.\.\d\): (-?\d+(?:, -?\d+)*)"
ANALYSIS = "Analysis of your moves? (y/N): "
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

#: a short game of each, the person's seat and the bots
GAMES = {
    "wizard": (["--option", "rounds=[1,2]"], 1, "heuristic,random"),
    "wunder_punkt": (["--option", "rounds=1", "--players", "3"], 0, "random"),
    "silberne_ananas": (["--option", "match=false"], 2, "heuristic,random"),
    "hoch_tief": (["--option", "rounds=1", "--players", "3"], 1, "heuristic"),
    "geheimtrumpf": (["--option", "round_limit=1", "--players", "3"], 0, "random,heuristic"),
}


#: what each game's screen must have shown on the way (game-specific parts of the table)
SHOWN = {
    "wizard": ["Turned card:", "Bid", "End of round 1", "End of round 2", "Trump:"],
    "wunder_punkt": ["laid a sore card face down", "Revealed sore cards", "Sore card"],
    "silberne_ananas": ["(the Joker) gave the trick to", "Joker gift", "Middle bonus"],
    "hoch_tief": ["takes the rest", "Would score", "Taken"],
    "geheimtrumpf": ["announced row winners", "Open hands", "Trumps:", "start player: checked",
                     "Nobody won: the round limit ended the game."],
}


def _env() -> dict:
    env = dict(os.environ)
    env.update(NO_COLOR="1", TERM="dumb", COLUMNS="200", LINES="60", PYTHONUNBUFFERED="1")
    return env


def _default_sigint() -> None:
    """In the child before exec: Ctrl-C as a fresh terminal has it.

    An ignored or blocked SIGINT survives exec, and the test worker may hold
    either after other tests; Python then never raises KeyboardInterrupt.
    """
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _spawn(args: list[str], cwd: Path):
    child = pexpect.spawn(sys.executable, ["-m", "stichzoo.training.cli", "play", *args],
                          cwd=str(cwd), env=_env(), encoding="utf-8", timeout=30,
                          dimensions=(60, 200), preexec_fn=_default_sigint)
    child.logfile_read = io.StringIO()  # the whole screen, for what it must have shown
    # pexpect waits 50 ms before each send by default, for a child that turns echo off
    # first; every send here answers a prompt already seen (a game's sends slept 1.5 s)
    child.delaybeforesend = None
    return child


def _screen(child) -> str:
    return ANSI.sub("", child.before or "")


def _play_to_the_end(child, label_at: int = 2, analysis: str = "n") -> tuple[list[int], str]:
    """Answer every prompt with move 1 (move ``label_at``: by its label), and ``analysis``
    to the offer of the analysis at the end; the totals shown and the record path."""
    turns = 0
    while True:
        i = child.expect([PROMPT, SAVED])
        if i == 1:
            break
        screen = _screen(child)
        if turns == label_at + 1:
            assert "is not a legal move" not in screen  # the label was taken
        if turns == label_at:
            moves = screen[screen.rindex("Your moves:"):]
            child.sendline(re.search(r" 1: (\S+(?: \S+)?)(?:  |\s*$)", moves).group(1))
        else:
            child.sendline("1")
        turns += 1
    path = child.match.group(1)
    before = _screen(child)
    totals = [int(x) for x in re.search(TOTALS, before).group(1).split(", ")]
    assert "Game over" in before and turns >= 3
    child.expect(re.escape(ANALYSIS))
    child.sendline(analysis)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, before[-2000:]
    assert "Traceback" not in before
    return totals, path


@pytest.mark.parametrize("game", list(GAMES))
def test_a_whole_game_in_the_terminal(game, tmp_path):
    extra, seat, bots = GAMES[game]
    record = tmp_path / "game.json"
    child = _spawn([game, *extra, "--seat", str(seat), "--seed", "5", "--opponents", bots,
                    "--record", str(record)], tmp_path)
    child.expect(PROMPT)
    n = int(child.match.group(1))
    screen = _screen(child)
    assert "Your hand:" in screen and "Previous trick:" in screen and "You" in screen
    for bad, answer in [(str(n + 1), f"There is no move {n + 1}: choose a number from 1 to {n}"),
                        ("0", "There is no move 0"),
                        ("garbage", "'garbage' is not a legal move now. Legal moves:"),
                        ("", "Type the number of a move"),
                        ("?", "leave the table")]:
        child.sendline(bad)
        child.expect(re.escape(answer))
        child.expect(PROMPT)  # and the prompt again
    child.sendline("1")
    totals, path = _play_to_the_end(child)
    assert Path(path) == record
    saved = json.loads(record.read_text())
    state = replay(saved)  # the record replays - to the totals on the screen
    assert list(state.totals) == totals == saved["totals"]
    assert saved["seed"] == 5 and (saved["over"] or saved["truncated"])
    transcript = ANSI.sub("", child.logfile_read.getvalue())
    for words in SHOWN[game]:
        assert words in transcript, words


def test_the_same_seed_replays_the_same_game(tmp_path):
    records = []
    for k in range(2):
        child = _spawn(["wizard", "--option", "rounds=[2]", "--seed", "9", "--opponents",
                        "heuristic,random", "--record", str(tmp_path / f"{k}.json")], tmp_path)
        _play_to_the_end(child)
        records.append(json.loads((tmp_path / f"{k}.json").read_text()))
    assert records[0] == records[1]


def test_the_default_record_name_is_told(tmp_path):
    child = _spawn(["hoch_tief", "--players", "3", "--option", "rounds=1", "--seed", "3",
                    "--opponents", "random"], tmp_path)
    _, path = _play_to_the_end(child)
    assert Path(path) == tmp_path / "stichzoo-hoch_tief-3.json" and Path(path).is_file()


@pytest.mark.parametrize("leave", ["q", "quit", "ctrl-c", "eof"])
def test_leaving_is_clean(leave, tmp_path):
    child = _spawn(["wizard", "--option", "rounds=[3]", "--seed", "1", "--opponents", "random"],
                   tmp_path)
    child.expect(PROMPT)
    if leave == "ctrl-c":
        child.sendintr()
    elif leave == "eof":
        child.sendeof()
    else:
        child.sendline(leave)
    child.expect("You left the table")
    child.expect(pexpect.EOF)
    out = _screen(child)
    child.close()
    assert child.exitstatus == 0 and "Traceback" not in out
    assert not list(tmp_path.glob("*.json"))  # an unfinished game saves no record


@pytest.mark.parametrize("args,words", [
    (["wizard", "--opponents", "nonsense"], "unknown policy 'nonsense'"),
    (["wizard", "--opponents", "a,b,c,d"], "4 opponents for the 3 bot seats"),
    (["wizard", "--seat", "7"], "human seat must be an integer in 0..3"),
    (["silberne_ananas", "--players", "4"], "exactly 3 players"),
    (["wizard", "--option", "rounds=[99]"], "rounds"),
    (["wizard", "--record", "/no/such/folder/x.json"], "does not exist"),
])
def test_bad_arguments_are_one_line_and_status_2(args, words, tmp_path):
    run = subprocess.run([sys.executable, "-m", "stichzoo.training.cli", "play", *args],
                         cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith("stichzoo: error:") and words in run.stderr, run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr


def test_opponent_specs_split_on_commas_but_keep_their_arguments():
    assert split_specs(["heuristic,pimc:worlds=8,rollouts=2,bot:wizard"]) == \
        ["heuristic", "pimc:worlds=8,rollouts=2", "bot:wizard"]
    assert split_specs(["random", "heuristic, random"]) == ["random", "heuristic", "random"]


def test_hands_are_grouped_by_suit():
    assert suit_of("wizard", "W3") == "W" and suit_of("wizard", "R12") == "R"
    assert suit_of("silberne_ananas", "Joker") == "Joker" and suit_of("wunder_punkt", "10h") == "h"
    assert suit_of("hoch_tief", "E12") == "E" and suit_of("geheimtrumpf", "AH") == "H"


def test_without_rich_the_command_says_what_to_install(monkeypatch, capsys):
    from stichzoo.training.cli import main

    for name in [m for m in sys.modules if m.startswith("rich.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "rich", None)  # as if rich were not installed
    monkeypatch.delitem(sys.modules, "stichzoo.policies.tables.terminal", raising=False)
    assert main(["play", "hoch_tief", "--players", "3"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'stichzoo[play]'" in err and "Traceback" not in err


def test_hint_and_the_analysis_at_the_end(tmp_path):
    """``hint`` at a decision: the suggested move (by its number) and each other move's
    estimated loss with its standard error, then the prompt again; ``?`` lists it.  At the
    end, ``y`` to the offer shows each decision with a choice beside the search's."""
    child = _spawn(["wizard", "--option", "rounds=[3]", "--seed", "5", "--opponents",
                    "heuristic", "--record", str(tmp_path / "g.json")], tmp_path)
    child.expect(PROMPT)
    n = int(child.match.group(1))
    child.sendline("?")
    child.expect(r"hint\s+the search's suggested move")
    child.expect(PROMPT)
    child.sendline("hint")
    child.expect(r"Suggested: (\d): bid (\d)")
    suggested, bid = child.match.group(1), child.match.group(2)
    child.expect(PROMPT)
    hint = _screen(child)
    others = re.findall(r"(\d): bid \d\s+(\d+(?:\.\d+)?) points? worse \(\u00b1 (\d+(?:\.\d+)?)\)",
                        hint)
    assert sorted([suggested] + [k for k, _, _ in others]) == [str(k) for k in range(1, n + 1)]
    assert all(float(loss) > 0 for _, loss, _ in others)
    child.sendline("1")  # bid 0
    _play_to_the_end(child, analysis="y")
    out = ANSI.sub("", child.logfile_read.getvalue())
    panel = out[out.index("Analysis: your moves beside the search's"):]
    search = "same" if suggested == "1" else f"bid {bid}"  # the analysis is the hint
    assert re.search(rf"\n\D*1\s+bid 0\s+{search}\s", panel), panel
    assert "decisions with a choice (forced moves skipped)" in panel
