"""Wunder Punkt player view: round trip to the exact observation, no leaks, clear errors."""

from __future__ import annotations

import contextlib
import copy
import json
import random

import numpy as np
import pytest

from stichzoo.envs.wunder_punkt.encode import WunderPunktEncoder
from stichzoo.envs.wunder_punkt.rules import (
    DECK,
    DECK_SIZE,
    GAME_OVER,
    PLAY,
    SORE,
    WunderPunktGame,
    WunderPunktOptions,
)
from stichzoo.envs.wunder_punkt.view import (
    SCHEMA,
    VIEW_KEYS,
    action_from_label,
    action_to_view,
    from_view,
    to_view,
)

CONFIGS = [dict(num_players=n) for n in (3, 4, 5, 6)] + [
    dict(num_players=3, larger_hands=True), dict(num_players=4, rounds=2, first_dealer=3)]
IDS = ["3p", "4p", "5p", "6p", "3p-larger", "4p-2rounds-dealer3"]


def game_of(**opts) -> WunderPunktGame:
    return WunderPunktGame(WunderPunktOptions(**opts))


def observe(enc: WunderPunktEncoder, state, seat: int) -> np.ndarray:
    out = np.zeros(enc.layout.size, np.float32)
    enc.encode(state, seat, out)
    return out


def ace_loving_action(s, rng: random.Random) -> int:
    """Random play that completes all-Ace tricks when it can (they are rare otherwise)."""
    legal = s.legal_actions()
    if s.phase == PLAY and all(c % 13 == 0 for c in s.trick.cards):
        aces = [a for a in legal if a % 13 == 0]
        if aces and rng.random() < 0.7:
            return rng.choice(aces)
    return rng.choice(legal)


def states(game, seed: int, games: int = 1, stride: int = 1):
    """Every ``stride``-th state of random games, the final (game over) state included."""
    rng = random.Random(seed)
    for g in range(games):
        s = game.new_game(seed * 100 + g)
        i = 0
        while not s.over:
            if i % stride == 0:
                yield s
            s.apply(ace_loving_action(s, rng))
            i += 1
        yield s


def mid_play_view(seat_to_act: bool = True, num_players: int = 4):
    """A view in phase play with completed tricks and a started trick."""
    game = game_of(num_players=num_players)
    rng = random.Random(2)
    s = game.new_game(2)
    while not (s.phase == PLAY and s.played.bit_count() >= 2 * num_players + 1):
        s.apply(rng.choice(s.legal_actions()))
    seat = s.current_player if seat_to_act else (s.current_player + 1) % num_players
    return game, s, to_view(s, seat)


def sore_view(num_players: int = 4, picks: int = 2, seat: int | None = None):
    """A view in phase sore after ``picks`` picks (of the seat to act, or of ``seat``)."""
    game = game_of(num_players=num_players)
    rng = random.Random(3)
    s = game.new_game(3)
    for _ in range(picks):
        s.apply(rng.choice(s.legal_actions()))
    return game, s, to_view(s, s.current_player if seat is None else seat)


# -- the key property: view -> state encodes exactly like the real state ---------------


@pytest.mark.parametrize("opts", CONFIGS, ids=IDS)
def test_round_trip_gives_the_exact_observation_and_mask(opts):
    game = game_of(**opts)
    enc = WunderPunktEncoder(game)
    phases = set()
    checks = 0
    removed_seen = False
    for s in states(game, seed=7, games=2, stride=1 if game.num_players <= 4 else 2):
        phases.add(s.phase)
        removed_seen |= bool(s.removed)
        for seat in range(game.num_players):
            v = to_view(s, seat)
            assert list(v) == list(VIEW_KEYS)
            r = from_view(game, json.loads(json.dumps(v)))  # JSON-ready; a JSON trip is lossless
            assert r.log is None and r.phase == s.phase
            assert np.array_equal(observe(enc, r, seat), observe(enc, s, seat))
            if seat == s.current_player:
                assert r.legal_mask() == s.legal_mask()
                assert [game.action_label(a) for a in s.legal_actions()] == v["legal"]
            else:
                assert v["legal"] == []
            assert to_view(r, seat) == v
            checks += 1
    assert phases == {SORE, PLAY, GAME_OVER}
    assert checks > 600, checks
    if game.num_players == 3:
        assert removed_seen, "no all-Ace trick was covered"


def test_all_ace_tricks_round_trip_with_four_players():
    game = game_of(num_players=4)
    enc = WunderPunktEncoder(game)
    rng = random.Random(0)
    covered = 0
    for g in range(300):
        s = game.new_game(g)
        while not s.over and covered < 40:
            if s.removed:
                for seat in range(4):
                    v = to_view(s, seat)
                    assert v["removed"] and any(t["winner"] is None for t in v["tricks"])
                    r = from_view(game, v)
                    assert np.array_equal(observe(enc, r, seat), observe(enc, s, seat))
                    assert to_view(r, seat) == v
                covered += 1
            s.apply(ace_loving_action(s, rng))
        if covered >= 40:
            break
    assert covered >= 40


@pytest.mark.parametrize("opts", CONFIGS[:3], ids=IDS[:3])
def test_rebuilt_state_is_a_real_deal_that_search_can_use(opts):
    """determinize works on the rebuilt state, and its round replays from its deck order."""
    game = game_of(**opts)
    rng = random.Random(5)
    for s in states(game, seed=11, stride=5):
        if s.over:
            continue
        for seat in range(game.num_players):
            v = to_view(s, seat)
            r = from_view(game, v)
            # the current round's deck order deals the rebuilt starting hands
            again = game.new_state(r.deck_orders)
            again.totals = list(r.totals)
            again.start_round(r.round_index)
            for _, a in r.history:
                again.step(a)
            assert (again.hands, again.sore_cards, again.won, again.removed) == (
                r.hands, r.sore_cards, r.won, r.removed)
            w = game.determinize(r, seat, rng)
            assert to_view(w, seat) == v


# -- nothing hidden is in the view ------------------------------------------------------------


@pytest.mark.parametrize("opts", CONFIGS[:4], ids=IDS[:4])
def test_view_is_blind_to_hidden_information(opts):
    game = game_of(**opts)
    rng = random.Random(9)
    differing = 0
    for s in states(game, seed=13, stride=4):
        for seat in range(game.num_players):
            v = to_view(s, seat)
            for _ in range(2):
                w = game.determinize(s, seat, rng)
                differing += w.hands != s.hands or w.sore_cards != s.sore_cards
                assert to_view(w, seat) == v
    assert differing > 50  # the hidden part really changed


def test_other_picks_are_face_down_before_the_reveal():
    _, s, v = sore_view(num_players=4, picks=2)
    seat = v["seat"]
    pickers = [p for p in range(4) if s.sore_cards[p] >= 0]
    assert len(pickers) == 2 and seat not in pickers
    assert v["picked"] == [s.sore_cards[p] >= 0 for p in range(4)]
    assert v["sore_cards"] == [None] * 4 and v["sore_suits"] == [None] * 4
    text = json.dumps(v)
    for p in pickers:  # a face-down card is nowhere in the view except as "in play"
        name = DECK.names[s.sore_cards[p]]
        assert text.count(f'"{name}"') == 1  # cards_in_play only
    # the picker sees its own pick
    own = to_view(s, pickers[0])
    assert own["sore_cards"][pickers[0]] == DECK.names[s.sore_cards[pickers[0]]]
    assert sum(x is not None for x in own["sore_cards"]) == 1
    # after the reveal everybody sees all picks
    rng = random.Random(0)
    while s.phase == SORE:
        s.apply(rng.choice(s.legal_actions()))
    assert to_view(s, seat)["sore_cards"] == DECK.format(s.sore_cards)


def test_game_over_view():
    game = game_of(num_players=3, rounds=1)
    s = game.new_game(4)
    rng = random.Random(4)
    while not s.over:
        s.apply(rng.choice(s.legal_actions()))
    v = to_view(s, 2)
    assert v["phase"] == "game_over" and v["to_act"] is None and v["legal"] == []
    assert v["hand"] == [] and v["round_scores"] is None and v["totals"] == s.totals
    assert len(v["tricks"]) == game.hand_size - 1
    last = v["tricks"][-1]
    assert v["trick"] == {k: last[k] for k in ("leader", "cards", "seats")}
    assert to_view(from_view(game, v), 2) == v


# -- errors ---------------------------------------------------------------------------------------



def refused(game, view, *fragments):
    with pytest.raises(ValueError) as e:
        from_view(game, view)
    msg = str(e.value)
    for f in fragments:
        assert f in msg, msg
    return msg


def test_missing_and_unknown_keys():
    game, _, v = mid_play_view()
    fields = SCHEMA.spec(game).fields
    for k in VIEW_KEYS:
        bad = dict(v)
        del bad[k]
        if fields[k].required:
            refused(game, bad, "missing required key", f'"{k}"')
        else:  # a derived key: may be left out
            assert to_view(from_view(game, bad), v["seat"]) == v
    refused(game, {**v, "trump": "h"}, 'unknown key(s) "trump"; known keys: game, env, options,')
    refused(game, [], 'a view is a JSON object, got array')
    bad = copy.deepcopy(v)
    del bad["trick"]["leader"]
    assert to_view(from_view(game, bad), v["seat"]) == v  # derived: optional
    del bad["trick"]["cards"]
    refused(game, bad, "trick", "missing required key", '"cards"')
    bad = copy.deepcopy(v)
    bad["tricks"][0]["who"] = 1
    refused(game, bad, 'tricks[0]: unknown key(s) "who"; known keys: leader, cards,')


def test_wrong_types():
    game, _, v = mid_play_view()
    refused(game, {**v, "seat": "1"}, 'seat: must be a seat number in 0..3, got "1"')
    refused(game, {**v, "seat": True}, 'seat: must be a seat number in 0..3, got true')
    refused(game, {**v, "seat": 7}, 'seat: must be a seat number in 0..3, got 7')
    refused(game, {**v, "hand": "7h 8h"}, 'hand: must be an array, got string "7h 8h"')
    refused(game, {**v, "hand": [7, *v["hand"][1:]]}, 'hand[0]: a card is a name (string), got 7')
    refused(game, {**v, "round": 1.0}, 'round: must be an integer in 0..3, got 1.0')
    refused(game, {**v, "totals": [0, 0, 0, "x"]},
            'totals[3]: must be an integer in -360..208, got "x"')
    refused(game, {**v, "picked": [1, 1, 1, 1]}, 'picked[0]: must be true or false, got 1')
    refused(game, {**v, "options": "4p"},
            'options: must be an object (the game options), got string')
    bad = copy.deepcopy(v)
    bad["tricks"][0]["winner"] = float(bad["tricks"][0]["winner"])
    refused(game, bad, 'tricks[0].winner: must be a seat number in 0..3, got 2.0')
    refused(game, {**v, "trick": None}, 'trick: must be an object with keys leader, cards, seats;')


def test_unknown_and_duplicate_cards():
    game, _, v = mid_play_view()
    refused(game, {**v, "hand": ["Zz", *v["hand"][1:]]},
            'hand[0]: unknown card "Zz"; cards: A 2 .. 10 J Q K of c d h')
    refused(game, {**v, "hand": [v["hand"][0], *v["hand"][:-1]]},
            f'hand[1]: "{v["hand"][0]}" appears twice')
    # a card in hand that is also played
    played = v["tricks"][0]["cards"][0]
    msg = refused(game, {**v, "hand": [played, *v["hand"][1:]]}, played, "appears twice")
    assert "hand" in msg
    # a card that is not in play with 3 players
    game3, _, v3 = mid_play_view(num_players=3)
    refused(game3, {**v3, "hand": ["Kh", *v3["hand"][1:]]}, 'card "Kh" is not in play')
    # a sore card also in hand
    bad = copy.deepcopy(v)
    bad["sore_cards"][(v["seat"] + 1) % 4] = v["hand"][0]
    refused(game, bad, "appears twice")


def test_wrong_hand_size():
    game, _, v = mid_play_view()
    refused(game, {**v, "hand": v["hand"][1:]},
            'hand: has 9 cards; seat 1 must hold 10 in phase play (13')
    g2, _, sv = sore_view()
    refused(g2, {**sv, "hand": sv["hand"][1:]},
            'hand: has 12 cards; seat 3 must hold 13 in phase sore (13')


def test_inconsistent_phase_and_turn():
    game, _, v = mid_play_view()
    other = (v["to_act"] + 1) % 4
    refused(game, {**v, "to_act": other}, 'to_act: is 2, but by the rules seat 1 is to act')
    refused(game, {**v, "to_act": None}, 'to_act: is null, but by the rules seat 1 is to act')
    refused(game, {**v, "phase": "bidding"},
            'phase: must be one of "sore", "play", "game_over"; got')
    refused(game, {**v, "phase": "sore"}, 'picked: phase sore but every seat has picked')
    refused(game, {**v, "phase": "sore", "picked": [False] * 4, "sore_cards": [None] * 4,
                   "sore_suits": [None] * 4, "to_act": (v["dealer"] + 1) % 4},
            'tricks: must be empty in phase sore')
    refused(game, {**v, "phase": "game_over"}, "game_over")
    refused(game, {**v, "legal": v["legal"][:1]}, "legal: is")
    refused(game, {**v, "dealer": (v["dealer"] + 1) % 4},
            'dealer: is 1, but the rest of the view gives 0')
    bad = copy.deepcopy(v)
    bad["trick"]["leader"] = (bad["trick"]["leader"] + 1) % 4
    bad["trick"]["seats"] = [(bad["trick"]["leader"] + i) % 4
                             for i in range(len(bad["trick"]["cards"]))]
    refused(game, bad, 'trick.leader: is 1, but the rest of the view gives 0')
    bad = copy.deepcopy(v)
    bad["tricks"][0]["winner"] = (bad["tricks"][0]["winner"] + 1) % 4
    refused(game, bad, 'tricks[0].winner: is 3, but the rest of the view gives 2')
    bad = copy.deepcopy(v)
    bad["won"][0], bad["won"][1] = bad["won"][1], bad["won"][0] + ["Kd"]
    refused(game, bad, 'won[0]: is [], but the rest of the view gives ["Kc", "7d",')
    refused(game, {**v, "removed": ["Ac"]}, 'removed: is ["Ac"], but the rest of the view gives []')
    refused(game, {**v, "round_scores": None},
            'round_scores: is null, but the rest of the view gives [-13,')
    refused(game, {**v, "round_scores": [0, 0, 0, 0]}, "round_scores[")
    # not to act: legal must be empty
    game, _, w = mid_play_view(seat_to_act=False)
    refused(game, {**w, "legal": ["7h"]},
            'legal: must be [] (or left out): seat 2 is not to act; got')


def test_sore_phase_errors():
    game, s, v = sore_view(num_players=4, picks=2)
    seat = v["seat"]
    refused(game, {**v, "to_act": (seat + 1) % 4},
            'to_act: is 0, but by the rules seat 3 is to act')
    bad = copy.deepcopy(v)
    bad["picked"] = [not x for x in bad["picked"]]
    refused(game, bad, "picked")
    # another seat's pick cannot be known before the reveal
    picker = next(p for p in range(4) if s.sore_cards[p] >= 0)
    bad = copy.deepcopy(v)
    bad["hand"] = bad["hand"][1:]
    bad["sore_cards"][picker] = v["hand"][0]
    bad["sore_suits"][picker] = v["hand"][0][-1]
    refused(game, bad, f"sore_cards[{picker}]", "face down")
    # a seat that has picked must show its own pick
    game, s, v = sore_view(num_players=4, picks=2, seat=picker)
    bad = {**v, "sore_cards": [None] * 4, "sore_suits": [None] * 4}
    refused(game, bad, f"sore_cards[{picker}]: the own pick")
    bad = copy.deepcopy(v)
    bad["sore_suits"][picker] = "x"
    refused(game, bad, f"sore_suits[{picker}]: must be one of")
    refused(game, {**v, "round_scores": [0, 0, 0, 0]},
            'round_scores: is [0, 0, 0, 0], but the rest of the view')


def test_a_view_for_another_game_player_count_or_options():
    game, _, v = mid_play_view()
    refused(game, {**v, "game": "wizard"}, 'game: must be "wunder_punkt", got "wizard"')
    refused(game, {**v, "env": "wunder_punkt_v9"},
            'env: must be "wunder_punkt_v0", got "wunder_punkt_v9"')
    refused(game_of(num_players=5), v,
            "options: do not match the game's options (num_players: view")
    refused(game_of(num_players=4, rounds=2), v,
            "options: do not match the game's options (rounds: view")
    refused(game, {**v, "options": {**v["options"], "colour": 1}},
            "options: do not match the game's options (colour: view 1, game (no such option))")
    refused(game, {**v, "picked": v["picked"][:3]},
            'picked: must have 4 entries (one per seat), got 3')
    refused(game, {**v, "num_rounds": 5}, "num_rounds")
    refused(game, {**v, "cards_in_play": v["cards_in_play"][:-1]}, "cards_in_play")


JUNK = [None, True, 0, -1, 99, 1.5, "", "7h", "Ac", "x", [], ["7h"], [None], {}, {"a": 1}]


def test_fuzzed_views_raise_value_error_only():
    game, _, base = mid_play_view()
    _, _, sbase = sore_view()
    rng = random.Random(1)

    def paths(obj, prefix=()):
        yield prefix
        if isinstance(obj, dict):
            for k, x in obj.items():
                yield from paths(x, (*prefix, k))
        elif isinstance(obj, list):
            for i, x in enumerate(obj):
                yield from paths(x, (*prefix, i))

    for b in (base, sbase):
        all_paths = [p for p in paths(b) if p]
        for _ in range(1500):
            v = copy.deepcopy(b)
            for _ in range(rng.randint(1, 3)):
                path = rng.choice(all_paths)
                node = v
                try:
                    for k in path[:-1]:
                        node = node[k]
                    if rng.random() < 0.15 and isinstance(node, (dict, list)):
                        del node[path[-1]]
                    else:
                        node[path[-1]] = rng.choice(JUNK)
                except (KeyError, IndexError, TypeError):
                    pass  # an earlier mutation removed this path
            with contextlib.suppress(ValueError):  # anything else fails the test
                from_view(game, v)


def test_plausible_edits_are_checked_or_harmless():
    """Type-preserving edits (another card, seat +1, a flipped flag) on views of every phase:
    either refused with ValueError or still a view whose state encodes back to that view."""
    rng = random.Random(4)
    for n in (3, 5):
        game = game_of(num_players=n)
        views = [to_view(s, rng.randrange(n)) for s in states(game, seed=2, stride=9)]
        refused_count = accepted = 0
        for b in views:
            for _ in range(25):
                v = copy.deepcopy(b)
                k = rng.choice(VIEW_KEYS)
                node, key = v, k
                while isinstance(node[key], (list, dict)) and node[key]:
                    node = node[key]
                    key = rng.randrange(len(node)) if isinstance(node, list) else rng.choice(
                        list(node))
                x = node[key]
                if isinstance(x, bool):
                    node[key] = not x
                elif isinstance(x, int):
                    node[key] = x + rng.choice((-1, 1))
                elif isinstance(x, str):
                    node[key] = rng.choice(DECK.names)
                else:
                    continue
                try:
                    r = from_view(game, v)
                except ValueError:
                    refused_count += 1
                    continue
                accepted += 1
                # the same view, up to the order of unordered card lists
                def by_id(cards):
                    return sorted(cards, key=DECK.parse_one)
                v["hand"], v["removed"] = by_id(v["hand"]), by_id(v["removed"])
                v["won"] = [by_id(w) for w in v["won"]]
                v["legal"] = sorted(v["legal"], key=lambda a: action_from_label(game, a))
                if not v["legal"]:  # [] means "work it out", for any seat
                    v["legal"] = to_view(r, v["seat"])["legal"]
                assert to_view(r, v["seat"]) == v
        assert refused_count > 100 and accepted > 10


def test_to_view_needs_a_state_from_real_play():
    game = game_of(num_players=3)
    s = game.position(["2c 3c", "4c 5c", "6c 7c"], ["8c", "9c", "Ad"], won=["Ac", "", ""])
    with pytest.raises(ValueError, match="history"):
        to_view(s, 0)


# -- actions ----------------------------------------------------------------------------------


def test_action_format():
    game = game_of(num_players=4)
    for a in range(game.num_actions):
        d = action_to_view(game, a)
        assert d["action"] == game.action_label(a) and d["action_id"] == a
        assert d["kind"] == ("card" if a < DECK_SIZE else "sore")
        assert action_from_label(game, d["action"]) == a
        json.dumps(d)
    assert action_to_view(game, 52 + 9) == {"action": "sore 10c", "action_id": 61,
                                            "kind": "sore", "card": "10c"}
    assert action_from_label(game, "Th") == DECK.parse_one("10h")
    assert action_from_label(game, "sore 7♥") == DECK_SIZE + DECK.parse_one("7h")
    for bad in ("", "1h", "play 7h", "sore", "sore Zz", "bid 2"):
        with pytest.raises(ValueError, match="unknown action"):
            action_from_label(game, bad)
    with pytest.raises(ValueError, match="must be a string"):
        action_from_label(game, 7)
    for bad in (-1, 104, True, "7h", 1.0):
        with pytest.raises(ValueError, match="action id"):
            action_to_view(game, bad)


def test_to_view_refuses_a_bad_seat():
    game = game_of(num_players=3)
    s = game.new_game(0)
    for bad in (-1, 3, True, "0"):
        with pytest.raises(ValueError, match="seat"):
            to_view(s, bad)
