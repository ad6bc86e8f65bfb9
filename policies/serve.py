"""Ask exported bots for moves: an HTTP server and a JSON-lines stdin/stdout mode.

    stichzoo serve --bots policies/bots --port 8000      # HTTP; docs at /docs (OpenAPI)
    stichzoo serve --bots policies/bots --stdio          # one JSON request per line

A frontend does not know our observation vectors; it knows the table.  It
sends a *player view* - exactly what one seat knows, in card notation (see
``docs/views/<game>.md``) - and gets back the action in game terms::

    POST /bots/wizard/act   {"game": "wizard", "seat": 2, "to_act": 2, "hand": [...], ...}
    -> {"bot": "wizard", "seat": 2, "action": "R7", "action_id": 19, "kind": "card",
        "probability": 0.83}

Every bad request gets a 4xx answer (or an ``{"error": ...}`` line) that
names the problem - malformed JSON, an unknown bot, an unknown card, a card
not in hand, a view whose phase or turn does not add up, a view for another
table - and the server keeps serving.
"""


import importlib
import json
import os
import sys
from typing import Any, TextIO

import numpy as np

from stichzoo.policies.base import Decision
from stichzoo.policies.onnx_bot import OnnxPolicy


class BotError(ValueError):
    """A request the bots cannot answer; ``status`` is the HTTP status to send."""

    def __init__(self, message: str, status: int = 422):
        super().__init__(message)
        self.status = status


class BotRegistry:
    """Every exported bot below ``root`` (one sub-folder with a manifest.json each)."""

    def __init__(self, root: str):
        self.root = root
        self.bots: dict[str, OnnxPolicy] = {}
        if not os.path.isdir(root):
            raise ValueError(f"bot folder {root!r} does not exist")
        for name in sorted(os.listdir(root)):
            path = os.path.join(root, name)
            if os.path.exists(os.path.join(path, "manifest.json")):
                self.bots[name] = OnnxPolicy.load(path)

    def describe(self, name: str | None = None) -> Any:
        if name is None:
            return [self._summary(n, b) for n, b in self.bots.items()]
        return {**self._summary(name, self.get(name)), "manifest": self.get(name).manifest}

    @staticmethod
    def _summary(name: str, bot: OnnxPolicy) -> dict:
        m = bot.manifest
        return {"name": name, "game": m["game"], "env": m["env"],
                "num_players": m["num_players"], "options": m["options"],
                "evaluation": m.get("provenance", {}).get("evaluation", {})}

    def get(self, name: str) -> OnnxPolicy:
        if name not in self.bots:
            raise BotError(f"unknown bot {name!r}; known bots: {', '.join(self.bots) or 'none'}",
                           status=404)
        return self.bots[name]

    def act(self, name: str, view: Any, sample: bool = False, seed: int | None = None) -> dict:
        """The bot's move for a player view (a dict)."""
        bot = self.get(name)
        if not isinstance(view, dict):
            raise BotError("the request body must be a JSON object: a player view")
        game = bot.game
        if view.get("game") != game.name:
            raise BotError(f"bot {name!r} plays {game.name}, the view is for "
                           f"{view.get('game')!r}")
        views = importlib.import_module(f"stichzoo.envs.{game.name}.view")
        try:
            state = views.from_view(game, view)
        except ValueError as e:
            raise BotError(f"invalid view: {e}") from None
        seat = view.get("seat")
        if state.over or state.truncated or state.current_player != seat:
            raise BotError(f"seat {seat} is not to act in this view (to act: "
                           f"{None if state.over else state.current_player})")
        decision = Decision(game, state, seat, encoder=bot.encoder)
        probs = bot.probabilities(decision.observation, decision.action_mask)
        if sample:
            action = int(np.random.default_rng(seed).choice(len(probs), p=probs))
        else:
            action = int(np.argmax(probs))
        answer = views.action_to_view(game, action)
        return {"bot": name, "seat": seat, **answer, "probability": float(probs[action])}


def create_app(root: str):
    """The FastAPI app serving every bot below ``root``."""
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse

    registry = BotRegistry(root)
    app = FastAPI(title="stichzoo bots",
                  description="Send a player view, get the bot's move in game terms.")

    @app.exception_handler(BotError)
    async def _bot_error(_request, exc: BotError):
        return JSONResponse(status_code=exc.status, content={"error": str(exc)})

    @app.get("/bots")
    def list_bots() -> list[dict]:
        """Every bot: name, game, player count, options, evaluation numbers."""
        return registry.describe()

    @app.get("/bots/{name}")
    def describe_bot(name: str) -> dict:
        """One bot with its full manifest (observation and action layout, provenance)."""
        return registry.describe(name)

    @app.post("/bots/{name}/act")
    async def act(name: str, request: Request, sample: bool = False,
                  seed: int | None = None) -> dict:
        """The bot's action for the player view in the body (JSON)."""
        raw = await request.body()
        try:
            view = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise BotError(f"malformed JSON: {e}", status=400) from None
        return registry.act(name, view, sample=sample, seed=seed)

    app.state.registry = registry
    return app


def serve_stdio(root: str, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """JSON lines: ``{"bot": name, "view": {...}, "id": any}`` in, one answer line out."""
    registry = BotRegistry(root)
    for line in stdin:
        if not line.strip():
            continue
        request_id = None
        try:
            try:
                request = json.loads(line)
            except json.JSONDecodeError as e:
                raise BotError(f"malformed JSON: {e}", status=400) from None
            if not isinstance(request, dict) or "bot" not in request or "view" not in request:
                raise BotError('a request is {"bot": NAME, "view": {...}} (optional "id", '
                               '"sample", "seed")', status=400)
            request_id = request.get("id")
            answer = registry.act(str(request["bot"]), request["view"],
                                  sample=bool(request.get("sample", False)),
                                  seed=request.get("seed"))
            out = {"id": request_id, **answer}
        except BotError as e:
            out = {"id": request_id, "error": str(e), "status": e.status}
        stdout.write(json.dumps(out) + "\n")
        stdout.flush()
    return 0
