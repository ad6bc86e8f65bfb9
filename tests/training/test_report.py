"""report.png: every value shows its 95% interval, and no label runs outside the figure or
into a neighbouring panel - long policy names and rows without an interval included."""

from __future__ import annotations

import copy

import pytest

from stichzoo.training.evaluation.report import format_interval, plot_report, report_figure
from stichzoo.training.evaluation.tournament import TournamentConfig, run_tournament

pytest.importorskip("matplotlib")
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

LONG = "pimc:worlds=64,rollouts=4,horizon=game"


@pytest.fixture(scope="module")
def report() -> dict:
    cfg = TournamentConfig("hoch_tief", 3, ["heuristic", "random", "random"], deals=20, seed=1,
                           options={"rounds": 1}, workers=1)
    return run_tournament(cfg, progress=False)


def _texts(fig) -> list[Text]:
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def _check_layout(fig) -> list[str]:
    """Every text inside the figure and the panels (with their labels) apart; the texts."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    box = fig.bbox
    texts = _texts(fig)
    for t in texts:
        b = t.get_window_extent(renderer)
        assert (b.x0 >= box.x0 - 1 and b.x1 <= box.x1 + 1 and b.y0 >= box.y0 - 1
                and b.y1 <= box.y1 + 1), f"{t.get_text()!r} runs outside the figure"
    panels = [ax.get_tightbbox(renderer) for ax in fig.axes]  # value labels included
    for i, a in enumerate(panels):
        for b in panels[i + 1:]:
            assert a.x1 <= b.x0 + 1 or b.x1 <= a.x0 + 1, "two panels' labels overlap"
    return [t.get_text() for t in texts]


def test_every_value_shows_its_interval(report, tmp_path):
    fig = report_figure(report)
    shown = _check_layout(fig)
    diff = report["versus_baseline"]["heuristic"]["score_difference"]
    assert diff["lo"] is not None  # 20 deals: intervals
    assert format_interval(diff, "+.3g") in shown
    key = report["key_metric"]
    for s in report["policies"].values():
        assert format_interval(s["metrics"][key], ".3g") in shown
    assert not any("[n/a]" in t for t in shown)
    plot_report(report, str(tmp_path / "report.png"))
    assert (tmp_path / "report.png").stat().st_size > 10_000


def test_long_names_and_missing_intervals_stay_inside(report):
    r = copy.deepcopy(report)
    r["policies"] = {LONG: r["policies"]["heuristic"], "random": r["policies"]["random"]}
    r["versus_baseline"] = {LONG: r["versus_baseline"]["heuristic"]}
    too_few = r["versus_baseline"][LONG]["win_rate_difference"]
    too_few.update(lo=None, hi=None, method="not enough deals (n < 20)")
    shown = _check_layout(report_figure(r))
    assert format_interval(too_few, "+.3g") in shown and too_few["mean"] is not None
    assert any("fewer than 20 deals" in t for t in shown)
    # the whole name is shown (wrapped after its commas), not elided
    assert any(t.replace("\n", "") == LONG for t in shown)
