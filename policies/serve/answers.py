"""How the server writes a JSON answer: ASCII only, so that no client string can break it.

An error message quotes what the client sent; a lone surrogate (``"\\udcff"``)
or a control character in it must not turn the answer into a 500 (the
framework's own JSON answer encodes as UTF-8, which a lone surrogate cannot
be).  Every answer - error or not, of the bot API and of the table API - is
written here: ``\\uXXXX`` escapes for everything outside printable ASCII.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

__all__ = ["AsciiJSONResponse", "error_answer", "hide_folder", "without_paths"]

#: server folders no message may show (the install, the working folder, home, the bot
#: folder...): a message names a file by its place below them, never by its full path
_FOLDERS: set[str] = {os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      os.getcwd(), sys.prefix, os.path.expanduser("~")}


def hide_folder(path: str) -> None:
    """Never show ``path`` (e.g. the served bot folder) in a message."""
    _FOLDERS.add(os.path.abspath(path))


def without_paths(message: str) -> str:
    """``message`` with every server folder it names written ``<server>``."""
    for folder in sorted(_FOLDERS, key=len, reverse=True):
        if len(folder) > 1:
            message = message.replace(folder, "<server>")
    return message


def _response_class():
    from starlette.responses import JSONResponse

    class AsciiJSONResponse(JSONResponse):
        """A JSON answer in ASCII: escapes, never raw non-ASCII (nor NaN: not JSON)."""

        def render(self, content: Any) -> bytes:
            return json.dumps(content, ensure_ascii=True, allow_nan=False,
                              separators=(",", ":")).encode("ascii")

    return AsciiJSONResponse


try:  # starlette is a serve extra: the module imports without it (the class then is None)
    AsciiJSONResponse = _response_class()
except ImportError:  # pragma: no cover - serve extra not installed
    AsciiJSONResponse = None


def error_answer(status: int, message: str, headers: dict | None = None):
    """The one error shape, ``{"error": message}``; a 413 also closes the connection."""
    headers = {**({"Connection": "close"} if status == 413 else {}), **(headers or {})}
    return AsciiJSONResponse(status_code=status, content={"error": without_paths(message)},
                             headers=headers or None)
