"""``stichzoo fit <model> <game>``: one table of models, one path, one collector.

- the product's command lists and fits the product's models only, hides the old
  fitter subcommands from its help and sends the lab's fitters to the lab's command -
  without importing the lab;
- the old subcommands say their new spelling (``stichzoo leaf is now: ...``);
- the one config loader merges a mapping given by ``--set`` into the file's, key by
  key, and refuses an unknown key; a model's default config is its folder's, found
  packaged outside a clone;
- the table refuses a second model of a known name, a flag of another model, and
  ``--evaluate`` where the held-out games are a share of the collected ones;
- the one collector plays the seats' specs, watches every decision and refuses a
  table with the wrong number of specs.

Each model's own fit (tiny budgets, determinism, byte-identical files) is tested with
the model: tests/training/test_leaf_value.py, test_future.py, test_tricks.py (the product's),
test_belief.py, test_standing.py (the lab's).
"""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
import yaml

from stichzoo.envs.registry import game_class
from stichzoo.policies.base import Decision
from stichzoo.policies.specs import build_policy
from stichzoo.training import fit
from stichzoo.training.cli import main
from stichzoo.training.fit import Flag, ModelFit, self_play

PRODUCT = ("leaf_value", "tricks_to_come", "bid_model")


def test_the_product_command_shows_the_product_and_points_to_the_lab():
    """In a process of its own, as a user's ``stichzoo`` runs: the lab is not imported."""
    code = """if True:
        import sys
        from stichzoo.training.cli import main
        for argv in (["--help"], ["fit", "--help"], ["fit", "belief", "wizard"]):
            try:
                print("exit", main(argv), flush=True)
            except SystemExit as e:
                print("exit", e.code, flush=True)
        print("lab imported:", any(m.endswith(".lab") for m in sys.modules))
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    top, fit_help = done.stdout.split("exit ")[:2]
    assert "{eval,dataset,play,train,export,serve,ladder,arena,fit}" in top
    for old in ("leaf", "future", "tricks", "belief", "standing"):
        assert f"\n    {old} " not in top
    assert all(name in fit_help for name in PRODUCT)
    assert "belief" not in fit_help and "standing" not in fit_help
    assert done.stdout.count("exit 0") == 2 and "exit 2" in done.stdout
    assert ("stichzoo: error: belief is a lab fitter: python -m stichzoo.training.lab fit "
            "belief wizard") in done.stderr
    assert "lab imported: False" in done.stdout


def test_the_old_fitter_subcommands_name_their_new_spelling(tmp_path, capsys):
    missing = str(tmp_path / "none.yaml")
    for old, new in (("future silberne_ananas", "fit tricks_to_come silberne_ananas"),
                     ("tricks wizard", "fit bid_model wizard")):
        assert main([*old.split(), "--config", missing]) == 2
        err = capsys.readouterr().err
        assert f"stichzoo {old.split()[0]} is now: stichzoo {new}\n" in err
        assert "none.yaml" in err  # and then ran it: the missing config is named
    for old in ("belief", "standing"):
        assert main([old, "hoch_tief", "--data", "x.npz"]) == 2
        assert capsys.readouterr().err == (f"stichzoo: error: {old} is a lab fitter: python -m "
                                           f"stichzoo.training.lab fit {old} hoch_tief\n")
    assert main(["fit", "no_such_model", "wizard"]) == 2
    assert "fit: no model 'no_such_model'; the models: leaf_value" in capsys.readouterr().err


def test_the_config_loader_merges_mappings_and_refuses_unknown_keys(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"game": "hoch_tief", "options": {"num_players": 4,
                                                                     "rounds": 1}}))
    schema = {"game": (str, None), "options": (dict, {}), "seed": (int, 0)}
    cfg = fit.read_config(str(path), {"options": {"rounds": 2}, "seed": 3}, schema, "m")
    assert cfg == {"game": "hoch_tief", "options": {"num_players": 4, "rounds": 2}, "seed": 3}
    assert fit.read_config(str(path), None, schema, "m")["seed"] == 0
    with pytest.raises(ValueError, match="m config: unknown key 'sed'"):
        fit.read_config(str(path), {"sed": 3}, schema, "m")


def test_a_models_default_config_is_its_folders_packaged_outside_a_clone(tmp_path,
                                                                       monkeypatch):
    from stichzoo import configs

    monkeypatch.chdir(tmp_path)
    leaf = fit.MODELS["leaf_value"]
    assert leaf.config_path("hoch_tief") == str(configs.FOLDER / "leaf_value" / "hoch_tief.yaml")
    assert leaf.default_out({"game": "hoch_tief"}) == "runs/leaf_value/hoch_tief.onnx"
    assert fit.MODELS["bid_model"].default_out({}) == "runs/bid_model/wizard"
    with pytest.raises(ValueError, match=r"leaf_value: no config mine\.yaml"):
        leaf.config_path("hoch_tief", "mine.yaml")
    (tmp_path / "mine.yaml").write_text("game: hoch_tief\n")
    assert leaf.config_path("hoch_tief", "mine.yaml") == "mine.yaml"


def test_the_table_refuses_a_second_model_a_strange_flag_and_a_share_evaluated():
    entry = ModelFit("probe", ("wizard",), "probe", "stichzoo.training.fit.leaf_value", "",
                     ".npz", flags=(Flag("data", "collect", "", "FILE"),
                                    Flag("temper", "evaluate", "", "T", float)))
    assert entry.split_flags({"data": "d.npz", "temper": 0.5}) == ({"data": "d.npz"},
                                                                   {"temper": 0.5})
    with pytest.raises(ValueError, match="probe: --depth belongs to another model's fit"):
        entry.split_flags({"depth": 2})
    fit.register(fit.MODELS["leaf_value"])  # the same entry again: one
    with pytest.raises(ValueError, match="a model named 'leaf_value' is registered already"):
        fit.register(ModelFit("leaf_value", ("wizard",), "x", "x", "", ""))
    with pytest.raises(ValueError, match="bid_model: --evaluate measures a saved model"):
        fit.measure("bid_model", {}, "bot/model.onnx")


def _by_hand(game, specs: list[str], seed: int, deal_first: bool) -> tuple[list, object]:
    """The collector's game played out here: the seeds drawn in its order, every seat
    to act noted before its decision."""
    rng = random.Random(seed)
    deal = rng.getrandbits(31) if deal_first else None
    bots = [build_policy(spec, game, seed=rng.getrandbits(31)) for spec in specs]
    s = game.new_game(rng.getrandbits(31) if deal is None else deal, log=True)
    seats = []
    while not s.over:
        seats.append(s.current_player)
        s.step(bots[s.current_player].act(Decision(game, s)))
    return seats, s


@pytest.mark.parametrize("deal_first", [False, True])
def test_the_collector_watches_every_decision_of_the_seats_specs(deal_first):
    cls = game_class("wizard")
    game = cls(cls.Options(num_players=3, rounds=[2]))
    specs = ["random", "heuristic", "random"]
    table = self_play.Table(game, tuple(specs), log=True, deal_first=deal_first)
    (seen, end), = self_play.games(table, 1, 7, watch=lambda s: s.current_player)
    seats, s = _by_hand(game, specs, 7, deal_first)
    assert end.over and seen == seats and end.totals == s.totals and end.log == s.log
    kept = self_play.seeded_games(table, 2, 5, _totals)
    assert kept == [_totals(*self_play.play(table, random.Random(s)))
                    for s in self_play.game_seeds(5, 2)]
    with pytest.raises(ValueError, match="3 seats take 1 or 3 policy specs, not 2"):
        self_play.Table(game, ("random", "random"))


def _totals(seen: list, end) -> list[int]:
    return list(end.totals)
