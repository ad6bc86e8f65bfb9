"""Datasets: game records turned into training arrays (imitation, offline RL).

Every decision of a record (``docs/records.md``) becomes one row: the acting
seat's observation and action mask - encoded from the replayed game by the
env's own encoder, so they are exactly what the env showed that seat - the
action taken, the reward the seat earned until its next decision and the
return from there to the end.  Records from any source convert: tournaments
(``stichzoo eval --records``), the terminal and web tables, self-play, another
program's.  The fields are documented in ``docs/datasets.md`` (and in
:data:`FIELDS`); :func:`save` writes them as one ``.npz`` file that numpy loads
without pickle.

    from stichzoo.envs.core.dataset import from_records, load
    data = from_records(records)          # dict of arrays, one row per decision
    data["observation"].shape             # (decisions, observation size)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from stichzoo.envs.core.observation import mask_bits_into
from stichzoo.envs.core.record import RecordError, replay_steps
from stichzoo.envs.core.rewards import check_reward_args, step_rewards
from stichzoo.envs.registry import env_module, game_class

SCHEMA = "stichzoo.dataset/1"

#: every array of a dataset, one row per decision: dtype and meaning (docs/datasets.md)
FIELDS: dict[str, tuple[str, str]] = {
    "observation": ("float32", "the acting seat's observation, as the env's observe() gives it"),
    "action_mask": ("int8", "1 for each legal action, as the env's action_mask"),
    "action": ("int64", "the action id taken"),
    "reward": ("float32", "what the seat earned from this decision until its next one (or the "
                          "game's end), as the env credits it"),
    "return": ("float32", "the discounted sum of the seat's rewards from this decision on "
                          "(gamma per later decision of the same seat)"),
    "done": ("bool", "the seat's last decision in this game"),
    "truncated": ("bool", "the game was cut off by a limit (set on the done rows)"),
    "next_index": ("int64", "row of the same seat's next decision in this game, -1 on done rows"),
    "seat": ("int8", "the acting seat (agent player_<seat>)"),
    "game": ("int64", "index of the record in the input"),
    "decision": ("int64", "index of the decision in its record's decisions"),
    "phase": ("int8", "the game phase, an index into meta['phase_names']"),
    "policy": ("int16", "the seat's policy, an index into meta['policies']; -1 when not known"),
}


def _encoder(game):
    """The env's own encoder for ``game`` (the class the AEC env encodes with)."""
    return env_module(game.name).raw_env.encoder_cls(game)


def _check_same_game(first: dict, record: Any, index: int) -> None:
    if not isinstance(record, dict):
        raise RecordError(f"a record is a JSON object, not {type(record).__name__}",
                          where=f"record {index}")
    for key in ("game", "options", "num_players"):
        if record.get(key) != first.get(key):
            raise ValueError(f"dataset: record {index} has {key} {record.get(key)!r}, record 0 "
                             f"{first.get(key)!r}; a dataset holds one game under one set of "
                             f"options (one observation size)")


def from_records(records: Sequence[dict], *, reward: str | None = None,
                 reward_scale: float | None = None, gamma: float = 1.0,
                 policies: Sequence[Sequence[str]] | None = None) -> dict[str, Any]:
    """One row per decision of ``records`` (all of one game and options): see :data:`FIELDS`.

    ``reward`` and ``reward_scale`` default to the first record's ``env_kwargs`` (the env's
    defaults ``"score"`` and 1 when absent); ``gamma`` discounts the return per later
    decision of the same seat.  ``policies[i][seat]`` names the policy of each seat of
    record ``i`` when known (played games); the names go into ``meta["policies"]``.
    Every record is replayed and checked (:func:`~stichzoo.envs.core.record.replay_steps`);
    a record that does not replay raises :class:`~stichzoo.envs.core.record.RecordError`
    naming the record and the field.  The result holds the arrays and ``meta`` (a dict).
    """
    records = list(records)
    if not records:
        raise ValueError("dataset: no records to convert")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"dataset: gamma={gamma!r} must be in [0, 1]")
    if policies is not None and len(policies) != len(records):
        raise ValueError(f"dataset: {len(policies)} policy lineups for {len(records)} records")
    first = records[0]
    if not isinstance(first, dict) or not isinstance(first.get("game"), str):
        raise RecordError("a record is a JSON object with a 'game' field", where="record 0")
    kwargs = first.get("env_kwargs") if isinstance(first.get("env_kwargs"), dict) else {}
    reward = reward or kwargs.get("reward", "score")
    reward_scale = float(kwargs.get("reward_scale", 1.0) if reward_scale is None
                         else reward_scale)
    check_reward_args(game_class(first["game"]), reward, reward_scale)
    for i, record in enumerate(records[1:], 1):
        _check_same_game(first, record, i)
    rows = sum(len(r["decisions"]) if isinstance(r.get("decisions"), list) else 0
               for r in records)
    names = list(dict.fromkeys(p for lineup in policies or () for p in lineup))
    out: dict[str, Any] = {}
    encoder = state = None
    row = 0
    for index, record in enumerate(records):
        start = row
        try:
            for state, decision in replay_steps(record):
                if encoder is None:
                    encoder = _encoder(state.game)
                    out = _empty(rows, encoder)
                if row > start:  # what the previous decision's step paid
                    _credit(out, state, start, row, reward, reward_scale)
                seat = decision["seat"]
                encoder.encode(state, seat, out["observation"][row])
                mask_bits_into(out["action_mask"][row], state.legal_mask())
                out["action"][row] = decision["action"]
                out["seat"][row] = seat
                out["game"][row] = index
                out["decision"][row] = len(state.history)
                out["phase"][row] = state.phase
                if policies is not None:
                    out["policy"][row] = names.index(policies[index][seat])
                row += 1
        except RecordError as e:
            raise RecordError(str(e).removeprefix("record: "), where=f"record {index}") from None
        if row > start:
            _credit(out, state, start, row, reward, reward_scale)
            _finish_game(out, start, row, bool(record["truncated"]), gamma)
    if encoder is None:
        raise ValueError("dataset: the records hold no decisions")
    game = state.game
    out["meta"] = {
        "schema": SCHEMA, "game": game.name, "env": game.env_id,
        "options": game.options.as_dict(), "num_players": game.num_players,
        "reward": reward, "reward_scale": reward_scale, "gamma": gamma,
        "records": len(records), "decisions": row,
        "phase_names": list(type(state).PHASE_NAMES), "policies": names,
        "observation_pieces": [{"name": p.name, "offset": encoder.layout.offsets[p.name],
                                "size": p.size} for p in encoder.layout.pieces],
    }
    return out


def _empty(rows: int, encoder) -> dict[str, Any]:
    out: dict[str, Any] = {key: np.zeros((rows,), dtype) for key, (dtype, _) in FIELDS.items()}
    out["observation"] = np.zeros((rows, encoder.layout.size), np.float32)
    out["action_mask"] = np.zeros((rows, encoder.game.num_actions), np.int8)
    out["next_index"].fill(-1)
    out["policy"].fill(-1)
    return out


def _credit(out: dict[str, Any], state, start: int, row: int, reward: str,
            reward_scale: float) -> None:
    """Credit what the step just applied paid each seat to that seat's latest decision.

    As the AEC env accumulates a seat's rewards until its next turn, so a row's reward is
    everything paid from its decision to the seat's next one (or the game's end).  No seat
    is ever paid before its first decision (a round scores after every seat has acted).
    """
    gains = step_rewards(state, reward, reward_scale)
    if gains is None:
        return
    seats = out["seat"]
    for seat, gain in enumerate(gains):
        if gain:
            latest = next(r for r in range(row - 1, start - 1, -1) if seats[r] == seat)
            out["reward"][latest] += gain


def _finish_game(out: dict[str, Any], start: int, end: int, truncated: bool,
                 gamma: float) -> None:
    """Per seat of one game's rows: next_index, done, truncated and the returns."""
    seats = out["seat"][start:end]
    for seat in np.unique(seats):
        rows = start + np.flatnonzero(seats == seat)
        out["next_index"][rows[:-1]] = rows[1:]
        out["done"][rows[-1]] = True
        out["truncated"][rows[-1]] = truncated
        g = 0.0
        for r in rows[::-1]:
            g = float(out["reward"][r]) + gamma * g
            out["return"][r] = g


def save(path: str, data: dict[str, Any]) -> str:
    """Write a dataset as one ``.npz`` (compressed): its arrays and ``meta`` as a JSON string.

    ``np.load(path)`` reads it without pickle; :func:`load` gives ``meta`` back as a dict.
    """
    if not path.endswith(".npz"):
        raise ValueError(f"dataset: {path}: the file must end in .npz")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"dataset: {path}: the folder {folder} does not exist")
    arrays = {k: v for k, v in data.items() if k != "meta"}
    np.savez_compressed(path, **arrays, meta=np.array(json.dumps(data["meta"])))
    return path


def load(path: str) -> dict[str, Any]:
    """A dataset written by :func:`save`: its arrays, and ``meta`` as a dict."""
    with np.load(path, allow_pickle=False) as f:
        data: dict[str, Any] = {k: f[k] for k in f.files if k != "meta"}
        data["meta"] = json.loads(str(f["meta"]))
    return data


def read_records(paths: Iterable[str]) -> list[dict]:
    """Records from files: ``.json`` (one record, as the tables save it), ``.jsonl`` (one per
    line, as ``stichzoo eval --records`` writes them) or folders of such files (sorted)."""
    records: list[dict] = []
    for path in paths:
        if os.path.isdir(path):
            inner = sorted(os.path.join(path, f) for f in os.listdir(path)
                           if f.endswith((".json", ".jsonl")))
            if not inner:
                raise ValueError(f"dataset: {path} holds no .json or .jsonl records")
            records += read_records(inner)
            continue
        if not os.path.isfile(path):
            raise ValueError(f"dataset: no record file {path}")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            if path.endswith(".jsonl"):
                records += [json.loads(line) for line in text.splitlines() if line.strip()]
            else:
                records.append(json.loads(text))
        except json.JSONDecodeError as e:
            raise ValueError(f"dataset: {path} is not JSON: {e}") from None
    return records


__all__ = ["FIELDS", "SCHEMA", "from_records", "load", "read_records", "save"]
