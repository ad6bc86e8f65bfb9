"""The bots a server answers for: trained ONNX bots from folders, and rule bots per game.

:class:`BotRegistry` loads every bot folder below a root, verifying each
(:func:`stichzoo.policies.runtimes.onnx_policy.verify_bot`); a folder that does not
verify is *refused* - listed with its one-line reason and logged once - and
the others serve.  Besides the trained bots it serves a difficulty level
per game and policy kind (``wizard-random``, ``wizard-heuristic``,
``wizard-pimc``, see :mod:`stichzoo.policies.serve.levels`), built from the
player view alone: the game (player count, rule options) comes from the
view, the hidden cards are dealt by ``from_view`` with the request's seed.
The search levels (``pimc``, ``search``) also give *hints*
(:meth:`BotRegistry.hint`): the move with every legal action's value and
standard error, from the one search that chose it.

Everything a request can get wrong is a :class:`~stichzoo.policies.serve.requests.RequestError`
(also known as ``BotError``) with the HTTP
status to send; the transports (:mod:`stichzoo.policies.serve.app`,
:mod:`stichzoo.policies.serve.stdio`) only translate.  Bodies are read and
checked in :mod:`stichzoo.policies.serve.requests`, so HTTP and JSON lines
refuse the same bodies the same way.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import random
import threading
from collections import OrderedDict
from typing import Any

import numpy as np

from stichzoo import envs
from stichzoo.envs.registry import view_of
from stichzoo.policies.base import Decision
from stichzoo.policies.runtimes.onnx_policy import InferenceError, OnnxPolicy
from stichzoo.policies.search import SearchValues
from stichzoo.policies.serve.levels import (
    DEFAULT_LEVELS,
    KIND_LEVELS,
    rule_strength,
    trained_level,
    trained_strength,
)
from stichzoo.policies.serve.requests import (
    MAX_SEED,
    RequestError,
    check_sample,
    check_seed,
    quote,
)

__all__ = ["MAX_SEED", "BotError", "BotRegistry", "RuleBot", "TrainedBot"]

log = logging.getLogger("stichzoo.serve")

#: the rule options of a view, as JSON, are a few hundred bytes; a rule bot builds a game from them
MAX_OPTIONS_BYTES = 4096
#: games (a game under one set of options) the rule bots keep built
_GAME_CACHE = 64

#: the name the bot server's refusal had before it served the table API too
BotError = RequestError


# -- the bots -----------------------------------------------------------------------


def _views(game_name: str):
    return view_of(game_name)


def _takes_rng(function) -> bool:
    return "rng" in inspect.signature(function).parameters


class TrainedBot:
    """An exported network; it plays the one game of its manifest (players and options)."""

    kind = "trained"

    def __init__(self, name: str, policy: OnnxPolicy):
        self.name = name
        self.policy = policy
        self.game_name = policy.game.name
        self.strength = trained_strength(policy.manifest)
        self.level = trained_level(self.strength, policy.game.num_players)

    def game(self, view: dict):
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

    The first three play the game under any options; ``search`` (PIMC guided
    by the game's shipped network) only the shipped bot's game.

    The game is built from the view's ``options``; the policy is built
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
        # the baseline tables measured pimc at its default budget only
        measured = kind not in ("pimc", "search") or kwargs in (
            {}, {"worlds": _default_worlds(game_name)})
        self.strength = rule_strength(game_name, kind, measured=measured)
        self._games: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        # fail at start-up, not at the first request: build the policy once for the default game
        cls = envs.game_class(game_name)
        default_game = cls(cls.Options())
        self.env_id = default_game.env_id
        self._build_policy(default_game, 0)

    def _build_policy(self, game, seed: int):
        from stichzoo.policies.specs import build_policy

        return build_policy(self.spec, game, seed, cache=False)

    def game(self, view: dict):
        """The game under the view's rule options (built once per options, kept a while)."""
        from stichzoo.envs.core.game import build_options

        options = view.get("options")
        if not isinstance(options, dict):
            raise RequestError(f"invalid view: 'options' must be an object (the table's rule "
                           f"options), got {quote(options)}")
        key = json.dumps(options, sort_keys=True)
        if len(key) > MAX_OPTIONS_BYTES:
            raise RequestError(f"invalid view: 'options' is {len(key)} bytes of JSON; rule options "
                           f"are at most {MAX_OPTIONS_BYTES}")
        with self._lock:
            game = self._games.get(key)
            if game is not None:
                self._games.move_to_end(key)
                return game
        cls = envs.game_class(self.game_name)
        try:
            game = cls(build_options(cls.Options, self.game_name, options))
        except (ValueError, TypeError) as e:
            raise RequestError(f"invalid view: options: {e}") from None
        with self._lock:
            self._games[key] = game
            while len(self._games) > _GAME_CACHE:
                self._games.popitem(last=False)
        return game

    @property
    def gives_values(self) -> bool:
        """Whether it rates every action (a search: ``pimc``, ``search``) - a hint needs it."""
        return self.kind in ("pimc", "search")

    def _policy(self, game, seed: int):
        try:
            return self._build_policy(game, seed)
        except ValueError as e:  # the learned search's network fits one game only
            raise RequestError(f"{self.name} cannot sit at this table: {e}") from None

    def choose(self, decision: Decision, sample: bool, seed: int) -> tuple[int, float | None]:
        return self._policy(decision.game, seed).act(decision), None

    def values(self, decision: Decision, seed: int) -> SearchValues:
        """The search's move and every legal action's value (:meth:`PIMCPolicy.values`)."""
        return self._policy(decision.game, seed).values(decision)

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "level": self.level, "spec": self.spec,
                "game": self.game_name, "env": self.env_id, "num_players": None, "options": None,
                "strength": self.strength, "evaluation": {}}


def _default_worlds(game_name: str) -> int | None:
    from stichzoo.policies.specs import search_hooks

    return search_hooks(game_name).defaults.get("worlds")


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
            raise RequestError(f"unknown bot {str(name)[:60]!r}; known bots: "
                           f"{', '.join(self.bots) or 'none'}", status=404)
        return self.bots[name]

    def hint_bot(self, name: str) -> RuleBot:
        """A bot that can give a hint: 404 for an unknown name, 422 for a bot without values.

        Only a search rates every action; a network's probabilities or a rule
        bot's choice are not values, so a hint to them is refused (naming
        the bots of that game that can give one) rather than answered with
        empty values.
        """
        bot = self.get(name)
        if not getattr(bot, "gives_values", False):
            searchers = [n for n, b in self.bots.items()
                         if b.game_name == bot.game_name and getattr(b, "gives_values", False)]
            raise RequestError(f"bot {name!r} ({bot.kind}) gives no values, so no hint: only "
                               f"the search bots (pimc, search) rate every action; for "
                               f"{bot.game_name} this server has "
                               f"{', '.join(searchers) or 'none (serve the pimc level)'}")
        return bot

    def _decision(self, bot: TrainedBot | RuleBot, name: str, view: Any, seed: int):
        """The player view as a decision of the seat to act, and the game's view module."""
        if not isinstance(view, dict):
            raise RequestError("the request body must be a JSON object: a player view")
        if view.get("game") != bot.game_name:
            raise RequestError(f"bot {name!r} plays {bot.game_name}, the view is for "
                           f"{quote(view.get('game'))}")
        game = bot.game(view)
        views = _views(game.name)
        try:
            if _takes_rng(views.from_view):
                state = views.from_view(game, view, rng=random.Random(seed))
            else:
                state = views.from_view(game, view)
        except KeyError as e:
            raise RequestError(f"invalid view: missing key {e}") from None
        except (ValueError, TypeError, IndexError, OverflowError, RecursionError) as e:
            raise RequestError(f"invalid view: {' '.join(str(e).split())}") from None
        seat = view.get("seat")
        if state.over or state.truncated or state.current_player != seat:
            raise RequestError(f"seat {quote(seat)} is not to act in this view (to act: "
                           f"{None if state.over else state.current_player})")
        decision = Decision(game, state, seat,
                            encoder=bot.policy.encoder if isinstance(bot, TrainedBot) else None)
        return decision, views

    @staticmethod
    def _check_legal(name: str, decision: Decision, action: int) -> None:
        if not (decision.state.legal_mask() >> action) & 1:  # a bug, never the client's fault
            raise RequestError(f"bot {name!r} chose action {action}, which is not legal here; "
                           f"no answer is given", status=500)

    def act(self, name: str, view: Any, sample: Any = False, seed: Any = None) -> dict:
        """The bot's move for a player view (a dict); RequestError for what is not right."""
        bot = self.get(name)
        sample = check_sample(sample)
        seed = check_seed(seed)
        decision, views = self._decision(bot, name, view, seed)
        try:
            action, probability = bot.choose(decision, sample, seed)
        except InferenceError as e:
            raise RequestError(f"bot {name!r} cannot answer this view: {e}") from None
        except OverflowError:
            raise RequestError("invalid view: a number in it is beyond what any game reaches"
                           ) from None
        self._check_legal(name, decision, action)
        answer = views.action_to_view(decision.game, action)
        return {"bot": name, "seat": decision.seat, **answer, "probability": probability}

    def hint(self, name: str, view: Any, seed: Any = None) -> dict:
        """What a search bot would play for a player view, and how much worse each alternative is.

        The answer is the move's (as :meth:`act` gives it, the same action
        for the same view and seed) plus ``why`` and ``values``: every legal
        action with its value, standard error and difference to the chosen
        action, from the one search that chose it (docs/bots.md).
        """
        bot = self.hint_bot(name)
        seed = check_seed(seed)
        decision, views = self._decision(bot, name, view, seed)
        try:
            result = bot.values(decision, seed)
        except OverflowError:
            raise RequestError("invalid view: a number in it is beyond what any game reaches"
                           ) from None
        self._check_legal(name, decision, result.action)
        game = decision.game
        values = []
        for v in result.values:
            face = views.action_to_view(game, v.action)
            values.append({"action": face["action"], "action_id": v.action, "kind": face["kind"],
                           "value": v.value, "stderr": v.stderr, "worlds": v.worlds,
                           "difference": v.difference,
                           "difference_stderr": v.difference_stderr, "reason": v.reason})
        return {"bot": name, "seat": decision.seat, **views.action_to_view(game, result.action),
                "probability": None, "why": result.why, "values": values}
