"""A run folder: where one training run keeps its config, logs, checkpoints and policies.

Every trainer (the SB3 loop, the batch trainer, RLlib) writes the same layout
under ``runs/<game>__<algo>__<seed>__<time>/``: ``config.yaml`` (the checked
config, defaults filled in), ``tb/`` (TensorBoard), ``checkpoints/`` (the
trainer's full state, for resuming), ``snapshots/`` (frozen learner policies
for the self-play pool), ``policy.pt`` (the latest policy, loadable as
``ppo:path=...``), ``eval/`` (tournament reports) and ``train_summary.yaml``.
"""

from __future__ import annotations

import glob
import os
import re
import sys
import time
from dataclasses import dataclass
from typing import Any

from stichzoo.training import config as config_mod


@dataclass
class RunPaths:
    root: str

    @property
    def tb(self) -> str:
        return os.path.join(self.root, "tb")

    @property
    def checkpoints(self) -> str:
        return os.path.join(self.root, "checkpoints")

    @property
    def snapshots(self) -> str:
        return os.path.join(self.root, "snapshots")

    @property
    def eval(self) -> str:
        return os.path.join(self.root, "eval")

    @property
    def policy(self) -> str:
        return os.path.join(self.root, "policy.pt")

    @property
    def config(self) -> str:
        return os.path.join(self.root, "config.yaml")

    @property
    def summary(self) -> str:
        return os.path.join(self.root, "train_summary.yaml")

    def make(self) -> None:
        for d in (self.root, self.checkpoints, self.snapshots, self.eval):
            os.makedirs(d, exist_ok=True)

    def write_config(self, cfg: dict) -> None:
        """``config.yaml``: the checked config, so ``--resume`` and the final evaluation
        read exactly what the run trained with."""
        with open(self.config, "w") as f:
            f.write(config_mod.dump(cfg))

    def write_summary(self, summary: dict) -> None:
        with open(self.summary, "w") as f:
            f.write(config_mod.dump(summary))

    def read_summary(self) -> dict:
        """``train_summary.yaml``, or ``{}`` for a run that has not finished one."""
        import yaml

        if not os.path.exists(self.summary):
            return {}
        with open(self.summary) as f:
            return yaml.safe_load(f) or {}

    def latest_checkpoint(self, suffix: str = ".zip") -> tuple[str, int] | None:
        """The newest ``checkpoints/model_<steps><suffix>`` and its steps (SB3 writes
        ``.zip``, the batch trainer ``.pt``); None before the first one."""
        found = []
        for path in glob.glob(os.path.join(self.checkpoints, f"model_*{suffix}")):
            m = re.search(rf"model_(\d+){re.escape(suffix)}$", path)
            if m:
                found.append((int(m.group(1)), path))
        if not found:
            return None
        steps, path = max(found)
        return path, steps


def new_run_dir(cfg: dict) -> str:
    """``runs/<game>__<algo>__<seed>__<time>``, unique even for runs started in one second."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = os.path.join("runs", f"{cfg['game']}__{cfg['algo']}__{cfg['seed']}__{stamp}")
    run_dir, suffix = base, 1
    while os.path.exists(run_dir):
        suffix += 1
        run_dir = f"{base}-{suffix}"
    return run_dir


def config_text(cfg: dict) -> str:
    """The config as TensorBoard's ``config`` text (a Markdown code block)."""
    return "```\n" + config_mod.dump(cfg) + "\n```"


@dataclass
class Budget:
    """A run's two budgets - learner samples and minutes - whichever ends first.

    ``train.total_timesteps`` is what a run is meant to train;
    ``train.max_minutes`` a guard on the wall clock from ``start`` (the run's
    start, warm start included).  Every trainer stops at the first of the two,
    shows both in its progress bar (:class:`BudgetBar`) and says in its last
    lines and its summary (:meth:`outcome`) whether the samples were reached: a
    run the guard stopped short is a different experiment, never a quiet one.
    """

    samples: int
    minutes: float
    start: float

    @classmethod
    def of(cls, cfg: dict, start: float) -> Budget:
        return cls(int(cfg["train"]["total_timesteps"]), float(cfg["train"]["max_minutes"]),
                   start)

    def elapsed(self, now: float | None = None) -> float:
        """Seconds since the run started."""
        return (time.time() if now is None else now) - self.start

    def time_up(self, now: float | None = None) -> bool:
        return self.elapsed(now) / 60 > self.minutes

    def left(self, done: int, rate: float | None, now: float | None = None) -> tuple[float, str]:
        """(seconds left, the budget that ends first: ``samples`` or ``time``).

        ``rate`` is the samples per second seen so far (None before the first):
        the samples end in ``(samples - done) / rate`` seconds, the guard in
        ``minutes * 60 - elapsed``; the run ends at the sooner.
        """
        by_time = max(0.0, self.minutes * 60 - self.elapsed(now))
        if done >= self.samples:
            return 0.0, "samples"
        if rate and rate > 0:
            by_samples = (self.samples - done) / rate
            if by_samples <= by_time:
                return by_samples, "samples"
        return by_time, "time"

    def outcome(self, done: int) -> dict[str, Any]:
        """What the summary keeps: the budget, what was trained and what ended the run."""
        return {"budget_samples": self.samples, "max_minutes": self.minutes,
                "budget_reached": done >= self.samples,
                "stopped_by": "samples" if done >= self.samples else "time"}

    def shortfall(self, done: int) -> str | None:
        """The closing warning of a run the guard stopped short of its samples, else None."""
        if done >= self.samples:
            return None
        return (f"BUDGET NOT REACHED: the time guard (train.max_minutes={self.minutes:g}) "
                f"stopped the run at {done:,} of its {self.samples:,} samples "
                f"({done / max(self.samples, 1):.0%}); a slower or busy machine? This run is "
                f"not the recipe's: rerun it, or raise train.max_minutes, or --resume it")

    def announce(self, done: int) -> None:
        """Print :meth:`shortfall` as a run's last line, if any - also for a quiet run
        (``--quiet`` silences progress, never this)."""
        line = self.shortfall(done)
        if line:
            print(line, flush=True)


def shortfall_of(summary: dict) -> str | None:
    """:meth:`Budget.shortfall` of a finished run, from its ``train_summary.yaml``
    (None for a run that reached its samples, and for a summary older than the budget
    fields, which cannot say)."""
    if "budget_samples" not in summary:
        return None
    budget = Budget(int(summary["budget_samples"]), float(summary["max_minutes"]), 0.0)
    return budget.shortfall(int(summary["steps"]))


def _clock(seconds: float) -> str:
    seconds = round(seconds)
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


class BudgetBar:
    """A tqdm bar over a :class:`Budget`: how far along the run is, and how long it has left.

    The bar fills to the share of whichever budget is further along, and the
    time left is the sooner of the two ends (:meth:`Budget.left`) - a
    1-minute run never promises hours.  The rate counts from the bar's start
    (after the warm start), so a resumed run's earlier samples do not inflate it.

    Written to a file that is not a terminal (``nohup ... > log``), the bar
    becomes a line a minute: a redrawn bar there is one endless line of
    carriage returns that ``tail`` cannot read.
    """

    REFRESH = 0.5  # seconds between redraws on a terminal
    LINE_EVERY = 60.0  # seconds between lines in a file

    def __init__(self, budget: Budget, done: int, file: Any = None):
        self.budget, self.done = budget, done
        self._leg = (done, time.time())
        self._drawn = time.time()
        self.file = file if file is not None else sys.stderr
        self.bar = None
        if is_terminal(self.file):
            from tqdm import tqdm

            self.bar = tqdm(total=1000, initial=int(1000 * self.fraction()),
                            desc=self.status(), bar_format="{percentage:3.0f}%|{bar}| {desc}",
                            dynamic_ncols=True, file=self.file)

    def status(self, now: float | None = None) -> str:
        """``done/samples samples | elapsed of minutes | left (which ends first)``."""
        now = time.time() if now is None else now
        b, (leg_done, leg_start) = self.budget, self._leg
        rate = (self.done - leg_done) / (now - leg_start) if now > leg_start else None
        left, which = b.left(self.done, rate if self.done > leg_done else None, now)
        return (f"{self.done:,}/{b.samples:,} samples | {_clock(b.elapsed(now))} of "
                f"{_clock(b.minutes * 60)} | {_clock(left)} left "
                f"({'the samples end' if which == 'samples' else 'the time guard ends'} first)")

    def fraction(self, now: float | None = None) -> float:
        b = self.budget
        return min(1.0, max(self.done / max(b.samples, 1), b.elapsed(now) / (b.minutes * 60)))

    def update(self, done: int) -> None:
        """The run has ``done`` samples now (a total, not an increment)."""
        self.done = done
        every = self.REFRESH if self.bar is not None else self.LINE_EVERY
        if time.time() - self._drawn >= every:
            self._draw()

    def _draw(self) -> None:
        self._drawn = time.time()
        if self.bar is None:
            print(f"{100 * self.fraction():3.0f}% {self.status()}", file=self.file, flush=True)
            return
        self.bar.n = int(1000 * self.fraction())
        self.bar.set_description_str(self.status(), refresh=True)

    def close(self) -> None:
        self._draw()
        if self.bar is not None:
            self.bar.close()


def is_terminal(file: Any) -> bool:
    """Whether ``file`` is a terminal (a bar redraws in place only there)."""
    isatty = getattr(file, "isatty", None)
    return bool(isatty and isatty())


def budget_bar(enabled: bool, budget: Budget, done: int) -> BudgetBar | None:
    """A :class:`BudgetBar`, or None (disabled, or tqdm missing)."""
    if not enabled:
        return None
    try:
        import tqdm  # noqa: F401
    except ImportError:  # pragma: no cover - tqdm is in the train extra
        return None
    return BudgetBar(budget, done)


__all__ = ["Budget", "BudgetBar", "RunPaths", "budget_bar", "config_text", "is_terminal",
           "new_run_dir", "shortfall_of"]
