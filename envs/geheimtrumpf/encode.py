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

from collections.abc import Sequence
from itertools import chain
from operator import itemgetter

import numpy as np

from stichzoo.envs.core.batch_bits import PAD, check_batch_args, small_ints, trick_pads
from stichzoo.envs.core.observation import Layout, Piece, put_bits
from stichzoo.envs.geheimtrumpf.reading import (
    NUM_DRAWS,
    TASK_STATE,
    trick_reading_width,
    write_reading,
)
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

_leader_of, _cards_of = itemgetter(0), itemgetter(1)  # of a finished trick (leader, cards, _)
_chain = chain.from_iterable
# fills, in encode_many's gathered lists, the trick slots not yet played and the row
# winners and trick leaders not yet known (no card id or seat is that high)
_NO_CARD = _NO_SEAT = PAD


def unpack_masks(masks: np.ndarray, nbits: int) -> np.ndarray:
    """Bits ``0 .. nbits-1`` (``nbits`` <= 63) of every int64 mask: ``(masks.size, nbits)``
    uint8 0/1.

    Every Geheimtrumpf mask (36 cards, 11 tasks) fits one int64, so a whole
    batch's masks unpack in one call (little-endian bytes, lowest bit first).
    """
    raw = np.ascontiguousarray(masks, "<i8").view(np.uint8).reshape(-1, 8)
    return np.unpackbits(raw, axis=1, count=nbits, bitorder="little")


class _BatchLookups:
    """Column lookups of one player count for :meth:`GeheimtrumpfEncoder.encode_many`.

    Built once per encoder.  Each one-hot entry's column is one gather from
    a lookup indexed by what the state holds (a seat, a row, a card, or a
    padding byte), so that no entry costs a chain of ``% n`` and products,
    and an entry that is absent (a padding byte, a row not begun, a task
    not visible) gets the ``dump`` column instead of being masked out: the
    first ``tasks_held`` column, which encode_many writes densely after
    the scatter, so that a stray 1.0 there never survives.
    """

    def __init__(self, n: int, o: dict[str, int]):
        rel = np.arange(n)
        r = np.arange(ROWS)
        f = rel[:, None]
        self.dump = dump = o["tasks_held"]
        if o["tasks_checked"] != dump + n * NUM_TASKS:
            raise AssertionError("tasks_held and tasks_checked must be adjacent")
        #: [observer] -> absolute seat of each relative seat
        self.rot = (f + rel) % n
        #: column offsets of two runs of n per-seat values: [[0], [n]]
        self.pair = np.array([[0], [n]])
        #: trump suit + 1 (0: none) and trump value (0: none) -> their columns
        self.trump_suit = o["trump_suit"] + np.array([NUM_SUITS, *range(NUM_SUITS)])
        self.trump_value = o["trump_value"] + np.array([VALUES, *range(VALUES)])
        #: [first chooser of row 0 (relative) * 10 + rows drafted, row] -> that row's first
        #: chooser's column, for the rows begun (0 .. rows drafted, at most 8)
        leads = o["row_leads"] + r * n + (f + r) % n  # [first, row]
        begun = r <= np.arange(ROWS + 1)[:, None]  # [rows drafted, row]
        self.row_leads = np.where(begun, leads[:, None, :], dump).reshape(n * (ROWS + 1), ROWS)
        #: [(observer * 9 + row) * 256 + winner] -> the winner's column (PAD: none yet)
        w = np.full((n, ROWS, 256), dump)
        w[:, :, :n] = o["row_winners"] + r[:, None] * n + (rel - f[:, :, None]) % n
        self.row_winners = w.reshape(-1)
        self.row256 = r * 256
        #: [(seat may see all * n + relative seat) * 12 + task + 1] -> chosen column
        ch = np.full((2, n, NUM_TASKS + 1), dump)
        ch[1, :, 1:] = o["chosen"] + rel[:, None] * NUM_TASKS + np.arange(NUM_TASKS)
        ch[0, 0, 1:] = ch[1, 0, 1:]  # before the reveal only one's own choice
        self.chosen = ch.reshape(-1)
        self.chosen_rel = rel * (NUM_TASKS + 1)
        #: [relative seat, row, exponent of the taken card's bit (0: none)] -> draft column
        d = np.full((n, ROWS, NUM_CARDS + 1), dump)
        d[:, :, 1:] = (o["draft"] + (r[:, None] * n + f[:, :, None]) * NUM_CARDS
                       + np.arange(NUM_CARDS))
        self.draft = d.reshape(-1)
        self.draft_at = (rel[:, None] * ROWS + r) * (NUM_CARDS + 1)  # [relative seat, row]
        self.tricks_won = o["tricks_won"] + rel * (TRICKS + 1)
        #: [(observer * 9 + trick) * 256 + leader] -> the leader's column (PAD: not yet)
        t = np.full((n, TRICKS, 256), dump)
        t[:, :, :n] = o["trick_leaders"] + r[:, None] * n + (rel - f[:, :, None]) % n
        self.trick_leaders = t.reshape(-1)
        #: [((trick * n + leader (relative)) * n + place) * 256 + card] -> the card's column
        #: (PAD: not played yet)
        seat_of = (f + rel) % n  # [leader, place] -> relative seat
        c = np.full((TRICKS, n, n, 256), dump)
        c[..., :NUM_CARDS] = (o["tricks"] + (r[:, None, None, None] * n + seat_of[..., None])
                              * NUM_CARDS + np.arange(NUM_CARDS))
        self.tricks = c.reshape(-1)
        self.place256 = rel * 256
        self.seat_of = seat_of
        #: 2 ** card as a float (exact), 0 for PAD: the mask bit of a played card
        self.card_bit = np.zeros(256)
        self.card_bit[:NUM_CARDS] = np.ldexp(1.0, np.arange(NUM_CARDS))
        #: padding for the flat lists: the row winners of k rows to 9, a trick of k
        #: cards to n, and no current trick (leader and n cards)
        self.seat_pad = [(_NO_SEAT,) * (ROWS - k) for k in range(ROWS + 1)]
        self.trick_pad = trick_pads(n)
        self.no_trick = (_NO_SEAT,) + (_NO_CARD,) * n


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
        # the reading (version 1, envs/geheimtrumpf/reading.py): facts the rules derive
        # from the pieces above, which the network would otherwise have to learn
        Piece("trump_candidates", NUM_DRAWS,
              doc="the trump draws (suit none, H, D, S, C x value none, A..9) that agree "
                  "with every announced row winner; the true draw alone once this seat "
                  "knows the trumps; all 0 in the task draft"),
        Piece("trumps", NUM_CARDS, doc="play phase: the cards that are trumps"),
        Piece("led_beaters", NUM_CARDS,
              doc="play phase: per card, the share of the other 35 that beat it if it is led"),
        Piece("trick_winner", n, doc="play phase: the relative seat winning the current trick "
                                     "(all 0 before its first card)"),
        Piece("takes_trick", NUM_CARDS,
              doc="play phase: the cards of this seat's hand that would win the current "
                  "trick if played now (leading: every card)"),
        Piece("overtake", NUM_CARDS,
              doc="play phase: per card of takes_trick, the share of the seats still to "
                  "play after it that hold a legal card beating it"),
        Piece("safe", NUM_CARDS,
              doc="play phase: the cards of takes_trick that no seat still to play can beat"),
        # the draft reading (version 2, envs/geheimtrumpf/chances.py): the heuristic's
        # chance estimates, for the seat choosing a card in the card draft only
        Piece("take_chances", NUM_CARDS,
              doc="card draft, the seat to choose: per card of the row, the estimated "
                  "chance of its best open task if it takes the card and drafts toward "
                  "that task in the later rows"),
        Piece("task_chances", NUM_TASKS,
              doc="card draft, the seat to choose: per open task, its best "
                  "take_chances value over the row"),
        Piece("win_chances", NUM_CARDS,
              doc="card draft, the seat to choose: per card, its estimated chance to win "
                  "a trick under the trumps as this seat knows them (the average over "
                  "the trump_candidates while they are secret)"),
        # the task state (version 3): what each revealed task asks of its seat's play
        Piece("task_state", n * TASK_STATE,
              doc="play phase: per relative seat with a chosen task, 8 columns: wants "
                  "tricks (an exact count not yet reached, or most tricks), ducks (an exact "
                  "count reached, or fewest tricks), missed (an exact count passed, or a "
                  "no-suit task's suit won), tricks the exact count still needs / 3, and "
                  "the suit (H, D, S, C) a no-suit task still keeps clean; last trick: all 0"),
        # the trick reading (version 4, envs/geheimtrumpf/steering.py): the current
        # trick played ahead, the later seats answering as the heuristic steers them
        Piece("trick_reading", NUM_CARDS * trick_reading_width(n),
              doc="play phase, the seat to play: per legal card (36 x (n + 4)), the "
                  "relative seat taking the trick when the seats still to play answer "
                  "as the heuristic steers them to their tasks, and the printed suits "
                  "(H, D, S, C) among the trick's cards; all 0 for other cards"),
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
        self._batch: _BatchLookups | None = None  # built by the first encode_many

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
        write_reading(s, seat, out, o, n)
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

    def encode_many(self, states: Sequence[GeheimtrumpfState], seats: Sequence[int],
                    out: np.ndarray) -> None:
        """Write ``states[i]``'s observation for ``seats[i]`` into ``out[i]`` (overwritten).

        Bit for bit what :meth:`encode` writes row by row, several times
        faster per row: the batched engine steps many games at once and
        must not spend its time here.  The Python loop only appends each
        state's ints to flat lists - ints 0..255 apart (they convert to
        numpy ~6x faster, through ``bytearray``), short lists padded to a
        fixed length, nothing a phase does not show - and each state's list
        of finished tricks, flattened after the loop; relative seats, bit
        unpacking and the one-hot columns (looked up in :class:`_BatchLookups`)
        are then numpy operations over the whole ``(N, size)`` block, the
        one-hots set by one flat scatter.

        The draft is not read card by card: the card a seat took from a
        row is the one card of that row among its hand and the cards it
        played (the rules move a drafted card only from hand to trick).
        ``out``: C-contiguous, writeable float32 ``(len(states),
        layout.size)``; all states of games with this encoder's player
        count; ``seats[i]`` a seat ``0 .. n-1``.
        """
        n = self.game.num_players
        size = self.layout.size
        big = len(states)
        seats = check_batch_args(out, states, seats, size)
        if not big:
            return
        seat = np.fromiter(seats, np.int64, big)
        if seat.view(np.uint64).max() >= n:  # a negative seat wraps around to a huge one
            raise ValueError(f"geheimtrumpf: seats must lie in 0..{n - 1}")
        tb = self._batch
        if tb is None:
            tb = self._batch = _BatchLookups(n, self._o)
        seat_pad = tb.seat_pad
        # -- gather.  Every state: phase, start (small); round, held and checked tasks.
        small: list[int] = []
        wide: list[int] = []
        # Past the task draft and not over ("mid" states): trump suit + 1, trump
        # value, rows drafted, the row winners padded to 9 (small); layout,
        # hands, chosen tasks (-1: none), the rows' cards (wide).
        msmall: list[int] = []
        mwide: list[int] = []
        # In play and check-off: tricks won, the current trick's leader and cards
        # padded to n (small; all PAD after the ninth trick); won cards (wide);
        # each state's list of finished tricks, flattened after the loop (faster
        # than per state: the tricks are the bulk of what is gathered).
        psmall: list[int] = []
        pwide: list[int] = []
        finished: list[list[tuple[int, tuple[int, ...], int]]] = []
        sextend, wextend, wappend = small.extend, wide.extend, wide.append
        msextend, mwextend, mwappend = msmall.extend, mwide.extend, mwide.append
        psextend, psappend, pwextend = psmall.extend, psmall.append, pwide.extend
        fappend = finished.append
        trick_pad, no_trick = tb.trick_pad, tb.no_trick
        hidden = (TASK_DRAFT, GAME_OVER)  # nothing past the tasks is shown
        tricks_shown = (PLAY, CHECK_OFF)
        for s in states:
            ph = s.phase
            sextend((ph, s.start))
            wappend(s.round_index)
            wextend(s.held)
            wextend(s.checked)
            if ph in hidden:
                continue
            t = s.trumps
            rw = s.row_winners
            nr = len(rw)
            msextend((t.suit + 1, t.value, nr))
            msextend(rw)
            if nr < ROWS:
                msextend(seat_pad[nr])
            mwappend(s.layout)
            mwextend(s.hands)
            mwextend(s.chosen)
            mwextend(s.rows)
            if ph in tricks_shown:
                psextend(s.tricks_won)
                pwextend(s.won_cards)
                tricks = s.tricks
                fappend(tricks)
                if len(tricks) < TRICKS:
                    trick = s.trick
                    played = trick.cards
                    psappend(trick.leader)
                    psextend(played)
                    psextend(trick_pad[len(played)])
                else:  # check-off: the last trick is finished, none is current
                    psextend(no_trick)
        # -- numpy: dense pieces, and the flat index of every one-hot entry
        out.fill(0.0)
        o = self._o
        sm = small_ints(small, 2)
        phase, start = sm[:, 0], sm[:, 1]
        wd = np.fromiter(wide, np.int64, big * (1 + 2 * n)).reshape(big, 1 + 2 * n)
        rot = tb.rot[seat]  # [state, relative seat] -> absolute seat
        base = np.arange(0, big * size, size)  # flat index of each row's first entry
        out[:, o["round_progress"]] = (wd[:, 0] + (phase != TASK_DRAFT)) / self.game.round_limit
        parts = [base + o["phase"] + phase, base + o["start_player"] + (start - seat) % n]
        mrow = ((phase != TASK_DRAFT) & (phase != GAME_OVER)).nonzero()[0]
        if len(mrow):
            self._many_mid(out, parts, tb, n, mrow, seat[mrow], phase[mrow], start[mrow],
                           base[mrow], rot[mrow], msmall, mwide, psmall, pwide, finished)
        out.reshape(-1)[np.concatenate(parts)] = 1.0
        # held, then checked tasks, by relative seat - after the scatter: its first
        # column is where absent one-hot entries went (tb.dump)
        oh = o["tasks_held"]
        tasks = wd[np.arange(big)[:, None, None], 1 + tb.pair + rot[:, None, :]]
        out[:, oh:oh + 2 * n * NUM_TASKS] = unpack_masks(tasks, NUM_TASKS).reshape(big, -1)
        # the reading: derived per state (a small share of the states' rows)
        for i in mrow.tolist():
            write_reading(states[i], seats[i], out[i], o, n)

    def _many_mid(self, out: np.ndarray, parts: list[np.ndarray], tb: _BatchLookups, n: int,
                  mrow: np.ndarray, seat: np.ndarray, phase: np.ndarray, start: np.ndarray,
                  base: np.ndarray, rot: np.ndarray, msmall: list[int], mwide: list[int],
                  psmall: list[int], pwide: list[int],
                  finished: list[list[tuple[int, tuple[int, ...], int]]]) -> None:
        """:meth:`encode_many` for the states past the task draft (what the draft begins)."""
        o = self._o
        k = len(mrow)
        ms = small_ints(msmall, 3 + ROWS)
        width = 1 + 2 * n + ROWS
        mw = np.fromiter(mwide, np.int64, k * width).reshape(k, width)
        col = base[:, None]
        # trumps: the start player knows them at once, everyone after the draft
        known = (phase != CARD_DRAFT) | (seat == start)
        kb = base[known]
        parts += [kb + o["trumps_known"], kb + tb.trump_suit[ms[known, 0]],
                  kb + tb.trump_value[ms[known, 1]]]
        # the row being drafted, each begun row's first chooser, the announced winners
        nr = ms[:, 2]
        parts.append(base + o["draft_row"] + nr)
        first = (start + 1 - seat) % n
        parts.append((col + tb.row_leads[first * (ROWS + 1) + nr]).reshape(-1))
        w = tb.row_winners[(seat * (ROWS * 256))[:, None] + tb.row256 + ms[:, 3:]]
        parts.append((col + w).reshape(-1))
        # hands (all public) and the chosen tasks this seat may see
        ohd = o["hands"]
        hc = mw[np.arange(k)[:, None, None], 1 + tb.pair + rot[:, None, :]]  # by relative seat
        drafted, chosen = hc[:, 0], hc[:, 1]
        out[mrow, ohd:ohd + n * NUM_CARDS] = unpack_masks(drafted, NUM_CARDS).reshape(k, -1)
        playing = (phase == PLAY) | (phase == CHECK_OFF)
        ci = (playing * (n * (NUM_TASKS + 1)))[:, None] + tb.chosen_rel + 1 + chosen
        parts.append((col + tb.chosen[ci]).reshape(-1))
        # tricks; the cards played join ``drafted``: every card each seat took
        prow = playing.nonzero()[0]
        if len(prow):
            self._many_play(out, parts, tb, n, mrow[prow], prow, seat[prow], base[prow],
                            rot[prow], drafted, psmall, pwide, finished)
        # the draft, by (row, relative seat): what a seat took from a row is the one
        # card of that row among the cards it took - its bit's exponent is card + 1
        rows = mw[:, 1 + 2 * n:]
        took = drafted[:, :, None] & rows[:, None, :]  # [state, relative seat, row]
        exp = np.frexp(took.astype(np.float64))[1]  # 0 where nothing was taken
        parts.append((col[:, :, None] + tb.draft[tb.draft_at + exp]).reshape(-1))
        # the face-up cards left in the rows (only while drafting)
        lay = mw[:, 0]
        left = lay.nonzero()[0]
        if len(left):
            ol = o["layout"]
            out[mrow[left], ol:ol + ROWS * NUM_CARDS] = unpack_masks(
                rows[left] & lay[left, None], NUM_CARDS).reshape(len(left), -1)

    def _many_play(self, out: np.ndarray, parts: list[np.ndarray], tb: _BatchLookups, n: int,
                   prow: np.ndarray, pmid: np.ndarray, seat: np.ndarray, base: np.ndarray,
                   rot: np.ndarray, drafted: np.ndarray, psmall: list[int], pwide: list[int],
                   finished: list[list[tuple[int, tuple[int, ...], int]]]) -> None:
        """:meth:`encode_many` for the states in play or check-off; adds the played cards to
        ``drafted`` (its rows ``pmid``)."""
        o = self._o
        p = len(prow)
        col = base[:, None]
        ps = small_ints(psmall, 2 * n + 1)
        tw = ps[np.arange(p)[:, None], rot]  # tricks won by relative seat
        parts.append((col + tb.tricks_won + tw).reshape(-1))
        owc = o["won_cards"]
        won = np.fromiter(pwide, np.int64, p * n).reshape(p, n)[np.arange(p)[:, None], rot]
        out[prow, owc:owc + n * NUM_CARDS] = unpack_masks(won, NUM_CARDS).reshape(p, -1)
        # the finished tricks (t of them, all states together): the state and number
        # of each, its leader, its cards in play order
        nt = small_ints(map(len, finished), 1)[:, 0]
        flat = list(_chain(finished))
        t = len(flat)
        g = np.repeat(np.arange(p), nt)
        k = np.arange(t) - (np.cumsum(nt) - nt)[g]
        leader = small_ints(map(_leader_of, flat), 1)[:, 0]
        cards = small_ints(_chain(map(_cards_of, flat)), n)
        # with the current trick (number nt, if any; PAD when there is none) after them
        k = np.concatenate([k, np.minimum(nt, TRICKS - 1)])
        g = np.concatenate([g, np.arange(p)])
        leader = np.concatenate([leader, ps[:, n]])
        cards = np.concatenate([cards, ps[:, n + 1:]])
        sg = seat[g]
        parts.append(base[g] + tb.trick_leaders[(sg * TRICKS + k) * 256 + leader])
        lead = (leader - sg) % n  # relative (any seat for no trick: its cards are PAD)
        ti = ((k * n + lead) * (n * 256))[:, None] + tb.place256 + cards
        parts.append((base[g][:, None] + tb.tricks[ti]).reshape(-1))
        # each seat's played cards, as masks (distinct bits: a float sum is exact)
        who = (pmid[g] * n)[:, None] + tb.seat_of[lead]
        drafted |= np.bincount(who.reshape(-1), tb.card_bit[cards].reshape(-1),
                               minlength=drafted.size).astype(np.int64).reshape(drafted.shape)

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
