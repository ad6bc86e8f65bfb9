"""Game records: a whole game as JSON, and its replay.

A record holds everything needed to replay a game exactly - options, the
deck order of every shuffle, every decision with its seat - plus what a
reader wants to see without replaying: per round the deal, the tricks with
their cards in play order and winners, and the scores.  The schema is in
``docs/records.md``.  Replaying needs no seed: the deck orders are in the
record, so records from any source (a frontend, a dataset) replay too.

A record is only as good as its weakest field: a reader trusts the rounds,
totals and winners without replaying.  So :func:`replay` recomputes every
field a record states and refuses the record at the first one that differs.
"""

from __future__ import annotations

import copy
import json
import math
import random
from collections.abc import Iterator
from typing import Any

from stichzoo.envs.core.game import Game, GameState, IllegalActionError, build_options
from stichzoo.envs.core.rewards import REWARD_MODES
from stichzoo.envs.registry import game_class

SCHEMA = "stichzoo.record/1"

#: every top-level field, in the order replay checks them, with its JSON type
FIELDS: dict[str, tuple[type, ...]] = {
    "schema": (str,),
    "game": (str,),
    "env": (str,),
    "options": (dict,),
    "env_kwargs": (dict,),
    "seed": (int, type(None)),
    "num_players": (int,),
    "deck_orders": (list,),
    "decisions": (list,),
    "rounds": (list,),
    "totals": (list,),
    "over": (bool,),
    "truncated": (bool,),
    "winners": (list,),
}
#: fields a record may leave out: ``partial`` (records before it replay as whole ones)
OPTIONAL_FIELDS: dict[str, tuple[type, ...]] = {"partial": (bool,)}
DECISION_FIELDS: dict[str, type] = {"seat": int, "action": int, "label": str}


class RecordError(ValueError):
    """A record that does not replay to what it states; the message names the field.

    ``where`` names the record: ``record``, or ``record 3`` for the fourth of many.
    """

    def __init__(self, message: str, where: str = "record"):
        super().__init__(f"{where}: {message}")


def build_record(game: Game, state: GameState, *, seed: int | None = None,
                 env_kwargs: dict | None = None) -> dict[str, Any]:
    if state.log is None:
        # without its log a state cannot state its rounds, and the record would not replay
        raise ValueError("a record needs a state made with log=True")
    names = game.deck.names
    return {
        "schema": SCHEMA,
        "game": game.name,
        "env": game.env_id,
        "options": game.options.as_dict(),
        "env_kwargs": dict(env_kwargs or {}),
        "seed": seed,
        "num_players": game.num_players,
        "deck_orders": [[names[c] for c in order] for order in state.deck_orders],
        "decisions": [
            {"seat": seat, "action": action, "label": game.action_label(action)}
            for seat, action in state.history
        ],
        # a copy: the record must not change as the game goes on, nor the game with the record
        "rounds": copy.deepcopy(state.log),
        "totals": list(state.totals),
        "over": state.over,
        "truncated": state.truncated,
        "winners": _winners(state),
        # the game so far, not a whole game: it may stop anywhere, even inside a trick
        "partial": not (state.over or state.truncated),
    }


def to_json(record: dict, **kwargs: Any) -> str:
    return json.dumps(record, **kwargs)


def replay(record: dict) -> GameState:
    """Rebuild a game from its record and check that it is the game recorded.

    Every field is checked, in the order of :data:`FIELDS` (then ``partial``): presence and
    type, the game and its env id, options and ``num_players``, the deck
    orders (and that ``seed``, when given, deals them), each decision's
    seat, action and label, then the replayed ``rounds``, ``totals``,
    ``over``, ``truncated`` and ``winners``.  A finished record must hold
    every decision; a mid-game one must match the game after its last, and
    a record that stops inside a trick (cards played, the trick not yet
    taken) must say ``"partial": true`` - otherwise its missing last cards
    could not be told from a whole record, as the rounds log whole tricks only.
    Raises :class:`RecordError` (a ``ValueError``) naming the first field
    that is missing, of the wrong type or different from the replay.
    """
    steps = replay_steps(record)
    while True:
        try:
            next(steps)
        except StopIteration as end:
            return end.value


def dealt_state(record: dict) -> GameState:
    """The game of ``record`` as dealt, before its first decision (``state.game`` is its game).

    The header (schema, game, options, env id, ``num_players``, ``env_kwargs``) and the
    deck orders are checked as :func:`replay` checks them; the decisions are not applied.
    """
    return _dealt_state(_check_header(record), record)


def replay_steps(record: dict) -> Iterator[tuple[GameState, dict]]:
    """Replay ``record`` one decision at a time: yields ``(state, decision)`` before each.

    ``state`` is the replayed game with ``decision["seat"]`` to act, the decision already
    checked (seat, action id, label, legal); the decision is applied when the iteration
    resumes.  The state is live - copy what you keep (``state.clone()``).  After the last
    decision the checks of :func:`replay` on the whole record run, so a record that differs
    from its replay raises :class:`RecordError` at the end of the iteration; the
    generator's return value is the final state.  This is how datasets are made
    (:mod:`stichzoo.envs.core.dataset`): the observations of each decision, encoded from
    the replayed state, are those the env showed.
    """
    game = _check_header(record)
    state = _dealt_state(game, record)
    for i, decision in enumerate(record["decisions"]):
        _check_decision(game, state, i, decision)
        yield state, decision
        _apply_decision(state, i, decision["action"])
    if (record["over"] or record["truncated"]) and not (state.over or state.truncated):
        field = "over" if record["over"] else "truncated"
        raise RecordError(f"{field} is True, but after its {len(record['decisions'])} "
                          f"decisions the replayed game is still running: decisions are missing")
    partial = record.get("partial", False)
    if partial and (record["over"] or record["truncated"]):
        raise RecordError("partial is True, but the record states a finished game (over or "
                          "truncated is True): a finished game is whole")
    inside = _cards_inside_trick(game, state)
    if inside and not partial:
        raise RecordError(f"the record stops inside a trick: after its "
                          f"{len(record['decisions'])} decisions {inside} of the trick's cards "
                          f"are played and the trick is not taken, so its last decisions are "
                          f'missing; a record of a game in progress says "partial": true')
    replayed = {"rounds": state.log, "totals": list(state.totals), "over": state.over,
                "truncated": state.truncated, "winners": _winners(state)}
    for field, value in replayed.items():
        _compare(field, record[field], value)
    return state


def _winners(state: GameState) -> list[int]:
    return state.winners() if (state.over or state.truncated) else []


def _cards_inside_trick(game: Game, state: GameState) -> int:
    """Cards of a trick played but not yet taken at the end of the replay (0: none).

    A taken trick is the last one logged in its round; a complete trick still
    waiting (Silberne Ananas' Joker gift) is inside a trick too.
    """
    cards = state.trick.cards
    if state.over or state.truncated or not cards:
        return 0
    logged = (state.log[-1].get("tricks") if state.log else None) or []
    names = [game.deck.names[c] for c in cards]
    return 0 if logged and logged[-1].get("cards") == names else len(names)


# -- the parts of replay ------------------------------------------------------------


def _check_header(record: Any) -> Game:
    """Fields, types, game, env id and options; the game the record was played under."""
    if not isinstance(record, dict):
        raise RecordError(f"a record is a JSON object, not {type(record).__name__}")
    if record.get("schema") != SCHEMA:
        raise RecordError(f"schema is {record.get('schema')!r}, not {SCHEMA!r} "
                          f"(not a stichzoo record?)")
    for field, types in FIELDS.items():
        if field not in record:
            raise RecordError(f"field {field!r} is missing")
        _check_type(field, record[field], types)
    for field, types in OPTIONAL_FIELDS.items():
        if field in record:
            _check_type(field, record[field], types)
    unknown = sorted(set(record) - set(FIELDS) - set(OPTIONAL_FIELDS), key=str)
    if unknown:
        raise RecordError(f"unknown field(s) {', '.join(map(repr, unknown))}; "
                          f"known: {', '.join([*FIELDS, *OPTIONAL_FIELDS])}")
    try:
        cls = game_class(record["game"])
    except ValueError as e:
        raise RecordError(f"game: {e}") from None
    try:
        game = cls(build_options(cls.Options, cls.name, record["options"]))
    except (ValueError, TypeError) as e:
        raise RecordError(f"options: {e}") from None
    if record["env"] != game.env_id:
        raise RecordError(f"env is {record['env']!r}, but {game.name} is {game.env_id!r} "
                          f"in this version of stichzoo")
    if record["num_players"] != game.num_players:
        raise RecordError(f"num_players is {record['num_players']}, but its options "
                          f"make {game.num_players} players")
    _check_env_kwargs(record["env_kwargs"])
    return game


def _check_type(path: str, value: Any, types: tuple[type, ...]) -> None:
    # bool is an int to Python, but never to a record
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        names = " or ".join("null" if t is type(None) else t.__name__ for t in types)
        raise RecordError(f"{path} must be {names}, not {type(value).__name__} {_short(value)}")


def _check_env_kwargs(env_kwargs: dict) -> None:
    unknown = sorted(set(env_kwargs) - {"reward", "reward_scale"}, key=str)
    if unknown:
        raise RecordError(f"env_kwargs: unknown key(s) {', '.join(map(repr, unknown))}; "
                          f"known: 'reward', 'reward_scale'")
    if "reward" in env_kwargs and env_kwargs["reward"] not in REWARD_MODES:
        raise RecordError(f"env_kwargs.reward is {env_kwargs['reward']!r}, not one of "
                          f"{list(REWARD_MODES)}")
    if "reward_scale" in env_kwargs:
        scale = env_kwargs["reward_scale"]
        _check_type("env_kwargs.reward_scale", scale, (int, float))
        if not math.isfinite(scale) or scale <= 0:
            raise RecordError(f"env_kwargs.reward_scale is {scale!r}, not a positive number")


def _dealt_state(game: Game, record: dict) -> GameState:
    """The game dealt from the record's deck orders, checked as cards and against the seed."""
    orders = []
    for i, order in enumerate(record["deck_orders"]):
        _check_type(f"deck_orders[{i}]", order, (list,))
        for j, name in enumerate(order):
            _check_type(f"deck_orders[{i}][{j}]", name, (str,))
        try:
            orders.append(game.deck.parse(order))
        except ValueError as e:
            raise RecordError(f"deck_orders[{i}]: {e}") from None
    try:
        state = game.new_state(orders, log=True)  # the game checks count and composition
    except ValueError as e:
        raise RecordError(f"deck_orders: {e}") from None
    seed = record["seed"]
    if seed is not None:
        dealt = game.deal(random.Random(seed))
        for i, (order, want) in enumerate(zip(orders, dealt)):
            if list(order) != list(want):
                j = next(j for j, (a, b) in enumerate(zip(order, want)) if a != b)
                names = game.deck.names
                raise RecordError(
                    f"deck_orders[{i}] is not the shuffle seed {seed} deals: card {j} is "
                    f"{names[order[j]]!r}, the seed deals {names[want[j]]!r}")
    return state


def _check_decision(game: Game, state: GameState, i: int, decision: Any) -> None:
    """Check decision ``i`` against the replayed game: fields, seat, action id and label."""
    path = f"decisions[{i}]"
    if state.over or state.truncated:
        raise RecordError(f"{path} comes after the end of the game, which the replay "
                          f"reaches after {i} decisions")
    _check_type(path, decision, (dict,))
    for key, typ in DECISION_FIELDS.items():
        if key not in decision:
            raise RecordError(f"{path}.{key} is missing")
        _check_type(f"{path}.{key}", decision[key], (typ,))
    unknown = sorted(set(decision) - set(DECISION_FIELDS), key=str)
    if unknown:
        raise RecordError(f"{path}: unknown key(s) {', '.join(map(repr, unknown))}; "
                          f"known: seat, action, label")
    seat, action, label = decision["seat"], decision["action"], decision["label"]
    if seat != state.current_player:
        raise RecordError(f"{path}.seat is {seat}, but the replayed game has seat "
                          f"{state.current_player} to act at decision {i}")
    if not 0 <= action < game.num_actions:
        raise RecordError(f"{path}.action is {action}, not an action id of {game.name} "
                          f"(0..{game.num_actions - 1})")
    if label != game.action_label(action):
        raise RecordError(f"{path}.label is {label!r} but action {action} is "
                          f"{game.action_label(action)!r}")
    if not (state.legal_mask() >> action) & 1:
        _apply_decision(state, i, action)  # raises the rules' message, naming the legal ones


def _apply_decision(state: GameState, i: int, action: int) -> None:
    try:
        state.step(action)
    except IllegalActionError as e:
        raise RecordError(f"decisions[{i}].action: {e}") from None


def _compare(path: str, recorded: Any, replayed: Any) -> None:
    """Raise at the first place where ``recorded`` differs from ``replayed`` (JSON-like values)."""
    if isinstance(replayed, dict):
        if not isinstance(recorded, dict):
            raise RecordError(f"{path} differs from the replay: recorded {_short(recorded)}, "
                              f"replayed an object")
        for key, value in replayed.items():
            if key not in recorded:
                raise RecordError(f"{path}.{key} is missing (the replay gives {_short(value)})")
            _compare(f"{path}.{key}", recorded[key], value)
        extra = [k for k in recorded if k not in replayed]
        if extra:
            raise RecordError(f"{path}.{extra[0]} is recorded, but the replay has no such key")
    elif isinstance(replayed, (list, tuple)):
        if not isinstance(recorded, (list, tuple)):
            raise RecordError(f"{path} differs from the replay: recorded {_short(recorded)}, "
                              f"replayed a list")
        for j, (a, b) in enumerate(zip(recorded, replayed)):
            _compare(f"{path}[{j}]", a, b)
        if len(recorded) != len(replayed):
            raise RecordError(f"{path} differs from the replay: {len(recorded)} entries "
                              f"recorded, {len(replayed)} replayed")
    elif recorded != replayed or isinstance(recorded, bool) != isinstance(replayed, bool) \
            or isinstance(recorded, (dict, list, tuple)):
        raise RecordError(f"{path} differs from the replay: recorded {_short(recorded)}, "
                          f"replayed {_short(replayed)}")


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."
