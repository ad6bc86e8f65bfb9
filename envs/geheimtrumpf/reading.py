"""What a Geheimtrumpf seat can read off the table, as observation pieces (versions 1 and 2).

Every fact here follows from what the seat already sees - the public hands,
the trick in play, the announced row winners, the trumps once it knows them
- by the rules alone; nothing reads a secret.  The raw pieces hold the same
information, but a network has to learn the ranking rules (two kinds of
trumps that change every round, a trump-value card that follows no suit) to
use it, and the measurement says it does not: a 256x256 network imitating
the heuristic agreed with its card play on 0.68 of held-out decisions and
lost 1.20 tasks per game to it; with these pieces 0.80 and 0.61
(``scripts/probes/probe_imitation.py --feature play_trumps``, docs/lab/observation.md).

- ``trump_candidates``: the trump draws that agree with every announced row
  winner (``rules.consistent_trumps``) - the deduction the others make
  during the draft; the true draw alone once the seat knows it.
- In the play phase, for the trick in progress: which card of the seat's
  hand would take it now, whether a seat still to play could beat that
  card, who is winning it; and per card whether it is a trump and how many
  cards would beat it if it were led.

Version 2 adds the **draft reading**, for the seat choosing a card in the
card draft (all zero for the others and in the other phases): the
heuristic's chance estimates (``chances.py``) - per card of the row, the
chance of the seat's best open task if it takes the card and drafts toward
that task in the later rows (``take_chances``); per open task, its best
such chance over the row (``task_chances``); per card, its chance to win a
trick as the seat sees the trumps (``win_chances``).  The card draft is
where the shipped version-1 network lost to the heuristic: with the
heuristic's draft and its own play and task choice it went from -0.19 to
+0.04 tasks per game against three heuristics (docs/lab/observation.md); a network
imitating the heuristic agreed with its draft on 0.774 of held-out
decisions from the version-1 pieces, 0.836 with these.

Version 3 adds the **task state** in the play phase, per relative seat with
a chosen task (all revealed by then): whether it still wants tricks, must
duck from now on, has already missed it, how many tricks an exact count
still needs, and the suit a "no suit" task keeps out of its tricks - what
the heuristic's play steers by (``steering.py``), which the
network would otherwise assemble from ``chosen``, ``tricks_won`` and
``won_cards``.  With the v2 bot the heuristic's card play was worth 0.26
tasks per game over the network's (docs/lab/observation.md).

Version 4 adds the **trick reading**, for the seat to play (all zero for
the others and in the other phases): per legal card, the relative seat
that takes the trick when the seats still to play answer as the heuristic
steers them to their tasks (``steering.respond``: every hand and task is
public in play), and the printed suits among the trick's cards - the one
trick the heuristic's own play looks ahead.  With the v3 bot the
heuristic's card play was still worth 0.22 tasks over the network's; a
network imitating the heuristic agreed with its card play on 0.804 of
held-out decisions from the v3 pieces, 0.830 with this one
(``scripts/probes/probe_imitation.py --feature trick_reading``).
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.core.tricks import follow_mask
from stichzoo.envs.geheimtrumpf.chances import row_chances
from stichzoo.envs.geheimtrumpf.rules import (
    CARD_DRAFT,
    CARD_SUIT,
    CARD_VALUE,
    FEWEST_TRICKS,
    GAME_OVER,
    MOST_TRICKS,
    NO_SUIT0,
    NUM_CARDS,
    PLAY,
    SUIT_MASK,
    TASK_DRAFT,
    THREE_TRICKS,
    TRUMPS,
    VALUES,
    agreeing_trumps,
    trick_winner,
)
from stichzoo.envs.geheimtrumpf.steering import later_seats, respond, target

#: (suit + 1) * 10 + value: the column of a trump draw in ``trump_candidates``
NUM_DRAWS = len(TRUMPS)


def draw_index(suit: int, value: int) -> int:
    """The column of the draw (suit -1..3, value 0..9) in ``trump_candidates``."""
    return (suit + 1) * (VALUES + 1) + value


@cache
def led_beaters(suit: int, value: int) -> tuple[float, ...]:
    """Per card, the share of the other 35 cards that would beat it if it were led."""
    power = TRUMPS[(suit, value)].power
    return tuple(sum(trick_winner([c, d], power) == 1 for d in range(NUM_CARDS) if d != c)
                 / (NUM_CARDS - 1) for c in range(NUM_CARDS))


@cache
def _ranks(suit: int, value: int, lead: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(key per card, mask of the cards beating each key) in a trick led in ``lead``.

    The key is :func:`trick_winner`'s: the trump power, else the value in the
    led suit, else 0; a card beats the trick's best when its key is higher.
    """
    power = TRUMPS[(suit, value)].power
    keys = tuple(power[c] or (CARD_VALUE[c] if CARD_SUIT[c] == lead else 0)
                 for c in range(NUM_CARDS))
    above = tuple(sum(1 << c for c in range(NUM_CARDS) if keys[c] > k)
                  for k in range(max(keys) + 1))
    return keys, above


@lru_cache(maxsize=4096)
def _candidates(n: int, firsts: tuple, draft_rows: tuple, row_winners: tuple) -> tuple[int, ...]:
    """The columns of the trump draws agreeing with one draft so far (cached: the rows
    change once per row, the observations many times)."""
    return tuple(draw_index(*key) for key in agreeing_trumps(n, firsts, draft_rows, row_winners))


def write_reading(s, seat: int, out: np.ndarray, o: dict[str, int], n: int) -> None:
    """Write the reading pieces of ``seat``'s view of ``s`` (their columns already zero)."""
    phase = s.phase
    if phase in (TASK_DRAFT, GAME_OVER):
        return
    oc = o["trump_candidates"]
    if s.trumps_known_to(seat):
        out[oc + draw_index(s.trumps.suit, s.trumps.value)] = 1.0
    else:
        rows = s.draft_rows
        firsts = tuple(s.row_first(r) for r in range(len(rows)))
        for i in _candidates(n, firsts, tuple(map(tuple, rows)), tuple(s.row_winners)):
            out[oc + i] = 1.0
    if phase == CARD_DRAFT:
        if seat == s.current_player:
            write_draft(s, seat, out, o)
        return
    if phase != PLAY:
        return
    write_task_state(s, seat, out, o, n)
    if seat == s.current_player:
        write_trick_reading(s, seat, out, o, n)
    t = s.trumps
    ot, ol = o["trumps"], o["led_beaters"]
    out[ol:ol + NUM_CARDS] = led_beaters(t.suit, t.value)
    for c in bit_list(t.mask):
        out[ot + c] = 1.0
    trick = s.trick
    cards = trick.cards
    k = len(cards)
    hands = s.hands
    later = [hands[p] for p in later_seats(s, seat)]
    otake, oover, osafe = o["takes_trick"], o["overtake"], o["safe"]
    if k:
        keys, above = _ranks(t.suit, t.value, CARD_SUIT[cards[0]])
        played = [keys[c] for c in cards]
        best = max(played)
        out[o["trick_winner"] + (trick.seat_of(played.index(best)) - seat) % n] = 1.0
        follow = s.follow
        legal_later = [follow_mask(h, follow) for h in later]
    for c in bit_list(hands[seat]):
        if k:
            key = keys[c]
            if key <= best:
                continue
        else:  # leading: the card sets the suit to follow and is winning so far
            keys, above = _ranks(t.suit, t.value, CARD_SUIT[c])
            key = keys[c]
            follow = t.group[c]
            legal_later = [follow_mask(h, follow) for h in later]
        out[otake + c] = 1.0
        beat = sum(1 for legal in legal_later if legal & above[key])
        if later:
            out[oover + c] = beat / len(later)
        if not beat:
            out[osafe + c] = 1.0


def write_draft(s, seat: int, out: np.ndarray, o: dict[str, int]) -> None:
    """The draft reading of the seat choosing a card (version 2): ``take_chances``,
    ``task_chances`` and ``win_chances`` (columns already zero)."""
    win, table = row_chances(s, seat)
    ow = o["win_chances"]
    out[ow:ow + NUM_CARDS] = win
    otake, otask = o["take_chances"], o["task_chances"]
    for c, chances in table.items():
        for t, v in chances.items():
            if v > out[otake + c]:
                out[otake + c] = v
            if v > out[otask + t]:
                out[otask + t] = v


#: columns per relative seat of ``task_state``
TASK_STATE = 8


def write_task_state(s, seat: int, out: np.ndarray, o: dict[str, int], n: int) -> None:
    """Per relative seat with a chosen task: wants, ducks, missed, need / 3, and the
    one-hot suit a "no suit" task still keeps clean (version 3, play phase)."""
    base = o["task_state"]
    for rel in range(n):
        p = (seat + rel) % n
        task = s.chosen[p]
        if task < 0:
            continue
        col = base + rel * TASK_STATE
        won = s.tricks_won[p]
        if task <= THREE_TRICKS:  # exactly k tricks (no trick: k = 0)
            need = task - won
            out[col + (0 if need > 0 else 1 if need == 0 else 2)] = 1.0
            out[col + 3] = max(need, 0) / 3
        elif task == MOST_TRICKS:
            out[col] = 1.0
        elif task == FEWEST_TRICKS:
            out[col + 1] = 1.0
        elif task >= NO_SUIT0:
            suit = task - NO_SUIT0
            if s.won_cards[p] & SUIT_MASK[suit]:
                out[col + 2] = 1.0
            else:
                out[col + 4 + suit] = 1.0


def trick_reading_width(n: int) -> int:
    """Columns per card of ``trick_reading``: the taking relative seat, then four suits."""
    return n + 4


def write_trick_reading(s, seat: int, out: np.ndarray, o: dict[str, int], n: int) -> None:
    """Per legal card of the seat to play: who takes the trick when the later seats answer
    by the heuristic's steering, and the printed suits in it (version 4, play phase)."""
    base = o["trick_reading"]
    width = trick_reading_width(n)
    targets = {p: target(s, p) for p in later_seats(s, seat)}
    power = s.trumps.power
    trick = s.trick
    for c in bit_list(s.legal_mask()):
        cards = respond(s, c, targets)
        col = base + c * width
        out[col + (trick.seat_of(trick_winner(cards, power)) - seat) % n] = 1.0
        for d in cards:
            out[col + n + CARD_SUIT[d]] = 1.0
