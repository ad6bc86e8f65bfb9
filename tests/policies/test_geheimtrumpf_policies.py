"""Geheimtrumpf bots: determinize, the heuristic (legal, honest), PIMC smoke, metrics."""

from __future__ import annotations

import random

import numpy as np
import pytest

from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.geheimtrumpf.encode import GeheimtrumpfEncoder
from stichzoo.envs.geheimtrumpf.metrics import seat_metrics
from stichzoo.envs.geheimtrumpf.rules import (
    CARD_DRAFT,
    CHECK_OFF,
    PLAY,
    ROW_LEN,
    ROWS,
    TASK_CHOICE,
    TASK_DRAFT,
    GeheimtrumpfGame,
    GeheimtrumpfOptions,
    consistent_trumps,
    trumps_of_order,
)
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision, RandomPolicy
from stichzoo.policies.games.geheimtrumpf import Heuristic, Rollout


def game_of(n: int, **opts) -> GeheimtrumpfGame:
    return GeheimtrumpfGame(GeheimtrumpfOptions(num_players=n, **opts))


def observe(enc: GeheimtrumpfEncoder, state, seat: int) -> np.ndarray:
    out = np.zeros(enc.layout.size, np.float32)
    enc.encode(state, seat, out)
    return out


def random_states(game, seed: int, games: int = 1, stride: int = 3, policy=None):
    """States at many decisions of games (every ``stride``-th decision)."""
    rng = random.Random(seed)
    for g in range(games):
        s = game.new_game(seed * 100 + g)
        i = 0
        while not (s.over or s.truncated):
            if i % stride == 0:
                yield s
            a = policy.act(Decision(game, s)) if policy else rng.choice(s.legal_actions())
            s.apply(a)
            i += 1


def _set_aside(s) -> list[int]:
    order = s.deck_orders[s.round_index]
    return sorted(order[r * ROW_LEN + 3] for r in range(ROWS))


# -- determinize -------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4])
def test_determinize_keeps_the_seats_view_and_conserves_cards(n):
    game = game_of(n, round_limit=3)
    enc = GeheimtrumpfEncoder(game)
    rng = random.Random(1)
    checks = 0
    for s in random_states(game, seed=3, stride=2):
        snapshot = (s.hands[:], s.chosen[:], s.history[:], s.trumps, list(s.deck_orders))
        for seat in range(n):
            w = game.determinize(s, seat, rng)
            assert w.log is None and w is not s
            assert np.array_equal(observe(enc, s, seat), observe(enc, w, seat))
            assert w.legal_mask() == s.legal_mask()
            # hands are public: nothing to re-deal, so none may move (voids trivially kept)
            assert w.hands == s.hands and w.won_cards == s.won_cards
            if s.phase not in (TASK_DRAFT,):
                order = w.deck_orders[w.round_index]
                assert trumps_of_order(order) == (w.trumps.suit, w.trumps.value)
                if n == 3:
                    assert _set_aside(w) == _set_aside(s)
                if s.phase == CARD_DRAFT and seat != s.start:
                    assert (w.trumps.suit, w.trumps.value) in consistent_trumps(s)
                else:
                    assert w.trumps is s.trumps
            # a real game: its deck orders and history replay to the same world
            again = game.new_state(list(w.deck_orders))
            for _, a in w.history:
                again.step(a)
            assert (again.hands, again.totals, again.tricks_won, again.phase) == (
                w.hands, w.totals, w.tricks_won, w.phase)
            assert again.trumps == w.trumps or s.phase == TASK_DRAFT
            checks += 1
        # the original is untouched
        assert snapshot == (s.hands, s.chosen, s.history, s.trumps, list(s.deck_orders))
    assert checks > 200


def test_determinize_varies_trumps_choices_set_aside_and_future_deals():
    game = game_of(3)
    s = game.new_game(5)
    rng = random.Random(0)
    while s.phase != CARD_DRAFT or len(s.draft_rows) < 2:
        s.apply(rng.choice(s.legal_actions()))
    seat = next(p for p in range(3) if p != s.start)
    consistent = consistent_trumps(s)
    assert (s.trumps.suit, s.trumps.value) in consistent and len(consistent) > 2
    ws = [game.determinize(s, seat, rng) for _ in range(60)]
    assert len({(w.trumps.suit, w.trumps.value) for w in ws}) > 2
    assert {(w.trumps.suit, w.trumps.value) for w in ws} <= set(consistent)
    assert len({w.deck_orders[s.round_index] for w in ws}) > 30  # set-aside rows move
    assert len({w.deck_orders[s.round_index + 1] for w in ws}) == 60
    # the start player knows the trumps
    assert all(game.determinize(s, s.start, rng).trumps is s.trumps for _ in range(10))
    # secret task choices: re-drawn among the chooser's unchecked tasks until revealed
    while s.phase != TASK_CHOICE:
        s.apply(rng.choice(s.legal_actions()))
    chooser = s.current_player
    s.apply(s.legal_actions()[0])
    other = next(p for p in range(3) if p not in (chooser, s.start))
    picks = {game.determinize(s, other, rng).chosen[chooser] for _ in range(40)}
    assert picks == set(bit_list(s.held[chooser] & ~s.checked[chooser]))
    assert {game.determinize(s, chooser, rng).chosen[chooser] for _ in range(5)} == {
        s.chosen[chooser]}
    while s.phase == TASK_CHOICE:
        s.apply(s.legal_actions()[0])
    assert all(game.determinize(s, other, rng).chosen == s.chosen for _ in range(5))


def test_row_evidence_narrows_the_trumps():
    game = game_of(4)
    rng = random.Random(3)
    sizes = []
    for g in range(10):
        s = game.new_game(g)
        while s.phase != TASK_CHOICE:
            s.apply(rng.choice(s.legal_actions()))
        sizes.append(len(consistent_trumps(s)))
    assert max(sizes) < 50 and min(sizes) >= 1


def test_determinize_of_a_finished_game_is_a_clone():
    game = game_of(3, round_limit=2)
    s = game.new_game(0)
    rng = random.Random(0)
    while not (s.over or s.truncated):
        s.apply(rng.choice(s.legal_actions()))
    w = game.determinize(s, 0, rng)
    assert (w.over, w.truncated, w.totals) == (s.over, s.truncated, s.totals)


# -- heuristic ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4])
def test_heuristic_plays_only_legal_actions(n):
    game = game_of(n)
    bot = Heuristic(game, seed=0)
    rnd = RandomPolicy(1)
    phases = set()
    for g in range(6):
        s = game.new_game(g)
        while not (s.over or s.truncated):
            d = Decision(game, s)
            use_bot = g % 2 == 0 or s.current_player == 0  # vs heuristics and vs random
            a = bot.act(d) if use_bot else rnd.act(d)
            assert s.legal_mask() >> a & 1, (s.phase_name, a)
            if use_bot:
                phases.add(s.phase)
            s.step(a)
    assert phases == {TASK_DRAFT, CARD_DRAFT, TASK_CHOICE, PLAY, CHECK_OFF}


@pytest.mark.parametrize("n", [3, 4])
def test_heuristic_is_honest(n):
    """The action must not change when what the seat cannot see is re-drawn."""
    game = game_of(n)
    bot = Heuristic(game, seed=0)
    rng = random.Random(2)
    checks = 0
    for s in random_states(game, seed=7, stride=2, policy=bot):
        seat = s.current_player
        want = bot.act(Decision(game, s))
        for _ in range(2):
            w = game.determinize(s, seat, rng)
            assert bot.act(Decision(game, w)) == want, s.phase_name
            checks += 1
    assert checks > 200


def test_heuristic_chooses_the_task_its_hand_fits_best():
    """The task choice is the unchecked task with the highest estimated chance."""
    game = game_of(4)
    bot = Heuristic(game)
    s = game.new_game(4)
    while s.phase == TASK_DRAFT:
        s.apply(bot.act(Decision(game, s)))
    assert all(s.held[p].bit_count() == 4 for p in range(4))
    while s.phase == CARD_DRAFT:
        s.apply(bot.act(Decision(game, s)))
    assert s.phase == TASK_CHOICE
    seat = s.current_player
    tasks = bit_list(s.held[seat])
    chances = bot.task_chances(s, seat, tasks)
    choice = bot.act(Decision(game, s)) - game.CHOOSE_TASK0
    assert choice == tasks[chances.index(max(chances))]


# -- registry and search -----------------------------------------------------------------


def test_make_policy_and_pimc_smoke():
    game = game_of(3, round_limit=2)
    h = make_policy("heuristic", game, seed=0)
    assert h.name == "heuristic"
    bots = [make_policy("pimc", game, seed=0, worlds=1), h, make_policy("random", game, seed=1)]
    assert bots[0].name == "pimc" and isinstance(bots[0].rollout, Rollout)
    s = game.new_game(0, log=True)
    for _ in range(200):  # the task draft, one card draft, the start of play
        if s.over or s.truncated:
            break
        s.step(bots[s.current_player].act(Decision(game, s)))
    assert len(s.history) > 40


def test_seat_metrics_on_a_finished_game():
    game = game_of(4)
    bot = Heuristic(game)
    s = game.new_game(9, log=True)
    while not (s.over or s.truncated):
        s.step(bot.act(Decision(game, s)))
    m = seat_metrics(s)
    assert len(m) == 4
    rounds = s.round_index + 1
    for p in range(4):
        assert set(m[p]) == {"task_success_rate", "tasks_checked", "won", "rounds_played"}
        assert 0 <= m[p]["task_success_rate"] <= 1
        assert m[p]["tasks_checked"] == s.totals[p]
        assert m[p]["won"] == (1.0 if p in s.winners() else 0.0)
        assert m[p]["rounds_played"] == rounds
    with pytest.raises(ValueError, match="log=True"):
        seat_metrics(game.new_game(0))
