"""The trainer's speed changes keep its function: the sparse first layers are the dense
network, and rule-bot tables keep the Python core (training/trainers/ppo.py)."""
import pytest
import torch as th

from stichzoo.training import config as config_mod
from stichzoo.training.trainers import ppo


def _wizard_network():
    cfg = config_mod.validate({"game": "wizard", "algo": "batch_ppo",
                               "options": {"num_players": 4}})
    th.manual_seed(0)
    return ppo.build_network(cfg, config_mod.game_of(cfg)), cfg


def test_the_sparse_first_layers_are_the_dense_network():
    """The update's and the rollout's forward from the nonzero inputs (embedding_bag) is
    the policy's own forward, to rounding, and so are its gradients."""
    from stichzoo.envs import BatchEnv

    policy, cfg = _wizard_network()
    engine = BatchEnv("wizard", 64, **cfg["options"])
    obs, _, _ = engine.reset(seed=1)
    sparse = ppo._SparseTrunks.of(policy, None)
    assert sparse is not None
    logits, values = ppo.logits_values(policy, th.as_tensor(obs))
    s_logits, s_values = sparse(*(th.as_tensor(x) for x in ppo._SparseTrunks.rows(obs)))
    assert th.allclose(logits, s_logits, atol=1e-5) and th.allclose(values, s_values, atol=1e-5)
    (logits.square().sum() + values.sum()).backward()
    dense = [p.grad.clone() for p in policy.parameters()]
    policy.zero_grad()
    (s_logits.square().sum() + s_values.sum()).backward()
    for a, p in zip(dense, policy.parameters()):
        assert th.allclose(a, p.grad, rtol=1e-4, atol=1e-6)
    frozen = ppo._SparseTrunks.of(policy, None).frozen()
    with th.no_grad():
        f_logits, _ = frozen(*(th.as_tensor(x) for x in ppo._SparseTrunks.rows(obs)))
    assert th.allclose(f_logits, s_logits)


@pytest.mark.parametrize("opponents, core", [
    ([{"policy": "learner", "weight": 1}, {"policy": "heuristic", "weight": 3}], "python"),
    ([{"policy": "learner", "weight": 1}, {"policy": "self", "weight": 1}], "auto"),
])
def test_rule_bot_seats_keep_the_python_core(tmp_path, monkeypatch, opponents, core):
    """Rule bots act on rules states: a table with them must not run on the kernel, which
    replays each game to rebuild its state whenever a bot asks (the trainer once chose the
    core from the league's actors before any was built: 5x slower)."""
    import stichzoo.envs as envs

    made = []
    real = envs.BatchEnv

    def spy(*args, **kwargs):
        made.append(kwargs.get("core"))
        return real(*args, **kwargs)

    monkeypatch.setattr(envs, "BatchEnv", spy)
    cfg = config_mod.validate({"game": "wizard", "algo": "batch_ppo", "opponents": opponents,
                               "options": {"num_players": 4, "rounds": [1]},
                               "batch": {"games": 4, "rollout_steps": 4},
                               "train": {"total_timesteps": 8, "checkpoint_every": 10**6},
                               "eval": {"every": 0}})
    run = ppo.open_run(cfg, str(tmp_path / "run"))
    ppo.train_ppo(run, progress_bar=False, verbose=False)
    assert made == [core]
