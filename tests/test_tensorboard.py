"""One vocabulary: SB3 and the batch trainer log exactly the tags docs/training.md lists.

The table in docs/training.md (between the ``tensorboard-tags`` markers) names
every tag, with the trainers that log it (``all``, or ``batch`` / ``RLlib``
for a trainer's own).  Both local trainers run for a tiny budget with periodic
and final evaluations; each must log every tag marked for it and nothing
else, the two tag sets must be the same but for the one-trainer rows, and the
signs must be the documented ones (``losses/entropy`` is +entropy in both).
tests/test_rllib.py checks RLlib's run against the same table.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("tensorboard")

from stichzoo.training import config as config_mod
from tests.conftest import tiny_config

ROOT = Path(__file__).resolve().parent.parent
TRAINERS = {"SB3", "batch", "RLlib"}


def _docs_rows() -> list[tuple[list[str], set[str]]]:
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


def _docs_tags(trainer: str | None = None) -> list[str]:
    return [t for tags, who in _docs_rows() if trainer is None or trainer in who for t in tags]


def _pattern(tag: str, game: str, opponents: list[str]) -> re.Pattern:
    """A documented tag as a regex over logged tags (``<metric>`` and ``<s>`` are open)."""
    out = re.escape(tag).replace("<game>", game)
    out = out.replace("<opp>", "(?:" + "|".join(map(re.escape, opponents)) + ")")
    return re.compile(out.replace("<metric>", "[a-z0-9_]+").replace("<s>", "[0-9]+") + "$")


def _logged_tags(tb: Path) -> set[str]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tags: set[str] = set()
    for folder in {p.parent for p in tb.rglob("events.out.tfevents.*")}:
        acc = EventAccumulator(str(folder), size_guidance={"scalars": 0})
        acc.Reload()
        tags |= set(acc.Tags()["scalars"])
    return tags


def _scalars(tb: Path, tag: str) -> list[float]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    values: list[float] = []
    for folder in {p.parent for p in tb.rglob("events.out.tfevents.*")}:
        acc = EventAccumulator(str(folder), size_guidance={"scalars": 0})
        acc.Reload()
        if tag in acc.Tags()["scalars"]:
            values += [e.value for e in acc.Scalars(tag)]
    return values


def check_against_docs(logged: set[str], trainer: str, game: str,
                       opponents: list[str]) -> None:
    """Every tag the table marks for ``trainer`` is logged, and every logged tag is in it."""
    missing = []
    for tag in _docs_tags(trainer):
        pattern = _pattern(tag, game, opponents)
        for opp in (opponents if "<opp>" in tag else [None]):
            if opp is not None:
                pattern = _pattern(tag.replace("<opp>", opp), game, opponents)
            if not any(pattern.match(t) for t in logged):
                missing.append(tag if opp is None else tag.replace("<opp>", opp))
    assert not missing, f"{trainer}: named in docs/training.md but not logged: {missing}"
    mine = [_pattern(t, game, opponents) for t in _docs_tags(trainer)]
    stray = sorted(t for t in logged if not any(p.match(t) for p in mine))
    assert not stray, f"{trainer}: logged but not in docs/training.md's table: {stray}"


def _config(algo: str) -> dict:
    """A tiny Wizard config (three short rounds) with two periodic evaluations."""
    cfg = tiny_config("wizard")
    cfg["algo"] = algo
    cfg["options"]["rounds"] = [1, 2, 3]
    cfg["eval"].update(every=128, games=80, workers=1)  # 20 deals: enough for intervals
    if algo == "batch_ppo":
        cfg["batch"].update(games=12, rollout_steps=10)
    return config_mod.validate(cfg)


def _run(algo: str, folder: Path) -> Path:
    from stichzoo.training.run_eval import final_evaluation
    from stichzoo.training.train import train

    run = train(_config(algo), run_dir=str(folder / "run"), progress_bar=False, verbose=False)
    final_evaluation(run, games=80, workers=1, progress=False)
    return Path(run)


@pytest.fixture(scope="module")
def short_run(tmp_path_factory) -> Path:
    """A short SB3 Wizard run with two periodic evaluations and a final one."""
    return _run("maskable_ppo", tmp_path_factory.mktemp("tb_sb3"))


@pytest.fixture(scope="module")
def batch_run(tmp_path_factory) -> Path:
    """The same with the batch trainer."""
    return _run("batch_ppo", tmp_path_factory.mktemp("tb_batch"))


def test_the_docs_name_the_tags():
    tags = _docs_tags()
    assert len(tags) > 30 and "eval/vs_<opp>/score_diff_lo" in tags
    assert "final/vs_<opp>/win_rate_diff_hi" in tags
    assert "losses/entropy" in _docs_tags("SB3") and "train/entropy_loss" not in tags


@pytest.mark.parametrize(("trainer", "fixture"), [("SB3", "short_run"), ("batch", "batch_run")])
def test_each_trainer_logs_exactly_the_documented_tags(trainer, fixture, request):
    cfg = _config("maskable_ppo")
    logged = _logged_tags(request.getfixturevalue(fixture) / "tb")
    check_against_docs(logged, trainer, cfg["game"], cfg["eval"]["opponents"])


def test_both_trainers_log_one_vocabulary(short_run, batch_run):
    """The tag sets are the same but for the documented one-trainer rows; the signs agree."""
    cfg = _config("maskable_ppo")
    own = {t for tags, who in _docs_rows() if who != TRAINERS for t in tags}
    own_patterns = [_pattern(t, cfg["game"], cfg["eval"]["opponents"]) for t in own]

    def shared(tags: set[str]) -> set[str]:
        return {t for t in tags if not any(p.match(t) for p in own_patterns)}

    sb3, batch = _logged_tags(short_run / "tb"), _logged_tags(batch_run / "tb")
    assert shared(sb3) == shared(batch), (
        f"only SB3: {sorted(shared(sb3) - shared(batch))}; "
        f"only batch: {sorted(shared(batch) - shared(sb3))}")
    assert "charts/episode_length" in shared(sb3) and not any(t.startswith(("train/", "rollout/"))
                                                              for t in sb3)
    for run in (short_run, batch_run):
        tb = run / "tb"
        assert all(v > 0 for v in _scalars(tb, "losses/entropy"))  # +entropy, never -entropy
        assert all(v >= 0 for v in _scalars(tb, "losses/value_loss"))
        assert all(v >= -1e-6 for v in _scalars(tb, "losses/approx_kl"))
        assert all(0 <= v <= 1 for v in _scalars(tb, "losses/clip_fraction"))
        assert all(0 <= v <= 1 for v in _scalars(tb, "time/rollout_share"))
        assert all(v <= 1 for v in _scalars(tb, "losses/explained_variance"))
        assert all(v >= 1 for v in _scalars(tb, "charts/episode_length"))
        assert all(v > 0 for v in _scalars(tb, "charts/learning_rate"))


def test_final_evaluation_is_in_tensorboard(short_run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(short_run / "tb" / "final"), size_guidance={"scalars": 0})
    acc.Reload()
    diff = acc.Scalars("final/vs_heuristic/score_diff")
    lo = acc.Scalars("final/vs_heuristic/score_diff_lo")
    hi = acc.Scalars("final/vs_heuristic/score_diff_hi")
    assert len(diff) == 1 and lo[0].value < diff[0].value < hi[0].value
    assert diff[0].step >= 256  # logged at the run's last step
