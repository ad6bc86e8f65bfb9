"""The docs site's generated pages: environments, results tables, API reference.

mkdocs-gen-files runs this file at every build (``mkdocs.yml``, plugin
``gen-files``); ``bash scripts/docs.sh`` builds the site.  Nothing here is
typed by hand, so a module that moves, a bot that is retrained or a ladder
match that is measured again never needs a docs edit:

- ``envs/<game>.md``: one page per environment, from the env module's
  docstring (``stichzoo.envs.<game>.env.__doc__``, the single source), in
  PettingZoo's page layout.  A docstring that lacks a section of that layout
  fails the build (:data:`ENV_SECTIONS`).  Its "How to play" section is the
  game's rules for players (``stichzoo.envs.registry.rules_of``, the text the
  web table and the terminal show), so docs and game never differ.
- ``results.md``: the hand-written page with its ``<!-- generated: NAME -->``
  markers replaced by tables made from the recorded data - the shipped bots'
  manifests (``policies/bots/<game>/manifest.json``) and the ladder
  (``policies/ladder.json``, the same text as ``stichzoo ladder --markdown``).
- ``reference/``: one page per public module of the installed ``stichzoo``
  package (private modules - a name part starting with ``_`` - skipped),
  with a literate-nav ``SUMMARY.md``.  mkdocstrings reads the sources
  statically through ``build/docs_pkg/stichzoo``, a tree of links that puts
  the folders where pyproject's ``package-dir`` installs them.

``pages()`` returns every generated page as text (the docs tests execute
their python blocks too).
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import pkgutil
import re
import textwrap
from pathlib import Path

import tomllib

from stichzoo.envs import registry
from stichzoo.envs.registry import rules_of

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
#: where mkdocstrings finds the package as installed (mkdocs.yml: handlers.python.paths)
PACKAGE_TREE = ROOT / "build" / "docs_pkg"
#: the sections every env docstring has (PettingZoo's page layout); agents sit in its table
ENV_SECTIONS = ("Observation Space", "Legal Actions Mask", "Action Space", "Rewards",
                "Arguments", "Version History")
_MARKER = re.compile(r"^<!-- generated: ([\w-]+) -->$", re.M)


# ---------------------------------------------------------------- environments

def env_page(game: str) -> str:
    """The page of one environment, from its env module's docstring."""
    module = importlib.import_module(f"stichzoo.envs.{game}.env")
    doc = textwrap.dedent(module.__doc__ or "").strip("\n")
    env_id = registry.env_id(game)
    missing = [s for s in ENV_SECTIONS if not re.search(rf"^{s}$", doc, re.M)]
    if missing or "| Agents |" not in doc:
        raise SystemExit(f"docs: the docstring of stichzoo.envs.{game}.env lacks "
                         f"{missing or ['the Agents row of its table']} (envs/{game}/env.py)")
    first, _, rest = doc.partition("\n")
    title = first.removesuffix(" as a PettingZoo AEC environment.").strip()
    lines = [f"# {title} (`{env_id}`)", "", f"*{first.strip()}*", "",
             "## How to play", "", _demote(rules_of(game).strip("\n")), "",
             _sections(rest.strip("\n")), "", "## Usage", "",
             "Random legal play through the AEC API (every seat samples from its action mask):",
             "", "```python", f"from stichzoo.envs import {env_id}", "",
             f"env = {env_id}.env()", "env.reset(seed=42)", "for agent in env.agent_iter():",
             "    obs, reward, terminated, truncated, info = env.last()",
             "    action = None if terminated or truncated else "
             "env.action_space(agent).sample(obs[\"action_mask\"])",
             "    env.step(action)", "print(env.unwrapped.rules_state.totals)", "```", "",
             "## See also", "",
             f"- the rules: [`stichzoo.envs.{game}.rules`]"
             f"(../reference/stichzoo/envs/{game}/rules.md) (the rule book is its docstring);",
             f"- the player view for frontends: [views/{game}.md](../views/{game}.md);",
             "- game records: [records.md](../records.md); N games at once: "
             "[the batch engine](../batch.md);",
             f"- this page's source: the docstring of `envs/{game}/env.py`; \"How to play\": "
             f"`envs/{game}/rules.md` (also the web table's and the terminal's rules).", ""]
    return "\n".join(lines)


def _demote(markdown: str) -> str:
    """Headings one level down (``##`` -> ``###``): the rules sit under "How to play"."""
    return re.sub(r"^(#+) ", r"#\1 ", markdown, flags=re.M)


def _sections(text: str) -> str:
    """Docstring sections (a line, then an indented block) as ``##`` headings."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line and not line[0].isspace() and nxt.startswith("    "):
            block = []
            i += 1
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith("    ")):
                block.append(lines[i])
                i += 1
            out += [f"## {line.strip()}", "", textwrap.dedent("\n".join(block)).strip("\n"), ""]
            continue
        out.append(line)
        i += 1
    return "\n".join(out).strip("\n")


def envs_summary(games) -> str:
    """The literate-nav list of docs/envs/: the hand-written overview, then one page a game."""
    return "* [Overview](index.md)\n" + "".join(f"* [{_title(g)}]({g}.md)\n" for g in games)


def _title(game: str) -> str:
    doc = importlib.import_module(f"stichzoo.envs.{game}.env").__doc__ or game
    return doc.strip().splitlines()[0].removesuffix(" as a PettingZoo AEC environment.")


# ---------------------------------------------------------------- results

def _ci(stat: dict, digits: int) -> str:
    return f"{stat['mean']:+.{digits}f} [{stat['lo']:+.{digits}f}, {stat['hi']:+.{digits}f}]"


def shipped_bots_table() -> str:
    """One row per shipped bot, from its manifest: training and the recorded evaluations."""
    from stichzoo import envs
    from stichzoo.policies.runtimes.onnx_policy import shipped_bot

    rows = ["| game (players) | trainer | training wall time | samples | samples/s | "
            "vs random: score diff / win-rate diff [95% CI] | "
            "vs heuristic: score diff / win-rate diff [95% CI] | commands |",
            "|---|---|---:|---:|---:|---|---|---|"]
    for game in envs.GAMES:
        with open(os.path.join(shipped_bot(game), "manifest.json")) as f:
            m = json.load(f)
        prov = m["provenance"]
        ev = prov["evaluation"]
        tr = prov.get("training", {})
        algo = tr.get("algo") or prov.get("config", {}).get("algo", "?")
        cells = []
        commands = [f"`{prov['train_command']}`"]
        for opp in ("vs_random", "vs_heuristic"):
            e = ev[opp]
            cells.append(f"{_ci(e['score_difference'], 2)} / "
                         f"{_ci(e['win_rate_difference'], 3)} ({e['games']} games)")
            commands.append(f"`{e['command']}`")
        minutes = tr.get("wall_seconds", 0) / 60
        rows.append(f"| {_title(game)} ({m['num_players']}) | {algo} | "
                    f"{minutes:.1f} min | {prov.get('steps', 0):,} | {tr.get('fps', 0):,.0f} | "
                    f"{cells[0]} | {cells[1]} | {'<br>'.join(commands)} |")
    return "\n".join(rows)


def ladder_table() -> str:
    """``stichzoo ladder --markdown``: policies/ladder.json with the baselines and manifests."""
    from stichzoo.training.evaluation import ladder

    return ladder.markdown(ladder.load())


GENERATED = {"shipped-bots": shipped_bots_table, "ladder": ladder_table}


def fill(text: str) -> str:
    """A hand-written page with each ``<!-- generated: NAME -->`` marker replaced by its table."""
    def table(m: re.Match) -> str:
        if m.group(1) not in GENERATED:
            raise SystemExit(f"docs: unknown generated table {m.group(1)!r}; known: "
                             f"{', '.join(GENERATED)}")
        return GENERATED[m.group(1)]()
    return _MARKER.sub(table, text)


# ---------------------------------------------------------------- API reference

def package_tree() -> Path:
    """``build/docs_pkg/stichzoo``: links placing each folder as pyproject installs it."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        package_dir = tomllib.load(f)["tool"]["setuptools"].get("package-dir", {})
    top = PACKAGE_TREE / "stichzoo"
    top.mkdir(parents=True, exist_ok=True)
    links = {name: ROOT / "stichzoo" / name for name in os.listdir(ROOT / "stichzoo")
             if name != "__pycache__"}
    for package, folder in package_dir.items():
        parts = package.split(".")
        if len(parts) == 2 and parts[0] == "stichzoo":
            links[parts[1]] = ROOT / folder
    for name in os.listdir(top):
        if name not in links:
            (top / name).unlink()
    for name, target in links.items():
        link = top / name
        if link.is_symlink() and Path(os.readlink(link)) == target:
            continue
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target)
    return PACKAGE_TREE


def public_modules(tree: Path) -> list[str]:
    """Every module of ``stichzoo`` in ``tree``, private ones (``_name``) left out."""
    found = ["stichzoo"]

    def walk(path: Path, prefix: str) -> None:
        for info in sorted(pkgutil.iter_modules([str(path)]), key=lambda i: i.name):
            if info.name.startswith("_"):
                continue
            name = f"{prefix}.{info.name}"
            found.append(name)
            if info.ispkg:
                walk(path / info.name, name)
    walk(tree / "stichzoo", "stichzoo")
    return found


def reference_pages(modules: list[str]) -> dict[str, str]:
    """``reference/<a>/<b>.md`` per module (a package: ``<a>/<b>/index.md``) and SUMMARY.md."""
    pages: dict[str, str] = {}
    packages = {m.rsplit(".", 1)[0] for m in modules if "." in m}
    summary = []
    for mod in modules:
        parts = mod.split(".")
        path = "/".join(parts) + ("/index.md" if mod in packages else ".md")
        pages[f"reference/{path}"] = f"# `{mod}`\n\n::: {mod}\n"
        summary.append("    " * (len(parts) - 1) + f"* [{parts[-1]}]({path})")
    pages["reference/SUMMARY.md"] = "\n".join(summary) + "\n"
    return pages


# ---------------------------------------------------------------- all pages

def pages(reference: bool = True) -> dict[str, str]:
    """Every generated page (path under docs/ -> markdown); the API reference unless told not."""
    from stichzoo import envs

    out = {f"envs/{g}.md": env_page(g) for g in envs.GAMES}
    out["envs/SUMMARY.md"] = envs_summary(envs.GAMES)
    for src in sorted(DOCS.rglob("*.md")):
        text = src.read_text()
        if _MARKER.search(text):
            out[str(src.relative_to(DOCS))] = fill(text)
    if reference:
        out.update(reference_pages(public_modules(package_tree())))
    return out


class _StarredAll(logging.Filter):
    """Drop griffe's note on ``stichzoo.envs.__all__``, which adds the env ids by unpacking
    (``*ENV_IDS``, a list griffe cannot read statically); every other warning still fails."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Unsupported item in stichzoo.envs.__all__: ENV_IDS" not in record.getMessage()


def main() -> None:
    import mkdocs_gen_files

    logging.getLogger("mkdocs.plugins.griffe").addFilter(_StarredAll())

    for path, text in pages().items():
        with mkdocs_gen_files.open(path, "w") as f:
            f.write(text)


if __name__ == "<run_path>":  # run by mkdocs-gen-files (runpy.run_path)
    main()
elif __name__ == "__main__":  # scripts/docs.sh, before mkdocs: mkdocstrings needs the tree at start
    print(package_tree())
