"""TensorBoard shows what the docs say: every tag docs/training.md names is in a short run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("tensorboard")

from stichzoo import envs
from tests.conftest import tiny_config

ROOT = Path(__file__).resolve().parent.parent


def _docs_tags() -> list[str]:
    text = (ROOT / "docs" / "training.md").read_text()
    section = text.split("<!-- tensorboard-tags -->")[1].split("<!-- /tensorboard-tags -->")[0]
    return re.findall(r"`([a-z_<>]+(?:/[a-z_<>]+)+)`", section)


def _logged_tags(tb: Path) -> set[str]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tags: set[str] = set()
    for folder in {p.parent for p in tb.rglob("events.out.tfevents.*")}:
        acc = EventAccumulator(str(folder), size_guidance={"scalars": 0})
        acc.Reload()
        tags |= set(acc.Tags()["scalars"])
    return tags


@pytest.fixture(scope="module")
def short_run(tmp_path_factory) -> Path:
    """A short Wizard run with two periodic evaluations and a final one (intervals included)."""
    from stichzoo.training.run_eval import final_evaluation
    from stichzoo.training.train import train

    cfg = tiny_config("wizard")
    cfg["eval"].update(every=128, games=80, workers=1)  # 20 deals: enough for intervals
    run = train(cfg, run_dir=str(tmp_path_factory.mktemp("tb") / "run"), progress_bar=False,
                verbose=False)
    final_evaluation(run, games=80, workers=1, progress=False)
    return Path(run)


def test_the_docs_name_the_tags():
    tags = _docs_tags()
    assert len(tags) > 30 and "eval/vs_<opp>/score_diff_lo" in tags
    assert "final/vs_<opp>/win_rate_diff_hi" in tags


def test_every_tag_the_docs_name_is_logged(short_run, capsys):
    game = tiny_config("wizard")["game"]
    opponents = tiny_config("wizard")["eval"]["opponents"]
    logged = _logged_tags(short_run / "tb")
    missing = []
    for tag in _docs_tags():
        first = tag.split("/")[0]
        if first in envs.GAMES and first != game:
            continue  # an example from another game
        for opp in (opponents if "<opp>" in tag else [None]):
            want = tag.replace("<game>", game).replace("<opp>", str(opp))
            if "<metric>" in want:
                prefix = want.split("<metric>")[0]
                if not any(t.startswith(prefix) for t in logged):
                    missing.append(want)
            elif want not in logged:
                missing.append(want)
    assert not missing, f"named in docs/training.md but not logged: {missing}"


def test_final_evaluation_is_in_tensorboard(short_run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(short_run / "tb" / "final"), size_guidance={"scalars": 0})
    acc.Reload()
    diff = acc.Scalars("final/vs_heuristic/score_diff")
    lo = acc.Scalars("final/vs_heuristic/score_diff_lo")
    hi = acc.Scalars("final/vs_heuristic/score_diff_hi")
    assert len(diff) == 1 and lo[0].value < diff[0].value < hi[0].value
    assert diff[0].step >= 256  # logged at the run's last step
