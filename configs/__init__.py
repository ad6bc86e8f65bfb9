"""The training recipes that ship with stichzoo (installed as ``stichzoo.configs``).

``<game>.yaml`` is the recipe of the game's shipped bot (policies/bots/<game>;
for a bot trained in several legs, the first leg's - the file says so at its
top).  The subfolders hold the other product recipes, one folder per role:

- ``sb3/``: self-play MaskablePPO (Stable-Baselines3) on the single-seat view;
- ``batch/``: the batch trainer's 15-minute recipe of a bot still shipped (a search's guide);
- ``quick/``: the main job's short run (scripts/main.sh);
- ``expert/``: expert iteration from a shipped bot (training/trainers/expert.py);
- ``bid_model/``, ``leaf_value/``, ``tricks_to_come/``: the models the bots and searches
  read - Wizard's bid model, Hoch & Tief's leaf value and Silberne Ananas' tricks to
  come; read by their fitters (training/fit/), not by the trainer.

``lab/`` holds what was tried and is not shipped, by the same folders (``lab/expert/``,
``lab/hour/``, ...) and the lab's own models (``lab/belief/``, ``lab/standing/``); it
works from a checkout and is not installed with the wheel.

A variant states only what differs from its parent (``extends: wizard``;
:func:`stichzoo.training.config.read`), so a fix to a parent reaches every
variant.

``stichzoo train wizard`` (or ``sb3/wizard``, ``configs/quick/wizard.yaml``)
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
    ``configs/quick/wizard.yaml``.  Nothing outside this folder is found.
    """
    parts = Path(name.removesuffix(".yaml")).parts
    if parts[:1] == ("configs",):
        parts = parts[1:]
    if not parts or any(p in ("..", ".", "") or p.startswith("/") for p in parts):
        return None
    path = FOLDER.joinpath(*parts).with_suffix(".yaml")
    return path if path.is_file() else None


def recipes() -> list[str]:
    """Every packaged recipe by the name :func:`recipe` takes (``wizard``, ``sb3/wizard``);
    not the lab's, which a checkout has and the wheel does not."""
    names = [p.relative_to(FOLDER).with_suffix("").as_posix() for p in FOLDER.rglob("*.yaml")
             if p.relative_to(FOLDER).parts[0] != "lab"]
    return sorted(names, key=lambda n: (n.count("/"), n))  # the shipped bots' recipes first
