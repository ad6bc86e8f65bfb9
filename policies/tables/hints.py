"""A hint at the table: the search's move for the person's decision and how much worse the
others are estimated.

    from stichzoo.policies.tables.hints import search_hint
    hint = search_hint(game, state, seat, seed=7)   # {"move", "why", "values"}

The search is the ``pimc`` level (:class:`~stichzoo.policies.search.PIMCPolicy`,
``docs/bots.md`` "Hints"): it samples worlds from what ``seat`` may know
(``game.determinize``) and plays every legal move in each, exactly as a pimc
bot at the table decides - so a hint never uses a hidden card.  The values are
the seat's score margin over the rest of the round; ``difference`` is a move's
value minus the suggested move's (0 for it, negative for one rated lower), with
its standard error.  A table calls this under its own lock
(:meth:`~stichzoo.policies.tables.table.Table.hint`).
"""

from __future__ import annotations

import importlib
from typing import Any

from stichzoo.envs.core.game import Game, GameState
from stichzoo.policies.base import Decision
from stichzoo.policies.specs import make_policy


def _rounded(x: float | None) -> float | None:
    return None if x is None else round(float(x), 2)


def search_hint(game: Game, state: GameState, seat: int, seed: int) -> dict[str, Any]:
    """The search's move for ``seat`` (to act in ``state``) and every legal move's value.

    ``values`` are best first (a move without a value - a forced one, not
    searched - last), each with ``id``, ``label``, ``value``, ``stderr``,
    ``difference``, ``difference_stderr``, ``worlds`` and ``reason`` (why it
    has no value, else None).
    """
    views = importlib.import_module(f"stichzoo.envs.{game.name}.view")
    search = make_policy("pimc", game, seed=seed)  # the pimc level's own budget
    result = search.values(Decision(game, state, seat))

    def move(action: int) -> dict:
        info = views.action_to_view(game, action)
        return {"id": action, "label": game.action_label(action), "kind": info.get("kind")}

    values = [{**move(v.action), "value": _rounded(v.value), "stderr": _rounded(v.stderr),
               "difference": _rounded(v.difference),
               "difference_stderr": _rounded(v.difference_stderr), "worlds": v.worlds,
               "reason": v.reason} for v in result.values]
    values.sort(key=lambda v: (v["difference"] is None, -(v["difference"] or 0.0), v["id"]))
    return {"move": move(result.action), "why": result.why, "values": values}


__all__ = ["search_hint"]
