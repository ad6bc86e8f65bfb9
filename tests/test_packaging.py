"""One top-level package, ``stichzoo``: in the wheel, in a fresh venv, beside a user's ``envs``.

The repository keeps its design-card folders (envs/, policies/, training/);
pyproject.toml maps them to ``stichzoo.envs``, ``stichzoo.policies`` and
``stichzoo.training``.  These tests build the real wheel, install it into a
new virtual environment with no checkout in sight, and use it as a new
user would - including from a project of their own that has an ``envs``
package of its own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import textwrap
import zipfile
from pathlib import Path

import pytest

from stichzoo import envs
from stichzoo.envs.registry import env_id

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"configs": "stichzoo.configs", "envs": "stichzoo.envs",
           "policies": "stichzoo.policies", "training": "stichzoo.training"}
_SKIP = shutil.ignore_patterns(".venv", ".venv-rllib", ".git", "runs", "build", "dist",
                               "*.egg-info", "__pycache__", ".pytest_cache", ".ruff_cache",
                               "records", "site")


def _setuptools_config() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]


def test_pyproject_lists_every_package_folder():
    """The explicit package list (needed for the mapping) misses no product folder and names
    no other: the lab wings (``policies/lab``, ``training/lab``) are left out on purpose, so
    the wheel ships the product only."""
    cfg = _setuptools_config()
    assert cfg["package-dir"] == {v: k for k, v in FOLDERS.items()}
    found = {"stichzoo"}
    for folder, package in FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            if "lab" not in rel:
                found.add(".".join((package, *rel)))
    assert set(cfg["packages"]) == found
    assert not [p for p in cfg["packages"] if ".lab" in p]


def _run(args, cwd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, **kw)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the source tree (no stale build/ folder can leak in)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=_SKIP)
    out = _run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation",
                "--disable-pip-version-check", "-q", "-w", str(tmp / "dist")], cwd=src)
    assert out.returncode == 0, out.stderr
    (path,) = (tmp / "dist").glob("stichzoo-*.whl")
    return path


def test_wheel_has_one_top_level_package_with_the_bots(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    info = {t for t in tops if t.endswith(".dist-info")}
    assert tops - info == {"stichzoo"}
    for game in envs.GAMES:
        for file in ("model.onnx", "manifest.json", "config.yaml"):
            assert f"stichzoo/policies/bots/{game}/{file}" in names
        assert f"stichzoo/envs/{game}/rules.py" in names
        assert f"stichzoo/envs/{game}/rules.md" in names  # the rules for players
        assert f"stichzoo/envs/{env_id(game)}.py" in names
    assert "stichzoo/__init__.py" in names and "stichzoo/training/cli.py" in names
    assert "stichzoo/policies/ladder.json" in names  # the learned search's measured strength
    assert "stichzoo/py.typed" in names  # PEP 561: type checkers read the package's hints
    kernel = [n for n in names if n.startswith("stichzoo/envs/kernel/_kernel")]
    assert len(kernel) == 1 and kernel[0].endswith((".so", ".pyd")), kernel  # compiled in
    assert "stichzoo/envs/kernel/src/kz.h" in names  # its sources travel with it
    assert not [n for n in names if "/lab/" in n], "the lab is not installed"
    assert not [n for n in names if n.startswith("stichzoo/configs/lab")]
    assert not [n for n in names if "beliefs" in n], "models measured at no gain stay out"
    recipes = sorted(p for p in (ROOT / "configs").rglob("*.yaml")
                     if "lab" not in p.relative_to(ROOT / "configs").parts)
    assert len(recipes) > len(envs.GAMES) and "stichzoo/configs/__init__.py" in names
    for path in recipes:  # every training recipe, the variants' subfolders included
        assert f"stichzoo/configs/{path.relative_to(ROOT / 'configs').as_posix()}" in names
    for game in envs.GAMES:
        assert f"stichzoo/configs/{game}.yaml" in names
    assert not [n for n in names if "/tests/" in n or n.startswith(("envs/", "tests/"))]
    (meta,) = info
    entry_points = zipfile.ZipFile(wheel).read(f"{meta}/entry_points.txt").decode()
    assert "stichzoo = stichzoo.training.cli:main" in entry_points
    top_level = [n for n in names if n.endswith("/top_level.txt")]
    if top_level:
        assert zipfile.ZipFile(wheel).read(top_level[0]).decode().split() == ["stichzoo"]


def test_the_sdist_builds_the_kernel_and_works_without_it(tmp_path):
    """The sdist holds the kernel's C sources and builds them with the system compiler; a
    build without the extension (STICHZOO_KERNEL_BUILD=0, as where no compiler is) still
    installs and runs the Python core, saying so."""
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=_SKIP)
    out = _run([sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path / "dist")], cwd=src)
    assert out.returncode == 0, out.stderr
    (sdist,) = (tmp_path / "dist").glob("stichzoo-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
    for file in ("module.c", "random.c", "kz.h", *(f"{g}.c" for g in envs.GAMES)):
        assert any(n.endswith(f"envs/kernel/src/{file}") for n in names), file
    for build, core in (("1", "rules core: c"), ("0", "rules core: python")):
        wheels = tmp_path / f"wheels{build}"
        out = _run([sys.executable, "-m", "pip", "wheel", str(sdist), "--no-deps",
                    "--no-build-isolation", "--disable-pip-version-check", "-q", "-w",
                    str(wheels)], cwd=tmp_path, env={**os.environ, "STICHZOO_KERNEL_BUILD": build})
        assert out.returncode == 0, out.stderr
        (whl,) = wheels.glob("*.whl")
        target = tmp_path / f"site{build}"
        zipfile.ZipFile(whl).extractall(target)
        code = ("from stichzoo.envs import kernel; print(kernel.describe()); "
                "print(kernel.__file__)\n"
                "import numpy as np; from stichzoo.envs import BatchEnv\n"
                "b = BatchEnv('wizard', 2); b.reset(seed=0)\n"
                "b.step(b.sample_legal(np.random.default_rng(0))); print(b.core)\n"
                "from stichzoo.policies.specs import build_policy\n"
                "from stichzoo.policies.base import Decision\n"
                "s = b.game.new_game(seed=1)\n"
                "p = build_policy('pimc', b.game, seed=0)\n"
                "assert p.act(Decision(b.game, s)) in s.legal_actions()\n"
                "print(p._kernel is not None)")
        env = {**os.environ, "PYTHONPATH": str(target)}
        out = _run([sys.executable, "-c", code], cwd=tmp_path, env=env)
        assert out.returncode == 0 and out.stdout.startswith(core), (out.stdout, out.stderr)
        lines = out.stdout.split("\n")
        assert lines[1].startswith(str(target)), out.stdout  # not the checkout
        # the batch engine and the search run on the core the build has
        assert lines[2:4] == (["c", "True"] if build == "1" else ["python", "False"]), lines


@pytest.fixture(scope="module")
def fresh_venv(wheel, tmp_path_factory) -> Path:
    """A new venv holding only the wheel; its dependencies come from this venv's site-packages.

    The dependencies are added as a plain path (a ``.pth`` line), so this
    venv's own ``.pth`` files - among them the editable install's finder -
    are not run there: the only stichzoo it can import is the wheel's.
    """
    venv = tmp_path_factory.mktemp("venv") / "v"
    out = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=venv.parent)
    assert out.returncode == 0, out.stderr
    python = venv / "bin" / "python"
    out = _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                "--disable-pip-version-check", "-q", str(wheel)], cwd=venv.parent)
    assert out.returncode == 0, out.stderr
    site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                cwd=venv.parent).stdout.strip()
    Path(site, "dev_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


def _python(venv: Path, code: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    return _run([str(venv / "bin" / "python"), "-c", textwrap.dedent(code)], cwd=cwd, env=env)


def test_installed_wheel_works_without_the_checkout(fresh_venv, tmp_path):
    out = _python(fresh_venv, f"""
        import importlib.util, os, sys
        assert importlib.util.find_spec("envs") is None, "a top-level 'envs' is installed"
        assert importlib.util.find_spec("policies") is None
        assert importlib.util.find_spec("training") is None
        import stichzoo, stichzoo.envs.wizard_v0
        assert not stichzoo.__file__.startswith({str(ROOT)!r}), stichzoo.__file__
        import pettingzoo
        env = pettingzoo.make("aec", "stichzoo/wizard-v0", num_players=3)
        env.reset(seed=1)
        from stichzoo.envs import wizard_v0
        wizard_v0.env(num_players=4).reset(seed=2)
        from stichzoo.policies import Decision
        from stichzoo.policies.runtimes.onnx_policy import OnnxPolicy, shipped_bot
        for name in stichzoo.envs.GAMES:
            bot = OnnxPolicy.load(shipped_bot(name))
            assert bot.source.startswith(os.path.dirname(stichzoo.__file__)), bot.source
            state = bot.game.new_game(seed=5)
            assert bot.act(Decision(bot.game, state)) in state.legal_actions()
        from stichzoo.envs.registry import rules_of
        assert all("## " in rules_of(name) for name in stichzoo.envs.GAMES)
        print("ok", stichzoo.__version__)
    """, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok 0.")
    cli = _run([str(fresh_venv / "bin" / "stichzoo"), "--help"], cwd=tmp_path)
    assert cli.returncode == 0 and "eval" in cli.stdout, cli.stderr
    version = out.stdout.split()[1]
    cli = _run([str(fresh_venv / "bin" / "stichzoo"), "--version"], cwd=tmp_path)
    assert cli.returncode == 0 and cli.stdout.startswith(f"stichzoo {version}\n"), cli.stderr
    assert "rules core: c (compiled kernel:" in cli.stdout, cli.stdout  # the wheel's kernel runs
    env = {**os.environ, "STICHZOO_KERNEL": "python"}
    cli = _run([str(fresh_venv / "bin" / "stichzoo"), "--version"], cwd=tmp_path, env=env)
    assert "rules core: python (STICHZOO_KERNEL=python)" in cli.stdout, cli.stdout


def test_train_finds_the_packaged_recipe_by_game_name(fresh_venv, tmp_path):
    """``stichzoo train wizard`` with no configs/ in sight reads the wheel's configs/wizard.yaml
    (the shipped bot's recipe); a variant by its folder, a file by its path."""
    (tmp_path / "mine.yaml").write_text("game: hoch_tief\n")
    out = _python(fresh_venv, f"""
        import os, stichzoo
        from stichzoo.training import config
        from stichzoo.training.cli import config_file
        home = os.path.dirname(stichzoo.__file__)
        from stichzoo import configs
        for name, rel in (("wizard", "wizard.yaml"), ("sb3/wizard", "sb3/wizard.yaml"),
                          ("configs/quick/wizard.yaml", "quick/wizard.yaml")):  # extends:
            path = config_file(name)
            assert path == os.path.join(home, "configs", rel), path
            assert config.load(path) == config.load({str(ROOT / "configs")!r} + "/" + rel)
            for parent in config.parents(path):  # a variant's parents come from the wheel
                assert str(parent).startswith(os.path.join(home, "configs")), parent
        assert not [r for r in configs.recipes() if str(r).startswith("lab")]
        assert config_file("mine.yaml") == "mine.yaml"
        print("ok")
    """, cwd=tmp_path)
    assert out.returncode == 0 and out.stdout == "ok\n", out.stderr
    stichzoo = str(fresh_venv / "bin" / "stichzoo")
    cli = _run([stichzoo, "train", "wizard", "--set", "train.gamma=2"], cwd=tmp_path)
    assert cli.returncode == 2 and "train.gamma=2 is out of range" in cli.stderr, cli.stderr
    cli = _run([stichzoo, "train", "wizzard"], cwd=tmp_path)
    assert cli.returncode == 2, cli.stderr
    assert "config file wizzard does not exist, and no packaged recipe" in cli.stderr
    assert "sb3/wizard" in cli.stderr
    assert not (tmp_path / "runs").exists()


USER_PROJECT = """
    import envs, training                      # the user's own packages
    assert envs.MINE and training.MINE
    import pettingzoo
    import stichzoo                            # registers our games
    env = pettingzoo.make("aec", "stichzoo/wizard-v0", num_players=4)
    env.reset(seed=0)
    from stichzoo.envs import hoch_tief_v0
    hoch_tief_v0.env().reset(seed=0)
    import envs as again
    assert again.MINE
    print("ok")
"""


def _user_project(tmp_path: Path) -> Path:
    project = tmp_path / "p"
    for name in ("envs", "training"):
        (project / name).mkdir(parents=True)
        (project / name / "__init__.py").write_text("MINE = True\n")
    return project


def test_user_project_with_its_own_envs_package(fresh_venv, tmp_path):
    out = _python(fresh_venv, USER_PROJECT, cwd=_user_project(tmp_path))
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_user_project_beside_the_editable_install(tmp_path):
    """The development install (what CI runs) is namespaced too."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = _run([sys.executable, "-c", textwrap.dedent(USER_PROJECT)],
               cwd=_user_project(tmp_path), env=env)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
    out = _run([sys.executable, "-c", "import envs"], cwd=tmp_path, env=env)
    assert out.returncode != 0 and "No module named 'envs'" in out.stderr
