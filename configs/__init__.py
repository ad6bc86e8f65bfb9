"""The training recipes that ship with stichzoo (installed as ``stichzoo.configs``).

``<game>.yaml`` is the recipe of the game's shipped bot (policies/bots/<game>;
for a bot trained in several legs, the first leg's - the file says so at its
top).  The subfolders hold the other variants, one folder per role:

- ``sb3/``: self-play MaskablePPO (Stable-Baselines3) on the single-seat view;
- ``batch/``: the batch trainer's 15-minute recipe, where it is not the shipped one;
- ``hour/``: the batch trainer given the whole hour;
- ``quick/``: the main job's short run (scripts/main.sh);
- ``expert/``: expert iteration from a shipped bot (training/trainers/expert.py);
- ``belief/``: belief models for the search (training/lab/belief.py; not training
  configs of the trainer, read by ``stichzoo belief``);
- ``tricks/``, ``leaf/``, ``standing/``, ``future/``: the other models the bots and
  searches read - Wizard's trick model (``stichzoo tricks``), Hoch & Tief's leaf value
  (``stichzoo leaf``), Silberne Ananas' deal model (``stichzoo standing``) and its tricks
  to come (``stichzoo future``).

``stichzoo train wizard`` (or ``sb3/wizard``, ``configs/hour/geheimtrumpf.yaml``)
trains the packaged file when no file of that name exists, so the commands
work the same in a checkout and after ``pip install stichzoo``.  This module
only finds the files; reading and checking them is
:func:`stichzoo.training.config.load`'s job.
"""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).resolve().parent


def recipe(name: str) -> Path | None:
    """The packaged config that ``name`` names, or None.

    ``name`` is a recipe's path below this folder, with or without ``.yaml``
    and a leading ``configs/``: ``wizard``, ``sb3/wizard``,
    ``configs/hour/geheimtrumpf.yaml``.  Nothing outside this folder is found.
    """
    parts = Path(name.removesuffix(".yaml")).parts
    if parts[:1] == ("configs",):
        parts = parts[1:]
    if not parts or any(p in ("..", ".", "") or p.startswith("/") for p in parts):
        return None
    path = FOLDER.joinpath(*parts).with_suffix(".yaml")
    return path if path.is_file() else None


def recipes() -> list[str]:
    """Every packaged recipe by the name :func:`recipe` takes (``wizard``, ``sb3/wizard``)."""
    names = [p.relative_to(FOLDER).with_suffix("").as_posix() for p in FOLDER.rglob("*.yaml")]
    return sorted(names, key=lambda n: (n.count("/"), n))  # the shipped bots' recipes first
