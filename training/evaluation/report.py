"""A tournament's report for people: the text table, ``report.json`` and the plot.

Every number is printed as ``mean [lo, hi]`` with its 95% interval from
:mod:`stichzoo.training.evaluation.stats`; ``[n/a]`` where too few deals allow none.
"""

from __future__ import annotations

import json
import os

from stichzoo.training.evaluation.stats import MIN_DEALS


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
    for p, f in report.get("forfeits", {}).items():
        reasons = ", ".join(f"{n} {r}" for r, n in sorted(f["reasons"].items()))
        lines.append(f"FORFEITS {p}: {f['games']} of its games ({reasons}; the rest of each "
                     f"played by its stand-in); first: {f['first']}")
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


#: a name longer than this is wrapped after its commas (policy specs: ``pimc:worlds=8,...``)
LABEL_WIDTH = 22


def _wrap(name: str) -> str:
    """A policy name on lines of at most :data:`LABEL_WIDTH` characters, broken after commas
    (or anywhere, for a long part): the whole name stays readable, nothing is elided."""
    lines, line = [], ""
    for part in name.replace(",", ",\0").split("\0"):
        while len(part) > LABEL_WIDTH:
            if line:
                lines.append(line)
                line = ""
            lines.append(part[:LABEL_WIDTH])
            part = part[LABEL_WIDTH:]
        if line and len(line) + len(part) > LABEL_WIDTH:
            lines.append(line)
            line = ""
        line += part
    return "\n".join([*lines, line] if line else lines)


def _errorbars(ax, labels: list[str], stats: list[dict | None], title: str, zero: bool) -> None:
    """One row per label: the mean with its 95% interval bar, the policy on the left and
    ``mean [lo, hi]`` on the right (``mean [n/a]``, a hollow point: too few deals)."""
    ys = list(range(len(labels)))[::-1]
    fmt = "+.3g" if zero else ".3g"
    ends: list[float] = [0.0] if zero else []
    for y, d in zip(ys, stats):
        if d is None:
            continue
        if d.get("lo") is not None:
            colour = "#4c72b0"
            if zero and (d["lo"] > 0 or d["hi"] < 0):
                colour = "#2a9d4b" if d["lo"] > 0 else "#c44e52"
            ax.errorbar(d["mean"], y, xerr=[[d["mean"] - d["lo"]], [d["hi"] - d["mean"]]],
                        fmt="o", color=colour, capsize=5, lw=2)
            ends += [d["lo"], d["hi"]]
        else:
            ax.plot(d["mean"], y, "o", mfc="none", color="grey")
            ends.append(d["mean"])
    if ends:
        lo, hi = min(ends), max(ends)
        pad = 0.08 * (hi - lo) or 0.5
        ax.set_xlim(lo - pad, hi + pad)
    if zero:
        ax.axvline(0, color="black", lw=0.8, ls="--")
    ax.set_yticks(ys, [_wrap(lab) for lab in labels], fontsize=9)
    values = ax.secondary_yaxis("right")
    values.set_yticks(ys, [format_interval(d, fmt) for d in stats], fontsize=8)
    values.tick_params(length=0)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)


def report_figure(report: dict):
    """The report's figure: each policy's paired difference against the baseline (score and
    win rate, the zero line) and the game's key metric, every value with its 95% interval
    beside it.  Its layout makes room for every label (``layout="constrained"``)."""
    from matplotlib.figure import Figure

    cfg = report["config"]
    versus = report["versus_baseline"]
    names = list(report["policies"])
    key = report.get("key_metric")
    panels: list[tuple[list[str], list[dict | None], str, bool]] = []
    if versus:
        vs = list(versus)
        objective = report.get("objective")
        for metric, title in (("score_difference", "score"),
                              ("win_rate_difference", "win rate")):
            decides = " (decides)" if objective == metric.split("_difference")[0] else ""
            panels.append((vs, [versus[p][metric] for p in vs],
                           f"{title}: difference vs {report['baseline']}{decides}", True))
    if key:
        panels.append((names, [report["policies"][p]["metrics"].get(key) for p in names],
                       key.replace("_", " "), False))
    else:
        panels.append((names, [report["policies"][p]["score"] for p in names],
                       "mean game score", False))
    lines = max(_wrap(n).count("\n") + 1 for n in names)
    label_chars = max(len(line) for n in names for line in _wrap(n).splitlines())
    width = sum(2.6 + 0.075 * label_chars + 0.065 * max(len(format_interval(d, "+.3g"))
                                                         for d in stats)
                for _, stats, _, _ in panels)
    fig = Figure(figsize=(width, 1.5 + 0.3 * lines * len(names) + 0.25 * len(names)),
                 layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (labels, stats, title, zero) in zip(axes, panels):
        _errorbars(ax, labels, stats, title, zero)
    fig.suptitle(f"{cfg['game']} {cfg['players']}p - {report['games']} games "
                 f"({report['deals']} deals, duplicate): mean [95% interval] over deals",
                 fontsize=11)
    if any(d is not None and d.get("lo") is None for _, stats, _, _ in panels for d in stats):
        fig.supxlabel(f"[n/a]: no interval from fewer than {MIN_DEALS} deals (hollow point)",
                      fontsize=8, color="grey")
    return fig


def plot_report(report: dict, path: str) -> None:
    """:func:`report_figure` saved as a PNG."""
    report_figure(report).savefig(path, dpi=110)


__all__ = ["format_interval", "format_report", "plot_report", "report_figure",
           "write_outputs"]
