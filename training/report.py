"""A tournament's report for people: the text table, ``report.json`` and the plot.

Every number is printed as ``mean [lo, hi]`` with its 95% interval from
:mod:`stichzoo.training.stats`; ``[n/a]`` where too few deals allow none.
"""

from __future__ import annotations

import json
import os

from stichzoo.training.stats import MIN_DEALS


def format_interval(d: dict | None, fmt: str) -> str:
    """``mean [lo, hi]`` as the report prints it; ``[n/a]`` where no interval could be had."""
    if d is None:
        return "n/a"
    if d["lo"] is None:
        return f"{d['mean']:{fmt}} [n/a]"
    return f"{d['mean']:{fmt}} [{d['lo']:{fmt}}, {d['hi']:{fmt}}]"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Columns as wide as their widest cell: long policy names stay aligned."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)  # noqa: E731
                              for i, (c, w) in enumerate(zip(r, widths)))
    return [fmt(header), *(fmt(r) for r in rows)]


def format_report(report: dict) -> str:
    cfg = report["config"]
    lines = [
        f"{cfg['game']} {cfg['players']}p: {report['games']} games = {report['deals']} deals x "
        f"{len(report['assignments'])} seat assignments, seed {cfg['seed']}, "
        f"{report['wall_seconds']:.0f} s on {report['workers']} workers",
    ]
    rows = []
    for p, s in report["policies"].items():
        rating = report["ratings"].get(p)
        duplicate = report.get("duplicate_ratings", {}).get(p)
        objective_fmt = "+.3f" if report.get("objective") == "win_rate" else "+.2f"
        rows.append([p, format_interval(s["score"], ".2f"),
                     format_interval(s["win_rate"], ".3f") if s["win_rate"] else "n/a (self-play)",
                     format_interval(duplicate, objective_fmt),
                     f"{rating['ordinal']:.2f}" if rating else "n/a"])
    lines += _table(["policy", "mean score [95% CI]", "win rate [95% CI]",
                     "duplicate rating [95% CI]", "openskill"], rows)
    for p, v in report["versus_baseline"].items():
        for key, label, fmt in (("score_difference", "score", "+.2f"),
                                ("win_rate_difference", "win rate", "+.3f")):
            d = v[key]
            p_text = f", p = {d['p_value']:.2g}" if d.get("p_value") is not None else ""
            lines.append(f"{p} - {report['baseline']}: {label} {format_interval(d, fmt)}{p_text} "
                         f"({d['verdict']})")
    for p, s in report["policies"].items():
        if s["metrics"]:
            shown = ", ".join(f"{k} {format_interval(v, '.3f')}" for k, v in s["metrics"].items())
            lines.append(f"{p}: {shown}")
    if report.get("objective") == "win_rate":
        lines.append(f"{cfg['game']}: the win rate decides (the score is not the objective)")
    lines.append("intervals: 95%, over deals; win rates Wilson, means and differences t "
                 f"(none below {MIN_DEALS} deals) - see report.json 'methods'")
    return "\n".join(lines)


def write_outputs(report: dict, out_dir: str) -> list[str]:
    """``report.json`` and ``report.png``: the paired differences and the key metric."""
    os.makedirs(out_dir, exist_ok=True)
    paths = [os.path.join(out_dir, "report.json")]
    with open(paths[0], "w") as f:
        json.dump(report, f, indent=1, allow_nan=False)
    try:
        import matplotlib

        matplotlib.use("Agg")
    except ImportError:  # pragma: no cover - matplotlib is in the eval extra
        return paths
    paths.append(os.path.join(out_dir, "report.png"))
    plot_report(report, paths[1])
    return paths


def _errorbars(ax, labels: list[str], stats: list[dict | None], title: str, zero: bool):
    """Horizontal points with 95% interval bars, one row per label; rows without one marked."""
    ys = list(range(len(labels)))[::-1]
    labels = [lab if len(lab) <= 32 else f"{lab[:14]}...{lab[-15:]}" for lab in labels]
    for y, d in zip(ys, stats):
        if d is None:
            continue
        colour = "#4c72b0"
        if d.get("lo") is not None:
            if zero and (d["lo"] > 0 or d["hi"] < 0):
                colour = "#2a9d4b" if d["lo"] > 0 else "#c44e52"
            ax.errorbar(d["mean"], y, xerr=[[d["mean"] - d["lo"]], [d["hi"] - d["mean"]]],
                        fmt="o", color=colour, capsize=5, lw=2)
            ax.annotate(f"{d['mean']:+.3g} [{d['lo']:+.3g}, {d['hi']:+.3g}]" if zero else
                        f"{d['mean']:.3g} [{d['lo']:.3g}, {d['hi']:.3g}]", (d["mean"], y),
                        textcoords="offset points", xytext=(0, 8), ha="center", fontsize=8)
        else:
            ax.plot(d["mean"], y, "o", color="grey")
            ax.annotate(f"{d['mean']:.3g} ({d.get('method', 'no interval')})", (d["mean"], y),
                        textcoords="offset points", xytext=(0, 8), ha="center", fontsize=8)
    if zero:
        ax.axvline(0, color="black", lw=0.8, ls="--")
    ax.set_yticks(ys, labels)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)


def plot_report(report: dict, path: str) -> None:
    """What the tournament tests: each policy's paired difference against the baseline
    (score and win rate, 95% intervals, the zero line), and the game's key metric."""
    import matplotlib.pyplot as plt

    cfg = report["config"]
    versus = report["versus_baseline"]
    names = list(report["policies"])
    key = report.get("key_metric")
    panels = 3 if versus else 2
    fig, axes = plt.subplots(1, panels, figsize=(4.6 * panels, 1.4 + 0.7 * len(names)),
                             squeeze=False)
    axes = axes[0]
    k = 0
    if versus:
        vs = list(versus)
        objective = report.get("objective")
        for metric, title in (("score_difference", "score"),
                              ("win_rate_difference", "win rate")):
            decides = " (decides)" if objective == metric.split("_difference")[0] else ""
            _errorbars(axes[k], vs, [versus[p][metric] for p in vs],
                       f"{title}: difference vs {report['baseline']}{decides}", zero=True)
            k += 1
    if key:
        _errorbars(axes[k], names, [report["policies"][p]["metrics"].get(key) for p in names],
                   key.replace("_", " "), zero=False)
    else:
        _errorbars(axes[k], names, [report["policies"][p]["score"] for p in names],
                   "mean game score", zero=False)
    fig.suptitle(f"{cfg['game']} {cfg['players']}p - {report['games']} games "
                 f"({report['deals']} deals, duplicate), 95% intervals over deals", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


__all__ = ["format_interval", "format_report", "plot_report", "write_outputs"]
