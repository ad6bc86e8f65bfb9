"""Small numpy helpers for encoding many states at once (``encode_many``).

A batched encoder spends its time moving Python ints into numpy: per
element ~18 ns through ``np.fromiter`` (~22 through ``np.array``) but ~4 ns
through ``bytearray`` (values 0..255 only; a ``bool`` among them halves
that speed for the whole list).  So the recipe every ``encode_many``
follows is:

1. one Python loop over the states that only appends to flat lists with
   ``+=``: small non-negative ints (shifted by a constant where a field may
   be -1/-2, trick cards padded with :data:`PAD` via :func:`trick_pads`)
   for :func:`small_ints`; bitmasks and large or negative ints for one
   ``np.fromiter(..., np.int64)`` (masks below 2**63 fit);
2. every one-hot column looked up in a lookup built once per layout -
   indexed by observer seat, field and value (:func:`seat_trick_columns`,
   :func:`seat_bit_columns`), so relative seats cost no per-row arithmetic
   - and all of them set by a single flat scatter ``out.flat[idx] = 1``;
   absent one-hots point at a "dump" column that a dense piece (the hand)
   overwrites afterwards, so nothing needs masking;
3. dense pieces (bit rows via :func:`unpack_u64`, scaled scores) written by
   slice assignment, work arrays reused through :class:`Scratch`.

Shared by every game's encoder; none of it knows a game.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

_U64 = np.dtype("<u8")


class Scratch:
    """Work arrays an encoder reuses from batch to batch, per thread and batch size.

    Why: a fresh array of a few hundred KB comes from ``mmap`` and
    page-faults on first touch, which cost ~0.4 us per row at N = 1024 -
    as much as several whole numpy passes.  A batched engine calls with
    the same N again and again, so its buffers are made once.  Keyed by
    thread as well, so two threads encoding with one encoder never share
    a buffer; a few sizes are kept (the dict is cleared beyond that).
    """

    __slots__ = ("_bufs",)

    def __init__(self) -> None:
        self._bufs: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}

    def arrays(self, rows: int, specs: Sequence[tuple[tuple[int, ...], type]]
               ) -> tuple[np.ndarray, ...]:
        """Arrays of shapes ``(rows, *shape)`` and dtypes ``specs`` (contents undefined)."""
        key = (threading.get_ident(), rows)
        got = self._bufs.get(key)
        if got is None:
            if len(self._bufs) >= 16:
                self._bufs.clear()
            got = tuple(np.empty((rows, *shape), dtype) for shape, dtype in specs)
            self._bufs[key] = got
        return got


def check_batch_out(out: object, rows: int, size: int) -> np.ndarray:
    """Refuse an ``out`` that ``encode_many`` could not fill in place.

    It must be a writeable, C-contiguous float32 array of shape
    ``(rows, size)``: the encoders write through a flat view of it, so a
    strided or converted copy would silently leave the caller's array
    untouched.
    """
    if not isinstance(out, np.ndarray):
        raise ValueError(f"out must be a numpy array, not {type(out).__name__}")
    if out.dtype != np.float32:
        raise ValueError(f"out must be float32, not {out.dtype}")
    if out.shape != (rows, size):
        raise ValueError(f"out must have shape {(rows, size)}, not {out.shape}")
    if not out.flags.c_contiguous:
        raise ValueError("out must be C-contiguous")
    if not out.flags.writeable:
        raise ValueError("out must be writeable")
    return out


def check_batch_args(out: object, states, seats, size: int) -> list[int]:
    """Every ``encode_many``'s argument checks: ``out`` as :func:`check_batch_out` wants
    it and one seat per state; the seats as a plain list (fast to iterate)."""
    rows = len(states)
    check_batch_out(out, rows, size)
    if len(seats) != rows:
        raise ValueError(f"{rows} states but {len(seats)} seats")
    return seats.tolist() if isinstance(seats, np.ndarray) else list(seats)


def small_ints(values: list[int], cols: int, out: np.ndarray | None = None) -> np.ndarray:
    """A flat list of ints 0..255, ``cols`` per row, as an ``(rows, cols)`` intp array.

    ``bytearray`` converts a list of small ints about five times faster
    than ``np.array``; callers shift fields that may be negative (-1, -2
    markers) by a constant when they gather them.  A value outside 0..255
    raises ValueError.  ``out``: an intp array of that shape to fill (see
    :class:`Scratch`) instead of a new one.
    """
    try:
        raw = np.frombuffer(bytearray(values), dtype=np.uint8).reshape(-1, cols)
    except ValueError:  # bytearray's own message names no cause
        raise ValueError("small_ints: a value outside 0..255 (a negative seat, or a state "
                         "field the encoder does not expect)") from None
    if out is None:
        return raw.astype(np.intp)
    np.copyto(out, raw)
    return out


def u64_rows(masks: Sequence[int], cols: int = 1) -> np.ndarray:
    """Bitmasks below 2**64 (a flat list, ``cols`` per row) as a ``(rows, cols)`` uint64 array.

    ``np.fromiter`` with a count is the quickest route from a list of
    Python ints (about 20% faster than ``np.array``).
    """
    return np.fromiter(masks, dtype=_U64, count=len(masks)).reshape(-1, cols)


def unpack_u64(masks: np.ndarray, nbits: int) -> np.ndarray:
    """Bits of a uint64 array: shape ``masks.shape + (nbits,)``, uint8 0/1, lowest bit first.

    Bit ``c`` of ``masks[..., j]`` lands at ``[..., j, c]``, the order
    :func:`stichzoo.envs.core.observation.put_bits` writes a single mask in.
    """
    if nbits > 64:
        raise ValueError(f"unpack_u64 handles at most 64 bits, not {nbits}")
    m = np.ascontiguousarray(masks, dtype=_U64)
    raw = m.view(np.uint8).reshape(*m.shape, 8)
    return np.unpackbits(raw, axis=-1, count=nbits, bitorder="little")


def bit_rows(masks: Sequence[int], nbits: int) -> np.ndarray:
    """``(len(masks), nbits)`` uint8 0/1 array: row ``i`` holds the bits of ``masks[i]``.

    Masks of up to 64 bits go through one uint64 conversion; wider ones
    through their little-endian bytes (slower, but any width).
    """
    if nbits <= 64:
        return unpack_u64(u64_rows(masks), nbits)[:, 0]
    nbytes = (nbits + 7) // 8
    raw = np.frombuffer(b"".join(m.to_bytes(nbytes, "little") for m in masks), dtype=np.uint8)
    return np.unpackbits(raw.reshape(len(masks), nbytes), axis=-1, count=nbits,
                         bitorder="little")


_POP8 = np.array([bin(v).count("1") for v in range(256)], np.uint8)


def popcount_u64(masks: np.ndarray) -> np.ndarray:
    """Set bits per element of a uint64 array (int64, same shape).

    ``np.bitwise_count`` where numpy has it (2.0+), else a byte lookup: the
    project supports numpy 1.24 too.
    """
    m = np.ascontiguousarray(masks, dtype=_U64)
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(m).astype(np.int64)
    return _POP8[m.view(np.uint8).reshape(*m.shape, 8)].sum(-1, dtype=np.int64)


def seat_lookups(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(rel, abs_)``, both ``(n, n)`` intp: ``rel[seat, a] = (a - seat) % n``,
    ``abs_[seat, r] = (seat + r) % n``.

    Indexing them with an array of observer seats gives per row the
    relative seat of every absolute seat (to scatter one-hots) and the
    absolute seat behind every relative slot (to gather dense per-seat
    pieces with one flat ``np.take``), matching the scalar encoders'
    ``(abs - seat) % n`` exactly.
    """
    s = np.arange(n)
    rel = (s[None, :] - s[:, None]) % n
    abs_ = (s[:, None] + s[None, :]) % n
    return rel.astype(np.intp), abs_.astype(np.intp)


def by_relative_seat(gathered: np.ndarray, starts: Sequence[int], absr: np.ndarray) -> np.ndarray:
    """Per-seat blocks of a gathered ``(rows, stride)`` array, reordered to relative seats.

    ``gathered[i, starts[j] + a]`` holds the value of absolute seat ``a`` in
    block ``j`` (e.g. tricks won, voids) of row ``i``; ``absr`` is
    ``abs_[seats]`` from :func:`seat_lookups`.  Returns ``(rows, len(starts),
    n)`` with relative seat ``r`` at ``[i, j, r]`` - all blocks in one
    ``np.take`` (``np.take_along_axis`` costs ~10 us a call).
    """
    rows, stride = gathered.shape
    base = np.arange(rows, dtype=np.intp) * stride
    idx = base[:, None, None] + np.asarray(starts, np.intp)[None, :, None] + absr[:, None, :]
    return np.take(gathered, idx)


#: the filler of a trick's empty places in gathered card lists (no deck has 255 cards)
PAD = 255


def trick_pads(n: int) -> tuple[tuple[int, ...], ...]:
    """Per number of cards already in a trick (0..n), the filler up to ``n`` places.

    ``small += cards; small += pads[len(cards)]`` gives every row the same
    stride, so the trick goes through ``bytearray`` with the other small ints.
    """
    return tuple((PAD,) * (n - k) for k in range(n + 1))


def trick_columns(n: int, offset: int, width: int, dump: int) -> np.ndarray:
    """Flat lookup: observation column of a trick card, by ``(leader_rel, position, card)``.

    Index ``(leader_rel * n + position) * 256 + card`` holds
    ``offset + ((leader_rel + position) % n) * width + card`` - the column
    the scalar encoders set for the card at ``position`` of a trick led by
    relative seat ``leader_rel`` - and ``dump`` for ``card >= width`` (the
    :data:`PAD` filler).  ``dump`` must be a column that a dense piece
    written after the scatter overwrites in every row (e.g. the first
    ``hand`` column), so a filler's stray 1.0 never survives.
    """
    lookup = np.full((n, n, 256), dump, np.intp)
    for lead in range(n):
        for pos in range(n):
            lookup[lead, pos, :width] = offset + ((lead + pos) % n) * width + np.arange(width)
    return lookup.reshape(-1)


def seat_trick_columns(n: int, offset: int, width: int, dump: int) -> np.ndarray:
    """Flat lookup: column of a trick card by ``(seat, leader, position, card)``, all absolute.

    Index ``((seat * n + leader) * n + position) * 256 + card`` holds the
    column that :func:`trick_columns` gives for ``leader_rel = (leader -
    seat) % n`` - so a batch needs no relative leader, only
    ``(seat * n + leader) * (n * 256)`` per row.  ``dump`` as there.
    """
    rel, _ = seat_lookups(n)
    by_rel = trick_columns(n, offset, width, dump).reshape(n, n * 256)
    return np.ascontiguousarray(by_rel[rel]).reshape(-1)


def seat_bit_columns(n: int, offset: int, nbits: int, dump: int) -> np.ndarray:
    """``(n * n * 2**nbits, nbits)`` lookup: the columns a per-seat bitmask piece sets.

    Row ``(seat * n + a) * 2**nbits + v`` lists, for bit ``b`` of value
    ``v`` held by absolute seat ``a`` and seen from ``seat``, the column
    ``offset + ((a - seat) % n) * nbits + b`` - or ``dump`` where the bit
    is 0.  Pieces such as Wizard's voids thus join the one scatter of all
    one-hots, taken straight from absolute-seat order.
    """
    rel, _ = seat_lookups(n)
    v = np.arange(1 << nbits)
    b = np.arange(nbits)
    on = (v[:, None] >> b) & 1  # (2**nbits, nbits)
    cols = offset + rel[:, :, None, None] * nbits + b  # (n, n, 1, nbits)
    lookup = np.where(on.astype(bool), cols, dump)  # (n, n, 2**nbits, nbits)
    return np.ascontiguousarray(lookup, dtype=np.intp).reshape(-1, nbits)


@lru_cache(maxsize=64)
def row_offsets(rows: int, stride: int) -> np.ndarray:
    """``arange(rows) * stride`` as a ``(rows, 1)`` read-only intp column, cached.

    A batch of a fixed size reuses it call after call instead of
    recomputing it (each numpy call costs microseconds at N = 256).
    """
    base = (np.arange(rows, dtype=np.intp) * stride)[:, None]
    base.flags.writeable = False
    return base


def ragged_positions(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a flat concatenation of per-row lists: each element's row and its position in the row.

    Trick cards are gathered as one flat list plus a length per row; this
    recovers ``(row, i)`` of every card with two vectorised operations.
    """
    lengths = np.asarray(lengths, dtype=np.intp)
    rows = np.repeat(np.arange(lengths.shape[0], dtype=np.intp), lengths)
    starts = np.cumsum(lengths) - lengths
    pos = np.arange(rows.shape[0], dtype=np.intp) - starts[rows]
    return rows, pos


__all__ = ["PAD", "Scratch", "bit_rows", "by_relative_seat", "check_batch_args", "check_batch_out",
           "popcount_u64",
           "ragged_positions", "row_offsets", "seat_bit_columns", "seat_lookups",
           "seat_trick_columns", "small_ints", "trick_columns", "trick_pads", "u64_rows",
           "unpack_u64"]
