"""Soft targets for expert iteration (trainers/distil.py): the search's values, not its choice."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from stichzoo.policies.search import ActionValue, SearchValues
from stichzoo.training import config as config_mod
from stichzoo.training.trainers.distil import decision_noise, soft_target
from tests.conftest import tiny_config


def _values(rows, chosen: int) -> SearchValues:
    """rows: (action, value, difference_stderr) - value None: not searched."""
    top = next(v for a, v, _ in rows if a == chosen)
    out = []
    for action, value, se in rows:
        if value is None:
            out.append(ActionValue(action, None, None, 0, None, None, "not searched"))
        else:
            out.append(ActionValue(action, value, 1.0, 12, value - top,
                                   0.0 if action == chosen else se))
    return SearchValues(chosen, "the best value", tuple(out))


def test_an_action_one_standard_error_below_the_best_keeps_e_to_the_minus_one():
    values = _values([(0, 5.0, None), (3, 3.0, 2.0), (4, -15.0, 2.0)], chosen=0)
    assert decision_noise(values) == pytest.approx(2.0)
    t = soft_target(values, 6, temperature=1.0)
    assert t.sum() == pytest.approx(1.0)
    assert t[3] / t[0] == pytest.approx(math.exp(-1.0), rel=1e-5)
    assert t[4] / t[0] == pytest.approx(math.exp(-10.0), rel=1e-4)
    assert t[[1, 2, 5]].sum() == 0.0  # not legal: no weight
    hotter = soft_target(values, 6, temperature=2.0)
    assert hotter[3] / hotter[0] == pytest.approx(math.exp(-0.5), rel=1e-5)


def test_the_noise_is_the_root_mean_square_of_the_differences_errors():
    values = _values([(1, 0.0, None), (2, -1.0, 3.0), (5, -2.0, 4.0)], chosen=1)
    assert decision_noise(values) == pytest.approx(math.sqrt((9 + 16) / 2))


def test_choice_forced_moves_and_unsearched_actions_are_one_hot_or_empty():
    values = _values([(0, 1.0, None), (2, 0.0, 1.0), (4, None, None)], chosen=0)
    t = soft_target(values, 5, temperature=1.0)
    assert t[4] == 0.0 and t[0] > t[2] > 0.0
    assert soft_target(values, 5, temperature=0.0).tolist() == [1, 0, 0, 0, 0]
    forced = SearchValues(3, "the only legal action",
                          (ActionValue(3, None, None, 0, None, None, "forced"),))
    assert soft_target(forced, 5, temperature=1.0).tolist() == [0, 0, 0, 1, 0]
    one_world = _values([(0, 1.0, None), (2, 0.0, None)], chosen=0)  # no standard error
    assert soft_target(one_world, 5, temperature=1.0).tolist() == [1, 0, 0, 0, 0]


def test_soft_labels_are_the_same_games_with_the_searchs_values_as_targets():
    """The targets ride along: the same decisions and actions as the choice labels; each
    target is a distribution over legal actions whose largest weight is the search's choice."""
    from stichzoo.training.trainers.labels import teacher_data

    cfg = tiny_config("wizard")
    cfg["options"]["rounds"] = [3]
    cfg = config_mod.validate(cfg)
    plain = teacher_data(cfg, 60, seed=5, games=3, teacher="pimc:worlds=3")
    soft = teacher_data(cfg, 60, seed=5, games=3, teacher="pimc:worlds=3", temperature=1.0)
    for key in plain:
        assert np.array_equal(plain[key], soft[key]), key
    t = soft["target"]
    assert np.allclose(t.sum(1), 1.0)
    assert not (t[~soft["mask"]] > 0).any()
    assert (t.argmax(1) == soft["action"]).all()
    assert (t.max(1) < 1.0).any()  # some decisions the search could not tell apart


def test_behaviour_clone_fits_soft_targets_not_the_choice():
    """One observation, two legal actions, target 0.7 / 0.3: the fitted policy says 0.7, where
    fitting the choice would drive it towards 1."""
    import torch as th

    from stichzoo.training.trainers.ppo import build_network
    from stichzoo.training.trainers.pretrain import behaviour_clone

    cfg = config_mod.validate({**tiny_config("wizard"), "algo": "batch_ppo"})
    game = config_mod.game_of(cfg)
    th.manual_seed(0)
    threads = th.get_num_threads()
    th.set_num_threads(1)
    policy = build_network(cfg, game, "cpu")
    size = policy.observation_space.shape[0]
    n = 64
    mask = np.zeros((n, game.num_actions), bool)
    mask[:, [2, 7]] = True
    target = np.zeros((n, game.num_actions), np.float32)
    target[:, 2], target[:, 7] = 0.7, 0.3
    data = {"obs": np.zeros((n, size), np.float32), "mask": mask,
            "action": np.full(n, 2, np.int64), "return": np.zeros(n, np.float32),
            "target": target}
    try:
        behaviour_clone(policy, data, epochs=60, batch_size=64, lr=0.01, verbose=False)
    finally:
        th.set_num_threads(threads)
    with th.no_grad():
        probs = policy.get_distribution(th.zeros((1, size)),
                                        action_masks=mask[:1]).distribution.probs[0]
    assert float(probs[2]) == pytest.approx(0.7, abs=0.03)
    assert float(probs[7]) == pytest.approx(0.3, abs=0.03)


def test_value_targets_need_a_search_teacher():
    cfg = {**tiny_config("wizard"), "algo": "batch_ppo",
           "expert": {"teacher": "heuristic", "steps": 10, "targets": "values"}}
    with pytest.raises(ValueError, match=r"expert\.targets=values needs a search teacher"):
        config_mod.validate(cfg)
    with pytest.raises(ValueError, match=r"expert\.targets"):
        config_mod.validate({**cfg, "expert": {"targets": "argmax"}})


def _spy_players(monkeypatch, expert) -> list:
    """The ``player`` of every ``search_labels`` call expert iteration makes, in order."""
    players: list = []
    real = expert.search_labels

    def spy(cfg, seed, player=None, steps=None):
        players.append(player)
        return real(cfg, seed, player=player, steps=steps)

    monkeypatch.setattr(expert, "search_labels", spy)
    return players


def test_later_iterations_label_the_learners_own_games(monkeypatch, tmp_path):
    """positions: learner - each iteration's games are the network's as it stands (its saved
    file plays, the teacher labels), and the labels add up."""
    from stichzoo.training.runs import RunPaths
    from stichzoo.training.trainers import expert
    from tests.training.test_batch_ppo import _tiny_batch_config

    cfg = _tiny_batch_config()
    cfg["expert"].update(teacher="pimc:worlds=2", steps=30, workers=1, games=3, epochs=1,
                         iterations=2, positions="learner", targets="improve")
    cfg["eval"].update(every=0, opponents=[])
    cfg = config_mod.validate(cfg)
    game = config_mod.game_of(cfg)
    players = _spy_players(monkeypatch, expert)
    from stichzoo.training.trainers.ppo import build_network

    policy = build_network(cfg, game, "cpu")
    rows = []
    paths = RunPaths(str(tmp_path))
    stats = expert.expert_iteration(policy, cfg, paths, game, False,
                                    lambda *row: rows.append(row))
    assert players[0].endswith("iteration_0.pt") and players[0].startswith("ppo:path=")
    assert players[1].endswith("iteration_1.pt")
    assert stats["samples"] == 60  # aggregated
    tags = {(tag, step) for tag, _, step in rows}
    assert {("expert/before_agreement", 1), ("expert/before_agreement", 2),
            ("expert/before_target_mass", 2), ("expert/accuracy", 2)} <= tags


def test_a_run_starts_from_a_shipped_bots_network():
    """The bot's actor loaded into its own recipe's policy plays exactly as the bot; another
    architecture is refused by name."""
    from stichzoo.training.config import load
    from stichzoo.training.trainers.from_bot import load_bot_actor
    from stichzoo.training.trainers.ppo import build_network

    cfg = load("policies/bots/hoch_tief/config.yaml")
    game = config_mod.game_of(cfg)
    load_bot_actor(build_network(cfg, game, "cpu"), "policies/bots/hoch_tief", game)  # checks play
    cfg["train"]["net_arch"] = [64, 64]
    with pytest.raises(ValueError, match="has no place in this policy"):
        load_bot_actor(build_network(cfg, game, "cpu"), "policies/bots/hoch_tief", game)
    bad = {**tiny_config("wizard"), "algo": "batch_ppo", "expert": {"start": "policies"}}
    with pytest.raises(ValueError, match="is not a bot folder"):
        config_mod.validate(bad)


def test_the_improved_target_keeps_the_networks_preference_among_near_ties():
    """softmax(log pi + advantage / T): ties keep the network's odds, an action measured one
    standard error worse loses e**-1/T of its weight, an action without a value gets none."""
    from stichzoo.training.trainers.distil import NEVER, advantage, improved_targets

    values = _values([(0, 5.0, None), (1, 5.0, 2.0), (2, 3.0, 2.0)], chosen=0)
    adv = advantage(values, 4)
    assert adv.tolist() == [0.0, 0.0, -1.0, NEVER]
    logits = np.log(np.array([[0.5, 0.3, 0.2, 1e-30]]))
    t = improved_targets(logits, adv[None], temperature=1.0)[0]
    want = np.array([0.5, 0.3, 0.2 * math.exp(-1.0), 0.0])
    assert np.allclose(t, want / want.sum(), atol=1e-6)
    assert improved_targets(logits, adv[None], temperature=1e6)[0] == pytest.approx(
        [0.5, 0.3, 0.2, 0.0], abs=1e-5)  # hot: the network's own policy
    forced = SearchValues(3, "the only legal action",
                          (ActionValue(3, None, None, 0, None, None, "forced"),))
    assert advantage(forced, 4).tolist() == [NEVER, NEVER, NEVER, 0.0]


@pytest.mark.parametrize("prior", ["current", "start"])
def test_the_improve_prior_is_the_network_or_the_fixed_start(monkeypatch, tmp_path, prior):
    """prior: current improves the network as it stands; start improves a frozen copy of the
    start every iteration, whose weights never move."""
    import torch as th

    from stichzoo.training.runs import RunPaths
    from stichzoo.training.trainers import expert
    from stichzoo.training.trainers.ppo import build_network
    from tests.training.test_batch_ppo import _tiny_batch_config

    cfg = _tiny_batch_config()
    cfg["expert"].update(teacher="pimc:worlds=2", steps=20, workers=1, games=2, epochs=2,
                         iterations=2, positions="teacher", targets="improve", prior=prior)
    cfg["eval"].update(every=0, opponents=[])
    cfg = config_mod.validate(cfg)
    game = config_mod.game_of(cfg)
    policy = build_network(cfg, game, "cpu")
    start = {k: v.clone() for k, v in policy.state_dict().items()}
    priors = []
    real = expert.masked_logits

    def spy(net, data, chunk=4096):
        priors.append((net, {k: v.clone() for k, v in net.state_dict().items()}))
        return real(net, data, chunk)

    monkeypatch.setattr(expert, "masked_logits", spy)
    expert.expert_iteration(policy, cfg, RunPaths(str(tmp_path)), game, False, lambda *r: None)
    assert len(priors) == 2
    for net, weights in priors:
        assert (net is policy) == (prior == "current")
        if prior == "start":
            assert all(th.equal(weights[k], start[k]) for k in start)
    if prior == "current":  # the second iteration's prior is the network after the first fit
        assert not all(th.equal(priors[1][1][k], start[k]) for k in start)


def test_a_trick_bidding_start_keeps_its_bids(monkeypatch, tmp_path):
    """expert.start: bot:wizard (bids from a trick model) - the learner's games are played,
    and each iteration is exported, as a bot with the start's trick-model bids
    (``expert/iteration_<k>/``, the pipeline's ``start_bids``), not by the policy file's own
    bid head; a start without a trick model plays as its network."""
    from stichzoo.policies.runtimes.onnx_policy import verify_bot
    from stichzoo.training.runs import RunPaths
    from stichzoo.training.trainers import expert
    from stichzoo.training.trainers.from_bot import load_bot_actor
    from stichzoo.training.trainers.pipeline import start_bids
    from stichzoo.training.trainers.ppo import build_network

    cfg = config_mod.load("configs/expert/wizard.yaml")
    cfg["expert"].update(teacher="pimc:worlds=2", steps=20, workers=1, games=1, epochs=1,
                         iterations=1)
    cfg["eval"].update(opponents=[])
    game = config_mod.game_of(cfg)
    players = _spy_players(monkeypatch, expert)
    policy = load_bot_actor(build_network(cfg, game, "cpu"), "policies/bots/wizard", game)
    paths = RunPaths(str(tmp_path))
    expert.expert_iteration(policy, cfg, paths, game, False, lambda *row: None,
                            as_player=start_bids(cfg, policy, game, paths))
    first = str(tmp_path / "expert" / "iteration_0")
    assert players == [f"onnx:path={first}"]
    for k in (0, 1):
        manifest, _, _ = verify_bot(str(tmp_path / "expert" / f"iteration_{k}"))
        assert manifest["provenance"]["expert_iteration"] == k
    plain = {**cfg, "expert": {**cfg["expert"], "start": "bot:hoch_tief"}}
    assert start_bids(plain, policy, game, paths) is None
    assert start_bids({**cfg, "expert": {**cfg["expert"], "start": ""}}, policy, game,
                      paths) is None


def test_phase_labels_teach_one_phase_and_keep_the_prior_elsewhere():
    """expert.phases: the teacher labels only its phases' decisions (a rule bot's label: its
    choice, the one finite advantage); every other decision keeps advantage 0 on each legal
    action - its improve target is the prior's own policy.  The games are the teacher's own,
    exactly as without phases; with a player every label is the move the player made."""
    from stichzoo.training.trainers.distil import NEVER
    from stichzoo.training.trainers.labels import teacher_data

    cfg = tiny_config("wizard")
    cfg["options"]["rounds"] = [3]
    cfg = config_mod.validate(cfg)
    plain = teacher_data(cfg, 80, seed=5, games=3, teacher="heuristic")
    bids = teacher_data(cfg, 80, seed=5, games=3, teacher="heuristic", temperature=1.0,
                        phases=["bid"])
    assert np.array_equal(plain["action"], bids["action"])
    assert np.array_equal(plain["obs"], bids["obs"])
    lab = bids["labelled"]
    assert 0 < lab.sum() < len(lab)
    adv = bids["advantage"]
    rows = np.arange(len(lab))
    assert (adv[rows[lab], bids["action"][lab]] == 0).all()
    assert ((adv[lab] == 0).sum(1) == 1).all() and (adv[lab][adv[lab] != 0] == NEVER).all()
    assert np.array_equal(adv[~lab] == 0, bids["mask"][~lab])
    assert (bids["target"][lab].argmax(1) == bids["action"][lab]).all()
    played = teacher_data(cfg, 80, seed=5, games=3, teacher="heuristic", temperature=1.0,
                          phases=["bid"], player="random")
    assert (played["action"] >= 0).all()
    assert played["mask"][rows, played["action"]].all()  # the move made: legal


def test_expert_phases_are_the_games_own_and_need_improve():
    cfg = {**tiny_config("wizard"), "algo": "batch_ppo",
           "expert": {"teacher": "heuristic", "steps": 10, "targets": "improve",
                      "phases": ["bid"]}}
    assert config_mod.validate(cfg)["expert"]["phases"] == ["bid"]
    with pytest.raises(ValueError, match=r"wizard has no phase 'draft'; its phases are "
                                         r"choose_trump, bid, play"):
        config_mod.validate({**cfg, "expert": {**cfg["expert"], "phases": ["draft"]}})
    with pytest.raises(ValueError, match=r"expert\.phases=\['bid'\] needs expert\.targets: "
                                         r"improve"):
        config_mod.validate({**cfg, "expert": {**cfg["expert"], "targets": "choice"}})
    with pytest.raises(ValueError, match=r"a rule bot may teach targets: improve in named"):
        config_mod.validate({**cfg, "expert": {**cfg["expert"], "phases": []}})


def test_fidelity_counts_the_teachers_decisions_only():
    from stichzoo.training.trainers.expert import fidelity

    class Sure:  # plays action 0 everywhere
        def get_distribution(self, obs, action_masks):
            import torch as th

            probs = th.zeros(len(obs), 3)
            probs[:, 0] = 1.0
            return type("D", (), {"distribution": type("P", (), {"probs": probs})()})()

    data = {"obs": np.zeros((4, 2), np.float32), "mask": np.ones((4, 3), bool),
            "action": np.array([0, 0, 1, 1]), "labelled": np.array([True, True, False, False])}
    assert fidelity(Sure(), data)["agreement"] == 1.0
