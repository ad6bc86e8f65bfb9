"""Geheimtrumpf's reading pieces hold what the env docstring says (envs/geheimtrumpf/reading.py;
v1: trumps and tricks, v2: the card draft, v3: the task state, v4: the trick reading).

Expectations come from the rules engine: a card "takes the trick" or is
"safe" is checked by playing every completion of the trick on clones of the
state, and the trump candidates against the true draw and the row winners.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from stichzoo.envs import geheimtrumpf_v4
from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.geheimtrumpf.chances import CARD_CHANCES, draft_future, projected_chance
from stichzoo.envs.geheimtrumpf.reading import draw_index, led_beaters
from stichzoo.envs.geheimtrumpf.rules import (
    CARD_DRAFT,
    CARD_SUIT,
    FEWEST_TRICKS,
    LAST_TRICK,
    MOST_TRICKS,
    NO_SUIT0,
    NUM_CARDS,
    NUM_TASKS,
    PLAY,
    TASK_CHOICE,
    TASK_DRAFT,
    THREE_TRICKS,
    TRUMPS,
    consistent_trumps,
    task_met,
    trick_winner,
)
from stichzoo.policies.base import Decision
from stichzoo.policies.games.geheimtrumpf import Heuristic


def _views(n: int, seed: int):
    """(raw env, state) at every decision of a few random rounds."""
    raw = geheimtrumpf_v4.raw_env(num_players=n, round_limit=2)
    raw.reset(seed=seed)
    s = raw.state_
    rng = random.Random(seed)
    while not (s.over or s.truncated):
        yield raw, s
        raw.step(rng.choice(s.legal_actions()))


def _piece(raw, seat: int, name: str) -> np.ndarray:
    return raw.observe(f"player_{seat}")["observation"][raw.encoder.layout.slice(name)]


def _completions(s):
    """The winner of the current trick in every way the seats still to play can finish it,
    starting with each legal card of the seat to act: {card: [winner, ...]}."""
    out = {}
    tricks_before = len(s.tricks)
    for c in s.legal_actions():
        winners = []
        frontier = [s.clone()]
        frontier[0].step(c)
        while frontier:
            t = frontier.pop()
            if len(t.tricks) > tricks_before:
                winners.append(t.tricks[tricks_before][2])
                continue
            for d in t.legal_actions():
                u = t.clone()
                u.step(d)
                frontier.append(u)
        out[c] = winners
    return out


@pytest.mark.parametrize("n,seed", [(3, 1), (3, 11), (4, 2), (4, 3), (4, 12)])
def test_trick_pieces_agree_with_every_completion(n, seed):
    checked = 0
    for raw, s in _views(n, seed):
        if s.phase != PLAY:
            for name in ("trumps", "led_beaters", "trick_winner", "takes_trick", "overtake",
                         "safe"):
                assert not _piece(raw, s.current_player, name).any(), name
            continue
        seat = s.current_player
        take, over, safe = (_piece(raw, seat, k) for k in ("takes_trick", "overtake", "safe"))
        k = len(s.trick.cards)
        hand = bit_list(s.hands[seat])
        assert set(np.flatnonzero(take)) <= set(hand)
        assert set(np.flatnonzero(safe)) <= set(np.flatnonzero(take))
        assert not over[take == 0].any()
        if k == 0:
            assert set(np.flatnonzero(take)) == set(hand)  # the leader is winning so far
        if n - 1 - k > 1 or len(s.tricks) == 8:  # too many completions to list; or the
            continue  # round's last trick, whose end is the round's (the engine moves on)
        for c, winners in _completions(s).items():
            # safe: this seat wins however the others finish the trick
            assert safe[c] == float(all(w == seat for w in winners)), (c, winners)
            if any(w == seat for w in winners):
                assert take[c] == 1.0
            if k == n - 1:  # the last card: the trick is decided by it
                assert take[c] == float(winners == [seat])
            if take[c] and not safe[c]:
                assert over[c] > 0.0
            checked += 1
    assert checked > 40


@pytest.mark.parametrize("n,seed", [(3, 4), (4, 5)])
def test_trick_winner_is_who_then_takes_it(n, seed):
    """The winner named before the trick's last card, after it the trick's taker."""
    seen = 0
    for raw, s in _views(n, seed):
        if s.phase != PLAY or not s.trick.cards:
            continue
        seat = s.current_player
        cards = list(s.trick.cards)
        leader = s.trick.leader
        now = trick_winner(cards, s.trumps.power)
        want = np.zeros(n, np.float32)
        want[((leader + now) % n - seat) % n] = 1.0
        assert np.array_equal(_piece(raw, seat, "trick_winner"), want)
        seen += 1
    assert seen > 20


@pytest.mark.parametrize("n,seed", [(3, 6), (4, 7)])
def test_trumps_and_led_beaters(n, seed):
    for raw, s in _views(n, seed):
        if s.phase != PLAY:
            continue
        seat = s.current_player
        t = s.trumps
        want = np.zeros(NUM_CARDS, np.float32)
        want[bit_list(t.mask)] = 1.0
        assert np.array_equal(_piece(raw, seat, "trumps"), want)
        beaters = _piece(raw, seat, "led_beaters")
        assert np.allclose(beaters, led_beaters(t.suit, t.value))
        break


def test_led_beaters_by_the_rules():
    # hearts trumps, trump value 5: the 5 of hearts beats everything; the 9 of spades
    # (a plain card) loses to the 12 trumps (hearts and the four 5s, 5 of spades included
    # among them) and to nothing of its own suit
    t = TRUMPS[(0, 5)]
    b = led_beaters(0, 5)
    five_hearts, nine_spades, ace_clubs = 4, 2 * 9 + 8, 3 * 9
    assert b[five_hearts] == 0.0
    assert b[nine_spades] == pytest.approx(t.mask.bit_count() / 35)
    assert b[ace_clubs] == pytest.approx((t.mask.bit_count() + 7) / 35)  # 2..9 of clubs less the 5
    for c in range(NUM_CARDS):
        assert b[c] == sum(trick_winner([c, d], t.power) == 1
                           for d in range(NUM_CARDS) if d != c) / 35


@pytest.mark.parametrize("n,seed", [(3, 8), (4, 9)])
def test_trump_candidates(n, seed):
    phases = set()
    for raw, s in _views(n, seed):
        for seat in range(n):
            cand = _piece(raw, seat, "trump_candidates")
            if s.phase == TASK_DRAFT:
                assert not cand.any()
                continue
            true = draw_index(s.trumps.suit, s.trumps.value)
            assert cand[true] == 1.0  # the true draw is never ruled out
            if s.trumps_known_to(seat):
                assert cand.sum() == 1.0
            else:
                want = np.zeros(len(TRUMPS), np.float32)
                want[[draw_index(*key) for key in consistent_trumps(s)]] = 1.0
                assert np.array_equal(cand, want)
            phases.add(s.phase)
    assert {CARD_DRAFT, TASK_CHOICE, PLAY} <= phases


def test_draw_index_covers_every_draw_once():
    assert sorted(draw_index(*key) for key in TRUMPS) == list(range(len(TRUMPS)))
    assert len(list(itertools.product(range(-1, 4), range(10)))) == len(TRUMPS)


# -- version 2: the draft reading ---------------------------------------------------------

DRAFT_PIECES = ("take_chances", "task_chances", "win_chances")


@pytest.mark.parametrize("n,seed", [(3, 4), (4, 5), (4, 13)])
def test_draft_reading_is_the_heuristics_estimate(n, seed):
    """Per row card the best open task's projected chance, per open task its best over the
    row, per card the win chance as the seat knows the trumps - for the seat choosing only;
    and the heuristic takes the card the reading values most (its tie-break aside)."""
    game = None
    drafts = 0
    for raw, s in _views(n, seed):
        seat = s.current_player
        for other in range(n):
            if s.phase != CARD_DRAFT or other != seat:
                for name in DRAFT_PIECES:
                    assert not _piece(raw, other, name).any(), (s.phase_name, other, name)
        if s.phase != CARD_DRAFT:
            continue
        drafts += 1
        game = s.game
        take, task, win = (_piece(raw, seat, k) for k in DRAFT_PIECES)
        draws = ([(s.trumps.suit, s.trumps.value)] if seat == s.start
                 else consistent_trumps(s))
        want_win = np.mean([CARD_CHANCES[d][0] for d in draws], axis=0)
        np.testing.assert_allclose(win, want_win, rtol=1e-6)
        last = np.mean([CARD_CHANCES[d][1] for d in draws], axis=0)
        hand = bit_list(s.hands[seat])
        tasks = bit_list(s.held[seat] & ~s.checked[seat])
        row = bit_list(s.rows[s.draft_row] & s.layout)
        future = draft_future(s, seat)
        values = {(c, t): projected_chance(t, hand, c, future, want_win, last, n)
                  for c in row for t in tasks}
        for c in range(NUM_CARDS):
            want = max(values[c, t] for t in tasks) if c in row else 0.0
            assert take[c] == pytest.approx(want, abs=1e-6)
        for t in range(NUM_TASKS):
            want = max(values[c, t] for c in row) if t in tasks else 0.0
            assert task[t] == pytest.approx(want, abs=1e-6)
        best = max(take[c] for c in row)
        chosen = Heuristic(game).take(s, seat)
        assert take[chosen] >= best - 1e-3
    assert drafts >= 9 * 2


def test_draft_reading_does_not_read_the_secret_trumps():
    """A seat other than the start player reads the same draft reading whichever of the
    agreeing trump draws is true."""
    checked = 0
    for raw, s in _views(4, 21):
        seat = s.current_player
        if s.phase != CARD_DRAFT or seat == s.start:
            continue
        before = [_piece(raw, seat, k).copy() for k in DRAFT_PIECES]
        true = (s.trumps.suit, s.trumps.value)
        for draw in consistent_trumps(s)[:3]:
            s.set_trumps(*draw)
            for piece, name in zip(before, DRAFT_PIECES):
                np.testing.assert_array_equal(_piece(raw, seat, name), piece)
        s.set_trumps(*true)
        checked += 1
    assert checked >= 9


# -- version 3: the task state ------------------------------------------------------------


@pytest.mark.parametrize("n,seed", [(3, 6), (4, 7), (4, 14)])
def test_task_state_says_what_each_task_still_asks(n, seed):
    """Checked against the rules' own verdict: an exact count is missed once passed and
    met when the round ends on it; a no-suit task is missed once its suit is won."""
    plays = 0
    for raw, s in _views(n, seed):
        for seat in range(n):
            state = _piece(raw, seat, "task_state").reshape(n, 8)
            if s.phase != PLAY:
                assert not state.any(), s.phase_name
                continue
            for rel in range(n):
                p = (seat + rel) % n
                task, won, row = s.chosen[p], s.tricks_won[p], state[rel]
                if task < 0 or task == LAST_TRICK:
                    assert not row.any()
                elif task <= THREE_TRICKS:
                    assert list(row[:3]) == [won < task, won == task, won > task]
                    assert row[3] == pytest.approx(max(task - won, 0) / 3)
                    assert not row[4:].any()
                elif task >= NO_SUIT0:
                    met = task_met(task, p, s.tricks_won, s.won_cards, s.last_winner)
                    assert row[2] == (not met)
                    assert list(row[4:]) == [met and k == task - NO_SUIT0 for k in range(4)]
                    assert not row[:2].any() and row[3] == 0
                else:
                    assert list(row[:3]) == [task == MOST_TRICKS, task == FEWEST_TRICKS, 0]
        plays += s.phase == PLAY
    assert plays >= 9


def _heuristic_views(n: int, seed: int, rounds: int = 2):
    """(raw env, state) at every decision of heuristic games: the seats answer as the
    trick reading assumes they do."""
    raw = geheimtrumpf_v4.raw_env(num_players=n, round_limit=rounds)
    raw.reset(seed=seed)
    s = raw.state_
    bot = Heuristic(raw.game)
    while not (s.over or s.truncated):
        yield raw, s
        raw.step(bot.act(Decision(raw.game, s)))


@pytest.mark.parametrize("n,seed", [(3, 4), (4, 5), (4, 6)])
def test_trick_reading_shape(n, seed):
    """One taking seat per legal card and the suits of a whole trick; nothing for other cards,
    other seats or other phases."""
    plays = 0
    for raw, s in _views(n, seed):
        for seat in range(n):
            reading = _piece(raw, seat, "trick_reading").reshape(NUM_CARDS, n + 4)
            if s.phase != PLAY or seat != s.current_player:
                assert not reading.any(), s.phase_name
                continue
            plays += 1
            legal = set(s.legal_actions())
            for c in range(NUM_CARDS):
                row = reading[c]
                if c not in legal:
                    assert not row.any()
                    continue
                assert row[:n].sum() == 1
                suits = row[n:]
                assert suits[CARD_SUIT[c]] == 1  # the card itself is in the trick
                for d in s.trick.cards:
                    assert suits[CARD_SUIT[d]] == 1
                assert 1 <= suits.sum() <= n
                if len(s.trick.cards) == n - 1:  # the last card: no one answers
                    cards = [*s.trick.cards, c]
                    taker = s.trick.seat_of(trick_winner(cards, s.trumps.power))
                    assert row[(taker - seat) % n] == 1
                    assert set(np.flatnonzero(suits)) == {CARD_SUIT[d] for d in cards}
    assert plays >= 9


@pytest.mark.parametrize("n,seed", [(3, 7), (4, 8)])
def test_trick_reading_foresees_the_heuristics_tricks(n, seed):
    """Among heuristics the reading's taker for the card played is who then takes the
    trick, and its suits those the trick then holds.  The start player re-weighs which
    chosen task it adopts as the cards fall, so a few tricks may differ - not more."""
    pending = {}
    hits = total = 0
    for raw, s in _heuristic_views(n, seed, rounds=8):
        if pending and len(s.tricks) > pending["tricks"]:
            _, cards, taker = s.tricks[pending["tricks"]]
            row = pending["reading"][cards[0]]
            total += 1
            hits += bool(row[(taker - pending["seat"]) % n] == 1 and set(np.flatnonzero(row[n:]))
                         == {CARD_SUIT[d] for d in cards})
            pending = {}
        if s.phase == PLAY and not s.trick.cards:
            reading = _piece(raw, s.current_player, "trick_reading").reshape(NUM_CARDS, n + 4)
            pending = {"seat": s.current_player, "reading": reading, "tricks": len(s.tricks)}
    assert total >= 45
    assert hits >= 0.97 * total, (hits, total)

