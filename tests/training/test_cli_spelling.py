"""One spelling across the subcommands: lists after their flag, overrides as KEY=VALUE.

The older spellings (commas, a repeated flag) keep working, so users' scripts
do not break; a bare game name trains the packaged recipe.
"""

from __future__ import annotations

import pytest

from stichzoo import __version__, configs, envs
from stichzoo.training.cli import build_parser, config_file, main


def _parse(*argv: str):
    return build_parser().parse_args(list(argv))


@pytest.mark.parametrize(("argv", "dest", "items"), [
    (["eval", "wizard", "--policies", "pimc:worlds=8,rollouts=2", "random"], "policies",
     ["pimc:worlds=8,rollouts=2", "random"]),
    (["eval", "wizard", "--policies", "heuristic,random"], "policies", ["heuristic", "random"]),
    (["eval", "wizard", "--lineup", "a", "b", "c", "d"], "lineup", ["a", "b", "c", "d"]),
    (["eval", "wizard", "--lineup", "a,b,c,d"], "lineup", ["a", "b", "c", "d"]),
    (["play", "wizard", "--opponents", "heuristic", "pimc"], "opponents", ["heuristic", "pimc"]),
    (["play", "wizard", "--opponents", "heuristic,pimc:worlds=4,rollouts=1"], "opponents",
     ["heuristic", "pimc:worlds=4,rollouts=1"]),
    (["serve", "--levels", "random", "pimc:worlds=24"], "levels", ["random", "pimc:worlds=24"]),
    (["serve", "--levels"], "levels", []),
    (["serve", "--cors-origin", "http://a", "http://b"], "cors_origin", ["http://a", "http://b"]),
    (["serve", "--cors-origin", "http://a", "--cors-origin", "http://b"], "cors_origin",
     ["http://a", "http://b"]),
    (["ladder", "--games", "wizard", "hoch_tief"], "games", ["wizard", "hoch_tief"]),
    (["ladder", "--games", "wizard,hoch_tief"], "games", ["wizard", "hoch_tief"]),
    (["ladder", "--only", "search_vs_pimc"], "only", ["search_vs_pimc"]),
])
def test_lists_space_separated_and_the_older_spellings(argv, dest, items):
    assert getattr(_parse(*argv), dest) == items


def test_a_list_flag_replaces_its_default():
    assert _parse("eval", "wizard").policies == ["heuristic", "random"]
    assert _parse("eval", "wizard", "--policies", "pimc").policies == ["pimc"]
    assert _parse("play", "wizard", "--opponents", "random").opponents == ["random"]


def test_choices_are_checked_after_the_split(capsys):
    with pytest.raises(SystemExit) as e:
        _parse("ladder", "--games", "wizard,nope")
    assert e.value.code == 2
    assert "argument --games: invalid choice: 'nope'" in capsys.readouterr().err


def test_train_option_is_set_options(tmp_path, monkeypatch, capsys):
    """``--option KEY=VALUE`` means a game option in train as in eval and play."""
    monkeypatch.chdir(tmp_path)
    assert main(["train", "wizard", "--option", "num_players=9"]) == 2
    via_option = capsys.readouterr().err
    assert main(["train", "wizard", "--set", "options.num_players=9"]) == 2
    assert capsys.readouterr().err == via_option and "num_players" in via_option
    assert not (tmp_path / "runs").exists()


def test_a_game_name_is_its_packaged_recipe(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no configs/ folder here
    for game in envs.GAMES:
        assert config_file(game) == str(configs.FOLDER / f"{game}.yaml")
    assert config_file("sb3/wizard") == str(configs.FOLDER / "sb3" / "wizard.yaml")
    assert config_file("configs/quick/wizard.yaml") == str(configs.FOLDER / "quick/wizard.yaml")
    (tmp_path / "wizard").write_text("game: hoch_tief\n")  # a file of that name comes first
    assert config_file("wizard") == "wizard"
    assert configs.recipe("../pyproject") is None and configs.recipe("/etc/passwd") is None
    assert set(envs.GAMES) <= set(configs.recipes())


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        _parse("--version")
    out = capsys.readouterr().out
    assert e.value.code == 0 and out.startswith(f"stichzoo {__version__}\nrules core: ")
