"""Policy specs: one string names a policy and its arguments, everywhere.

    "heuristic", "random", "pimc:worlds=8,rollouts=2", "bot:wizard",
    "onnx:path=policies/bots/wizard", "ppo:path=runs/<run>/policy.pt",
    "mix:play=heuristic,else=bot" (one bot per phase; policies/mix.py)
    "python:mypkg.bots:MyBot", "cmd:node bot.js", "http://host:port/bots/NAME/act",
    "openspiel:ismcts" (outside bots, seeing only their seat's view; policies/outside.py)

Tournaments, training opponent pools, the warm-start teacher, the bot server's
difficulty levels and ``stichzoo play`` all read the same specs, so a bot named
in one place means the same bot in every other.  :func:`make_policy` builds a
policy from a name and arguments; :func:`build_policy` from a spec string.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
from collections.abc import Callable, Sequence
from typing import Any

from stichzoo.policies.base import Policy, RandomPolicy
from stichzoo.policies.hooks import SearchHooks
from stichzoo.policies.outside import OUTSIDE_KINDS, build_outside, parse_outside_spec

#: ``pimc:rollout=random``: marks PIMC's own uniform play-out (no rollout player)
_UNIFORM = object()

POLICY_NAMES = ("random", "heuristic", "pimc", "search", "ppo", "onnx", "bot", "mix",
                *OUTSIDE_KINDS)

#: how a lab lever is run: the ``stichzoo`` command with the lab's options registered
LAB_COMMAND = "python -m stichzoo.training.lab"

#: builds one kind of policy: (game, seed, the spec's arguments) -> policy
Builder = Callable[[Any, "int | None", dict[str, Any]], Policy]
#: turns a group of spec arguments into a builder's own arguments, in place
Option = Callable[[Any, "int | None", dict[str, Any]], None]
#: registered options: (policy kind, the argument names it reads, the translation); the lab
#: adds its levers here (policies/lab/__init__.py), so no builder below knows them
OPTIONS: list[tuple[str, tuple[str, ...], Option]] = []


def register_option(kind: str, names: Sequence[str], option: Option) -> None:
    """Let ``kind``'s specs take the arguments ``names``: before the builder runs, ``option``
    reads them (and pops them) from the arguments and puts the builder's own in their place.
    Registering the same names twice replaces the first (a module imported again)."""
    OPTIONS[:] = [o for o in OPTIONS if (o[0], o[1]) != (kind, tuple(names))]
    OPTIONS.append((kind, tuple(names), option))


def game_policy_module(game_name: str):
    """``policies/games/<game>.py``: the game's heuristic, rollout player and search hooks."""
    try:
        return importlib.import_module(f"stichzoo.policies.games.{game_name}")
    except ModuleNotFoundError as e:
        raise ValueError(f"no policies for game {game_name!r}") from e


def search_hooks(game_name: str) -> SearchHooks:
    """The game's :class:`~stichzoo.policies.hooks.SearchHooks` (its module's ``SEARCH``)."""
    return game_policy_module(game_name).SEARCH


def learned_search(game_name: str) -> str:
    """The game's learned search (the ``search`` spec) spelled out: its hooks'
    ``learned_search`` (Hoch & Tief: PIMC with a leaf value), else PIMC guided by the
    shipped network."""
    return search_hooks(game_name).learned_search or f"pimc:guide=bot:{game_name}"


def make_policy(name: str, game, seed: int | None = None, **kwargs: Any) -> Policy:
    """Build a policy by name for ``game`` (a :class:`stichzoo.envs.core.game.Game`): the
    registered options translate their arguments, then the kind's builder runs."""
    builder = BUILDERS.get(name)
    if builder is None:
        raise ValueError(f"unknown policy {name!r}; known policies: {', '.join(POLICY_NAMES)}")
    for kind, names, option in OPTIONS:
        if kind == name and any(n in kwargs for n in names):
            option(game, seed, kwargs)
    return builder(game, seed, kwargs)


def _random(game, seed: int | None, kwargs: dict[str, Any]) -> Policy:
    if kwargs:
        raise ValueError(f"policy 'random': unknown argument(s) {', '.join(sorted(kwargs))}")
    return RandomPolicy(seed)


def _heuristic(game, seed: int | None, kwargs: dict[str, Any]) -> Policy:
    heuristic = game_policy_module(game.name).Heuristic
    _known_arguments("heuristic", heuristic, kwargs)
    return heuristic(game, seed=seed, **kwargs)


def _search(game, seed: int | None, kwargs: dict[str, Any]) -> Policy:
    """``search``: the game's learned search spelled out, the spec's own arguments on top."""
    return make_policy("pimc", game, seed, **{**parse_policy_spec(learned_search(game.name))[1],
                                              **kwargs})


def _pimc(game, seed: int | None, kwargs: dict[str, Any]) -> Policy:
    """PIMC with the game's :class:`SearchHooks` and the spec's arguments on top."""
    from stichzoo.policies.search import PIMCPolicy

    hooks = search_hooks(game.name)
    rollout = kwargs.pop("rollout", None)
    asked_rollout = rollout is not None
    if rollout == "random":  # pimc:rollout=random - uniform random play-outs
        rollout = _UNIFORM
    elif rollout == "heuristic":  # pimc:rollout=heuristic - the game's full heuristic
        rollout = game_policy_module(game.name).Heuristic(game, seed=seed)
    elif isinstance(rollout, str):
        raise ValueError(f"pimc: rollout={rollout!r}; choose random or heuristic (the "
                         f"default is the game's rollout player)")
    if rollout is None and hooks.rollout_policy is not None:
        rollout = hooks.rollout_policy(game, seed)
    if rollout is _UNIFORM:
        rollout = None  # PIMC's own uniform play-out
    value = kwargs.pop("value", hooks.value)
    guide = kwargs.pop("guide", None)
    if isinstance(guide, str):  # a policy spec: pimc:guide=bot:wizard
        guide = build_policy(guide, game, seed=0 if seed is None else seed)
    # hooks.guided: a guided search's own settings (phases=<phase>: the guide prunes only
    # there; follow=<phase>: the network decides alone); plain PIMC has no guide
    guided = hooks.guided if guide is not None else {}
    kwargs = {**hooks.defaults, **guided, **kwargs, "guide": guide}
    infer = kwargs.pop("infer", None)
    if infer is not None and not callable(infer):
        if infer:  # a strength: the lab's bid inference (pimc:infer=1)
            raise ValueError(f"pimc: infer={infer!r} is a lab lever; run it as {LAB_COMMAND} "
                             f"<command> ... (docs/lab/index.md)")
        infer = None
    kwargs["infer"] = infer
    leaf = kwargs.pop("leaf", None)
    if leaf is not None:  # pimc:leaf=hoch_tief - a learned value in place of the play-outs
        from stichzoo.policies.runtimes.leaf_value import LeafValue

        if rollout is not None:
            raise ValueError("pimc: leaf= values the position after the action; it takes "
                             "no rollout player")
        kwargs["leaf"] = LeafValue.of(game, str(leaf), kwargs.pop("depth", 0))
    if "depth" in kwargs:
        raise ValueError("pimc: depth= belongs to a leaf value (pimc:leaf=<model>,depth=4)")
    playout = kwargs.pop("playout", "fast")
    if playout not in ("fast", "rules"):
        raise ValueError(f"pimc: playout={playout!r}; choose fast (the game's own play-out "
                         f"where it has one: the same cards and draws, sooner) or rules")
    if playout == "fast" and value is hooks.value:
        # the game's own play-out of its uniform or its rollout player, where it has one
        if rollout is None:
            kwargs["playout"] = hooks.uniform_playout
        elif not asked_rollout:
            kwargs["playout"] = hooks.rollout_playout
        # the game's own play-out and value: the kernel may search in its place
        # (pimc:kernel=0 keeps the Python loop)
        kwargs["kernel"] = bool(kwargs.get("kernel", True)) and kwargs.get("playout") is not None
    if kwargs.get("endgame") and kwargs.get("solver") is None:  # the lab's lever, unregistered
        raise ValueError(f"pimc: endgame={kwargs['endgame']!r} is a lab lever; run it as "
                         f"{LAB_COMMAND} <command> ... (docs/lab/index.md)")
    _known_arguments("pimc", PIMCPolicy, kwargs)
    return PIMCPolicy(game, seed=seed, rollout=rollout, value=value, **kwargs)


def _known_arguments(name: str, cls: type, kwargs: dict[str, Any]) -> None:
    """A spec argument no builder takes is refused by name; a lab lever's says how to run it."""
    known = set(inspect.signature(cls).parameters)
    unknown = sorted(k for k in kwargs if k not in known)
    if unknown:
        raise ValueError(f"policy {name!r}: unknown argument(s) {', '.join(unknown)} (a lab "
                         f"lever's? run it as {LAB_COMMAND} <command> ...; docs/lab/index.md)")


def _ppo(game, seed: int | None, kwargs: dict[str, Any]) -> Policy:
    path = kwargs.pop("path", None)
    if not path:
        raise ValueError("policy 'ppo' needs a file: ppo:path=runs/<run>/policy.pt")
    path = str(path)
    if os.path.isdir(path):
        hint = (f"onnx:path={path}" if os.path.isfile(os.path.join(path, "manifest.json"))
                else f"ppo:path={os.path.join(path, 'policy.pt')}")
        raise ValueError(f"policy 'ppo': {path} is a folder, not a policy file; "
                         f"try {hint}")
    if not os.path.isfile(path):
        raise ValueError(f"policy 'ppo': no policy file {path}")
    from stichzoo.policies.runtimes.torch_policy import TorchPolicy

    return TorchPolicy.load(path, game, seed=seed, **kwargs)


def _onnx(game, seed: int | None, kwargs: dict[str, Any], name: str = "onnx") -> Policy:
    from stichzoo.policies.runtimes.onnx_policy import OnnxPolicy, shipped_bot

    if name == "bot":
        which = kwargs.pop("of", None) or game.name
        path = shipped_bot(str(which))
    else:
        path = kwargs.pop("path", None)
        if not path:
            raise ValueError("policy 'onnx' needs a bot folder: onnx:path=policies/bots/wizard")
        path = str(path)
        if not os.path.isdir(path):
            raise ValueError(f"policy 'onnx': {path} is not a bot folder (model.onnx + "
                             f"manifest.json)")
    deterministic = kwargs.pop("deterministic", True)
    if kwargs:
        raise ValueError(f"policy {name!r}: unknown argument(s) {', '.join(sorted(kwargs))}")
    return OnnxPolicy.load(path, game, deterministic=bool(deterministic), seed=seed)


def _bot(game, seed: int | None, kwargs: dict[str, Any]) -> Policy:
    return _onnx(game, seed, kwargs, name="bot")


def _mix(game, seed: int | None, kwargs: dict[str, Any]) -> Policy:
    """``mix:play=heuristic,else=bot`` - one bot per phase (policies/mix.py)."""
    from stichzoo.policies.mix import phase_mix

    return phase_mix(game, seed, lambda spec, s: build_policy(spec, game, seed=s), **kwargs)


def _outside(kind: str) -> Builder:
    """An outside bot's builder (policies/outside.py): its spec is parsed there."""
    return lambda game, seed, kwargs: build_outside(kind, game, seed, kwargs)


#: one builder per policy kind: a new kind adds a row, a new lever an option or a hook
BUILDERS: dict[str, Builder] = {"random": _random, "heuristic": _heuristic, "pimc": _pimc,
                                "search": _search, "ppo": _ppo, "onnx": _onnx, "bot": _bot,
                                "mix": _mix, **{k: _outside(k) for k in OUTSIDE_KINDS}}


def parse_policy_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"pimc:worlds=8,rollouts=2"`` -> ("pimc", {"worlds": 8, "rollouts": 2}).

    ``bot:wizard`` is short for ``bot:of=wizard``, the bot shipped for Wizard.  An outside
    bot's target is taken whole, its arguments after ``|`` (``cmd:node bot.js|deadline_ms=500``:
    :func:`stichzoo.policies.outside.parse_outside_spec`).
    """
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"a policy spec must be a non-empty string, not {spec!r}")
    name, _, args = spec.partition(":")
    if name in OUTSIDE_KINDS:
        return parse_outside_spec(spec)
    kwargs: dict[str, Any] = {}
    if name == "bot" and args and "=" not in args:  # bot:wizard - the shipped Wizard bot
        return name, {"of": args}
    if args:
        for item in args.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key:
                raise ValueError(f"policy {spec!r}: arguments must look like key=value")
            try:
                kwargs[key] = json.loads(value)
            except json.JSONDecodeError:
                kwargs[key] = value
    if name not in POLICY_NAMES:
        raise ValueError(f"unknown policy {name!r}; known policies: {', '.join(POLICY_NAMES)}")
    return name, kwargs


_LOADED: dict[tuple, Any] = {}
_NETWORKS = ("ppo", "onnx", "bot")  # loaded once per process, reseeded per game


def split_specs(items: Sequence[str]) -> list[str]:
    """``["heuristic,pimc:worlds=8,rollouts=2", "bot:wizard"]`` -> the specs, arguments kept.

    Commas separate specs, but also a spec's own arguments: a piece that is
    ``key=value`` without a policy name belongs to the spec before it.
    """
    specs: list[str] = []
    for item in items:
        for piece in item.split(","):
            piece = piece.strip()
            if not piece:
                continue
            if specs and "=" in piece and ":" not in piece.split("=", 1)[0] \
                    and ":" in specs[-1]:
                specs[-1] += "," + piece
            else:
                specs.append(piece)
    return specs


def build_policy(spec: str, game, seed: int, cache: bool = True):
    """A fresh policy for ``spec``; trained networks are loaded once per process and reseeded."""
    name, kwargs = parse_policy_spec(spec)
    key = (spec, game.name, game.num_players, json.dumps(game.options.as_dict(), sort_keys=True))
    if cache and name in _NETWORKS and key in _LOADED:
        policy = _LOADED[key]
        policy.reseed(seed)
        return policy
    try:
        policy = make_policy(name, game, seed=seed, **kwargs)
    except TypeError as e:
        raise ValueError(f"policy {spec!r}: {e}") from None
    except ImportError as e:
        raise ValueError(f"policy {spec!r} needs {e.name or 'a missing package'}: "
                         f"pip install 'stichzoo[eval,export]'") from None
    if cache and name in _NETWORKS:
        _LOADED[key] = policy
    return policy
