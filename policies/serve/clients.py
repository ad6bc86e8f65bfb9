"""Who a request comes from, for the per-client limits: the peer, or behind a trusted proxy
the address the proxy forwards.

Behind a reverse proxy every person's connection comes from the proxy, so
the per-client limits (live tables, creations per minute) would count the
whole world as one client.  A proxy says whom it serves in ``Forwarded``
(RFC 7239, ``for=``) or ``X-Forwarded-For``; but anyone can send those
headers, so they are read only when the connection itself comes from an
address the operator named trusted (``stichzoo serve --trusted-proxy``),
never otherwise.  Of a chain of addresses (``client, proxy1, proxy2``) the
rightmost one that is not itself a trusted proxy is the client: what lies
to its left the client could have written.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from typing import Any

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks(specs: Iterable[str]) -> tuple[Network, ...]:
    """Addresses and networks (``10.0.0.1``, ``10.0.0.0/8``, ``::1``), comma lists allowed;
    a word that is neither is refused by name."""
    nets = []
    for spec in specs:
        for word in str(spec).split(","):
            word = word.strip()
            if not word:
                continue
            try:
                nets.append(ipaddress.ip_network(word, strict=False))
            except ValueError:
                raise ValueError(f"trusted proxy {word!r} is no IP address or network "
                                 f"(e.g. 10.0.0.1, 10.0.0.0/8, ::1)") from None
    return tuple(nets)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An address from a header element (``1.2.3.4``, ``1.2.3.4:80``, ``"[::1]:80"``)."""
    text = text.strip().strip('"')
    if text.startswith("["):  # [v6]:port
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None  # "unknown", an obfuscated name, garbage


def forwarded_chain(headers: Mapping[str, str]) -> list[str]:
    """The addresses the proxies name, client first: ``Forwarded``'s ``for=`` elements,
    else ``X-Forwarded-For``'s list (an element that is no address ends the chain there)."""
    chain: list[str] = []
    forwarded = headers.get("forwarded")
    if forwarded:
        for element in forwarded.split(","):
            for pair in element.split(";"):
                key, _, value = pair.partition("=")
                if key.strip().lower() == "for":
                    chain.append(value)
    elif headers.get("x-forwarded-for"):
        chain = headers["x-forwarded-for"].split(",")
    return chain


class ClientAddress:
    """The client of a request: ``of(request)`` (see the module docstring)."""

    def __init__(self, trusted: Iterable[str] = ()):
        self.trusted = trusted_networks(trusted)

    def _is_trusted(self, address: Any) -> bool:
        return address is not None and any(address in net for net in self.trusted)

    def of(self, request: Any) -> str | None:
        peer = request.client.host if request.client else None
        if not self.trusted or not self._is_trusted(_address(peer or "")):
            return peer  # headers from an untrusted connection are anyone's words
        client = peer
        for element in reversed(forwarded_chain(request.headers)):
            address = _address(element)
            if address is None:
                break  # not an address: nothing to its left can be believed either
            client = str(address)
            if not self._is_trusted(address):
                break  # the first address no trusted proxy vouches for: the client
        return client


__all__ = ["ClientAddress", "forwarded_chain", "trusted_networks"]
