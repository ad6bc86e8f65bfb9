"""What one Hoch & Tief seat knows, as a flat float32 vector, and as text.

Seats are relative: index 0 is the observer, 1 the player to its left, and
so on.  A seat knows its own hand and everything that lies face up: the
current trick, the cards every seat has taken this round (taken cards are
public in this game, and they decide the score), which suits a seat has
shown out of, and the scores.  The encoder reads no other hand; only
``encode_state`` (the global state for centralised critics) shows them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat

import numpy as np

from stichzoo.envs.core.batch_bits import PAD, check_batch_args, small_ints, trick_pads
from stichzoo.envs.core.observation import Layout, Piece, put_bits, put_hands_and_turn
from stichzoo.envs.hoch_tief.rules import (
    GAME_OVER,
    HAND_SIZE,
    NUM_SUITS,
    PHASE_NAMES,
    PLAY,
    SUITS,
    HochTiefGame,
    HochTiefState,
)

SCORE_SCALE = 100.0
_NO_CARD = PAD  # pads the current trick to n cards in encode_many (no card id is that high)


def mask_words(masks: list[int], words: int) -> np.ndarray:
    """Every int of ``masks`` as ``words`` little-endian 64-bit words: ``(len, words)`` uint64.

    One word (up to four players, 60 cards) goes through one int64 array,
    no per-int Python call; two words (five and six players: 75 and 90
    cards) through the ints' little-endian bytes.
    """
    if words == 1:
        return np.fromiter(masks, np.int64, len(masks)).astype("<u8").reshape(len(masks), 1)
    raw = b"".join(map(int.to_bytes, masks, repeat(8 * words), repeat("little")))
    return np.frombuffer(raw, "<u8").reshape(len(masks), words)


def unpack_words(words: np.ndarray, nbits: int) -> np.ndarray:
    """Bits ``0 .. nbits-1`` of each row of little-endian words (last axis) as uint8 0/1."""
    raw = np.ascontiguousarray(words, "<u8").view(np.uint8)
    return np.unpackbits(raw, axis=-1, count=nbits, bitorder="little")


_SUIT_SCORES: dict[int, np.ndarray] = {}


def suit_scores(numbers: int) -> np.ndarray:
    """Per mask of one suit's taken cards (bit ``v - 1``: number ``v``), what it scores.

    :func:`~stichzoo.envs.hoch_tief.rules.score_taken` as a lookup
    (``2 ** numbers`` entries, at most 2 ** 18, int16: a suit scores at most
    35), so the batch encoder scores every seat's suits with one gather;
    built once per player count.
    """
    lookup = _SUIT_SCORES.get(numbers)
    if lookup is None:
        masks = np.arange(1 << numbers, dtype=np.int32)
        count = np.zeros_like(masks)
        face = np.zeros_like(masks)
        for b in range(numbers):
            bit = (masks >> b) & 1
            count += bit
            face += bit * (b + 1)
        lookup = _SUIT_SCORES[numbers] = np.where(count >= 3, count, face).astype(np.int16)
    return lookup


class _BatchLookups:
    """Constants of one player count for :meth:`HochTiefEncoder.encode_many`, built once,
    so that a call spends no numpy operations on them."""

    def __init__(self, n: int, size: int):
        m = size // NUM_SUITS
        rel = np.arange(n)
        #: 64-bit words per mask (one up to four players, two for 75 and 90 cards)
        self.words = nw = (size + 63) // 64
        #: [observer] -> absolute seat of each relative seat, then n (the own hand's column)
        self.rot = np.concatenate([(rel[:, None] + rel) % n, np.full((n, 1), n)], axis=1)
        #: [trick leader (relative), place in the trick] -> relative seat of that card
        self.trick_seat = (rel[:, None] + rel) % n
        #: pads a trick of k cards to n (with _NO_CARD)
        self.pads = trick_pads(n)
        # suit s is bits s*m .. s*m+m-1 of a mask: shifted down from its word, plus the
        # next word shifted up where it straddles two (else the zero word at index nw)
        word, bit = np.divmod(np.arange(NUM_SUITS) * m, 64)
        straddle = bit + m > 64
        self.suit_word = word
        self.suit_shift = bit.astype(np.uint64)
        self.suit_spill = np.where(straddle, word + 1, nw)
        self.suit_back = np.where(straddle, 64 - bit, 0).astype(np.uint64)
        self.suit_bits = np.uint64((1 << m) - 1)
        self.suit_score = suit_scores(m)
        self.led_suit = np.arange(size) // m


def observation_layout(n: int, size: int) -> Layout:
    """The observation pieces for ``n`` players and a deck of ``size`` (= 15n) cards."""
    return Layout([
        Piece("hand", size, doc="own cards, by card id (A1..A3n, B1.., C.., D.., E..)"),
        Piece("phase", 2, doc="play, game_over"),
        Piece("round_progress", 1, doc="rounds completed / rounds in the game"),
        Piece("trick_progress", 1, doc="tricks completed this round / 15"),
        Piece("dealer", n, doc="relative seat of this round's dealer"),
        Piece("trick_leader", n, doc="relative seat that leads the current trick"),
        Piece("led_suit", NUM_SUITS, doc="suit of the current trick's first card (0 if none)"),
        Piece("current_trick", n * size, doc="per relative seat, its card in the current trick"),
        Piece("taken", n * size, doc="per relative seat, the cards it has taken face up "
                                     "this round"),
        Piece("taken_score", n, high=2.0, doc="per relative seat, what its taken cards score "
                                              "now / 100"),
        Piece("played", size, doc="every card played this round (current trick included)"),
        Piece("voids", n * NUM_SUITS, doc="per relative seat, suits it showed out of this round"),
        Piece("scores", n, high=100.0, doc="per relative seat, game total / 100"),
    ])


class HochTiefEncoder:
    def __init__(self, game: HochTiefGame):
        self.game = game
        n, size = game.num_players, game.lookups.size
        self.size = size
        self.layout = observation_layout(n, size)
        self.state_layout = Layout([
            *self.layout.pieces,
            Piece("all_hands", n * size, doc="every seat's hand, absolute seat order"),
            Piece("to_act", n, doc="absolute seat to act"),
        ])
        self._o = self.layout.offsets
        self._batch: _BatchLookups | None = None  # built by the first encode_many

    def encode(self, s: HochTiefState, seat: int, out: np.ndarray) -> None:
        """Write ``seat``'s observation into ``out`` (overwritten entirely)."""
        out.fill(0.0)
        o = self._o
        n = s.num_players
        size = self.size
        t = s.lookups
        put_bits(out, o["hand"], s.hands[seat])
        out[o["phase"] + s.phase] = 1.0
        out[o["round_progress"]] = (s.round_index + (s.phase == GAME_OVER)) / self.game.num_rounds
        out[o["trick_progress"]] = s.tricks_played / HAND_SIZE
        out[o["dealer"] + (s.dealer - seat) % n] = 1.0
        trick = s.trick
        out[o["trick_leader"] + (trick.leader - seat) % n] = 1.0
        if trick.cards:
            out[o["led_suit"] + t.suit[trick.cards[0]]] = 1.0
        oc = o["current_trick"]
        for i, c in enumerate(trick.cards):
            out[oc + ((trick.leader + i - seat) % n) * size + c] = 1.0
        otk, ots, ov, osc = o["taken"], o["taken_score"], o["voids"], o["scores"]
        scores = s.taken_scores()
        for rel in range(n):
            a = (seat + rel) % n
            put_bits(out, otk + rel * size, s.taken[a])
            out[ots + rel] = scores[a] / SCORE_SCALE
            put_bits(out, ov + rel * NUM_SUITS, s.voids[a])
            out[osc + rel] = s.totals[a] / SCORE_SCALE
        put_bits(out, o["played"], s.played_mask())

    def encode_many(self, states: Sequence[HochTiefState], seats: Sequence[int],
                    out: np.ndarray) -> None:
        """Write ``states[i]``'s observation for ``seats[i]`` into ``out[i]`` (overwritten).

        Bit for bit what :meth:`encode` writes row by row, several times
        faster per row: the batched engine steps many games at once and
        must not spend its time here.  The Python loop only appends each
        state's few ints to flat lists (the current trick padded to ``n``
        cards, so that every state takes the same room); relative seats,
        bit unpacking, the taken-card scores (a lookup per suit) and
        the one-hot entries are then a handful of numpy operations over the
        whole ``(N, size)`` block.  ``out``: C-contiguous, writeable float32
        ``(len(states), layout.size)``; all states of games with this
        encoder's player count; ``seats[i]`` a seat ``0 .. n-1``.
        """
        n = self.game.num_players
        size = self.size
        big = len(states)
        seats = check_batch_args(out, states, seats, self.layout.size)
        if not big:
            return
        seat = np.fromiter(seats, np.int64, big)
        if seat.view(np.uint64).max() >= n:  # a negative seat wraps around to a huge one
            raise ValueError(f"hoch_tief: seats must lie in 0..{n - 1}")
        o = self._o
        tb = self._batch
        if tb is None:
            tb = self._batch = _BatchLookups(n, size)
        pad = tb.pads
        # -- gather, per state: phase, round, tricks played, dealer, trick leader,
        # voids, the current trick's cards padded to n (ints 0..255, which convert
        # ~6x faster through bytearray); totals; taken by absolute seat, own hand
        small: list[int] = []
        totals: list[int] = []
        masks: list[int] = []
        sextend = small.extend
        textend = totals.extend
        mextend = masks.extend
        mappend = masks.append
        for s, p in zip(states, seats):
            trick = s.trick
            played = trick.cards
            sextend((s.phase, s.round_index, s.tricks_played, s.dealer, trick.leader))
            sextend(s.voids)
            sextend(played)
            sextend(pad[len(played)])
            textend(s.totals)
            mextend(s.taken)
            mappend(s.hands[p])
        sm = small_ints(small, 5 + 2 * n)
        phase = sm[:, 0]
        rows = np.arange(big)
        rot = tb.rot[seat]  # [state, relative seat] -> absolute seat; then the hand's column
        nw = tb.words
        # taken by relative seat, own hand, played: as words, and a zero word after them
        words = np.empty((big, n + 2, nw + 1), "<u8")
        words[:, :, nw] = 0
        words[:, :n + 1, :nw] = mask_words(masks, nw).reshape(big, n + 1, nw)[rows[:, None], rot]
        np.bitwise_or.reduce(words[:, :n], axis=1, out=words[:, n + 1])
        bits = unpack_words(words, size)
        # -- dense pieces
        out[:, o["hand"]:o["hand"] + size] = bits[:, n]
        oph = o["phase"]
        out[:, oph:o["taken"]] = 0.0  # the one-hot pieces and the current trick
        out[:, o["round_progress"]] = (sm[:, 1] + (phase == GAME_OVER)) / self.game.num_rounds
        out[:, o["trick_progress"]] = sm[:, 2] / HAND_SIZE
        otk = o["taken"]
        out[:, otk:otk + n * size] = bits[:, :n].reshape(big, n * size)
        taken = words[:, :n]
        suits = ((taken[..., tb.suit_word] >> tb.suit_shift)
                 | (taken[..., tb.suit_spill] << tb.suit_back)) & tb.suit_bits
        score = tb.suit_score[suits].sum(axis=2)  # [state, relative seat]
        ots = o["taken_score"]
        out[:, ots:ots + n] = score / SCORE_SCALE
        op = o["played"]
        out[:, op:op + size] = bits[:, n + 1]
        ov = o["voids"]
        voids = sm[rows[:, None], 5 + rot[:, :n]]  # by relative seat
        out[:, ov:ov + n * NUM_SUITS] = (
            (voids[:, :, None] >> np.arange(NUM_SUITS)) & 1).reshape(big, n * NUM_SUITS)
        osc = o["scores"]
        tot = np.fromiter(totals, np.int64, big * n).reshape(big, n)
        out[:, osc:osc + n] = tot[rows[:, None], rot[:, :n]] / SCORE_SCALE
        # -- one-hot entries: phase, dealer, trick leader; per trick card its
        # seat's slot and its played bit; the first card's suit
        lead = (sm[:, 4] - seat) % n
        card = sm[:, 5 + n:]
        shown = card != _NO_CARD
        slot = o["current_trick"] + tb.trick_seat[lead] * size + card
        led = shown[:, 0].nonzero()[0]
        crow = shown.nonzero()[0]  # the state of each card shown, in card[shown]'s order
        r_idx = np.concatenate([rows, rows, rows, crow, crow, led])
        c_idx = np.concatenate([
            oph + phase,
            o["dealer"] + (sm[:, 3] - seat) % n,
            o["trick_leader"] + lead,
            slot[shown],
            op + card[shown],
            o["led_suit"] + tb.led_suit[card[led, 0]],
        ])
        out[r_idx, c_idx] = 1.0

    def encode_state(self, s: HochTiefState, out: np.ndarray) -> None:
        """Global state: seat 0's view plus every hand and who is to act."""
        self.encode(s, 0, out[: self.layout.size])
        put_hands_and_turn(out, self.state_layout.offsets, s.hands, self.size, s.current_player)

    def render(self, s: HochTiefState, seat: int, show_all: bool = False) -> str:
        """The public table (taken cards face up), plus the acting player's hand or all hands."""
        g = self.game
        deck = g.deck
        lines = []
        if s.over:
            lines.append(f"Hoch & Tief - game over after {g.num_rounds} rounds")
        else:
            lines.append(f"Hoch & Tief - round {s.round_index + 1}/{g.num_rounds}, "
                         f"trick {s.tricks_played + 1}/{HAND_SIZE}, dealer player_{s.dealer}")
            lines.append(f"phase: {PHASE_NAMES[s.phase]}; to act: player_{s.current_player}")
        scores = s.taken_scores()
        lines.append("seat       total  round  taken (face up)")
        for p in range(s.num_players):
            mark = "*" if p == s.current_player else " "
            taken = " ".join(deck.format_mask(s.taken[p]))  # id order: sorted by suit
            lines.append(f"{mark}player_{p}  {s.totals[p]:>5}  {scores[p]:>5}  {taken or '-'}")
        if s.phase == PLAY:
            t = s.trick
            cards = ", ".join(f"player_{t.seat_of(i)} {deck.names[c]}"
                              for i, c in enumerate(t.cards))
            lines.append(f"trick (led by player_{t.leader}): {cards or '-'}")
            seats = range(s.num_players) if show_all else [seat]
            for p in seats:
                if p >= 0:
                    lines.append(f"hand of player_{p}: {' '.join(deck.format_mask(s.hands[p]))}")
        return "\n".join(lines)


__all__ = ["SUITS", "HochTiefEncoder", "observation_layout"]
