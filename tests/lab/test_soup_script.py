"""scripts/probes/soup.py: the parameter-wise mean of policy files, playable like any policy."""

from __future__ import annotations

import pytest

from stichzoo.training import config as config_mod
from tests.conftest import tiny_config
from tests.helpers import load_script


def _policy_file(tmp_path, name: str, seed: int, arch=(32, 32)) -> str:
    import torch as th

    from stichzoo.policies.runtimes.torch_policy import save_policy
    from stichzoo.training.trainers.ppo import build_network

    cfg = config_mod.validate({**tiny_config("wizard"), "algo": "batch_ppo"})
    cfg["train"]["net_arch"] = list(arch)
    game = config_mod.game_of(cfg)
    th.manual_seed(seed)
    path = str(tmp_path / f"{name}.pt")
    save_policy(build_network(cfg, game, "cpu"), game, path)
    return path


def test_the_soup_is_the_mean_and_plays(tmp_path):
    """Each weight is the mean of the inputs' (a soup of one network twice is that network),
    and the file loads and acts as ``ppo:path=``."""
    import torch as th

    from stichzoo.policies.base import Decision
    from stichzoo.policies.specs import build_policy

    script = load_script("scripts/probes/soup.py")
    a, b = _policy_file(tmp_path, "a", 1), _policy_file(tmp_path, "b", 2)
    out = str(tmp_path / "soup" / "policy.pt")
    script.main([a, b, "--out", out])
    wa, wb, ws = (th.load(p, weights_only=False)["state_dict"] for p in (a, b, out))
    assert set(ws) == set(wa)
    for k in wa:
        assert th.allclose(ws[k], (wa[k] + wb[k]) / 2, atol=1e-7)
    assert not th.equal(wa[next(iter(wa))], wb[next(iter(wb))])
    twice = script.soup([a, a])["state_dict"]
    assert all(th.equal(twice[k], wa[k]) for k in wa)
    game = config_mod.game_of(config_mod.validate({**tiny_config("wizard"), "algo": "batch_ppo"}))
    policy = build_policy(f"ppo:path={out}", game, seed=0)
    state = game.new_game(0)
    assert policy.act(Decision(game, state)) in Decision(game, state).legal_actions


def test_networks_of_other_shapes_are_refused(tmp_path):
    script = load_script("scripts/probes/soup.py")
    a, b = _policy_file(tmp_path, "a", 1), _policy_file(tmp_path, "b", 1, arch=(16, 16))
    with pytest.raises(SystemExit, match="not the network of"):
        script.soup([a, b])
    with pytest.raises(SystemExit):
        script.main([a, "--out", str(tmp_path / "x.pt")])
