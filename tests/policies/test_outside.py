"""Outside bots (policies/outside.py): specs, what they see, deadlines and forfeits."""

from __future__ import annotations

import random
import shlex
import sys
import threading
import time

import pytest

from stichzoo.envs.registry import GAMES, game_class, view_of
from stichzoo.policies import outside
from stichzoo.policies.base import Decision
from stichzoo.policies.specs import build_policy, parse_policy_spec
from stichzoo.training.evaluation.tournament import TournamentConfig, run_tournament
from tests.helpers import ROOT, decision_views

BOT = shlex.quote(str(ROOT / "tests" / "policies" / "misbehaving_bot.py"))
PYTHON = shlex.quote(sys.executable)
#: Wizard of two short rounds: a misbehaving bot's games are quick
SHORT = {"rounds": [1, 2]}


def short_wizard():
    cls = game_class("wizard")
    return cls(cls.Options(num_players=4, rounds=(1, 2)))


class Recorder:
    """An outside Python bot that keeps every decision it was given."""

    seen: list = []

    def act(self, decision):
        Recorder.seen.append(decision)
        return decision["legal"][-1]


class Sleeper:
    """Answers its first decision, then sleeps past any deadline."""

    def __init__(self):
        self.calls = 0

    def act(self, decision):
        self.calls += 1
        if self.calls > 1:
            time.sleep(0.6)
        return decision["legal"][0]


class Raiser:
    def act(self, decision):
        raise RuntimeError("my bot has a bug")


def test_specs_parse_targets_whole_and_arguments_after_the_bar():
    assert parse_policy_spec("cmd:node bot.js --fast|deadline_ms=500,bot=w") == (
        "cmd", {"target": "node bot.js --fast", "deadline_ms": 500, "bot": "w"})
    assert parse_policy_spec("http://127.0.0.1:8000/bots/w/act") == (
        "http", {"target": "http://127.0.0.1:8000/bots/w/act"})
    assert parse_policy_spec("python:a.b:C")[1] == {"target": "a.b:C"}
    for bad in ("cmd:", "http:x", "python:", "cmd:x|oops"):
        with pytest.raises(ValueError):
            parse_policy_spec(bad)


def test_bad_outside_specs_fail_when_built_with_a_clear_message():
    game = short_wizard()
    for spec, words in (("python:no_such_module_xyz:Bot", "cannot import"),
                        ("python:tests.policies.test_outside:Nope", "has no Nope"),
                        ("cmd:/no/such/binary", "cannot start"),
                        (f"cmd:{PYTHON} {BOT} hang|colour=red", "unknown argument"),
                        ("python:tests.policies.test_outside:Recorder|deadline_ms=0",
                         "deadline_ms"),
                        ("openspiel:cfr", "ismcts")):
        with pytest.raises(ValueError, match=words):
            build_policy(spec, game, seed=0, cache=False)
    outside._kill_all()


@pytest.mark.parametrize("name", list(GAMES))
def test_an_outside_bot_sees_the_same_decision_when_hidden_cards_are_redealt(name):
    """The leak test: what the bot is given does not change when everything its seat cannot
    see is re-dealt (the rules' own determinize) - and the re-deal does change the hidden
    part, so the test can fail."""
    cls = game_class(name)
    game = cls(cls.Options())
    rng = random.Random(7)
    changed = 0
    for state, _ in decision_views(game, 12, seed=3):
        seat = state.current_player
        other = game.determinize(state, seat, rng)
        seen = []
        for s in (state, other):
            Recorder.seen = []
            policy = build_policy("python:tests.policies.test_outside:Recorder", game, seed=5)
            action = policy.act(Decision(game, s, seat))
            seen.append((action, Recorder.seen[0]))
        assert seen[0] == seen[1]
        assert "state" not in seen[0][1] and set(seen[0][1]) == {"seat", "view", "legal", "seed"}
        views = view_of(name)
        changed += state.deck_orders != other.deck_orders or any(
            views.to_view(state, o) != views.to_view(other, o)
            for o in range(game.num_players) if o != seat)
    assert changed  # hidden cards did move


def _tournament(spec: str, deals: int = 2, workers: int = 1) -> dict:
    cfg = TournamentConfig(game="wizard", players=4, lineup=[spec, "random", "random", "random"],
                           deals=deals, seed=11, options=SHORT, workers=workers)
    return run_tournament(cfg, progress=False)


@pytest.mark.parametrize("mode,reason", [("hang", "timeout"), ("crash", "crash"),
                                         ("illegal", "illegal"), ("garbage", "malformed"),
                                         ("error", "error")])
def test_a_misbehaving_process_forfeits_each_game_and_the_tournament_ends(monkeypatch, mode,
                                                                          reason):
    started = []
    real = outside.BotProcess.__init__

    def spy(self, argv):
        real(self, argv)
        started.append(self)

    monkeypatch.setattr(outside.BotProcess, "__init__", spy)
    spec = f"cmd:{PYTHON} {BOT} {mode} 2|deadline_ms=300,start_ms=20000"
    report = _tournament(spec)
    assert report["games"] == 8
    forfeits = report["forfeits"][spec]
    assert forfeits["games"] == 8 and forfeits["reasons"] == {reason: 8}
    assert report["policies"][spec]["seats_played"] == 8  # every game played to its end
    if mode == "crash":
        assert "exit status 3" in forfeits["first"] and "on purpose" in forfeits["first"]
    if mode in ("hang", "crash", "garbage"):  # out of step or dead: killed, a fresh one per game
        assert len(started) >= 8
        assert all(p.proc.poll() is not None for p in started[:-1])
    outside._kill_all()
    assert all(p.proc.poll() is not None for p in started)


def test_a_well_behaved_process_is_reused_and_never_forfeits():
    spec = f"cmd:{PYTHON} {BOT} hang 1000000"
    report = _tournament(spec)
    assert report["forfeits"] == {}
    assert len(outside._PROCESSES) == 1
    outside._kill_all()


def test_python_bots_that_hang_or_raise_forfeit():
    hang = "python:tests.policies.test_outside:Sleeper|deadline_ms=100"
    report = _tournament(hang, deals=1)
    assert report["forfeits"][hang]["reasons"] == {"timeout": 4}
    raiser = "python:tests.policies.test_outside:Raiser"
    report = _tournament(raiser, deals=1)
    f = report["forfeits"][raiser]
    assert f["reasons"] == {"crash": 4} and "my bot has a bug" in f["first"]
    for t in threading.enumerate():  # the sleeping call ends by itself
        if t.name == "outside-bot":
            t.join(2)


def test_the_openspiel_bot_is_handed_the_same_world_on_a_redealt_state():
    """IS-MCTS is handed an OpenSpiel state of a world re-dealt by the rules: the same world
    (every chance outcome and action of its history) whether the true state or a re-deal of
    what the seat cannot see is asked.  (Its answers are compared no further: OpenSpiel's
    IS-MCTS is not deterministic between two calls on one state, seeded or not.)"""
    pytest.importorskip("pyspiel")
    from stichzoo.policies.outside import _OpenSpielBot

    game = short_wizard()
    rng = random.Random(1)
    redealt = 0
    for state, _ in decision_views(game, 4, seed=2):
        seat = state.current_player
        other = game.determinize(state, seat, rng)
        redealt += other.hands != state.hands
        handed = []
        for s in (state, other):
            bot = _OpenSpielBot(game, 4, "ismcts", 8, 2.0, 1)
            bot.bot.step = lambda spiel, seen=handed: (seen.append(spiel.history())
                                                       or spiel.legal_actions()[0])
            bot._step(s.clone(), seat)
        assert handed[0] == handed[1]
    assert redealt  # the re-deals changed what the seat cannot see
    action = build_policy("openspiel:ismcts|simulations=8", game, seed=4).act(
        Decision(game, state, state.current_player))
    assert (state.legal_mask() >> action) & 1


def test_an_http_bot_that_never_answers_or_cannot_be_reached_forfeits():
    import socket

    with socket.socket() as silent:  # accepts connections (the backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        port = silent.getsockname()[1]
        spec = f"http://127.0.0.1:{port}/bots/wizard/act|deadline_ms=150"
        report = _tournament(spec, deals=1)
        assert report["forfeits"][spec]["reasons"] == {"timeout": 4}
    closed = f"http://127.0.0.1:{port}/bots/wizard/act"  # nobody listens there now
    report = _tournament(closed, deals=1)
    f = report["forfeits"][closed]
    assert f["reasons"] == {"crash": 4} and "cannot reach" in f["first"]
