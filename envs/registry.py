"""The games by name, and their registration with PettingZoo's registry.

Registration uses entry-point strings, so listing the games imports no
game module; ``pettingzoo.make("aec", "stichzoo/wizard-v0")`` works after
``import stichzoo.envs``.
"""

from __future__ import annotations

import importlib
from importlib import resources

#: game name -> its version, the N of ``<game>_vN``: bumped whenever what a seat
#: observes or the rules change, so that a bot or a record of another version is
#: refused by name (the rules class's ``version`` says the same; a test checks it).
#: Geheimtrumpf v1 and Silberne Ananas v1 added the reading pieces
#: (envs/geheimtrumpf/reading.py, envs/silberne_ananas/reading.py); Geheimtrumpf v2
#: the card draft's (envs/geheimtrumpf/chances.py), v3 the task state in play, v4 the trick reading.
VERSIONS: dict[str, int] = {"wizard": 0, "wunder_punkt": 0, "silberne_ananas": 1,
                            "hoch_tief": 0, "geheimtrumpf": 4}


def env_id(name: str) -> str:
    """``geheimtrumpf`` -> ``geheimtrumpf_v4``: the env module and the id bots record."""
    return f"{name}_v{VERSIONS[name]}"


#: game name -> (env module, rules module:Game class)
GAMES: dict[str, tuple[str, str]] = {
    name: (f"stichzoo.envs.{env_id(name)}", f"stichzoo.envs.{name}.rules:{cls}")
    for name, cls in (("wizard", "WizardGame"), ("wunder_punkt", "WunderPunktGame"),
                      ("silberne_ananas", "SilberneAnanasGame"), ("hoch_tief", "HochTiefGame"),
                      ("geheimtrumpf", "GeheimtrumpfGame"))
}

ENV_IDS = tuple(env_id(name) for name in GAMES)


def _known(name: str) -> str:
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(GAMES)}")
    return name


def game_class(name: str):
    _known(name)
    module, _, attr = GAMES[name][1].partition(":")
    return getattr(importlib.import_module(module), attr)


def default_players(name: str) -> int:
    """A game's usual table: its rules' default player count, where every shipped bot was
    trained and every ladder match and timing is played."""
    return game_class(name).Options().num_players


def env_module(name: str):
    """The PettingZoo-style module (``env``, ``raw_env``) of a game."""
    _known(name)
    return importlib.import_module(GAMES[name][0])


def display_of(name: str):
    """The display facts of a game (``envs/<game>/display.py``'s ``DISPLAY``, a
    :class:`stichzoo.envs.core.display.GameDisplay`): what a frontend shows of it."""
    return importlib.import_module(f"stichzoo.envs.{_known(name)}.display").DISPLAY


def view_of(name: str):
    """A game's player view module (``envs/<game>/view.py``: ``to_view``, ``from_view``,
    its schema): what the server, the tables and the pictures show a seat."""
    return importlib.import_module(f"stichzoo.envs.{_known(name)}.view")


def metrics_of(name: str):
    """A game's metrics module (``envs/<game>/metrics.py``: ``seat_metrics``): what the
    tournaments and the trainers' logs measure besides the score."""
    return importlib.import_module(f"stichzoo.envs.{_known(name)}.metrics")


def rules_of(name: str) -> str:
    """A game's rules for players, in plain words (markdown): ``envs/<game>/rules.md``.

    The one source of the rules a person reads: the web table's rules panel
    (``GET /tables/rules/<game>``), the terminal's ``rules`` command and the
    docs site's environment pages all show this text, so they never differ.
    Read from the installed package (package data), never from a checkout.
    """
    _known(name)
    return resources.files(f"stichzoo.envs.{name}").joinpath("rules.md").read_text("utf-8")


def register_with_pettingzoo() -> None:
    from pettingzoo import aec_registry, register

    for name, (module, _) in GAMES.items():
        registry_id = f"stichzoo/{name}-v{VERSIONS[name]}"
        if registry_id not in aec_registry:
            register("aec", registry_id, entry_point=f"{module}:env")
