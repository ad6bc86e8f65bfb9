"""The learned match standing (issue 29, item 4): its recursion, its search, its training.

- ``StandingValue`` is the match's rules: with every deal's split certain
  the value is the winner of the one match those deals make, played out by
  the rules core; the win shares always sum to one;
- the search with it is honest (a re-deal of what the seat cannot see, a
  fixed seed: the same action) and legal; its spec errors name the problem;
- training is deterministic and independent of the number of workers; it is a lab
  fitter, ``python -m stichzoo.training.lab fit standing silberne_ananas``.
"""

from __future__ import annotations

import json
import random

import pytest
import yaml

from stichzoo.envs.registry import game_class
from stichzoo.policies.lab.standing import (
    StandingValue,
    deal_result,
    load_splits,
    split_of,
    splits,
)
from stichzoo.policies.specs import build_policy
from stichzoo.training import fit
from stichzoo.training.lab import standing as training
from tests.policies.test_search_honesty import honest_states, states


def ananas(**opts):
    cls = game_class("silberne_ananas")
    return cls(cls.Options(**opts))


def certain(split) -> dict:
    return {s: (1.0 if s == split else 0.0) for s in splits()}


def test_deal_result_is_the_rules_cores_scoring():
    """A split counted from the dealer gives the totals the rules core gives (random matches)."""
    for first_dealer in range(3):
        game = ananas(first_dealer=first_dealer)
        rng = random.Random(first_dealer)
        s = game.new_game(first_dealer, log=True)
        while not s.over:
            s.apply(rng.choice(s.legal_actions()))
        totals = (0, 0, 0)
        for rec, scores in zip(s.log, s.deal_scores, strict=True):
            dealer = rec["dealer"]
            after = deal_result(totals, split_of(rec["tricks_won"], dealer), dealer)
            assert list(after) == [t + x for t, x in zip(totals, scores, strict=True)]
            totals = after
        assert list(totals) == list(s.totals)


@pytest.mark.parametrize("split", [(4, 4, 3), (11, 0, 0), (2, 6, 3), (0, 5, 6)])
@pytest.mark.parametrize("first_dealer", [0, 2])
@pytest.mark.parametrize("alone", [False, True])
def test_certain_deals_give_the_rules_winner(split, first_dealer, alone):
    """One split every deal: the match is certain, and its value is the rules' winner."""
    from stichzoo.envs.silberne_ananas.rules import alone_rule, middle_rule

    value = StandingValue(certain(split), 100, first_dealer, alone)
    totals, dealer = (0, 0, 0), first_dealer
    while max(totals) < 100:
        totals, dealer = deal_result(totals, split, dealer), (dealer + 1) % 3
    winners = alone_rule(list(totals), 100) if alone else middle_rule(list(totals))
    want = tuple(1 / len(winners) if s in winners else 0.0 for s in range(3))
    assert value((0, 0, 0), 100) == pytest.approx(want)


def test_win_shares_sum_to_one_and_follow_the_totals():
    probs = training.split_shares([], prior=78.0)  # no deals: the uniform split
    assert sum(probs.values()) == pytest.approx(1.0)
    value = StandingValue(probs, 100)
    for totals in [(0, 0, 0), (43, 30, 56), (95, 60, 80), (99, 98, 4)]:
        v = value(totals, 100)
        assert sum(v) == pytest.approx(1.0)
        assert all(0 <= x <= 1 for x in v)
    # far behind with the leader at the target's door: the low seat rarely ends in the middle
    v = value((99, 98, 4), 100)
    assert v[2] < v[0] and v[2] < v[1]
    with pytest.raises(ValueError, match="target 100"):
        value((0, 0, 0), 120)


def _config(tmp_path, **over):
    cfg = {"game": "silberne_ananas", "train_games": 6, "test_games": 3, "seed": 3,
           "test_seed": 4, "workers": 1, "out": str(tmp_path / "deals.json"), **over}
    path = tmp_path / "standing.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _fit(cfg: dict, out=None) -> dict:
    return fit.run("standing", cfg, None if out is None else str(out), log=lambda *_: None)


def test_training_is_deterministic_for_any_number_of_workers(tmp_path):
    path = _config(tmp_path)
    a = _fit(training.load_config(str(path)), tmp_path / "a.json")
    b = _fit(training.load_config(str(path), {"workers": 2}), tmp_path / "b.json")
    assert a["quality"] == b["quality"] and a["samples"] == b["samples"] >= 6 * 3
    pa, pb = load_splits(tmp_path / "a.json"), load_splits(tmp_path / "b.json")
    assert pa == pb and sum(pa.values()) == pytest.approx(1.0)
    meta = json.loads((tmp_path / "a.json").read_text())["meta"]
    assert meta["config"]["train_games"] == 6
    assert meta["report"] == {"deals": a["samples"], "quality": a["quality"]}
    assert fit.measure("standing", training.load_config(str(path)), str(tmp_path / "a.json"),
                       log=lambda *_: None)["quality"] == a["quality"]
    for bad, match in [({"seed": 4}, "seed of their own"), ({"game": "wizard"}, "silberne_ananas"),
                       ({"options": {"match": False}}, "single deals"),
                       ({"prior": -1}, "at least 0"), ({"games": 3}, "unknown key")]:
        with pytest.raises(ValueError, match=match):
            training.load_config(str(path), bad)


def test_standing_search_is_honest_and_legal(tmp_path):
    path = _config(tmp_path)
    _fit(training.load_config(str(path)))
    game = ananas()
    spec = f"pimc:standing={tmp_path / 'deals.json'},worlds=3"
    found = list(honest_states(game, spec, 5, random.Random(6), states(game, 23, 3, 12)))
    assert len(found) >= 5


def test_standing_spec_errors(tmp_path):
    game = ananas()
    with pytest.raises(ValueError, match="no such deal model"):
        build_policy("pimc:standing=nothing_here", game, seed=0)
    (tmp_path / "bad.json").write_text(json.dumps({"splits": {"4,4,3": 1.0}}))
    with pytest.raises(ValueError, match="every split"):
        build_policy(f"pimc:standing={tmp_path / 'bad.json'}", game, seed=0)
    with pytest.raises(ValueError, match="single deals"):
        build_policy("pimc:standing=silberne_ananas", ananas(match=False), seed=0)
    with pytest.raises(ValueError, match="drop rollout"):
        build_policy("pimc:standing=silberne_ananas,rollout=random", game, seed=0)
    wizard = game_class("wizard")
    with pytest.raises(ValueError, match="has none"):
        build_policy("pimc:standing=silberne_ananas", wizard(wizard.Options(num_players=4)),
                     seed=0)


def test_the_heuristic_steers_by_the_learned_standing_when_asked():
    """``heuristic:standing=silberne_ananas``: the heuristic's taker values come from the learned
    standing (they differ from the estimate's on a match's late standings), its decisions stay
    honest and legal, and single deals, which have no standing, are refused."""
    from stichzoo.envs.silberne_ananas.reading import taker_values
    from stichzoo.policies.lab.standing import StandingValue

    game = ananas()
    learned = build_policy("heuristic:standing=silberne_ananas", game, seed=0)
    plain = build_policy("heuristic", game, seed=0)
    assert isinstance(learned.estimate, StandingValue)
    differ = [taker_values(s, learned.estimate) != taker_values(s, plain.estimate)
              for s in states(game, 29, 40, 12) if max(s.totals) >= 60]  # a late standing
    assert differ and any(differ)
    found = list(honest_states(game, "heuristic:standing=silberne_ananas", 5,
                               random.Random(7), states(game, 31, 3, 12)))
    assert len(found) >= 5
    with pytest.raises(ValueError, match="single deals"):
        build_policy("heuristic:standing=silberne_ananas", ananas(match=False), seed=0)


def test_the_lab_command_writes_the_model(tmp_path, capsys):
    """``python -m stichzoo.training.lab fit standing silberne_ananas``, a process of its
    own (the lab's ``__main__``); the old ``stichzoo standing`` names that command."""
    import subprocess
    import sys

    from stichzoo.training.cli import main

    path = _config(tmp_path)
    out = tmp_path / "cli.json"
    done = subprocess.run([sys.executable, "-m", "stichzoo.training.lab", "fit", "standing",
                           "silberne_ananas", "--config", str(path), "--out", str(out),
                           "--set", "train_games=4", "--quiet"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["meta"]["config"]["train_games"] == 4
    assert main(["fit", "standing", "silberne_ananas", "--config", str(path),
                 "--set", "prior"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err
    assert main(["standing", "silberne_ananas", "--config", str(path)]) == 2
    assert capsys.readouterr().err == ("stichzoo: error: standing is a lab fitter: python -m "
                                       "stichzoo.training.lab fit standing silberne_ananas\n")

