"""What one Hoch & Tief seat knows, as a flat float32 vector, and as text.

Seats are relative: index 0 is the observer, 1 the player to its left, and
so on.  A seat knows its own hand and everything that lies face up: the
current trick, the cards every seat has taken this round (taken cards are
public in this game, and they decide the score), which suits a seat has
shown out of, and the scores.  The encoder reads no other hand; only
``encode_state`` (the global state for centralised critics) shows them all.
"""

from __future__ import annotations

import numpy as np

from stichzoo.envs.core.observation import Layout, Piece, put_bits
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
        n, size = game.num_players, game.tables.size
        self.size = size
        self.layout = observation_layout(n, size)
        self.state_layout = Layout([
            *self.layout.pieces,
            Piece("all_hands", n * size, doc="every seat's hand, absolute seat order"),
            Piece("to_act", n, doc="absolute seat to act"),
        ])
        self._o = self.layout.offsets

    def encode(self, s: HochTiefState, seat: int, out: np.ndarray) -> None:
        """Write ``seat``'s observation into ``out`` (overwritten entirely)."""
        out.fill(0.0)
        o = self._o
        n = s.num_players
        size = self.size
        t = s.tables
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

    def encode_state(self, s: HochTiefState, out: np.ndarray) -> None:
        """Global state: seat 0's view plus every hand and who is to act."""
        self.encode(s, 0, out[: self.layout.size])
        base = self.state_layout.offsets["all_hands"]
        for seat, hand in enumerate(s.hands):
            put_bits(out, base + seat * self.size, hand)
        if s.current_player >= 0:
            out[self.state_layout.offsets["to_act"] + s.current_player] = 1.0

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
