"""The engine-as-referee table (policies/tables/table.py): one person, bots, many tables.

The table is what a terminal or a browser shows a person, so these tests
hold it to the bar of the bot protocol: every bad move is refused with a
clear message and changes nothing, the view never shows another seat's
hidden cards (checked on whole games and by re-dealing the hidden cards),
the same seed and the same human moves give the same game, and a store of
tables stays consistent under concurrent requests and forgets idle tables.
"""

from __future__ import annotations

import json
import random
import re
import threading

import pytest

from stichzoo.envs.core.record import replay
from stichzoo.policies.tables.table import (
    NOT_FOUND,
    Table,
    TableError,
    TableStore,
    describe_event,
    seating,
)

#: a short game of each (the whole game in well under a second)
SHORT = {
    "wizard": ({"rounds": [1, 3]}, 4),
    "wunder_punkt": ({"rounds": 1}, 4),
    "silberne_ananas": ({"match": False}, 3),
    "hoch_tief": ({"rounds": 2}, 3),
    "geheimtrumpf": ({"round_limit": 2}, 3),
}
GAMES = list(SHORT)


def _table(game: str, seed: int = 1, seat: int = 0, opponents=("heuristic", "random"),
           **kw) -> Table:
    options, players = SHORT[game]
    return Table(game, players, options=options, opponents=list(opponents), human_seat=seat,
                 seed=seed, **kw)


def _play_out(table: Table, rng: random.Random, check=None) -> list[int]:
    """Play the human seat at random to the end; the human's action ids."""
    moves = []
    while not table.over:
        v = table.view()
        if check:
            check(table, v)
        a = rng.choice(v["moves"])["id"]
        moves.append(a)
        table.act(a)
    return moves


# -- hidden information ----------------------------------------------------------------


def _tokens(obj) -> set[str]:
    out: set[str] = set()
    if isinstance(obj, dict):
        for v in obj.values():
            out |= _tokens(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= _tokens(v)
    elif isinstance(obj, str):
        out |= set(re.findall(r"[A-Za-z0-9]+", obj))
    return out


def _hidden_names(table: Table) -> set[str]:
    """Card names the human seat must not see now (this round's cards only)."""
    s, game, me = table._state, table.game, table.human_seat
    names = game.deck.names
    hidden = 0
    name = game.name
    if name != "geheimtrumpf":  # Geheimtrumpf's drafted hands lie face up
        for seat, hand in enumerate(s.hands):
            if seat != me:
                hidden |= hand
    if name == "wunder_punkt" and s.phase_name == "sore":
        for seat, card in enumerate(s.sore_cards):
            if seat != me and card >= 0:
                hidden |= 1 << card
    out = {names[c] for c in range(len(names)) if hidden >> c & 1}
    if name == "wizard":  # the undealt rest of this round's deck
        order = s.deck_orders[s.round_index]
        r, n = s.hand_size, s.num_players
        out |= {names[c] for c in order[n * r + 1:]}
    if name == "geheimtrumpf" and s.log and "set_aside" in s.log[-1]:
        out |= set(s.log[-1]["set_aside"])  # the face-down 4th card of each row (3 players)
    return out


def _this_round(v: dict) -> dict:
    """The view without what belongs to earlier rounds (whose cards are dealt again)."""
    pv = v["view"]
    rnd = pv.get("round", pv.get("deal", 0))
    out = {k: x for k, x in v.items() if k not in ("events", "last_trick", "view")}
    out["view"] = {k: x for k, x in pv.items() if k != "cards_in_play"}  # the whole deck
    out["events"] = [e for e in v["events"] if e.get("round") == rnd]
    if v["last_trick"] and v["last_trick"]["round"] == rnd:
        out["last_trick"] = v["last_trick"]
    return out


def _check_no_leak(table: Table, v: dict) -> None:
    leaked = _tokens(_this_round(v)) & _hidden_names(table)
    assert not leaked, f"hidden cards in the view: {sorted(leaked)}"
    assert set(v["view"]["hand"]) == {table.game.deck.names[c]
                                      for c in _bits(table._state.hands[table.human_seat])}
    for e in v["events"]:
        if e["type"] == "move" and e["seat"] != table.human_seat \
                and e["kind"] in ("sore", "choose_task"):
            assert e["secret"] and e["action"] is None and e["action_id"] is None, e
    pv = v["view"]
    if table.game.name == "geheimtrumpf" and pv["phase"] == "card_draft" \
            and pv["start_player"] != table.human_seat:
        assert pv["trumps"] is None
    json.dumps(v)  # JSON-ready, for the web table


def _bits(mask: int) -> list[int]:
    return [c for c in range(mask.bit_length()) if mask >> c & 1]


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_through_the_api(game):
    """A random person plays every game to the end; nothing hidden shows, the end adds up."""
    table = _table(game, seed=3, seat=1)
    assert table.to_act == 1  # the bots have moved by themselves
    _play_out(table, random.Random(3), check=_check_no_leak)
    v = table.view()
    assert v["over"] and v["to_act"] is None and v["moves"] == []
    s = v["summary"]
    state = table._state
    assert s["totals"] == list(state.totals)
    assert s["winners"] == state.winners() and s["placement"] == state.placement()
    assert s["human_won"] == (1 in s["winners"])
    assert s["rounds"] and s["rounds"][-1]["totals"] == s["totals"]
    assert v["events"][-1]["type"] == "game_over"
    record = table.record()
    assert replay(json.loads(json.dumps(record))).totals == s["totals"]
    names = ["You" if p["human"] else f"Seat {p['seat']}" for p in v["players"]]
    for e in table.events():
        assert describe_event(e, names)


def test_silberne_ananas_summary_uses_the_middle_rule():
    """A match: the middle total wins, not the highest."""
    for seed in range(3):
        table = Table("silberne_ananas", options={"target_score": 40}, opponents="random",
                      seed=seed)
        _play_out(table, random.Random(seed))
        s = table.summary()
        totals = s["totals"]
        assert len(s["rounds"]) >= 2 and max(totals) >= 40
        if len(set(totals)) == 3:
            middle = sorted(range(3), key=lambda k: totals[k])[1]
            assert s["winners"] == [middle] and s["placement"][middle] == 0
        assert "middle" in s["winner_rule"]


def _redeal(orders, groups, rng):
    """``orders`` with the cards at each group of positions shuffled among themselves
    (round 0 only: what the human sees first stays put)."""
    first = list(orders[0])
    for free in groups:
        cards = [first[i] for i in free]
        rng.shuffle(cards)
        for i, c in zip(free, cards):
            first[i] = c
    return [tuple(first), *orders[1:]]


def test_redealing_hidden_cards_does_not_change_the_view_hoch_tief():
    """Seat 1 leads the first trick: its first view is the same whatever the others hold."""
    table = _table("hoch_tief", seed=7, seat=1)
    game = table.game
    n = game.num_players
    orders = game.deal(random.Random(7))
    # dealer 0 deals card k to seat (1 + k) % n: shuffle what the others got
    theirs = [k for k in range(len(orders[0])) if (1 + k) % n != 1]
    for r in range(3):
        other = _table("hoch_tief", seed=7, seat=1,
                       deck_orders=_redeal(orders, [theirs], random.Random(r)))
        assert other._state.hands[2] != table._state.hands[2]
        assert other.view() == table.view()


def test_redealing_hidden_cards_does_not_change_the_view_geheimtrumpf():
    """The trumps and the face-down cards are hidden from seat 1: re-dealing them changes
    none of its views through the task draft up to its first take of the card draft."""
    base = _table("geheimtrumpf", seed=4, seat=1, opponents=["random"])
    game = base.game
    orders = game.deal(random.Random(4))
    # positions 3, 7, ..: the set-aside cards (3 players); 36-40 and 41-50: the trump stacks
    # (mixing the first two would move a number card into a row, which seat 1 would see)
    hidden = [[4 * i + 3 for i in range(9)], list(range(36, 41)), list(range(41, 51))]
    views = []
    for r in range(4):
        dealt = orders if r == 0 else _redeal(orders, hidden, random.Random(r))
        table = _table("geheimtrumpf", seed=4, seat=1, opponents=["random"], deck_orders=dealt)
        seen = []
        while True:  # through the task draft, up to seat 1's first take
            v = table.view()
            seen.append(v)
            if v["view"]["phase"] == "card_draft":
                break
            table.act(v["moves"][0]["id"])
        views.append((seen, table._state.trumps, table._state.log[-1]["set_aside"]))
    assert len({str(t) + str(a) for _, t, a in views}) > 1  # the re-deals did change them
    for seen, _, _ in views[1:]:
        assert seen == views[0][0]


# -- determinism ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["wizard", "geheimtrumpf"])
def test_same_seed_same_moves_same_game(game):
    a = _table(game, seed=11, opponents=["heuristic", "pimc:worlds=2"])
    b = _table(game, seed=11, opponents=["heuristic", "pimc:worlds=2"])
    moves = _play_out(a, random.Random(1))
    for m in moves:
        b.act(m)
    assert b.over and a.record() == b.record() and a.events() == b.events()
    c = _table(game, seed=12, opponents=["heuristic", "pimc:worlds=2"])
    assert c._state.deck_orders != a._state.deck_orders


def test_no_seed_draws_one_and_tells_it():
    t = _table("hoch_tief", seed=None)
    assert isinstance(t.seed, int) and t.view()["seed"] == t.seed
    again = _table("hoch_tief", seed=t.seed)
    assert again.view() == t.view()


# -- bad input ------------------------------------------------------------------------------


def test_bad_moves_are_refused_and_change_nothing():
    table = _table("wizard", seed=2)
    before = json.dumps(table.view())
    legal = [m["id"] for m in table.view()["moves"]]
    illegal_in_range = next(a for a in range(table.game.num_actions) if a not in legal)
    for bad in [999, -1, illegal_in_range, True, False, 1.0, None, [legal[0]], {"id": 1},
                "garbage", "", "bid 99", str(legal[0])]:
        with pytest.raises(TableError) as e:
            table.act(bad)
        assert e.value.status == 422
        assert "legal moves" in str(e.value), str(e.value)
        assert json.dumps(table.view()) == before, bad


def test_moves_by_id_label_and_letter_case():
    for how in ("id", "label", "folded"):
        table = _table("hoch_tief", seed=9)
        first = table.view()["moves"][0]
        move = {"id": first["id"], "label": first["label"],
                "folded": first["label"].lower()}[how]
        after = table.act(move)
        assert after["events"][0]["seat"] == 0
        assert after["events"][0]["action"] == first["label"]


def test_the_view_module_aliases_are_accepted():
    table = _table("wunder_punkt", seed=1)
    tens = [m for m in table.view()["moves"] if m["label"].startswith("sore 10")]
    if not tens:
        pytest.skip("no 10 in this hand")
    alias = tens[0]["label"].replace("10", "T")
    assert table.resolve(alias) == tens[0]["id"]


def test_the_end_of_the_game_is_guarded():
    table = _table("silberne_ananas", seed=1)
    with pytest.raises(TableError) as e:
        table.record()  # it holds every hand: not before the end
    assert e.value.status == 409
    with pytest.raises(TableError):
        table.summary()
    _play_out(table, random.Random(0))
    with pytest.raises(TableError) as e:
        table.act(0)
    assert e.value.status == 409 and "over" in str(e.value)


@pytest.mark.parametrize("kwargs,words", [
    ({"game_name": "skat"}, "unknown game"),
    ({"options": {"rounds": 0}}, "rounds"),
    ({"options": {"colour": 1}}, "unknown option"),
    ({"opponents": ["nonsense"]}, "unknown policy"),
    ({"opponents": ["pimc:worlds=0"]}, "worlds"),
    ({"opponents": ["heuristic"] * 4}, "4 opponents"),
    ({"opponents": []}, "at least one"),
    ({"opponents": ["bot:wizard"], "options": {"rounds": [1]}}, "refuses this table"),
    ({"human_seat": 4}, "human seat"),
    ({"human_seat": True}, "human seat"),
    ({"seed": -3}, "seed"),
    ({"num_players": 9}, "num_players"),
])
def test_bad_tables_are_refused_clearly(kwargs, words):
    args = {"game_name": "wizard", "num_players": 4, "opponents": ["random"], **kwargs}
    with pytest.raises(TableError) as e:
        Table(**args)
    assert words in str(e.value) and e.value.status == 422


def test_opponent_specs_fill_the_seats_in_turn():
    assert seating(["a", "b"], 4, 1) == ["a", None, "b", "a"]
    assert seating("x", 3, 0) == [None, "x", "x"]


def test_events_name_what_happened_since_the_last_move():
    table = _table("wizard", seed=2)
    before = table.view()["decisions"]
    v = table.act(table.view()["moves"][0]["id"])
    moves = [e for e in v["events"] if e["type"] == "move"]
    assert len(moves) == v["decisions"] - before >= 2  # the human's move, then the bots'
    assert moves[0]["seat"] == 0 and all(e["seat"] != 0 for e in moves[1:])
    assert [e["n"] for e in v["events"]] == list(range(v["events"][0]["n"],
                                                       v["events"][-1]["n"] + 1))
    assert table.events(after=v["events"][-1]["n"]) == []
    assert table.events()[-len(v["events"]):] == v["events"]
    with pytest.raises(TableError):
        table.events(after="x")


# -- the store ------------------------------------------------------------------------------


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_store_ids_lookup_and_close():
    store = TableStore()
    a, _ = store.create("hoch_tief", num_players=3, options={"rounds": 1}, seed=1)
    b, _ = store.create("hoch_tief", num_players=3, options={"rounds": 1}, seed=1)
    assert a != b and len(a) >= 20 and len(store) == 2
    v = store.view(a)
    assert v["table_id"] == a and v["instance"] == store.instance
    for bad in ["nope", "", 17, None, a + "x"]:
        with pytest.raises(TableError) as e:
            store.view(bad)
        assert e.value.status == 404
    with pytest.raises(TableError) as e:
        store.act("nope", 0)
    assert str(e.value) == NOT_FOUND and "restarted" in NOT_FOUND
    store.close(a)
    with pytest.raises(TableError):
        store.view(a)
    assert TableStore().instance != store.instance  # a restarted server says so


@pytest.mark.parametrize("kwargs", [
    {"colour": "red"}, {"options": [1]}, {"options": "rounds=1"}, {"opponents": 3},
    {"opponents": [None]}, {"num_players": "3"}, {"human_seat": "0"}, {"seed": 1.5},
    {"deck_orders": [[1, 2]]}, {"deck_orders": "x"},
])
def test_store_refuses_what_a_page_may_send(kwargs):
    store = TableStore()
    with pytest.raises(TableError) as e:
        store.create("hoch_tief", **{"num_players": 3, **kwargs})
    assert e.value.status == 422 and len(store) == 0
    with pytest.raises(TableError):
        store.create(["wizard"])


def test_store_expires_idle_tables():
    clock = FakeClock()
    store = TableStore(idle_timeout=60, clock=clock)
    a, _ = store.create("silberne_ananas", options={"match": False}, seed=1)
    b, _ = store.create("silberne_ananas", options={"match": False}, seed=2)
    clock.now += 50
    store.view(a)  # touched: its idle time starts again
    clock.now += 20
    assert store.expire() == [b]
    store.view(a)
    with pytest.raises(TableError) as e:
        store.view(b)
    assert e.value.status == 404 and "expired" in str(e.value)
    clock.now += 61
    assert len(store) == 0


def test_store_is_bounded():
    clock = FakeClock()
    store = TableStore(max_tables=2, idle_timeout=10, clock=clock)
    for _ in range(2):
        store.create("hoch_tief", num_players=3, options={"rounds": 1})
    with pytest.raises(TableError) as e:
        store.create("hoch_tief", num_players=3, options={"rounds": 1})
    assert e.value.status == 503 and "at most 2" in str(e.value)
    clock.now += 11  # the old ones expire: room again
    store.create("hoch_tief", num_players=3, options={"rounds": 1})
    with pytest.raises(ValueError):
        TableStore(max_tables=0)
    with pytest.raises(ValueError):
        TableStore(idle_timeout=0)


def test_concurrent_requests_keep_every_table_consistent():
    """Eight threads, two per table, race to move: each table ends as a clean game."""
    store = TableStore()
    ids = [store.create(g, num_players=SHORT[g][1], options=SHORT[g][0], seed=k,
                        opponents=["heuristic", "random"])[0]
           for k, g in enumerate(["wizard", "hoch_tief", "wunder_punkt", "geheimtrumpf"])]
    errors: list[BaseException] = []
    refused = [0]

    def worker(table_id: str, pick: int) -> None:
        try:
            while True:
                v = store.view(table_id)
                if v["over"]:
                    return
                try:
                    store.act(table_id, v["moves"][pick % len(v["moves"])]["id"])
                except TableError as e:  # the other thread moved first
                    assert e.status in (422, 409), e
                    refused[0] += 1
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(t, k)) for t in ids for k in (0, 1)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert not errors, errors
    for table_id in ids:
        record = store.record(table_id)
        state = replay(record)  # every field replays: no move was lost or doubled
        table = store.get(table_id)
        seq = Table(record["game"], record["num_players"], options=record["options"],
                    opponents=["heuristic", "random"], seed=record["seed"])
        for d in record["decisions"]:
            if d["seat"] == 0:
                seq.act(d["action"])
        assert seq.record() == record and list(state.totals) == table.summary()["totals"]


def test_no_torch_and_no_web_framework_at_a_table():
    import subprocess
    import sys

    code = ("import sys; from stichzoo.policies.tables.table import Table, TableStore; "
            "Table('wizard', options={'rounds': [1]}, opponents=['heuristic', 'pimc:worlds=2'], "
            "seed=1); bad = [m for m in ('torch', 'fastapi', 'uvicorn', 'rich') "
            "if m in sys.modules]; print(bad); sys.exit(bool(bad))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_shipped_bot_sits_at_its_own_table():
    table = Table("wizard", 4, opponents=["bot:wizard", "heuristic"], seed=2)
    assert table.to_act == 0 and table.view()["players"][1]["policy"] == "bot:wizard"
