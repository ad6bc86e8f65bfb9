"""The README and docs/ cannot rot: their Python examples run, their commands parse.

Every ```python block of README.md, docs/**/*.md and the pages the docs build
generates (scripts/docs_pages.py: one page per environment, the results
tables) is executed, fences indented in a list item included.  A block that
is deliberately not a whole program is marked a *fragment* in its opening
fence - ```python title="fragment" - which MkDocs shows as the block's
title and GitHub ignores; fragments are only counted, never run, and every
other python block must run as it stands.  Blocks in
a page about one game (docs/views/<game>.md) run with ``game``, ``state``
and ``seat`` bound to a mid-game table of that game, the names their
one-line examples use.  Every ``stichzoo ...`` command line in a ```bash
block must be accepted by the real argument parser, and every script,
config and docs file a command names must exist.  The generated layout map
names every module, config and script, and the lab's verdict table
(docs/lab/index.md) links every page of the lab.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import shlex
import textwrap
from pathlib import Path

import pytest

from stichzoo import envs
from stichzoo.envs.registry import env_id
from tests.helpers import load_script

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = {"silberne_ananas": 3}
#: the opening fence of a block that is not meant to run on its own
FRAGMENT = 'title="fragment"'
_BLOCK = re.compile(r"^([ \t]*)```(\w+)([^\n]*)\n(.*?)^\1```[ \t]*$", re.S | re.M)


def _generated() -> dict[str, str]:
    """The pages the docs build generates (API reference aside), by path under docs/."""
    return load_script("scripts/docs_pages.py").pages(reference=False)


GENERATED = _generated()


def _pages() -> dict[str, str]:
    """Every page's text by path: README, docs/ as the build sees it (generated ones filled)."""
    pages = {"README.md": (ROOT / "README.md").read_text()}
    for page in sorted((ROOT / "docs").rglob("*.md")):
        pages[str(page.relative_to(ROOT))] = page.read_text()
    pages.update({f"docs/{path}": text for path, text in GENERATED.items()})
    return pages


PAGES = _pages()


def _all_blocks(lang: str) -> list[tuple[str, int, str, str]]:
    """(page, line, code, info) of every block in ``lang``; ``info``: the rest of its fence."""
    out = []
    for page, text in PAGES.items():
        for m in _BLOCK.finditer(text):
            if m.group(2) == lang:
                line = text.count("\n", 0, m.start()) + 1
                code = textwrap.dedent(m.group(1) + m.group(4))
                out.append((page, line, code, m.group(3).strip()))
    return out


def _blocks(lang: str) -> list[tuple[str, int, str]]:
    """The blocks of ``lang`` meant to run (fragments left out)."""
    return [(p, line, code) for p, line, code, info in _all_blocks(lang) if FRAGMENT not in info]


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
    names = {Path(p).name for p in PAGES}
    assert {"README.md", "bots.md", "records.md", "wizard.md", "getting_started.md",
            "results.md", "training.md", "add_a_game.md", "layout.md"} <= names
    assert {"docs/lab/index.md", "docs/lab/expert_iteration.md"} <= set(PAGES)
    assert {f"docs/envs/{g}.md" for g in envs.GAMES} <= set(PAGES)
    assert len(_blocks("python")) >= 5 + len(envs.GAMES)


@pytest.mark.parametrize("game_name", envs.GAMES)
def test_the_import_line_of_each_env_page_works(game_name):
    """The Import row of each env docstring (its page's table) is a statement that runs."""
    row = re.search(r"^\| Import \| `([^`]+)` \|$", GENERATED[f"envs/{game_name}.md"], re.M)
    assert row, f"envs/{game_name}/env.py: its docstring's table has no Import row"
    namespace: dict = {}
    exec(row.group(1), namespace)
    assert namespace[env_id(game_name)].env().metadata["name"] == env_id(game_name)


def test_every_python_block_runs_or_is_a_fragment():
    """A fence that names anything besides the language must be the fragment marker."""
    odd = [f"{p}:{line} ```python {info}" for p, line, _code, info in _all_blocks("python")
           if info and info != FRAGMENT]
    assert not odd, f"mark a fragment with ```python {FRAGMENT}; found {odd}"


def test_every_docs_page_is_in_the_site():
    """Every page under docs/ is reachable: in mkdocs.yml's nav, or in a folder the nav names."""
    nav = (ROOT / "mkdocs.yml").read_text().split("\nnav:", 1)[1]
    named = set(re.findall(r":\s*([\w/.-]+)\s*$", nav, re.M))
    missing = [p for p in PAGES if p.startswith("docs/")
               and p.removeprefix("docs/") not in named
               and not any(p.removeprefix("docs/").startswith(d) for d in named if d.endswith("/"))]
    assert not missing, f"pages outside the site's nav (mkdocs.yml): {missing}"


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


def test_the_readme_is_short():
    """README.md is the front door (at most 200 lines); measurements live in docs/."""
    assert len(PAGES["README.md"].splitlines()) <= 200


@pytest.mark.parametrize("game_name", envs.GAMES)
def test_the_readme_headlines_are_the_recorded_figures(game_name):
    """Each game's README row quotes the ladder's recorded figures on the game's objective:
    the shipped bot vs the heuristic, and PIMC vs the heuristic (policies/ladder.json and
    the figures it reads from the manifests and the baselines)."""
    from stichzoo.training.evaluation import ladder

    matches = ladder.rungs(ladder.load(), game_name)
    rows = [line for line in PAGES["README.md"].splitlines()
            if line.startswith("| ") and "evidence" in line]
    row = next((r for r in rows if _row_game(r) == game_name), None)
    assert row, f"README: no headline row for {game_name}"
    key = ladder.objective(game_name)
    digits = 3 if key == "win_rate_difference" else 2
    for rung in ("network_vs_heuristic", "pimc_vs_heuristic"):
        stat = matches[rung][key]
        mean = f"{stat['mean']:+.{digits}f}"
        interval = f"[{stat['lo']:+.{digits}f}, {stat['hi']:+.{digits}f}]"
        assert f"**{mean}** {interval}" in row, f"README {game_name}: {rung} is {mean} {interval}"


def _row_game(row: str) -> str:
    """``| Hoch & Tief | ...`` -> ``hoch_tief``."""
    return row.split("|")[1].strip().lower().replace(" & ", "_").replace(" ", "_")


def _slug(heading: str) -> str:
    """The anchor MkDocs (and GitHub) give a heading: lower case, words joined by '-'."""
    text = re.sub(r"[^\w\s-]", "", heading.strip().lower())
    return re.sub(r"[\s]+", "-", text)


def test_the_readme_links_land():
    """Every relative link of README.md names a file that exists, and a heading in it."""
    bad = []
    for target in re.findall(r"\]\(([^)#\s]+)(?:#([\w-]+))?\)", PAGES["README.md"]):
        path, anchor = target
        if "://" in path:
            continue
        if not (ROOT / path).exists():
            bad.append(path)
        elif anchor:
            headings = re.findall(r"^#+ (.+)$", (ROOT / path).read_text(), re.M)
            if anchor not in {_slug(h) for h in headings}:
                bad.append(f"{path}#{anchor}")
    assert not bad, f"README.md links to what is not there: {bad}"


def _layout_sections() -> dict[str, str]:
    """The generated layout page, cut at its headings: heading text -> the text below it."""
    parts = re.split(r"^#+ (.+)$", GENERATED["layout.md"], flags=re.M)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts), 2)}


def _modules() -> list[tuple[str, bool]]:
    """Every module of the installed package, found from the folders pyproject installs
    (not from the docs script): (dotted name, is a package)."""
    import tomllib

    with open(ROOT / "pyproject.toml", "rb") as f:
        package_dir = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    roots = {"stichzoo": ROOT / "stichzoo"}
    roots.update({name: ROOT / folder for name, folder in package_dir.items()})
    found = []
    for name, folder in roots.items():
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder)
            if any(not (folder / Path(*rel.parts[:i]) / "__init__.py").exists()
                   for i in range(1, len(rel.parts))):
                continue  # a folder that is no package (data, scripts)
            if name == "stichzoo" and len(rel.parts) > 1:
                continue  # the stichzoo root holds the other packages' links only
            parts = [*name.split("."), *rel.with_suffix("").parts]
            if parts[-1] == "__init__":
                found.append((".".join(parts[:-1]), True))
            else:
                found.append((".".join(parts), False))
    return found


def test_the_layout_names_every_module():
    """Each package has its section in the map, each module a row in its package's table,
    and everything in a lab folder is marked lab."""
    sections = _layout_sections()
    missing, unmarked = [], []
    for name, is_package in _modules():
        if name == "stichzoo":
            continue
        parent, _, leaf = name.rpartition(".")
        lab = "lab" in name.split(".")
        if is_package:
            heading = f"`{name}`" + (" **lab**" if lab else "")
            if heading not in sections:
                missing.append(name)
            if parent != "stichzoo" and f"| `{leaf}` (package) |" not in sections.get(
                    f"`{parent}`" + (" **lab**" if "lab" in parent.split(".") else ""), ""):
                missing.append(f"{name} (in {parent})")
            continue
        section = next((text for head, text in sections.items()
                        if head.split()[0] == f"`{parent}`"), "")
        row = next((line for line in section.splitlines()
                    if line.startswith(f"| `{leaf}` |")), None)
        if row is None:
            missing.append(name)
        elif lab and "**lab**" not in row:
            unmarked.append(name)
    assert not missing, f"docs/layout.md (scripts/docs_pages.py) lacks: {missing}"
    assert not unmarked, f"docs/layout.md does not mark these lab modules: {unmarked}"


def test_the_layout_names_every_config_and_script():
    page = GENERATED["layout.md"]
    configs = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "configs").rglob("*.yaml"))]
    scripts = [p.name for folder in ("scripts", "scripts/recipes", "scripts/figures",
                                     "scripts/checks", "scripts/bench", "scripts/probes")
               for p in sorted((ROOT / folder).glob("*")) if p.suffix in (".py", ".sh")]
    missing = [c for c in configs if f"| `{c}` |" not in page]
    missing += [s for s in scripts if f"| `{s}` |" not in page]
    assert not missing, f"docs/layout.md lacks: {missing}"
    assert all(f"| `{c}` |" in page and "**lab**" in page.split(f"| `{c}` |")[1].split("\n")[0]
               for c in configs if c.startswith("configs/lab/"))


def test_the_lab_index_links_every_lab_page():
    """The verdict table is the lab's front door: every method page has rows in it, and
    every row names its lever, game, figure, verdict, command and page."""
    index = PAGES["docs/lab/index.md"]
    rows = [line for line in index.splitlines()
            if line.startswith("| ") and "](" in line.rsplit("|", 2)[-2]]
    linked = {m for row in rows for m in re.findall(r"\]\(([\w]+\.md)#", row.rsplit("|", 2)[-2])}
    pages = {p.name for p in (ROOT / "docs" / "lab").glob("*.md")} - {"index.md"}
    assert pages <= linked, f"lab pages without a row in docs/lab/index.md: {pages - linked}"
    cells = [row.strip("|").split(" | ") for row in rows]
    bad = [row for row, cell in zip(rows, cells)
           if len(cell) != 6 or "`" not in cell[4] or "..." in cell[4]]
    assert not bad, f"rows of docs/lab/index.md without six cells or a whole command: {bad[:3]}"
