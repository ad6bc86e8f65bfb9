"""The table of TensorBoard tags in docs/training.md, read for the tests that check runs.

tests/training/test_tensorboard.py (SB3 and the batch trainer) and tests/training/test_rllib.py
(RLlib, in its own venv) check their runs' tags against the same table.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRAINERS = {"SB3", "batch", "RLlib"}


def docs_rows() -> list[tuple[list[str], set[str]]]:
    """The table's rows: (tags of the first cell, trainers of the last cell)."""
    text = (ROOT / "docs" / "training.md").read_text()
    section = text.split("<!-- tensorboard-tags -->")[1].split("<!-- /tensorboard-tags -->")[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        tags = re.findall(r"`([a-z_<>]+(?:/[a-z_<>]+)+)`", cells[0])
        who = TRAINERS if cells[-1] == "all" else {w.strip() for w in cells[-1].split(",")}
        assert tags and who <= TRAINERS, line
        rows.append((tags, who))
    return rows


def docs_tags(trainer: str | None = None) -> list[str]:
    return [t for tags, who in docs_rows() if trainer is None or trainer in who for t in tags]


def pattern(tag: str, game: str, opponents: list[str]) -> re.Pattern:
    """A documented tag as a regex over logged tags (``<metric>`` and ``<s>`` are open)."""
    out = re.escape(tag).replace("<game>", game)
    out = out.replace("<opp>", "(?:" + "|".join(map(re.escape, opponents)) + ")")
    return re.compile(out.replace("<metric>", "[a-z0-9_]+").replace("<s>", "[0-9]+") + "$")


def logged_tags(tb: Path) -> set[str]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tags: set[str] = set()
    for folder in {p.parent for p in tb.rglob("events.out.tfevents.*")}:
        acc = EventAccumulator(str(folder), size_guidance={"scalars": 0})
        acc.Reload()
        tags |= set(acc.Tags()["scalars"])
    return tags


def scalars(tb: Path, tag: str) -> list[float]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    values: list[float] = []
    for folder in {p.parent for p in tb.rglob("events.out.tfevents.*")}:
        acc = EventAccumulator(str(folder), size_guidance={"scalars": 0})
        acc.Reload()
        if tag in acc.Tags()["scalars"]:
            values += [e.value for e in acc.Scalars(tag)]
    return values


def check_against_docs(logged: set[str], trainer: str, game: str, opponents: list[str],
                       required: tuple[str, ...] | None = None) -> None:
    """Every tag the table marks for ``trainer`` is logged (only those starting with one of
    ``required``, if given: a run without periodic evaluations), and every logged tag is in
    the table for ``trainer``."""
    missing = []
    for tag in docs_tags(trainer):
        if required is not None and not tag.startswith(required):
            continue
        for opp in (opponents if "<opp>" in tag else [None]):
            want = pattern(tag if opp is None else tag.replace("<opp>", opp), game, opponents)
            if not any(want.match(t) for t in logged):
                missing.append(tag if opp is None else tag.replace("<opp>", opp))
    assert not missing, f"{trainer}: named in docs/training.md but not logged: {missing}"
    mine = [pattern(t, game, opponents) for t in docs_tags(trainer)]
    stray = sorted(t for t in logged if not any(p.match(t) for p in mine))
    assert not stray, f"{trainer}: logged but not in docs/training.md's table: {stray}"
