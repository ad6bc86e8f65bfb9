"""Geheimtrumpf player view: round trip to the exact observation, no leaks, clear errors."""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest

from stichzoo.envs.geheimtrumpf.encode import GeheimtrumpfEncoder
from stichzoo.envs.geheimtrumpf.rules import (
    CARD_DRAFT,
    CHECK_OFF,
    DECK,
    GAME_OVER,
    PHASE_NAMES,
    PLAY,
    ROW_LEN,
    ROWS,
    TASK_CHOICE,
    GeheimtrumpfGame,
    GeheimtrumpfOptions,
    consistent_trumps,
)
from stichzoo.envs.geheimtrumpf.view import (
    SCHEMA,
    VIEW_KEYS,
    action_from_label,
    action_to_view,
    from_view,
    to_view,
)


def _game(n: int, **kw) -> GeheimtrumpfGame:
    return GeheimtrumpfGame(GeheimtrumpfOptions(num_players=n, **kw))


def _states(game: GeheimtrumpfGame, seed: int, every: int = 1):
    """Every ``every``-th state of a random game, the final one included."""
    rng = random.Random(seed)
    s = game.new_game(seed)
    k = 0
    while True:
        if k % every == 0 or s.over or s.truncated:
            yield s
        if s.over or s.truncated:
            return
        s.step(rng.choice(s.legal_actions()))
        k += 1


def _state_in(game: GeheimtrumpfGame, seed: int, phase: int, min_progress: int = 0):
    """The first state of a random game in ``phase`` after ``min_progress`` steps of it."""
    seen = 0
    for s in _states(game, seed):
        if s.phase == phase:
            if seen >= min_progress:
                return s
            seen += 1
    raise AssertionError("phase not reached")


def _check_round_trip(game, enc, s, seat, a, b, rng=None):
    v = to_view(s, seat)
    assert list(v) == list(VIEW_KEYS)
    assert json.loads(json.dumps(v)) == v
    s2 = from_view(game, v, rng)
    assert s2.log is None and type(s2) is type(s)
    enc.encode(s, seat, a)
    enc.encode(s2, seat, b)
    assert np.array_equal(a, b), (v["phase"], np.flatnonzero(a != b))
    if s.current_player == seat:
        assert s2.legal_mask() == s.legal_mask()
        assert v["legal"] == [game.action_label(x) for x in s.legal_actions()]
    else:
        assert v["legal"] == []
    assert to_view(s2, seat) == v
    return v


# -- the acceptance property --------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4])
def test_round_trip_every_phase_every_seat(n):
    """Thousands of states per player count: the rebuilt state encodes exactly alike."""
    phases = set()
    checked = 0
    for seed in range(6 if n == 3 else 4):
        game = _game(n, round_limit=2, first_start=seed % n)
        enc = GeheimtrumpfEncoder(game)
        a = np.zeros(enc.layout.size, np.float32)
        b = np.zeros(enc.layout.size, np.float32)
        for s in _states(game, seed):
            for seat in range(n):
                v = _check_round_trip(game, enc, s, seat, a, b)
                phases.add(v["phase"])
                checked += 1
    assert phases >= set(PHASE_NAMES) - {"check_off"}
    assert checked > 2000


def test_round_trip_long_games_check_off_and_winners():
    """Whole games to a winner (sampled states), check-off states, random fillers."""
    phases = set()
    winners = 0
    for n in (3, 4):
        game = _game(n)
        enc = GeheimtrumpfEncoder(game)
        a = np.zeros(enc.layout.size, np.float32)
        b = np.zeros(enc.layout.size, np.float32)
        rng = random.Random(n)
        for seed in range(10, 13):
            for s in _states(game, seed, every=9):
                for seat in range(n):
                    v = _check_round_trip(game, enc, s, seat, a, b, rng)
                    phases.add(v["phase"])
                    if v["phase"] == "game_over" and v["winners"]:
                        winners += 1
    assert phases == set(PHASE_NAMES)
    assert winners > 0


def test_round_trip_truncated_game_over():
    game = _game(3, round_limit=1)
    s = list(_states(game, 5))[-1]
    assert s.truncated
    for seat in range(3):
        v = to_view(s, seat)
        assert v["phase"] == "game_over" and v["to_act"] is None and v["winners"] == []
        assert to_view(from_view(game, v), seat) == v


def test_secret_trumps_follow_the_row_winners():
    """A non-start player's rebuilt trumps replay every announced row winner."""
    game = _game(4)
    s = _state_in(game, 3, CARD_DRAFT, min_progress=30)
    seat = (s.start + 1) % 4
    v = to_view(s, seat)
    assert v["trumps"] is None and len(v["draft"]) >= 8
    rng = random.Random(1)
    draws = set()
    for _ in range(20):
        s2 = from_view(game, v, rng)
        draws.add((s2.trumps.suit, s2.trumps.value))
        assert s2.row_winners == s.row_winners
    assert draws <= set(consistent_trumps(s))
    assert (s.trumps.suit, s.trumps.value) in consistent_trumps(s)
    # the start player sees them
    vs = to_view(s, s.start)
    t = s.trumps
    assert vs["trumps"] == {"suit": "HDSC"[t.suit] if t.suit >= 0 else None,
                            "value": t.value or None}


# -- nothing hidden in the view -----------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4])
def test_view_does_not_depend_on_hidden_information(n):
    game = _game(n, round_limit=2)
    rng = random.Random(7)
    count = 0
    for seed in range(2):
        for s in _states(game, seed, every=3):
            for seat in range(n):
                v = to_view(s, seat)
                for _ in range(2):
                    assert to_view(game.determinize(s, seat, rng), seat) == v
                count += 1
    assert count > 100


def test_three_players_set_aside_cards_never_shown():
    game = _game(3)
    for s in _states(game, 4, every=5):
        if s.phase == GAME_OVER:
            break
        if s.phase < CARD_DRAFT:
            continue
        order = s.deck_orders[s.round_index]
        aside = [DECK.names[order[r * ROW_LEN + 3]] for r in range(ROWS)]
        for seat in range(3):
            text = json.dumps(to_view(s, seat))
            for name in aside:
                assert f'"{name}"' not in text


def test_secret_choices_and_trumps_are_hidden():
    game = _game(4)
    s = _state_in(game, 2, TASK_CHOICE, min_progress=2)  # two have chosen
    chooser = (s.start + 1) % 4
    v = to_view(s, (s.start + 3) % 4)
    assert v["chosen"][chooser] == "secret"
    assert to_view(s, chooser)["chosen"][chooser] is not None
    assert to_view(s, chooser)["chosen"][chooser] != "secret"
    assert v["chosen"][s.start] is None
    d = _state_in(game, 2, CARD_DRAFT, min_progress=5)
    for seat in range(4):
        assert (to_view(d, seat)["trumps"] is None) == (seat != d.start)


# -- the answer format -------------------------------------------------------------------------


def test_action_format():
    game = _game(4)
    kinds = set()
    for a in range(game.num_actions):
        av = action_to_view(game, a)
        assert av["action_id"] == a and av["action"] == game.action_label(a)
        assert action_from_label(game, av["action"]) == a
        kinds.add(av["kind"])
        json.dumps(av)
    assert kinds == {"card", "take", "draft_task", "choose_task", "check_task"}
    assert action_to_view(game, 5) == {"action": "6H", "action_id": 5, "kind": "card",
                                       "card": "6H"}
    assert action_to_view(game, game.CHOOSE_TASK0 + 6)["task"] == "last_trick"
    assert action_from_label(game, "take 1h") == game.TAKE0
    assert action_from_label(game, "7d") == 15
    for bad in ("zz", "take 10H", "choose nothing", "", 7, None, "JK"):
        with pytest.raises(ValueError, match=r"unknown action label|must be a string"):
            action_from_label(game, bad)
    for bad in (-1, game.num_actions, "3", True, 2.0):
        with pytest.raises(ValueError, match="action id"):
            action_to_view(game, bad)


# -- errors ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def play_view():
    game = _game(4)
    s = _state_in(game, 1, PLAY, min_progress=14)  # mid trick 4 or so
    seat = s.current_player
    return game, s, to_view(s, seat)



def _bad(game, v, match):
    with pytest.raises(ValueError, match=match):
        from_view(game, v)


def test_error_missing_and_unknown_keys(play_view):
    game, _, v = play_view
    fields = SCHEMA.spec(game).fields
    for k in VIEW_KEYS:
        w = dict(v)
        del w[k]
        if fields[k].required:
            _bad(game, w, f'missing required key\\(s\\) "{k}"')
        else:  # a derived key: may be left out
            assert to_view(from_view(game, w), v["seat"]) == v
    _bad(game, {**v, "cheat": 1}, r'unknown key\(s\) "cheat"; known keys: game, env, options,')
    w = copy.deepcopy(v)
    del w["tricks"][0]["winner"]
    assert to_view(from_view(game, w), v["seat"]) == v  # derived: optional
    del w["tricks"][0]["cards"]
    _bad(game, w, r'tricks\[0\]: missing required key\(s\) "cards"')
    _bad(game, [1, 2], r"a view is a JSON object, got array")


def test_error_game_env_options_players(play_view):
    game, _, v = play_view
    _bad(game, {**v, "game": "wizard"}, r'game: must be "geheimtrumpf", got "wizard"')
    _bad(game, {**v, "env": "geheimtrumpf_v9"},
         r'env: must be "geheimtrumpf_v4", got "geheimtrumpf_v9"')
    _bad(game, {**v, "options": {**v["options"], "round_limit": 7}}, "do not match")
    _bad(_game(3), v, r"options: do not match the game's options \(num_players: view")
    _bad(game, {**v, "options": "x"},
         r"options: must be an object \(the game options\), got string")


def test_error_types(play_view):
    game, _, v = play_view
    _bad(game, {**v, "seat": "1"}, r'seat: must be a seat number in 0\.\.3, got "1"')
    _bad(game, {**v, "seat": 9}, r"seat: must be a seat number in 0\.\.3, got 9")
    _bad(game, {**v, "hands": "AH"}, r'hands: must be an array, got string "AH"')
    _bad(game, {**v, "hands": v["hands"][:3]},
         r"hands: must have 4 entries \(one per seat\), got 3")
    _bad(game, {**v, "draft": [1, *v["draft"][1:]]},
         r"draft\[0\]: must be an object with keys row, first, cards,")
    _bad(game, {**v, "trick": {"leader": 0}}, r'trick: missing required key\(s\) "cards"')
    _bad(game, {**v, "tasks": [["no_trick", 3], *v["tasks"][1:]]},
         r'tasks\[0\]\[1\]: must be one of "no_trick", "one_trick",')
    _bad(game, {**v, "phase": "bidding"}, r'phase: must be one of "task_draft", "card_draft",')


def test_error_cards(play_view):
    game, _s, v = play_view
    seat = v["seat"]
    w = copy.deepcopy(v)
    w["hand"] = ["ZZ", *w["hand"][1:]]
    _bad(game, w, r'hand\[0\]: unknown card "ZZ"; cards: A 2 \.\. 10 of H D S C,')
    w = copy.deepcopy(v)
    w["hands"][seat] = ["10H", *w["hands"][seat][1:]]
    _bad(game, w, r'hands\[2\]\[0\]: unknown card "10H"; cards: A 2 \.\. 10 of H D S')
    w = copy.deepcopy(v)
    w["hand"] = w["hand"] + w["hand"][:1]
    _bad(game, w, "twice")
    # a card in a hand that is also played
    played = v["tricks"][0]["cards"][0]
    owner = v["tricks"][0]["leader"]
    w = copy.deepcopy(v)
    w["hands"][owner] = sorted(w["hands"][owner] + [played])
    if owner == seat:
        w["hand"] = w["hands"][owner]
    _bad(game, w, rf"hands?(\[{owner}\])?: is \[")
    # wrong hand size
    w = copy.deepcopy(v)
    w["hands"][seat] = w["hands"][seat][1:]
    w["hand"] = w["hand"][1:]
    _bad(game, w, r"hands?(\[\d\])?: is \[")
    # a card twice in the table
    w = copy.deepcopy(v)
    w["draft"][1]["cards"][0] = w["draft"][0]["cards"][0]
    _bad(game, w, "appears twice")
    # hand differs from hands[seat]
    w = copy.deepcopy(v)
    w["hand"] = w["hands"][(seat + 1) % 4]
    _bad(game, w, r'hand: is \["6H", "9H", "2D", "4D", "9S", "4C"\], but the rest')


def test_error_phase_and_turn(play_view):
    game, _, v = play_view
    seat = v["seat"]
    _bad(game, {**v, "phase": "check_off"},
         r'phase is "check_off", but the rest of the view puts the')
    _bad(game, {**v, "phase": "card_draft"}, "trumps must be null|phase")
    _bad(game, {**v, "phase": "task_choice"},
         r'chosen\[1\] must be "secret": seat 2 cannot see it before all')
    other = (seat + 1) % 4
    _bad(game, {**v, "to_act": other, "legal": []}, f"to_act: is {other}, but by the rules "
                                                      f"seat {seat} is to act")
    _bad(game, {**v, "to_act": None}, r"to_act: is null, but by the rules seat 2 is to act")
    _bad(game, {**v, "legal": v["legal"][:-1] if len(v["legal"]) > 1 else ["take AH"]},
         'legal: is \\["2H"\\], but the rules\' legal actions are \\["2H",')
    _bad(game, {**v, "legal": ["bid 3"]},
         r"legal\[0\]: must be one of an action label of this game; got")
    _bad(game, {**v, "round": 1}, r"draft\[0\]: the announced winner is seat 1, but under the")
    _bad(game, {**v, "start_player": (v["start_player"] + 1) % 4}, "start_player")
    # a trick led by the wrong seat, a wrong winner, a revealed choice kept secret
    w = copy.deepcopy(v)
    w["tricks"][1]["leader"] = (w["tricks"][1]["leader"] + 1) % 4
    _bad(game, w, "leader is")
    w = copy.deepcopy(v)
    w["tricks"][0]["winner"] = (w["tricks"][0]["winner"] + 1) % 4
    _bad(game, w, r"tricks\[0\]\.winner is seat 3, but by the rules seat 2 wins it")
    w = copy.deepcopy(v)
    p = next(p for p, c in enumerate(w["chosen"]) if c is not None and p != seat)
    w["chosen"][p] = "secret"
    _bad(game, w, "cannot be secret in phase play")


def test_check_off_view_and_wrong_last_winner():
    game = _game(4)
    s = next(s for seed in range(20) for s in _states(game, seed) if s.phase == CHECK_OFF)
    v = to_view(s, s.start)
    assert v["legal"] and all(a.startswith("check ") for a in v["legal"])
    assert len(v["tricks"]) == ROWS and v["trick"] is None
    assert to_view(from_view(game, v), s.start) == v
    w = copy.deepcopy(v)
    w["tricks"][-1]["winner"] = (w["tricks"][-1]["winner"] + 1) % 4
    _bad(game, w, r"tricks\[8\].winner is seat \d, but by the rules seat \d wins it")
    w = copy.deepcopy(v)
    w["checked"] = [[] for _ in range(4)]
    w["totals"] = [0] * 4
    _bad(game, w, r"checked\[1\]: is \[\], but the rest of the view gives")


def test_error_trumps_and_row_winners():
    game = _game(4)
    s = _state_in(game, 3, CARD_DRAFT, min_progress=30)
    other = (s.start + 1) % 4
    v = to_view(s, other)
    _bad(game, {**v, "trumps": {"suit": "H", "value": 3}}, "trumps must be null")
    vs = to_view(s, s.start)
    _bad(game, {**vs, "trumps": None}, "trumps must be given")
    _bad(game, {**vs, "trumps": {"suit": "X", "value": 3}}, "trumps.suit")
    # a start player's view with a row winner the trumps contradict
    w = copy.deepcopy(vs)
    w["draft"][0]["winner"] = (w["draft"][0]["winner"] + 1) % 4
    _bad(game, w, r"draft\[0\]: the announced winner is seat")
    # a non-start view whose announcements no trump draw explains
    found = False
    for r in range(len(v["draft"]) - 1):
        for delta in (1, 2, 3):
            w = copy.deepcopy(v)
            w["draft"][r]["winner"] = (w["draft"][r]["winner"] + delta) % 4
            try:
                from_view(game, w)
            except ValueError as e:
                assert "no trump draw agrees" in str(e)
                found = True
    assert found
    # the wrong seat with first choice
    w = copy.deepcopy(v)
    w["draft"][2]["first"] = (w["draft"][2]["first"] + 1) % 4
    _bad(game, w, r"draft\[2\]\.first: is 0, but the rest of the view gives 3")


def test_error_task_draft_views():
    game = _game(3)
    s = game.new_game(0)
    for _ in range(4):
        s.step(s.legal_actions()[0])
    v = to_view(s, 0)
    assert v["phase"] == "task_draft" and v["to_act"] == 1
    assert to_view(from_view(game, v), 0) == v
    _bad(game, {**v, "to_act": 2}, r"to_act: is 2, but by the rules seat 1 is to act")
    _bad(game, {**v, "checked": [v["tasks"][0][:1], [], []], "totals": [1, 0, 0]},
         "no task can be checked")
    w = copy.deepcopy(v)
    w["tasks"][2] = ["most_tricks", "no_clubs"]
    _bad(game, w, "round-robin task draft")
    w = copy.deepcopy(v)
    w["tasks"] = [["no_trick"], ["no_trick"], ["no_trick"], ]
    w["tasks"][0].append("one_trick")
    _bad(game, w, "held by 3 players")
    _bad(game, {**v, "hands": [[], ["AH"], []]}, "must be empty")


def test_fuzz_only_value_errors():
    """Random corruptions of real views: a ValueError or a consistent state, nothing else."""
    rng = random.Random(3)
    junk = [None, 0, -1, 99, "x", "AH", [], {}, [None], ["AH", "AH"], {"a": 1}, 1.5, True,
            [[]], [0, 1, 2, 3], {"suit": None, "value": None}, {"leader": 0, "cards": []}]
    game = _game(4, round_limit=2)
    views = [to_view(s, rng.randrange(4)) for s in _states(game, 8, every=9)]
    failures = 0
    for _ in range(1500):
        v = copy.deepcopy(rng.choice(views))
        for _ in range(rng.randint(1, 2)):
            k = rng.choice(VIEW_KEYS)
            target = v
            val = v[k]
            while isinstance(val, (list, dict)) and val and rng.random() < 0.6:
                target, k = val, (rng.randrange(len(val)) if isinstance(val, list)
                                  else rng.choice(list(val)))
                val = target[k]
            target[k] = copy.deepcopy(rng.choice(junk))
        try:
            s = from_view(game, v)
        except ValueError as e:
            assert "malformed view" not in str(e), str(e)
            failures += 1
        else:
            assert to_view(s, v["seat"]) is not None
    assert failures > 1000
