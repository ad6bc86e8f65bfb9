"""Named pieces of one flat float32 observation vector.

Each game lists what one seat may know as pieces (name, size, bounds); the
layout turns that into offsets, the Box bounds of the observation space and
a description for docs and exported-bot manifests.  Encoders write into
named views of one buffer, so the order of pieces is stated once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Piece:
    name: str
    size: int
    low: float = 0.0
    high: float = 1.0
    doc: str = ""


_BOUNDS: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _bounds(pieces: tuple[Piece, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Low/high arrays of a piece list, shared (read-only) by every layout with those pieces.

    Thousands of live envs of one game share one layout's bounds instead of
    each holding its own copies (the largest part of an env's memory).
    """
    if pieces not in _BOUNDS:
        low = np.concatenate([np.full(p.size, p.low, np.float32) for p in pieces])
        high = np.concatenate([np.full(p.size, p.high, np.float32) for p in pieces])
        low.flags.writeable = False
        high.flags.writeable = False
        _BOUNDS[pieces] = (low, high)
    return _BOUNDS[pieces]


class Layout:
    def __init__(self, pieces: list[Piece]):
        self.pieces = tuple(pieces)
        self.offsets: dict[str, int] = {}
        off = 0
        for p in self.pieces:
            if p.name in self.offsets:
                raise ValueError(f"duplicate observation piece {p.name!r}")
            self.offsets[p.name] = off
            off += p.size
        self.size = off
        self.low, self.high = _bounds(self.pieces)

    def slice(self, name: str) -> slice:
        off = self.offsets[name]
        return slice(off, off + self.piece(name).size)

    def piece(self, name: str) -> Piece:
        for p in self.pieces:
            if p.name == name:
                return p
        raise KeyError(name)

    def views(self, buffer: np.ndarray) -> dict[str, np.ndarray]:
        """Writable views into ``buffer``, one per piece."""
        return {p.name: buffer[self.offsets[p.name] : self.offsets[p.name] + p.size]
                for p in self.pieces}

    def split(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        return self.views(vector)

    def describe(self) -> list[dict]:
        return [
            {"name": p.name, "offset": self.offsets[p.name], "size": p.size,
             "low": p.low, "high": p.high, "doc": p.doc}
            for p in self.pieces
        ]

    def markdown(self) -> str:
        rows = ["| piece | offset | size | meaning |", "|---|---:|---:|---|"]
        rows += [f"| `{p.name}` | {self.offsets[p.name]} | {p.size} | {p.doc} |"
                 for p in self.pieces]
        return "\n".join(rows)


def mask_bits_into(out: np.ndarray, mask: int) -> None:
    """Write the bits of an int bitmask into ``out`` (0/1), lowest bit first."""
    n = out.shape[0]
    raw = np.frombuffer(mask.to_bytes((n + 7) // 8, "little"), dtype=np.uint8)
    out[:] = np.unpackbits(raw, bitorder="little", count=n)


def put_bits(out: np.ndarray, base: int, mask: int) -> None:
    """Set ``out[base + c] = 1`` for every bit ``c`` of ``mask`` (sparse, fast)."""
    while mask:
        low = mask & -mask
        out[base + low.bit_length() - 1] = 1.0
        mask ^= low


def put_hands_and_turn(out: np.ndarray, offsets: dict[str, int], hands: Sequence[int],
                       cards: int, current_player: int) -> None:
    """The global state's pieces every game has: each seat's hand as bits (``all_hands``,
    ``cards`` bits a seat) and a one-hot of the seat to act (``to_act``; none once the game
    is over) - written once here, as the centralized critic reads them alike in all five."""
    for seat, hand in enumerate(hands):
        put_bits(out, offsets["all_hands"] + seat * cards, hand)
    if current_player >= 0:
        out[offsets["to_act"] + current_player] = 1.0
