"""What one Wunder Punkt seat knows, as a flat float32 vector, and as text.

Seats are relative: index 0 is the observer, 1 the player to its left, and
so on.  The encoder touches only the observer's hand and pick and public
facts.  Another seat's sore card is read only once :meth:`sore_revealed`
says all picks are face up - before that the observer sees only *that* the
seat has laid a card (a face-down card on the table is public), never
which.  Won cards are encoded per seat although the rule book stacks them
face down: every trick was played face up, so a player with perfect recall
knows them; the encoding gives every policy that memory.  ``state`` (the
global state for centralised critics) is the only place where all hands and
pending picks appear.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from stichzoo.envs.core.batch_bits import (
    Scratch,
    check_batch_args,
    popcount_u64,
    row_offsets,
    seat_lookups,
    seat_trick_columns,
    small_ints,
    trick_pads,
    unpack_u64,
)
from stichzoo.envs.core.observation import Layout, Piece, put_bits, put_hands_and_turn
from stichzoo.envs.wunder_punkt.rules import (
    CARD_NUMBER,
    CARD_SUIT,
    DECK,
    DECK_SIZE,
    GAME_OVER,
    NUM_SUITS,
    PHASE_NAMES,
    PLAY,
    RANKS,
    SORE,
    SUIT_NAMES,
    WunderPunktGame,
    WunderPunktState,
)

SCORE_SCALE = 100.0

#: encode_many: sore card id -> its bit, and the shift to its suit's 13 bits (-1: none, 0)
_CARD_BIT = np.array([1 << c for c in range(DECK_SIZE)] + [0], np.uint64)
_SUIT_SHIFT = np.array([CARD_SUIT[c] * RANKS for c in range(DECK_SIZE)] + [0], np.uint64)
#: encode_many: a suit's 13 bits (ranks) -> how much less they score as the sore suit than
#: as any other suit (+1 each there, minus their number here): card count + numbers
_SORE_LOSS = np.array([sum(1 + CARD_NUMBER[r] for r in range(RANKS) if (v >> r) & 1)
                       for v in range(1 << RANKS)], np.int64)


def observation_layout(n: int) -> Layout:
    return Layout([
        Piece("hand", DECK_SIZE, doc="own cards, by card id (Ac..Kc, Ad.., Ah.., As..)"),
        Piece("phase", 3, doc="sore (picking sore cards), play, game_over"),
        Piece("cards_in_play", DECK_SIZE, doc="the cards used with this player count"),
        Piece("round_progress", 1, doc="rounds completed / rounds in the game"),
        Piece("dealer", n, doc="relative seat of the dealer"),
        Piece("picked", n, doc="per relative seat, 1 once it has laid its sore card"),
        Piece("sore_cards", n * DECK_SIZE,
              doc="per relative seat, its sore card: own as soon as laid, others after reveal"),
        Piece("sore_suits", n * NUM_SUITS,
              doc="per relative seat, its sore suit (same visibility as sore_cards)"),
        Piece("trick_leader", n, doc="relative seat that leads the current trick"),
        Piece("current_trick", n * DECK_SIZE, doc="per relative seat, its card in the trick"),
        Piece("won", n * DECK_SIZE, doc="per relative seat, cards taken this round"),
        Piece("removed", DECK_SIZE, doc="cards of all-Ace tricks, out of the game this round"),
        Piece("round_scores", n, low=-100.0, high=100.0,
              doc="per relative seat, this round's score so far / 100 (0 until the reveal)"),
        Piece("scores", n, low=-100.0, high=100.0, doc="per relative seat, total score / 100"),
    ])


#: encode_many: the one-hot fields gathered per row (columns 2.. of its small ints)
_FIELDS = ("phase", "dealer", "trick_leader")


@cache
def _batch_lookups(n: int) -> tuple[np.ndarray, int, np.ndarray]:
    """``encode_many``'s lookups for one player count, shared by every encoder.

    Every one-hot column is a lookup entry, so a batch only computes indices:
    ``lookup[(seat * 3 + f) * 256 + v]`` is the column that field ``f``
    (:data:`_FIELDS`) sets for value ``v`` seen from ``seat``; from the
    returned offset on, :func:`seat_trick_columns`.  ``sore[((seat * n + a)
    * 2 + revealed) * 256 + card]`` holds the three columns of absolute
    seat ``a``'s pick (picked, sore card, sore suit): the card and suit
    only for the own pick or once all are revealed, none for card 255 (not
    laid yet).  Absent one-hots point at the first hand column, which its
    dense write overwrites afterwards.
    """
    o = observation_layout(n).offsets
    dump = o["hand"]
    rel, _ = seat_lookups(n)
    fields = np.full((n, len(_FIELDS), 256), dump, np.intp)
    sore = np.full((n, n, 2, 256, 3), dump, np.intp)
    cards = np.arange(DECK_SIZE)
    for seat in range(n):
        fields[seat, 0, :3] = o["phase"] + np.arange(3)
        fields[seat, 1, :n] = o["dealer"] + rel[seat]
        fields[seat, 2, :n] = o["trick_leader"] + rel[seat]
        for a in range(n):
            r = rel[seat, a]
            sore[seat, a, :, :DECK_SIZE, 0] = o["picked"] + r
            for revealed in (0, 1):
                if revealed or a == seat:
                    sore[seat, a, revealed, :DECK_SIZE, 1] = o["sore_cards"] + r * DECK_SIZE + cards
                    sore[seat, a, revealed, :DECK_SIZE, 2] = (o["sore_suits"] + r * NUM_SUITS
                                                              + np.array(CARD_SUIT))
    flat = fields.reshape(-1)
    lookup = np.concatenate([flat, seat_trick_columns(n, o["current_trick"], DECK_SIZE, dump)])
    sore = sore.reshape(-1, 3)
    lookup.flags.writeable = False
    sore.flags.writeable = False
    return lookup, flat.size, sore


class WunderPunktEncoder:
    def __init__(self, game: WunderPunktGame):
        self.game = game
        n = game.num_players
        self.layout = observation_layout(n)
        self.state_layout = Layout([
            *self.layout.pieces,
            Piece("all_hands", n * DECK_SIZE, doc="every seat's hand, absolute seat order"),
            Piece("all_sore_cards", n * DECK_SIZE,
                  doc="every seat's sore card, pending picks included, absolute seat order"),
            Piece("to_act", n, doc="absolute seat to act"),
        ])
        self._o = self.layout.offsets
        # encode_many's lookups and work arrays: made on its first call (_init_batch)
        self._scratch: Scratch | None = None

    def encode(self, s: WunderPunktState, seat: int, out: np.ndarray) -> None:
        """Write ``seat``'s observation into ``out`` (overwritten entirely)."""
        out.fill(0.0)
        o = self._o
        n = s.num_players
        put_bits(out, o["hand"], s.hands[seat])
        out[o["phase"] + s.phase] = 1.0
        put_bits(out, o["cards_in_play"], self.game.used)
        out[o["round_progress"]] = (s.round_index + (s.phase == GAME_OVER)) / self.game.num_rounds
        out[o["dealer"] + (s.dealer - seat) % n] = 1.0
        revealed = s.sore_revealed()
        osc, oss, op, ow = o["sore_cards"], o["sore_suits"], o["picked"], o["won"]
        for rel in range(n):
            p = (seat + rel) % n
            card = s.sore_cards[p]
            if card >= 0:
                out[op + rel] = 1.0
                if revealed or p == seat:
                    out[osc + rel * DECK_SIZE + card] = 1.0
                    out[oss + rel * NUM_SUITS + CARD_SUIT[card]] = 1.0
            put_bits(out, ow + rel * DECK_SIZE, s.won[p])
        trick = s.trick
        out[o["trick_leader"] + (trick.leader - seat) % n] = 1.0
        oc = o["current_trick"]
        for i, c in enumerate(trick.cards):
            out[oc + ((trick.leader + i - seat) % n) * DECK_SIZE + c] = 1.0
        put_bits(out, o["removed"], s.removed)
        if s.phase == PLAY:  # public only once the sore cards are face up
            rs = s.current_round_scores()
            ors = o["round_scores"]
            for rel in range(n):
                out[ors + rel] = rs[(seat + rel) % n] / SCORE_SCALE
        ot = o["scores"]
        for rel in range(n):
            out[ot + rel] = s.totals[(seat + rel) % n] / SCORE_SCALE

    def _init_batch(self) -> None:
        """Set up what ``encode_many`` needs, once: most envs never batch, so they skip it."""
        n = self.game.num_players
        self._lookup, trick0, self._sore_cols = _batch_lookups(n)
        self._pads = trick_pads(n)
        self._field_off = np.arange(len(_FIELDS), dtype=np.intp) * 256
        # trick: entry trick0 + ((seat * n + leader) * n + position) * 256 + card
        self._trick_off = trick0 + np.arange(n, dtype=np.intp) * 256
        self._sore_off = np.arange(n, dtype=np.intp) * 512
        self._abs = abs_ = seat_lookups(n)[1]
        # per observer seat, the gathered masks to read: hand, removed, won by relative slot
        self._mask_idx = np.array([[0, 1, *(2 + abs_[seat])] for seat in range(n)], np.intp)
        used = np.zeros(DECK_SIZE, np.float32)
        put_bits(used, 0, self.game.used)
        self._used_row = used
        # reused work arrays: small ints, lookup indices, columns (see Scratch)
        self._scratch = Scratch()
        nf = len(_FIELDS)
        self._scratch_specs = (((5 + n,), np.intp), ((nf + n,), np.intp),
                               ((nf + 4 * n,), np.intp))

    def encode_many(self, states: Sequence[WunderPunktState], seats: Sequence[int],
                    out: np.ndarray) -> None:
        """Write ``states[i]``'s observation for ``seats[i]`` into ``out[i]`` (all overwritten).

        Bit for bit what :meth:`encode` writes row by row, many times faster
        per row: the batched engine steps hundreds of games together.  The
        Python loop only gathers ints into flat lists (small ones through
        ``bytearray``, bitmasks as uint64); every one-hot column of all rows
        is then looked up in shared lookups and set by one scatter, the won
        cards of every seat unpacked at once and the round scores counted
        from the uint64 masks (no ``current_round_scores`` per state).
        ``out``: C-contiguous float32 ``(len(states), layout.size)``; seats
        0..n-1.
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
        small: list[int] = []  # per row: 5 fields, trick cards padded to n
        # per row: own hand, removed, won[n] (masks < 2**52), sore_cards[n] (-1: not laid),
        # totals[n]
        wide: list[int] = []
        try:
            for s, p in zip(states, seats):
                t = s.trick
                c = t.cards
                small += (s.round_index, p, s.phase, s.dealer, t.leader)
                small += c
                small += pads[len(c)]
                wide += (s.hands[p], s.removed)
                wide += s.won
                wide += s.sore_cards
                wide += s.totals
        except IndexError:
            bad = sorted({p for p in seats if not 0 <= p < n})
            raise ValueError(f"seats must be 0..{n - 1}, not {bad}") from None
        nf = len(_FIELDS)
        a, idx, cols = self._scratch.arrays(rows, self._scratch_specs)
        small_ints(small, 5 + n, out=a)
        k = 2 + 3 * n
        w = np.fromiter(wide, np.int64, k * rows).reshape(rows, k)
        seat, phase = a[:, 1], a[:, 2]
        sn = seat * n
        absr = self._abs[seat]  # (rows, n): absolute seat behind each relative slot
        # -- one-hots: every column looked up in the shared lookups, then one scatter -----
        np.add((seat * (nf * 256))[:, None] + self._field_off, a[:, 2:5], out=idx[:, :nf])
        np.add(((sn + a[:, 4]) * (n * 256))[:, None] + self._trick_off, a[:, 5:],
               out=idx[:, nf:])  # trick: ((seat * n + leader) * n + position) * 256 + card
        np.take(self._lookup, idx, out=cols[:, :nf + n], mode="clip")  # all in range
        sore_abs = w[:, 2 + n:2 + 2 * n]
        revealed = phase != SORE
        si = (sn * 512 + revealed * 256)[:, None] + self._sore_off + (sore_abs & 255)
        np.take(self._sore_cols, si, axis=0, out=cols[:, nf + n:].reshape(rows, n, 3),
                mode="clip")
        cols += row_offsets(rows, size)
        out.fill(0.0)
        out.reshape(-1)[cols.reshape(-1)] = 1.0
        # -- dense pieces (the hand first: it overwrites the dump column) -------------------
        o = self._o
        mr = np.take(w, row_offsets(rows, k) + self._mask_idx[seat]).view(np.uint64)
        bits = unpack_u64(mr, DECK_SIZE)  # (rows, n + 2, 52): hand, removed, won by slot
        out[:, o["hand"]:o["hand"] + DECK_SIZE] = bits[:, 0]
        out[:, o["removed"]:o["removed"] + DECK_SIZE] = bits[:, 1]
        ow = o["won"]
        out[:, ow:ow + n * DECK_SIZE] = bits[:, 2:].reshape(rows, n * DECK_SIZE)
        out[:, o["cards_in_play"]:o["cards_in_play"] + DECK_SIZE] = self._used_row
        out[:, o["round_progress"]] = (a[:, 0] + (phase == GAME_OVER)) / self.game.num_rounds
        play = phase == PLAY
        if play.any():
            # round_score = card_points(won | sore card): every card +1, the sore suit's
            # cards instead minus their number - per slot from its uint64 mask, no bits
            sore = np.take(w, row_offsets(rows, k) + (2 + n) + absr)  # -1: the last entries
            held = mr[:, 2:] | _CARD_BIT[sore]
            seg = ((held >> _SUIT_SHIFT[sore]) & np.uint64((1 << RANKS) - 1)).astype(np.intp)
            score = popcount_u64(held) - _SORE_LOSS[seg]
            ors = o["round_scores"]
            out[:, ors:ors + n] = np.where(play[:, None], score, 0) / SCORE_SCALE
        ot = o["scores"]
        out[:, ot:ot + n] = np.take(w, row_offsets(rows, k) + (2 + 2 * n) + absr) / SCORE_SCALE

    def encode_state(self, s: WunderPunktState, out: np.ndarray) -> None:
        """Global state: seat 0's view plus every hand, every pick and who is to act."""
        self.encode(s, 0, out[: self.layout.size])
        so = self.state_layout.offsets
        put_hands_and_turn(out, so, s.hands, DECK_SIZE, s.current_player)
        for p in range(s.num_players):
            if s.sore_cards[p] >= 0:
                out[so["all_sore_cards"] + p * DECK_SIZE + s.sore_cards[p]] = 1.0

    def render(self, s: WunderPunktState, seat: int, show_all: bool = False) -> str:
        """The public table, plus the acting player's hand and pick (or everything)."""
        g = self.game
        names = DECK.names
        lines = []
        if s.over:
            lines.append(f"Wunder Punkt - game over after {g.num_rounds} rounds")
        else:
            lines.append(f"Wunder Punkt - round {s.round_index + 1}/{g.num_rounds}, "
                         f"dealer player_{s.dealer}")
            lines.append(f"phase: {PHASE_NAMES[s.phase]}; to act: player_{s.current_player}")
        lines.append("seat        sore  won  round  total")
        round_scores = s.current_round_scores()
        for p in range(s.num_players):
            card = s.sore_cards[p]
            if s.phase == GAME_OVER or card < 0:
                sore = "-"
            elif s.sore_revealed() or show_all or p == seat:
                sore = names[card]
            else:
                sore = "??"  # laid face down
            mark = "*" if p == s.current_player else " "
            lines.append(f"{mark}player_{p}  {sore:>4}  {s.won[p].bit_count():>3}  "
                         f"{round_scores[p]:>5}  {s.totals[p]:>5}")
        if s.phase == PLAY:
            sores = ", ".join(f"player_{p} {SUIT_NAMES[s.sore_suit(p)]}"
                              for p in range(s.num_players))
            lines.append(f"sore suits: {sores}")
            t = s.trick
            cards = ", ".join(f"player_{t.seat_of(i)} {names[c]}" for i, c in enumerate(t.cards))
            lines.append(f"trick (led by player_{t.leader}): {cards or '-'}")
        if s.phase in (SORE, PLAY):
            for p in (range(s.num_players) if show_all else [seat]):
                if p >= 0:
                    lines.append(f"hand of player_{p}: {' '.join(DECK.format_mask(s.hands[p]))}")
        return "\n".join(lines)


__all__ = ["SCORE_SCALE", "WunderPunktEncoder", "observation_layout"]
