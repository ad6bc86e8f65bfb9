"""Game records: a whole game as JSON, and its replay.

A record holds everything needed to replay a game exactly - options, the
deck order of every shuffle, every decision with its seat - plus what a
reader wants to see without replaying: per round the deal, the tricks with
their cards in play order and winners, and the scores.  The schema is in
``docs/records.md``.  Replaying needs no seed: the deck orders are in the
record, so records from any source (a frontend, a dataset) replay too.
"""

from __future__ import annotations

import json
from typing import Any

from stichzoo.envs.core.game import Game, GameState, build_options

SCHEMA = "stichzoo.record/1"


def build_record(game: Game, state: GameState, *, seed: int | None = None,
                 env_kwargs: dict | None = None) -> dict[str, Any]:
    names = game.deck.names
    return {
        "schema": SCHEMA,
        "game": game.name,
        "env": game.env_id,
        "options": game.options.as_dict(),
        "env_kwargs": env_kwargs or {},
        "seed": seed,
        "num_players": game.num_players,
        "deck_orders": [[names[c] for c in order] for order in state.deck_orders],
        "decisions": [
            {"seat": seat, "action": action, "label": game.action_label(action)}
            for seat, action in state.history
        ],
        "rounds": state.log if state.log is not None else [],
        "totals": list(state.totals),
        "over": state.over,
        "truncated": state.truncated,
        "winners": state.winners() if (state.over or state.truncated) else [],
    }


def to_json(record: dict, **kwargs: Any) -> str:
    return json.dumps(record, **kwargs)


def replay(record: dict) -> GameState:
    """Rebuild a game from its record and check it ends as recorded.

    Raises ``ValueError`` naming the first decision that the rules refuse,
    or the first total that differs.
    """
    from stichzoo.envs.registry import game_class

    if record.get("schema") != SCHEMA:
        raise ValueError(f"not a stichzoo record (schema {record.get('schema')!r})")
    cls = game_class(record["game"])
    game = cls(build_options(cls.Options, cls.name, record["options"]))
    orders = [game.deck.parse(order) for order in record["deck_orders"]]
    state = game.new_state(orders, log=True)
    for i, d in enumerate(record["decisions"]):
        if d["seat"] != state.current_player:
            raise ValueError(f"decision {i}: seat {d['seat']} recorded, but "
                             f"player_{state.current_player} is to act")
        try:
            state.step(d["action"])
        except ValueError as e:
            raise ValueError(f"decision {i}: {e}") from None
    if list(state.totals) != list(record["totals"]):
        raise ValueError(f"replayed totals {state.totals} differ from recorded "
                         f"{record['totals']}")
    return state
