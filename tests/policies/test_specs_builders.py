"""make_policy is a table of builders; each game declares its SearchHooks; the lab's options
reach the builders only once the lab is imported (issue 67, item 3)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from stichzoo.envs.registry import GAMES, game_class
from stichzoo.policies import specs
from stichzoo.policies.hooks import SearchHooks


def test_every_policy_name_has_one_builder():
    assert set(specs.BUILDERS) == set(specs.POLICY_NAMES)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_declares_its_search_hooks(game):
    module = specs.game_policy_module(game)
    hooks = specs.search_hooks(game)
    assert isinstance(hooks, SearchHooks)
    assert hooks.defaults["worlds"] >= 1 and hooks.defaults["horizon"] == "round"
    # the hooks are the record, not loose module attributes the builder looks for
    for old in ("inference", "standing_hooks"):
        assert not hasattr(module, old), f"{game}: {old} belongs to the lab"
    assert specs.learned_search(game).startswith("pimc:")


def test_hooks_are_read_only():
    hooks = specs.search_hooks("wizard")
    with pytest.raises(TypeError):
        hooks.defaults["worlds"] = 1  # type: ignore[index]


_PRODUCT_ONLY = textwrap.dedent("""
    import sys
    from stichzoo.envs.registry import game_class
    from stichzoo.policies.specs import build_policy
    g = game_class(sys.argv[1])
    game = g(g.Options())
    try:
        build_policy(sys.argv[2], game, seed=0)
    except ValueError as e:
        print("refused:", e)
    assert not [m for m in sys.modules if ".lab" in m], "the product imported the lab"
""")


@pytest.mark.parametrize("game,spec", [
    ("wizard", "pimc:belief=wizard"), ("wizard", "pimc:infer=1"),
    ("wizard", "pimc:policy=0.5"), ("silberne_ananas", "pimc:standing=silberne_ananas"),
    ("silberne_ananas", "heuristic:standing=silberne_ananas"),
])
def test_without_the_lab_a_lab_option_is_refused_by_name(game, spec):
    out = subprocess.run([sys.executable, "-c", _PRODUCT_ONLY, game, spec],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("refused:"), out.stdout
    assert specs.LAB_COMMAND in out.stdout


def test_with_the_lab_its_options_build_the_same_search():
    import stichzoo.policies.lab  # noqa: F401
    from stichzoo.policies.lab.bid_inference import BidInference

    g = game_class("wizard")
    game = g(g.Options(num_players=4))
    bot = specs.build_policy("pimc:infer=1,worlds=2", game, seed=0)
    assert isinstance(bot.infer, BidInference)
    with pytest.raises(ValueError, match="choose one of"):
        specs.build_policy("pimc:policy=0.5,infer=1", game, seed=0)
    with pytest.raises(ValueError, match="temper= softens"):
        specs.build_policy("pimc:temper=0.5", game, seed=0)


def test_an_unknown_argument_is_refused_by_name():
    g = game_class("hoch_tief")
    game = g(g.Options())
    with pytest.raises(ValueError, match=r"unknown argument.*wrolds"):
        specs.build_policy("pimc:wrolds=3", game, seed=0)
    with pytest.raises(ValueError, match=r"unknown argument\(s\) x"):
        specs.build_policy("random:x=1", game, seed=0)
