"""The random state of a table's bots, as JSON: what a resumed table needs to play on exactly.

    states = bot_states(bot)          # {"rng": {...}, "rollout.rng": {...}}
    fresh = build_policy(spec, game, seed)
    restore_bot_states(fresh, states) # ``fresh`` now draws what ``bot`` would draw next

A bot's moves depend on the game state it is shown and on its random
generators, which advance with every move it makes.  A table that is saved
after each move and loaded again (another process, a restart) rebuilds its
bots from their specs and seeds, so without their generators' states a
resumed game would go on differently from the same game played without a
break.  The policies keep no other state between decisions (they are
handed the whole game state each time), so their generators are enough -
the table store's test plays a game with a reload after every move and
compares the record byte for byte with the same game played straight.

The generators are found by walking the policy's attributes (the bot, its
rollout player, its guide ...): Python's ``random.Random`` and numpy's
``Generator`` / ``RandomState``, each under its attribute path.  Only
stichzoo's own policy objects are walked, never a game, a network or the C
kernel, so the walk is short and reads nothing it does not understand.
"""

from __future__ import annotations

import random
from typing import Any

__all__ = ["bot_states", "restore_bot_states"]

#: the packages whose objects the walk enters (a policy, its rollout player, its guide)
_WALKED = ("stichzoo.policies.",)
#: how deep the walk goes: a bot's guide's rollout's generator is three steps down
_MAX_DEPTH = 6


def _numpy_generator_types() -> tuple[type, ...]:
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is a dependency of stichzoo
        return ()
    return (np.random.Generator, np.random.RandomState)


def _children(obj: Any) -> list[tuple[str, Any]]:
    """The attributes (or items) of ``obj`` the walk looks at, with their path steps."""
    if isinstance(obj, dict):
        return [(str(k), v) for k, v in obj.items() if isinstance(k, (str, int))]
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj)]
    out = list(vars(obj).items()) if hasattr(obj, "__dict__") else []
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(obj, name):
                out.append((name, getattr(obj, name)))
    return out


def _walk(obj: Any, path: str, depth: int, seen: set[int], out: dict[str, Any]) -> None:
    if id(obj) in seen or depth > _MAX_DEPTH:
        return
    seen.add(id(obj))
    for step, value in _children(obj):
        where = f"{path}.{step}" if path else step
        if isinstance(value, (random.Random, *_numpy_generator_types())):
            out[where] = value
        elif isinstance(value, (dict, list, tuple)) or \
                type(value).__module__.startswith(_WALKED):
            _walk(value, where, depth + 1, seen, out)


def _generators(bot: Any) -> dict[str, Any]:
    """Every random generator of ``bot`` under its attribute path (the first path to it)."""
    out: dict[str, Any] = {}
    _walk(bot, "", 0, set(), out)
    return out


def _state_of(rng: Any) -> dict:
    if isinstance(rng, random.Random):
        version, internal, gauss = rng.getstate()
        return {"kind": "random", "version": version, "state": list(internal), "gauss": gauss}
    import numpy as np

    if isinstance(rng, np.random.Generator):
        return {"kind": "generator", "state": rng.bit_generator.state}
    return {"kind": "random_state", "state": _plain(rng.get_state(legacy=False))}


def _plain(value: Any) -> Any:
    """numpy values as JSON ones (a RandomState's key is an array)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def bot_states(bot: Any) -> dict[str, dict]:
    """The state of every random generator of ``bot``, JSON-ready, by attribute path."""
    return {path: _state_of(rng) for path, rng in _generators(bot).items()}


def restore_bot_states(bot: Any, states: dict[str, dict]) -> None:
    """Set ``bot``'s generators to ``states`` (:func:`bot_states` of a bot of the same spec).

    Raises ``ValueError`` when the generators do not match - a different spec,
    or a policy whose structure changed since the state was saved - so a
    table is never resumed with bots that would play differently.
    """
    import numpy as np

    rngs = _generators(bot)
    if set(rngs) != set(states):
        raise ValueError(f"the bot's random generators ({', '.join(sorted(rngs)) or 'none'}) "
                         f"are not the saved ones ({', '.join(sorted(states)) or 'none'})")
    for path, rng in rngs.items():
        saved = states[path]
        kind = saved.get("kind")
        if isinstance(rng, random.Random) and kind == "random":
            rng.setstate((saved["version"], tuple(saved["state"]), saved["gauss"]))
        elif isinstance(rng, np.random.Generator) and kind == "generator":
            rng.bit_generator.state = saved["state"]
        elif isinstance(rng, np.random.RandomState) and kind == "random_state":
            state = dict(saved["state"])
            state["state"] = {**state["state"],
                              "key": np.asarray(state["state"]["key"], dtype=np.uint32)}
            rng.set_state(state)
        else:
            raise ValueError(f"the bot's generator {path} is a {type(rng).__name__}, "
                             f"the saved one a {kind}")
