"""Each game declares its display facts once, beside the game (envs/<game>/display.py).

The frontends (terminal, browser table, server) read them and hold no
``if game == ...`` of their own; these checks keep the facts true to the
game: every card has a declared suit and a rank, every rule option a
meaning, the short options build a game, the secret kinds are action kinds.
"""

from __future__ import annotations

import importlib
import random
from dataclasses import fields

import pytest

from stichzoo import envs
from stichzoo.envs.core.display import GameDisplay, Grid, Note
from stichzoo.envs.registry import display_of


def _views(game_name: str, games: int = 3):
    """Every seat's view along a few random games (the cards a hand can hold)."""
    cls = envs.game_class(game_name)
    game = cls(cls.Options())
    views = importlib.import_module(f"stichzoo.envs.{game_name}.view")
    rng = random.Random(0)
    for seed in range(games):
        state = game.new_game(seed=seed)
        while not (state.over or state.truncated):
            for seat in range(game.num_players):
                yield game, views.to_view(state, seat)
            state.step(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("name", envs.GAMES)
def test_every_card_has_a_declared_suit_and_a_rank(name):
    display = display_of(name)
    assert isinstance(display, GameDisplay) and display.title
    keys = [s.key for s in display.suits]
    assert len(set(keys)) == len(keys)
    seen = set()
    for _, view in _views(name):
        for card in view["hand"]:
            seen.add(card)
            assert display.suit_of(card) in keys, (name, card)
    assert {display.suit_of(c) for c in seen} == set(keys)  # no suit declared in vain
    if not display.suit_first:
        for card in seen - display.own_suit_cards:
            assert card[:-1] in display.ranks, (name, card)


@pytest.mark.parametrize("name", envs.GAMES)
def test_every_option_has_a_meaning_and_short_options_build(name):
    from stichzoo.envs.core.game import build_options

    display = display_of(name)
    cls = envs.game_class(name)
    options = {f.name for f in fields(cls.Options)} - {"num_players"}
    assert set(display.option_docs) == options
    assert all(display.option_docs.values())
    cls(build_options(cls.Options, name, dict(display.short_options)))


@pytest.mark.parametrize("name", envs.GAMES)
def test_the_screen_functions_read_every_view(name):
    display = display_of(name)
    for game, view in _views(name, games=1):
        names = [f"Seat {s}" for s in range(game.num_players)]
        assert display.where(view)
        for title, texts in display.seat_columns(view):
            assert title and len(texts) == game.num_players
        for note in display.notes(view, names):
            assert isinstance(note, (Note, Grid))
        for badge in display.badges(view):  # short: they sit in the table's middle
            assert isinstance(badge, Note) and 0 < len(badge.text) <= 40, badge


def test_every_geheimtrumpf_task_has_words():
    """A player reads tasks by name, never by id, in the scoreboard, the moves and the log."""
    from stichzoo.envs.geheimtrumpf.rules import TASK_NAMES

    display = display_of("geheimtrumpf")
    assert set(display.terms) == set(TASK_NAMES)
    assert display.in_words("choose no_trick") == "choose no trick"
    assert display.in_words("the task last_trick, no_hearts") == \
        "the task last trick, no hearts"
    assert display_of("wizard").in_words("bid 2") == "bid 2"


@pytest.mark.parametrize("name", envs.GAMES)
def test_secret_kinds_are_action_kinds_and_reveals_are_round_log_fields(name):
    display = display_of(name)
    cls = envs.game_class(name)
    game = cls(cls.Options())
    views = importlib.import_module(f"stichzoo.envs.{name}.view")
    kinds = {views.action_to_view(game, a)["kind"] for a in range(game.num_actions)}
    assert display.secret_kinds <= kinds
    state = game.new_game(seed=0, log=True)
    rng = random.Random(0)
    while not (state.over or state.truncated):
        state.step(rng.choice(state.legal_actions()))
    logged = set().union(*(entry.keys() for entry in state.log))
    assert set(display.reveal_keys) <= logged


def test_the_frontends_hold_no_game_branches():
    import inspect

    from stichzoo.policies.serve import app, registry
    from stichzoo.policies.serve import web_table as web
    from stichzoo.policies.tables import table, terminal

    for module in (terminal, web, table, app, registry):
        source = inspect.getsource(module)
        for name in envs.GAMES:
            assert f'== "{name}"' not in source, (module.__name__, name)


def test_the_browser_page_holds_no_game_tables_or_branches():
    """table.js renders generically: every game fact comes from the server (GET /tables/options,
    the views' ``screen``), so the page names no game, no suit and no card reading of its own."""
    import re
    from pathlib import Path

    from stichzoo.policies.serve.web_table import WEB_DIR

    for file in ("table.js", "index.html"):
        source = (Path(WEB_DIR) / file).read_text()
        assert not re.search(r"\bgame\s*[!=]==?", source), file
        for name in envs.GAMES:
            assert name not in source, (file, name)
            display = display_of(name)
            assert display.title not in source, (file, display.title)
            for suit in display.suits:
                for word in (suit.name, suit.symbol, suit.card_name):
                    if word:
                        assert f'"{word}"' not in source and f"'{word}'" not in source, \
                            (file, name, word)
            if display.ranks:
                assert re.search(", ".join(f'"{r}"' for r in display.ranks[:3]), source) is None
        for table in ("SUITS", "RANKS", "SYMBOLS", "\\u2665", "\u2665"):
            assert table not in source, (file, table)


@pytest.mark.parametrize("name", envs.GAMES)
def test_every_card_has_a_face(name):
    """The face a page draws names the card in its words and shows its rank or its kind."""
    display = display_of(name)
    seen = {card for _, view in _views(name, games=1) for card in view["hand"]}
    for card in seen:
        face = display.face(card)
        assert face.text, (name, card)
        assert f"({card})" in face.title or face.title == card, (name, card, face)
        suit = next(s for s in display.suits if s.key == display.suit_of(card))
        if suit.symbol:
            assert face.text.endswith(suit.symbol) and suit.name in face.title
        elif suit.card_name:
            assert face.title.startswith(suit.card_name)
