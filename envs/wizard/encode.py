"""What one Wizard seat knows, as a flat float32 vector, and as text.

Seats are relative: index 0 is the observer, 1 the player to its left, and
so on.  Nothing here reads another player's hand: the encoder is given the
state but touches only the observer's hand and public facts (the turned
card, bids, tricks, played cards, voids shown, scores).  ``state`` (the
global state for centralised critics) is the only place all hands appear.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from stichzoo.envs.core.batch_bits import (
    Scratch,
    check_batch_args,
    row_offsets,
    seat_bit_columns,
    seat_lookups,
    seat_trick_columns,
    small_ints,
    trick_pads,
    unpack_u64,
)
from stichzoo.envs.core.observation import Layout, Piece, put_bits, put_hands_and_turn
from stichzoo.envs.wizard.rules import (
    BID,
    CHOOSE_TRUMP,
    DECK,
    DECK_SIZE,
    GAME_OVER,
    NO_TRUMP,
    NUM_SUITS,
    PHASE_NAMES,
    PLAY,
    SUITS,
    TRUMP_PENDING,
    WizardGame,
    WizardState,
)

SCORE_SCALE = 100.0


def observation_layout(n: int, max_hand: int) -> Layout:
    return Layout([
        Piece("hand", DECK_SIZE, doc="own cards, by card id (B1..B13, R.., G.., Y.., W1-4, N1-4)"),
        Piece("trump_suit", NUM_SUITS + 1, doc="trump B, R, G, Y, or no trump; all 0 while the "
                                               "dealer still chooses"),
        Piece("trump_card", DECK_SIZE + 1, doc="the turned card, or the last slot: none turned"),
        Piece("phase", 4, doc="choose_trump, bid, play, game_over"),
        Piece("hand_size", max_hand, doc="cards dealt this round, one-hot 1..60/n"),
        Piece("round_progress", 1, doc="rounds completed / rounds in the game"),
        Piece("dealer", n, doc="relative seat of the dealer"),
        Piece("bids", n * (max_hand + 1), doc="per relative seat, its bid one-hot (0 if not yet)"),
        Piece("tricks_won", n * (max_hand + 1), doc="per relative seat, tricks won one-hot"),
        Piece("trick_leader", n, doc="relative seat that leads the current trick"),
        Piece("current_trick", n * DECK_SIZE, doc="per relative seat, its card in the trick"),
        Piece("played", DECK_SIZE, doc="every card played this round (current trick included)"),
        Piece("voids", n * NUM_SUITS, doc="per relative seat, suits it showed out of"),
        Piece("dealer_restriction", 1, doc="1 if the dealer's bid restriction is in force"),
        Piece("scores", n, low=-100.0, high=100.0, doc="per relative seat, total score / 100"),
    ])


#: encode_many: the one-hot fields gathered per row (columns 2.. of its small ints)
_FIELDS = ("phase", "trump", "trump_card", "hand_size", "dealer", "trick_leader")


@cache
def _batch_lookup(n: int, max_hand: int) -> tuple[np.ndarray, int, int]:
    """``encode_many``'s lookup for one player count, shared by every encoder.

    Every one-hot column is a lookup entry, so a batch only computes indices
    and makes one ``np.take``: entry ``(seat * F + f) * 256 + v`` is the
    column that field ``f`` (:data:`_FIELDS`, then tricks won and bids per
    absolute seat) sets for value ``v`` seen from ``seat``; from the second
    returned offset on, :func:`seat_bit_columns` for the voids (four
    entries per value); from the third, :func:`seat_trick_columns`.  Absent
    one-hots (pending trump, no bid yet, an empty trick place, an unset
    void bit) point at the first hand column, which its dense write
    overwrites afterwards.
    """
    o = observation_layout(n, max_hand).offsets
    dump = o["hand"]
    h1 = max_hand + 1
    rel, _ = seat_lookups(n)
    nf = len(_FIELDS) + 2 * n
    fields = np.full((n, nf, 256), dump, np.intp)
    for seat in range(n):
        f = fields[seat]
        f[0, :4] = o["phase"] + np.arange(4)
        f[1, 1] = o["trump_suit"] + NUM_SUITS  # no trump; 0: still pending, none
        f[1, 2:2 + NUM_SUITS] = o["trump_suit"] + np.arange(NUM_SUITS)
        f[2, 0] = o["trump_card"] + DECK_SIZE  # no card turned
        f[2, 1:1 + DECK_SIZE] = o["trump_card"] + np.arange(DECK_SIZE)
        f[3, 1:1 + max_hand] = o["hand_size"] + np.arange(max_hand)
        f[4, :n] = o["dealer"] + rel[seat]
        f[5, :n] = o["trick_leader"] + rel[seat]
        for a in range(n):
            f[6 + a, :h1] = o["tricks_won"] + rel[seat, a] * h1 + np.arange(h1)
            f[6 + n + a, :h1] = o["bids"] + rel[seat, a] * h1 + np.arange(h1)  # 255: no bid
    parts = (fields.reshape(-1), seat_bit_columns(n, o["voids"], NUM_SUITS, dump).reshape(-1),
             seat_trick_columns(n, o["current_trick"], DECK_SIZE, dump))
    lookup = np.concatenate(parts)
    lookup.flags.writeable = False
    return lookup, parts[0].size, parts[0].size + parts[1].size


class WizardEncoder:
    def __init__(self, game: WizardGame):
        self.game = game
        n, h = game.num_players, game.max_hand
        self.layout = observation_layout(n, h)
        self.state_layout = Layout([
            *self.layout.pieces,
            Piece("all_hands", n * DECK_SIZE, doc="every seat's hand, absolute seat order"),
            Piece("to_act", n, doc="absolute seat to act"),
        ])
        o = self.layout.offsets
        self._o = o
        self._h1 = h + 1
        # encode_many's lookups and work arrays: made on its first call (_init_batch)
        self._scratch: Scratch | None = None

    def encode(self, s: WizardState, seat: int, out: np.ndarray) -> None:
        """Write ``seat``'s observation into ``out`` (overwritten entirely)."""
        out.fill(0.0)
        o = self._o
        n = s.num_players
        h1 = self._h1
        put_bits(out, o["hand"], s.hands[seat])
        if s.trump != TRUMP_PENDING:
            out[o["trump_suit"] + (s.trump if s.trump != NO_TRUMP else NUM_SUITS)] = 1.0
        out[o["trump_card"] + (s.trump_card if s.trump_card >= 0 else DECK_SIZE)] = 1.0
        out[o["phase"] + s.phase] = 1.0
        if s.phase != GAME_OVER:
            out[o["hand_size"] + s.hand_size - 1] = 1.0
        out[o["round_progress"]] = (s.round_index + (s.phase == GAME_OVER)) / len(
            self.game.round_sizes)
        out[o["dealer"] + (s.dealer - seat) % n] = 1.0
        ob, ot = o["bids"], o["tricks_won"]
        for rel in range(n):
            abs_seat = (seat + rel) % n
            b = s.bids[abs_seat]
            if b >= 0:
                out[ob + rel * h1 + b] = 1.0
            out[ot + rel * h1 + s.tricks_won[abs_seat]] = 1.0
        trick = s.trick
        out[o["trick_leader"] + (trick.leader - seat) % n] = 1.0
        oc = o["current_trick"]
        for i, c in enumerate(trick.cards):
            rel = (trick.leader + i - seat) % n
            out[oc + rel * DECK_SIZE + c] = 1.0
        put_bits(out, o["played"], s.played)
        ov = o["voids"]
        for rel in range(n):
            v = s.voids[(seat + rel) % n]
            for suit in range(NUM_SUITS):
                if (v >> suit) & 1:
                    out[ov + rel * NUM_SUITS + suit] = 1.0
        out[o["dealer_restriction"]] = float(self.game.options.dealer_bid_restriction)
        osc = o["scores"]
        for rel in range(n):
            out[osc + rel] = s.totals[(seat + rel) % n] / SCORE_SCALE

    def _init_batch(self) -> None:
        """Set up what ``encode_many`` needs, once: most envs never batch, so they skip it."""
        n, h = self.game.num_players, self.game.max_hand
        o = self._o
        self._lookup, void0, trick0 = _batch_lookup(n, h)
        self._void_cols = self._lookup[void0:trick0].reshape(-1, NUM_SUITS)
        self._pads = trick_pads(n)
        self._dump = o["hand"]
        nf = len(_FIELDS) + 2 * n
        self._field_off = np.arange(nf, dtype=np.intp) * 256
        # voids: row (seat * n + a) * 16 + v of the lookup's (., 4) void part
        self._void_off = np.arange(n, dtype=np.intp) * (1 << NUM_SUITS)
        # trick: entry trick0 + ((seat * n + leader) * n + position) * 256 + card
        self._trick_off = trick0 + np.arange(n, dtype=np.intp) * 256
        self._abs = seat_lookups(n)[1]
        # reused work arrays: small ints, lookup indices, columns (see Scratch)
        self._scratch = Scratch()
        self._scratch_specs = (((8 + 3 * n,), np.intp), ((nf + n,), np.intp),
                               ((nf + (NUM_SUITS + 1) * n,), np.intp))

    def encode_many(self, states: Sequence[WizardState], seats: Sequence[int],
                    out: np.ndarray) -> None:
        """Write ``states[i]``'s observation for ``seats[i]`` into ``out[i]`` (all overwritten).

        Bit for bit what :meth:`encode` writes row by row, several times
        faster per row: the batched engine steps hundreds of games together
        and cannot afford ~30 numpy writes per observation.  The Python loop
        only gathers ints into flat lists (small ones through ``bytearray``,
        bitmasks as uint64); every one-hot column of all rows is then looked
        up in shared lookups and set by one scatter, the bits unpacked at
        once.  ``out``: C-contiguous float32 ``(len(states), layout.size)``;
        seats 0..n-1.
        """
        rows = len(states)
        size = self.layout.size
        seats = check_batch_args(out, states, seats, size)
        if not rows:
            return
        if self._scratch is None:
            self._init_batch()
        n = self.game.num_players
        pads = self._pads
        # -- gather: the only per-row Python, appends of ints to flat lists ------------
        small: list[int] = []  # per row: 8 fields, tricks_won, voids, trick cards padded
        wide: list[int] = []  # per row: own hand, played (< 2**60), bids (-1: not yet), totals
        try:
            for s, p in zip(states, seats):
                t = s.trick
                c = t.cards
                small += (s.round_index, p, s.phase, s.trump + 2, s.trump_card + 1, s.hand_size,
                          s.dealer, t.leader)
                small += s.tricks_won
                small += s.voids
                small += c
                small += pads[len(c)]
                wide += (s.hands[p], s.played)
                wide += s.bids
                wide += s.totals
        except IndexError:
            bad = sorted({p for p in seats if not 0 <= p < n})
            raise ValueError(f"seats must be 0..{n - 1}, not {bad}") from None
        nf = len(_FIELDS) + 2 * n
        a, idx, cols = self._scratch.arrays(rows, self._scratch_specs)
        small_ints(small, 8 + 3 * n, out=a)
        w = np.fromiter(wide, np.int64, (2 + 2 * n) * rows).reshape(rows, 2 + 2 * n)
        seat, phase = a[:, 1], a[:, 2]
        sn = seat * n
        # -- one-hots: every column looked up in the shared lookup, then one scatter ------
        nv = NUM_SUITS
        fi = idx[:, :nf]  # fields: (seat * F + f) * 256 + value
        np.add((seat * (nf * 256))[:, None], self._field_off, out=fi)
        fi[:, :nf - n] += a[:, 2:2 + nf - n]
        fi[:, nf - n:] += w[:, 2:2 + n] & 255  # no bid yet (-1): 255, the dump column
        np.add(((sn + a[:, 7]) * (n * 256))[:, None] + self._trick_off, a[:, 8 + 2 * n:],
               out=idx[:, nf:])  # trick: ((seat * n + leader) * n + position) * 256 + card
        np.take(self._lookup, idx, out=cols[:, :nf + n], mode="clip")  # all in range
        vi = (sn * (1 << nv))[:, None] + self._void_off + a[:, 8 + n:8 + 2 * n]
        np.take(self._void_cols, vi, axis=0, out=cols[:, nf + n:].reshape(rows, n, nv),
                mode="clip")
        over = phase == GAME_OVER
        np.copyto(cols[:, 3], self._dump, where=over)  # no hand size after the game
        cols += row_offsets(rows, size)
        out.fill(0.0)
        out.reshape(-1)[cols.reshape(-1)] = 1.0
        # -- dense pieces (the hand first: it overwrites the dump column) -------------------
        o = self._o
        bits = unpack_u64(w[:, :2], DECK_SIZE)
        out[:, o["hand"]:o["hand"] + DECK_SIZE] = bits[:, 0]
        out[:, o["played"]:o["played"] + DECK_SIZE] = bits[:, 1]
        out[:, o["round_progress"]] = (a[:, 0] + over) / len(self.game.round_sizes)
        out[:, o["dealer_restriction"]] = float(self.game.options.dealer_bid_restriction)
        osc = o["scores"]
        tot = np.take(w, row_offsets(rows, 2 + 2 * n) + (2 + n) + self._abs[seat])
        out[:, osc:osc + n] = tot / SCORE_SCALE

    def encode_state(self, s: WizardState, out: np.ndarray) -> None:
        """Global state: seat 0's view plus every hand and who is to act."""
        self.encode(s, 0, out[: self.layout.size])
        put_hands_and_turn(out, self.state_layout.offsets, s.hands, DECK_SIZE, s.current_player)

    def render(self, s: WizardState, seat: int, show_all: bool = False) -> str:
        """The public table, plus the acting player's hand (or every hand)."""
        g = self.game
        names = DECK.names
        lines = []
        if s.over:
            lines.append(f"Wizard - game over after {len(g.round_sizes)} rounds")
        else:
            trump = ("to be chosen by the dealer" if s.trump == TRUMP_PENDING else
                     "none" if s.trump == NO_TRUMP else SUITS[s.trump])
            turned = names[s.trump_card] if s.trump_card >= 0 else "no card"
            lines.append(
                f"Wizard - round {s.round_index + 1}/{len(g.round_sizes)}, {s.hand_size} cards, "
                f"dealer player_{s.dealer}; trump: {trump} (turned: {turned})")
            lines.append(f"phase: {PHASE_NAMES[s.phase]}; to act: player_{s.current_player}")
        lines.append("seat        bid  tricks  score")
        for p in range(s.num_players):
            bid = "-" if s.phase == GAME_OVER or s.bids[p] < 0 else str(s.bids[p])
            mark = "*" if p == s.current_player else " "
            lines.append(f"{mark}player_{p}  {bid:>3}  {s.tricks_won[p]:>6}  {s.totals[p]:>5}")
        if s.phase == PLAY:
            t = s.trick
            cards = ", ".join(f"player_{t.seat_of(i)} {names[c]}" for i, c in enumerate(t.cards))
            lines.append(f"trick (led by player_{t.leader}): {cards or '-'}")
        if s.phase in (CHOOSE_TRUMP, BID, PLAY):
            seats = range(s.num_players) if show_all else [seat]
            for p in seats:
                if p >= 0:
                    lines.append(f"hand of player_{p}: {' '.join(DECK.format_mask(s.hands[p]))}")
        return "\n".join(lines)


__all__ = ["BID", "PLAY", "WizardEncoder", "observation_layout"]
