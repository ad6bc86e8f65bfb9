"""Recipes state only what differs (``extends:``), and every one resolves as it did.

A variant recipe used to be a copy of its parent with a few values changed;
a fix to the parent then missed the copies.  With ``extends:`` the variant
names its parent and its differences - and this module makes sure the
rewrite changed no value: ``tests/data/recipes_resolved.json`` holds what
every committed config (training recipes and model configs, lab ones
included) resolved to through its own loader before ``extends:`` existed,
and each must still resolve to exactly that, types and key order included
(``1`` is not ``1.0``).  ``python tests/training/test_config_extends.py`` writes the file afresh;
its diff is then the change of behaviour to review.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("yaml")

from stichzoo.training import config as config_mod

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "configs"
SNAPSHOT = Path(__file__).resolve().parents[1] / "data" / "recipes_resolved.json"


def _model_loaders() -> dict[str, Callable[[str], dict]]:
    """Folder name -> the loader of the model configs it holds (the rest are training
    recipes, read by :func:`stichzoo.training.config.load`)."""
    from stichzoo.training.fit import bid_model, leaf_value, tricks_to_come
    from stichzoo.training.lab import belief, standing

    return {"bid_model": bid_model.load_config, "leaf_value": leaf_value.load_config,
            "tricks_to_come": tricks_to_come.load_config, "belief": belief.load_config,
            "standing": standing.load_config}


def recipe_names() -> list[str]:
    """Every committed config, as its path below configs/ (``sb3/wizard.yaml``)."""
    return sorted(p.relative_to(CONFIGS).as_posix() for p in CONFIGS.rglob("*.yaml"))


def resolve(name: str) -> dict:
    """What the config's own loader makes of configs/``name``, defaults filled in."""
    path = CONFIGS / name
    loader = _model_loaders().get(path.parent.name, config_mod.load)
    return loader(str(path))


def canonical(cfg: dict) -> str:
    """One spelling per config: ``1`` and ``1.0`` kept apart, and the keys in their order (a
    run folder's config.yaml keeps that order, so it is part of what a recipe makes)."""
    return json.dumps(cfg)


def write_snapshot() -> None:
    data = {name: resolve(name) for name in recipe_names()}
    SNAPSHOT.parent.mkdir(exist_ok=True)
    SNAPSHOT.write_text(json.dumps(data, indent=1) + "\n")


def test_every_snapshot_is_a_config():
    """A config removed or moved leaves the snapshot too (moved: its entry renamed, values
    untouched), so no stale entry hides a recipe that no longer exists."""
    assert sorted(json.loads(SNAPSHOT.read_text())) == recipe_names()


@pytest.mark.parametrize("name", recipe_names())
def test_recipe_resolves_as_before(name):
    snapshot = json.loads(SNAPSHOT.read_text())
    assert name in snapshot, f"configs/{name} is not in {SNAPSHOT.name}; add what it resolves to"
    assert canonical(resolve(name)) == canonical(snapshot[name])


def test_no_product_config_extends_a_lab_one():
    """The wheel has no configs/lab: a product recipe extending one would not load there."""
    for name in recipe_names():
        if name.startswith("lab/"):
            continue
        for parent in config_mod.parents(str(CONFIGS / name)):
            assert "lab" not in Path(parent).resolve().relative_to(CONFIGS).parts, \
                f"configs/{name} extends the lab's {parent}"


def test_variants_state_only_what_differs():
    """The copies are gone: the variants of issue 67 each name a parent."""
    for name in ("quick/wizard", "batch/silberne_ananas", "sb3/wizard", "sb3/geheimtrumpf",
                 "sb3/silberne_ananas", "sb3/wunder_punkt", "expert/wizard",
                 "expert/geheimtrumpf", "lab/batch/hoch_tief", "lab/hour/geheimtrumpf",
                 "lab/hour/silberne_ananas", "lab/expert/silberne_ananas",
                 "lab/expert/geheimtrumpf_draft", "lab/expert/geheimtrumpf_play",
                 "lab/bid_model/wizard_mixed", "lab/bid_model/wizard_pimc",
                 "lab/bid_model/wizard_refit"):
        assert config_mod.parents(str(CONFIGS / f"{name}.yaml")), name


# -- extends: itself --------------------------------------------------------------------------


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_mappings_merge_key_by_key_lists_and_numbers_replace(tmp_path):
    _write(tmp_path, "base.yaml", "game: wizard\ntrain: {n_envs: 1, net_arch: [64, 64]}\n"
           "opponents: [heuristic, random]\noptions: {num_players: 4}\n")
    child = _write(tmp_path, "sub/child.yaml", "extends: ../base.yaml\n"
                   "train: {net_arch: [32], learning_rate: 1e-4}\nopponents: [heuristic]\n"
                   "options: {rounds: [3]}\n")
    assert config_mod.read(str(child)) == {
        "game": "wizard", "train": {"n_envs": 1, "net_arch": [32], "learning_rate": "1e-4"},
        "opponents": ["heuristic"], "options": {"num_players": 4, "rounds": [3]}}
    cfg = config_mod.load(str(child), ["train.n_envs=2"])  # overrides go over the merged file
    assert cfg["train"]["net_arch"] == [32] and cfg["train"]["n_envs"] == 2
    assert cfg["train"]["learning_rate"] == 1e-4 and cfg["options"]["rounds"] == [3]
    assert config_mod.parents(str(child)) == [str(tmp_path / "base.yaml")]


def test_a_packaged_recipe_by_name_and_a_chain(tmp_path):
    """``extends: wizard`` is configs/wizard.yaml wherever the file lies; a parent may extend."""
    middle = _write(tmp_path, "middle.yaml", "extends: wizard\ntrain: {max_minutes: 5}\n")
    child = _write(tmp_path, "child.yaml", "extends: middle.yaml\nseed: 3\n")
    cfg = config_mod.load(str(child))
    wizard = config_mod.load(str(CONFIGS / "wizard.yaml"), ["train.max_minutes=5", "seed=3"])
    assert cfg == wizard
    assert config_mod.parents(str(child)) == [str(middle), str(CONFIGS / "wizard.yaml")]


def test_strict_checks_apply_to_the_merged_result(tmp_path):
    _write(tmp_path, "base.yaml", "game: wizard\ntrain: {n_envs: 1, epochs: 3}\n")
    child = _write(tmp_path, "child.yaml", "extends: base.yaml\n")
    with pytest.raises(ValueError, match=r"config: unknown key 'train\.epochs'"):
        config_mod.load(str(child))
    _write(tmp_path, "base.yaml", "game: wizard\n")
    _write(tmp_path, "child.yaml", "extends: base.yaml\ntrain: {gamma: 2}\n")
    with pytest.raises(ValueError, match=r"config: train\.gamma=2 is out of range"):
        config_mod.load(str(child))
    _write(tmp_path, "child.yaml", "extend: base.yaml\n")  # a typo is no parent
    with pytest.raises(ValueError, match=r"config: unknown key 'extend'"):
        config_mod.load(str(child))


@pytest.mark.parametrize(("text", "message"), [
    ("extends: nope.yaml\n", r"config file .*child\.yaml: extends: .*nope\.yaml does not exist"),
    ("extends: wizzard\n", r"config file .*child\.yaml: extends: 'wizzard' is no packaged "
                           r"recipe .*; they are: .*sb3/wizard"),
    ("extends: [wizard]\n", r"config file .*child\.yaml: extends: \['wizard'\]; name one config"),
    ("extends: list.yaml\n", r"config file .*child\.yaml: extends: .*list\.yaml must be a "
                             r"mapping of keys"),
    ("extends: broken.yaml\n", r"config file .*child\.yaml: extends: .*broken\.yaml is not "
                               r"valid YAML"),
])
def test_a_bad_parent_is_one_line_naming_the_files(tmp_path, text, message):
    _write(tmp_path, "list.yaml", "- game\n")
    _write(tmp_path, "broken.yaml", "game: [wizard\n")
    child = _write(tmp_path, "child.yaml", text)
    with pytest.raises(ValueError, match=message) as e:
        config_mod.load(str(child))
    assert "\n" not in str(e.value)


def test_a_cycle_names_every_file(tmp_path):
    a = _write(tmp_path, "a.yaml", "extends: b.yaml\ngame: wizard\n")
    b = _write(tmp_path, "b.yaml", "extends: a.yaml\n")
    with pytest.raises(ValueError) as e:
        config_mod.load(str(a))
    assert str(e.value) == f"config file {a}: extends: a cycle, {a} -> {b} -> {a}"
    _write(tmp_path, "self.yaml", "extends: self.yaml\n")
    with pytest.raises(ValueError, match=r"self\.yaml: extends: a cycle, .*self\.yaml -> "):
        config_mod.read(str(tmp_path / "self.yaml"))


def test_model_configs_extend_too(tmp_path):
    """The model fitters' loaders read ``extends:`` the same way (a nested one, a flat one)."""
    from stichzoo.training.fit import bid_model, leaf_value

    child = _write(tmp_path, "bids.yaml", "extends: bid_model/wizard\nseed: 5\n"
                   "collect: {games: 10}\n")
    cfg = bid_model.load_config(str(child))
    parent = bid_model.load_config(str(CONFIGS / "bid_model" / "wizard.yaml"))
    assert cfg["collect"] == {**parent["collect"], "games": 10} and cfg["seed"] == 5
    assert {k: v for k, v in cfg.items() if k not in ("seed", "collect")} == \
        {k: v for k, v in parent.items() if k not in ("seed", "collect")}
    child = _write(tmp_path, "leaf.yaml", "extends: leaf_value/hoch_tief\nseed: 5\n")
    parent = leaf_value.load_config(str(CONFIGS / "leaf_value" / "hoch_tief.yaml"))
    assert leaf_value.load_config(str(child)) == {**parent, "seed": 5}


if __name__ == "__main__":
    sys.exit(write_snapshot())
