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

After the game, :func:`game_analysis` asks the same search about each of the
person's decisions in the game record (``docs/records.md``): it replays the
record and hands the search the replayed state at that decision, exactly as
the hint was handed the live one, so an analysis - like a hint - uses only what
the seat could know then.  Forced moves (one legal move) are skipped.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from stichzoo.envs.core.game import Game, GameState
from stichzoo.envs.core.record import replay_steps
from stichzoo.envs.registry import view_of
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
    views = view_of(game.name)
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


def round_of(state: GameState) -> int:
    """The round (0-based) ``state`` is in, as the round log counts it (``round``, or
    Geheimtrumpf's ``deal``): the number a table's events carry."""
    log = state.log or [{}]
    last = log[-1]
    return int(last.get("round", last.get("deal", 0)))


def game_analysis(record: dict, seat: int,
                  seed_for: Callable[[int], int]) -> list[dict[str, Any]]:
    """Each non-forced decision of ``seat`` in a finished ``record`` beside the search's best.

    One :func:`search_hint` per decision, on the replayed state at it and seeded
    by ``seed_for(decision number)`` - a table passes its hint seed, so the
    analysis of a decision is the hint that decision would have got.  Each
    entry: ``decision`` (its number in the record), ``round`` (0-based),
    ``phase``, ``move`` (the one made: ``id``, ``label``, ``kind``), ``best``
    (the search's), ``same`` (whether they are one move), ``loss`` (how much
    lower the search rates the move made than its best, in the seat's points
    over the rest of the round: 0 when they are the same; None when the move
    was not searched) with ``loss_stderr``, and ``value`` / ``best_value``.
    """
    out = []
    for state, decision in replay_steps(record):
        if decision["seat"] != seat or len(state.legal_actions()) < 2:
            continue
        number = len(state.history)
        hint = search_hint(state.game, copy.deepcopy(state), seat, seed=seed_for(number))
        made = next(v for v in hint["values"] if v["id"] == decision["action"])
        best = next(v for v in hint["values"] if v["id"] == hint["move"]["id"])
        same = made["id"] == best["id"]
        if same:
            loss, loss_stderr = 0.0, None
        elif made["difference"] is None:
            loss, loss_stderr = None, None
        else:
            loss, loss_stderr = _rounded(-made["difference"]) + 0.0, made["difference_stderr"]
        out.append({"decision": number, "round": round_of(state), "phase": state.phase_name,
                    "move": {k: made[k] for k in ("id", "label", "kind")},
                    "best": dict(hint["move"]), "same": same, "loss": loss,
                    "loss_stderr": loss_stderr, "value": made["value"],
                    "best_value": best["value"]})
    return out


__all__ = ["game_analysis", "round_of", "search_hint"]
