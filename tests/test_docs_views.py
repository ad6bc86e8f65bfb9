"""Every JSON example in docs/views/*.md is a view the shipped bot answers legally.

A ```json block holding a full player view (it has a ``"game"`` key) is
checked with ``from_view`` against the table of that game's shipped bot;
where the view's seat is to act, the bot is asked for its move, which must
be legal.  A block holding an action answer (``"action"``) must be what
``action_to_view`` writes.  Nothing else may sit in a json block, and
every page must hold at least one view, so the test cannot pass vacuously.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

from stichzoo.policies.base import Decision
from stichzoo.policies.runtimes.onnx_policy import OnnxPolicy, shipped_bot

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs" / "views").glob("*.md"))
_BLOCK = re.compile(r"^```json\n(.*?)^```", re.S | re.M)
_BOTS: dict[str, OnnxPolicy] = {}


def _examples() -> list[tuple[str, int, dict]]:
    out = []
    for page in PAGES:
        text = page.read_text()
        for m in _BLOCK.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append((page.stem, line, json.loads(m.group(1))))
    return out


def _bot(game_name: str) -> OnnxPolicy:
    if game_name not in _BOTS:
        _BOTS[game_name] = OnnxPolicy.load(shipped_bot(game_name))
    return _BOTS[game_name]


def test_every_page_has_a_view_example():
    pages = {page for page, _, ex in _examples() if "game" in ex}
    assert pages == {p.stem for p in PAGES} and len(pages) == 5


@pytest.mark.parametrize("page,line,example", [pytest.param(*e, id=f"{e[0]}:{e[1]}")
                                               for e in _examples()])
def test_json_example_works_with_the_shipped_bot(page, line, example):
    views = importlib.import_module(f"stichzoo.envs.{page}.view")
    bot = _bot(page)
    game = bot.game
    if "action" in example:
        assert views.action_to_view(game, example["action_id"]) == example
        assert views.action_from_label(game, example["action"]) == example["action_id"]
        return
    assert example["game"] == page, "a view example on another game's page"
    state = views.from_view(game, example)
    seat = example["seat"]
    assert views.to_view(state, seat)["seat"] == seat
    if state.current_player != seat or state.over:
        assert views.to_view(state, seat)["legal"] == []
        return
    d = Decision(game, state, seat, encoder=bot.encoder)
    probs = bot.probabilities(d.observation, d.action_mask)
    action = int(np.argmax(probs))
    assert d.action_mask[action] == 1 and np.isfinite(probs).all()
    answer = views.action_to_view(game, action)
    assert answer["action"] in views.to_view(state, seat)["legal"]
