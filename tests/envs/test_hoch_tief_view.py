"""Hoch & Tief player view (issue 10): round trip to the observation, no leaks, errors."""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest

from stichzoo.envs.hoch_tief.encode import HochTiefEncoder
from stichzoo.envs.hoch_tief.rules import GAME_OVER, HochTiefGame, HochTiefOptions
from stichzoo.envs.hoch_tief.view import (
    VIEW_KEYS,
    action_from_label,
    action_to_view,
    from_view,
    to_view,
)


def game(n: int = 4, **kw) -> HochTiefGame:
    return HochTiefGame(HochTiefOptions(num_players=n, **kw))


def states(g: HochTiefGame, seed: int, games: int = 1):
    """Every state of ``games`` random games (the live state: copy what you keep)."""
    rng = random.Random(seed)
    for k in range(games):
        s = g.new_game(seed=seed * 100 + k)
        yield s
        while not s.over:
            s.step(rng.choice(s.legal_actions()))
            yield s


def mid_state(n: int = 4, seed: int = 0):
    """A play-phase state with >= 4 completed tricks, 2 cards in the current trick and a
    void shown, the seat to act and a seat that is not."""
    g = game(n, rounds=2)
    for k in range(200):
        for s in states(g, seed + k):
            if (s.round_index == 1 and s.tricks_played >= 4 and len(s.trick.cards) == 2
                    and any(s.voids)):
                return g, s.clone()
    raise AssertionError("no such state")


def observation(enc: HochTiefEncoder, s, seat: int) -> np.ndarray:
    out = np.zeros(enc.layout.size, np.float32)
    enc.encode(s, seat, out)
    return out


# -- the key property ----------------------------------------------------------------------


@pytest.mark.parametrize("n, first_dealer", [(3, 0), (4, 2), (5, 1), (6, 5)])
def test_view_round_trip_gives_the_observation_and_mask(n, first_dealer):
    g = game(n, rounds=2, first_dealer=first_dealer)
    enc = HochTiefEncoder(g)
    rng = random.Random(n)
    checks = 0
    seen_phases = set()
    for s in states(g, seed=n, games={3: 7, 4: 5, 5: 4, 6: 4}[n]):
        seats = {s.current_player, rng.randrange(n)} if not s.over else set(range(n))
        for seat in seats:
            v = to_view(s, seat)
            assert list(v) == list(VIEW_KEYS)
            assert json.loads(json.dumps(v)) == v  # JSON-ready
            r = from_view(g, v)
            assert r.log is None
            assert np.array_equal(observation(enc, r, seat), observation(enc, s, seat))
            if seat == s.current_player:
                assert r.legal_mask() == s.legal_mask()
                assert v["legal"] == [g.action_label(a) for a in s.legal_actions()]
            else:
                assert v["legal"] == []
            assert to_view(r, seat) == v
            checks += 1
            seen_phases.add((v["phase"], v["round"], len(v["trick"]["cards"]) > 0))
    assert checks > 1000
    assert ("game_over", 1, True) in seen_phases
    assert {("play", r, t) for r in (0, 1) for t in (False, True)} <= seen_phases


def test_rebuilt_state_plays_on_and_determinizes():
    """The rebuilt state is a real rules state: search can re-deal it and play it out."""
    g, s = mid_state(5)
    rng = random.Random(1)
    for seat in range(5):
        r = from_view(g, to_view(s, seat))
        assert r.hands[seat] == s.hands[seat]
        d = g.determinize(r, seat, rng)
        assert to_view(d, seat) == to_view(s, seat)
        while not r.over:
            r.step(rng.choice(r.legal_actions()))
        assert len(r.round_scores) == 2


def test_from_view_is_deterministic_and_accepts_any_card_order():
    g, s = mid_state()
    v = to_view(s, 1)
    a, b = from_view(g, v), from_view(g, copy.deepcopy(v))
    assert a.hands == b.hands and a.deck_orders == b.deck_orders
    w = copy.deepcopy(v)
    for k in ("hand", "played", "legal"):
        w[k] = w[k][::-1]
    w["taken"] = [t[::-1] for t in w["taken"]]
    assert to_view(from_view(g, w), 1) == v


# -- nothing hidden ------------------------------------------------------------------------


def _strings(x) -> set[str]:
    if isinstance(x, str):
        return {x}
    if isinstance(x, dict):
        return set().union(*map(_strings, x.values())) if x else set()
    if isinstance(x, list):
        return set().union(*map(_strings, x)) if x else set()
    return set()


@pytest.mark.parametrize("n", [3, 6])
def test_view_shows_nothing_hidden(n):
    g = game(n, rounds=2)
    rng = random.Random(7)
    checks = 0
    for s in states(g, seed=11):
        for seat in range(n):
            v = to_view(s, seat)
            d = g.determinize(s, seat, rng)  # re-draws exactly what seat cannot see
            assert to_view(d, seat) == v
            names = _strings(v)
            for p in range(n):
                if p != seat:
                    assert not names & set(g.deck.format_mask(s.hands[p]))
            checks += 1
    assert checks > 100


def test_determinize_changes_something_the_view_hides():
    g, s = mid_state()
    d = g.determinize(s, 0, random.Random(3))
    assert d.hands != s.hands  # the check above is not vacuous
    assert to_view(d, 0) == to_view(s, 0)


def test_game_over_view():
    g = game(3, rounds=1)
    s = g.new_game(seed=0)
    rng = random.Random(0)
    while not s.over:
        s.step(rng.choice(s.legal_actions()))
    assert s.phase == GAME_OVER
    v = to_view(s, 2)
    assert v["phase"] == "game_over" and v["to_act"] is None and v["legal"] == []
    assert v["hand"] == [] and v["hand_sizes"] == [0, 0, 0]
    assert len(v["tricks"]) == 15 and v["tricks_played"] == 15
    last = v["tricks"][-1]
    assert v["trick"] == {k: last[k] for k in ("leader", "cards", "seats")}
    assert v["totals"] == s.totals and v["round_scores"] == [s.totals]
    assert to_view(from_view(g, v), 2) == v


def test_view_content_of_a_mid_game_state():
    _, s = mid_state()
    v = to_view(s, 1)
    n = 4
    assert v["game"] == "hoch_tief" and v["env"] == "hoch_tief_v0"
    assert v["options"] == {"num_players": 4, "rounds": 2, "first_dealer": 0}
    assert v["dealer"] == 1 and v["round"] == 1 and v["num_rounds"] == 2
    assert v["tricks"][0]["leader"] == 2  # left of the dealer
    assert v["to_act"] == s.current_player
    assert v["trick"]["seats"] == [(s.trick.leader + i) % n for i in range(2)]
    assert v["led_suit"] == v["trick"]["cards"][0][0]
    assert sum(v["hand_sizes"]) + len(v["played"]) == 60
    assert sorted([c for t in v["taken"] for c in t] + v["trick"]["cards"]) == sorted(v["played"])
    assert v["taken_score"] == s.taken_scores() and v["totals"] == s.totals
    assert any(v["voids"])
    for tr in v["tricks"]:
        assert tr["high_seat"] == tr["seats"][tr["cards"].index(tr["high"])]


# -- errors --------------------------------------------------------------------------------



def _bad(g, v, match):
    with pytest.raises(ValueError, match=match):
        from_view(g, v)


def _other_card(s, seat):
    """A card of another seat's hand (unseen by ``seat``)."""
    for p in range(s.num_players):
        if p != seat and s.hands[p]:
            return s.game.deck.format_mask(s.hands[p])[0]
    raise AssertionError


def test_errors_header():
    g, s = mid_state()
    v = to_view(s, 0)
    _bad(g, [v], r"a view is a JSON object, got array")
    _bad(None, v, r"from_view needs a hoch_tief game, got NoneType")
    w = dict(v)
    del w["trick"]
    _bad(g, w, r'missing required key\(s\) "trick"')
    _bad(g, {**v, "secret": 1}, r'unknown key\(s\) "secret"; known keys: game, env, options,')
    _bad(g, {**v, "game": "wizard"}, r'game: must be "hoch_tief", got "wizard"')
    _bad(g, {**v, "env": "hoch_tief_v9"}, r'env: must be "hoch_tief_v0", got "hoch_tief_v9"')
    _bad(game(3, rounds=2), v, r"options: do not match the game's options \(num_players: view")
    _bad(game(4, rounds=3), v, r"options: do not match the game's options \(rounds: view 2,")
    _bad(g, {**v, "options": {**v["options"], "first_dealer": 1}},
         r"options: do not match the game's options \(first_dealer:")
    _bad(g, {**v, "options": "x"}, r"options: must be an object \(the game options\), got string")
    _bad(g, {**v, "seat": "0"}, r'seat: must be a seat number in 0\.\.3, got "0"')
    _bad(g, {**v, "seat": True}, r"seat: must be a seat number in 0\.\.3, got true")
    _bad(g, {**v, "seat": 4}, r"seat: must be a seat number in 0\.\.3, got 4")
    _bad(g, {**v, "phase": "bidding"}, r'phase: must be one of "play", "game_over"; got "bidding"')
    _bad(g, {**v, "round": 2}, r"round: must be an integer in 0\.\.1, got 2")
    _bad(g, {**v, "round": 0}, r"round_scores: must hold 0 per-seat score lists \(one per")
    _bad(g, {**v, "round_scores": [[1, 2, 3]]},
         r"round_scores\[0\]: must have 4 entries \(one per seat\), got 3")


def test_errors_cards():
    g, s = mid_state()
    seat = (s.current_player + 1) % 4  # not to act
    v = to_view(s, seat)
    h = v["hand"]
    _bad(g, {**v, "hand": "A1 A2"}, r'hand: must be an array, got string "A1 A2"')
    _bad(g, {**v, "hand": [*h[1:], 7]}, r"hand\[4\]: a card is a name \(string\), got 7")
    _bad(g, {**v, "hand": [*h[1:], "A13"]},
         r'hand\[4\]: unknown card "A13"; cards: A1\.\.A12, B1\.\.B12, C\.\.,')
    _bad(g, {**v, "hand": [*h[1:], "F1"]},
         r'hand\[4\]: unknown card "F1"; cards: A1\.\.A12, B1\.\.B12, C\.\.,')
    _bad(g, {**v, "hand": [*h[1:], h[1]]}, f'"{h[1]}" appears twice')
    played = v["trick"]["cards"][0]
    _bad(g, {**v, "hand": [*h[1:], played]},
         f'trick.cards: card "{played}" appears twice \\(also in hand\\)')
    in_trick = v["tricks"][0]["cards"][1]
    _bad(g, {**v, "hand": [*h[1:], in_trick]},
         r'tricks\[0\]\.cards: card "E2" appears twice \(also in hand\)')
    _bad(g, {**v, "hand": h[1:]}, f"hand: holds {len(h) - 1} cards, but seat {seat} must hold")
    _bad(g, {**v, "hand": [*h, _other_card(s, seat)]}, "must hold")
    tr = copy.deepcopy(v["tricks"])
    tr[1]["cards"] = tr[1]["cards"][:-1]
    _bad(g, {**v, "tricks": tr},
         r"tricks\[1\]\.cards: must hold 4 cards \(a completed trick\), got")
    tr = copy.deepcopy(v["tricks"])
    del tr[0]["high"]
    assert to_view(from_view(g, {**v, "tricks": tr}), seat) == v  # derived keys: optional
    _bad(g, {**v, "tricks": "none"}, r'tricks: must be an array, got string "none"')
    _bad(g, {**v, "trick": {**v["trick"], "who": 1}},
         r'trick: unknown key\(s\) "who"; known keys: leader, cards,')
    _bad(g, {**v, "trick": []}, r"trick: must be an object with keys leader, cards, seats;")


def test_errors_turn_and_public_facts():
    g, s = mid_state()
    seat = (s.current_player + 1) % 4
    v = to_view(s, seat)
    _bad(g, {**v, "to_act": seat}, f"to_act: is {seat}, but by the rules seat "
                                   f"{s.current_player} is to act")
    _bad(g, {**v, "to_act": None}, r"to_act: is null, but by the rules seat 3 is to act")
    _bad(g, {**v, "legal": v["hand"][:1]},
         r"legal: must be \[\] \(or left out\): seat 0 is not to act; got")
    va = to_view(s, s.current_player)
    wrong = [c for c in g.deck.names if c not in va["legal"]][:1]
    _bad(g, {**va, "legal": wrong}, "legal: is")
    assert to_view(from_view(g, {**va, "legal": []}), s.current_player) == va  # [] = work out
    _bad(g, {**v, "trick": {**v["trick"], "leader": (v["trick"]["leader"] + 1) % 4}},
         r"trick\.leader: is 2, but the rest of the view gives 1")
    _bad(g, {**v, "trick": {**v["trick"], "seats": [0, 0]}},
         r"trick\.seats\[0\]: is 0, but the rest of the view gives 1")
    tr = copy.deepcopy(v["tricks"])
    tr[0]["leader"] = (tr[0]["leader"] + 1) % 4
    _bad(g, {**v, "tricks": tr}, r"tricks\[0\]\.leader: is 3, but the rest of the view gives 2")
    tr = copy.deepcopy(v["tricks"])
    tr[2]["high_seat"] = (tr[2]["high_seat"] + 1) % 4
    _bad(g, {**v, "tricks": tr}, r"tricks\[2\]\.high_seat: is 1, but the rest of the view gives 0")
    _bad(g, {**v, "taken": [[], [], [], []]},
         r'taken\[0\]: is \[\], but the rest of the view gives \["A2",')
    _bad(g, {**v, "taken_score": [0, 0, 0, 999]},
         r"taken_score\[3\]: must be an integer in 0\.\.115, got 999")
    _bad(g, {**v, "voids": [[], [], [], []]},
         r'voids\[2\]: is \[\], but the rest of the view gives \["D"\]')
    _bad(g, {**v, "played": v["played"][1:]},
         r'played: is \["A2", "A4", "A5", "A6", "A7", "A8", "A9",')
    _bad(g, {**v, "totals": [t + 1 for t in v["totals"]]},
         r"totals\[0\]: is 36, but the rest of the view gives 35")
    _bad(g, {**v, "dealer": 3}, r"dealer: is 3, but the rest of the view gives 1")
    _bad(g, {**v, "tricks_played": 99}, r"tricks_played: must be an integer in 0\.\.15, got 99")
    _bad(g, {**v, "hand_sizes": [15] * 4},
         r"hand_sizes\[0\]: is 15, but the rest of the view gives 5")
    _bad(g, {**v, "led_suit": "Z"}, r'led_suit: must be one of "A", "B", "C", "D", "E"; got "Z"')
    _bad(g, {**v, "num_rounds": 5}, r"num_rounds: must be 2, got 5")


def test_errors_phase():
    g, s = mid_state()
    v = to_view(s, 0)
    _bad(g, {**v, "phase": "game_over", "round_scores": [*v["round_scores"], [0] * 4]},
         r"tricks: phase game_over needs all 15 tricks of the last")
    _bad(g, {**v, "phase": "game_over", "round": 0},
         r"phase: game_over but round is 0: the game ends after round 1")
    g1 = game(3, rounds=1)
    s1 = g1.new_game(seed=0)
    rng = random.Random(0)
    while not s1.over:
        s1.step(rng.choice(s1.legal_actions()))
    w = to_view(s1, 0)
    _bad(g1, {**w, "phase": "play", "round_scores": []},
         r"tricks: holds 15 completed tricks in phase play: a round")
    _bad(g1, {**w, "tricks": w["tricks"][:-1]}, "needs all 15 tricks")
    _bad(g1, {**w, "trick": {"leader": 0, "cards": [], "seats": []}},
         r"trick\.cards: at game over the trick is the last completed")
    _bad(g1, {**w, "round_scores": [[0, 0, 0]]},
         r"round_scores\[0\]\[0\]: is 0, but the rest of the view gives 35")
    _bad(g1, {**w, "to_act": 0}, "nobody is to act")
    # a full trick on the table in play phase
    g2, s2 = mid_state(3)
    x = to_view(s2, 0)
    extra = [c for c in x["hand"]][:1] or [_other_card(s2, 0)]
    _bad(g2, {**x, "trick": {**x["trick"], "cards": x["trick"]["cards"] + extra,
                              "seats": [0, 1, 2]}}, "a trick on the table holds at most 2")


def _find(n, pred):
    """The first state of random games (and a viewer) for which ``pred`` gives a value."""
    g = game(n, rounds=1)
    for seed in range(300):
        for s in states(g, seed):
            for q in range(n):
                got = pred(s, q)
                if got is not None:
                    return g, s.clone(), q, got
    raise AssertionError("no such state")


def test_error_hand_holds_a_suit_it_showed_out_of():
    def pred(s, q):
        t = s.lookups
        for si in range(5):
            if s.voids[q] >> si & 1 and s.hands[q]:
                for p in range(s.num_players):
                    if p != q and s.hands[p] & t.suit_mask[si]:
                        return si, s.game.deck.format_mask(s.hands[p] & t.suit_mask[si])[0]
        return None

    g, s, q, (_si, card) = _find(4, pred)
    v = to_view(s, q)
    _bad(g, {**v, "hand": [*v["hand"][1:], card]},
         rf"(tricks\[\d+\]|trick)\.cards\[\d+\]: the rules refuse .* for player_{q} .*"
         rf"legal actions: .*\({card}\)")  # it held the card when it showed out


def test_error_plays_a_suit_after_showing_out_of_it():
    def pred(s, q):
        t = s.lookups
        tr = s.trick
        for i in range(len(tr.cards)):
            p = tr.seat_of(i)
            if p == q:
                continue
            for si in range(5):
                # a void of another suit than the led one was shown in a completed trick
                if s.voids[p] >> si & 1 and t.suit[tr.cards[0]] != si:
                    for o in range(s.num_players):
                        if o != q and s.hands[o] & t.suit_mask[si]:
                            c = s.game.deck.format_mask(s.hands[o] & t.suit_mask[si])[0]
                            return i, p, si, c
        return None

    g, s, q, (i, p, _si, card) = _find(4, pred)
    v = to_view(s, q)
    cards = list(v["trick"]["cards"])
    cards[i] = card
    _bad(g, {**v, "trick": {**v["trick"], "cards": cards}},
         rf"tricks\[\d+\]\.cards\[\d+\]: the rules refuse .* for player_{p} .*"
         rf"legal actions: .*\({card}\)")  # it held the card when it showed out


def test_error_no_deal_fits_the_voids():
    """Both other seats showed out of a suit, yet a card of it is unseen: impossible."""
    def pred(s, q):
        t = s.lookups
        o1, o2 = [p for p in range(3) if p != q]
        for si in range(5):
            both = s.voids[o1] & s.voids[o2]
            mine = s.hands[q] & t.suit_mask[si]
            if both >> si & 1 and mine:
                for c in bit_list_of(s.hands[o1]):
                    if not s.voids[q] >> t.suit[c] & 1:
                        return s.game.deck.names[bit_list_of(mine)[0]], s.game.deck.names[c]
        return None

    g, s, q, (mine, theirs) = _find(3, pred)
    v = to_view(s, q)
    hand = [theirs if c == mine else c for c in v["hand"]]
    _bad(g, {**v, "hand": hand}, "no deal of the unseen cards .* fits the suits they "
                                 r"showed out of")


def bit_list_of(mask):
    return [c for c in range(mask.bit_length()) if mask >> c & 1]


# -- fuzz ----------------------------------------------------------------------------------

_JUNK = [None, True, -1, 0, 3, 1.5, "", "A1", "E99", [], {}, [None], {"leader": 0},
         ["A1", "A1"], [[]], "play", "game_over"]


def _paths(x, path=()):
    yield path
    if isinstance(x, dict):
        for k, y in x.items():
            yield from _paths(y, (*path, k))
    elif isinstance(x, list):
        for i, y in enumerate(x):
            yield from _paths(y, (*path, i))


def _set(x, path, value):
    if not path:
        return value
    x = copy.deepcopy(x)
    y = x
    for p in path[:-1]:
        y = y[p]
    y[path[-1]] = value
    return x


@pytest.mark.parametrize("n", [3, 5])
def test_fuzz_only_value_errors(n):
    g, s = mid_state(n)
    v = to_view(s, 1)
    paths = list(_paths(v))
    rng = random.Random(n)
    accepted = 0
    for _ in range(600):
        w = v
        for _ in range(rng.choice([1, 1, 2])):
            ps = list(_paths(w))
            w = _set(w, rng.choice(ps), rng.choice(_JUNK))
        if rng.random() < 0.2 and isinstance(w, dict) and w:
            w = {k: x for k, x in w.items() if k != rng.choice(list(w))}
        try:
            r = from_view(g, w)
        except ValueError as e:
            assert str(e).startswith("hoch_tief view: ")
        else:
            accepted += 1
            assert to_view(r, 1) == v  # only harmless changes (none here) get through
    assert len(paths) > 50 and accepted < 50


# -- the answer format -----------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 6])
def test_action_format(n):
    g = game(n)
    for a in range(g.num_actions):
        av = action_to_view(g, a)
        assert av["action"] == g.action_label(a) == av["card"]
        assert av["action_id"] == a and av["kind"] == "card"
        assert av["suit"] + str(av["number"]) == av["action"]
        assert action_from_label(g, av["action"]) == a
        json.dumps(av)
    assert action_to_view(g, 0) == {"action": "A1", "action_id": 0, "kind": "card",
                                    "card": "A1", "suit": "A", "number": 1}
    for bad in (-1, g.num_actions, "A1", None, True, 1.0):
        with pytest.raises(ValueError, match="action id must be an integer"):
            action_to_view(g, bad)
    for bad in ("F1", f"A{3 * n + 1}", "a1", "", None, 3):
        with pytest.raises(ValueError, match=r"unknown action|must be a string"):
            action_from_label(g, bad)


def test_to_view_refuses_a_bad_seat():
    _, s = mid_state()
    for bad in (-1, 4, "1", None, True):
        with pytest.raises(ValueError, match="seat must be an integer"):
            to_view(s, bad)


def test_documented_example_is_a_valid_view():
    import pathlib
    import re

    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs/views/hoch_tief.md").read_text()
    v = json.loads(re.findall(r"```json\n(.*?)```", doc, re.S)[0])
    g = game(4)
    assert to_view(from_view(g, v), v["seat"]) == v
