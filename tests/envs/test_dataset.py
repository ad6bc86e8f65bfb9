"""Datasets (envs/core/dataset.py, training/evaluation/dataset.py, ``stichzoo dataset``).

The arrays made from a game's record must be what the env itself showed and paid
during that game: every observation and mask re-encoded against ``observe()``,
every reward against what ``last()`` credited the seat at its next turn (or at the
end), 0 mismatches.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from stichzoo.envs import GAMES, env_module
from stichzoo.envs.core import dataset
from stichzoo.envs.core.record import RecordError, dealt_state, replay, replay_steps
from stichzoo.training.cli import main
from stichzoo.training.evaluation.dataset import play_dataset
from stichzoo.training.evaluation.tournament import TournamentConfig


def _play_env(game: str, seed: int, reward: str) -> tuple[dict, dict[str, list]]:
    """A seeded random game through the AEC env: its record and what the env showed."""
    env = env_module(game).env(reward=reward)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen: dict[str, list] = {"observation": [], "action_mask": [], "action": [], "seat": [],
                             "phase": [], "reward": []}
    latest: dict[str, int] = {}  # each agent's latest row
    for agent in env.agent_iter():
        obs, reward_now, term, trunc, _ = env.last()
        if agent in latest:  # what the env credited since the agent's last decision
            seen["reward"][latest[agent]] += reward_now
        else:
            assert reward_now == 0  # nothing is paid before a seat's first decision
        if term or trunc:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        latest[agent] = len(seen["action"])
        seen["observation"].append(obs["observation"])
        seen["action_mask"].append(obs["action_mask"])
        seen["action"].append(action)
        seen["seat"].append(env.unwrapped.agent_name_mapping[agent])
        seen["phase"].append(env.unwrapped.state_.phase)
        seen["reward"].append(0.0)
        env.step(action)
    return json.loads(json.dumps(env.unwrapped.record())), seen


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("reward", ["score", "win", "margin"])
def test_arrays_are_what_the_env_showed_and_paid(game, reward):
    records, seen = [], {}
    for seed in (3, 4):
        record, shown = _play_env(game, seed, reward)
        records.append(record)
        for key, values in shown.items():
            seen.setdefault(key, []).extend(values)
    data = dataset.from_records(records)  # the reward mode comes from the records' env_kwargs
    assert data["meta"]["reward"] == reward
    obs = np.stack(seen["observation"])
    assert data["observation"].shape == obs.shape and data["observation"].dtype == np.float32
    mismatches = int((data["observation"] != obs).any(axis=1).sum())
    assert mismatches == 0
    np.testing.assert_array_equal(data["action_mask"], np.stack(seen["action_mask"]))
    np.testing.assert_array_equal(data["action"], seen["action"])
    np.testing.assert_array_equal(data["seat"], seen["seat"])
    np.testing.assert_array_equal(data["phase"], seen["phase"])
    np.testing.assert_allclose(data["reward"], np.float32(seen["reward"]), rtol=0, atol=1e-6)
    assert data["reward"].any()
    # per record and seat: returns are suffix sums, next_index links the seat's rows
    for g in range(len(records)):
        for seat in range(records[g]["num_players"]):
            rows = np.flatnonzero((data["game"] == g) & (data["seat"] == seat))
            np.testing.assert_array_equal(data["next_index"][rows[:-1]], rows[1:])
            assert data["next_index"][rows[-1]] == -1
            assert data["done"][rows].tolist() == [False] * (len(rows) - 1) + [True]
            np.testing.assert_allclose(data["return"][rows],
                                       np.cumsum(data["reward"][rows][::-1])[::-1], atol=1e-4)
        rows = np.flatnonzero(data["game"] == g)
        np.testing.assert_array_equal(data["decision"][rows], np.arange(len(rows)))
    assert (data["policy"] == -1).all() and data["meta"]["policies"] == []


def test_standing_rewards_and_gamma_follow_the_env():
    record, seen = _play_env("silberne_ananas", 2, "standing")
    data = dataset.from_records([record], gamma=0.5)
    np.testing.assert_allclose(data["reward"], seen["reward"], atol=1e-6)
    rows = np.flatnonzero(data["seat"] == 1)
    g, want = 0.0, []
    for r in data["reward"][rows][::-1]:
        g = r + 0.5 * g
        want.append(g)
    np.testing.assert_allclose(data["return"][rows], want[::-1], atol=1e-5)
    # the reward mode can be chosen over the record's
    win = dataset.from_records([record], reward="win")
    assert win["meta"]["reward"] == "win"
    assert sorted(set(win["reward"].round(3).tolist())) != sorted(
        set(data["reward"].round(3).tolist()))


def test_a_partial_record_converts_its_decisions():
    raw = env_module("wizard").raw_env()
    raw.reset(seed=1)
    for _ in range(7):
        raw.step(raw.legal_actions()[0])
    data = dataset.from_records([raw.record()])
    assert len(data["action"]) == 7
    assert not data["truncated"].any()


def test_bad_records_are_refused_by_index_and_field():
    good, _ = _play_env("hoch_tief", 1, "score")
    bad = json.loads(json.dumps(good))
    bad["decisions"][5]["action"] = bad["decisions"][6]["action"]
    with pytest.raises(RecordError, match=r"^record 1: decisions\[5\]"):
        dataset.from_records([good, bad])
    with pytest.raises(RecordError, match=r"^record 1: a record is a JSON object, not int"):
        dataset.from_records([good, 5])
    other, _ = _play_env("wizard", 1, "score")
    with pytest.raises(ValueError, match="record 1 has game 'wizard'"):
        dataset.from_records([good, other])
    with pytest.raises(ValueError, match="gamma"):
        dataset.from_records([good], gamma=1.5)
    with pytest.raises(ValueError, match="reward"):
        dataset.from_records([good], reward="standing")  # Hoch & Tief has no standing


def test_public_replay_api():
    record, _ = _play_env("geheimtrumpf", 2, "score")
    start = dealt_state(record)
    assert start.history == [] and start.game.name == "geheimtrumpf"
    steps = replay_steps(record)
    count = 0
    for state, decision in steps:
        assert state.current_player == decision["seat"]
        assert len(state.history) == count
        count += 1
    assert count == len(record["decisions"])
    assert replay(record).totals == record["totals"]


def test_save_and_load_without_pickle(tmp_path):
    record, _ = _play_env("wunder_punkt", 0, "score")
    data = dataset.from_records([record])
    path = dataset.save(str(tmp_path / "d.npz"), data)
    with np.load(path, allow_pickle=False) as f:
        assert set(f.files) == {*dataset.FIELDS, "meta"}
        for key, (dtype, _) in dataset.FIELDS.items():
            assert f[key].dtype == np.dtype(dtype), key
    back = dataset.load(path)
    assert back["meta"] == data["meta"]
    piece = back["meta"]["observation_pieces"][-1]
    assert piece["offset"] + piece["size"] == back["observation"].shape[1]
    np.testing.assert_array_equal(back["observation"], data["observation"])
    with pytest.raises(ValueError, match="npz"):
        dataset.save(str(tmp_path / "d.npy"), data)


def test_played_games_tag_each_seat_with_its_policy():
    cfg = TournamentConfig("hoch_tief", 4, ["heuristic", "random", "random", "random"],
                           deals=1, seed=3, workers=1)
    data, records = play_dataset(cfg, progress=False)
    assert len(records) == 4  # the heuristic in each seat once
    assert data["meta"]["policies"] == ["heuristic", "random"]
    for g, record in enumerate(records):
        replay(record)
        heuristic_seats = set(data["seat"][(data["game"] == g) & (data["policy"] == 0)].tolist())
        assert len(heuristic_seats) == 1  # one candidate seat per game
    # every seat of the heuristic, once per seat assignment
    assert sorted(set(data["seat"][data["policy"] == 0].tolist())) == [0, 1, 2, 3]


def test_cli_converts_tournament_records_and_plays(tmp_path, capsys):
    games = tmp_path / "games.jsonl"
    assert main(["eval", "silberne_ananas", "--players", "3", "--policies", "heuristic",
                 "random", "--games", "3", "--workers", "1", "--quiet", "--option",
                 "match=false", "--records", str(games)]) == 0
    lines = games.read_text().splitlines()
    assert len(lines) == 3
    out = tmp_path / "games.npz"
    assert main(["dataset", "--records", str(games), "--out", str(out), "--gamma", "0.9"]) == 0
    assert "decisions from 3 records" in capsys.readouterr().out
    data = dataset.load(str(out))
    assert data["meta"]["gamma"] == 0.9 and data["meta"]["records"] == 3
    assert data["game"].max() == 2 and len(data["action"]) == sum(
        len(json.loads(line)["decisions"]) for line in lines)

    played = tmp_path / "played.npz"
    saved = tmp_path / "played.jsonl"
    assert main(["dataset", "wizard", "--policies", "heuristic", "random", "--games", "4",
                 "--option", "rounds=[1,2]", "--workers", "1", "--quiet", "--out",
                 str(played), "--save-records", str(saved)]) == 0
    data = dataset.load(str(played))
    assert data["meta"]["policies"] == ["heuristic", "random"]
    again = dataset.from_records(dataset.read_records([str(saved)]))
    np.testing.assert_array_equal(again["observation"], data["observation"])
    np.testing.assert_array_equal(again["reward"], data["reward"])

    assert main(["dataset", "--records", str(games), "--out", str(tmp_path / "x.npy")]) == 2
    assert main(["dataset", "--out", str(tmp_path / "x.npz")]) == 2
    assert main(["dataset", "--records", str(tmp_path / "none.jsonl"), "--out",
                 str(tmp_path / "x.npz")]) == 2
    assert "no record file" in capsys.readouterr().err
