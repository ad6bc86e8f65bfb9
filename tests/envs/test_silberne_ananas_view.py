"""Silberne Ananas player view: round trip to the encoder, no leaks, validation, fuzz."""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest

from stichzoo.envs.silberne_ananas.encode import SilberneAnanasEncoder
from stichzoo.envs.silberne_ananas.rules import (
    DECK,
    GIVE,
    GIVE0,
    JOKER,
    NUM_ACTIONS,
    SilberneAnanasGame,
    SilberneAnanasOptions,
)
from stichzoo.envs.silberne_ananas.view import (
    VIEW_KEYS,
    action_from_label,
    action_to_view,
    from_view,
    to_view,
)

OPTION_SETS = [
    {},
    {"match": False},
    {"target_score": 40, "first_dealer": 2},
    {"alone_variant": True, "target_score": 60, "first_dealer": 1},
]


def _game(**kw) -> SilberneAnanasGame:
    return SilberneAnanasGame(SilberneAnanasOptions(**kw))


def _states(game, seed, every=1):
    """States of one random game (every ``every``-th decision, and the final one)."""
    rng = random.Random(seed)
    s = game.new_game(seed)
    k = 0
    while not s.over:
        if k % every == 0:
            yield s.clone()
        s.step(rng.choice(s.legal_actions()))
        k += 1
    yield s.clone()


def _mid_state(seed=3, phase=None, deal=0, min_tricks=2):
    """A state of a default match in ``deal`` with at least ``min_tricks`` completed tricks."""
    g = _game()
    rng = random.Random(seed)
    s = g.new_game(seed)
    while True:
        n = len(s.history) - 34 * s.deal_index
        ok = s.deal_index == deal and n >= 3 * min_tricks
        if ok and (phase is None or s.phase == phase):
            return g, s
        s.step(rng.choice(s.legal_actions()))


# -- the acceptance property ---------------------------------------------------------------


def _opts_id(opts: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in opts.items()) or "default"


@pytest.mark.parametrize("opts", OPTION_SETS, ids=_opts_id)
def test_round_trip_encoding_and_mask(opts):
    game = _game(**opts)
    enc = SilberneAnanasEncoder(game)
    want = np.zeros(enc.layout.size, np.float32)
    got = np.zeros(enc.layout.size, np.float32)
    phases = set()
    checks = 0
    seeds = range({(): 3, ("match",): 8}.get(tuple(opts), 4))
    for seed in seeds:
        for s in _states(game, seed, every=2 if opts == {} else 1):
            phases.add(s.phase_name)
            for seat in range(3):
                v = to_view(s, seat)
                assert list(v) == list(VIEW_KEYS)
                assert json.loads(json.dumps(v)) == v
                r = from_view(game, v)
                assert r.log is None and type(r) is type(s)
                enc.encode(s, seat, want)
                enc.encode(r, seat, got)
                assert np.array_equal(want, got), (seat, v)
                if seat == s.current_player:
                    assert r.legal_mask() == s.legal_mask()
                    assert v["legal"] == [game.action_label(a) for a in s.legal_actions()]
                else:
                    assert v["legal"] == []
                assert to_view(r, seat) == v
                checks += 1
    assert phases == {"play", "give_trick", "game_over"}
    assert checks >= 700


def test_rebuilt_state_plays_on_and_determinizes():
    """A state from a view is a full rules state: it plays to the end and can be re-sampled."""
    rng = random.Random(1)
    for seed in range(6):
        g, s = _mid_state(seed=seed, deal=seed % 3, min_tricks=seed % 5)
        seat = rng.randrange(3)
        r = from_view(g, to_view(s, seat))
        assert len(r.history) == len(s.history)
        assert r.history[34 * s.deal_index:] == s.history[34 * s.deal_index:]
        for _ in range(3):
            d = g.determinize(r, seat, rng)
            assert to_view(d, seat) == to_view(s, seat)
        while not r.over:
            r.step(rng.choice(r.legal_actions()))
        assert len(r.deal_scores) >= s.deal_index + 1


# -- nothing hidden in the view ------------------------------------------------------------------


def _all_cards(v) -> set[str]:
    out = set(v["hand"]) | set(v["played"]) | set(v["trick"]["cards"])
    for t in v["tricks"]:
        out |= set(t["cards"])
    out |= {lab for lab in v["legal"] if not lab.startswith("give")}
    return out


def test_view_does_not_depend_on_hidden_information():
    rng = random.Random(7)
    game = _game(target_score=60)
    checks = 0
    for seed in range(3):
        for s in _states(game, seed, every=3):
            for seat in range(3):
                v = to_view(s, seat)
                for _ in range(2):
                    d = game.determinize(s, seat, rng)
                    assert to_view(d, seat) == v
                others = 0
                for p in range(3):
                    if p != seat:
                        others |= s.hands[p]
                assert not _all_cards(v) & set(DECK.format_mask(others))
                checks += 1
    assert checks > 100


def test_view_of_a_hidden_world_differs_only_in_hidden_facts():
    """Different other hands, same view; a different own hand, a different view."""
    _g, s = _mid_state(seed=4)
    seat = s.current_player
    other = (seat + 1) % 3
    t = s.clone()
    t.hands[seat], t.hands[other] = s.hands[seat], s.hands[other]
    assert to_view(t, seat) == to_view(s, seat)
    assert to_view(t, seat)["hand"] == DECK.format_mask(s.hands[seat])


# -- actions ------------------------------------------------------------------------------------


def test_action_views_and_labels():
    game = _game()
    for a in range(NUM_ACTIONS):
        v = action_to_view(game, a)
        assert v["action_id"] == a and v["action"] == game.action_label(a)
        assert action_from_label(game, v["action"]) == a
        json.dumps(v)
    assert action_to_view(game, 3) == {"action": "10h", "action_id": 3, "kind": "card",
                                       "card": "10h"}
    assert action_to_view(game, JOKER)["card"] == "Joker"
    assert action_to_view(game, GIVE0 + 1) == {"action": "give left", "action_id": 34,
                                               "kind": "gift", "gift": "left"}
    assert action_from_label(game, "Th") == 3 and action_from_label(game, "td") == 11
    assert action_from_label(game, "X") == JOKER
    assert action_from_label(game, "Give  Right") == GIVE0 + 2
    for bad in ("give up", "11h", "", "bid 2"):
        with pytest.raises(ValueError, match="unknown action label"):
            action_from_label(game, bad)
    with pytest.raises(ValueError, match="must be a string"):
        action_from_label(game, 3)
    for bad in (-1, NUM_ACTIONS, True, "3", None):
        with pytest.raises(ValueError, match="action id"):
            action_to_view(game, bad)


# -- validation ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mid():
    g, s = _mid_state(seed=3, deal=1, min_tricks=3)
    seat = s.current_player
    return g, s, seat, to_view(s, seat)



def _bad(game, view, match):
    with pytest.raises(ValueError, match=match):
        from_view(game, view)


def _edit(view, **changes):
    v = copy.deepcopy(view)
    v.update(changes)
    return v


def test_any_hand_order_is_accepted_but_only_exact_card_names(mid):
    g, _s, seat, v = mid
    w = copy.deepcopy(v)
    w["hand"] = list(reversed(v["hand"]))
    w["played"] = list(reversed(v["played"]))
    r = from_view(g, w)
    assert to_view(r, seat) == v
    ten = next(c for c in v["hand"] if c.startswith("10"))
    w["hand"] = [c.replace("10", "T") for c in v["hand"]]
    i = w["hand"].index(ten.replace("10", "T"))
    _bad(g, w, rf'hand\[{i}\]: unknown card "T')  # aliases are for action labels only
    _bad(g, _edit(v, hand=[c.upper() for c in v["hand"]]), "case-sensitive")


def test_rejects_bad_structure(mid):
    g, _s, _seat, v = mid
    _bad(g, [v], r"a view is a JSON object, got array")
    w = copy.deepcopy(v)
    del w["hand"]
    _bad(g, w, r'missing required key\(s\) "hand"')
    _bad(g, _edit(v, colour="red"), r'unknown key\(s\) "colour"; known keys: game, env, options,')
    _bad(g, _edit(v, hand="7h 8h"), r'hand: must be an array, got string "7h 8h"')
    _bad(g, _edit(v, seat="0"), r'seat: must be a seat number in 0\.\.2, got "0"')
    _bad(g, _edit(v, seat=True), r"seat: must be a seat number in 0\.\.2, got true")
    _bad(g, _edit(v, seat=3), r"seat: must be a seat number in 0\.\.2, got 3")
    _bad(g, _edit(v, deal=1.0), r"deal: must be an integer in 0\.\.6, got 1\.0")
    _bad(g, _edit(v, trick=[]), r"trick: must be an object with keys leader, cards, seats;")
    _bad(g, _edit(v, tricks={}), r"tricks: must be an array, got object \{\}")
    w = copy.deepcopy(v)
    w["tricks"][0]["when"] = 3
    _bad(g, w, r'tricks\[0\]: unknown key\(s\) "when"; known keys: leader,')
    _bad(g, _edit(v, voids=[["h"], ["x"], []]),
         r'voids\[1\]\[0\]: must be one of "h", "d", "s", "c"; got "x"')
    _bad(g, _edit(v, deal_scores="none"), r'deal_scores: must be an array, got string "none"')
    _bad(g, _edit(v, legal=["bid 3"]),
         r"legal\[0\]: must be one of an action label of this game; got")


def test_rejects_another_game_player_count_or_options(mid):
    g, _s, _seat, v = mid
    _bad(g, _edit(v, game="wizard"), r'game: must be "silberne_ananas", got "wizard"')
    _bad(g, _edit(v, env="silberne_ananas_v9"),
         r'env: must be "silberne_ananas_v1", got "silberne_ananas_v9"')
    _bad(g, _edit(v, options={**v["options"], "num_players": 4}),
         r"options: do not match the game's options \(num_players: view")
    _bad(g, _edit(v, options={**v["options"], "target_score": 50}),
         r"options: do not match the game's options \(target_score:")
    _bad(g, _edit(v, options={**v["options"], "match": 1}),
         r"options: do not match the game's options \(match: view 1,")
    _bad(g, _edit(v, options=None), r"options: must be an object \(the game options\), got null")
    _bad(_game(match=False), v, r"options: do not match the game's options \(match: view true,")


def test_rejects_bad_cards(mid):
    g, _s, _seat, v = mid
    _bad(g, _edit(v, hand=[*v["hand"][:-1], "11h"]),
         r'hand\[7\]: unknown card "11h"; cards: 7 8 9 10 J Q K A of h d')
    _bad(g, _edit(v, hand=[*v["hand"][:-1], 7]), r"hand\[7\]: a card is a name \(string\), got 7")
    _bad(g, _edit(v, hand=[*v["hand"], v["hand"][0]]),
         r'hand\[8\]: "9h" appears twice \(also at hand\[0\]\)')
    played = v["tricks"][0]["cards"][0]
    _bad(g, _edit(v, hand=[*v["hand"][:-1], played]),
         rf'tricks\[0\]\.cards: card "{played}" appears twice \(also in hand\)')
    _bad(g, _edit(v, hand=v["hand"][:-1]),
         r"hand: has 7 cards, but seat 1 holds 8 \(11 minus the 3 it")
    unseen = sorted(set(DECK.names) - set(v["hand"]) - set(v["played"]))
    _bad(g, _edit(v, hand=[*v["hand"], unseen[0]]),
         r"hand: has 9 cards, but seat 1 holds 8 \(11 minus the 3 it")
    w = copy.deepcopy(v)
    w["played"] = w["played"][:-1]
    _bad(g, w, r'played: is \["9d", "10d", "Jd", "7s", "8s", "As", "10c",')


def test_rejects_inconsistent_turn_and_phase(mid):
    g, s, seat, v = mid
    other = (seat + 1) % 3
    _bad(g, _edit(v, to_act=other), rf"to_act: is {other}, but by the rules seat {seat} is to act")
    _bad(g, _edit(v, to_act=None), r"to_act: is null, but by the rules seat 1 is to act")
    _bad(g, _edit(v, phase="give_trick"), "phase: is \"give_trick\", but the rest of the view "
                                          "gives \"play\"")
    _bad(g, _edit(v, phase="bidding"), r'phase: must be one of "play", "give_trick", "game_over";')
    _bad(g, _edit(v, phase="game_over", to_act=None),
         r"deal_scores: must hold one row per finished deal: 2 in the")
    _bad(g, _edit(v, legal=v["legal"][:1]), "legal: is")
    _bad(g, _edit(v, dealer=(v["dealer"] + 1) % 3),
         r"dealer: is 2, but the rest of the view gives 1")
    _bad(g, _edit(v, deal=0, dealer=0),
         r"deal_scores: must hold one row per finished deal: 0 in deal")
    # a non-acting seat's view with moves in it
    w = to_view(s, other)
    _bad(g, _edit(w, legal=v["legal"]),
         r"legal: must be \[\] \(or left out\): seat 2 is not to act; got")


def test_rejects_inconsistent_public_facts(mid):
    g, _s, _seat, v = mid
    w = copy.deepcopy(v)
    t0 = w["tricks"][0]
    if "gift" not in t0:
        t0["winner"] = (t0["winner"] + 1) % 3
        _bad(g, w, r"tricks\[0\]\.winner: is 1, but the rest of the view gives 0")
    w = copy.deepcopy(v)
    w["tricks"][0]["leader"] = (w["tricks"][0]["leader"] + 1) % 3
    _bad(g, w, r"tricks\[0\]\.leader: is \d, but the rest of the view gives \d")
    w = copy.deepcopy(v)
    w["tricks"][0]["seats"] = w["tricks"][0]["seats"][::-1]
    _bad(g, w, r"tricks\[0\].seats")
    w = copy.deepcopy(v)
    w["tricks"][0]["cards"] = w["tricks"][0]["cards"][:2]
    _bad(g, w, "a completed trick has 3 cards")
    _bad(g, _edit(v, tricks_won=[11, 0, 0]),
         r"tricks_won\[0\]: is 11, but the rest of the view gives 1")
    _bad(g, _edit(v, no_joker=[True, True, True]),
         r"no_joker\[0\]: is true, but the rest of the view gives false")
    _bad(g, _edit(v, voids=[["h", "d", "s", "c"], [], []]),
         r'voids\[0\]: is \["h", "d", "s", "c"\], but the rest of the view')
    _bad(g, _edit(v, hand_sizes=[11, 11, 11]),
         r"hand_sizes\[0\]: is 11, but the rest of the view gives 8")
    _bad(g, _edit(v, totals=[0, 0, 0]), r"totals\[0\]: is 0, but the rest of the view gives 21")
    _bad(g, _edit(v, deal_scores=[[1, 2, 3]]),
         r"deal_scores\[0\]: \[1, 2, 3\] is no possible deal score \(own")
    _bad(g, _edit(v, bonus_seat=(v["bonus_seat"] + 1) % 3),
         r"bonus_seat: is 1, but the rest of the view gives 0")
    _bad(g, _edit(v, lead_suit="x"), r'lead_suit: must be one of "h", "d", "s", "c"; got "x"')
    _bad(g, _edit(v, max_deals=3), r"max_deals: must be 7, got 3")
    _bad(g, _edit(v, winners=[0]), r"winners: is \[0\], but the rest of the view gives \[\]")


def test_rejects_a_play_the_rules_refuse():
    """A hand holding a suit its seat showed out of: the replay refuses the show-out."""
    g = _game(match=False)
    for seed in range(50):
        rng = random.Random(seed)
        s = g.new_game(seed)
        while not s.over:
            s.step(rng.choice(s.legal_actions()))
            seat = s.current_player
            if seat < 0 or not s.voids[seat] or s.phase == GIVE:
                continue
            v = to_view(s, seat)
            unseen = set(DECK.names) - set(v["hand"]) - set(v["played"])
            void = [x for x in "hdsc" if x in v["voids"][seat]]
            extra = [c for c in sorted(unseen) if c[-1] in void]
            others_void = {x for p in range(3) if p != seat for x in v["voids"][p]}
            out = [c for c in v["hand"] if c != "Joker" and c[-1] not in others_void]
            if not extra or not out:
                continue
            v["hand"][v["hand"].index(out[0])] = extra[0]
            with pytest.raises(ValueError, match=r"tricks\[\d+\].cards\[\d\]: the rules refuse"):
                from_view(g, v)
            return
    pytest.fail("no suitable state found")


def test_game_over_view():
    game = _game(target_score=30)
    s = list(_states(game, 0))[-1]
    v = to_view(s, 1)
    assert v["phase"] == "game_over" and v["to_act"] is None and v["legal"] == []
    assert v["hand"] == [] and len(v["tricks"]) == 11 and v["winners"] == sorted(s.winners())
    assert v["trick"]["cards"] == v["tricks"][-1]["cards"]
    assert to_view(from_view(game, v), 1) == v
    _bad(game, _edit(v, to_act=1), r"to_act: is 1, but by the rules nobody is to act")
    w = copy.deepcopy(v)
    w["trick"] = {"leader": 0, "cards": [], "seats": []}
    _bad(game, w, r"trick\.cards: when the game is over the trick shows the last")


def test_to_view_rejects_a_bad_seat():
    s = _game().new_game(0)
    for bad in (-1, 3, "1", None, True):
        with pytest.raises(ValueError, match="seat"):
            to_view(s, bad)


# -- fuzz -----------------------------------------------------------------------------------------

_JUNK = [None, -1, 0, 2, 99, 1.5, True, "x", "7h", "Joker", "Td", [], {}, ["7h"], [0, 1, 2],
         {"leader": 0}, "play", [[1, 2, 3]], [None]]


def _paths(x, prefix=()):
    yield prefix
    if isinstance(x, dict):
        for k, val in x.items():
            yield from _paths(val, (*prefix, k))
    elif isinstance(x, list):
        for i, val in enumerate(x):
            yield from _paths(val, (*prefix, i))


def _mutate(view, rng):
    v = copy.deepcopy(view)
    paths = [p for p in _paths(v) if p]
    path = rng.choice(paths)
    parent = v
    for k in path[:-1]:
        parent = parent[k]
    r = rng.random()
    if r < 0.2:
        del parent[path[-1]]
    elif r < 0.3 and isinstance(parent, list):
        parent.append(rng.choice(_JUNK))
    else:
        parent[path[-1]] = copy.deepcopy(rng.choice(_JUNK))
    return v


def test_fuzz_never_crashes_with_anything_but_value_error():
    rng = random.Random(0)
    game = _game(target_score=40)
    views = [to_view(s, seat) for s in _states(game, 2, every=7) for seat in range(3)]
    accepted = 0
    for i in range(1500):
        v = _mutate(rng.choice(views), rng)
        if i % 5 == 0:
            v = _mutate(v, rng)
        try:
            r = from_view(game, v)
        except ValueError as e:
            assert str(e)
            continue
        accepted += 1
        json.dumps(to_view(r, v["seat"]))
    assert accepted < 1500


def test_documented_example_is_a_valid_view():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    doc = (root / "docs" / "views" / "silberne_ananas.md").read_text()
    v = json.loads(doc.split("```json\n")[1].split("```")[0])
    game = _game()
    state = from_view(game, v)
    assert to_view(state, v["seat"]) == v
    assert v["legal"] == [game.action_label(a) for a in state.legal_actions()]
