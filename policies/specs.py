"""Policy specs: one string names a policy and its arguments, everywhere.

    "heuristic", "random", "pimc:worlds=8,rollouts=2", "bot:wizard",
    "onnx:path=policies/bots/wizard", "ppo:path=runs/<run>/policy.pt",
    "mix:play=heuristic,else=bot" (one bot per phase; policies/mix.py)

Tournaments, training opponent pools, the warm-start teacher, the bot server's
difficulty levels and ``stichzoo play`` all read the same specs, so a bot named
in one place means the same bot in every other.  :func:`make_policy` builds a
policy from a name and arguments; :func:`build_policy` from a spec string.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Sequence
from typing import Any

from stichzoo.policies.base import Policy, RandomPolicy
from stichzoo.policies.lab.belief import BeliefInference

#: ``pimc:rollout=random``: marks PIMC's own uniform play-out (no rollout player)
_UNIFORM = object()

POLICY_NAMES = ("random", "heuristic", "pimc", "search", "ppo", "onnx", "bot", "mix")


def game_policy_module(game_name: str):
    """``policies.<game>``: the game's heuristic and search hints."""
    try:
        return importlib.import_module(f"stichzoo.policies.games.{game_name}")
    except ModuleNotFoundError as e:
        raise ValueError(f"no policies for game {game_name!r}") from e


def learned_search(game_name: str) -> str:
    """The game's learned search (the ``search`` spec) spelled out: its policy module's
    ``LEARNED_SEARCH`` (Hoch & Tief: PIMC with a leaf value), else PIMC guided by the
    shipped network."""
    default = f"pimc:guide=bot:{game_name}"
    return getattr(game_policy_module(game_name), "LEARNED_SEARCH", default)


def make_policy(name: str, game, seed: int | None = None, **kwargs: Any) -> Policy:
    """Build a policy by name for ``game`` (a :class:`stichzoo.envs.core.game.Game`)."""
    if name == "random":
        return RandomPolicy(seed)
    if name == "heuristic":
        return game_policy_module(game.name).Heuristic(game, seed=seed, **kwargs)
    if name in ("pimc", "search"):
        from stichzoo.policies.search import PIMCPolicy

        module = game_policy_module(game.name)
        if name == "search":  # the game's learned search, spelled out (learned_search)
            kwargs = {**parse_policy_spec(learned_search(game.name))[1], **kwargs}
        rollout = kwargs.pop("rollout", None)
        asked_rollout = rollout is not None
        if rollout == "random":  # pimc:rollout=random - uniform random play-outs
            rollout = _UNIFORM
        elif rollout == "heuristic":  # pimc:rollout=heuristic - the game's full heuristic
            rollout = module.Heuristic(game, seed=seed)
        elif isinstance(rollout, str):
            raise ValueError(f"pimc: rollout={rollout!r}; choose random or heuristic (the "
                             f"default is the game's rollout player)")
        if rollout is None and hasattr(module, "rollout_policy"):
            rollout = module.rollout_policy(game, seed)
        if rollout is _UNIFORM:
            rollout = None  # PIMC's own uniform play-out
        value = kwargs.pop("value", getattr(module, "search_value", None))
        standing = kwargs.pop("standing", None)
        if standing is not None:  # pimc:standing=deals - a learned match standing
            if not hasattr(module, "standing_hooks"):
                raise ValueError(f"pimc: standing= is a learned match standing; {game.name} "
                                 f"has none (Silberne Ananas has)")
            if asked_rollout:
                raise ValueError("pimc: standing= brings its own rollout player (the game's, "
                                 "steering by the learned standing); drop rollout=")
            rollout, value = module.standing_hooks(game, seed, str(standing))
        guide = kwargs.pop("guide", None)
        if isinstance(guide, str):  # a policy spec: pimc:guide=bot:wizard
            guide = build_policy(guide, game, seed=0 if seed is None else seed)
        # GUIDE_DEFAULTS: a guided search's own settings (phases=<phase>: the guide prunes
        # only there; follow=<phase>: the network decides alone); plain PIMC has no guide
        guided = getattr(module, "GUIDE_DEFAULTS", {}) if guide is not None else {}
        kwargs = {**getattr(module, "SEARCH_DEFAULTS", {}), **guided, **kwargs, "guide": guide}
        infer = kwargs.pop("infer", 0)
        belief = kwargs.pop("belief", None)
        by_policy = kwargs.pop("policy", None)
        candidates = kwargs.pop("candidates", None)
        plays = kwargs.pop("plays", None)
        if (candidates is not None or plays is not None) and by_policy is None:
            raise ValueError("pimc: candidates= and plays= belong to the policy inference "
                             "(pimc:policy=0.5,candidates=36)")
        temper = kwargs.pop("temper", None)
        if temper is not None and belief is None:
            raise ValueError("pimc: temper= softens a belief model (pimc:belief=wizard,temper=0.5)")
        if by_policy is not None:  # pimc:policy=0.5 - worlds weighted by the shipped network
            if infer or belief is not None:
                raise ValueError("pimc: choose one of infer=, belief= and policy=")
            if game.name != "wizard":
                raise ValueError(f"pimc: {game.name} has no policy inference (policy=) yet")
            from stichzoo.policies.lab.policy_inference import PolicyInference

            kwargs["infer"] = PolicyInference(game, by_policy, candidates,
                                              0 if plays is None else plays)
        elif belief is not None:  # pimc:belief=wizard - worlds drawn from a learned belief model
            if infer:
                raise ValueError("pimc: choose infer= or belief=, not both")
            kwargs["infer"] = BeliefInference.of(game, str(belief),
                                                 1.0 if temper is None else float(temper))
        elif infer:  # pimc:infer=1 - worlds drawn by what the other seats did
            if not hasattr(module, "inference"):
                raise ValueError(f"pimc: {game.name} has no inference (infer=) yet")
            kwargs["infer"] = module.inference(game, float(infer))
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
        if playout == "fast" and value is getattr(module, "search_value", None):
            # the game's own play-out of its uniform or its rollout player, where it has one
            if rollout is None:
                kwargs["playout"] = getattr(module, "uniform_playout", None)
            elif not asked_rollout:
                kwargs["playout"] = getattr(module, "rollout_playout", None)
        return PIMCPolicy(game, seed=seed, rollout=rollout, value=value, **kwargs)
    if name == "ppo":
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
    if name in ("onnx", "bot"):
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
    if name == "mix":  # mix:play=heuristic,else=bot - one bot per phase
        from stichzoo.policies.mix import phase_mix

        return phase_mix(game, seed, lambda spec, s: build_policy(spec, game, seed=s), **kwargs)
    raise ValueError(f"unknown policy {name!r}; known policies: {', '.join(POLICY_NAMES)}")



def parse_policy_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"pimc:worlds=8,rollouts=2"`` -> ("pimc", {"worlds": 8, "rollouts": 2}).

    ``bot:wizard`` is short for ``bot:of=wizard``, the bot shipped for Wizard.
    """
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"a policy spec must be a non-empty string, not {spec!r}")
    name, _, args = spec.partition(":")
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
