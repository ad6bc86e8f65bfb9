"""No import circles and no upward imports (issue 28, item 4).

The layers: ``stichzoo.envs`` (the games) at the bottom, ``stichzoo.policies``
(the bots) on it, ``stichzoo.training`` on top.  A lower layer never imports a
higher one, and no two modules import each other, directly or round a longer
loop - not even hidden in a function-local import that only runs later.

How the imports are found (:func:`imports_of`): every module of the package is
parsed with :mod:`ast` and *every* import in it counts, at module level or
inside a function, class or ``try``:

- ``import a.b.c`` imports ``a.b.c``; ``from a.b import c`` imports the module
  ``a.b.c`` when there is one, else ``a.b`` (the package's ``__init__``: that
  is where ``c`` comes from); relative imports are resolved;
- ``importlib.import_module("stichzoo....")`` with a literal name imports that
  module; with an f-string (``f"stichzoo.envs.{game}.view"``) it imports
  every module of the package that fits it with each ``{...}`` a game's
  name or env id (every computed name in stichzoo is a per-game module),
  else with each ``{...}`` any one dotted name part, else the package its
  literal start names.  A name
  computed some other way cannot be read from the source; the one such import
  that reaches across layers - a policy file names its network class, which
  ``stichzoo.policies.runtimes.torch_policy`` imports - is checked at run time instead
  (:func:`test_loading_an_old_policy_file_imports_no_training_module`);
- importing ``a.b.c`` also runs ``a`` and ``a.b``'s ``__init__``; those parent
  edges are left out, or every package whose ``__init__`` imports a submodule
  would be a circle with it;
- imports under ``if TYPE_CHECKING:`` never run, so they make no circle and
  are left out of the circle check; they still count for the layers: a type
  of a higher layer in a lower one's signatures is the upward dependency the
  layers forbid.

A circle is a strongly connected component of the module graph with more than
one module (or a module that imports itself); the failure names the modules
of each component and the imports that close it.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from stichzoo.envs.registry import ENV_IDS, GAMES

ROOT = Path(__file__).resolve().parent.parent
#: the package's module roots and their folders (pyproject's ``package-dir``)
FOLDERS = {"stichzoo": "stichzoo", "stichzoo.envs": "envs", "stichzoo.policies": "policies",
           "stichzoo.training": "training"}
#: what a ``{...}`` in an f-string module name stands for: every per-game module
GAME_NAMES = (*GAMES, *ENV_IDS)
#: package -> the packages it must never import
FORBIDDEN = {"stichzoo.envs": ("stichzoo.policies", "stichzoo.training"),
             "stichzoo.policies": ("stichzoo.training",),
             # the server sits on the tables (its web table is their HTTP face), not the reverse
             "stichzoo.policies.tables": ("stichzoo.policies.serve",)}


@dataclass(frozen=True)
class Import:
    """One import statement (or ``import_module`` call) of a module."""

    source: str  #: the importing module
    target: str  #: the imported module of the package
    line: int
    type_checking: bool = False  #: under ``if TYPE_CHECKING:`` (never runs)

    def __str__(self) -> str:
        where = f"{self.source} (line {self.line})"
        return f"{where} imports {self.target}" + (" [TYPE_CHECKING]" if self.type_checking
                                                   else "")


def package_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package -> its file (``pkg`` -> ``pkg/__init__.py``)."""
    out = {}
    for package, folder in FOLDERS.items():
        base = root / folder
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(base).with_suffix("").parts
            if any(not (base.joinpath(*rel[:i]) / "__init__.py").exists()
                   for i in range(len(rel))):
                continue  # a folder that is not a package (no __init__.py)
            if rel[-1] == "__init__":
                rel = rel[:-1]
            out[".".join((package, *rel))] = path
    return out


def _in_package(name: str, modules: dict[str, Path] | set[str]) -> str | None:
    """``name`` or the nearest enclosing module the package has (None: outside it)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _patterns(node: ast.expr) -> list[re.Pattern]:
    """What the module name an ``import_module`` argument gives can be, best guess first:
    with each ``{...}`` a game's name or env id, then any one dotted name part ([]: a name
    the source does not show)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [re.compile(re.escape(node.value))]
    if not isinstance(node, ast.JoinedStr):
        return []
    out = []
    for hole in ("|".join(map(re.escape, GAME_NAMES)), r"[A-Za-z_][A-Za-z0-9_]*"):
        out.append(re.compile("".join(re.escape(str(v.value)) if isinstance(v, ast.Constant)
                                      else f"(?:{hole})" for v in node.values)))
    return out


def imports_of(module: str, source: str, modules: dict[str, Path] | set[str],
               is_package: bool = False) -> list[Import]:
    """Every import of ``module`` (its source text) that lands in the package."""
    tree = ast.parse(source)
    package = module if is_package else module.rpartition(".")[0]
    out: list[Import] = []
    guarded: set[int] = set()  # ids of nodes under ``if TYPE_CHECKING:``
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for stmt in node.body:
                guarded.update(id(n) for n in ast.walk(stmt))

    def add(target: str | None, node: ast.AST) -> None:
        if target is not None and target != module:
            out.append(Import(module, target, node.lineno, id(node) in guarded))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(_in_package(alias.name, modules), node)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                parent = ".".join([*base, node.module] if node.module else base)
            else:
                parent = node.module or ""
            for alias in node.names:
                sub = f"{parent}.{alias.name}"
                add(sub if sub in modules else _in_package(parent, modules), node)
        elif isinstance(node, ast.Call) and node.args and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                or (isinstance(node.func, ast.Name) and node.func.id == "import_module")):
            hits: list[str | None] = []
            for pattern in _patterns(node.args[0]):
                hits = hits or [m for m in modules if pattern.fullmatch(m)]
            if not hits and isinstance(node.args[0], (ast.Constant, ast.JoinedStr)):
                first = node.args[0].values[0] if isinstance(node.args[0], ast.JoinedStr) \
                    else node.args[0]  # no such module: the package its name starts in
                if isinstance(first, ast.Constant):
                    hits = [_in_package(str(first.value).rstrip("."), modules)]
            for hit in hits:
                add(hit, node)
    return sorted(set(out), key=lambda e: (e.line, e.target))


def import_graph(root: Path = ROOT) -> list[Import]:
    """Every import between the package's modules."""
    modules = package_modules(root)
    out = []
    for name, path in modules.items():
        out += imports_of(name, path.read_text(encoding="utf-8"), modules,
                          is_package=path.name == "__init__.py")
    return out


def circles(edges: list[Import]) -> list[list[str]]:
    """The strongly connected components (Tarjan) with more than one module, or a module
    that imports itself; each sorted, the list sorted."""
    graph: dict[str, set[str]] = {}
    for e in edges:
        if not e.type_checking:
            graph.setdefault(e.source, set()).add(e.target)
            graph.setdefault(e.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:  # iterative, so a deep graph cannot hit the recursion limit
        work = [(v, iter(sorted(graph[v])))]
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        while work:
            node, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1 or node in graph[node]:
                        found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def upward(edges: list[Import]) -> list[Import]:
    """The imports of a lower layer from a higher one (TYPE_CHECKING ones included)."""
    def within(name: str, package: str) -> bool:
        return name == package or name.startswith(package + ".")

    return [e for e in edges for low, highs in FORBIDDEN.items()
            if within(e.source, low) and any(within(e.target, h) for h in highs)]


def is_lab(name: str) -> bool:
    """A module of a lab wing (``stichzoo.policies.lab``, ``stichzoo.training.lab``, ...)."""
    return "lab" in name.split(".")


def into_the_lab(edges: list[Import]) -> list[Import]:
    """The imports of a lab module by a product module (TYPE_CHECKING ones included): the
    product never depends on what was only tried."""
    return [e for e in edges if is_lab(e.target) and not is_lab(e.source)]


def describe_circles(edges: list[Import]) -> str:
    lines = []
    for comp in circles(edges):
        members = set(comp)
        lines.append("circle: " + " <-> ".join(comp))
        lines += [f"    {e}" for e in edges
                  if e.source in members and e.target in members and not e.type_checking]
    return "\n".join(lines)


# -- the package ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def graph() -> list[Import]:
    return import_graph()


def test_every_module_is_read(graph):
    modules = package_modules()
    assert {"stichzoo", "stichzoo.envs", "stichzoo.envs.core.aec", "stichzoo.policies",
            "stichzoo.training"} <= set(modules)
    assert any(e.source == "stichzoo.envs" and e.target == "stichzoo.envs.core.batch"
               for e in graph), "a function-local import was missed"


def test_no_import_circles(graph):
    assert not circles(graph), "import circles between modules:\n" + describe_circles(graph)


def test_no_upward_imports(graph):
    bad = upward(graph)
    assert not bad, "imports of a higher layer (envs < policies < training):\n" + "\n".join(
        f"    {e}" for e in bad)


def test_no_product_module_imports_the_lab(graph):
    bad = into_the_lab(graph)
    assert not bad, "product modules importing the lab (policies/lab, training/lab):\n" + \
        "\n".join(f"    {e}" for e in bad)
    assert {e.source for e in graph if is_lab(e.source)}, "no lab module was read"


_PROBE = textwrap.dedent("""
    import builtins, importlib, json, sys, torch
    from gymnasium import spaces
    from stichzoo.envs.registry import game_class
    from stichzoo.policies.runtimes.torch_policy import TorchPolicy, save_policy
    from stichzoo.policies.base import encoder_for
    try:  # the class old files name
        from stichzoo.policies.runtimes.networks import PhaseTrunkPolicy
    except ImportError:  # moved below the policies, and no shim left: find it there
        import pkgutil, stichzoo.policies as P
        for info in pkgutil.walk_packages(P.__path__, "stichzoo.policies."):
            try:
                PhaseTrunkPolicy = importlib.import_module(info.name).PhaseTrunkPolicy
                break
            except Exception:
                continue

    game = game_class("hoch_tief")(game_class("hoch_tief").Options(num_players=3))
    layout = encoder_for(game).layout
    net = PhaseTrunkPolicy(spaces.Box(-1e9, 1e9, (layout.size,)),
                           spaces.Discrete(game.num_actions), lambda _: 3e-4, net_arch=[8],
                           phase_offset=layout.offsets["phase"],
                           num_phases=layout.piece("phase").size)
    save_policy(net, game, sys.argv[1])
    saved = torch.load(sys.argv[1], weights_only=False)
    saved["stichzoo"]["policy_class"] = "stichzoo.training.networks.PhaseTrunkPolicy"
    torch.save(saved, sys.argv[1])

    seen = []
    real_import, real_import_module = builtins.__import__, importlib.import_module
    def who(frame):
        return frame.f_globals.get("__name__", "") if frame else ""
    def record(name, importer):
        if importer.startswith("stichzoo.policies") and name.startswith("stichzoo.training"):
            seen.append(f"{importer} imports {name}")
    def hooked_import(name, globals=None, locals=None, fromlist=(), level=0):
        record(name, who(sys._getframe(1)))
        return real_import(name, globals, locals, fromlist, level)
    def hooked_import_module(name, package=None):
        record(name, who(sys._getframe(1)))
        return real_import_module(name, package)
    builtins.__import__, importlib.import_module = hooked_import, hooked_import_module
    TorchPolicy.load(sys.argv[1], game)
    print(json.dumps(seen))
""")


def test_loading_an_old_policy_file_imports_no_training_module(tmp_path):
    """A policy file names its network class (``stichzoo.training.networks.PhaseTrunkPolicy``
    in files written before 0.2.0); loading it must not reach up into training."""
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    out = subprocess.run([sys.executable, "-c", _PROBE, str(tmp_path / "old.pt")],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300,
                         env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert out.returncode == 0, out.stderr[-3000:]
    seen = out.stdout.strip().splitlines()[-1]
    assert seen == "[]", f"loading a policy file imports training: {seen}"


# -- the checker itself, on a made-up package ----------------------------------------------


def _synthetic(sources: dict[str, str]) -> list[Import]:
    modules = set(sources)
    out = []
    for name, src in sources.items():
        is_package = any(m.startswith(name + ".") for m in modules)
        out += imports_of(name, textwrap.dedent(src), modules, is_package)
    return out


def test_checker_finds_circles_and_upward_imports():
    edges = _synthetic({
        "stichzoo.envs": "from stichzoo.envs.a import X\n",
        "stichzoo.envs.a": "import stichzoo.envs.b\n",
        "stichzoo.envs.b": "def f():\n    from . import c\n",  # function-local, relative
        "stichzoo.envs.c": "from stichzoo.envs import a\n",  # a: a module, not the __init__
        "stichzoo.envs.d": "import importlib\nm = importlib.import_module(f'stichzoo.{x}.e')\n",
        "stichzoo.policies": "",
        "stichzoo.policies.e": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                               "    from stichzoo.envs.d import Y\n",
        "stichzoo.training": "",
        "stichzoo.training.t": "",
        "stichzoo.policies.p": "def g():\n    from stichzoo.training.t import T\n",
        "stichzoo.envs.q": "import importlib\nimportlib.import_module('stichzoo.training.t')\n",
    })
    assert circles(edges) == [["stichzoo.envs.a", "stichzoo.envs.b", "stichzoo.envs.c"]]
    assert "stichzoo.envs.b (line 2) imports stichzoo.envs.c" in describe_circles(edges)
    # d -> policies.e is upward; e -> d only under TYPE_CHECKING: no circle, still counted
    assert sorted(str(e) for e in upward(edges)) == [
        "stichzoo.envs.d (line 2) imports stichzoo.policies.e",
        "stichzoo.envs.q (line 2) imports stichzoo.training.t",
        "stichzoo.policies.p (line 2) imports stichzoo.training.t",
    ]
    views = _synthetic({"stichzoo.envs.wizard": "", "stichzoo.envs.wizard.view": "",
                        "stichzoo.envs.core": "", "stichzoo.envs.core.view": "",
                        "stichzoo.policies": "", "stichzoo.policies.p":
                        "import importlib\nimportlib.import_module(f'stichzoo.envs.{g}.view')"})
    assert [e.target for e in views] == ["stichzoo.envs.wizard.view"]  # a game's, not core's
    loop = _synthetic({"stichzoo.envs": "", "stichzoo.envs.a": "import stichzoo.envs.a\n",
                       "stichzoo.envs.b": "from stichzoo.envs import b\n"})
    assert circles(loop) == []  # a module importing itself by name is not an edge
    lab = _synthetic({"stichzoo.policies": "", "stichzoo.policies.lab": "",
                      "stichzoo.policies.lab.x": "from stichzoo.policies.p import P\n",
                      "stichzoo.policies.p": "def f():\n    import stichzoo.policies.lab.x\n",
                      "stichzoo.policies.slab": "from stichzoo.policies.p import P\n"})
    assert [str(e) for e in into_the_lab(lab)] == [
        "stichzoo.policies.p (line 2) imports stichzoo.policies.lab.x"]
    assert circles(_synthetic({"stichzoo.x": "", "stichzoo.x.a": "from stichzoo.x import A",
                               "stichzoo.x.b": "", "stichzoo.x.c": "import stichzoo.x"})) == []
    assert circles(_synthetic({"stichzoo.x": "from stichzoo.x.a import A",
                               "stichzoo.x.a": "from stichzoo.x import B"})) == [
        ["stichzoo.x", "stichzoo.x.a"]]
