"""One vocabulary: SB3 and the batch trainer log exactly the tags docs/training.md lists.

The table in docs/training.md (between the ``tensorboard-tags`` markers) names
every tag, with the trainers that log it (``all``, or ``batch`` / ``RLlib``
for a trainer's own).  Both local trainers run for a tiny budget with periodic
and final evaluations; each must log every tag marked for it and nothing
else, the two tag sets must be the same but for the one-trainer rows, and the
signs must be the documented ones (``losses/entropy`` is +entropy in both).
tests/training/test_rllib.py checks RLlib's run against the same table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("tensorboard")

from stichzoo.training import config as config_mod
from tests.conftest import tiny_config
from tests.tags_table import (
    TRAINERS,
    check_against_docs,
    docs_rows,
    docs_tags,
    logged_tags,
    pattern,
    scalars,
)


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
    from stichzoo.training.evaluation.run_eval import final_evaluation
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
    tags = docs_tags()
    assert len(tags) > 30 and "eval/vs_<opp>/score_diff_lo" in tags
    assert "final/vs_<opp>/win_rate_diff_hi" in tags
    assert "losses/entropy" in docs_tags("SB3") and "train/entropy_loss" not in tags


@pytest.mark.parametrize(("trainer", "fixture"), [("SB3", "short_run"), ("batch", "batch_run")])
def test_each_trainer_logs_exactly_the_documented_tags(trainer, fixture, request):
    cfg = _config("maskable_ppo")
    logged = logged_tags(request.getfixturevalue(fixture) / "tb")
    check_against_docs(logged, trainer, cfg["game"], cfg["eval"]["opponents"])


def test_both_trainers_log_one_vocabulary(short_run, batch_run):
    """The tag sets are the same but for the documented one-trainer rows; the signs agree."""
    cfg = _config("maskable_ppo")
    own = {t for tags, who in docs_rows() if who != TRAINERS for t in tags}
    own_patterns = [pattern(t, cfg["game"], cfg["eval"]["opponents"]) for t in own]

    def shared(tags: set[str]) -> set[str]:
        return {t for t in tags if not any(p.match(t) for p in own_patterns)}

    sb3, batch = logged_tags(short_run / "tb"), logged_tags(batch_run / "tb")
    assert shared(sb3) == shared(batch), (
        f"only SB3: {sorted(shared(sb3) - shared(batch))}; "
        f"only batch: {sorted(shared(batch) - shared(sb3))}")
    assert "charts/episode_length" in shared(sb3) and not any(t.startswith(("train/", "rollout/"))
                                                              for t in sb3)
    for run in (short_run, batch_run):
        tb = run / "tb"
        assert all(v > 0 for v in scalars(tb, "losses/entropy"))  # +entropy, never -entropy
        assert all(v >= 0 for v in scalars(tb, "losses/value_loss"))
        assert all(v >= -1e-6 for v in scalars(tb, "losses/approx_kl"))
        assert all(0 <= v <= 1 for v in scalars(tb, "losses/clip_fraction"))
        assert all(0 <= v <= 1 for v in scalars(tb, "time/rollout_share"))
        assert all(v <= 1 for v in scalars(tb, "losses/explained_variance"))
        assert all(v >= 1 for v in scalars(tb, "charts/episode_length"))
        assert all(v > 0 for v in scalars(tb, "charts/learning_rate"))


def test_final_evaluation_is_in_tensorboard(short_run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(short_run / "tb" / "final"), size_guidance={"scalars": 0})
    acc.Reload()
    diff = acc.Scalars("final/vs_heuristic/score_diff")
    lo = acc.Scalars("final/vs_heuristic/score_diff_lo")
    hi = acc.Scalars("final/vs_heuristic/score_diff_hi")
    assert len(diff) == 1 and lo[0].value < diff[0].value < hi[0].value
    assert diff[0].step >= 256  # logged at the run's last step
