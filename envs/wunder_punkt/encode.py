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

import numpy as np

from stichzoo.envs.core.observation import Layout, Piece, put_bits
from stichzoo.envs.wunder_punkt.rules import (
    CARD_SUIT,
    DECK,
    DECK_SIZE,
    GAME_OVER,
    NUM_SUITS,
    PHASE_NAMES,
    PLAY,
    SORE,
    SUIT_NAMES,
    WunderPunktGame,
    WunderPunktState,
)

SCORE_SCALE = 100.0


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

    def encode_state(self, s: WunderPunktState, out: np.ndarray) -> None:
        """Global state: seat 0's view plus every hand, every pick and who is to act."""
        self.encode(s, 0, out[: self.layout.size])
        so = self.state_layout.offsets
        for p in range(s.num_players):
            put_bits(out, so["all_hands"] + p * DECK_SIZE, s.hands[p])
            if s.sore_cards[p] >= 0:
                out[so["all_sore_cards"] + p * DECK_SIZE + s.sore_cards[p]] = 1.0
        if s.current_player >= 0:
            out[so["to_act"] + s.current_player] = 1.0

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
