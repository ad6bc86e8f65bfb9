"""Policy specs: one string names a policy and its arguments, everywhere.

    "heuristic", "random", "pimc:worlds=8,rollouts=2", "bot:wizard",
    "onnx:path=policies/bots/wizard", "ppo:path=runs/<run>/policy.pt"

Tournaments, training opponent pools, the warm-start teacher, the bot server's
difficulty levels and ``stichzoo play`` all read the same specs, so a bot named
in one place means the same bot in every other.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from stichzoo.policies import POLICY_NAMES, make_policy


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
