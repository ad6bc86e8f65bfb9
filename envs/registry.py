"""The games by name, and their registration with PettingZoo's registry.

Registration uses entry-point strings, so listing the games imports no
game module; ``pettingzoo.make("aec", "stichzoo/wizard-v0")`` works after
``import stichzoo.envs``.
"""

from __future__ import annotations

import importlib
from importlib import resources

#: game name -> (env module, rules module:Game class)
GAMES: dict[str, tuple[str, str]] = {
    "wizard": ("stichzoo.envs.wizard_v0", "stichzoo.envs.wizard.rules:WizardGame"),
    "wunder_punkt": ("stichzoo.envs.wunder_punkt_v0",
                     "stichzoo.envs.wunder_punkt.rules:WunderPunktGame"),
    "silberne_ananas": ("stichzoo.envs.silberne_ananas_v0",
                        "stichzoo.envs.silberne_ananas.rules:SilberneAnanasGame"),
    "hoch_tief": ("stichzoo.envs.hoch_tief_v0", "stichzoo.envs.hoch_tief.rules:HochTiefGame"),
    "geheimtrumpf": ("stichzoo.envs.geheimtrumpf_v0",
                     "stichzoo.envs.geheimtrumpf.rules:GeheimtrumpfGame"),
}

ENV_IDS = tuple(f"{name}_v0" for name in GAMES)


def game_class(name: str):
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(GAMES)}")
    module, _, attr = GAMES[name][1].partition(":")
    return getattr(importlib.import_module(module), attr)


def env_module(name: str):
    """The PettingZoo-style module (``env``, ``raw_env``) of a game."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(GAMES)}")
    return importlib.import_module(GAMES[name][0])


def display_of(name: str):
    """The display facts of a game (``envs/<game>/display.py``'s ``DISPLAY``, a
    :class:`stichzoo.envs.core.display.GameDisplay`): what a frontend shows of it."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(GAMES)}")
    return importlib.import_module(f"stichzoo.envs.{name}.display").DISPLAY


def rules_of(name: str) -> str:
    """A game's rules for players, in plain words (markdown): ``envs/<game>/rules.md``.

    The one source of the rules a person reads: the web table's rules panel
    (``GET /tables/rules/<game>``), the terminal's ``rules`` command and the
    docs site's environment pages all show this text, so they never differ.
    Read from the installed package (package data), never from a checkout.
    """
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(GAMES)}")
    return resources.files(f"stichzoo.envs.{name}").joinpath("rules.md").read_text("utf-8")


def register_with_pettingzoo() -> None:
    from pettingzoo import aec_registry, register

    for name, (module, _) in GAMES.items():
        env_id = f"stichzoo/{name}-v0"
        if env_id not in aec_registry:
            register("aec", env_id, entry_point=f"{module}:env")
