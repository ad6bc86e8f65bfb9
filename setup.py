"""Builds the compiled rules kernel, ``stichzoo.envs.kernel._kernel``.

Everything else about the package is in pyproject.toml.

The kernel is optional: without a C compiler the build prints a warning and
the package installs with the Python core alone (``stichzoo --version``
says which core runs).  Environment knobs, for development:

- ``STICHZOO_KERNEL_GAMES=wizard,hoch_tief``: compile only these games;
- ``STICHZOO_KERNEL_SANITIZE=1``: AddressSanitizer and UndefinedBehaviorSanitizer
  (run Python with ``LD_PRELOAD=$(gcc -print-file-name=libasan.so)``;
  ``scripts/checks/kernel_sanitize.sh`` does it all);
- ``STICHZOO_KERNEL_BUILD=0``: skip the extension.
"""

from __future__ import annotations

import os
import subprocess
import sysconfig
import tempfile
from pathlib import Path

from setuptools import Extension, setup

SRC = Path("envs/kernel/src")
GAMES = ("wizard", "wunder_punkt", "silberne_ananas", "hoch_tief", "geheimtrumpf")


def compiles(game: str) -> bool:
    """Whether a game's files compile and define ``kz_<game>`` (development builds only).

    While a game is being written, a broken file should not take the other
    games' kernel down with it: a build without STICHZOO_KERNEL_GAMES leaves
    such a game out, with a warning (its differential test then fails).
    """
    cc = (sysconfig.get_config_var("CC") or "cc").split()
    files = [SRC / f"{game}.c", *sorted(SRC.glob(f"{game}_*.c"))]
    with tempfile.TemporaryDirectory() as tmp:
        objs = []
        for i, f in enumerate(files):
            obj = f"{tmp}/{i}.o"
            if subprocess.run([*cc, "-c", "-fPIC", "-O0", f"-I{SRC}", str(f), "-o", obj],
                              capture_output=True).returncode != 0:
                print(f"warning: {f} does not compile; the kernel is built without {game}")
                return False
            objs.append(obj)
        out = subprocess.run(["nm", "-g", "--defined-only", *objs], capture_output=True, text=True)
        if out.returncode == 0 and f" kz_{game}" not in out.stdout:
            print(f"warning: {game}'s files define no kz_{game}; the kernel is built without it")
            return False
    return True


def kernel() -> list[Extension]:
    if os.environ.get("STICHZOO_KERNEL_BUILD", "1") == "0":
        return []
    chosen = os.environ.get("STICHZOO_KERNEL_GAMES")
    games = [g for g in GAMES if (SRC / f"{g}.c").exists()
             and (not chosen or g in chosen.split(","))]
    if not chosen and os.environ.get("STICHZOO_KERNEL_CHECK", "1") == "1":
        games = [g for g in games if compiles(g)]
    sources = [SRC / "module.c", SRC / "random.c"]
    for g in games:  # a game's file, and its helpers named <game>_*.c
        sources += [SRC / f"{g}.c", *sorted(SRC.glob(f"{g}_*.c"))]
    # no fused multiply-add: the observation's floats must be Python's, operation for
    # operation (aarch64 and -march builds would contract a*b+c otherwise)
    args = ["-O2", "-Wall", "-Wno-unused-function", "-ffp-contract=off"]
    link: list[str] = []
    if os.environ.get("STICHZOO_KERNEL_SANITIZE") == "1":
        san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
               "-fno-omit-frame-pointer", "-g", "-O1"]
        args += san
        link += san
    return [Extension(
        "stichzoo.envs.kernel._kernel",
        sources=[str(s) for s in sources],
        depends=[str(p) for p in sorted(SRC.glob("*.h"))],
        define_macros=[(f"KZ_HAVE_{g.upper()}", "1") for g in games],
        extra_compile_args=args,
        extra_link_args=link,
        optional=True,  # no compiler: a warning, and the Python core alone
    )]


setup(ext_modules=kernel())
