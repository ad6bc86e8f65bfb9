"""The vector envs over the batch engine (training/gym/vector.py, training/gym/vector_sb3.py).

Gymnasium 1.4 has no checker for a ``VectorEnv`` (``gymnasium.utils.env_checker``
checks single envs), so the vector checks here use its vector tools: the spaces
are what ``gymnasium.vector.SyncVectorEnv`` builds from the single-seat view, every
observation lies in them, the infos follow the vector info convention (``_key``
masks), ``RecordEpisodeStatistics`` (which reads ``metadata["autoreset_mode"]``)
counts the same episodes and returns, returned arrays are never reused, and
``data_equivalence`` compares runs for determinism.  The rewards are checked
against the AEC env's credit (``last()``) by replaying the finished games there.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.utils.passive_env_checker import check_action_space, check_observation_space
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers.vector import DictInfoToList, RecordEpisodeStatistics

from stichzoo import envs
from stichzoo.envs import BatchEnv
from stichzoo.envs.core.batch import episode_seed
from stichzoo.envs.core.game import IllegalActionError
from stichzoo.training.gym.single_seat import SingleSeatEnv
from stichzoo.training.gym.vector import SeatChains, SeatVectorEnv

SHORT_WIZARD = {"num_players": 4, "rounds": [1, 2]}


def _masked(envs_, infos) -> np.ndarray:
    """One random legal action per game, by Gymnasium's own masked sampling."""
    return envs_.action_space.sample(mask=tuple(infos["action_mask"].astype(np.int8)))


def _run(vec: SeatVectorEnv, seed: int, steps: int) -> list:
    vec.action_space.seed(seed)
    obs, infos = vec.reset(seed=seed)
    out = [obs, infos]
    for _ in range(steps):
        out.append(vec.step(_masked(vec, infos)))
        infos = out[-1][-1]
    return out


def test_gymnasium_vector_checks():
    vec = SeatVectorEnv("wizard", 3, options=SHORT_WIZARD, opponents=["heuristic", "random"])
    single = SingleSeatEnv("wizard", options=SHORT_WIZARD)
    sync = SyncVectorEnv([lambda: single] * 3)
    assert vec.single_observation_space == sync.single_observation_space
    assert vec.single_action_space == sync.single_action_space
    assert vec.observation_space == sync.observation_space
    assert vec.action_space == sync.action_space
    check_observation_space(vec.single_observation_space)
    check_action_space(vec.single_action_space)
    assert vec.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    stats = RecordEpisodeStatistics(vec)
    obs, infos = stats.reset(seed=1)
    assert obs in vec.observation_space and vec.num_envs == 3
    sums = np.zeros(3)
    episodes = 0
    kept = []
    for _ in range(60):
        before = obs.copy()
        kept.append((obs, before))
        assert set(infos) >= {"action_mask", "_action_mask", "seat", "_seat"}
        assert infos["action_mask"].dtype == bool and infos["_action_mask"].all()
        assert np.array_equal(infos["action_mask"], vec.action_masks())
        obs, rewards, terminated, truncated, infos = stats.step(_masked(vec, infos))
        assert obs in vec.observation_space
        assert rewards.shape == (3,) and terminated.dtype == bool and not truncated.any()
        sums += rewards
        for i in np.flatnonzero(terminated):
            assert infos["_final_obs"][i] and infos["_final_info"][i] and infos["_episode"][i]
            assert infos["final_obs"][i] in vec.single_observation_space
            final = infos["final_info"]
            seat = final["seat"][i]
            # score rewards add up to the learner seat's final total, episode after episode
            assert sums[i] == pytest.approx(final["final_totals"][i][seat])
            assert infos["episode"]["r"][i] == pytest.approx(sums[i])
            assert final["win_share"][i] in (0.0, 1.0) or 0 < final["win_share"][i] < 1
            sums[i] = 0.0
            episodes += 1
        assert not terminated.any() or "final_obs" in infos
    assert episodes >= 6
    # returned arrays are the caller's: later steps never overwrite them
    assert all(np.array_equal(o, b) for o, b in kept)
    stats.close()
    stats.close()  # closing twice is allowed


def test_make_vec_builds_the_vector_env():
    """``gymnasium.make_vec`` on a registered id gives the batch-engine vector env (its
    ``vector_entry_point``); ``vectorization_mode="sync"`` the single-seat views, same spaces."""
    import gymnasium

    import stichzoo  # noqa: F401  (registers the ids)

    vec = gymnasium.make_vec("stichzoo/Wizard-v0", num_envs=3, options=SHORT_WIZARD,
                             opponents=["heuristic"])
    assert isinstance(vec, SeatVectorEnv) and vec.num_envs == 3
    assert vec.spec.id == "stichzoo/Wizard-v0"
    obs, infos = vec.reset(seed=0)
    assert obs in vec.observation_space and infos["action_mask"].shape == (3, 80)
    sync = gymnasium.make_vec("stichzoo/Wizard-v0", num_envs=3, vectorization_mode="sync",
                              options=SHORT_WIZARD)
    assert isinstance(sync, SyncVectorEnv)
    assert sync.observation_space == vec.observation_space
    assert sync.action_space == vec.action_space
    vec.close()
    sync.close()


def test_infos_follow_the_vector_info_convention():
    """Gymnasium's ``DictInfoToList`` (which asserts the ``_key`` masks' shapes) splits the
    infos into one dict per game: every game has its mask and seat, an ended one its last
    view and result."""
    vec = SeatVectorEnv("wizard", 2, options=SHORT_WIZARD, opponents=["heuristic"])
    listed = DictInfoToList(vec)
    _, infos = listed.reset(seed=2)
    assert [sorted(info) for info in infos] == [["action_mask", "seat"]] * 2
    ends = 0
    for _ in range(30):
        masks = np.stack([info["action_mask"] for info in infos])
        _, _, terminated, _, infos = listed.step(_masked(vec, {"action_mask": masks}))
        for i, info in enumerate(infos):
            assert info["action_mask"].shape == (vec.single_action_space.n,)
            assert ("final_obs" in info) == bool(terminated[i])
            if terminated[i]:
                assert sorted(info["final_info"]) == ["final_totals", "seat", "win_share"]
                ends += 1
    assert ends >= 4


def test_same_seed_same_trajectories():
    def run(seed: int) -> list:
        vec = SeatVectorEnv("hoch_tief", 3, options={"num_players": 4},
                            opponents=[{"policy": "heuristic", "weight": 2}, "random"])
        return _run(vec, seed, 40)

    assert data_equivalence(run(3), run(3), exact=True)
    assert not data_equivalence(run(3), run(4))


@pytest.mark.parametrize(("game", "options", "reward", "seat"), [
    ("wizard", SHORT_WIZARD, "score", None),
    ("silberne_ananas", {"num_players": 3}, "standing", 1),
    ("geheimtrumpf", {"num_players": 4}, "win", None),
])
def test_each_learner_seat_gets_what_the_aec_env_credits(game, options, reward, seat):
    """Replay every finished game in the AEC env: the learner's reward at each of its steps is
    ``last()``'s reward at its next decision (or at the game's end), its final observation the
    AEC env's, and the opponents' moves are the game's."""
    n_envs, seed = 3, 5
    vec = SeatVectorEnv(game, n_envs, options=options, opponents=["heuristic"], reward=reward,
                        reward_scale=0.5, seat=seat)
    vec.action_space.seed(0)
    _, infos = vec.reset(seed=seed)
    got: list[list[float]] = [[] for _ in range(n_envs)]
    finished = [0] * n_envs
    checked = 0
    for _ in range(400):
        _, rewards, terminated, truncated, infos = vec.step(_masked(vec, infos))
        for i in range(n_envs):
            got[i].append(float(rewards[i]))
            if terminated[i] or truncated[i]:
                final_state = vec.batch.final_states[i]
                learner = int(infos["final_info"]["seat"][i])
                aec = envs.env_module(game).raw_env(reward=reward, reward_scale=0.5, **options)
                aec.reset(seed=episode_seed(seed, i, finished[i]))
                agent = f"player_{learner}"
                credits = []
                for s, a in final_state.history:
                    if s == learner:
                        credits.append(float(aec._cumulative_rewards[agent]))
                    aec.step(a)
                credits.append(float(aec._cumulative_rewards[agent]))
                # the first decision's credit (earned before it) rides on the first step
                want = [credits[0] + credits[1], *credits[2:]]
                assert got[i] == pytest.approx(want, abs=1e-6)
                assert aec.rules_state.totals == final_state.totals
                want_obs = aec.observe(agent)["observation"]
                assert infos["final_obs"][i].tobytes() == want_obs.tobytes()
                if seat is not None:
                    assert learner == seat
                got[i] = []
                finished[i] += 1
                checked += 1
        if checked >= 6:
            break
    assert checked >= 6


def test_bad_input():
    vec = SeatVectorEnv("wizard", 2, options=SHORT_WIZARD)
    _, infos = vec.reset(seed=0)
    illegal = np.array([int(np.flatnonzero(~m)[0]) for m in infos["action_mask"]])
    before = [s.clone().history for s in vec.batch.states]
    with pytest.raises(IllegalActionError, match="game 0: illegal action"):
        vec.step(illegal)
    assert [s.history for s in vec.batch.states] == before  # nothing was applied
    with pytest.raises(ValueError, match="2 integer action ids"):
        vec.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="one integer"):
        vec.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="seat"):
        SeatVectorEnv("wizard", 2, options=SHORT_WIZARD, seat=4)
    with pytest.raises(ValueError, match="self"):
        SeatVectorEnv("wizard", 2, options=SHORT_WIZARD, opponents=["self"])


def _naive_gae(seats, rewards_by_seat, dones, values, gamma, lam):
    """GAE written out per (game, seat) chain from the raw engine stream, for the check."""
    steps, n_envs = seats.shape
    adv = np.zeros((steps, n_envs))
    valid = np.zeros((steps, n_envs), bool)
    for i in range(n_envs):
        chains: dict[int, list[list]] = {}  # seat -> [t, reward, done] of each decision
        open_: dict[int, list] = {}
        for t in range(steps):
            s = int(seats[t, i])
            entry = [t, 0.0, False, False]  # t, reward, done, complete
            if s in open_:
                open_[s][3] = True
            open_[s] = entry
            chains.setdefault(s, []).append(entry)
            for seat, e in open_.items():
                e[1] += rewards_by_seat[t, i, seat]
            if dones[t, i]:
                for e in open_.values():
                    e[2] = e[3] = True
                open_ = {}
        for chain in chains.values():
            following = 0.0
            for j in range(len(chain) - 1, -1, -1):
                t, r, done, complete = chain[j]
                if not complete:
                    following = 0.0
                    continue
                nxt = chain[j + 1] if j + 1 < len(chain) and not done else None
                delta = r - values[t, i] + (gamma * values[nxt[0], i] if nxt else 0.0)
                carry = gamma * lam * following if nxt and nxt[3] else 0.0
                adv[t, i] = following = delta + carry
                valid[t, i] = True
    return adv, valid


def test_all_seat_chains_credit_each_seat_as_the_aec_env_does():
    """SeatChains: every decision's reward is the AEC env's ``last()`` credit of that seat at
    its next decision (or at the game's end); its GAE is the per-chain GAE written out."""
    game, options, n_envs, seed, steps = "wizard", SHORT_WIZARD, 3, 9, 120
    batch = BatchEnv(game, n_envs, reward_scale=0.1, **options)
    _, _, to_act = batch.reset(seed=seed)
    aecs = [envs.env_module(game).raw_env(reward_scale=0.1, **options) for _ in range(n_envs)]
    for i, e in enumerate(aecs):
        e.reset(seed=episode_seed(seed, i, 0))
    chains = SeatChains(steps, n_envs, batch.num_players)
    rng = np.random.default_rng(4)
    want = np.full((steps, n_envs), np.nan)
    want_done = np.zeros((steps, n_envs), bool)
    opened = np.full((n_envs, batch.num_players), -1)
    raw = np.zeros((steps, n_envs, batch.num_players))
    dones_seen = np.zeros((steps, n_envs), bool)
    for t in range(steps):
        for i, e in enumerate(aecs):  # the AEC credit of this seat's previous decision
            s = int(to_act[i])
            if opened[i, s] >= 0:
                want[opened[i, s], i] = e._cumulative_rewards[f"player_{s}"]
            opened[i, s] = t
        chains.decide(t, to_act)
        actions = batch.sample_legal(rng)
        _obs, _mask, to_act, rewards, dones = batch.step(actions)
        chains.earn(rewards, dones)
        raw[t], dones_seen[t] = rewards, dones
        for i, e in enumerate(aecs):
            e.step(int(actions[i]))
            if dones[i]:
                for s in range(batch.num_players):
                    want[opened[i, s], i] = e._cumulative_rewards[f"player_{s}"]
                    want_done[opened[i, s], i] = True
                opened[i] = -1
                e.reset(seed=episode_seed(seed, i, int(batch.episodes[i])))
    done_rows = dones_seen.any(axis=0)
    assert done_rows.all(), "every game should finish a deal in the rollout"
    known = ~np.isnan(want)
    assert np.allclose(chains.reward[known], want[known])
    assert np.array_equal(~known, chains.pending)
    assert np.array_equal(chains.done, want_done)
    assert ((chains.next >= 0) == (known & ~want_done)).all()
    values = np.random.default_rng(0).normal(size=(steps, n_envs)).astype(np.float32)
    adv, returns, valid = chains.advantages(values, gamma=0.9, lam=0.8)
    ref, ref_valid = _naive_gae(chains.seat, raw, dones_seen, values, 0.9, 0.8)
    assert np.array_equal(valid, ref_valid)
    assert np.allclose(adv[valid], ref[valid], atol=1e-5)
    assert np.allclose(returns[valid], adv[valid] + values[valid])


def test_maskable_ppo_trains_on_the_sb3_face():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from stichzoo.training.gym.vector_sb3 import SeatVecEnv

    venv = SeatVecEnv(SeatVectorEnv("wizard", 4, options=SHORT_WIZARD, opponents=["random"]))
    venv.seed(0)
    obs = venv.reset()
    assert obs.shape == (4, venv.observation_space.shape[0])
    masks = np.stack(venv.env_method("action_masks"))
    assert np.array_equal(masks, venv.action_masks()) and masks.any(axis=1).all()
    assert venv.has_attr("action_masks")
    model = MaskablePPO("MlpPolicy", VecMonitor(venv), n_steps=32, batch_size=64, n_epochs=1,
                        seed=0, device="cpu", policy_kwargs={"net_arch": [32]})
    model.learn(256)  # two rollouts of 4 x 32 learner decisions, two updates
    assert model.num_timesteps == 256
    assert len(model.ep_info_buffer) > 0  # games finished and were counted
    venv.close()


def test_the_gymnasium_face_needs_no_torch():
    code = ("import sys; from stichzoo.training.gym.vector import SeatVectorEnv; "
            "v = SeatVectorEnv('wizard', 2, opponents=['heuristic']); v.reset(seed=0); "
            "assert 'torch' not in sys.modules, 'torch was imported'")
    subprocess.run([sys.executable, "-c", code], check=True)
