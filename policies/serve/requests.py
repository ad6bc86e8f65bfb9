"""Reading and checking request bodies: one place for every endpoint of the server.

The bot protocol (``POST /bots/{name}/act`` and ``/hint``, JSON lines) and the table API
(``POST /tables``, ``POST /tables/{id}/act``) read their bodies here, so a
body is refused the same way - with the same status and message - wherever
it is sent:

- 413: a body over the limit, refused before a byte is read when its
  Content-Length says so, else as soon as the streamed bytes pass it;
- 400: a body that is not JSON at all - empty, not UTF-8, bad syntax,
  ``NaN``/``Infinity``, nested too deep for the parser, a bad Content-Length;
- 422: JSON that parses but is not what the endpoint takes (a number out of
  range, an unknown key, a wrong type), each message naming the key.

Every refusal is a :class:`RequestError` carrying the status; the
transports only translate it into ``{"error": message}`` (or an error line).
Messages quote what was sent, cut short: they never echo a body.
"""

from __future__ import annotations

import json
import math
from typing import Any

from stichzoo.envs.registry import GAMES

#: the largest request body (HTTP) or line (stdio) of the bot protocol; a view is 1-10 KB
DEFAULT_MAX_BODY_BYTES = 1 << 20
#: the largest request body of the table API: a create or a move is well under 1 KB
DEFAULT_TABLE_BODY_BYTES = 16 * 1024
#: seeds of the bot protocol: integers 0..2**63-1 (any int64 >= 0 a JavaScript BigInt or a
#: JSON number can carry)
MAX_SEED = 2**63 - 1
#: seeds of the table API go to a browser, whose numbers are exact only up to 2**53 - 1
MAX_TABLE_SEED = 2**53 - 1
#: Python refuses to convert longer integer strings (sys.get_int_max_str_digits)
MAX_INT_DIGITS = 4300
#: the keys of one JSON-lines request
STDIO_KEYS = ("id", "bot", "view", "sample", "seed", "hint")
#: the keys of a new table (``POST /tables``)
CREATE_KEYS = ("game", "players", "options", "opponents", "seat", "seed")


class RequestError(ValueError):
    """A request refused; ``status`` is the HTTP status to send, ``headers`` any to add."""

    def __init__(self, message: str, status: int = 422, headers: dict | None = None):
        super().__init__(message)
        self.status = status
        self.headers = headers


def quote(value: Any, limit: int = 40) -> str:
    """A value as JSON for a message, cut short: messages quote, they do not echo bodies."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- the bytes -----------------------------------------------------------------------


async def read_body(request: Any, limit: int) -> bytes:
    """The body, refused with 413 as soon as it is known to be over ``limit`` bytes.

    A declared Content-Length over the limit is refused before a byte is
    read; a chunked body is counted as it streams in.
    """
    from starlette.requests import ClientDisconnect

    declared = request.headers.get("content-length")
    if declared is not None:
        if not (declared.isascii() and declared.isdigit()):
            raise RequestError(f"Content-Length {declared[:30]!r} is not a number", status=400)
        if int(declared) > limit:
            raise RequestError(f"the body is {int(declared)} bytes; the limit is {limit}",
                               status=413)
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise RequestError(f"the body is over the limit of {limit} bytes", status=413)
            chunks.append(chunk)
    except ClientDisconnect:
        raise RequestError("the client went away before the body was complete",
                           status=400) from None
    return b"".join(chunks)


# -- the JSON ------------------------------------------------------------------------


def _no_constant(name: str):
    raise json.JSONDecodeError(f"{name} is not JSON", name, 0)


def parse_json(raw: bytes | str) -> Any:
    """A JSON body as Python values; every way it can fail is a RequestError (400 or 422).

    Refused: an empty body, bytes that are not UTF-8, bad syntax,
    ``NaN``/``Infinity`` (not JSON), nesting too deep for the parser (400);
    an integer of more digits than Python converts (4,300: 422).  What
    parses - ``1e400`` (inf), ``10**400``, nesting 900 deep - reaches the
    endpoint's checks, which refuse it by key (422).  No per-number hook: a
    body near the size limit parses at C speed, so a heavy client does not
    hold the interpreter for long.
    """
    try:
        text = raw.decode("utf-8") if isinstance(raw, (bytes, bytearray)) else raw
    except UnicodeDecodeError as e:
        raise RequestError(f"malformed JSON: the body is not UTF-8 ({e.reason} at byte "
                           f"{e.start})", status=400) from None
    if not text.strip():
        raise RequestError("malformed JSON: the body is empty; send a JSON object", status=400)
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except RecursionError:  # json's own guard: nesting past the interpreter's recursion limit
        raise RequestError("malformed JSON: nested too deeply", status=400) from None
    except json.JSONDecodeError as e:
        raise RequestError(f"malformed JSON: {e}", status=400) from None
    except ValueError as e:  # int(): "Exceeds the limit (4300 digits) for integer string ..."
        raise RequestError(f"a number in the body is out of range "
                           f"({' '.join(str(e).split())})") from None
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


# -- the bot protocol ----------------------------------------------------------------


def check_sample(value: Any, where: str = "sample") -> bool:
    """``sample`` must be a real boolean: ``"false"`` or ``0`` is refused, never read as true."""
    if not isinstance(value, bool):
        raise RequestError(f"{where} must be true or false, got {quote(value)}")
    return value


def check_seed(value: Any, where: str = "seed") -> int:
    """A seed is an integer 0..2**63-1 (not a bool, not 1.5); omitted (None) means 0."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
        raise RequestError(f"{where} must be an integer in 0..{MAX_SEED} (2**63-1), got "
                           f"{quote(value)}")
    return value


def check_bot_line(request: Any) -> dict:
    """A JSON-lines request: ``{"bot": NAME, "view": {...}}`` with optional id, sample, seed
    and hint (true: the search's values too, as ``POST /bots/{name}/hint``)."""
    if not isinstance(request, dict) or "bot" not in request or "view" not in request:
        raise RequestError('a request is {"bot": NAME, "view": {...}} (optional "id", '
                           '"sample", "seed", "hint")', status=400)
    unknown = sorted(set(request) - set(STDIO_KEYS))
    if unknown:
        raise RequestError(f"unknown key(s) {', '.join(map(repr, unknown))}; a request has "
                           f"{', '.join(STDIO_KEYS)}", status=400)
    if not isinstance(request["bot"], str):
        raise RequestError(f"bot must be a string (a bot's name), got "
                           f"{type(request['bot']).__name__}", status=400)
    check_sample(request.get("hint", False), "hint")
    return request


# -- the table API -------------------------------------------------------------------


def _int(value: Any, what: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise RequestError(f"{what} must be an integer in {lo}..{hi}, not {quote(value, 60)}")
    return value


def create_arguments(body: Any, choices: dict) -> tuple[str, dict]:
    """The game and the table's arguments of a create request, checked.

    Only the listed keys are read (never ``deck_orders``: the server deals),
    every value is type-checked here, and the opponents must be among the
    game's ``choices`` (``GET /tables/options``): each refusal a 422 naming
    the key (400 is for bodies that are not JSON at all, as in the bot
    protocol).
    """
    if not isinstance(body, dict):
        raise RequestError(f"a new table is a JSON object with keys {', '.join(CREATE_KEYS)}; "
                           f"got {type(body).__name__ if body is not None else 'null'}")
    unknown = sorted(set(body) - set(CREATE_KEYS))
    if unknown:
        raise RequestError(f"unknown key(s) {', '.join(map(repr, unknown))}; a new table has "
                           f"{', '.join(CREATE_KEYS)}")
    game = body.get("game")
    if not isinstance(game, str):
        raise RequestError(f"game must be a game's name (string), not {quote(game, 60)}; "
                           f"games: {', '.join(choices)}")
    if game not in choices:
        raise RequestError(f"unknown game {game!r}; games: {', '.join(choices)}")
    kwargs: dict[str, Any] = {}
    if body.get("players") is not None:
        kwargs["num_players"] = _int(body["players"], "players", 1, 64)
    options = body.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RequestError(f"options must be an object of game options, not "
                           f"{quote(options, 60)}")
    kwargs["options"] = options
    opponents = body.get("opponents", ["heuristic"])
    if isinstance(opponents, str):
        opponents = [opponents]
    if not isinstance(opponents, list) or not opponents \
            or not all(isinstance(s, str) for s in opponents):
        raise RequestError(f"opponents must be a non-empty list of opponent names, not "
                           f"{quote(opponents, 60)}")
    allowed = [o["spec"] for o in choices[game]["opponents"]]
    for spec in opponents:
        if spec not in allowed:
            raise RequestError(f"unknown opponent {spec[:60]!r} for {game}; choose from "
                               f"{', '.join(allowed)}")
    kwargs["opponents"] = opponents
    if body.get("seat") is not None:
        kwargs["human_seat"] = _int(body["seat"], "seat", 0, 63)
    if body.get("seed") is not None:
        kwargs["seed"] = _int(body["seed"], "seed", 0, MAX_TABLE_SEED)
    return game, kwargs


#: the keys of a move (``POST /tables/{id}/act``)
MOVE_KEYS = ("move", "decisions")
#: how a move is sent, for the messages that refuse one
MOVE_FORM = ('{"move": ACTION_ID or "LABEL", "decisions": N} - a move from the view\'s '
             '"moves", and N the view\'s "decisions" (the decision the move answers)')


def check_move(body: Any) -> tuple[Any, int]:
    """The move of ``POST /tables/{id}/act`` and the decision it answers.

    ``{"move": ACTION_ID or "LABEL", "decisions": N}``: ``decisions`` is the
    view's ``decisions`` the move was chosen from; the table refuses a move for
    any other decision (409), so a repeated or stale move is never played.  A
    move without it is refused here (422), with the form to send.
    """
    if not isinstance(body, dict) or "move" not in body:
        raise RequestError(f"a move is {MOVE_FORM}")
    unknown = sorted(set(body) - set(MOVE_KEYS))
    if unknown:
        raise RequestError(f"unknown key(s) {', '.join(map(repr, unknown))}; a move is "
                           f"{MOVE_FORM}")
    if "decisions" not in body:
        raise RequestError(f"a move must name the decision it answers, so that it is played "
                           f"once: send {MOVE_FORM}")
    decisions = body["decisions"]
    if isinstance(decisions, bool) or not isinstance(decisions, int) \
            or not 0 <= decisions <= MAX_TABLE_SEED:
        raise RequestError(f"decisions must be the view's \"decisions\" (an integer >= 0), "
                           f"not {quote(decisions, 60)}")
    move = body["move"]
    if isinstance(move, bool) or not isinstance(move, (int, str)):
        raise RequestError(f"move must be an action id (integer) or a label (string), not "
                           f"{quote(move, 60)}")
    if isinstance(move, str) and len(move) > 100:
        raise RequestError("move is a label such as 'R7' or 'bid 2'; this one is over 100 "
                           "characters")
    return move, decisions


def check_event_number(after: Any) -> int:
    """``after`` of ``GET /tables/{id}/events``: an event number (query text)."""
    if isinstance(after, int) and not isinstance(after, bool):
        return after
    digits = after.lstrip("-") if isinstance(after, str) else ""
    if not (digits.isascii() and digits.isdigit() and len(after) <= 12):
        raise RequestError(f"after must be an event number (integer), not {quote(after)}")
    return int(after)


#: the table API's request bodies, for the OpenAPI document (the checks themselves are
#: create_arguments and check_move, which name every problem)
CREATE_SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["game"],
    "properties": {
        "game": {"type": "string", "enum": list(GAMES)},
        "players": {"type": ["integer", "null"], "minimum": 1, "maximum": 64,
                    "description": "seats at the table"},
        "options": {"type": ["object", "null"], "description": "game options, as in eval"},
        "opponents": {"oneOf": [
            {"type": "array", "minItems": 1, "items": {"type": "string"}},
            {"type": "string"}],
            "description": "policy specs from GET /tables/options (one name: every seat)"},
        "seat": {"type": ["integer", "null"], "minimum": 0, "maximum": 63,
                 "description": "the human's seat"},
        "seed": {"type": ["integer", "null"], "minimum": 0, "maximum": MAX_TABLE_SEED,
                 "description": "0..2**53-1"},
    },
}
ACT_SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["move", "decisions"],
    "properties": {"move": {"type": ["integer", "string"], "maxLength": 100,
                            "description": "a legal move's action id or label"},
                   "decisions": {"type": "integer", "minimum": 0, "maximum": MAX_TABLE_SEED,
                                 "description": "the view's decisions: the decision the "
                                                "move answers (409 when the table is past "
                                                "it)"}},
}
