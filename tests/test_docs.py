"""The README and docs/ cannot rot: their Python examples run, their commands parse.

Every ```python block of README.md and docs/**/*.md is executed.  Blocks in
a page about one game (docs/views/<game>.md) run with ``game``, ``state``
and ``seat`` bound to a mid-game table of that game, the names their
one-line examples use.  Every ``stichzoo ...`` command line in a ```bash
block must be accepted by the real argument parser, and every script,
config and docs file a command names must exist.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import shlex
from pathlib import Path

import pytest

from stichzoo import envs

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PLAYERS = {"silberne_ananas": 3}
_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def _blocks(lang: str) -> list[tuple[str, int, str]]:
    out = []
    for page in PAGES:
        text = page.read_text()
        for m in _BLOCK.finditer(text):
            if m.group(1) == lang:
                line = text.count("\n", 0, m.start()) + 1
                out.append((str(page.relative_to(ROOT)), line, m.group(2)))
    return out


def _table(game_name: str) -> dict:
    """A game, a state some random legal moves into it, and the seat to act."""
    cls = envs.game_class(game_name)
    game = cls(cls.Options(num_players=PLAYERS.get(game_name, 4)))
    state = game.new_game(seed=3)
    rng = random.Random(3)
    for _ in range(7):
        state.step(rng.choice(state.legal_actions()))
    return {"game": game, "state": state, "seat": state.current_player}


def test_every_page_has_been_found():
    names = {p.name for p in PAGES}
    assert {"README.md", "bots.md", "records.md", "wizard.md"} <= names
    assert len(_blocks("python")) >= 5


@pytest.mark.parametrize("page,line,code", [pytest.param(*b, id=f"{b[0]}:{b[1]}")
                                            for b in _blocks("python")])
def test_python_example_runs(page, line, code, monkeypatch):
    monkeypatch.chdir(ROOT)
    namespace: dict = {"__name__": "__doc_example__"}
    stem = Path(page).stem
    if page.startswith("docs/views/") and stem in envs.GAMES:
        namespace.update(_table(stem))
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, f"{page}:{line}", "exec"), namespace)


def _command_lines(code: str):
    """Each logical line of a bash block (continuations joined), comments removed."""
    for raw in code.replace("\\\n", " ").splitlines():
        line = raw.split(" #", 1)[0].strip()
        if line and not line.startswith("#"):
            yield line


def _stichzoo_commands() -> list[tuple[str, str]]:
    cmds = []
    for page, _line, code in _blocks("bash"):
        for line in _command_lines(code):
            words = shlex.split(line)
            if words and words[0].endswith("stichzoo"):
                cmds.append((page, line))
    return cmds


@pytest.mark.parametrize("page,line", _stichzoo_commands())
def test_stichzoo_command_parses(page, line):
    from stichzoo.training.cli import build_parser

    words = [w for w in shlex.split(line)[1:]]
    # placeholders such as runs/<run> stand for a path the reader chooses
    words = [re.sub(r"<[^>]+>", "x", w) for w in words]
    parser = build_parser()
    with contextlib.redirect_stderr(io.StringIO()) as err:
        try:
            parser.parse_args(words)
        except SystemExit as e:
            pytest.fail(f"{page}: `{line}` is refused by the parser: {err.getvalue()} ({e})")


def test_paths_named_in_commands_exist():
    missing = []
    for page, _line, code in _blocks("bash"):
        for line in _command_lines(code):
            for word in shlex.split(line):
                named = re.fullmatch(r"(scripts|configs|docs)/[\w./-]+\.(sh|py|yaml|md)", word)
                if named and not (ROOT / word).exists():
                    missing.append(f"{page}: {word}")
    assert not missing, missing
    assert len(_stichzoo_commands()) >= 8
