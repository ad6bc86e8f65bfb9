"""expert.opponent: labelled games at tables unlike the learner's own (trainers/labels.py)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from stichzoo.training import config as config_mod
from tests.conftest import tiny_config


def _config(**expert) -> dict:
    cfg = tiny_config("wizard")
    cfg["options"]["rounds"] = [3]
    cfg["algo"] = "batch_ppo"
    cfg["expert"] = {"teacher": "pimc:worlds=2", "steps": 10, "targets": "improve", **expert}
    return config_mod.validate(cfg)


def _spy(monkeypatch) -> dict[str, list]:
    """Every decision each built policy is asked, as (game state, seat), by spec."""
    from stichzoo.policies import specs

    asked: dict[str, list] = defaultdict(list)
    real = specs.build_policy
    alive: list = []  # every state asked about, kept: an id is a game only while its state lives

    def seen(decision) -> int:
        alive.append(decision.state)
        return id(decision.state)

    def build(spec, game, *args, **kwargs):
        policy = real(spec, game, *args, **kwargs)
        act, values = policy.act, getattr(policy, "values", None)

        def act_spy(decision):
            asked[spec].append((seen(decision), decision.seat))
            return act(decision)

        policy.act = act_spy
        if values is not None:
            def values_spy(decision):
                asked[spec].append((seen(decision), decision.seat))
                return values(decision)

            policy.values = values_spy
        return policy

    monkeypatch.setattr(specs, "build_policy", build)
    return asked


def test_the_opponent_seats_are_moved_by_the_opponent_and_never_labelled(monkeypatch):
    """Per game, the opponent plays its opponent_seats seats and the teacher labels the others
    only: no teacher time on the opponent's decisions, and fewer samples per game."""
    from stichzoo.training.trainers.labels import teacher_data

    cfg = _config(opponent="random", opponent_seats=2)
    asked = _spy(monkeypatch)
    data = teacher_data(cfg, 40, seed=11, games=2, teacher="pimc:worlds=2", temperature=0.25,
                        opponent="random", opponent_seats=2)
    assert len(data["action"]) == 40 and data["labelled"].all()
    seats: dict[str, dict[int, set]] = {"pimc:worlds=2": defaultdict(set),
                                        "random": defaultdict(set)}
    for spec, calls in asked.items():
        for state, seat in calls:
            seats[spec][state].add(seat)
    games = set(seats["random"]) | set(seats["pimc:worlds=2"])
    assert games
    for state in games:
        theirs, ours = seats["random"][state], seats["pimc:worlds=2"][state]
        assert len(theirs) <= 2 and not theirs & ours, (theirs, ours)
    # the teacher's sampled seats differ from game to game: the seating is drawn per game
    assert len({frozenset(seats["random"][s]) for s in games}) > 1
    for key in data:  # same seed, same data
        again = teacher_data(cfg, 40, seed=11, games=2, teacher="pimc:worlds=2",
                             temperature=0.25, opponent="random", opponent_seats=2)
        assert np.array_equal(data[key], again[key]), key


def test_a_league_seats_one_of_its_opponents_per_game(monkeypatch):
    """expert.opponent as a list: each game's opponent seats are all moved by one of them,
    drawn per game, so both play; the teacher labels neither's seats, and a one-spec list is
    the spec itself (the same data)."""
    from stichzoo.training.trainers.labels import teacher_data

    league = ["random", "heuristic"]
    cfg = _config(opponent=league, opponent_seats=2)
    asked = _spy(monkeypatch)
    data = teacher_data(cfg, 120, seed=5, games=4, teacher="pimc:worlds=2", temperature=0.25,
                        opponent=league, opponent_seats=2)
    assert len(data["action"]) == 120 and data["labelled"].all()
    seats: dict[str, dict[int, set]] = defaultdict(lambda: defaultdict(set))
    for spec, calls in asked.items():
        for state, seat in calls:
            seats[spec][state].add(seat)
    for spec in league:
        assert seats[spec], f"{spec} sat at no table"
        for state, theirs in seats[spec].items():
            other = league[1 - league.index(spec)]
            assert state not in seats[other], "two opponents in one game"
            assert len(theirs) <= 2 and not theirs & seats["pimc:worlds=2"][state]
    one = teacher_data(cfg, 40, seed=11, games=2, teacher="pimc:worlds=2", temperature=0.25,
                       opponent=["random"], opponent_seats=2)
    plain = teacher_data(cfg, 40, seed=11, games=2, teacher="pimc:worlds=2", temperature=0.25,
                         opponent="random", opponent_seats=2)
    for key in plain:
        assert np.array_equal(plain[key], one[key]), key


def test_no_opponent_leaves_the_labels_as_they_were():
    """opponent_share 0 seats no opponent: the same data as self-play tables (the seat draw
    does not touch the games' seeds)."""
    from stichzoo.training.trainers.labels import teacher_data

    cfg = _config()
    plain = teacher_data(cfg, 30, seed=4, games=2, teacher="pimc:worlds=2", temperature=0.25)
    none = teacher_data(cfg, 30, seed=4, games=2, teacher="pimc:worlds=2", temperature=0.25,
                        opponent="random", opponent_seats=1, opponent_share=0.0)
    for key in plain:
        assert np.array_equal(plain[key], none[key]), key


def test_bad_opponent_settings_are_refused_by_name():
    with pytest.raises(ValueError, match=r"expert\.opponent_seats=4 leaves no seat"):
        _config(opponent="heuristic", opponent_seats=4)
    with pytest.raises(ValueError, match=r"expert\.opponent_share=1\.5 is out of range"):
        _config(opponent="heuristic", opponent_share=1.5)
    with pytest.raises(ValueError):
        _config(opponent="no_such_bot")
    with pytest.raises(ValueError):
        _config(opponent=["pimc", "no_such_bot"])
    for league in (["pimc", 3], ["pimc", ""]):  # ([] is "": self-play tables only)
        with pytest.raises(ValueError, match=r"expert\.opponent=.*a list of policy specs"):
            _config(opponent=league)
    assert _config(opponent=["pimc", "heuristic"])["expert"]["opponent"] == ["pimc", "heuristic"]


def test_the_teacher_labels_only_the_games_whose_samples_are_wanted(monkeypatch):
    """Wizard's games end together: once the running games will give the samples asked for,
    new games run on unlabelled, so the teacher labels about one game more than the samples
    asked for, not a whole batch more (the games of a batch of 4 end together: 4 games of
    about 16 decisions each; 100 samples need 7 games)."""
    from stichzoo.training.trainers.labels import teacher_data

    cfg = _config()
    asked = _spy(monkeypatch)
    data = teacher_data(cfg, 100, seed=3, games=4, teacher="pimc:worlds=2", temperature=0.25)
    assert len(data["action"]) == 100 and data["labelled"].all()
    calls = len(asked["pimc:worlds=2"])
    assert 100 <= calls <= 100 + 18, calls  # labelling every game of each batch: 128
    again = teacher_data(cfg, 100, seed=3, games=4, teacher="pimc:worlds=2", temperature=0.25)
    for key in data:
        assert np.array_equal(data[key], again[key]), key
