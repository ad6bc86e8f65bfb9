"""What one Geheimtrumpf seat knows, as a flat float32 vector, and as text.

Seats are relative: index 0 is the observer, 1 the player to its left, and
so on.  Geheimtrumpf is nearly a perfect-information game once the draft is
done - drafted cards lie face up, so every hand is public - and the
deduction lies in the three secrets the encoder must never touch:

- the trumps, for everyone but the start player, until the draft ends
  (only the announced row winners, the evidence, are shown);
- the other players' task choices until all have chosen;
- with 3 players, which face-down card lay in which row (the set-aside
  cards are never encoded; the layout holds only face-up cards).

``state`` (the global state for centralised critics) is the only place the
secrets appear.
"""

from __future__ import annotations

import numpy as np

from stichzoo.envs.core.observation import Layout, Piece, put_bits
from stichzoo.envs.geheimtrumpf.rules import (
    CARD_DRAFT,
    CHECK_OFF,
    DECK,
    GAME_OVER,
    NUM_CARDS,
    NUM_SUITS,
    NUM_TASKS,
    PHASE_NAMES,
    PLAY,
    ROW_LEN,
    ROWS,
    SUIT_NAMES,
    TASK_CHOICE,
    TASK_DRAFT,
    TASK_NAMES,
    VALUES,
    GeheimtrumpfGame,
    GeheimtrumpfState,
)

TRICKS = ROWS  # nine tricks a round, one card from each row per player


def observation_layout(n: int) -> Layout:
    cards = "36 card ids AH..9H, AD..9D, AS..9S, AC..9C"
    return Layout([
        Piece("phase", len(PHASE_NAMES), doc="task_draft, card_draft, task_choice, play, "
                                              "check_off, game_over"),
        Piece("start_player", n, doc="relative seat of this round's start player"),
        Piece("round_progress", 1, doc="rounds begun / round_limit"),
        Piece("tasks_held", n * NUM_TASKS, doc="per relative seat, the tasks it holds (public)"),
        Piece("tasks_checked", n * NUM_TASKS, doc="per relative seat, its checked tasks"),
        Piece("trumps_known", 1, doc="1 once this seat knows the trumps (start player: "
                                     "always; others: after the draft)"),
        Piece("trump_suit", NUM_SUITS + 1, doc="H, D, S, C, or none; all 0 while unknown"),
        Piece("trump_value", VALUES + 1, doc="A, 2..9, or none; all 0 while unknown"),
        Piece("layout", ROWS * NUM_CARDS,
              doc=f"per row, its face-up cards not yet taken ({cards})"),
        Piece("draft_row", ROWS + 1, doc="the row being drafted, or the last slot: draft over"),
        Piece("row_leads", ROWS * n, doc="per row, the relative seat with first choice"),
        Piece("draft", ROWS * n * NUM_CARDS, doc="per row, per relative seat, the card it took"),
        Piece("row_winners", ROWS * n, doc="per finished row, the announced winner (relative)"),
        Piece("hands", n * NUM_CARDS, doc="per relative seat, the cards it holds (all public)"),
        Piece("chosen", n * NUM_TASKS, doc="per relative seat, its chosen task; own at once, "
                                           "the others' once all are revealed"),
        Piece("trick_leaders", TRICKS * n, doc="per trick so far (current included), its leader"),
        Piece("tricks", TRICKS * n * NUM_CARDS, doc="per trick, per relative seat, its card"),
        Piece("tricks_won", n * (TRICKS + 1), doc="per relative seat, tricks won one-hot 0..9"),
        Piece("won_cards", n * NUM_CARDS, doc="per relative seat, the cards of its tricks"),
    ])


class GeheimtrumpfEncoder:
    def __init__(self, game: GeheimtrumpfGame):
        self.game = game
        n = game.num_players
        self.layout = observation_layout(n)
        self.state_layout = Layout([
            *self.layout.pieces,
            Piece("true_trump_suit", NUM_SUITS + 1, doc="this round's trump suit (or none)"),
            Piece("true_trump_value", VALUES + 1, doc="this round's trump value (or none)"),
            Piece("all_chosen", n * NUM_TASKS, doc="every chosen task, absolute seat order"),
            Piece("set_aside", ROWS * NUM_CARDS, doc="3 players: per row its face-down card"),
            Piece("to_act", n, doc="absolute seat to act"),
        ])
        self._o = self.layout.offsets

    def encode(self, s: GeheimtrumpfState, seat: int, out: np.ndarray) -> None:
        """Write ``seat``'s observation into ``out`` (overwritten entirely)."""
        out.fill(0.0)
        o = self._o
        n = s.num_players
        phase = s.phase
        out[o["phase"] + phase] = 1.0
        out[o["start_player"] + (s.start - seat) % n] = 1.0
        out[o["round_progress"]] = (s.round_index + (phase != TASK_DRAFT)) / self.game.round_limit
        oh, oc = o["tasks_held"], o["tasks_checked"]
        for rel in range(n):
            p = (seat + rel) % n
            put_bits(out, oh + rel * NUM_TASKS, s.held[p])
            put_bits(out, oc + rel * NUM_TASKS, s.checked[p])
        if phase in (TASK_DRAFT, GAME_OVER):
            return
        if s.trumps_known_to(seat):
            self._put_trumps(s, out, o["trump_suit"], o["trump_value"])
            out[o["trumps_known"]] = 1.0
        ol = o["layout"]
        layout = s.layout
        for r in range(ROWS):
            put_bits(out, ol + r * NUM_CARDS, s.rows[r] & layout)
        row = s.draft_row
        out[o["draft_row"] + row] = 1.0
        olead, od, ow = o["row_leads"], o["draft"], o["row_winners"]
        first_rel = (s.start + 1 - seat) % n
        for r in range(min(row + 1, ROWS)):
            lead = (first_rel + r) % n
            out[olead + r * n + lead] = 1.0
            taken = s.draft_rows[r] if r < row else s.row_cards
            for i, c in enumerate(taken):
                out[od + (r * n + (lead + i) % n) * NUM_CARDS + c] = 1.0
            if r < row:
                out[ow + r * n + (s.row_winners[r] - seat) % n] = 1.0
        ohand, och = o["hands"], o["chosen"]
        for rel in range(n):
            p = (seat + rel) % n
            put_bits(out, ohand + rel * NUM_CARDS, s.hands[p])
            t = s.chosen[p]
            if t >= 0 and s.chosen_visible_to(seat, p):
                out[och + rel * NUM_TASKS + t] = 1.0
        if phase != PLAY and phase != CHECK_OFF:
            return
        otl, ot = o["trick_leaders"], o["tricks"]
        k = 0
        for leader, cards, _ in s.tricks:
            lead = (leader - seat) % n
            out[otl + k * n + lead] = 1.0
            for i, c in enumerate(cards):
                out[ot + (k * n + (lead + i) % n) * NUM_CARDS + c] = 1.0
            k += 1
        if k < TRICKS:
            trick = s.trick
            lead = (trick.leader - seat) % n
            out[otl + k * n + lead] = 1.0
            for i, c in enumerate(trick.cards):
                out[ot + (k * n + (lead + i) % n) * NUM_CARDS + c] = 1.0
        otw, owc = o["tricks_won"], o["won_cards"]
        for rel in range(n):
            p = (seat + rel) % n
            out[otw + rel * (TRICKS + 1) + s.tricks_won[p]] = 1.0
            put_bits(out, owc + rel * NUM_CARDS, s.won_cards[p])

    @staticmethod
    def _put_trumps(s: GeheimtrumpfState, out: np.ndarray, os_: int, ov: int) -> None:
        t = s.trumps
        out[os_ + (t.suit if t.suit >= 0 else NUM_SUITS)] = 1.0
        out[ov + (t.value - 1 if t.value else VALUES)] = 1.0

    def encode_state(self, s: GeheimtrumpfState, out: np.ndarray) -> None:
        """Global state: seat 0's view plus the secrets and who is to act."""
        self.encode(s, 0, out[: self.layout.size])
        so = self.state_layout.offsets
        n = s.num_players
        if s.phase not in (TASK_DRAFT, GAME_OVER):
            self._put_trumps(s, out, so["true_trump_suit"], so["true_trump_value"])
            if n == 3:
                order = s.deck_orders[s.round_index]
                for r in range(ROWS):
                    out[so["set_aside"] + r * NUM_CARDS + order[r * ROW_LEN + 3]] = 1.0
        for p, t in enumerate(s.chosen):
            if t >= 0:
                out[so["all_chosen"] + p * NUM_TASKS + t] = 1.0
        if s.current_player >= 0:
            out[so["to_act"] + s.current_player] = 1.0

    def render(self, s: GeheimtrumpfState, seat: int, show_all: bool = False) -> str:
        """The public table as ``seat`` sees it (``show_all``: the secrets too)."""
        g = self.game
        names = DECK.names
        n = s.num_players
        lines = []
        if s.over or s.truncated:
            how = "won by " + ", ".join(f"player_{p}" for p in s.winners()) if s.over else \
                f"truncated at the round limit {g.round_limit}"
            lines.append(f"Geheimtrumpf - game over after {s.round_index + 1} rounds, {how}")
        elif s.phase == TASK_DRAFT:
            lines.append("Geheimtrumpf - task draft")
        else:
            lines.append(f"Geheimtrumpf - round {s.round_index + 1}/{g.round_limit}, "
                         f"start player player_{s.start}")
        if s.current_player >= 0:
            lines.append(f"phase: {PHASE_NAMES[s.phase]}; to act: player_{s.current_player}")
        if s.phase not in (TASK_DRAFT, GAME_OVER):
            if show_all or seat < 0 or s.trumps_known_to(seat):
                t = s.trumps
                suit = SUIT_NAMES[t.suit] if t.suit >= 0 else "none"
                value = str(t.value) if t.value else "none"
                lines.append(f"trumps: suit {suit}, value {value}")
            else:
                lines.append("trumps: secret (known to the start player)")
        lines.append("seat      tasks (checked marked +)                          chosen  tricks")
        for p in range(n):
            held = " ".join(("+" if (s.checked[p] >> t) & 1 else "") + TASK_NAMES[t]
                            for t in range(NUM_TASKS) if (s.held[p] >> t) & 1)
            c = s.chosen[p]
            chosen = "-" if c < 0 else (TASK_NAMES[c] if show_all or seat < 0
                                        or s.chosen_visible_to(seat, p) else "(secret)")
            mark = "*" if p == s.current_player else " "
            lines.append(f"{mark}player_{p} {held:<50} {chosen:>12} {s.tricks_won[p]:>3}")
        if s.phase == CARD_DRAFT:
            for r in range(s.draft_row, ROWS):
                left = s.rows[r] & s.layout
                lines.append(f"row {r + 1}: {' '.join(DECK.format_mask(left))}")
        if s.row_winners:
            lines.append("row winners: " + " ".join(
                f"{r + 1}:player_{w}" for r, w in enumerate(s.row_winners)))
        if s.phase in (CARD_DRAFT, TASK_CHOICE, PLAY, CHECK_OFF):
            for p in range(n):
                lines.append(f"hand of player_{p}: {' '.join(DECK.format_mask(s.hands[p]))}")
        if s.phase == PLAY:
            t = s.trick
            cards = ", ".join(f"player_{t.seat_of(i)} {names[c]}" for i, c in enumerate(t.cards))
            lines.append(f"trick {len(s.tricks) + 1} (led by player_{t.leader}): {cards or '-'}")
        return "\n".join(lines)


__all__ = ["GeheimtrumpfEncoder", "observation_layout"]
