"""Bots that play stichzoo games, all behind one interface (:mod:`stichzoo.policies.base`).

    from stichzoo.policies import make_policy
    bot = make_policy("heuristic", game, seed=0)   # or "random", "pimc", "ppo", "onnx", "bot"
    action = bot.act(Decision(game, state))

The same names are the policy specs of tournaments, training opponent
pools and the warm-start teacher (``"pimc:worlds=8"``): ``ppo:path=FILE.pt``
is a trained torch policy, ``onnx:path=DIR`` an exported bot folder and
``bot:NAME`` (``bot:wizard``) the bot that ships with stichzoo for a game;
``search`` is the learned search bot, PIMC guided by the game's shipped bot
(``pimc:guide=bot:<game>``; ``search:guide=onnx:path=DIR`` names another).

What lives where: the interface and the specs (``base``, ``specs``, ``hooks``, ``mix``);
each game's own bots - its heuristic, rollout player and ``SearchHooks`` - in
``games/<game>.py``; the search bot for all games in ``search``; the runtimes of trained
artifacts (torch policy files, ONNX bots, the shipped leaf value and tricks to come) in
``runtimes/``; shipped data apart from code: ``bots/`` (bot folders), ``models/`` (models
that are not bots), ``ladder.json``; the bot server in ``serve/``, human play in
``tables/``; levers tried and not shipped in ``lab/`` (not installed).
"""

from __future__ import annotations

from stichzoo.policies.base import Decision, Policy, RandomPolicy
from stichzoo.policies.specs import POLICY_NAMES, game_policy_module, make_policy

__all__ = ["POLICY_NAMES", "Decision", "Policy", "RandomPolicy", "game_policy_module",
           "make_policy"]
