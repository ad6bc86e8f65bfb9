"""The docs site's generated pages: environments, results tables, layout, API reference.

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
- ``arena.md``: the hand-written page with the arena's leaderboard
  (``policies/arena_leaderboard.json``) in place of its marker.
- ``layout.md``: the map of the repository - every package and module of
  ``stichzoo`` (envs/, policies/, training/, configs/) with the summary of its
  docstring, grouped by package, then every config and script with the first
  sentence of its header comment; the lab wing (a ``lab`` folder, and
  ``scripts/probes/``) is marked.  Read from the files (``ast``), never
  imported, so a lab module that needs an extra still has its line.
- ``reference/``: one page per public module of the installed ``stichzoo``
  package (private modules - a name part starting with ``_`` - skipped),
  with a literate-nav ``SUMMARY.md``.  mkdocstrings reads the sources
  statically through ``build/docs_pkg/stichzoo``, a tree of links that puts
  the folders where pyproject's ``package-dir`` installs them.

``pages()`` returns every generated page as text (the docs tests execute
their python blocks too).
"""

from __future__ import annotations

import ast
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


def arena_leaderboard() -> str:
    """The arena's leaderboard (``policies/arena_leaderboard.json``, filled by
    ``scripts/arena_examples/full_budget.sh``), newest entry first."""
    from stichzoo.training.evaluation import arena

    return arena.leaderboard_markdown(arena.DOCS_LEADERBOARD)


GENERATED = {"shipped-bots": shipped_bots_table, "ladder": ladder_table,
             "arena-leaderboard": arena_leaderboard}


def fill(text: str) -> str:
    """A hand-written page with each ``<!-- generated: NAME -->`` marker replaced by its table."""
    def table(m: re.Match) -> str:
        if m.group(1) not in GENERATED:
            raise SystemExit(f"docs: unknown generated table {m.group(1)!r}; known: "
                             f"{', '.join(GENERATED)}")
        return GENERATED[m.group(1)]()
    return _MARKER.sub(table, text)


# ---------------------------------------------------------------- layout

#: the top folders that are no package of stichzoo, and what each holds
FOLDERS = {
    "scripts": "entry points run by path: setup, tests, docs, the main job, the browser table, "
               "and the folders below",
    "tests": "the test suite (pytest): rules, env API and contract, leaks, policies, training, "
             "export, server, tables, docs",
    "docs": "this site's pages (mkdocs.yml); the generated ones come from scripts/docs_pages.py",
}
#: script folders and the role of each (the lab wing: probes)
SCRIPT_FOLDERS = {
    "scripts": "user entry points",
    "scripts/recipes": "recipes: the commands that make the shipped bots",
    "scripts/figures": "figures: remake a documented table or plot",
    "scripts/arena_examples": "the arena's worked examples and their docs' run (docs: arena)",
    "scripts/checks": "checks: compare the engines against each other",
    "scripts/bench": "speed benchmarks (docs: speed)",
    "scripts/probes": "probes: the lab's measurements (docs: lab)",
}
_LAB = "lab"


def summary(doc: str | None) -> str:
    """The summary of a docstring: its first paragraph, cut after the first sentence
    when it runs long - one line of the map, whatever the docstring's line breaks.
    reST's ``code`` and ``:mod:`x``` roles read as Markdown code."""
    para = " ".join(line.strip() for line in (doc or "").strip().split("\n\n")[0].splitlines())
    para = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", para).replace("``", "`")
    if len(para) > 160:
        end = re.search(r"(?<=[a-z)\]`'\"])\.(\s|$)", para)
        para = para[:end.start() + 1] if end else para
    if len(para) > 240:
        para = para[:para.rfind(" ", 0, 230)]
        para += "` ..." if para.count("`") % 2 else " ..."  # close a code span cut in two
    return para.replace("|", "\\|") or "(no docstring)"


def module_summary(path: Path) -> str:
    """A module's docstring summary, read from its source (nothing imported)."""
    return summary(ast.get_docstring(ast.parse(path.read_text(), str(path))))


def header_summary(path: Path) -> str:
    """The first sentence of a file's leading comment block (shell scripts, YAML configs)."""
    lines = []
    for line in path.read_text().splitlines():
        if line.startswith("#!"):
            continue
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    return summary("\n".join(lines)) if lines else "(no header)"


def layout_modules(tree: Path) -> list[tuple[str, Path]]:
    """Every module of ``stichzoo`` as installed (dotted name, source file), packages as
    their ``__init__.py`` and private modules included, sorted by name."""
    found = []
    top = tree / "stichzoo"
    for folder, dirs, files in os.walk(top, followlinks=True):
        dirs[:] = sorted(d for d in dirs if (Path(folder) / d / "__init__.py").exists())
        base = Path(folder).relative_to(tree).parts
        for name in files:
            if name.endswith(".py"):
                parts = base if name == "__init__.py" else (*base, name[:-3])
                found.append((".".join(parts), Path(folder) / name))
    return sorted(found)


def is_lab(name: str) -> bool:
    """A module or file of the lab wing: inside a ``lab`` folder, or a probe script."""
    parts = re.split(r"[./]", name)
    return _LAB in parts or name.startswith("scripts/probes")


#: the order of the top packages in the map: the games, the bots, training, the recipes
_TOP = ("stichzoo", "stichzoo.envs", "stichzoo.policies", "stichzoo.training", "stichzoo.configs")


def _package_order(name: str) -> tuple[int, str]:
    return _TOP.index(".".join(name.split(".")[:2])), name


def _mark(name: str) -> str:
    return " **lab**" if is_lab(name) else ""


def layout_page(tree: Path) -> str:
    """The repository map: each package of stichzoo with its modules, then configs and
    scripts, every line from the file's own docstring or header."""
    modules = layout_modules(tree)
    packages = [name for name, path in modules if path.name == "__init__.py"]
    docs = dict(modules)
    out = ["# Layout", "",
           "The map of the repository, generated at every build from the files themselves "
           "(`scripts/docs_pages.py`): each package and module of `stichzoo` with the summary "
           "of its docstring, then the configs and scripts with their header's first sentence. "
           "The folders `envs/`, `policies/`, `training/` and `configs/` install as "
           "`stichzoo.envs`, `.policies`, `.training` and `.configs` (pyproject's "
           "`package-dir`). **lab** marks the lab wing - levers tried for strength that no "
           "shipped bot, ladder rung, bot level or documented command uses "
           "([the lab](lab/index.md)); the product never imports it, and the wheel leaves "
           "it out.", "",
           "| folder | what |", "|---|---|"]
    for folder in ("envs", "policies", "training", "configs"):
        out.append(f"| `{folder}/` | {module_summary(docs[f'stichzoo.{folder}'])} |")
    out.append(f"| `stichzoo/` | {module_summary(docs['stichzoo'])} |")
    out += [f"| `{folder}/` | {text} |" for folder, text in FOLDERS.items()]
    for package in sorted(packages, key=_package_order):
        depth = max(package.count("."), 1)
        own = [(n, p) for n, p in modules if n.rsplit(".", 1)[0] == package
               and p.name != "__init__.py"]
        subs = [n for n in packages if n != package and n.rsplit(".", 1)[0] == package]
        out += ["", f"{'#' * min(depth + 1, 4)} `{package}`{_mark(package)}", "",
                module_summary(docs[package]), ""]
        if own or subs:
            out += ["| module | what |", "|---|---|"]
            out += [f"| `{n.rsplit('.', 1)[1]}` (package) | {module_summary(docs[n])}{_mark(n)} |"
                    for n in subs]
            out += [f"| `{n.rsplit('.', 1)[1]}` | {module_summary(p)}{_mark(n)} |"
                    for n, p in own]
        if package == "stichzoo.configs":
            out += ["", "| config | what |", "|---|---|"]
            for config in sorted((ROOT / "configs").rglob("*.yaml")):
                name = str(config.relative_to(ROOT))
                out.append(f"| `{name}` | {header_summary(config)}{_mark(name)} |")
    out += ["", "## `scripts/`", "", SCRIPT_FOLDERS["scripts"][0].upper()
            + SCRIPT_FOLDERS["scripts"][1:] + " at the top, the rest by role:"]
    for folder, role in SCRIPT_FOLDERS.items():
        files = sorted(f for f in (ROOT / folder).glob("*") if f.suffix in (".py", ".sh"))
        if not files:
            continue
        if folder != "scripts":
            out += ["", f"### `{folder}/`{_mark(folder)}", "", role[0].upper() + role[1:] + "."]
        out += ["", "| script | what |", "|---|---|"]
        out += [f"| `{f.name}` | "
                f"{module_summary(f) if f.suffix == '.py' else header_summary(f)} |" for f in files]
    return "\n".join(out) + "\n"


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
    out["layout.md"] = layout_page(package_tree())
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
