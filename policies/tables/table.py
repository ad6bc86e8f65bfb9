"""A table for one person and bots, with the rules engine as referee.

    from stichzoo.policies.tables.table import Table
    table = Table("wizard", num_players=4, options={"rounds": [1, 2]},
                  opponents=["heuristic", "random", "heuristic"], human_seat=0, seed=7)
    view = table.view()                # what seat 0 may know, the numbered legal moves
    table.act(view["moves"][0]["id"])  # an action id, or its label ("bid 1", "R7")
    table.record()                     # at the end: the game record (docs/records.md)

The table owns the true game state and never hands it out: a frontend (the
terminal table, the browser table) sees only :meth:`Table.view`, which holds
the human seat's player view (``stichzoo.envs.<game>.view.to_view``), its
legal moves, and the *public* events since its last move - every other
seat's decisions (a secret one, such as a Wunder Punkt sore card or a
Geheimtrumpf task choice, without what was chosen), completed tricks with
their winners, Geheimtrumpf's row-winner announcements, reveals and round
ends.  The bots move by themselves whenever it is not the human's turn, so
the person is always asked, never the engine.

:class:`TableStore` keeps many tables at once for a server: each under its
own lock, behind an unguessable id, expiring after an idle time, bounded in
number.  Errors are :class:`TableError` (a ``ValueError``) with an HTTP-like
``status`` so a web layer can answer 4xx without knowing the cases.

No web framework and no torch here: torch loads only if a ``ppo:`` bot sits
at the table.
"""

from __future__ import annotations

import copy
import inspect
import json
import logging
import math
import os
import re
import secrets
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any

from stichzoo import envs
from stichzoo.envs.core.display import agree, verb_for
from stichzoo.envs.core.game import Game, GameState, IllegalActionError, build_options
from stichzoo.envs.registry import display_of, view_of
from stichzoo.policies.tables.hints import game_analysis, round_of, search_hint

log = logging.getLogger("stichzoo.tables")

#: how long a table may sit untouched before a store forgets it (seconds)
DEFAULT_IDLE_TIMEOUT = 30 * 60.0
#: how many days a store file keeps a table after its last move (``stichzoo serve --keep-days``)
DEFAULT_KEEP_DAYS = 30.0
#: the most tables a store keeps at once
DEFAULT_MAX_TABLES = 200
#: the most live tables one client (remote address) may hold
DEFAULT_MAX_TABLES_PER_CLIENT = 20
#: the most tables one client may create per minute
DEFAULT_CREATIONS_PER_MINUTE = 30
#: the most searches (hints, analyses computed) one client may ask for per minute
DEFAULT_SEARCHES_PER_MINUTE = 120
#: above this resident memory of the server process (MiB) no table is created
DEFAULT_MAX_MEMORY_MB = 4096
#: the most game analyses a store computes at once (each is one search per decision)
DEFAULT_MAX_ANALYSES = 2
#: what a store says for an id it does not hold
NOT_FOUND = "table not found (expired, or the server restarted)"
#: what a store that keeps its tables on disk says for an id it does not hold
NOT_KEPT = "table not found (closed, or deleted after the server's --keep-days)"
#: how often a store with a retention deletes the old tables from its file (seconds)
PURGE_EVERY = 3600.0

#: the round-log fields that are public once a round has ended (never ``hands``,
#: ``rows``, Geheimtrumpf's face-down ``set_aside``)
ROUND_END_KEYS = (
    "dealer", "start", "trump_card", "trump", "trump_suit", "trump_value", "bids",
    "sore_cards", "chosen", "tricks_won", "won", "removed", "taken", "base_scores",
    "bonus_seat", "met", "start_checks", "checked", "scores", "totals",
)


class TableError(ValueError):
    """A request the table refuses; ``status`` is the HTTP status a web layer should send.

    422: a bad move or argument (as the bot protocol answers a view that does
    not add up; 400 is left for bodies that are not JSON); 404: no such table;
    409: not possible now (the game is over, or not yet over); 429: the
    client is over one of its own limits; 503: the server is full.  With
    ``retry_after`` (seconds) a web layer sends the ``Retry-After`` header.
    """

    def __init__(self, message: str, status: int = 422, retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        self.headers = (None if retry_after is None
                        else {"Retry-After": str(max(1, math.ceil(retry_after)))})


def _mix(*parts: int) -> int:
    """A seed from several integers, stable across runs and platforms (no ``hash``)."""
    h = 0x9E3779B97F4A7C15
    for p in parts:
        h = (h ^ (p + 0x632BE59BD9B4E019 + (h << 6) + (h >> 2))) & ((1 << 63) - 1)
    return h


def shown(value: Any, limit: int = 60) -> str:
    """A value as a message shows it: in JSON's words (``null``, ``true``, ``[1, 2]``), the
    option syntax people type, never a Python repr such as ``None``; cut at ``limit``."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not JSON (a set, an object): its type only
        text = f"a {type(value).__name__}"
    return text if len(text) <= limit else text[:limit - 3] + "..."


#: what a message calls the values of each option kind
_TAKES = {"list": "whole numbers such as 1,2,3", "bool": "true or false",
          "int": "a whole number"}
_TRUE, _FALSE = ("true", "yes", "on"), ("false", "no", "off")


def _option_kind(annotation: Any) -> tuple[str, bool]:
    """An option field's kind (``list``, ``bool``, ``int``) and whether it may be empty."""
    text = str(annotation)
    kind = "list" if ("tuple" in text or "list" in text) else "bool" if "bool" in text else "int"
    return kind, "None" in text


def _plain(text: str, kind: str) -> Any:
    """The plain option syntax (what a form field holds): ``1,2`` or ``1 2``, ``yes``, ``3``."""
    low = text.casefold()
    if kind == "bool" and low in _TRUE + _FALSE:
        return low in _TRUE
    parts = [p for p in re.split(r"[\s,]+", text.strip("[]() ")) if p]
    if parts and all(re.fullmatch(r"-?\d+", p) for p in parts):
        numbers = [int(p) for p in parts]
        return numbers if kind == "list" or len(numbers) > 1 else numbers[0]
    return text


def option_value(name: str, value: Any, kind: str, nullable: bool = False) -> Any:
    """One option's value from JSON or the plain syntax; the same in every frontend.

    ``kind`` as :func:`_option_kind` says.  A text is read as JSON when it is
    JSON (``[1,2]``, ``true``), else plainly: ``1,2`` / ``1 2`` for a list,
    ``yes``/``no``/``on``/``off`` for a switch, empty or ``null``/``none``
    for "not set"; a single number is a one-element list where a list is
    asked.  So the terminal's ``--option rounds=1,2`` and the web form's
    ``1,2`` mean the same, and JSON keeps working.  The game checks ranges.
    """
    if isinstance(value, str):
        text = value.strip()
        if text.casefold() in ("", "null", "none"):
            value = None
        else:
            try:
                value = json.loads(text)
            except ValueError:
                value = _plain(text, kind)
    takes = _TAKES[kind] + (", or nothing" if nullable else "")
    if value is None:
        if nullable:
            return None
        raise TableError(f"option {name} needs a value: {takes} (leave it out for its default)")
    if kind == "list" and isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    ok = {"list": lambda v: isinstance(v, (list, tuple)) and all(
              isinstance(x, int) and not isinstance(x, bool) for x in v),
          "bool": lambda v: isinstance(v, bool),
          "int": lambda v: isinstance(v, int) and not isinstance(v, bool)}[kind]
    if not ok(value):
        raise TableError(f"option {name} takes {takes}, not {shown(value)}")
    return list(value) if kind == "list" else value


def parse_options(cls: type, options: dict[str, Any]) -> dict[str, Any]:
    """Every known option of a game's options class read by :func:`option_value` (an
    unknown one is left for the game to name)."""
    kinds = {f.name: _option_kind(f.type) for f in fields(cls)}
    return {k: option_value(k, v, *kinds[k]) if k in kinds else v for k, v in options.items()}


_PY_WORDS = {"None": "null", "True": "true", "False": "false"}


def _plain_words(message: str) -> str:
    """A game's option error in the option syntax: ``null``/``true``/``false``, as typed."""
    return re.sub(r"\b(None|True|False)\b", lambda m: _PY_WORDS[m.group(1)], message)


def build_game(game_name: str, num_players: int | None = None,
               options: dict[str, Any] | None = None) -> Game:
    """The game from its name, player count and options, as ``stichzoo eval`` builds it.

    Option values may be JSON or the plain syntax (:func:`option_value`)."""
    try:
        cls = envs.game_class(game_name)
    except ValueError as e:
        raise TableError(str(e)) from None
    opts = parse_options(cls.Options, dict(options or {}))
    if "num_players" in opts and num_players is not None and opts["num_players"] != num_players:
        raise TableError(f"num_players={num_players} and option "
                         f"num_players={shown(opts['num_players'])} disagree")
    if num_players is not None:
        opts["num_players"] = num_players
    try:
        return cls(build_options(cls.Options, game_name, opts))
    except (ValueError, TypeError) as e:
        raise TableError(_plain_words(str(e))) from None


def seating(opponents: Sequence[str] | str, num_players: int, human_seat: int) -> list:
    """The seating: the policy spec of every seat (``None`` for the human).

    One spec fills every bot seat; fewer specs than bot seats repeat in turn,
    so ``["heuristic", "pimc"]`` at four seats seats heuristic, pimc, heuristic.
    """
    if isinstance(opponents, str):
        opponents = [opponents]
    if not isinstance(opponents, (list, tuple)):
        raise TableError(f"opponents must be a list of policy specs, not {shown(opponents)}")
    specs = list(opponents)
    bots = num_players - 1
    if not specs:
        raise TableError("name at least one opponent policy, e.g. heuristic")
    if any(not isinstance(s, str) or not s.strip() for s in specs):
        raise TableError(f"opponent policies are spec strings such as 'heuristic', "
                         f"'pimc:worlds=8' or 'bot:wizard', not {shown(specs)}")
    if len(specs) > bots:
        raise TableError(f"{len(specs)} opponents for the {bots} bot seats of a "
                         f"{num_players}-player table")
    out: list = []
    k = 0
    for seat in range(num_players):
        if seat == human_seat:
            out.append(None)
        else:
            out.append(specs[k % len(specs)].strip())
            k += 1
    return out


class Table:
    """One game between a person (``human_seat``) and bots; the engine referees.

    Thread-safe: every public method runs under the table's own lock, so two
    requests for one table never interleave.  Deterministic: the same
    ``seed`` deals the same cards and, for the same human moves, the bots make
    the same moves (each bot is seeded from the table seed and its seat).
    Without a seed one is drawn, and :attr:`seed` tells it, so any game can be
    replayed.  ``deck_orders`` (as ``game.deal`` returns them) deals given
    cards instead of shuffling from the seed: for a frontend that deals, and
    for tests that re-deal the hidden cards.
    """

    def __init__(self, game_name: str, num_players: int | None = None, *,
                 options: dict[str, Any] | None = None,
                 opponents: Sequence[str] | str = ("heuristic",), human_seat: int = 0,
                 seed: int | None = None, deck_orders: list | None = None):
        self._setup(game_name, num_players, options=options, opponents=opponents,
                    human_seat=human_seat, seed=seed, deck_orders=deck_orders)
        self.advance()

    def _setup(self, game_name: str, num_players: int | None, *, options: dict[str, Any] | None,
               opponents: Sequence[str] | str, human_seat: int, seed: int | None,
               deck_orders: list | None) -> None:
        """Everything of :meth:`__init__` but the bots' first moves (:meth:`resume` replays
        them instead of asking the bots)."""
        if options is not None and not isinstance(options, dict):
            raise TableError(f"options must be an object of game options, not {shown(options)}")
        if not isinstance(game_name, str):
            raise TableError(f"the game is named by a string, not {shown(game_name)}")
        self.game = build_game(game_name, num_players, options)
        n = self.game.num_players
        if isinstance(human_seat, bool) or not isinstance(human_seat, int) \
                or not 0 <= human_seat < n:
            raise TableError(f"the human seat must be an integer in 0..{n - 1}, "
                             f"not {shown(human_seat)}")
        if seed is None:
            seed = secrets.randbelow(2**31)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise TableError(f"seed must be a non-negative integer, not {shown(seed)}")
        self.seed = seed
        self.human_seat = human_seat
        self.seating = seating(opponents, n, human_seat)
        from stichzoo.policies.specs import build_policy

        self._bots: dict[int, Any] = {}
        for seat, spec in enumerate(self.seating):
            if spec is None:
                continue
            try:  # a fresh policy per seat (its own random state); a network is shared
                self._bots[seat] = build_policy(spec, self.game, _mix(seed, seat), cache=False)
            except ValueError as e:
                raise TableError(f"opponent {shown(spec)}: {e}") from None
        self._view_module = view_of(self.game.name)
        #: what is secret, revealed and how the game is won (envs/<game>/display.py)
        self.display = display_of(self.game.name)
        if deck_orders is None:
            self._state: GameState = self.game.new_game(seed=seed, log=True)
            self._deal_seed: int | None = seed
        else:  # dealt by the caller: the seed still seeds the bots, but deals nothing
            try:
                self._state = self.game.new_state(deck_orders, log=True)
            except (ValueError, TypeError) as e:
                raise TableError(f"deck_orders: {e}") from None
            self._deal_seed = None
        self._lock = threading.RLock()
        self._events: list[dict] = []
        self._since = 0  # events before this index came before the human's last move
        self._seen: dict[int, dict] = {}  # per round-log entry: what became events already
        self._last_trick: dict | None = None
        self._analysis: dict | None = None  # the game's analysis, once asked (at the end)

    # -- saved and resumed ---------------------------------------------------------------

    def saved(self) -> dict:
        """The table as a store keeps it, JSON-ready: what :meth:`resume` needs to go on.

        ``game``, ``options`` (all of them, ``num_players`` included),
        ``seating``, ``human_seat``, ``seed``, ``dealt`` (whether the caller
        dealt: then the deck orders come from the record, not the seed),
        ``decisions``, ``over``, ``record`` (the game so far, ``partial`` while it
        runs - it holds every hand, so a store never shows it to a client before
        the end) and ``bots`` (per bot seat, its random generators' states:
        :mod:`.bot_state`).
        """
        from stichzoo.policies.tables.bot_state import bot_states

        with self._lock:
            return {"game": self.game.name, "options": self.game.options.as_dict(),
                    "seating": list(self.seating), "human_seat": self.human_seat,
                    "seed": self.seed, "dealt": self._deal_seed is None,
                    "decisions": len(self._state.history), "over": self.over,
                    "record": self._record(),
                    "bots": {str(seat): bot_states(bot) for seat, bot in self._bots.items()}}

    @classmethod
    def resume(cls, saved: dict) -> Table:
        """The table :meth:`saved` describes, at the same point, with its bots' generators
        where they were: it plays on exactly as the saved table would have.

        The record is replayed strictly (:func:`stichzoo.envs.core.record.replay`:
        every field recomputed, a tampered one refused), then through the table's
        own steps, so its public events are those the person saw.  A saved table
        that does not add up is a :class:`TableError` (409) naming the problem:
        it is refused whole, never half-loaded.
        """
        from stichzoo.envs.core.record import RecordError, replay
        from stichzoo.policies.tables.bot_state import restore_bot_states

        try:
            record = saved["record"]
            replay(record)  # strict: the record is the game it states
            table = cls.__new__(cls)
            dealt = bool(saved["dealt"])
            game = envs.game_class(saved["game"])
            orders = None
            if dealt:
                deck = build_game(saved["game"], None, saved["options"]).deck
                orders = [list(deck.parse(o)) for o in record["deck_orders"]]
            table._setup(saved["game"], None, options=saved["options"],
                         opponents=[s for s in saved["seating"] if s is not None] or "random",
                         human_seat=saved["human_seat"], seed=saved["seed"],
                         deck_orders=orders)
            if table.seating != list(saved["seating"]) or game.name != record["game"]:
                raise ValueError("the seating or the game differs from the record's")
            if record["seed"] != table._deal_seed:
                raise ValueError(f"the record's seed {shown(record['seed'])} is not the "
                                 f"table's deal ({shown(table._deal_seed)})")
            for i, decision in enumerate(record["decisions"]):
                if decision["seat"] == table.human_seat:
                    table._since = len(table._events)
                table._step(decision["seat"], decision["action"])
                if table._state.history[-1] != (decision["seat"], decision["action"]):
                    raise ValueError(f"decision {i} replays differently")
            if table._record() != record:
                raise ValueError("the replayed table's record differs from the saved one")
            if not table.over and table._state.current_player != table.human_seat:
                raise ValueError("the saved game stops at a bot's turn (saved mid-move)")
            bots = saved["bots"]
            if set(bots) != {str(s) for s in table._bots}:
                raise ValueError("the saved bot seats are not the seating's")
            for seat, bot in table._bots.items():
                restore_bot_states(bot, bots[str(seat)])
        except TableError as e:
            raise TableError(f"the saved table does not resume: {e}", status=409) from None
        except (RecordError, ValueError, KeyError, TypeError, IndexError) as e:
            what = f"{type(e).__name__}: {e}" if isinstance(e, KeyError) else str(e)
            raise TableError(f"the saved table does not resume: {what}", status=409) from None
        return table

    # -- the game loop -------------------------------------------------------------

    @property
    def over(self) -> bool:
        return bool(self._state.over or self._state.truncated)

    @property
    def decisions(self) -> int:
        """Decisions so far: the table's version (a move names the one it answers)."""
        return len(self._state.history)

    @property
    def to_act(self) -> int | None:
        return None if self.over else self._state.current_player

    def advance(self) -> int:
        """Let the bots move until it is the human's turn or the game is over; moves made."""
        from stichzoo.policies.base import Decision

        made = 0
        with self._lock:
            while not self.over and self._state.current_player != self.human_seat:
                seat = self._state.current_player
                action = self._bots[seat].act(Decision(self.game, self._state, seat))
                self._step(seat, action)
                made += 1
        return made

    def act(self, move: Any, decisions: int | None = None) -> dict:
        """Play the human's ``move`` (an action id or label), let the bots answer; the view.

        ``decisions``: the view's ``decisions`` the move was chosen from - the
        decision it answers.  When given, a move for any other decision (a
        stale tab, a repeated or a second simultaneous request) is refused with
        409, so a move is played exactly once.  The move is checked before
        anything changes: a refused move leaves the table exactly as it was,
        and the error names the legal moves.
        """
        with self._lock:
            if self.over:
                raise TableError("the game is over; no more moves", status=409)
            now = len(self._state.history)
            if decisions is not None and decisions != now:
                raise TableError(f"this move answers decision {decisions}, but the table is at "
                                 f"decision {now}: it was played already or the game moved on; "
                                 f"nothing was played - reload the view (GET /tables/ID) and "
                                 f"choose again", status=409)
            action = self.resolve(move)
            self._since = len(self._events)
            self._step(self.human_seat, action)
            self.advance()
            return self.view()

    def resolve(self, move: Any) -> int:
        """The legal action id ``move`` names, or a :class:`TableError` naming the legal moves.

        Accepted: an action id (``int``, never ``bool``) or a label - exactly
        ``game.action_label``'s, one the game's view module parses (aliases such
        as ``"Th"``), or a legal label in another letter case.
        """
        with self._lock:
            if self.over:
                raise TableError("the game is over; no more moves", status=409)
            legal = self._state.legal_actions()
            if isinstance(move, bool) or not isinstance(move, (int, str)):
                raise TableError(f"a move is an action id (integer) or a label (string), "
                                 f"not {shown(move)}; {self._legal_text(legal)}")
            if isinstance(move, int):
                if move in legal:
                    return move
                what = (f"action {move} ({self.game.action_label(move)})"
                        if 0 <= move < self.game.num_actions else f"action id {move}")
                raise TableError(f"{what} is not a legal move now; {self._legal_text(legal)}")
            label = move.strip()
            action = self._label_to_action(label, legal)
            if action is None:
                raise TableError(f"{shown(move)} is not a legal move now; "
                                 f"{self._legal_text(legal)}")
            return action

    def _label_to_action(self, label: str, legal: list[int]) -> int | None:
        by_label = {self.game.action_label(a): a for a in legal}
        if label in by_label:
            return by_label[label]
        try:
            a = self._view_module.action_from_label(self.game, label)
        except ValueError:
            a = None
        if a in legal:
            return a
        folded = [a for lab, a in by_label.items() if lab.casefold() == label.casefold()]
        return folded[0] if len(folded) == 1 else None

    def _legal_text(self, legal: list[int]) -> str:
        labels = ", ".join(f"{self.game.action_label(a)} ({a})" for a in legal)
        return f"legal moves (label and id): {labels}"

    def _step(self, seat: int, action: int) -> None:
        """Apply one decision through the rules' checked step, then record what became public."""
        state = self._state
        info = self._view_module.action_to_view(self.game, action)
        kind = info.get("kind")
        secret = seat != self.human_seat and kind in self.display.secret_kinds
        event = {"type": "move", "seat": seat, "round": self._round_index(),
                 "phase": state.phase_name, "kind": kind,
                 "action": None if secret else info["action"],
                 "action_id": None if secret else action, "secret": secret}
        try:
            state.step(action)  # checks once more: an illegal id changes nothing
        except IllegalActionError as e:
            raise TableError(str(e)) from None
        self._emit(event)
        self._scan_log()
        if self.over:
            self._emit({"type": "game_over", **self._result()})

    def _round_index(self) -> int:
        return round_of(self._state)

    def _emit(self, event: dict) -> None:
        self._events.append({"n": len(self._events), **event})

    def _scan_log(self) -> None:
        """Turn what the round log gained since the last step into public events.

        The log (a record's ``rounds``) also holds the deals; only the fields
        that everybody at the table has seen are copied out.
        """
        log = self._state.log
        for i, entry in enumerate(log):
            seen = self._seen.setdefault(i, {"draft": 0, "tricks": 0, "reveal": set(),
                                             "end": False})
            if seen["end"]:
                continue
            rnd = int(entry.get("round", entry.get("deal", 0)))
            for row in entry.get("draft", [])[seen["draft"]:]:
                self._emit({"type": "row", "round": rnd, **copy.deepcopy(row)})
            seen["draft"] = len(entry.get("draft", []))
            for key in self.display.reveal_keys:
                if entry.get(key) is not None and key not in seen["reveal"]:
                    seen["reveal"].add(key)
                    self._emit({"type": "reveal", "round": rnd, "what": key,
                                "values": copy.deepcopy(entry[key])})
            for trick in entry.get("tricks", [])[seen["tricks"]:]:
                self._last_trick = {"round": rnd, **copy.deepcopy(trick)}
                self._emit({"type": "trick", **self._last_trick})
            seen["tricks"] = len(entry.get("tricks", []))
            if entry.get("totals") is not None:
                seen["end"] = True
                public = {k: copy.deepcopy(entry[k]) for k in ROUND_END_KEYS if k in entry}
                public["reasons"] = self.display.score_reasons(public)
                self._emit({"type": "round_end", "round": rnd, **public})

    # -- what the person may know ------------------------------------------------------

    def view(self) -> dict:
        """Everything the human seat may know now, JSON-ready.

        Keys: ``game``, ``seat`` (the human's), ``players`` (per seat: ``seat``,
        ``human``, ``policy``), ``seed``, ``to_act``, ``over``, ``view`` (the player
        view, ``docs/views/<game>.md``), ``moves`` (the legal moves, numbered
        from 1: ``n``, ``id``, ``label`` and the answer-format fields of
        ``action_to_view``), ``events`` (public events since the human's last
        move, that move included), ``last_trick`` (the latest completed trick,
        also of an earlier round, or null), ``decisions`` (decisions so far: a
        version number) and ``summary`` (at the end, else null).
        """
        with self._lock:
            seat = self.human_seat
            moves = []
            if not self.over and self._state.current_player == seat:
                for k, a in enumerate(self._state.legal_actions(), 1):
                    info = self._view_module.action_to_view(self.game, a)
                    moves.append({"n": k, "id": a, "label": self.game.action_label(a),
                                  **{key: v for key, v in info.items()
                                     if key not in ("action", "action_id")}})
            return {
                "game": self.game.name,
                "seat": seat,
                "players": [{"seat": s, "human": spec is None, "policy": spec}
                            for s, spec in enumerate(self.seating)],
                "seed": self.seed,
                "to_act": self.to_act,
                "over": self.over,
                "view": self._view_module.to_view(self._state, seat),
                "moves": moves,
                "events": copy.deepcopy(self._events[self._since:]),
                "last_trick": copy.deepcopy(self._last_trick),
                "decisions": len(self._state.history),
                "summary": self.summary() if self.over else None,
            }

    def hint(self, decisions: int | None = None,
             run: Callable[..., Any] | None = None) -> dict:
        """The search's suggestion for the person's decision now (:mod:`.hints`): the move,
        why, and every legal move's estimated value and difference to it.

        ``decisions`` as in :meth:`act` (409 when the table moved on). The
        search samples only what the person's seat may know; its seed is the
        table's and the decision's, so asking twice gives the same hint.
        ``run(fn, *args)`` runs the search (a server's
        :class:`~stichzoo.policies.tables.search_pool.SearchPool`: in another
        process); by default here.
        """
        with self._lock:
            if self.over or self._state.current_player != self.human_seat:
                raise TableError("no decision of yours to hint at now", status=409)
            now = len(self._state.history)
            if decisions is not None and decisions != now:
                raise TableError(f"this hint asks about decision {decisions}, but the table "
                                 f"is at decision {now}", status=409)
            args = (self.game, copy.deepcopy(self._state), self.human_seat,
                    self._hint_seed(now))
            return run(search_hint, *args) if run is not None else search_hint(*args)

    def _hint_seed(self, decision: int) -> int:
        """The search's seed for the hint at decision number ``decision``: the table's and
        the decision's, so a hint and the analysis of that decision agree."""
        return _mix(self.seed, decision, 0x4B1D)

    @property
    def analysed(self) -> bool:
        """Whether :meth:`analysis` has its answer already (then it costs nothing)."""
        return self._analysis is not None

    def analysis(self) -> dict:
        """After the game: each of the person's decisions beside the search's best, with
        the estimated loss (:func:`~stichzoo.policies.tables.hints.game_analysis`).

        Computed once from the game record (one hint-sized search per decision
        with a choice; forced moves are skipped) and kept: asking again is free.
        ``decisions``: the entries in game order; ``searched``: how many;
        ``total_loss``: the sum of the losses.  409 while the game runs.
        """
        with self._lock:
            if not self.over:
                raise TableError("the game is still running; the analysis comes at the end",
                                 status=409)
            if self._analysis is None:
                entries = game_analysis(self.record(), self.human_seat, self._hint_seed)
                total = sum(e["loss"] or 0.0 for e in entries)
                self._analysis = {"seat": self.human_seat, "decisions": entries,
                                  "searched": len(entries), "total_loss": round(total, 2)}
            return copy.deepcopy(self._analysis)

    def version(self) -> dict:
        """How far the table is: ``decisions`` and ``events`` so far, ``over`` - cheap to
        ask, for a page that follows the table (a move elsewhere changes them)."""
        with self._lock:
            return {"decisions": len(self._state.history), "events": len(self._events),
                    "over": self.over}

    def events(self, after: int = -1) -> list[dict]:
        """Every public event numbered above ``after`` (``n`` counts from 0): for a page that
        missed some, e.g. after reconnecting."""
        if isinstance(after, bool) or not isinstance(after, int):
            raise TableError(f"after must be an event number (integer), not {shown(after)}")
        with self._lock:
            return copy.deepcopy(self._events[max(after + 1, 0):])

    def _result(self) -> dict:
        s = self._state
        placement = s.placement()
        return {"totals": list(s.totals), "winners": s.winners(), "placement": placement,
                "places": competition_places(placement), "truncated": bool(s.truncated)}

    def summary(self) -> dict:
        """The end of the game: totals, winners and places by the game's own rule, the rounds.

        ``winners`` follows the game (Silberne Ananas: the middle total wins;
        Geheimtrumpf: nobody when the round limit cut the game short).
        ``placement`` is the game's own (0 first, ties equal, dense: 0, 1, 1, 2);
        ``places`` the places to show people (1 first, standard competition
        ranking: 1, 2, 2, 4).  ``rounds``: per round its ``scores`` (where the
        game scores points), ``totals`` and ``reasons`` (per seat, how the
        round scored, in words: the round-end events' ``reasons``).
        """
        with self._lock:
            if not self.over:
                raise TableError("the game is still running; the summary comes at the end",
                                 status=409)
            rounds = [{"round": e["round"],
                       **{k: e[k] for k in ("scores", "totals", "reasons") if k in e}}
                      for e in self._events if e["type"] == "round_end"]
            res = self._result()
            return {**res, "human_won": self.human_seat in res["winners"],
                    "winner_rule": self.display.winner_rule,
                    "rounds": copy.deepcopy(rounds)}

    def record(self) -> dict:
        """The game record (``docs/records.md``) - at the end only: it shows every hand."""
        with self._lock:
            if not self.over:
                raise TableError("the record holds every hand, so it is given at the end of "
                                 "the game only", status=409)
            return self._record()

    def _record(self) -> dict:
        """The game record so far (``partial`` while it runs): for the end, and for a store."""
        from stichzoo.envs.core.record import build_record

        return build_record(self.game, self._state, seed=self._deal_seed)


# -- many tables at once ------------------------------------------------------------------


class _Entry:
    """A table in memory: ``moving`` is held while a move is played and saved, so the moves
    of one process at one table run one after another (other processes: the store's check)."""

    __slots__ = ("client", "last_used", "moving", "table")

    def __init__(self, table: Table, now: float, client: str | None):
        self.table = table
        self.last_used = now
        self.client = client
        self.moving = threading.Lock()


#: what a server says where the memory cap cannot work
MEMORY_CAP_OFF = ("the tables' memory cap (--max-memory-mb) is off here: this process's "
                  "resident memory is read from /proc (Linux) or psutil (pip install psutil), "
                  "and neither is available")


def resident_mb() -> float | None:
    """The resident memory of this process in MiB: from /proc on Linux, else from psutil
    where it is installed (macOS, Windows, the BSDs); None where neither is (the store then
    says that its memory cap is off: :data:`MEMORY_CAP_OFF`)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import psutil
    except ImportError:
        return None
    return psutil.Process().memory_info().rss / 2**20


class TableStore:
    """Many tables at once, for a server: ids, expiry, bounds, one lock per table.

    A table is forgotten after ``idle_timeout`` seconds without a request
    (default 30 minutes); at most ``max_tables`` live at once, and none is
    created while the process holds more than ``max_memory_mb`` of resident
    memory (both refused with status 503 and a ``Retry-After`` after expired
    ones are swept).  Per ``client`` (a web layer passes the remote address):
    at most ``max_tables_per_client`` live tables and
    ``creations_per_minute`` creations in any 60 seconds, and
    ``searches_per_minute`` searches (a hint, an analysis computed:
    :meth:`charge_search`), else 429 with ``Retry-After``; so one client
    cannot lock the others out or flood the server's cores.  With
    ``search_processes`` the hints are searched in that many processes of
    their own (:mod:`.search_pool`), so a search never holds up a move in the
    request threads.  ``None``
    turns a limit off; a table created without a client counts for the
    total only.  Bot networks are shared between tables
    (:func:`stichzoo.policies.runtimes.onnx_policy.load_model`), so a table costs its
    game state, not a network.  Ids are
    ``secrets.token_urlsafe``: knowing one id tells nothing of another.

    Without ``saved`` the store keeps tables in memory only: a restarted
    server has none, so an old id gets :data:`NOT_FOUND` (404), and
    :attr:`instance` changes, which a page can compare to notice the restart.
    With ``saved`` (a :class:`~stichzoo.policies.tables.store_sqlite.SqliteTables`)
    every table is written there when it is created and after every accepted
    move, before the answer; a table not in memory (expired, another
    process's, or from before a restart) is resumed from it
    (:meth:`Table.resume`), and a copy in memory that the file has moved past
    (another process played) is reloaded.  :attr:`instance` is then the
    file's, the same in every process and after a restart.  ``keep_days``
    deletes the tables without a move for that many days from the file
    (checked every :data:`PURGE_EVERY` seconds).  ``clock`` is injectable for
    tests.
    """

    def __init__(self, *, idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
                 max_tables: int = DEFAULT_MAX_TABLES,
                 max_tables_per_client: int | None = DEFAULT_MAX_TABLES_PER_CLIENT,
                 creations_per_minute: int | None = DEFAULT_CREATIONS_PER_MINUTE,
                 searches_per_minute: int | None = DEFAULT_SEARCHES_PER_MINUTE,
                 max_memory_mb: float | None = DEFAULT_MAX_MEMORY_MB,
                 max_analyses: int = DEFAULT_MAX_ANALYSES,
                 clock: Callable[[], float] = time.monotonic,
                 memory: Callable[[], float | None] = resident_mb,
                 saved: Any = None, keep_days: float | None = None,
                 search_processes: int = 0):
        if isinstance(idle_timeout, bool) or not isinstance(idle_timeout, (int, float)) \
                or not idle_timeout > 0:
            raise ValueError(f"idle_timeout must be positive seconds, not {idle_timeout!r}")
        for name, value in (("max_tables", max_tables),
                            ("max_tables_per_client", max_tables_per_client),
                            ("creations_per_minute", creations_per_minute),
                            ("searches_per_minute", searches_per_minute),
                            ("max_analyses", max_analyses)):
            if value is None and name not in ("max_tables", "max_analyses"):
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, not {value!r}")
        if max_memory_mb is not None and (isinstance(max_memory_mb, bool) or not isinstance(
                max_memory_mb, (int, float)) or not max_memory_mb > 0):
            raise ValueError(f"max_memory_mb must be positive MiB or None, not {max_memory_mb!r}")
        self.idle_timeout = float(idle_timeout)
        self.max_tables = max_tables
        self.max_tables_per_client = max_tables_per_client
        self.creations_per_minute = creations_per_minute
        self.searches_per_minute = searches_per_minute
        self.max_memory_mb = max_memory_mb
        self.max_analyses = max_analyses
        self._analysing = threading.BoundedSemaphore(max_analyses)
        self.clock = clock
        self.memory = memory
        if max_memory_mb is not None and memory() is None:  # said once, where it is set
            warnings.warn(MEMORY_CAP_OFF, RuntimeWarning, stacklevel=2)
        if keep_days is not None and (isinstance(keep_days, bool) or not isinstance(
                keep_days, (int, float)) or not keep_days > 0):
            raise ValueError(f"keep_days must be positive days or None, not {keep_days!r}")
        if keep_days is not None and saved is None:
            raise ValueError("keep_days needs a store on disk (saved=...): a store in memory "
                             "keeps no table past its idle timeout")
        self.saved = saved
        self.keep_days = keep_days
        from stichzoo.policies.tables.search_pool import SearchPool

        #: where hints are searched: processes of their own (``search_processes``), else the
        #: request's thread
        self.searches = SearchPool(search_processes) if search_processes else None
        self._purged_at: float | None = None
        self.instance = saved.instance if saved is not None else secrets.token_urlsafe(8)
        self._tables: dict[str, _Entry] = {}
        self._pending: dict[str, int] = {}  # per client: tables being built now
        self._created: dict[str, deque] = {}  # per client: times of the creations this minute
        #: per client: its search tokens and when they were counted (:meth:`charge_search`)
        self._searched: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def limits(self) -> dict[str, Any]:
        """The store's limits, as ``GET /tables/options`` lists them (None: off)."""
        return {"max_tables": self.max_tables, "max_tables_per_client": self.max_tables_per_client,
                "creations_per_minute": self.creations_per_minute,
                "searches_per_minute": self.searches_per_minute,
                "max_memory_mb": self.max_memory_mb, "idle_timeout": self.idle_timeout,
                "max_analyses": self.max_analyses}

    def __len__(self) -> int:
        with self._lock:
            self._sweep()
            return len(self._tables)

    def _sweep(self) -> list[str]:
        """Forget idle tables from memory (the store lock is held); a file keeps them."""
        now = self.clock()
        old = [k for k, e in self._tables.items() if now - e.last_used > self.idle_timeout]
        for k in old:
            del self._tables[k]
        if self.keep_days is not None and (self._purged_at is None
                                           or now - self._purged_at >= PURGE_EVERY):
            self._purged_at = now
            self.purge()
        return old

    def purge(self) -> int:
        """Delete the tables without a move for ``keep_days`` from the file (finished and
        abandoned ones); how many (0 without a retention)."""
        if self.keep_days is None:
            return 0
        gone = self._saving(self.saved.purge, self.keep_days)
        if gone:
            log.info("table store: %d table(s) older than %g days deleted", gone, self.keep_days)
        return gone

    def shutdown(self) -> None:
        """Close the file (a server that stops): nothing is lost, every move was committed;
        stop the search processes."""
        if self.searches is not None:
            self.searches.close()
        if self.saved is not None:
            self.saved.close()

    def expire(self) -> list[str]:
        """Forget every table idle for longer than ``idle_timeout``; their ids."""
        with self._lock:
            return self._sweep()

    def _full(self) -> TableError:
        """The refusal at the total cap (the store lock is held)."""
        return TableError(f"the server is full: too many tables are open (at most "
                          f"{self.max_tables}, max_tables); try again later", status=503,
                          retry_after=self._next_expiry())

    def _room(self, pending: int) -> bool:
        """Whether one more table fits in memory (the store lock is held).  With a file,
        the tables used longest ago leave memory to make room - they stay in the file and
        come back at their next request - unless a move of theirs is under way."""
        over = len(self._tables) + pending + 1 - self.max_tables
        if over <= 0:
            return True
        if self.saved is None:
            return False
        idle = sorted((e.last_used, k) for k, e in self._tables.items() if not e.moving.locked())
        for _, k in idle[:over]:
            del self._tables[k]
        return len(idle) >= over

    def _next_expiry(self) -> float:
        """Seconds until the next idle table expires (the store lock is held)."""
        now = self.clock()
        left = [self.idle_timeout - (now - e.last_used) for e in self._tables.values()]
        return min(left, default=1.0)

    def _check_room(self, client: str | None) -> None:
        """Refuse a creation over a limit (the store lock is held; expired tables swept)."""
        self._sweep()
        pending = sum(self._pending.values())
        if not self._room(pending):
            raise self._full()
        if client is None:
            return
        live = sum(1 for e in self._tables.values() if e.client == client)
        live += self._pending.get(client, 0)
        cap = self.max_tables_per_client
        if cap is not None and live >= cap:
            raise TableError(f"too many tables: max_tables_per_client ({cap}) tables of yours "
                             f"are open; close one (DELETE /tables/ID) or let one expire",
                             status=429, retry_after=60)
        rate = self.creations_per_minute
        if rate is not None:
            times = self._created.get(client)
            if times is not None and len(times) >= rate:
                raise TableError(f"too many new tables: creations_per_minute ({rate}) for "
                                 f"one client; wait a little", status=429,
                                 retry_after=times[0] + 60.0 - self.clock())

    def _forget_old_creations(self) -> None:
        """Drop creation times older than a minute, and clients with none (the lock is held)."""
        start = self.clock() - 60.0
        for client in list(self._created):
            times = self._created[client]
            while times and times[0] <= start:
                times.popleft()
            if not times:
                del self._created[client]

    def charge_search(self, client: str | None) -> None:
        """Count one search (a hint, an analysis to compute) against ``client``: 429 with
        ``Retry-After`` past its rate.

        A search takes a core for up to a second, and a hint is free to ask
        for again, so without this one client's flood of hints would slow
        every other table's bots.  The rate is a token bucket: a client may
        search ``searches_per_minute`` times a minute on average, and at
        most :meth:`search_burst` times at once (ten seconds' worth) - a
        limit per minute alone would let the whole minute's searches come in
        the first seconds, which is exactly the flood that slows the other
        tables' moves.  None (no client, or no limit): free.
        """
        rate = self.searches_per_minute
        if rate is None or client is None:
            return
        per_second, burst = rate / 60.0, self.search_burst()
        with self._lock:
            now = self.clock()
            if len(self._searched) > 4096:  # forget the clients whose buckets are full again
                for other in [c for c, (tokens, then) in self._searched.items()
                              if tokens + (now - then) * per_second >= burst]:
                    del self._searched[other]
            tokens, then = self._searched.get(client, (float(burst), now))
            tokens = min(float(burst), tokens + (now - then) * per_second)
            if tokens < 1.0:
                self._searched[client] = (tokens, now)
                raise TableError(f"too many searches: searches_per_minute ({rate}) hints and "
                                 f"analyses for one client, at most {burst} at once; wait a "
                                 f"little", status=429,
                                 retry_after=(1.0 - tokens) / per_second)
            self._searched[client] = (tokens - 1.0, now)

    def search_burst(self) -> int:
        """The searches one client may make at once: ten seconds' worth of
        ``searches_per_minute`` (at least one); 0 without a limit."""
        rate = self.searches_per_minute
        return 0 if rate is None else max(1, math.ceil(rate / 6))

    def _check_memory(self) -> None:
        mb = None if self.max_memory_mb is None else self.memory()
        if mb is not None and mb > self.max_memory_mb:
            raise TableError(f"the server is full: it holds {mb:.0f} MiB, over max_memory_mb "
                             f"({self.max_memory_mb:g}); try again later", status=503,
                             retry_after=60)

    def create(self, game_name: str, *, client: str | None = None,
               **kwargs: Any) -> tuple[str, Table]:
        """A new table (arguments as :class:`Table`) and its id; the bots have moved already.

        ``client`` (e.g. the remote address) is who the per-client limits count against.
        """
        try:  # a web layer passes what a page sent: an unknown argument is the page's error
            inspect.signature(Table).bind(game_name, **kwargs)
        except TypeError as e:
            raise TableError(f"bad table arguments: {e}") from None
        self._check_memory()
        with self._lock:
            self._forget_old_creations()
            self._check_room(client)
            if client is not None:  # counted now, so a burst of parallel requests cannot pass
                self._pending[client] = self._pending.get(client, 0) + 1
                self._created.setdefault(client, deque()).append(self.clock())
        try:
            table = Table(game_name, **kwargs)  # outside the store lock: bots may take a while
        finally:
            if client is not None:
                with self._lock:
                    self._pending[client] -= 1
                    if not self._pending[client]:
                        del self._pending[client]
        with self._lock:
            self._sweep()
            if not self._room(sum(self._pending.values())):
                raise self._full()
            table_id = secrets.token_urlsafe(16)
        if self.saved is not None:  # on the disk before the answer: the id is good for good
            self._saving(self.saved.insert, table_id, table.saved(), client)
        with self._lock:
            self._tables[table_id] = _Entry(table, self.clock(), client)
        return table_id, table

    def _saving(self, call: Callable[..., Any], *args: Any) -> Any:
        """A call to the file; its failure (disk full, locked past the busy timeout) is a 503
        that says nothing was kept, never a 500."""
        import sqlite3

        try:
            return call(*args)
        except sqlite3.Error as e:
            log.error("table store: %s", e)
            raise TableError(f"the table store is unavailable ({type(e).__name__}); nothing "
                             f"was changed - try again in a few seconds", status=503,
                             retry_after=5) from None

    def _entry(self, table_id: Any) -> _Entry:
        """The table of ``table_id`` in memory, touched; with a file, resumed from it when
        missing or behind it (another process played).  404 for an unknown id."""
        if not isinstance(table_id, str):
            raise TableError(f"a table id is a string, not {shown(table_id)}", status=404)
        with self._lock:
            self._sweep()
            entry = self._tables.get(table_id)
            if entry is not None:
                entry.last_used = self.clock()
        if self.saved is None:
            if entry is None:
                raise TableError(NOT_FOUND, status=404)
            return entry
        stored = self._saving(self.saved.decisions, table_id)
        if stored is None:
            with self._lock:
                self._tables.pop(table_id, None)
            raise TableError(NOT_KEPT, status=404)
        if entry is not None and entry.table.decisions >= stored:
            return entry  # current (or a move of this process is being saved)
        return self._resume(table_id)

    def _resume(self, table_id: str) -> _Entry:
        """The table as the file has it, in memory (replacing an older copy)."""
        try:
            row = self._saving(self.saved.load, table_id)
        except ValueError as e:  # a column that is not JSON: refused like a bad record
            raise TableError(f"the saved table does not resume: {e}", status=409) from None
        if row is None:
            raise TableError(NOT_KEPT, status=404)
        table = Table.resume(row)  # 409 when the saved table does not add up
        with self._lock:
            entry = self._tables.get(table_id)
            if entry is None:
                entry = self._tables[table_id] = _Entry(table, self.clock(), row["client"])
            elif entry.table.decisions < table.decisions:
                entry.table = table
            entry.last_used = self.clock()
            return entry

    def get(self, table_id: Any) -> Table:
        """The table of ``table_id``, touched (its idle time starts again); else 404."""
        return self._entry(table_id).table

    def view(self, table_id: Any) -> dict:
        """The human seat's view of the table, with ``table_id`` and the store ``instance``."""
        return self._stamp(table_id, self.get(table_id).view())

    def act(self, table_id: Any, move: Any, decisions: int | None = None) -> dict:
        """Play the human's move at the table (its lock held, not the store's); the new view.

        ``decisions``: the decision the move answers (:meth:`Table.act`)."""
        entry = self._entry(table_id)
        with entry.moving:
            if self.saved is None:
                result = entry.table.act(move, decisions)
            else:
                result = self._act_saved(table_id, entry, move, decisions)
        self._touch(table_id)  # a long bot answer does not count as idle time
        return self._stamp(table_id, result)

    def _act_saved(self, table_id: str, entry: _Entry, move: Any,
                   decisions: int | None) -> dict:
        """Play and keep a move (``entry.moving`` held): checked against the file's decision
        count when it is saved, so of two processes at one table exactly one plays.

        A copy behind the file is reloaded first; a move whose save finds that
        another process played meanwhile is dropped with the copy (409, nothing
        played), as is one the file could not take (503).
        """
        stored = self._saving(self.saved.decisions, table_id)
        if stored is None:
            raise TableError(NOT_KEPT, status=404)
        if entry.table.decisions != stored:
            entry = self._resume(table_id)
        table = entry.table
        before = table.decisions
        result = table.act(move, decisions)  # 409/422 here change nothing
        try:
            kept = self._saving(self.saved.save_move, table_id, before, table.saved())
        except TableError:
            self._drop(table_id, entry)
            raise
        if not kept:
            self._drop(table_id, entry)
            raise TableError(f"this move answers decision {before}, but another server "
                             f"process played at this table first; nothing was played - "
                             f"reload the view (GET /tables/ID) and choose again", status=409)
        return result

    def _drop(self, table_id: str, entry: _Entry) -> None:
        """Forget a copy in memory that is not what the file holds (the next request
        resumes the table from the file)."""
        with self._lock:
            if self._tables.get(table_id) is entry:
                del self._tables[table_id]

    def record(self, table_id: Any) -> dict:
        return self.get(table_id).record()

    def hint(self, table_id: Any, decisions: int | None = None,
             client: str | None = None) -> dict:
        """The hint for the person's decision at the table (:meth:`Table.hint`), counted
        against ``client`` (:meth:`charge_search`) and searched in the store's search
        processes where it has them."""
        table = self.get(table_id)
        self.charge_search(client)
        return table.hint(decisions, run=None if self.searches is None else self.searches.run)

    def analysis(self, table_id: Any, client: str | None = None) -> dict:
        """The game's analysis (:meth:`Table.analysis`; 409 while the game runs).

        A table keeps its analysis, so only the first request computes; at
        most ``max_analyses`` compute at once in the store, another is refused
        with 503 and a ``Retry-After`` (they take seconds, not minutes).
        """
        table = self.get(table_id)
        if table.analysed or not table.over:  # free, or the table's own 409
            return table.analysis()
        self.charge_search(client)
        if not self._analysing.acquire(blocking=False):
            raise TableError(f"the server is busy analysing other games (at most "
                             f"{self.max_analyses} at once, max_analyses); try again in a "
                             f"few seconds", status=503, retry_after=5)
        try:
            result = table.analysis()
        finally:
            self._analysing.release()
        self._touch(table_id)
        return result

    def close(self, table_id: Any) -> None:
        """Forget a table now (a page that leaves), from the file too; an unknown id is a 404."""
        self.get(table_id)
        with self._lock:
            self._tables.pop(table_id, None)
        if self.saved is not None:
            self._saving(self.saved.delete, table_id)

    def _touch(self, table_id: str) -> None:
        with self._lock:
            entry = self._tables.get(table_id)
            if entry is not None:
                entry.last_used = self.clock()

    def _stamp(self, table_id: str, view: dict) -> dict:
        return {"table_id": table_id, "instance": self.instance, **view}


def competition_places(placement: Sequence[int]) -> list[int]:
    """Places as people count them, from ``GameState.placement`` (0 first, ties equal):
    standard competition ranking, 1-based - a tie shares a place and the next place
    is skipped (1, 2, 2, 4), where ``placement`` counts densely (0, 1, 1, 2)."""
    return [1 + sum(1 for q in placement if q < p) for p in placement]


def _gift_target(event: dict, names: Sequence[str]) -> str:
    """Whom a Silberne Ananas Joker gift went to: self, left (seat + 1), right (seat - 1)."""
    seat, n = event["seat"], len(names)
    side = str(event.get("action")).split(" ", 1)[-1]
    target = {"self": seat, "left": (seat + 1) % n, "right": (seat - 1) % n}.get(side, seat)
    return f"{names[target]} ({side})"


def describe_event(event: dict, names: Sequence[str]) -> str:
    """One line of text for an event, ``names`` naming each seat ("You", "Seat 2 (pimc)")."""
    t = event.get("type")
    if t == "move":
        who = names[event["seat"]]
        if event.get("secret"):
            return {"sore": f"{who} laid a sore card face down",
                    "choose_task": f"{who} chose a task (secret until all have chosen)"
                    }.get(event.get("kind"), f"{who} made a secret choice")
        kind, label = event.get("kind"), str(event.get("action"))
        what = label.split(" ", 1)[-1]  # "bid 2" -> "2", "take 7H" -> "7H"
        return {"card": f"{who} played {label}", "bid": f"{who} bid {what}",
                "trump": f"{who} chose trump {what}",
                "sore": f"{who} laid {what} face down as the sore card",
                "gift": f"{who} (the Joker) gave the trick to {_gift_target(event, names)}",
                "take": f"{who} took {what} from the row",
                "draft_task": f"{who} drafted the task {what}",
                "choose_task": f"{who} chose the task {what} for this round",
                "check_task": f"{who} checked off the task {what}",
                }.get(kind, f"{who}: {label}")
    if t == "trick":
        cards = " ".join(f"{c}" for c in event["cards"])
        if event.get("winner") is None:
            return f"Trick: {cards} - all Aces: the cards leave the game"
        text = f"Trick: {cards} -> {names[event['winner']]}"
        if "gift" in event:
            text += f" (a Joker gift from {names[event['joker_seat']]})"
        if "high" in event:
            high = names[event["high_seat"]]
            text = (f"Trick: {cards} - {agree(names[event['low_seat']], 'takes')} "
                    f"{event['high']}, {agree(high, 'takes')} the rest and "
                    f"{verb_for(high, 'leads')}")
        return text
    if t == "row":
        return (f"Row {event['row'] + 1} drafted ({' '.join(event['cards'])}): "
                f"as a trick it would go to {names[event['winner']]}")
    if t == "reveal":
        what = "sore cards" if event["what"] == "sore_cards" else "chosen tasks"
        values = ", ".join(f"{names[s]} {v if v is not None else '-'}"
                          for s, v in enumerate(event["values"]))
        return f"Revealed {what}: {values}"
    if t == "round_end":
        scores = event.get("scores")
        part = (", ".join(f"{names[s]} {v:+d}" for s, v in enumerate(scores))
                if scores else "")
        totals = ", ".join(f"{names[s]} {v}" for s, v in enumerate(event["totals"]))
        return f"Round {event['round'] + 1} over. {part + '; ' if part else ''}totals: {totals}"
    if t == "game_over":
        if not event["winners"]:
            return "Game over: nobody won (the round limit was reached)"
        return f"Game over. Winner(s): {', '.join(names[s] for s in event['winners'])}"
    return str(event)


__all__ = [
    "DEFAULT_CREATIONS_PER_MINUTE",
    "DEFAULT_IDLE_TIMEOUT",
    "DEFAULT_KEEP_DAYS",
    "DEFAULT_MAX_ANALYSES",
    "DEFAULT_MAX_MEMORY_MB",
    "DEFAULT_MAX_TABLES",
    "DEFAULT_MAX_TABLES_PER_CLIENT",
    "DEFAULT_SEARCHES_PER_MINUTE",
    "NOT_FOUND",
    "NOT_KEPT",
    "Table",
    "TableError",
    "TableStore",
    "build_game",
    "describe_event",
    "resident_mb",
    "seating",
]
