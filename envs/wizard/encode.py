"""What one Wizard seat knows, as a flat float32 vector, and as text.

Seats are relative: index 0 is the observer, 1 the player to its left, and
so on.  Nothing here reads another player's hand: the encoder is given the
state but touches only the observer's hand and public facts (the turned
card, bids, tricks, played cards, voids shown, scores).  ``state`` (the
global state for centralised critics) is the only place all hands appear.
"""

from __future__ import annotations

import numpy as np

from stichzoo.envs.core.observation import Layout, Piece, put_bits
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

    def encode_state(self, s: WizardState, out: np.ndarray) -> None:
        """Global state: seat 0's view plus every hand and who is to act."""
        self.encode(s, 0, out[: self.layout.size])
        base = self.state_layout.offsets["all_hands"]
        for seat, hand in enumerate(s.hands):
            put_bits(out, base + seat * DECK_SIZE, hand)
        if s.current_player >= 0:
            out[self.state_layout.offsets["to_act"] + s.current_player] = 1.0

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
