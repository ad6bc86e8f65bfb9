"""Who may call the server: the Host, Origin and Content-Type checks, before any route runs.

A server on localhost is reachable by every web page the user opens: a
foreign page can send it requests (a CORS "simple" POST is sent without
asking), and a DNS-rebinding page - its own name pointed at 127.0.0.1 -
can even read the answers.  Three checks close that, as Jupyter's do:

- **Host** (when the server has an allow-list: ``stichzoo serve`` always
  does): the ``Host`` header must be an IP address (a rebinding page cannot
  send one: its Host is its own name), ``localhost`` with the server's port,
  or a name from ``--allowed-host``; else 403 (400 when there is no Host).
- **Origin**: a request that changes a table (POST, DELETE... below
  ``/tables``) from a page whose origin is neither the server's own nor one
  of ``--cors-origin`` is refused with 403 before it changes anything.  (The
  bot API changes nothing, and a foreign page cannot read its answers.)
- **Content-Type**: a body (of any method) must be sent as
  ``application/json`` (415): the
  types a browser sends without asking (``text/plain``, forms) never reach
  a route.

A bug below (an exception) is answered here as a 500 in the same shape -
inside CORS, so an allowed page can read it, and without dropping the
keep-alive connection.  Every refusal is the one error shape
(:func:`~stichzoo.policies.serve.answers.error_answer`).
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Iterable

from stichzoo.policies.serve.answers import error_answer

__all__ = ["Guard", "host_allowed", "served_hosts"]

log = logging.getLogger("stichzoo.serve")

#: the methods that send a body or change something
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: the paths whose changes a foreign page may not make
GUARDED_PREFIX = "/tables"


def _split_host(host: str) -> tuple[str, str | None]:
    """``"name:port"`` / ``"[::1]:port"`` -> (name, port or None); the name lower-case."""
    host = host.strip().lower()
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        return name, rest[1:] if rest.startswith(":") else None
    name, sep, port = host.rpartition(":")
    if not sep or ":" in name:  # no port, or a bare IPv6 address
        return host.rstrip("."), None
    return name.rstrip("."), port


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_allowed(host: str, allowed: Iterable[str]) -> bool:
    """Whether a ``Host`` header names this server: an IP address, or an allowed name.

    An entry ``"name:port"`` allows that name with that port only; ``"name"``
    allows it with any port.
    """
    name, port = _split_host(host)
    if not name:
        return False
    if _is_ip(name):
        return True
    for entry in allowed:
        entry_name, entry_port = _split_host(entry)
        if name == entry_name and (entry_port is None or (port or "80") == entry_port):
            return True
    return False


def served_hosts(host: str, port: int, extra: Iterable[str] = ()) -> list[str]:
    """The Host allow-list of a server bound to ``host:port``: localhost with the port, the
    bound name (when it is a name), and the ``extra`` names (``--allowed-host``)."""
    suffix = f":{port}" if port else ""
    names = [f"localhost{suffix}"]
    if host and not _is_ip(host.strip("[]")) and host.lower() != "localhost":
        names.append(f"{host.lower()}{suffix}")
    for name in extra:
        if not name or any(c in name for c in "/ @?#"):
            raise ValueError(f"--allowed-host {name!r}: use a host name, optionally with "
                             f":port (e.g. cards.example.org)")
        names.append(name.lower())
    return names


class Guard:
    """ASGI middleware: the Host, Origin and Content-Type checks (see the module's text).

    ``hosts``: the Host allow-list (None: no Host check, for an app behind its
    own proxy or in tests); ``origins``: the CORS origins (``"*"``: any).
    """

    def __init__(self, app, *, hosts: Iterable[str] | None, origins: Iterable[str]):
        self.app = app
        self.hosts = None if hosts is None else tuple(hosts)
        self.origins = {o.lower().rstrip("/") for o in origins}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is not None:
            await error_answer(*refusal)(scope, receive, send)
            return
        started = False

        async def sending(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as e:  # a bug: answered here, inside CORS, the connection kept
            if started:
                raise
            log.exception("stichzoo serve: internal error")
            await error_answer(500, f"internal error ({type(e).__name__})")(
                scope, receive, send)

    def refusal(self, scope) -> tuple[int, str] | None:
        """(status, message) of the first check ``scope`` fails; None when it passes all."""
        headers = {}
        for key, value in scope.get("headers", ()):
            headers.setdefault(key.decode("latin-1").lower(), value.decode("latin-1"))
        host = headers.get("host", "")
        if self.hosts is not None:
            if not host.strip():
                return 400, "the request names no server (no Host header)"
            if not host_allowed(host, self.hosts):
                return 403, (f"this server does not answer to the host {host[:60]!r}: use "
                             f"its IP address or localhost, or start it with "
                             f"--allowed-host NAME (a DNS-rebinding defence; docs/bots.md)")
        method = scope.get("method", "GET")
        origin = headers.get("origin")
        if origin is not None and method in UNSAFE \
                and scope.get("path", "").startswith(GUARDED_PREFIX) \
                and not self.origin_allowed(origin, scope.get("scheme", "http"), host):
            return 403, (f"a page from {origin[:60]!r} may not change tables here: only this "
                         f"server's own page and the origins of --cors-origin may "
                         f"(docs/web_table.md)")
        has_body = headers.get("content-length", "0").strip() not in ("0", "") \
            or "transfer-encoding" in headers
        if has_body:
            kind = headers.get("content-type", "").split(";", 1)[0].strip().lower()
            if kind != "application/json":
                got = f"got {kind[:40]!r}" if kind else "it has none"
                return 415, (f"send the body as JSON with the header Content-Type: "
                             f"application/json ({got})")
        return None

    def origin_allowed(self, origin: str, scheme: str, host: str) -> bool:
        origin = origin.strip().lower().rstrip("/")
        if "*" in self.origins or origin in self.origins:
            return True
        return bool(host) and origin == f"{scheme}://{host.strip().lower()}"
