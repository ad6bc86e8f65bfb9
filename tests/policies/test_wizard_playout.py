"""Wizard's fast play-out of its rollout player against the rules core: same cards, same scores.

PIMC's Wizard rollouts are played by ``FastHeuristic``; ``rollout_playout``
plays the same round on bare bitmasks, and ``fast_card`` - the player's
choice, shared by both paths - works on bitmasks and power groups where it
once sorted card lists.  Checked here: ``fast_card`` against that list form
on every trick position of random games, the play-out's scores against the
rules core card by card (no draws, the state untouched), and PIMC's values
with and without the fast path.
"""

from __future__ import annotations

import random

import pytest

from stichzoo import envs
from stichzoo.envs.core.cards import bit_list
from stichzoo.envs.wizard.rules import BID, CHOOSE_TRUMP, JESTER0, PLAY, trick_winner
from stichzoo.policies.base import Decision
from stichzoo.policies.games import wizard as W
from stichzoo.policies.specs import build_policy


def _game(players: int, restriction: bool = False):
    cls = envs.game_class("wizard")
    return cls(cls.Options(num_players=players, dealer_bid_restriction=restriction))


def _list_card(legal: int, cards: list[int], trump: int, need: int, players: int) -> int:
    """FastHeuristic's card as it was written before the bitmask form: sorted card lists."""
    if not legal & (legal - 1):
        return legal.bit_length() - 1

    def pw(c: int) -> int:
        return 0 if c >= JESTER0 else W.power(c, trump)

    def keep(c: int) -> int:
        return 35 if c >= JESTER0 else W.power(c, trump)

    lst = bit_list(legal)
    if not cards:
        return max(lst, key=pw) if need > 0 else min(lst, key=keep)
    best = cards[trick_winner(cards, trump)]
    if need > 0:
        win = [c for c in lst if W.beats(c, best, trump)]
        return min(win, key=pw) if win else min(lst, key=keep)
    lose = [c for c in lst if not W.beats(c, best, trump)]
    if lose:
        return max(lose, key=pw)
    if len(cards) == players - 1:
        return max(lst, key=pw)
    return min(lst, key=pw)


def _states(game, count: int, seed: int, phases=(PLAY,)):
    """States of random games in the given phases: every trick position, many rounds."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = game.new_game(rng.getrandbits(32))
        for _ in range(rng.randrange(0, 40 * game.num_players)):
            if s.over:
                break
            s.apply(rng.choice(bit_list(s.legal_mask())))
        if not s.over and s.phase in phases:
            out.append(s)
    return out


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_fast_card_plays_as_the_list_form(players):
    game = _game(players)
    for s in _states(game, 300, players):
        cards = s.trick.cards
        best = cards[trick_winner(cards, s.trump)] if cards else -1
        for need in (-1, 0, 1, 3):  # every branch, whatever the seat bid
            got = W.fast_card(s.legal_mask(), best, bool(cards), s.trump, need,
                              len(cards) == players - 1)
            assert got == _list_card(s.legal_mask(), cards, s.trump, need, players)


def _rules_playout(state) -> list[int]:
    """PIMC's own play-out with the rollout player, card by card through the rules core."""
    s = state.clone()
    player = W.FastHeuristic(s.game)
    before, r = s.totals[:], s.round_index
    while not s.over and s.round_index == r:
        s.apply(player.act(Decision(s.game, s)))
    return [a - b for a, b in zip(s.totals, before, strict=True)]


@pytest.mark.parametrize("players,restriction", [(3, False), (4, False), (4, True), (6, False)])
def test_playout_scores_equal_the_rules_core(players, restriction):
    game = _game(players, restriction)
    for k, state in enumerate(_states(game, 200, 10 + players, phases=(CHOOSE_TRUMP, BID, PLAY))):
        rng = random.Random(k)
        before = (state.hands[:], state.bids[:], state.tricks_won[:], list(state.trick.cards),
                  state.totals[:], state.phase)
        assert W.rollout_playout(state, rng) == _rules_playout(state)
        assert rng.getstate() == random.Random(k).getstate()  # it draws nothing, as before
        assert before == (state.hands, state.bids, state.tricks_won, state.trick.cards,
                          state.totals, state.phase)


@pytest.mark.parametrize("spec", ["pimc:worlds=4", "pimc:worlds=4,guide=bot:wizard"])
def test_pimc_values_are_exactly_those_without_the_fast_path(spec):
    game = _game(4)
    fast = build_policy(spec, game, seed=3, cache=False)
    slow = build_policy(spec + ",playout=rules", game, seed=3, cache=False)
    assert fast.playout is W.rollout_playout and slow.playout is None
    for state in _states(game, 40, 9, phases=(BID, PLAY)):
        assert fast.values(Decision(game, state)) == slow.values(Decision(game, state))


def test_other_rollouts_keep_the_rules_core_path():
    game = _game(4)
    assert build_policy("pimc", game, seed=0, cache=False).playout is W.rollout_playout
    assert build_policy("search", game, seed=0, cache=False).playout is W.rollout_playout
    for spec in ("pimc:rollout=heuristic", "pimc:rollout=random", "pimc:horizon=game",
                 "pimc:playout=rules"):
        assert build_policy(spec, game, seed=0, cache=False).playout is None, spec
