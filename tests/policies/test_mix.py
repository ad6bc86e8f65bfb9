"""``mix:``: one bot per phase, for measuring where a bot loses."""

from __future__ import annotations

import pytest

from stichzoo import envs
from stichzoo.policies.base import Decision
from stichzoo.policies.specs import build_policy


def _game(name: str, **opts):
    cls = envs.game_class(name)
    return cls(cls.Options(**{"num_players": 4, **opts}))


def _play(game, policy, seed: int) -> list[tuple[str, int]]:
    """The whole game with ``policy`` in every seat: (phase, action) per decision."""
    s = game.new_game(seed)
    out = []
    while s.current_player >= 0:
        phase = s.phase_name
        a = policy.act(Decision(game, s))
        out.append((phase, a))
        s.step(a)
    return out


def test_each_phase_goes_to_its_bot():
    game = _game("geheimtrumpf")
    mix = build_policy("mix:play=random,else=heuristic", game, seed=3, cache=False)
    heuristic = build_policy("heuristic", game, seed=3, cache=False)
    random_ = build_policy("random", game, seed=3, cache=False)
    s = game.new_game(11)
    seen = set()
    while s.current_player >= 0:
        d = Decision(game, s)
        part = random_ if s.phase_name == "play" else heuristic
        assert mix.act(d) == part.act(Decision(game, s))
        seen.add(s.phase_name)
        s.step(mix.act(Decision(game, s)) if s.phase_name != "play" else d.legal_actions[0])
    assert {"card_draft", "task_choice", "play"} <= seen


def test_all_phases_to_one_bot_is_that_bot():
    game = _game("silberne_ananas", num_players=3)
    mix = build_policy("mix:play=heuristic,give_trick=heuristic", game, seed=5, cache=False)
    heuristic = build_policy("heuristic", game, seed=5, cache=False)
    assert _play(game, mix, 7) == _play(game, heuristic, 7)


@pytest.mark.parametrize("spec, words", [
    ("mix:bid=heuristic", ["no phase 'bid'", "play", "give_trick"]),
    ("mix:else=bot", ["name at least one phase"]),
    ("mix:play=pimc:worlds=4", ["without arguments"]),
    ("mix:play=nonsense", ["unknown policy 'nonsense'"]),
])
def test_bad_mixes_are_refused_by_name(spec, words):
    game = _game("silberne_ananas", num_players=3)
    with pytest.raises(ValueError) as e:
        build_policy(spec, game, seed=0, cache=False)
    for w in words:
        assert w in str(e.value)
