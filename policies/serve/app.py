"""The bot server over HTTP: the FastAPI app and the uvicorn settings of ``stichzoo serve``.

    stichzoo serve --bots policies/bots --port 8000      # HTTP; docs at /docs (OpenAPI)

A frontend does not know our observation vectors; it knows the table.  It
sends a *player view* - exactly what one seat knows, in card notation (see
``docs/views/<game>.md``) - and gets back the action in game terms::

    POST /bots/wizard/act   {"game": "wizard", "seat": 2, "to_act": 2, "hand": [...], ...}
    -> {"bot": "wizard", "seat": 2, "action": "R7", "action_id": 19, "kind": "card",
        "card": "R7", "probability": 0.83}
    POST /bots/wizard-pimc/hint  (the same view)
    -> the move as above, plus "why" and "values": every legal action's value,
       standard error and difference to the move (search bots only)

Every bad request gets a 4xx answer ``{"error": "..."}`` that names the
problem, and the server keeps serving; the contract, limits and timeouts
are in ``docs/bots.md``.  What the bots are lives in
:mod:`stichzoo.policies.serve.registry`, how a body is read and checked in
:mod:`stichzoo.policies.serve.requests`; the JSON-lines transport is
:mod:`stichzoo.policies.serve.stdio`.  Request work (JSON parsing, view
checks, inference) runs in a worker thread, never on the event loop, so one
heavy client does not stall the others.
"""


import json
from collections.abc import Iterable
from typing import Annotated, Any, Literal

from stichzoo.envs.registry import view_of
from stichzoo.policies.serve.answers import (
    AsciiJSONResponse,
    error_answer,
    hide_folder,
    without_paths,
)
from stichzoo.policies.serve.guard import Guard
from stichzoo.policies.serve.levels import DEFAULT_LEVELS
from stichzoo.policies.serve.registry import BotRegistry
from stichzoo.policies.serve.requests import (
    DEFAULT_MAX_BODY_BYTES,
    MAX_SEED,
    RequestError,
    parse_json,
    read_body,
)

__all__ = ["DEFAULT_KEEP_ALIVE", "DEFAULT_LIMIT_CONCURRENCY", "DEFAULT_MAX_BODY_BYTES",
           "DEFAULT_REQUEST_TIMEOUT", "create_app", "server_config"]

#: seconds a client has to send one whole request (headers and body) once it has begun
DEFAULT_REQUEST_TIMEOUT = 10.0
#: seconds an idle keep-alive connection is kept open
DEFAULT_KEEP_ALIVE = 5
#: connections + requests in flight at once; beyond it uvicorn answers 503
DEFAULT_LIMIT_CONCURRENCY = 1000


# -- HTTP ---------------------------------------------------------------------------


def _strict_bool(value: Any) -> Any:
    if value in ("true", "false"):
        return value == "true"
    if isinstance(value, bool):
        return value
    raise ValueError(f"must be true or false, got {str(value)[:40]!r}")


def _strict_seed(value: Any) -> Any:
    if isinstance(value, str) and not (value.isascii() and value.isdigit() and len(value) <= 19):
        raise ValueError(f"must be an integer in 0..{MAX_SEED} (2**63-1), got {value[:40]!r}")
    return value


def _models():
    """The pydantic models of the answers (built on first use: pydantic is a serve extra)."""
    from pydantic import BaseModel, ConfigDict, Field

    class ErrorAnswer(BaseModel):
        """Every error, whatever the status: one line that names the problem."""

        error: str

    class Interval(BaseModel):
        mean: float
        lo: float = Field(description="95% interval, lower end")
        hi: float = Field(description="95% interval, upper end")

    class Match(BaseModel):
        """A measured duplicate tournament: this bot in one seat, ``opponent`` in the others."""

        opponent: str
        players: int | None
        games: int | None
        score_difference: Interval | None = Field(description="bot minus opponent, per game")
        win_rate_difference: Interval | None
        win_rate: Interval | None = Field(description="the bot's own win rate in that seating")
        source: str = Field(description="where the figures come from (command or file)")

    class BotSummary(BaseModel):
        name: str = Field(description="the name to POST to: /bots/{name}/act")
        kind: Literal["trained", "random", "heuristic", "pimc", "search"]
        level: Literal["easy", "medium", "hard"] | None = Field(
            description="relative to the game's heuristic (medium); null: never measured")
        spec: str | None = Field(description="the policy spec of a rule bot")
        game: str
        env: str
        num_players: int | None = Field(description="a trained bot's player count; null: any")
        options: dict[str, Any] | None = Field(description="a trained bot's rule options")
        strength: list[Match]
        evaluation: dict[str, Any] = Field(description="a trained bot's full final evaluation")

    class RefusedBot(BaseModel):
        name: str = Field(description="the bot folder's name")
        reason: str = Field(description="why it was not loaded, one line")

    class BotList(BaseModel):
        bots: list[BotSummary]
        refused: list[RefusedBot]

    class BotInfo(BotSummary):
        manifest: dict[str, Any] | None = Field(description="a trained bot's manifest.json")

    class ActAnswer(BaseModel):
        """The move, in game terms; kind-specific keys (card, bid, suit, task, ...) come too."""

        model_config = ConfigDict(extra="allow")
        bot: str
        seat: int
        action: str = Field(description="the action's label, e.g. 'R7', 'bid 2'")
        action_id: int
        kind: str = Field(description="card, bid, trump, sore, give, take, ... (per game)")
        probability: float | None = Field(
            description="the network's probability of the action; null for rule bots")

    class ActionValueAnswer(BaseModel):
        """One legal action as the search rates it (null value: not searched, see reason)."""

        model_config = ConfigDict(extra="forbid")
        action: str = Field(description="the action's label, e.g. 'R7', 'bid 2'")
        action_id: int
        kind: str = Field(description="card, bid, trump, sore, give, take, ... (per game)")
        value: float | None = Field(
            description="mean value over the worlds searched (the search's value: by default "
                        "the seat's score margin over the rest of the round); null: not "
                        "searched")
        stderr: float | None = Field(
            description="standard error of value over the worlds (null: fewer than 2 worlds "
                        "or not searched)")
        worlds: int = Field(description="sampled worlds the action was played in (0: none)")
        difference: float | None = Field(
            description="value minus the chosen action's value (0 for the chosen; negative: "
                        "worse)")
        difference_stderr: float | None = Field(
            description="standard error of difference, paired world by world (every action "
                        "is played in the same worlds)")
        reason: str | None = Field(description="why the action has no value; null if it has")

    class HintAnswer(ActAnswer):
        """The move (as /act gives it for the same view and seed) and every legal action's
        value from the search that chose it."""

        why: str = Field(description="why the search chose the action, e.g. 'the best value'")
        values: list[ActionValueAnswer] = Field(
            description="every legal action, in action-id order")

    return ErrorAnswer, BotList, BotInfo, ActAnswer, HintAnswer


def _view_schemas() -> dict[str, dict]:
    """Each game's player view as a JSON Schema (``view.json_schema()``, draft 2020-12)."""

    from stichzoo import envs

    out = {}
    for game in envs.GAMES:
        views = view_of(game)
        make = getattr(views, "json_schema", None)
        schema = make() if make is not None else {
            "type": "object", "required": ["game"],
            "properties": {"game": {"const": game}},
            "description": f"a {game} player view; its keys: docs/views/{game}.md"}
        out["".join(w.title() for w in game.split("_")) + "View"] = schema
    return out


def _embed(schema: dict, name: str, components: dict) -> None:
    """Put a standalone JSON Schema into OpenAPI components: its $defs become siblings."""
    schema = json.loads(json.dumps(schema))
    defs = schema.pop("$defs", {})
    schema.pop("$schema", None)
    schema.pop("$id", None)

    def fix(node):
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                node["$ref"] = f"#/components/schemas/{name}_{ref[len('#/$defs/'):]}"
            elif ref == "#":
                node["$ref"] = f"#/components/schemas/{name}"
            for v in node.values():
                fix(v)
        elif isinstance(node, list):
            for v in node:
                fix(v)

    fix(schema)
    fix(defs)
    components[name] = schema
    for key, sub in defs.items():
        components[f"{name}_{key}"] = sub


def create_app(root: str, *, levels: Iterable[str] = DEFAULT_LEVELS,
               max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
               cors_origins: Iterable[str] = (), registry: BotRegistry | None = None,
               web_table: bool = True, table_store: Any = None,
               allowed_hosts: Iterable[str] | None = None, trusted_proxies: Iterable[str] = ()):
    """The FastAPI app serving every bot below ``root`` and the rule-bot ``levels``.

    ``cors_origins``: origins a browser page may call from (none by default;
    ``"*"`` for any).  ``allowed_hosts``: the names the ``Host`` header may
    carry besides IP addresses (``"localhost:8000"``, ``"cards.example.org"``;
    None: no Host check - ``stichzoo serve`` always gives a list); the
    Origin and Content-Type checks always apply
    (:mod:`stichzoo.policies.serve.guard`).  ``web_table``: also serve the
    browser table at ``/`` (tables kept on the server, the engine as referee;
    ``table_store``: a :class:`~stichzoo.policies.tables.table.TableStore` with
    the server's limits, else one with the defaults).  The app is returned
    for other routers to join (the error handlers then apply to them too).
    ``trusted_proxies``: addresses or networks of reverse proxies whose forwarded
    client address the web table's per-client limits count
    (:mod:`stichzoo.policies.serve.clients`; never read from anyone else).
    """
    from fastapi import FastAPI, Path, Query, Request
    from fastapi.exceptions import RequestValidationError
    from pydantic import BeforeValidator
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException

    if max_body_bytes < 1:
        raise ValueError(f"max body size {max_body_bytes}: use a number of bytes >= 1")
    registry = registry or BotRegistry(root, tuple(levels))
    hide_folder(root)
    ErrorAnswer, BotList, BotInfo, ActAnswer, HintAnswer = _models()
    app = FastAPI(title="stichzoo bots", version="1", default_response_class=AsciiJSONResponse,
                  description="Send a player view, get the bot's move in game terms. Every "
                              'error is {"error": "..."}; see docs/bots.md.')
    origins = list(cors_origins)
    for origin in origins:
        if origin != "*" and not (origin.startswith(("http://", "https://"))
                                  and "/" not in origin.split("://", 1)[1]):
            raise ValueError(f"CORS origin {origin!r}: use scheme://host[:port] (no path), "
                             f"or '*'")
    app.add_middleware(Guard, hosts=allowed_hosts, origins=origins)  # inside CORS: its
    if origins:  # refusals carry the CORS headers an allowed page needs to read them
        from starlette.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=origins,
                           allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["Content-Type"], max_age=600)

    error = error_answer  # ASCII JSON: a lone surrogate in a quoted value is no 500

    @app.exception_handler(RequestError)
    async def _refused(_request, exc: RequestError):
        # a refused body is not read; closing tells the client to stop sending it
        return error(exc.status, str(exc), exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request, exc: RequestValidationError):
        parts = []
        for err in exc.errors():
            loc = [str(x) for x in err.get("loc", ())]
            where = (f"{loc[0]} parameter {loc[-1]!r}" if len(loc) >= 2
                     and loc[0] in ("query", "path", "header", "cookie") else ".".join(loc))
            msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
            parts.append(f"{where}: {msg}")
        return error(422, "; ".join(parts) or "invalid request")

    @app.exception_handler(HTTPException)
    async def _http(_request, exc: HTTPException):
        return error(exc.status_code, str(exc.detail), getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _internal(_request, exc: Exception):
        return error(500, f"internal error ({type(exc).__name__})")

    errors = {status: {"model": ErrorAnswer, "description": text} for status, text in {
        400: "malformed JSON or body", 404: "unknown bot", 413: "body over the size limit",
        415: "the body is not sent as application/json", 422: "invalid view or parameter",
        500: "a bug: no answer is given"}.items()}
    schemas = _view_schemas()
    body_doc = {"requestBody": {
        "required": True,
        "description": "a player view of the bot's game (docs/views/<game>.md); JSON, at "
                       f"most {max_body_bytes} bytes",
        "content": {"application/json": {"schema": {
            "anyOf": [{"$ref": f"#/components/schemas/{n}"} for n in schemas]}}}}}

    Sample = Annotated[bool, Query(
        description="true: draw the action from the network's probabilities (trained bots); "
                    "false: the most likely one"), BeforeValidator(_strict_bool)]
    Seed = Annotated[int, Query(ge=0, le=MAX_SEED, description="seeds the hidden-card deal, "
                                "sampling and rule bots; omitted: 0"),
                     BeforeValidator(_strict_seed)]
    Name = Annotated[str, Path(description="a bot's name from GET /bots")]

    @app.get("/bots", response_model=BotList, responses={500: errors[500]})
    def list_bots():
        """Every bot - trained and rule bots - with kind, level and measured strength, and the
        bot folders refused at start-up with their reason."""
        listed = registry.list()
        for refused in listed["refused"]:  # a reason names the folder, never its full path
            refused["reason"] = without_paths(refused["reason"])
        return listed

    @app.get("/bots/{name}", response_model=BotInfo,
             responses={404: errors[404], 422: errors[422], 500: errors[500]})
    def describe_bot(name: Name):
        """One bot; a trained one with its full manifest (observation and action layout,
        provenance)."""
        return registry.describe(name)

    @app.post("/bots/{name}/act", response_model=ActAnswer, responses=errors,
              openapi_extra=body_doc)
    async def act(name: Name, request: Request, sample: Sample = False, seed: Seed = 0):
        """The bot's action for the player view in the body (JSON)."""
        registry.get(name)  # 404 before a byte of the body is read
        raw = await read_body(request, max_body_bytes)
        return await run_in_threadpool(
            lambda: registry.act(name, parse_json(raw), sample=sample, seed=seed))

    hint_errors = {**errors, 422: {"model": ErrorAnswer, "description":
                                   "a bot without values (not a search), an invalid view or "
                                   "parameter"}}

    @app.post("/bots/{name}/hint", response_model=HintAnswer, responses=hint_errors,
              openapi_extra=body_doc)
    async def hint(name: Name, request: Request, seed: Seed = 0):
        """What the search bot would play for the player view in the body, and how much worse
        each alternative is: every legal action's value with its standard error. Only search
        bots (pimc, search) have values; within the same limits as a move."""
        registry.hint_bot(name)  # 404 or 422 before a byte of the body is read
        raw = await read_body(request, max_body_bytes)
        return await run_in_threadpool(
            lambda: registry.hint(name, parse_json(raw), seed=seed))

    def openapi() -> dict:
        if app.openapi_schema is None:
            doc = FastAPI.openapi(app)
            components = doc.setdefault("components", {}).setdefault("schemas", {})
            for n, schema in schemas.items():
                _embed(schema, n, components)
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = openapi
    app.state.registry = registry
    if web_table:  # the browser table at / (policies/serve/web_table.py; docs/web_table.md)
        from stichzoo.policies.serve.web_table import mount_web_table

        mount_web_table(app, table_store, bots_root=root, trusted_proxies=tuple(trusted_proxies))
    return app


class _LingeringTransport:
    """A transport whose ``close`` lingers while the client is still sending a request body.

    A refused body (413) is answered before it is read; closing at once then
    resets the connection of a client that sends its whole body before
    reading (Python's urllib), which sees a reset instead of the answer.
    Lingering, the server sends the answer, half-closes (FIN), and reads and
    drops what still comes, closing at the client's end of data or at the
    request deadline - as web servers' "lingering close" does.
    """

    def __init__(self, transport, protocol):
        self._transport = transport
        self._protocol = protocol

    def __getattr__(self, name):
        return getattr(self._transport, name)

    def close(self) -> None:
        self._protocol._close()


def deadline_protocol(request_timeout: float):
    """uvicorn's h11 protocol with a deadline for receiving each request, closing lingeringly.

    uvicorn closes idle keep-alive connections, but not one that opened and
    never sent a full request, nor one trickling its body: such connections
    are closed ``request_timeout`` seconds after they began the request.  A
    connection closed while its request body is still coming (a 413) is
    closed lingeringly (:class:`_LingeringTransport`), for at most
    ``request_timeout`` seconds.
    """
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    receiving = (h11.IDLE, h11.SEND_BODY)

    class DeadlineH11Protocol(H11Protocol):
        def connection_made(self, transport) -> None:
            self._lingering = False
            super().connection_made(transport)
            self._raw = transport
            self.transport = _LingeringTransport(transport, self)
            self._deadline = self.loop.call_later(request_timeout, self._expire)

        def data_received(self, data: bytes) -> None:
            if self._lingering:  # the answer is sent: what still comes is dropped
                return
            super().data_received(data)
            if self.conn.their_state in receiving:
                if self._deadline is None:
                    self._deadline = self.loop.call_later(request_timeout, self._expire)
            elif self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def eof_received(self) -> None:
            if self._lingering:
                self._raw.close()

        def _close(self) -> None:
            if self._lingering or self._raw.is_closing():
                return
            if self.conn.their_state != h11.SEND_BODY or not self._raw.can_write_eof():
                self._raw.close()
                return
            self._lingering = True
            self._raw.write_eof()  # after the answer: the client reads it, then ends
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = self.loop.call_later(request_timeout, self._raw.close)

        def connection_lost(self, exc) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            super().connection_lost(exc)

        def _expire(self) -> None:
            self._deadline = None
            if self.conn.their_state in receiving and not self._raw.is_closing():
                self._raw.close()

    return DeadlineH11Protocol


def server_config(app, host: str = "127.0.0.1", port: int = 8000, *,
                  request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
                  keep_alive: int = DEFAULT_KEEP_ALIVE,
                  limit_concurrency: int | None = DEFAULT_LIMIT_CONCURRENCY,
                  log_level: str = "warning"):
    """The uvicorn configuration of ``stichzoo serve`` (timeouts and limits: docs/bots.md)."""
    import uvicorn

    return uvicorn.Config(app, **server_options(host, port, request_timeout=request_timeout,
                                                keep_alive=keep_alive,
                                                limit_concurrency=limit_concurrency,
                                                log_level=log_level))


def server_options(host: str = "127.0.0.1", port: int = 8000, *,
                   request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
                   keep_alive: int = DEFAULT_KEEP_ALIVE,
                   limit_concurrency: int | None = DEFAULT_LIMIT_CONCURRENCY,
                   log_level: str = "warning", workers: int = 1) -> dict:
    """The keyword arguments of ``uvicorn.Config`` / ``uvicorn.run`` for ``stichzoo serve``.

    ``workers`` > 1: uvicorn spawns the processes, which import the app factory and the
    protocol by name (:mod:`stichzoo.policies.serve.server`)."""
    many = {} if workers == 1 else {"workers": workers, "factory": True}
    http = (deadline_protocol(request_timeout) if workers == 1
            else "stichzoo.policies.serve.server:Protocol")
    return dict(host=host, port=port, http=http, **many,
                timeout_keep_alive=keep_alive, limit_concurrency=limit_concurrency,
                h11_max_incomplete_event_size=16 * 1024, log_level=log_level,
                # the connection's own address: forwarded ones are read only from
                # the proxies named trusted (--trusted-proxy, serve/clients.py), not
                # from whatever uvicorn's default trusts (127.0.0.1)
                proxy_headers=False,
                access_log=False)  # paths carry table ids: capabilities, never logged
