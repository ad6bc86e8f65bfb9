"""Where a shipped model file lives, and how a spec names one.

A model that is not a bot (Hoch & Tief's leaf value, Silberne Ananas' tricks to come) ships
as a file in ``policies/models/``; a spec names it by its stem (``future=silberne_ananas_future``)
or by a path to a file of the model's kind.  One lookup for every such model, so each names
its missing file the same way.
"""

from __future__ import annotations

from pathlib import Path

#: the shipped models' folder (package data)
MODELS = Path(__file__).resolve().parent.parent / "models"


def model_path(which: str, suffix: str, option: str, what: str, folder: Path = MODELS) -> Path:
    """A shipped name (``<folder>/<name><suffix>``) or a path to a model file; a ValueError
    names the spec's ``option`` and the shipped names."""
    path = Path(which)
    if path.suffix == suffix and path.is_file():
        return path
    shipped = folder / f"{which}{suffix}"
    if not shipped.is_file():
        names = sorted(p.stem for p in folder.glob(f"*{suffix}"))
        raise ValueError(f"{option}={which!r}: no such {what} (shipped: "
                         f"{', '.join(names) or 'none'}; or a path to a {suffix} file)")
    return shipped


__all__ = ["MODELS", "model_path"]
