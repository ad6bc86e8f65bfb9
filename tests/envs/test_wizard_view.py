"""Wizard player view: round trip to the exact observation, no leaks, errors, actions."""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest

from stichzoo.envs.wizard.encode import WizardEncoder
from stichzoo.envs.wizard.rules import WizardGame, WizardOptions
from stichzoo.envs.wizard.view import (
    VIEW_KEYS,
    action_from_label,
    action_to_view,
    from_view,
    to_view,
)

PHASES = {"choose_trump", "bid", "play", "game_over"}


def _states(game: WizardGame, seed: int, keep: float):
    """States of random games (every phase, game over included), sampled with ``keep``."""
    rng = random.Random(seed)
    s = game.new_game(seed)
    while True:
        if s.over or s.phase_name == "choose_trump" or rng.random() < keep:
            yield s.clone()
        if s.over:
            return
        s.apply(rng.choice(s.legal_actions()))


def _obs(enc: WizardEncoder, state, seat: int) -> np.ndarray:
    out = np.zeros(enc.layout.size, np.float32)
    enc.encode(state, seat, out)
    return out


CASES = [
    (WizardOptions(num_players=3), 0.3),
    (WizardOptions(num_players=4, dealer_bid_restriction=True, first_dealer=2), 0.3),
    (WizardOptions(num_players=5, first_dealer=4), 0.3),
    (WizardOptions(num_players=6, dealer_bid_restriction=True), 0.3),
    (WizardOptions(num_players=4, rounds=(5, 15)), 1.0),
]


@pytest.mark.parametrize("opts,keep", CASES)
def test_round_trip_gives_the_same_observation_and_mask(opts, keep):
    game = WizardGame(opts)
    enc = WizardEncoder(game)
    n = game.num_players
    checks, phases = 0, set()
    seed = 0
    while seed < 2 or (phases != PHASES and seed < 80):  # until a Wizard was turned, too
        seed += 1
        for s in _states(game, 100 * n + seed, keep if seed <= 2 else 0.01):
            for seat in range(n):
                v = to_view(s, seat)
                v = json.loads(json.dumps(v))  # JSON-ready, and survives JSON
                back = from_view(game, v)
                assert back.log is None and type(back) is type(s)
                assert np.array_equal(_obs(enc, back, seat), _obs(enc, s, seat)), v
                assert back.current_player == s.current_player
                assert back.phase == s.phase and back.follow == s.follow
                if seat == s.current_player:
                    assert back.legal_mask() == s.legal_mask()
                assert to_view(back, seat) == v
                checks += 1
                phases.add(v["phase"])
    assert phases == PHASES
    assert checks > 600


def test_view_keys_and_types():
    game = WizardGame(WizardOptions(num_players=4))
    s = next(x for x in _states(game, 3, 0.05) if x.phase_name == "play" and x.trick.cards)
    v = to_view(s, s.current_player)
    assert tuple(v) == VIEW_KEYS
    assert v["game"] == "wizard" and v["env"] == "wizard_v0"
    assert v["options"] == game.options.as_dict()
    assert v["legal"] and all(isinstance(a, str) for a in v["legal"])
    other = to_view(s, (s.current_player + 1) % 4)
    assert other["legal"] == [] and other["to_act"] == s.current_player
    assert set(v["trick"]) == {"leader", "cards", "seats"}
    assert set(v["trick"]["cards"]) <= set(v["played"])
    json.dumps(v)


def test_game_over_view():
    game = WizardGame(WizardOptions(num_players=3, rounds=(2,)))
    s = list(_states(game, 1, 0.0))[-1]
    v = to_view(s, 1)
    assert v["phase"] == "game_over" and v["to_act"] is None and v["hand"] == []
    assert len(v["trick"]["cards"]) == 3 and sum(v["tricks_won"]) == 2
    assert to_view(from_view(game, v), 1) == v


@pytest.mark.parametrize("n", [3, 4, 6])
def test_nothing_hidden_in_the_view(n):
    game = WizardGame(WizardOptions(num_players=n))
    rng = random.Random(n)
    checked = 0
    for s in _states(game, 7 * n, 0.06):
        for seat in range(n):
            other = game.determinize(s, seat, rng)  # re-deals exactly the hidden part
            assert to_view(other, seat) == to_view(s, seat)
            checked += 1
    assert checked > 60
    # and no card of another hand shows up anywhere in the text of the view
    s = next(x for x in _states(game, 5, 0.1) if x.phase_name == "bid" and x.hand_size > 3)
    text = json.dumps(to_view(s, 0))
    for p in range(1, n):
        for c in game.deck.format_mask(s.hands[p]):
            assert f'"{c}"' not in text


def test_rebuilt_state_plays_on_and_determinizes():
    game = WizardGame(WizardOptions(num_players=4, dealer_bid_restriction=True))
    rng = random.Random(0)
    done = 0
    for s in _states(game, 11, 0.03):
        seat = rng.randrange(4)
        back = from_view(game, to_view(s, seat), rng=random.Random(done))
        det = game.determinize(back, seat, rng)
        assert to_view(det, seat) == to_view(s, seat)
        while not det.over:  # the rebuilt game is whole: it plays to the end
            det.step(rng.choice(det.legal_actions()))
        done += 1
    assert done > 10


# -- errors --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mid():
    """A 4-player game in play, second trick, two cards in it; the seat that plays last."""
    game = WizardGame(WizardOptions(num_players=4))
    for s in _states(game, 21, 0.2):
        if (s.phase_name == "play" and s.hand_size >= 4 and len(s.trick.cards) == 2
                and sum(s.tricks_won) == 1):
            return game, s, (s.trick.leader + 3) % 4
    raise AssertionError("no suitable state")



def _bad(game, view, match):
    with pytest.raises(ValueError, match=match):
        from_view(game, view)


def test_error_missing_and_unknown_keys(mid):
    game, s, seat = mid
    v = to_view(s, seat)
    w = dict(v)
    del w["hand"]
    _bad(game, w, r'missing required key\(s\) "hand"')
    _bad(game, {**v, "extra": 1}, r'unknown key\(s\) "extra"; known keys: game, env, options,')
    _bad(game, [v], "JSON object")
    w = copy.deepcopy(v)
    del w["trick"]["seats"]
    assert to_view(from_view(game, w), seat) == v  # trick.seats is derived: optional


def test_error_wrong_types(mid):
    game, s, seat = mid
    v = to_view(s, seat)
    _bad(game, {**v, "seat": "0"}, r'seat: must be a seat number in 0\.\.3, got "0"')
    _bad(game, {**v, "seat": True}, r"seat: must be a seat number in 0\.\.3, got true")
    _bad(game, {**v, "seat": 9}, r"seat: must be a seat number in 0\.\.3, got 9")
    _bad(game, {**v, "hand": "R7 B2"}, r'hand: must be an array, got string "R7 B2"')
    _bad(game, {**v, "hand": [7]}, r"hand\[0\]: a card is a name \(string\), got 7")
    _bad(game, {**v, "bids": [1, 2]}, r"bids: must have 4 entries \(one per seat\), got 2")
    _bad(game, {**v, "totals": [0, 0, "x", 0]}, r"totals\[2\]")
    _bad(game, {**v, "trump": "X"}, r'trump: must be one of "B", "R", "G", "Y", "pending"; got "X"')
    _bad(game, {**v, "voids": [["Q"], [], [], []]},
         r'voids\[0\]\[0\]: must be one of "B", "R", "G", "Y"; got "Q"')


def test_error_cards(mid):
    game, s, seat = mid
    v = to_view(s, seat)
    _bad(game, {**v, "hand": [*v["hand"][:-1], "R14"]},
         r'hand\[7\]: unknown card "R14"; cards: B1\.\.B13, R1\.\.R13,')
    _bad(game, {**v, "hand": [*v["hand"][:-1], "W"]},
         r'hand\[7\]: unknown card "W"; cards: B1\.\.B13, R1\.\.R13,')
    _bad(game, {**v, "hand": [*v["hand"][:-1], v["hand"][0]]}, "appears twice")
    _bad(game, {**v, "hand": [*v["hand"][:-1], v["played"][0]]}, "both in hand and played")
    _bad(game, {**v, "hand": v["hand"][:-1]},
         r"hand: holds 7 cards, but in phase play of a 9-card round")
    old = [c for c in v["played"] if c not in v["trick"]["cards"]]
    _bad(game, {**v, "played": [c for c in v["played"] if c != old[0]] + [v["trump_card"]]},
         "the turned card .* cannot also be in hand or played")
    w = copy.deepcopy(v)
    w["played"] = [c for c in v["played"] if c != v["trick"]["cards"][0]]
    _bad(game, w, r"trick\.cards: card\(s\) R7 must also be in played")
    _bad(game, {**v, "played": [c for c in v["played"] if c != old[0]]},
         r"played: holds 5 cards, but 1 completed tricks and 2 in the")


def test_error_turn_and_phase(mid):
    game, s, seat = mid
    v = to_view(s, seat)
    _bad(game, {**v, "to_act": (v["to_act"] + 1) % 4}, "by the rules seat .* is to act")
    _bad(game, {**v, "to_act": None}, r"to_act: is null, but by the rules seat 1 is to act")
    _bad(game, {**v, "phase": "bid"}, r"phase: bid but every seat has bid already")
    _bad(game, {**v, "phase": "bidding"}, r'phase: must be one of "choose_trump", "bid", "play",')
    _bad(game, {**v, "phase": "game_over"}, "not the last round")
    _bad(game, {**v, "bids": [None] * 4}, r"phase: play but not every seat has bid")
    _bad(game, {**v, "dealer": (v["dealer"] + 1) % 4},
         r"dealer: is 1, but the rest of the view gives 0")
    _bad(game, {**v, "round": v["round"] + 1},
         r"hand: holds 8 cards, but in phase play of a 10-card round")
    _bad(game, {**v, "tricks_won": [0, 0, 0, 0]}, "first trick is led")
    w = copy.deepcopy(v)
    w["trick"]["seats"] = [(x + 1) % 4 for x in w["trick"]["seats"]]
    _bad(game, w, r"trick\.seats\[0\]: is 0, but the rest of the view gives 3")
    _bad(game, {**v, "legal": ["bid 0"]},
         rf"legal: must be \[\] \(or left out\): seat {seat} is not to act")


def test_error_bid_phase():
    game = WizardGame(WizardOptions(num_players=4, rounds=(3,), dealer_bid_restriction=True))
    s = game.new_game(2)
    while s.phase_name != "bid":
        s.apply(s.legal_actions()[0])
    s.apply(game.bid0 + 1)  # seat 1 bids 1
    v = to_view(s, 2)
    assert v["to_act"] == 2 and v["legal"] == [f"bid {b}" for b in range(4)]
    from_view(game, {**v, "legal": []})  # [] is accepted: the server works it out
    _bad(game, {**v, "legal": ["bid 0"]},
         'legal: is \\["bid 0"\\], but the rules\' legal actions are \\["bid')
    _bad(game, {**v, "legal": ["bid 99"]},
         r"legal\[0\]: must be one of an action label of this game; got")
    _bad(game, {**v, "bids": [None, None, 1, None]},
         r"bids: must be made in turn from the dealer's left: seat 1")
    _bad(game, {**v, "bids": [None, 9, None, None]},
         r"bids\[1\]: must be null or an integer in 0\.\.3, got 9")
    _bad(game, {**v, "voids": [[], ["R"], [], []]}, "voids are shown")
    _bad(game, {**v, "played": [v["hand"][0]]}, "both in hand and played")
    _bad(game, {**v, "played": [c for c in ("B1", "B2") if c not in v["hand"]][:1]},
         "phase bid but cards were played already")
    w = copy.deepcopy(v)
    w["trick"]["leader"] = 0
    _bad(game, w, "first trick is led by the dealer's left neighbour")
    # the dealer's restriction: bids summing to the hand size are refused
    for b in (1, 0):
        s.apply(game.bid0 + b)
    assert s.forbidden_bid() == 1
    v = to_view(s, 0)
    assert "bid 1" not in v["legal"]
    s.apply(game.bid0 + 0)
    v = to_view(s, 0)
    _bad(game, {**v, "bids": [1, 1, 1, 0]}, "dealer's bid restriction")


def test_error_trump():
    game = WizardGame(WizardOptions(num_players=3))
    for s in _states(game, 4, 0.0):
        if s.phase_name == "choose_trump":
            break
    v = to_view(s, s.dealer)
    assert v["trump"] == "pending" and v["trump_card"].startswith("W")
    assert v["legal"] == ["trump B", "trump R", "trump G", "trump Y"]
    _bad(game, {**v, "trump": "B"}, r'trump: must be "pending" while the dealer chooses, got "B"')
    jester = next(f"N{i}" for i in range(1, 5) if f"N{i}" not in v["hand"])
    _bad(game, {**v, "trump_card": jester, "trump": None}, "needs a turned Wizard")
    _bad(game, {**v, "phase": "bid", "trump": None}, "must be the suit the dealer chose")
    _bad(game, {**v, "phase": "bid", "to_act": (s.dealer + 1) % 3, "trump": "pending"},
         "must be the suit the dealer chose")
    w = {**v, "phase": "bid", "to_act": (s.dealer + 1) % 3, "trump": "R", "legal": []}
    assert from_view(game, w).trump == 1
    _bad(game, {**v, "trump_card": "B3", "trump": "R", "phase": "bid",
                "to_act": (s.dealer + 1) % 3, "legal": []},
         r'trump: is "R", but the rest of the view gives "B"')
    _bad(game, {**v, "trump_card": None},
         r"trump_card: must be null exactly in a round that deals all")


def test_error_voids(mid):
    game, s, seat = mid
    v = to_view(s, seat)
    own_suits = {c[0] for c in v["hand"] if c[0] in "BRGY"}
    voids = copy.deepcopy(v["voids"])
    voids[seat] = sorted(own_suits)[:1]
    if voids[seat]:
        _bad(game, {**v, "voids": voids}, "showed out of suit")
    voids = [["B", "R", "G", "Y"] if p != seat else [] for p in range(4)]
    _bad(game, {**v, "voids": voids}, "shows 4 suits, but seat . has played only")
    voids = copy.deepcopy(v["voids"])
    voids[1] = ["R", "R"]
    _bad(game, {**v, "voids": voids},
         r'voids\[1\]\[1\]: "R" appears twice \(also at voids\[1\]\[0\]\)')


def test_error_other_game_players_options(mid):
    game, s, seat = mid
    v = to_view(s, seat)
    _bad(game, {**v, "game": "wunder_punkt"}, r'game: must be "wizard", got "wunder_punkt"')
    _bad(game, {**v, "env": "wizard_v1"}, r'env: must be "wizard_v0", got "wizard_v1"')
    _bad(game, {**v, "num_players": 5}, r"num_players: must be 4, got 5")
    _bad(game, {**v, "options": {**v["options"], "dealer_bid_restriction": True}},
         r"options: do not match the game's options")
    _bad(game, {**v, "options": "4 players"},
         r"options: must be an object \(the game options\), got string")
    _bad(game, {**v, "options": {**v["options"], "first_dealer": False}},
         r"options: do not match the game's options \(first_dealer:")
    _bad(game, {**v, "options": {**v["options"], "num_players": 4.0}},
         r"options: do not match the game's options \(num_players: view")
    _bad(game, {**v, "num_players": 4.0}, r"num_players: must be 4, got 4\.0")
    _bad(game, {**v, "hand_size": float(v["hand_size"])},
         r"hand_size: must be an integer in 1\.\.15, got 9\.0")
    five = WizardGame(WizardOptions(num_players=5))
    _bad(five, v, r"options: do not match the game's options \(num_players: view")


def test_infeasible_voids_are_refused():
    # late in a round, claim that every other seat is void in every suit
    game = WizardGame(WizardOptions(num_players=3, rounds=(20,)))  # no undealt rest
    for s in _states(game, 8, 1.0):
        if s.phase_name == "play" and sum(s.tricks_won) == 4 and not s.trick.cards:
            break
    v = to_view(s, s.current_player)
    v["voids"] = [x if p == v["seat"] else ["B", "R", "G", "Y"]
                  for p, x in enumerate(v["voids"])]
    with pytest.raises(ValueError, match="wizard view"):
        from_view(game, v)


def test_fuzz_only_value_errors():
    game = WizardGame(WizardOptions(num_players=4))
    rng = random.Random(5)
    views = [to_view(s, rng.randrange(4)) for s in _states(game, 9, 0.02)]
    junk = [None, True, -1, 0, 3, 99, 1.5, "", "R7", "W", [], ["R7"], [None], {}, {"a": 1},
            [[]], [["B"]], 10**30]
    keys = list(VIEW_KEYS)
    ok = 0
    for _i in range(600):
        v = copy.deepcopy(rng.choice(views))
        for _ in range(rng.randint(1, 3)):
            k = rng.choice(keys)
            r = rng.random()
            if r < 0.1:
                v.pop(k, None)
            elif r < 0.25 and k == "trick":
                v["trick"][rng.choice(["leader", "cards", "seats"])] = rng.choice(junk)
            elif r < 0.4 and isinstance(v.get(k), list) and v[k]:
                lst = v[k]
                lst[rng.randrange(len(lst))] = rng.choice(junk + lst)
            elif r < 0.5 and isinstance(v.get(k), list) and v[k]:
                rng.shuffle(v[k])
            else:
                v[k] = rng.choice(junk)
        try:
            back = from_view(game, v)
        except ValueError as e:
            assert str(e).startswith("wizard view: ")
        else:
            ok += 1
            to_view(back, v["seat"])
    assert ok < 600


# -- actions ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_actions_round_trip(n):
    game = WizardGame(WizardOptions(num_players=n))
    kinds = set()
    for a in range(game.num_actions):
        av = action_to_view(game, a)
        assert av["action_id"] == a and av["action"] == game.action_label(a)
        assert action_from_label(game, av["action"]) == a
        kinds.add(av["kind"])
        json.dumps(av)
    assert kinds == {"card", "bid", "trump"}
    assert action_to_view(game, 0) == {"action": "B1", "action_id": 0, "kind": "card",
                                       "card": "B1"}
    assert action_to_view(game, game.bid0 + 2) == {"action": "bid 2", "action_id": game.bid0 + 2,
                                                   "kind": "bid", "bid": 2}
    assert action_to_view(game, game.trump0 + 2)["suit"] == "G"
    for bad in ("R14", "bid", f"bid {game.max_hand + 1}", "trump X", "", None, 3):
        with pytest.raises(ValueError, match="wizard"):
            action_from_label(game, bad)
    for bad in (-1, game.num_actions, "1", True, None):
        with pytest.raises(ValueError, match="action id"):
            action_to_view(game, bad)


def test_documented_example_round_trips():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "views" / "wizard.md").read_text()
    v = json.loads(doc.split("```json\n", 1)[1].split("```", 1)[0])
    game = WizardGame(WizardOptions(num_players=4))
    s = from_view(game, v)
    assert to_view(s, 1) == v
    assert [game.action_label(a) for a in s.legal_actions()] == ["B11"]
