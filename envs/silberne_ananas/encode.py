"""What one Silberne Ananas seat knows, as a flat float32 vector, and as text.

Seats are relative: index 0 is the observer, 1 its left neighbour, 2 its
right neighbour.  Nothing here reads another player's hand: the encoder is
given the state but touches only the observer's hand and public facts (the
trick, the cards played, suits shown out of, who has shown not to hold the
Joker, tricks taken, scores).  ``encode_state`` (the global state for
centralised critics) is the only place all hands appear.
"""

from __future__ import annotations

import numpy as np

from stichzoo.envs.core.observation import Layout, Piece, put_bits
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
    ])


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

    def encode_state(self, s: SilberneAnanasState, out: np.ndarray) -> None:
        """Global state: seat 0's view plus every hand and who is to act."""
        self.encode(s, 0, out[: self.layout.size])
        base = self.state_layout.offsets["all_hands"]
        for seat, hand in enumerate(s.hands):
            put_bits(out, base + seat * DECK_SIZE, hand)
        if s.current_player >= 0:
            out[self.state_layout.offsets["to_act"] + s.current_player] = 1.0

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
