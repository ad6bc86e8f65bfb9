"""Rules at hand and the small fixes of the table (issue 33, items 2 and 6).

One rules text per game (``envs/<game>/rules.md``, :func:`rules_of`) serves
the web table (``GET /tables/rules/<game>``), the terminal (``rules``) and the
docs' env pages; every round end says how each seat scored, in words that
add up to the round's real points; places count as people count them
(1, 2, 2, 4); texts about the person say "You take"; options read the same
plain syntax in the terminal and the web form, and messages show no Python
values (``None``, ``True``).
"""

from __future__ import annotations

import io
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from stichzoo import envs
from stichzoo.envs.core.display import YOU, agree, verb_for
from stichzoo.envs.geheimtrumpf.display import TASKS
from stichzoo.envs.geheimtrumpf.rules import TASK_NAMES
from stichzoo.envs.registry import display_of, rules_of
from stichzoo.policies.tables.rules_text import rules_html, rules_page
from stichzoo.policies.tables.table import (
    Table,
    TableError,
    competition_places,
    describe_event,
    option_value,
)
from stichzoo.policies.tables.terminal import HELP, choose, round_summary, rules_panel
from tests.helpers import load_script

ROOT = Path(__file__).resolve().parents[2]

#: words a player must meet in each game's rules (its own vocabulary)
KEY_TERMS = {
    "wizard": ["Wizard", "Jester", "trump", "bid", "follow", "20 points plus 10",
               "minus 10", "first Wizard", "Example"],
    "wunder_punkt": ["sore suit", "Ace", "led suit", "never have to follow", "minus its number",
                     "+1", "every card is an Ace", "Example"],
    "silberne_ananas": ["Joker", "middle card", "colour", "follow suit", "right",
                        "bonus of 10", "middle total", "Example"],
    "hoch_tief": ["highest card", "lowest card", "played **last**", "follow", "1 or 2 cards",
                  "3 or more cards", "Example"],
    "geheimtrumpf": ["trump suit", "trump value", "task", "draft", "start player",
                     "check", "follow", "Example"],
}

#: a short game of each: options and player count
SHORT = {"wizard": ({"rounds": [1, 3]}, 4), "wunder_punkt": ({"rounds": 2}, 3),
         "silberne_ananas": ({"match": False}, 3), "hoch_tief": ({"rounds": 2}, 3),
         "geheimtrumpf": ({"round_limit": 2}, 3)}


def _played(game: str, seed: int, seat: int = 0) -> Table:
    """A short game played to its end with random moves for the person and random bots."""
    options, players = SHORT[game]
    table = Table(game, players, options=options, opponents=["random"], human_seat=seat,
                  seed=seed)
    rng = random.Random(seed)
    while not table.over:
        table.act(rng.choice(table.view()["moves"])["id"])
    return table


# -- the rules text ------------------------------------------------------------------------


@pytest.mark.parametrize("game", envs.GAMES)
def test_every_game_has_rules_in_its_own_words(game):
    text = rules_of(game)
    assert len(text) > 1500 and text.count("\n## ") >= 3
    for term in KEY_TERMS[game]:
        assert term in text, (game, term)
    # shipped as package data beside the game, read by the one function
    assert (ROOT / "envs" / game / "rules.md").read_text("utf-8") == text
    with pytest.raises(ValueError, match="unknown game"):
        rules_of("skat")


def test_every_geheimtrumpf_task_has_a_name_and_a_meaning_in_the_rules():
    assert tuple(TASKS) == TASK_NAMES  # every task id, in the rules' order
    text = rules_of("geheimtrumpf")
    for task, (name, meaning) in TASKS.items():
        assert f"| `{task}` | {name} | {meaning} |" in text, task


def test_the_rules_html_is_safe_and_complete():
    html = rules_html("# A\n\n<script>alert(1)</script> <b>x</b> **bold**\n\n| a |\n|---|\n| 1 |")
    assert "<script" not in html and "&lt;script&gt;" in html and "<b>" not in html
    assert "<strong>bold</strong>" in html and "<table>" in html
    for game in envs.GAMES:
        page = rules_page(game)
        assert set(page) == {"game", "title", "markdown", "html"}
        assert page["markdown"] == rules_of(game) and page["title"] == display_of(game).title
        assert page["html"].count("<h2>") == page["markdown"].count("\n## ")
        assert "<script" not in page["html"]


def test_the_rules_route(monkeypatch):
    pytest.importorskip("fastapi")
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from stichzoo.policies.serve.web_table import mount_web_table

    app = FastAPI()
    mount_web_table(app)
    with TestClient(app) as client:
        for game in envs.GAMES:
            r = client.get(f"/tables/rules/{game}")
            assert r.status_code == 200 and r.json() == rules_page(game)
        r = client.get("/tables/rules/skat")
        assert r.status_code == 404 and set(r.json()) == {"error"}
        assert "unknown game" in r.json()["error"] and "wizard" in r.json()["error"]


def _docs_pages():
    return load_script("scripts/docs_pages.py")


@pytest.mark.parametrize("game", envs.GAMES)
def test_the_docs_env_page_shows_the_same_rules(game):
    page = _docs_pages().env_page(game)
    assert "## How to play" in page
    body = page[page.index("## How to play"):]
    for paragraph in rules_of(game).split("\n\n"):
        if not paragraph.startswith("#"):
            assert paragraph.strip() in body, paragraph[:60]
        else:  # headings one level down, under "How to play"
            assert "#" + paragraph in body


# -- the terminal ---------------------------------------------------------------------------


def _console() -> Console:
    return Console(file=io.StringIO(), width=120, color_system=None, highlight=False,
                   markup=False, emoji=False)


@pytest.mark.parametrize("game", ["wizard", "geheimtrumpf"])
def test_the_terminal_shows_the_rules_on_request(game):
    options, players = SHORT[game]
    table = Table(game, players, options=options, opponents=["random"], seed=1)
    tv = table.view()
    console = _console()
    answers = iter(["?", "rules", "1"])
    action = choose(console, table, tv, read=lambda prompt: next(answers))
    assert action == tv["moves"][0]["id"]
    out = console.file.getvalue()
    assert "rules" in HELP and "the rules of this game" in out  # ? tells of it
    assert f"{display_of(game).title}: the rules" in out
    assert "Winning" in out and ("Playing a trick" in out or "A round" in out)
    if game == "geheimtrumpf":
        assert "Fewest tricks" in out and "fewest_tricks" in out
    pane = _console()
    pane.print(rules_panel(game))
    assert "Who takes the trick" in pane.file.getvalue()


# -- how did I score -----------------------------------------------------------------------


def _last_number(text: str) -> int:
    return int(re.findall(r"[+-]?\d+", text)[-1])


@pytest.mark.parametrize("game", envs.GAMES)
def test_each_rounds_reasons_add_up_to_its_points(game):
    rounds = 0
    for seed in (1, 2):
        table = _played(game, seed, seat=seed % 3)
        ends = [e for e in table.events() if e["type"] == "round_end"]
        before = [0] * table.game.num_players
        for e in ends:
            reasons = e["reasons"]
            assert len(reasons) == table.game.num_players and all(reasons)
            got = [_last_number(r) for r in reasons]
            if game == "geheimtrumpf":  # tasks checked off this round: (+1) or (+0)
                assert got == [t - b for t, b in zip(e["totals"], before)], reasons
                assert all(re.search(r"\(\+[01]\)$", r) for r in reasons)
            else:
                assert got == e["scores"], (reasons, e["scores"])
            before = e["totals"]
            rounds += 1
        summary = table.summary()
        assert [r["reasons"] for r in summary["rounds"]] == [e["reasons"] for e in ends]
    assert rounds >= 2


def test_reasons_spell_the_scoring_rule():
    wizard = display_of("wizard").score_reasons
    event = {"bids": [{"seat": 1, "bid": 2}, {"seat": 0, "bid": 1}], "tricks_won": [3, 2],
             "totals": [0, 0]}
    assert wizard(event) == ["bid 1, took 3: 2 off, -10 x 2 = -20",
                             "bid 2, took 2: 20 + 2x10 = 40"]
    # the seed's example: A (seat 0) 5 tricks, B on A's right (seat 2) 3, C (seat 1) 3
    ananas = display_of("silberne_ananas").score_reasons
    lines = ananas({"tricks_won": [5, 3, 3], "bonus_seat": 0, "totals": [0, 0, 0]})
    assert lines[0] == ("5 own tricks + 2x3 of the right neighbour's = 11, the middle score: "
                        "+ 10 bonus = 21")
    assert [_last_number(x) for x in lines] == [21, 13, 9]  # A 11 + 10, C 13, B 9
    sore = display_of("wunder_punkt").score_reasons  # the seed's example, 4 players
    won = ["6h", "10h", *(f"{n}{suit}" for suit in "cs" for n in range(2, 9))]
    line = sore({"sore_cards": ["2h"], "won": [won], "totals": [0]})[0]
    assert line == "sore suit hearts (laid 2h): 2h -2, 6h -6, 10h -10; 14 other cards +14 = -4"
    high_low = display_of("hoch_tief").score_reasons  # the rules text's example, 4 players
    line = high_low({"taken": [["A5", "A9", "B2", "C1", "C4", "C11"], [], [], []],
                     "totals": [0] * 4})[0]
    assert line == "A5 + A9 = 14, B2 = 2, 3 C cards = 3: 14 + 2 + 3 = 19"


def test_the_terminal_round_summary_says_how_each_seat_scored():
    table = _played("wizard", 4)
    tv = table.view()
    event = next(e for e in table.events() if e["type"] == "round_end")
    console = _console()
    console.print(round_summary(tv, event))
    out = console.file.getvalue()
    assert "How it scored" in out
    for reason in event["reasons"]:
        assert reason in out


# -- places, grammar, options, messages ----------------------------------------------------


def test_places_use_standard_competition_ranking():
    assert competition_places([0, 1, 1, 2]) == [1, 2, 2, 4]
    assert competition_places([1, 0, 0, 2]) == [3, 1, 1, 4]
    assert competition_places([0, 0, 0]) == [1, 1, 1]
    assert competition_places([2, 1, 0]) == [3, 2, 1]
    for seed in range(4):
        table = _played("hoch_tief", seed)
        s = table.summary()
        assert s["places"] == competition_places(s["placement"])
        for a in range(3):  # a better total (by the game's rule) is a better place
            for b in range(3):
                if s["placement"][a] < s["placement"][b]:
                    assert s["places"][a] < s["places"][b]
                    assert s["places"][b] == 1 + sum(p < s["placement"][b]
                                                     for p in s["placement"])
        over = table.events()[-1]
        assert over["type"] == "game_over" and over["places"] == s["places"]


def test_texts_about_the_person_use_the_second_person():
    assert agree(YOU, "takes") == "You take" and agree("Seat 2", "takes") == "Seat 2 takes"
    assert agree(YOU, "decides") == "You decide" and verb_for(YOU, "leads") == "lead"
    assert verb_for(YOU, "has") == "have" and verb_for(YOU, "reaches") == "reach"
    trick = {"type": "trick", "cards": ["A3", "B9", "A1"], "winner": 1, "high": "B9",
             "high_seat": 1, "low": "A1", "low_seat": 0}
    names = [YOU, "Seat 1", "Seat 2"]
    assert describe_event(trick, names).endswith(
        "You take B9, Seat 1 takes the rest and leads")
    trick.update(high_seat=0, low_seat=1, winner=0)
    assert describe_event(trick, names).endswith(
        "Seat 1 takes B9, You take the rest and lead")
    view = {"phase": "give_trick", "to_act": 0, "deal_scores": []}
    (note,) = display_of("silberne_ananas").notes(view, names)
    assert note.text.startswith("Joker: You decide who takes this trick")
    # every text the table builds along whole games: never "You takes", "You decides"
    wrong = re.compile(r"\bYou (?!was\b)[a-z]+s\b")
    for game in ("hoch_tief", "silberne_ananas"):
        table = _played(game, 3, seat=1)
        tv = table.view()
        names = [YOU if p["human"] else f"Seat {p['seat']}" for p in tv["players"]]
        for event in table.events():
            assert not wrong.search(describe_event(event, names)), describe_event(event, names)


@pytest.mark.parametrize("text,kind,nullable,value", [
    ("1,2", "list", True, [1, 2]), ("1 2", "list", True, [1, 2]),
    ("[1,2]", "list", True, [1, 2]), ("[1, 2]", "list", True, [1, 2]),
    ("3", "list", True, [3]), (3, "list", True, [3]), ([1, 2], "list", True, [1, 2]),
    ("", "list", True, None), ("null", "list", True, None), ("none", "int", True, None),
    ("yes", "bool", False, True), ("off", "bool", False, False), ("false", "bool", False, False),
    ("true", "bool", False, True), (True, "bool", False, True), (" 7 ", "int", False, 7),
    ("-1", "int", False, -1),
])
def test_options_read_json_and_the_plain_syntax(text, kind, nullable, value):
    assert option_value("x", text, kind, nullable) == value


def test_the_same_option_text_works_at_every_table():
    plain = Table("wizard", 3, options={"rounds": "1,2"}, opponents=["random"], seed=2)
    as_json = Table("wizard", 3, options={"rounds": "[1,2]"}, opponents=["random"], seed=2)
    as_list = Table("wizard", 3, options={"rounds": [1, 2]}, opponents=["random"], seed=2)
    assert plain.game.options == as_json.game.options == as_list.game.options
    assert plain.game.options.rounds == (1, 2)
    single = Table("silberne_ananas", options={"match": "no"}, opponents=["random"], seed=2)
    assert single.game.options.match is False


#: bad setups a page or the terminal may send, and words their message must have
BAD_SETUPS = [
    ("wizard", {"first_dealer": None}, "option first_dealer needs a value: a whole number"),
    ("wizard", {"rounds": [1, None]}, "not [1, null]"),
    ("wizard", {"rounds": "x"}, 'whole numbers such as 1,2,3, or nothing, not "x"'),
    ("wizard", {"dealer_bid_restriction": "maybe"}, "true or false"),
    ("wunder_punkt", {"rounds": "1,2"}, "a whole number, or nothing, not [1, 2]"),
    ("silberne_ananas", {"match": None}, "needs a value: true or false"),
    ("silberne_ananas", {"match": False, "alone_variant": True}, "needs match=true"),
    ("wizard", {"rounds": [99]}, "rounds"),
]


@pytest.mark.parametrize("game,options,words", BAD_SETUPS)
def test_setup_messages_show_no_python_values(game, options, words):
    with pytest.raises(TableError) as e:
        Table(game, options=options, opponents=["random"], seed=1)
    message = str(e.value)
    assert words in message, message
    assert not re.search(r"\b(None|True|False)\b", message), message
    for bad in (None, True, 1.5, [None]):
        with pytest.raises(TableError) as e:
            Table("wizard", human_seat=bad, opponents=["random"], seed=1)
        assert not re.search(r"\b(None|True|False)\b", str(e.value)), str(e.value)


def test_the_terminal_takes_the_plain_option_syntax(tmp_path):
    run = subprocess.run([sys.executable, "-m", "stichzoo.training.cli", "play", "wizard",
                          "--option", "rounds=1,2", "--opponents", "random", "--seed", "4"],
                         cwd=tmp_path, input="q\n", capture_output=True, text=True, timeout=60,
                         env={"NO_COLOR": "1", "COLUMNS": "120", "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0 and "You left the table" in run.stdout, run.stderr
    assert "round 1 of 2" in run.stdout
    bad = subprocess.run([sys.executable, "-m", "stichzoo.training.cli", "play", "wizard",
                          "--option", "rounds=x"], cwd=tmp_path, stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "option rounds takes whole numbers" in bad.stderr
