"""What one Silberne Ananas seat knows, as a flat float32 vector, and as text.

Seats are relative: index 0 is the observer, 1 its left neighbour, 2 its
right neighbour.  Nothing here reads another player's hand: the encoder is
given the state but touches only the observer's hand and public facts (the
trick, the cards played, suits shown out of, who has shown not to hold the
Joker, tricks taken, scores; the other hands' sizes, which everybody can
count).  The reading pieces at the end (version 1) are derived from these by
``reading.py``.  ``encode_state`` (the global state for
centralised critics) is the only place all hands appear.
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
from stichzoo.envs.silberne_ananas.reading import write_reading
from stichzoo.envs.silberne_ananas.rules import (
    DECK,
    DECK_SIZE,
    GAME_OVER,
    GIVE,
    HAND_SIZE,
    NUM_PLAYERS,
    NUM_SUITS,
    PHASE_NAMES,
    SUIT_NAMES,
    SilberneAnanasGame,
    SilberneAnanasState,
)

SCORE_SCALE = 100.0


def observation_layout() -> Layout:
    n = NUM_PLAYERS
    return Layout([
        Piece("hand", DECK_SIZE, doc="own cards, by card id (7h..Ah, 7d..Ad, 7s..As, 7c..Ac, "
                                     "Joker)"),
        Piece("phase", 3, doc="play, give_trick (the Joker's player gives the trick), game_over"),
        Piece("dealer", n, doc="relative seat of the dealer"),
        Piece("deal_progress", 1, doc="deals completed / most deals the game can last"),
        Piece("trick_leader", n, doc="relative seat that leads the current trick"),
        Piece("current_trick", n * DECK_SIZE, doc="per relative seat, its card in the trick "
                                                  "(a complete trick while the gift is decided)"),
        Piece("lead_suit", NUM_SUITS + 1, doc="suit to follow h, d, s, c, or none (empty trick "
                                              "or Joker led)"),
        Piece("played", DECK_SIZE, doc="every card played this deal (current trick included)"),
        Piece("voids", n * NUM_SUITS, doc="per relative seat, suits it showed out of this deal"),
        Piece("no_joker", n, doc="per relative seat, 1 if it cannot hold the Joker (showed out "
                                 "without playing it, or the Joker is out)"),
        Piece("tricks_won", n * (HAND_SIZE + 1), doc="per relative seat, tricks this deal, "
                                                     "one-hot 0..11"),
        Piece("scores", n, low=0.0, high=20.0, doc="per relative seat, game total / 100"),
        Piece("rules", 3, low=0.0, high=10.0, doc="match (1) or single deal (0); alone variant; "
                                                  "target_score / 100"),
        # the reading (version 1, envs/silberne_ananas/reading.py): facts the rules derive
        # from the pieces above, which the network would otherwise have to learn
        Piece("taker_values", n * n,
              doc="per relative seat, its value (0..1) of the current trick going to each "
                  "relative seat (the tricks to come split uniformly, then the standing); "
                  "all 0 after the game"),
        Piece("best_taker", n * n, doc="per relative seat, the relative seat it would most "
                                       "like to take the trick (a Joker's gift)"),
        Piece("card_takers", n * DECK_SIZE,
              doc="to play only: per relative seat and own legal card, the chance that the "
                  "seat takes the trick if the card is played now"),
        Piece("card_values", DECK_SIZE,
              doc="to play only: per own legal card, its value for this seat by "
                  "card_takers and taker_values, best legal card 1, worst 0"),
    ])


#: encode_many: the one-hot fields gathered per row (columns 2.. of its small ints)
_FIELDS = ("phase", "dealer", "trick_leader", "lead_suit")


@cache
def _batch_lookups() -> tuple[np.ndarray, int, np.ndarray]:
    """``encode_many``'s lookups, shared by every encoder (the layout never changes).

    Every one-hot column is a lookup entry, so a batch only computes indices:
    ``lookup[(seat * F + f) * 256 + v]`` is the column that field ``f``
    (:data:`_FIELDS`, then tricks won and no_joker per absolute seat) sets
    for value ``v`` seen from ``seat``; from the returned offset on,
    :func:`seat_trick_columns`; ``voids`` from :func:`seat_bit_columns`.
    Absent one-hots (an empty trick place, a seat that may hold the Joker,
    an unset void bit) point at the first hand column, which its dense
    write overwrites afterwards.
    """
    n = NUM_PLAYERS
    o = observation_layout().offsets
    dump = o["hand"]
    rel, _ = seat_lookups(n)
    nf = len(_FIELDS) + 2 * n
    fields = np.full((n, nf, 256), dump, np.intp)
    for seat in range(n):
        f = fields[seat]
        f[0, :3] = o["phase"] + np.arange(3)
        f[1, :n] = o["dealer"] + rel[seat]
        f[2, :n] = o["trick_leader"] + rel[seat]
        f[3, 0] = o["lead_suit"] + NUM_SUITS  # lead_suit + 1 = 0: nothing to follow
        f[3, 1:1 + NUM_SUITS] = o["lead_suit"] + np.arange(NUM_SUITS)
        for a in range(n):
            f[4 + a, :HAND_SIZE + 1] = (o["tricks_won"] + rel[seat, a] * (HAND_SIZE + 1)
                                        + np.arange(HAND_SIZE + 1))
            f[4 + n + a, 1] = o["no_joker"] + rel[seat, a]
    flat = fields.reshape(-1)
    lookup = np.concatenate([flat, seat_trick_columns(n, o["current_trick"], DECK_SIZE, dump)])
    voids = seat_bit_columns(n, o["voids"], NUM_SUITS, dump)
    lookup.flags.writeable = False
    voids.flags.writeable = False
    return lookup, flat.size, voids


class SilberneAnanasEncoder:
    def __init__(self, game: SilberneAnanasGame):
        self.game = game
        self.layout = observation_layout()
        n = NUM_PLAYERS
        self.state_layout = Layout([
            *self.layout.pieces,
            Piece("all_hands", n * DECK_SIZE, doc="every seat's hand, absolute seat order"),
            Piece("to_act", n, doc="absolute seat to act"),
        ])
        self._o = self.layout.offsets
        opts = game.options
        self._rules = (float(opts.match), float(opts.alone_variant),
                       opts.target_score / SCORE_SCALE)
        # encode_many's lookups and work arrays: made on its first call (_init_batch)
        self._scratch: Scratch | None = None

    def encode(self, s: SilberneAnanasState, seat: int, out: np.ndarray) -> None:
        """Write ``seat``'s observation into ``out`` (overwritten entirely)."""
        out.fill(0.0)
        o = self._o
        n = NUM_PLAYERS
        put_bits(out, o["hand"], s.hands[seat])
        out[o["phase"] + s.phase] = 1.0
        out[o["dealer"] + (s.dealer - seat) % n] = 1.0
        out[o["deal_progress"]] = (s.deal_index + (s.phase == GAME_OVER)) / self.game.max_deals
        trick = s.trick
        out[o["trick_leader"] + (trick.leader - seat) % n] = 1.0
        oc = o["current_trick"]
        for i, c in enumerate(trick.cards):
            out[oc + ((trick.leader + i - seat) % n) * DECK_SIZE + c] = 1.0
        out[o["lead_suit"] + (s.lead_suit if s.lead_suit >= 0 else NUM_SUITS)] = 1.0
        put_bits(out, o["played"], s.played)
        ov, oj, ot, osc = o["voids"], o["no_joker"], o["tricks_won"], o["scores"]
        for rel in range(n):
            p = (seat + rel) % n
            v = s.voids[p]
            for suit in range(NUM_SUITS):
                if (v >> suit) & 1:
                    out[ov + rel * NUM_SUITS + suit] = 1.0
            if s.no_joker[p]:
                out[oj + rel] = 1.0
            out[ot + rel * (HAND_SIZE + 1) + s.tricks_won[p]] = 1.0
            out[osc + rel] = s.totals[p] / SCORE_SCALE
        orl = o["rules"]
        out[orl : orl + 3] = self._rules
        write_reading(s, seat, out, o)

    def _init_batch(self) -> None:
        """Set up what ``encode_many`` needs, once: most envs never batch, so they skip it."""
        n = NUM_PLAYERS
        self._lookup, trick0, self._void_cols = _batch_lookups()
        self._pads = trick_pads(n)
        nf = len(_FIELDS) + 2 * n
        self._field_off = np.arange(nf, dtype=np.intp) * 256
        # trick: entry trick0 + ((seat * n + leader) * n + position) * 256 + card
        self._trick_off = trick0 + np.arange(n, dtype=np.intp) * 256
        # voids: row (seat * n + a) * 16 + v of the void lookup
        self._void_off = np.arange(n, dtype=np.intp) * (1 << NUM_SUITS)
        self._abs = seat_lookups(n)[1]
        # reused work arrays: small ints, lookup indices, columns (see Scratch)
        self._scratch = Scratch()
        self._scratch_specs = (((6 + 3 * n,), np.intp), ((nf + n,), np.intp),
                               ((nf + (1 + NUM_SUITS) * n,), np.intp))

    def encode_many(self, states: Sequence[SilberneAnanasState], seats: Sequence[int],
                    out: np.ndarray) -> None:
        """Write ``states[i]``'s observation for ``seats[i]`` into ``out[i]`` (all overwritten).

        Bit for bit what :meth:`encode` writes row by row, several times
        faster per row: the batched engine steps hundreds of games together.
        The Python loop only gathers ints into flat lists (small ones through
        ``bytearray``, bitmasks as uint64); every one-hot column of all rows
        is then looked up in shared lookups and set by one scatter, the bits
        unpacked at once.  ``out``: C-contiguous float32 ``(len(states),
        layout.size)``; seats 0..2.
        """
        rows = len(states)
        size = self.layout.size
        seats = check_batch_args(out, states, seats, size)
        if not rows:
            return
        if self._scratch is None:
            self._init_batch()
        n = NUM_PLAYERS
        pads = self._pads
        # -- gather: the only per-row Python, appends of ints to flat lists ------------
        small: list[int] = []  # per row: 6 fields, tricks_won, voids, trick padded
        jokers: list[bool] = []  # per row: no_joker[n] (bools: apart, they would slow small)
        wide: list[int] = []  # per row: own hand, played, totals[n]
        try:
            for s, p in zip(states, seats):
                t = s.trick
                c = t.cards
                small += (s.deal_index, p, s.phase, s.dealer, t.leader, s.lead_suit + 1)
                small += s.tricks_won
                small += s.voids
                jokers += s.no_joker
                small += c
                small += pads[len(c)]
                wide += (s.hands[p], s.played)
                wide += s.totals
        except IndexError:
            bad = sorted({p for p in seats if not 0 <= p < n})
            raise ValueError(f"seats must be 0..{n - 1}, not {bad}") from None
        nf = len(_FIELDS) + 2 * n
        a, idx, cols = self._scratch.arrays(rows, self._scratch_specs)
        small_ints(small, 6 + 3 * n, out=a)
        jk = np.frombuffer(bytearray(jokers), np.uint8).reshape(rows, n)
        seat, phase = a[:, 1], a[:, 2]
        sn = seat * n
        # -- one-hots: every column looked up in the shared lookups, then one scatter -----
        fi = idx[:, :nf]  # fields: (seat * F + f) * 256 + value
        np.add((seat * (nf * 256))[:, None], self._field_off, out=fi)
        fi[:, :nf - n] += a[:, 2:2 + nf - n]
        fi[:, nf - n:] += jk
        np.add(((sn + a[:, 4]) * (n * 256))[:, None] + self._trick_off, a[:, 6 + 2 * n:],
               out=idx[:, nf:])  # trick: ((seat * n + leader) * n + position) * 256 + card
        np.take(self._lookup, idx, out=cols[:, :nf + n], mode="clip")  # all in range
        vi = (sn * (1 << NUM_SUITS))[:, None] + self._void_off + a[:, 6 + n:6 + 2 * n]
        np.take(self._void_cols, vi, axis=0,
                out=cols[:, nf + n:].reshape(rows, n, NUM_SUITS), mode="clip")
        cols += row_offsets(rows, size)
        out.fill(0.0)
        out.reshape(-1)[cols.reshape(-1)] = 1.0
        # -- dense pieces (the hand first: it overwrites the dump column) -------------------
        o = self._o
        w = np.fromiter(wide, np.int64, (2 + n) * rows).reshape(rows, 2 + n)
        bits = unpack_u64(w[:, :2], DECK_SIZE)
        out[:, o["hand"]:o["hand"] + DECK_SIZE] = bits[:, 0]
        out[:, o["played"]:o["played"] + DECK_SIZE] = bits[:, 1]
        out[:, o["deal_progress"]] = (a[:, 0] + (phase == GAME_OVER)) / self.game.max_deals
        osc = o["scores"]
        tot = np.take(w, row_offsets(rows, 2 + n) + 2 + self._abs[seat])
        out[:, osc:osc + n] = tot / SCORE_SCALE
        orl = o["rules"]
        out[:, orl:orl + 3] = self._rules
        # the reading: derived per state by the rules (envs/silberne_ananas/reading.py)
        for i, (s, p) in enumerate(zip(states, seats)):
            write_reading(s, int(p), out[i], o)

    def encode_state(self, s: SilberneAnanasState, out: np.ndarray) -> None:
        """Global state: seat 0's view plus every hand and who is to act."""
        self.encode(s, 0, out[: self.layout.size])
        put_hands_and_turn(out, self.state_layout.offsets, s.hands, DECK_SIZE, s.current_player)

    def render(self, s: SilberneAnanasState, seat: int, show_all: bool = False) -> str:
        """The public table, plus the acting player's hand (or every hand)."""
        g = self.game
        names = DECK.names
        lines = []
        kind = (f"match to {g.options.target_score}" if g.options.match else "single deal")
        if s.over:
            win = ", ".join(f"player_{w}" for w in s.winners())
            lines.append(f"Silberne Ananas ({kind}) - game over after {len(s.deal_scores)} "
                         f"deal(s); winner(s): {win}")
        else:
            lead = SUIT_NAMES[s.lead_suit] if s.lead_suit >= 0 else "-"
            lines.append(f"Silberne Ananas ({kind}) - deal {s.deal_index + 1}, dealer "
                         f"player_{s.dealer}; suit to follow: {lead}")
            lines.append(f"phase: {PHASE_NAMES[s.phase]}; to act: player_{s.current_player}")
        lines.append("seat        tricks  score")
        for p in range(NUM_PLAYERS):
            mark = "*" if p == s.current_player else " "
            lines.append(f"{mark}player_{p}  {s.tricks_won[p]:>6}  {s.totals[p]:>5}")
        if not s.over:
            t = s.trick
            cards = ", ".join(f"player_{t.seat_of(i)} {names[c]}" for i, c in enumerate(t.cards))
            lines.append(f"trick (led by player_{t.leader}): {cards or '-'}")
            if s.phase == GIVE:
                lines.append(f"player_{s.current_player} played the Joker and gives the trick "
                             f"(self, left or right)")
            seats = range(NUM_PLAYERS) if show_all else [seat]
            for p in seats:
                if p >= 0:
                    lines.append(f"hand of player_{p}: {' '.join(DECK.format_mask(s.hands[p]))}")
        return "\n".join(lines)


__all__ = ["SilberneAnanasEncoder", "observation_layout"]
