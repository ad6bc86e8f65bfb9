"""The bot server over JSON lines: one request per line on stdin, one answer per line out.

    stichzoo serve --bots policies/bots --stdio

    {"id": 7, "bot": "wizard", "view": {...}, "sample": false, "seed": 0}
    -> {"id": 7, "bot": "wizard", "seat": 2, "action": "R7", ...}
    {"id": 8, "bot": "wizard-pimc", "view": {...}, "hint": true}
    -> {"id": 8, ..., "action": "R7", ..., "why": "the best value", "values": [...]}

A bad line gets an error line (``{"id", "error", "status"}``, the status as
HTTP would send it) and the next line is read; the lines are checked as the
HTTP bodies are (:mod:`stichzoo.policies.serve.requests`).
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from stichzoo.policies.serve.answers import hide_folder, without_paths
from stichzoo.policies.serve.levels import DEFAULT_LEVELS
from stichzoo.policies.serve.registry import BotRegistry
from stichzoo.policies.serve.requests import (
    DEFAULT_MAX_BODY_BYTES,
    RequestError,
    check_bot_line,
    check_sample,
    parse_json,
    peek_id,
)

__all__ = ["serve_stdio"]

log = logging.getLogger("stichzoo.serve")


def _answer_line(registry: BotRegistry, line: str | bytes) -> dict:
    """One request line -> its answer object (an answer or an error; never an exception)."""
    request_id = None
    try:
        try:
            request = parse_json(line)
        except RequestError as e:
            if e.status == 422:  # valid JSON with a number out of range: echo the id anyway
                request_id = peek_id(line)
            raise
        if isinstance(request, dict):
            request_id = request.get("id")
        check_bot_line(request)
        if request.get("hint", False):
            check_sample(request.get("sample", False))
            answer = registry.hint(request["bot"], request["view"], seed=request.get("seed"))
        else:
            answer = registry.act(request["bot"], request["view"],
                                  sample=request.get("sample", False), seed=request.get("seed"))
        return {"id": request_id, **answer}
    except RequestError as e:
        return {"id": request_id, "error": without_paths(str(e)), "status": e.status}
    except Exception as e:  # a bug: report it on this line and go on serving
        log.exception("stichzoo serve: internal error on a request line")
        return {"id": request_id, "error": f"internal error ({type(e).__name__})", "status": 500}


def _dump(out: dict) -> str:
    """One answer as a JSON line; never NaN (not JSON), never an exception."""
    try:
        return json.dumps(out, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as e:
        request_id = out.get("id")
        try:
            json.dumps(request_id, allow_nan=False)
        except (TypeError, ValueError, RecursionError):
            request_id = None
        return json.dumps({"id": request_id, "error": f"the answer is not JSON ({e})",
                           "status": 500})


_TOO_LONG = object()


def _lines(stream, limit: int) -> Iterator[Any]:
    """Lines of ``stream`` (text or bytes); a line over ``limit`` is skipped, yielding _TOO_LONG."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) <= limit or line.endswith(b"\n" if isinstance(line, bytes) else "\n"):
            yield line
            continue
        rest = line
        while rest and not rest.endswith(b"\n" if isinstance(rest, bytes) else "\n"):
            rest = stream.readline(1 << 16)
        yield _TOO_LONG


def serve_stdio(root: str, stdin: TextIO | None = None, stdout: TextIO | None = None, *,
                levels: Iterable[str] = DEFAULT_LEVELS,
                max_line_bytes: int = DEFAULT_MAX_BODY_BYTES,
                registry: BotRegistry | None = None) -> int:
    """JSON lines: ``{"bot": name, "view": {...}, "id": any}`` in, one answer line out.

    A bad line gets an error line (``{"id", "error", "status"}``, the id
    echoed whenever the line parsed as an object) and the next line is read;
    the process ends only at the end of input.
    """
    hide_folder(root)
    registry = registry or BotRegistry(root, tuple(levels))
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    stream = getattr(stdin, "buffer", stdin)  # bytes where possible: bad UTF-8 is one bad line
    for line in _lines(stream, max_line_bytes):
        if line is _TOO_LONG:
            out = {"id": None, "error": f"the line is longer than {max_line_bytes} bytes",
                   "status": 413}
        elif not line.strip():
            continue
        else:
            out = _answer_line(registry, line)
        try:
            stdout.write(_dump(out) + "\n")
            stdout.flush()
        except BrokenPipeError:  # the reader is gone: nobody left to answer
            return 0
    return 0
