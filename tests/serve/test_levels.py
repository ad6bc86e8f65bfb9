"""Difficulty levels: every policy kind served from the player view alone.

- ``GET /bots`` lists random / heuristic / pimc for every game, besides the
  trained bots, each with kind, level and measured strength;
- each level answers legal moves in all five games, deterministically for
  a given (view, seed);
- nothing leaks: the search bot's answer from the view is the answer the
  same bot gives at the real table (whose hidden cards the server never
  saw), and a re-deal of what the seat cannot see gives the same view and
  so the same answer.
"""

from __future__ import annotations

import importlib
import random

import pytest

pytest.importorskip("onnxruntime")

from stichzoo import envs
from stichzoo.policies import Decision, game_policy_module, make_policy
from stichzoo.policies.runtimes.onnx_policy import SHIPPED_BOTS
from stichzoo.policies.serve.levels import BASELINES
from stichzoo.policies.serve.registry import BotError, BotRegistry
from tests.helpers import decision_views

PLAYERS = {"silberne_ananas": 3}
WORLDS = 3  # a small search budget keeps the tests fast


@pytest.fixture(scope="module")
def registry():
    return BotRegistry(SHIPPED_BOTS, levels=("random", "heuristic", f"pimc:worlds={WORLDS}"))


def _game(name: str, players: int | None = None):
    cls = envs.game_class(name)
    return cls(cls.Options(num_players=players or PLAYERS.get(name, 4)))


def test_levels_are_listed_with_kind_level_and_strength(registry):
    listed = {b["name"]: b for b in registry.list()["bots"]}
    for game in envs.GAMES:
        for kind, level in (("random", "easy"), ("heuristic", "medium"), ("pimc", "hard")):
            bot = listed[f"{game}-{kind}"]
            assert (bot["kind"], bot["level"], bot["game"]) == (kind, level, game)
            assert bot["num_players"] is None  # any table of the game
        heuristic = listed[f"{game}-heuristic"]["strength"]
        assert heuristic[0]["opponent"] == "random"
        assert "scripts/figures/baselines.sh" in heuristic[0]["source"]
        assert heuristic[0]["score_difference"]["mean"] == BASELINES[game][0][2][0]
        # pimc was measured at its default budget only (Geheimtrumpf's is 3 worlds)
        default = game_policy_module(game).SEARCH_DEFAULTS["worlds"]
        assert bool(listed[f"{game}-pimc"]["strength"]) == (default == WORLDS)
        trained = listed[game]
        assert trained["kind"] == "trained" and trained["level"] in ("easy", "medium", "hard")
        assert {m["opponent"] for m in trained["strength"]} == {"heuristic", "random"}
        assert "manifest.json" in trained["strength"][0]["source"]


def test_default_pimc_carries_the_readme_figures():
    registry = BotRegistry(SHIPPED_BOTS, levels=("pimc",))
    strength = registry.bots["wizard-pimc"].summary()["strength"]
    assert strength[0]["opponent"] == "heuristic"
    assert strength[0]["win_rate_difference"]["lo"] > 0


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_every_level_answers_legal_moves_deterministically(registry, name):
    game = _game(name)
    for state, view in decision_views(game, 6, seed=21):
        for kind in ("random", "heuristic", "pimc"):
            bot = f"{name}-{kind}"
            answer = registry.act(bot, view, seed=4)
            assert (state.legal_mask() >> answer["action_id"]) & 1, (bot, answer)
            assert answer["action"] == game.action_label(answer["action_id"])
            assert answer["probability"] is None and answer["bot"] == bot
            assert registry.act(bot, view, seed=4) == answer


def test_the_seed_matters_for_the_random_level(registry):
    game = _game("wizard")
    differ = 0
    for _state, view in decision_views(game, 12, seed=2):
        answers = {registry.act("wizard-random", view, seed=s)["action_id"] for s in range(6)}
        differ += len(answers) > 1
    assert differ > 0


def test_levels_sit_at_any_table_of_their_game(registry):
    """The table comes from the view: a 3-player Wizard, a 6-player Hoch & Tief."""
    for name, players in (("wizard", 3), ("hoch_tief", 6), ("geheimtrumpf", 3)):
        game = _game(name, players)
        for state, view in decision_views(game, 3, seed=8):
            answer = registry.act(f"{name}-heuristic", view)
            assert (state.legal_mask() >> answer["action_id"]) & 1


def test_level_refuses_bad_tables(registry):
    _state, view = decision_views(_game("wizard"), 1, seed=1)[0]
    with pytest.raises(BotError, match="options"):
        registry.act("wizard-heuristic", {**view, "options": [1]})
    with pytest.raises(BotError, match="num_players"):
        registry.act("wizard-heuristic", {**view, "options": {**view["options"],
                                                             "num_players": 9}})
    with pytest.raises(BotError, match="at most"):
        registry.act("wizard-heuristic", {**view, "options": {"x": "y" * 5000}})
    with pytest.raises(BotError, match="plays wizard"):
        registry.act("wizard-pimc", {**view, "game": "hoch_tief"})


@pytest.mark.parametrize("name", list(envs.GAMES))
def test_search_levels_use_only_the_view(registry, name):
    """The answer from the view = the search bot's answer at the real table; a re-deal of the
    hidden part gives the same view, hence the same answer."""
    game = _game(name)
    for state, view in decision_views(game, 8, seed=33):
        seat = state.current_player
        answer = registry.act(f"{name}-pimc", view, seed=9)["action_id"]
        at_the_table = make_policy("pimc", game, seed=9, worlds=WORLDS)
        assert answer == at_the_table.act(Decision(game, state))
        views = importlib.import_module(f"stichzoo.envs.{name}.view")
        for k in range(2):
            redealt = game.determinize(state, seat, random.Random(100 + k))
            redealt_view = views.to_view(redealt, seat)
            assert redealt_view == view
            assert registry.act(f"{name}-pimc", redealt_view, seed=9)["action_id"] == answer
        heuristic = registry.act(f"{name}-heuristic", view, seed=9)["action_id"]
        assert heuristic == make_policy("heuristic", game, seed=9).act(Decision(game, state))


def test_bad_level_specs_are_refused_at_start():
    with pytest.raises(ValueError, match="a level is one of"):
        BotRegistry(SHIPPED_BOTS, levels=("bot:wizard",))
    with pytest.raises(ValueError, match="worlds"):
        BotRegistry(SHIPPED_BOTS, levels=("pimc:worlds=0",))
    with pytest.raises(ValueError, match="already served"):
        BotRegistry(SHIPPED_BOTS, levels=("pimc", "pimc:worlds=4"))


def test_the_learned_search_is_served_from_the_view_at_its_networks_table():
    """``<game>-search``: PIMC guided by the shipped network, a function of (view, seed); at a
    table the network was not trained for it refuses by name instead of guessing."""
    registry = BotRegistry(SHIPPED_BOTS, levels=(f"search:worlds={WORLDS}",))
    listed = {b["name"]: b for b in registry.list()["bots"]}
    assert listed["wizard-search"]["level"] == "hard"
    game = _game("wizard")
    for state, view in decision_views(game, 4, seed=5):
        answer = registry.act("wizard-search", view, seed=4)["action_id"]
        assert answer == make_policy("search", game, seed=4, worlds=WORLDS).act(
            Decision(game, state))
    _state, view = decision_views(_game("wizard", 3), 1, seed=1)[0]
    with pytest.raises(BotError, match="wizard-search cannot sit at this table"):
        registry.act("wizard-search", view, seed=0)
