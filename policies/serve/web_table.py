"""The browser table: a JSON API over :class:`~stichzoo.policies.tables.table.TableStore`, the page.

    from fastapi import FastAPI
    from stichzoo.policies.serve.web_table import mount_web_table
    app = FastAPI()
    store = mount_web_table(app)       # the page at /, its files under /static/, the API /tables

The engine is the referee on the server: a table lives in the store, the
page sees only :meth:`Table.view` (what the human seat may know) and sends
the human's moves; the bots move by themselves inside the request.  The
page (``policies/serve/static/``: plain HTML, CSS and JavaScript, no build step, no
CDN) never holds a hidden card, so a player cannot peek with the browser's
developer tools.

Every refusal is a 4xx answer ``{"error": "..."}`` that names the problem -
a bad table id, an illegal or malformed move, a wrong type, an unknown game,
option or opponent, malformed JSON (400), a body over the limit (413) - and
never a traceback.  The router handles its own errors (a route class that
turns every exception into that shape), so it behaves the same in any app,
whatever handlers that app has.  The API is documented in docs/web_table.md.

Opponents are chosen from a fixed list (``GET /tables/options``): the rule
bots ``random`` / ``heuristic`` / ``pimc`` and the shipped trained bots
``bot:<game>``.  Free policy specs are refused on purpose: ``onnx:path=...``
or ``ppo:path=...`` would let a web client load files from the server's disk,
and ``pimc:worlds=100000`` would let it pin a CPU.
"""

# no ``from __future__ import annotations``: FastAPI reads the routes' annotations (Request)

import json
import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import MISSING, fields
from typing import Any

from stichzoo.envs.core.display import Cards, GameDisplay, Grid, Note
from stichzoo.envs.registry import display_of
from stichzoo.policies.runtimes.onnx_policy import SHIPPED_BOTS
from stichzoo.policies.serve.answers import AsciiJSONResponse, error_answer
from stichzoo.policies.serve.clients import ClientAddress
from stichzoo.policies.serve.levels import KIND_LEVELS, trained_level, trained_strength
from stichzoo.policies.serve.requests import (
    ACT_SCHEMA,
    CREATE_SCHEMA,
    DEFAULT_TABLE_BODY_BYTES,
    MAX_TABLE_SEED,
    RequestError,
    check_event_number,
    check_move,
    create_arguments,
    parse_json,
    read_body,
)
from stichzoo.policies.tables.rules_text import rules_page
from stichzoo.policies.tables.table import (
    NOT_FOUND,
    TableError,
    TableStore,
    build_game,
    describe_event,
)

__all__ = ["DEFAULT_TABLE_BODY_BYTES", "MAX_SEED", "STATIC_FILES", "WEB_DIR",
           "card_facts", "mount_web_table", "page_view", "screen", "table_options", "table_router"]

log = logging.getLogger("stichzoo.web_table")

#: where the page's files live (shipped as package data)
WEB_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
#: the files served under /static/ and their media types; nothing else is served
STATIC_FILES = {"index.html": "text/html; charset=utf-8",
                "table.js": "text/javascript; charset=utf-8",
                "table.css": "text/css; charset=utf-8"}
#: seeds go to a browser, whose numbers are exact only up to 2**53 - 1
MAX_SEED = MAX_TABLE_SEED

RULE_BOTS = (("random", "plays a random legal move"),
             ("heuristic", "the game's rule-of-thumb player"),
             ("pimc", "searches sampled deals of the hidden cards (slower)"))


# -- what the page may choose -------------------------------------------------------------


def _option_kind(annotation: Any, default: Any) -> str:
    text = str(annotation)
    if "tuple" in text or "list" in text:
        return "int_list_or_null"
    if "bool" in text:
        return "bool"
    if "None" in text:
        return "int_or_null"
    return "int"


def _shipped_bots(game_name: str, bots_root: str) -> list[dict]:
    """The shipped trained bot of a game and the search it guides, as opponent choices.

    Both play the bot's own game only (its player count and options), so
    the page is told which one; none when the game ships no bot.
    """
    path = os.path.join(bots_root, game_name, "manifest.json")
    try:
        with open(path) as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        return []
    if not isinstance(manifest, dict) or manifest.get("game") != game_name:
        return []
    search_level = KIND_LEVELS.get("search")
    try:  # the measured levels, as the bot server lists them
        level = trained_level(trained_strength(manifest), manifest.get("num_players"))
    except Exception:  # no level is better than no opponent
        level = None
    game = {"num_players": manifest.get("num_players"), "options": manifest.get("options")}
    return [{"spec": f"bot:{game_name}", "kind": "trained", "level": level,
             "about": "the trained bot shipped with stichzoo; it plays its own table only",
             **game},
            {"spec": "search", "kind": "search", "level": search_level,
             "about": "searches sampled deals guided by the trained bot (slower, the "
                      "strongest); it plays the bot's own table only", **game}]


def table_options(bots_root: str = SHIPPED_BOTS) -> dict:
    """Every game with its player counts, options (with defaults) and opponent choices.

    Built from the games' own option classes, so a new option shows up in
    the page without editing it; player counts are those the game accepts.
    """
    from stichzoo import envs

    games = {}
    for name in envs.GAMES:
        cls = envs.game_class(name)
        display = display_of(name)  # title, option docs, short options: envs/<game>/display.py
        counts, cards = [], {}
        for n in range(2, 8):
            try:
                cards.update(dict.fromkeys(build_game(name, n).deck.names))
                counts.append(n)
            except TableError:
                pass
        default_players = build_game(name).num_players
        options = []
        for f in fields(cls.Options):
            if f.name == "num_players":
                continue
            default = f.default if f.default is not MISSING else None
            options.append({"name": f.name, "kind": _option_kind(f.type, default),
                            "default": list(default) if isinstance(default, tuple) else default,
                            "doc": display.option_docs.get(f.name, "")})
        opponents = [{"spec": spec, "kind": spec, "level": KIND_LEVELS.get(spec),
                      "about": about, "num_players": None, "options": None}
                     for spec, about in RULE_BOTS]
        opponents += _shipped_bots(name, bots_root)
        games[name] = {"title": display.title, "players": counts,
                       "default_players": default_players, "options": options,
                       "short_options": dict(display.short_options), "opponents": opponents,
                       "default_opponents": ["heuristic"], **card_facts(display, cards)}
    return {"games": games}


def card_facts(display: GameDisplay, cards: Any) -> dict:
    """How the page shows a game's cards, read from its display facts (envs/<game>/display.py).

    ``suits``: the suits in the order a hand shows them (``key``, ``name``,
    ``colour``: a style name such as ``"red"`` or ``"bold magenta"``);
    ``cards``: every card name of the game with its ``suit`` key, its ``rank``
    (its place in the suit, low to high) and its face (``text``, ``sub``,
    ``title``).  The page applies them as data: it reads no card name itself.
    """
    suits = [{"key": s.key, "name": s.name, "colour": s.colour} for s in display.suits]
    faces = {}
    for card in cards:
        face = display.face(card)
        faces[card] = {"suit": display.suit_of(card), "rank": display.rank(card),
                       "text": face.text, "sub": face.sub, "title": face.title}
    return {"suits": suits, "cards": faces}


# -- the answers ---------------------------------------------------------------------------


def seat_names(view: dict) -> list[str]:
    """Short names, as the terminal writes them: "You" for the person, "Seat k" for a bot."""
    return ["You" if p["human"] else f"Seat {p['seat']}" for p in view["players"]]


def with_texts(view: dict) -> dict:
    """The view with a line of text per event (``text``, as the terminal prints it).

    A round end also gets the game's ``columns`` of the round summary
    (``GameDisplay.round_columns``: bids, sore cards, tasks met, ...).
    """
    names = seat_names(view)
    display = display_of(view["game"]) if "game" in view else None
    for event in view.get("events", []):
        try:
            event["text"] = describe_event(event, names)
        except (KeyError, IndexError, TypeError, ValueError):  # a text is a courtesy
            event["text"] = event.get("type", "")
        if display is not None:  # ids in the player's words: "the task no trick"
            event["text"] = display.in_words(event["text"])
        if event.get("type") == "round_end" and "game" in view:
            event["columns"] = [{"title": title, "texts": texts} for title, texts
                                in display_of(view["game"]).round_columns(event)]
    return view


def screen(view: dict) -> dict:
    """The game's own lines of the table screen for the human seat, as the terminal shows them.

    Evaluated from the seat's view alone (:meth:`Table.view` holds no hidden
    card) by the game's display facts: ``where`` ("round 2 of 5", "deal 1 of at
    most 4"), ``seat_columns`` (``title`` and one text per seat: bids, sore
    cards, tasks, ...) and ``notes`` (trump, led suit, the Joker's gift, the
    draft rows; each a ``note`` with ``text`` and ``style``, or a ``grid``
    with ``title``, ``columns`` and ``rows`` whose cells are texts or
    ``{"cards": [...], "seats": [...] or null}``), and ``badges``, the few
    facts the table shows in its middle (trump, the led suit, the bids against
    the tricks; each a ``note``).
    """
    display = display_of(view["game"])
    v = view["view"]
    return {"where": display.where(v),
            "seat_columns": [{"title": title, "texts": texts}
                             for title, texts in display.seat_columns(v)],
            "notes": [_note(note) for note in display.notes(v, seat_names(view))],
            "badges": [_note(note) for note in display.badges(v)]}


def _note(note: Note | Grid) -> dict:
    if isinstance(note, Grid):
        return {"kind": "grid", "title": note.title, "columns": list(note.columns),
                "rows": [[_cell(c) for c in row] for row in note.rows]}
    return {"kind": "note", "text": note.text, "style": note.style}


def _cell(cell: str | Cards) -> str | dict:
    if isinstance(cell, Cards):
        return {"cards": list(cell.cards),
                "seats": None if cell.seats is None else list(cell.seats)}
    return cell


def page_view(view: dict) -> dict:
    """A view as the page gets it: event texts, the game's screen lines and each move's
    ``text`` (its label in the player's words: ``choose no trick``) added."""
    display = display_of(view["game"])
    moves = [{**m, "text": display.in_words(m["label"])} for m in view.get("moves", [])]
    return {**with_texts(view), "moves": moves, "screen": screen(view)}


# -- the routes ---------------------------------------------------------------------------


def _error_route_class():
    """An APIRoute whose handler answers every exception as ``{"error": ...}``.

    The router must not depend on the handlers of the app it joins: these
    are the table's answers in any app.
    """
    from fastapi.exceptions import RequestValidationError
    from fastapi.routing import APIRoute
    from starlette.exceptions import HTTPException

    answer = error_answer  # ASCII JSON, no server paths: the same as the bot API's

    class ErrorRoute(APIRoute):
        def get_route_handler(self) -> Callable:
            handler = super().get_route_handler()

            async def guarded(request):
                try:
                    return await handler(request)
                except (TableError, RequestError) as e:
                    return answer(e.status, str(e), getattr(e, "headers", None))
                except RequestValidationError as e:
                    parts = []
                    for err in e.errors():
                        loc = ".".join(str(x) for x in err.get("loc", ()))
                        msg = str(err.get('msg', 'invalid')).removeprefix('Value error, ')
                        parts.append(f"{loc}: {msg}")
                    return answer(422, "; ".join(parts) or "invalid request")
                except HTTPException as e:
                    return answer(e.status_code, str(e.detail))
                except Exception as e:  # a bug: one line, no traceback to the client
                    log.exception("stichzoo web table: internal error")
                    return answer(500, f"internal error ({type(e).__name__})")

            return guarded

    return ErrorRoute


def table_router(store: TableStore, *, max_body_bytes: int = DEFAULT_TABLE_BODY_BYTES,
                 bots_root: str = SHIPPED_BOTS, trusted_proxies: Iterable[str] = ()):
    """The table API under ``/tables`` (docs/web_table.md), answering its own errors.

    ``trusted_proxies``: addresses or networks whose forwarded client address
    (``Forwarded``, ``X-Forwarded-For``) the per-client limits count instead of
    the connection's (:mod:`stichzoo.policies.serve.clients`).

    Request work (building a table, the bots' moves) runs in a worker thread,
    never on the event loop, so slow bots at one table do not hold up others.
    """
    from typing import Annotated

    from fastapi import APIRouter, Query, Request
    from pydantic import BeforeValidator
    from starlette.concurrency import run_in_threadpool

    EventNumber = Annotated[int, Query(description="an event number (n); -1: every event"),
                            BeforeValidator(check_event_number)]

    if isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int) \
            or max_body_bytes < 1:
        raise ValueError(f"max_body_bytes must be a positive integer, not {max_body_bytes!r}")
    choices = table_options(bots_root)
    clients = ClientAddress(trusted_proxies)
    router = APIRouter(route_class=_error_route_class(), tags=["tables"],
                       default_response_class=AsciiJSONResponse)
    err = _error_responses()
    on_table = {k: err[k] for k in (404, 422, 500)}
    closing = {k: err[k] for k in (403, 404, 422, 500)}
    with_body = {k: err[k] for k in (400, 403, 404, 409, 413, 415, 422, 500, 503)}
    on_create = {**with_body, 429: err[429]}

    @router.get("/tables/options", responses={500: err[500]})
    def options():
        """The games, their options and the opponents a page may seat; the store's limits."""
        return {**choices, "idle_timeout": store.idle_timeout, "max_tables": store.max_tables,
                "limits": store.limits(), "instance": store.instance}

    @router.get("/tables/rules/{game}", responses={404: err[404], 500: err[500]})
    def rules(game: str):
        """A game's rules for players: ``game``, ``title``, ``markdown`` and ``html`` (safe:
        raw HTML in the text is escaped); 404 for an unknown game."""
        try:
            return rules_page(game)
        except ValueError as e:
            raise RequestError(str(e), 404) from None

    @router.post("/tables", status_code=201, responses=on_create,
                 openapi_extra={"requestBody": _body_doc(CREATE_SCHEMA)})
    async def create(request: Request):
        """A new table; the answer is the human seat's view (the bots before it have moved)."""
        body = parse_json(await read_body(request, max_body_bytes))
        game, kwargs = create_arguments(body, choices["games"])

        client = clients.of(request)  # the per-client limits

        def work() -> dict:
            table_id, _ = store.create(game, client=client, **kwargs)
            return page_view(store.view(table_id))

        return AsciiJSONResponse(status_code=201, content=await run_in_threadpool(work))

    @router.get("/tables/{table_id}", responses=on_table)
    def view(table_id: str):
        """What the human seat may know now, and its numbered legal moves."""
        return page_view(store.view(table_id))

    @router.post("/tables/{table_id}/act", responses=with_body,
                 openapi_extra={"requestBody": _body_doc(ACT_SCHEMA)})
    async def act(table_id: str, request: Request):
        """Play the human's move for the decision it names; the bots answer; the new view.

        A move for any other decision than the table's (stale, repeated, or
        the second of two sent at once) is refused with 409 and not played."""
        store.get(table_id)  # 404 before a byte of the body is read
        move, decisions = check_move(parse_json(await read_body(request, max_body_bytes)))
        return page_view(await run_in_threadpool(store.act, table_id, move, decisions))

    @router.get("/tables/{table_id}/events", responses=on_table)
    def events(table_id: str, after: EventNumber = -1):
        """Every public event numbered above ``after``: for a page that reloads."""
        after_n = after
        table = store.get(table_id)
        tv = {"game": table.game.name, "events": table.events(after_n),
              "players": [{"seat": s, "human": spec is None} for s, spec in
                          enumerate(table.seating)]}
        return {"table_id": table_id, "instance": store.instance,
                "events": with_texts(tv)["events"]}

    @router.post("/tables/{table_id}/hint", responses=on_create,
                 openapi_extra={"requestBody": _body_doc(HINT_SCHEMA)})
    async def hint(table_id: str, request: Request):
        """The search's suggestion for the person's decision (``{"decisions": N}`` names it):
        the move, why, and every legal move's estimated value and difference to it, each
        with its ``text`` in the player's words (docs/web_table.md)."""
        store.get(table_id)  # 404 before a byte of the body is read
        decisions = check_hint(parse_json(await read_body(request, max_body_bytes)))
        # 429 past searches_per_minute; searched in the store's search processes
        answer = await run_in_threadpool(store.hint, table_id, decisions, clients.of(request))
        display = display_of(store.get(table_id).game.name)
        for move in (answer["move"], *answer["values"]):
            move["text"] = display.in_words(move["label"])
        return answer

    @router.get("/tables/{table_id}/analysis",
                responses={**on_table, 409: err[409], 429: err[429], 503: err[503]})
    async def analysis(table_id: str, request: Request):
        """After the game: each of the person's decisions (forced moves skipped) beside the
        search's best, with the estimated loss and its standard error (docs/web_table.md);
        409 while the game runs.  Computed once per table (seconds: one hint-sized search
        per decision), then kept; 503 while the server already computes ``max_analyses``."""
        store.get(table_id)  # 404 before any work
        answer = await run_in_threadpool(store.analysis, table_id, clients.of(request))
        display = display_of(store.get(table_id).game.name)
        for entry in answer["decisions"]:
            for move in (entry["move"], entry["best"]):
                move["text"] = display.in_words(move["label"])
        return answer

    @router.get("/tables/{table_id}/version", responses=on_table)
    def version(table_id: str):
        """How far the table is (``decisions``, ``events``, ``over``) and the store's
        ``instance``: a cheap answer for a page that polls, to notice a move made elsewhere
        (another tab, a retried request) or a restart."""
        return {**store.get(table_id).version(), "instance": store.instance}

    @router.get("/tables/{table_id}/record", responses={**on_table, 409: err[409]})
    def record(table_id: str):
        """The game record (docs/records.md) - at the end only (409 before: it shows every
        hand)."""
        return store.record(table_id)

    @router.delete("/tables/{table_id}", responses=closing)
    def close(table_id: str):
        """Forget the table now."""
        store.close(table_id)
        return {"closed": table_id}

    def refuse(what: str, allow: str) -> None:
        raise RequestError(f"{what}; the table API: POST /tables, GET /tables/options, "
                          f"GET|DELETE /tables/ID, POST /tables/ID/act, GET /tables/ID/events, "
                          f"POST /tables/ID/hint, GET /tables/ID/analysis, GET /tables/ID/version, "
                          f"GET /tables/ID/record "
                          f"(docs/web_table.md)",
                          405, headers={"Allow": allow})

    # every other method and path below /tables answers in the same shape (never the
    # app's default 404/405 text): a table id is never listed, so GET /tables is refused
    @router.api_route("/tables", methods=["GET", "PUT", "DELETE", "PATCH", "OPTIONS"],
                      include_in_schema=False)
    def tables_other():
        refuse("this method is not allowed on /tables (table ids are never listed)", "POST")

    @router.api_route("/tables/{table_id}", methods=["POST", "PUT", "PATCH", "OPTIONS"],
                      include_in_schema=False)
    def table_other(table_id: str):
        if table_id == "options":  # GET /tables/options, not a table
            refuse("this method is not allowed on /tables/options", "GET")
        refuse("this method is not allowed on a table", "GET, DELETE")

    @router.api_route("/tables/{table_id}/{rest:path}",
                      methods=["GET", "POST", "PUT", "DELETE", "PATCH"], include_in_schema=False)
    def unknown(table_id: str, rest: str):
        # the table id is a capability: never echoed in a message
        raise RequestError(f"no such table endpoint /tables/ID/{rest[:30]}; see "
                          f"docs/web_table.md", 404)

    return router


#: the body of POST /tables/ID/hint: the decision the hint is asked for
HINT_SCHEMA = {"type": "object", "required": ["decisions"], "additionalProperties": False,
               "properties": {"decisions": {"type": "integer", "minimum": 0}}}


def check_hint(body: Any) -> int:
    """The ``decisions`` a hint request names (the view's), or a 422 naming the problem."""
    if not isinstance(body, dict) or set(body) != {"decisions"}:
        raise RequestError('a hint request is {"decisions": N}: the view\'s "decisions", '
                           'the decision the hint is for')
    decisions = body["decisions"]
    if isinstance(decisions, bool) or not isinstance(decisions, int) or decisions < 0:
        raise RequestError('decisions must be the view\'s "decisions" (an integer >= 0)')
    return decisions


def _body_doc(schema: dict) -> dict:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _error_responses() -> dict[int, dict]:
    """Every refusal the table API gives, each ``{"error": "..."}`` (docs/web_table.md)."""
    shape = {"type": "object", "required": ["error"], "additionalProperties": False,
             "properties": {"error": {"type": "string"}}}
    why = {400: "the body is not JSON (empty, not UTF-8, malformed, nested too deep)",
           404: "no such table (expired, or the server restarted)",
           409: "not possible now: a stale or repeated move, the record or the analysis "
                "before the end",
           403: "a page of another origin may not change tables (docs/web_table.md)",
           413: "body over the limit", 415: "the body is not sent as application/json",
           422: "a bad argument or an illegal move, named",
           429: "a per-client limit (live tables, creations or searches per minute); "
                "Retry-After says when to try again",
           500: "a bug: one line, no traceback",
           503: "the server is full (max_tables, max_memory_mb) or busy analysing games "
                "(max_analyses); Retry-After says when"}
    return {code: {"description": text, "content": {"application/json": {"schema": shape}}}
            for code, text in why.items()}


def static_router():
    """The page: ``/`` (index.html) and its files under ``/static/`` - only those listed."""
    from fastapi import APIRouter
    from fastapi.responses import FileResponse

    router = APIRouter(route_class=_error_route_class(), include_in_schema=False)

    def serve(name: str):
        if name not in STATIC_FILES:
            raise RequestError(f"no file {name[:60]!r}; the page is at /", 404)
        path = os.path.join(WEB_DIR, name)
        if not os.path.isfile(path):
            raise RequestError(f"the page's file {name} is missing from this install", 404)
        # no Referer from the page: its address may carry the table id (#table=ID)
        return FileResponse(path, media_type=STATIC_FILES[name],
                            headers={"Cache-Control": "no-cache",
                                     "Referrer-Policy": "no-referrer"})

    @router.get("/")
    def index():
        return serve("index.html")

    @router.get("/static/{name:path}")
    def static(name: str):
        return serve(name)

    return router


def mount_web_table(app: Any, store: TableStore | None = None, **router_args: Any) -> TableStore:
    """Join the table API and the page to ``app``; the store (a new one unless given)."""
    store = store if store is not None else TableStore()
    app.include_router(table_router(store, **router_args))
    app.include_router(static_router())
    app.state.table_store = store
    return store


#: what a page shows when the server does not know its table
GONE = NOT_FOUND
