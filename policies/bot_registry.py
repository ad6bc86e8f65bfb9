"""The bots a server answers for: trained ONNX bots from folders, and rule bots per game.

:class:`BotRegistry` loads every bot folder below a root, verifying each
(:func:`stichzoo.policies.onnx_bot.verify_bot`); a folder that does not
verify is *refused* - listed with its one-line reason and logged once - and
the others serve.  Besides the trained bots it serves a difficulty level
per game and policy kind (``wizard-random``, ``wizard-heuristic``,
``wizard-pimc``, see :mod:`stichzoo.policies.levels`), built from the
player view alone: the table (player count, rule options) comes from the
view, the hidden cards are dealt by ``from_view`` with the request's seed.

Everything a request can get wrong is a :class:`BotError` with the HTTP
status to send; the transports (:mod:`stichzoo.policies.serve`) only
translate.  Parsing is here too, so HTTP and JSON lines refuse the same
bodies the same way.
"""

from __future__ import annotations

import importlib
import inspect
import json
import logging
import math
import os
import random
import threading
from collections import OrderedDict
from typing import Any

import numpy as np

from stichzoo import envs
from stichzoo.policies.base import Decision
from stichzoo.policies.levels import (
    DEFAULT_LEVELS,
    KIND_LEVELS,
    rule_strength,
    trained_level,
    trained_strength,
)
from stichzoo.policies.onnx_bot import InferenceError, OnnxPolicy

log = logging.getLogger("stichzoo.serve")

#: seeds are integers 0..2**63-1 (any int64 >= 0 a JavaScript BigInt or a JSON number can carry)
MAX_SEED = 2**63 - 1
#: Python refuses to convert longer integer strings (sys.get_int_max_str_digits)
MAX_INT_DIGITS = 4300
#: the rule options of a view, as JSON, are a few hundred bytes; a rule bot builds a table from them
MAX_OPTIONS_BYTES = 4096
#: tables (games under one set of options) the rule bots keep built
_TABLE_CACHE = 64


class BotError(ValueError):
    """A request the bots cannot answer; ``status`` is the HTTP status to send."""

    def __init__(self, message: str, status: int = 422):
        super().__init__(message)
        self.status = status


def _short(value: Any, limit: int = 40) -> str:
    """A value as JSON for a message, cut short: messages quote, they do not echo bodies."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- parsing ------------------------------------------------------------------------


def _no_constant(name: str):
    raise json.JSONDecodeError(f"{name} is not JSON", name, 0)


def parse_json(raw: bytes | str) -> Any:
    """A JSON body as Python values; every way it can fail is a BotError (400 or 422).

    Refused: bytes that are not UTF-8, bad syntax, ``NaN``/``Infinity``
    (not JSON), nesting too deep for the parser (400); an integer of more
    digits than Python converts (4,300: 422).  What parses - ``1e400`` (inf),
    ``10**400``, nesting 900 deep - reaches the view checks, which refuse it
    by key (422).  No per-number hook: a body near the size limit parses at
    C speed, so a heavy client does not hold the interpreter for long.
    """
    try:
        text = raw.decode("utf-8") if isinstance(raw, (bytes, bytearray)) else raw
    except UnicodeDecodeError as e:
        raise BotError(f"malformed JSON: the body is not UTF-8 ({e.reason} at byte {e.start})",
                       status=400) from None
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except RecursionError:  # json's own guard: nesting past the interpreter's recursion limit
        raise BotError("malformed JSON: nested too deeply", status=400) from None
    except json.JSONDecodeError as e:
        raise BotError(f"malformed JSON: {e}", status=400) from None
    except ValueError as e:  # int(): "Exceeds the limit (4300 digits) for integer string ..."
        raise BotError(f"a number in the body is out of range ({' '.join(str(e).split())})"
                       ) from None
    return value


def peek_id(raw: bytes | str) -> Any:
    """The ``id`` of a request refused for an out-of-range number elsewhere in it, if any.

    The line is read again with numbers that cannot fail (out of range ->
    null), only to echo the id; anything else that is wrong gives None.
    """
    def lenient_int(text: str):
        return int(text) if len(text) <= MAX_INT_DIGITS else None

    def lenient_float(text: str):
        value = float(text)
        return value if math.isfinite(value) else None

    try:
        text = raw.decode("utf-8") if isinstance(raw, (bytes, bytearray)) else raw
        value = json.loads(text, parse_int=lenient_int, parse_float=lenient_float)
    except (ValueError, RecursionError):
        return None
    return value.get("id") if isinstance(value, dict) else None


def check_sample(value: Any, where: str = "sample") -> bool:
    """``sample`` must be a real boolean: ``"false"`` or ``0`` is refused, never read as true."""
    if not isinstance(value, bool):
        raise BotError(f"{where} must be true or false, got {_short(value)}")
    return value


def check_seed(value: Any, where: str = "seed") -> int:
    """A seed is an integer 0..2**63-1 (not a bool, not 1.5); omitted (None) means 0."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
        raise BotError(f"{where} must be an integer in 0..{MAX_SEED} (2**63-1), got "
                       f"{_short(value)}")
    return value


# -- the bots -----------------------------------------------------------------------


def _views(game_name: str):
    return importlib.import_module(f"stichzoo.envs.{game_name}.view")


def _takes_rng(function) -> bool:
    return "rng" in inspect.signature(function).parameters


class TrainedBot:
    """An exported network; it sits at the one table of its manifest."""

    kind = "trained"

    def __init__(self, name: str, policy: OnnxPolicy):
        self.name = name
        self.policy = policy
        self.game_name = policy.game.name
        self.strength = trained_strength(policy.manifest)
        self.level = trained_level(self.strength, policy.game.num_players)

    def table(self, view: dict):
        return self.policy.game

    def choose(self, decision: Decision, sample: bool, seed: int) -> tuple[int, float | None]:
        mask = decision.action_mask
        probs = self.policy.probabilities(decision.observation, mask)
        action = self.policy.choose(probs, mask, sample, rng=np.random.default_rng(seed))
        return action, float(probs[action])

    def summary(self) -> dict[str, Any]:
        m = self.policy.manifest
        return {"name": self.name, "kind": self.kind, "level": self.level, "spec": None,
                "game": m["game"], "env": m["env"], "num_players": m["num_players"],
                "options": m["options"], "strength": self.strength,
                "evaluation": m.get("provenance", {}).get("evaluation", {})}


class RuleBot:
    """``random``, ``heuristic``, ``pimc[:worlds=N]`` or ``search`` for one game.

    The first three sit at any table of the game; ``search`` (PIMC guided by
    the game's shipped network) only at the shipped bot's table.

    The table is built from the view's ``options``; the policy is built
    fresh per request with the request's seed, so the answer is a function
    of (view, seed) alone.
    """

    def __init__(self, name: str, game_name: str, spec: str):
        from stichzoo.policies.specs import parse_policy_spec

        kind, kwargs = parse_policy_spec(spec)
        if kind not in KIND_LEVELS:
            raise ValueError(f"level {spec!r}: a level is one of {', '.join(KIND_LEVELS)} "
                             f"(e.g. pimc:worlds=24)")
        self.name = name
        self.kind = kind
        self.spec = spec
        self.game_name = game_name
        self.level = KIND_LEVELS[kind]
        # the README measured pimc at its default budget only
        measured = kind not in ("pimc", "search") or kwargs in (
            {}, {"worlds": _default_worlds(game_name)})
        self.strength = rule_strength(game_name, kind, measured=measured)
        self._tables: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        # fail at start-up, not at the first request: build the policy once at a default table
        cls = envs.game_class(game_name)
        default_table = cls(cls.Options())
        self.env_id = default_table.env_id
        self._build_policy(default_table, 0)

    def _build_policy(self, game, seed: int):
        from stichzoo.policies.specs import build_policy

        return build_policy(self.spec, game, seed, cache=False)

    def table(self, view: dict):
        from stichzoo.envs.core.game import build_options

        options = view.get("options")
        if not isinstance(options, dict):
            raise BotError(f"invalid view: 'options' must be an object (the table's rule "
                           f"options), got {_short(options)}")
        key = json.dumps(options, sort_keys=True)
        if len(key) > MAX_OPTIONS_BYTES:
            raise BotError(f"invalid view: 'options' is {len(key)} bytes of JSON; rule options "
                           f"are at most {MAX_OPTIONS_BYTES}")
        with self._lock:
            game = self._tables.get(key)
            if game is not None:
                self._tables.move_to_end(key)
                return game
        cls = envs.game_class(self.game_name)
        try:
            game = cls(build_options(cls.Options, self.game_name, options))
        except (ValueError, TypeError) as e:
            raise BotError(f"invalid view: options: {e}") from None
        with self._lock:
            self._tables[key] = game
            while len(self._tables) > _TABLE_CACHE:
                self._tables.popitem(last=False)
        return game

    def choose(self, decision: Decision, sample: bool, seed: int) -> tuple[int, float | None]:
        try:
            policy = self._build_policy(decision.game, seed)
        except ValueError as e:  # the learned search's network fits one table only
            raise BotError(f"{self.name} cannot sit at this table: {e}") from None
        return policy.act(decision), None

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "level": self.level, "spec": self.spec,
                "game": self.game_name, "env": self.env_id, "num_players": None, "options": None,
                "strength": self.strength, "evaluation": {}}


def _default_worlds(game_name: str) -> int | None:
    from stichzoo.policies import game_policy_module

    return getattr(game_policy_module(game_name), "SEARCH_DEFAULTS", {}).get("worlds")


class BotRegistry:
    """Every bot a server answers for: the folders below ``root`` and the rule-bot levels.

    ``levels`` are policy specs (``random``, ``heuristic``, ``pimc``,
    ``pimc:worlds=N``), each served for every game as ``<game>-<kind>``;
    ``()`` serves the trained bots only.  A folder that does not verify is
    refused (see :attr:`refused`); if nothing at all can be served the
    registry refuses to start, with every reason in one line.
    """

    def __init__(self, root: str, levels: tuple[str, ...] | list[str] = DEFAULT_LEVELS):
        self.root = root
        self.bots: dict[str, TrainedBot | RuleBot] = {}
        self.refused: list[dict[str, str]] = []
        if not os.path.isdir(root):
            raise ValueError(f"bot folder {root!r} does not exist")
        level_bots = {}
        for spec in levels:
            kind = str(spec).partition(":")[0]
            for game_name in envs.GAMES:
                name = f"{game_name}-{kind}"
                if name in level_bots:
                    raise ValueError(f"level {spec!r}: {name} is already served (one spec "
                                     f"per kind)")
                level_bots[name] = RuleBot(name, game_name, spec)
        for entry in sorted(os.listdir(root)):
            path = os.path.join(root, entry)
            if entry.startswith((".", "_")) or not os.path.isdir(path):
                continue
            if entry in level_bots:
                self._refuse(entry, path, f"the name {entry!r} is a built-in level")
                continue
            try:
                self.bots[entry] = TrainedBot(entry, OnnxPolicy.load(path))
            except ValueError as e:
                self._refuse(entry, path, str(e))
        self.bots.update(level_bots)
        if not self.bots:
            reasons = "; ".join(r["reason"] for r in self.refused) or "it holds no bot folder"
            raise ValueError(f"no bot to serve in {root}: {reasons}")

    def _refuse(self, name: str, path: str, reason: str) -> None:
        reason = " ".join(reason.split())
        self.refused.append({"name": name, "reason": reason})
        log.warning("stichzoo serve: refused bot folder %s: %s", path, reason)

    def list(self) -> dict[str, Any]:
        """``{"bots": [summary, ...], "refused": [{"name", "reason"}, ...]}``."""
        return {"bots": [b.summary() for b in self.bots.values()], "refused": list(self.refused)}

    def describe(self, name: str | None = None) -> Any:
        if name is None:
            return self.list()["bots"]
        bot = self.get(name)
        manifest = bot.policy.manifest if isinstance(bot, TrainedBot) else None
        return {**bot.summary(), "manifest": manifest}

    def get(self, name: str) -> TrainedBot | RuleBot:
        if name not in self.bots:
            raise BotError(f"unknown bot {str(name)[:60]!r}; known bots: "
                           f"{', '.join(self.bots) or 'none'}", status=404)
        return self.bots[name]

    def act(self, name: str, view: Any, sample: Any = False, seed: Any = None) -> dict:
        """The bot's move for a player view (a dict); BotError for anything that is not right."""
        bot = self.get(name)
        sample = check_sample(sample)
        seed = check_seed(seed)
        if not isinstance(view, dict):
            raise BotError("the request body must be a JSON object: a player view")
        if view.get("game") != bot.game_name:
            raise BotError(f"bot {name!r} plays {bot.game_name}, the view is for "
                           f"{_short(view.get('game'))}")
        game = bot.table(view)
        views = _views(game.name)
        try:
            if _takes_rng(views.from_view):
                state = views.from_view(game, view, rng=random.Random(seed))
            else:
                state = views.from_view(game, view)
        except KeyError as e:
            raise BotError(f"invalid view: missing key {e}") from None
        except (ValueError, TypeError, IndexError, OverflowError, RecursionError) as e:
            raise BotError(f"invalid view: {' '.join(str(e).split())}") from None
        seat = view.get("seat")
        if state.over or state.truncated or state.current_player != seat:
            raise BotError(f"seat {_short(seat)} is not to act in this view (to act: "
                           f"{None if state.over else state.current_player})")
        decision = Decision(game, state, seat,
                            encoder=bot.policy.encoder if isinstance(bot, TrainedBot) else None)
        try:
            action, probability = bot.choose(decision, sample, seed)
        except InferenceError as e:
            raise BotError(f"bot {name!r} cannot answer this view: {e}") from None
        except OverflowError:
            raise BotError("invalid view: a number in it is beyond what any game reaches"
                           ) from None
        if not (state.legal_mask() >> action) & 1:  # a bug, never the client's fault
            raise BotError(f"bot {name!r} chose action {action}, which is not legal here; "
                           f"no answer is given", status=500)
        answer = views.action_to_view(game, action)
        return {"bot": name, "seat": seat, **answer, "probability": probability}
