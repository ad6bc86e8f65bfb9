"""One way to fit a model that is not a bot: ``stichzoo fit <model> <game>``.

The shipped bots and searches read three fitted models besides their networks - Hoch &
Tief's leaf value (``pimc:leaf=``, the learned search), Silberne Ananas' tricks to come
(``heuristic:future=``) and the Wizard bid model (the shipped Wizard bot's bids).  Each
was once its own command with its own collector, config loader and report; here they are
entries of one table, :data:`MODELS`, and every fit takes the same path (:func:`run`):

    collect -> fit -> held-out quality -> save (+ the report)

An entry (:class:`ModelFit`) names its model, games, config folder and fitter module.
The module holds the steps, as functions of one signature each, so that the path is
written once and a new model is one module and one line of the table:

- ``load_config(path, overrides) -> cfg``: the config, checked strictly
  (:func:`read_config`, the one loader: flat YAML, ``--set KEY=VALUE`` overrides; the
  bid model's config has sections, merged over its defaults strictly, key by key);
- ``collect(cfg, log) -> (samples, data)``: the training data, from self-play
  (:mod:`stichzoo.training.fit.self_play`, the one collector);
- ``fit(cfg, data, log) -> (model, training report)``;
- ``evaluate(cfg, model, log) -> quality``: the held-out quality, on games of their
  own seed (the bid model: on held-out games of the collected ones);
- ``save(cfg, model, out, report)``: the model file (some keep the report in it);
- ``load(path) -> model`` (optional): a saved model, for ``--evaluate``.

A model's own options (:class:`Flag`: the belief models' ``--data`` cache and ``--temper``)
reach ``collect`` or ``evaluate`` as keyword arguments.  The Wizard bid model's games
are played in rounds, each round's bids by the model fitted on the rounds before: its
``collect`` fits between the rounds, its ``fit`` is the last round's.

The steps are looked up by the module's name only when a fit runs, so that
``stichzoo --help`` loads no torch.  The lab's fitters (belief models, the learned
match standing) are entries too, registered by ``stichzoo.training.lab`` when it is
imported (``python -m stichzoo.training.lab fit belief wizard``); this package never
imports the lab.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from stichzoo import configs
from stichzoo.training.config import load_flat, merge


@dataclass(frozen=True)
class Flag:
    """An option of one model's fit beside the common ones: ``--<name>``, handed to the
    step ``step`` (``collect`` or ``evaluate``) as the keyword argument ``name``."""

    name: str
    step: str
    help: str
    metavar: str
    type: Callable[[str], Any] = str


@dataclass(frozen=True)
class ModelFit:
    """A model ``stichzoo fit`` makes (module docstring: the steps its module holds).

    ``config_folder``: below configs/, where ``<game>.yaml`` is its default config;
    ``suffix``: of its default output, ``runs/<name>/<game><suffix>`` (none: a folder);
    ``unit``: what a sample of its data is, for the log.
    """

    name: str
    games: tuple[str, ...]
    config_folder: str
    module: str
    summary: str
    suffix: str
    unit: str = "samples"
    flags: tuple[Flag, ...] = ()

    def steps(self) -> ModuleType:
        """The fitter module: ``load_config``, ``collect``, ``fit``, ``evaluate``, ``save``."""
        return importlib.import_module(self.module)

    def config_path(self, game: str, config: str | None = None) -> str:
        """``config``, else configs/<config_folder>/<game>.yaml - the clone's file, or the
        packaged recipe outside a clone."""
        path = config or f"configs/{self.config_folder}/{game}.yaml"
        if os.path.isfile(path):
            return path
        packaged = configs.recipe(path)
        if packaged is None:
            raise ValueError(f"{self.name}: no config {path}")
        return str(packaged)

    def default_out(self, cfg: dict) -> str:
        return f"runs/{self.name}/{cfg.get('game') or self.games[0]}{self.suffix}"

    def split_flags(self, given: dict[str, Any]) -> tuple[dict, dict]:
        """The given flags for ``collect`` and for ``evaluate``; one this model does not
        take is an error naming it."""
        steps = {f.name: f.step for f in self.flags}
        for name in given:
            if name not in steps:
                raise ValueError(f"{self.name}: --{name} belongs to another model's fit")
        return ({k: v for k, v in given.items() if steps[k] == "collect"},
                {k: v for k, v in given.items() if steps[k] == "evaluate"})


#: every model ``stichzoo fit`` makes, by name; the lab's join when it is imported
MODELS: dict[str, ModelFit] = {m.name: m for m in (
    ModelFit("leaf_value", ("hoch_tief",), "leaf_value", "stichzoo.training.fit.leaf_value",
             "a whole position's round scores in place of PIMC's play-outs (the learned "
             "search: pimc:leaf=hoch_tief)", ".onnx", "positions"),
    ModelFit("tricks_to_come", ("silberne_ananas",), "tricks_to_come",
             "stichzoo.training.fit.tricks_to_come",
             "each seat's share of the tricks to come (heuristic:future="
             "silberne_ananas_future)", ".npz", "views"),
    ModelFit("bid_model", ("wizard",), "bid_model", "stichzoo.training.fit.bid_model",
             "bids from a predicted trick distribution, exported with a bot's card play "
             "(OUT/bot; the shipped Wizard bot bids so)", "", "bids"),
)}


def register(entry: ModelFit) -> None:
    """Add a model to :data:`MODELS` (the lab's fitters); the same entry twice is one."""
    known = MODELS.get(entry.name)
    if known is not None and known != entry:
        raise ValueError(f"fit: a model named {entry.name!r} is registered already")
    MODELS[entry.name] = entry


def model_fit(name: str) -> ModelFit:
    if name not in MODELS:
        raise ValueError(f"fit: no model {name!r}; the models: {', '.join(MODELS)}")
    return MODELS[name]


def read_config(path: str, overrides: dict | None, schema: dict[str, tuple[Any, Any]],
                what: str) -> dict:
    """The one loader of the fitters' configs: the file at ``path``, ``overrides`` (``--set``)
    over it - a mapping given for a mapping key is merged into the file's key by key
    (``--set options.rounds=1`` keeps the other options) - every key checked against
    ``schema`` (:func:`stichzoo.training.config.load_flat`; the file may extend another)."""
    cfg = load_flat(path, None, schema, what)
    if not overrides:
        return cfg
    return load_flat(path, merge({k: cfg[k] for k in overrides if k in cfg}, overrides), schema,
                     what)


def _seconds(since: float) -> float:
    return round(time.perf_counter() - since, 1)


def run(name: str, cfg: dict, out: str | None = None, log: Callable[..., None] = print,
        **flags: Any) -> dict:
    """Collect, fit, measure on held-out games and save the model ``name``; the report
    (the config, the output, the samples, the training curve, the quality, the seconds of
    each step).  ``out``: else the config's ``out``, else runs/<name>/<game><suffix>."""
    entry = model_fit(name)
    steps = entry.steps()
    collect_flags, evaluate_flags = entry.split_flags(flags)
    out = out or cfg.get("out") or entry.default_out(cfg)
    game = cfg.get("game") or entry.games[0]
    report: dict[str, Any] = {"config": cfg, "out": out}
    start = time.perf_counter()
    report["samples"], data = steps.collect(cfg, log, **collect_flags)
    report["data_s"] = _seconds(start)
    log(f"{name} {game}: {report['samples']} {entry.unit} ({report['data_s']} s)")
    step = time.perf_counter()
    model, report["training"] = steps.fit(cfg, data, log)
    report["train_s"] = _seconds(step)
    step = time.perf_counter()
    report["quality"] = steps.evaluate(cfg, model, log, **evaluate_flags)
    report["quality_s"] = _seconds(step)
    steps.save(cfg, model, out, report)
    report["total_s"] = _seconds(start)
    log(f"saved {out}; data {report['data_s']} s, training {report['train_s']} s, "
        f"held-out quality {report['quality_s']} s, total {report['total_s']} s")
    return report


def measure(name: str, cfg: dict, path: str, log: Callable[..., None] = print,
            **flags: Any) -> dict:
    """Fit nothing: the held-out quality of the saved model at ``path`` (the config's
    held-out games), as :func:`run` measures a fresh one; the report."""
    entry = model_fit(name)
    steps = entry.steps()
    if not hasattr(steps, "load"):
        raise ValueError(f"{name}: --evaluate measures a saved model; this model's held-out "
                         f"games are a share of the collected ones - fit it instead")
    collect_flags, evaluate_flags = entry.split_flags(flags)
    if collect_flags:
        raise ValueError(f"{name}: --{next(iter(collect_flags))} is for a fit, not with "
                         f"--evaluate")
    start = time.perf_counter()
    quality = steps.evaluate(cfg, steps.load(path), log, **evaluate_flags)
    log(f"held-out quality of {path}: {_seconds(start)} s")
    return {"config": cfg, "model": path, **evaluate_flags, "quality": quality}
