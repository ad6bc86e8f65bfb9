"""The lab wing of policies: levers tried for strength that no shipped bot, ladder rung, bot
level or documented command uses.

No module outside a lab folder imports this package (tests/test_imports.py), and the wheel
does not install it: the product stays what was measured to help.  Importing it registers
the lab's spec options with the product's builders (:func:`stichzoo.policies.specs.
register_option`), so ``python -m stichzoo.training.lab eval ...`` (or a probe that imports
this package) can still run every lever whose figure is on the lab page
(``docs/lab/index.md``):

- ``pimc:belief=<model>[,temper=t]``: worlds drawn from a learned belief model (belief.py);
- ``pimc:policy=<strength>[,candidates=c,plays=p]``: worlds weighted by the shipped network's
  probabilities of what the other seats did (Wizard; policy_inference.py);
- ``pimc:infer=<strength>``: worlds kept by how well they explain the bids (Wizard;
  bid_inference.py);
- ``pimc:standing=<model>`` and ``heuristic:standing=<model>``: a learned match standing in
  place of the estimate (Silberne Ananas; standing.py).
"""

from __future__ import annotations

from typing import Any

from stichzoo.policies.specs import register_option


def _world_sampler(game, seed: int | None, kwargs: dict[str, Any]) -> None:
    """``infer=``, ``belief=`` (``temper=``) and ``policy=`` (``candidates=``, ``plays=``):
    at most one way of weighting PIMC's worlds, turned into PIMC's ``infer`` argument."""
    infer = kwargs.pop("infer", 0)
    belief = kwargs.pop("belief", None)
    by_policy = kwargs.pop("policy", None)
    candidates = kwargs.pop("candidates", None)
    plays = kwargs.pop("plays", None)
    if (candidates is not None or plays is not None) and by_policy is None:
        raise ValueError("pimc: candidates= and plays= belong to the policy inference "
                         "(pimc:policy=0.5,candidates=36)")
    temper = kwargs.pop("temper", None)
    if temper is not None and belief is None:
        raise ValueError("pimc: temper= softens a belief model (pimc:belief=wizard,temper=0.5)")
    if by_policy is not None:  # pimc:policy=0.5 - worlds weighted by the shipped network
        if infer or belief is not None:
            raise ValueError("pimc: choose one of infer=, belief= and policy=")
        if game.name != "wizard":
            raise ValueError(f"pimc: {game.name} has no policy inference (policy=) yet")
        from stichzoo.policies.lab.policy_inference import PolicyInference

        kwargs["infer"] = PolicyInference(game, by_policy, candidates,
                                          0 if plays is None else plays)
    elif belief is not None:  # pimc:belief=wizard - worlds drawn from a learned belief model
        if infer:
            raise ValueError("pimc: choose infer= or belief=, not both")
        from stichzoo.policies.lab.belief import BeliefInference

        kwargs["infer"] = BeliefInference.of(game, str(belief),
                                             1.0 if temper is None else float(temper))
    elif infer:  # pimc:infer=1 - worlds kept by what the other seats bid
        if game.name != "wizard":
            raise ValueError(f"pimc: {game.name} has no inference (infer=) yet")
        from stichzoo.policies.lab.bid_inference import inference

        kwargs["infer"] = inference(game, float(infer))


def _pimc_standing(game, seed: int | None, kwargs: dict[str, Any]) -> None:
    """``pimc:standing=<model>``: the rollout player and the value with a learned standing."""
    which = kwargs.pop("standing")
    if game.name != "silberne_ananas":
        raise ValueError(f"pimc: standing= is a learned match standing; {game.name} "
                         f"has none (Silberne Ananas has)")
    if "rollout" in kwargs:
        raise ValueError("pimc: standing= brings its own rollout player (the game's, "
                         "steering by the learned standing); drop rollout=")
    from stichzoo.policies.lab.standing import standing_hooks

    kwargs["rollout"], kwargs["value"] = standing_hooks(game, seed, str(which))


def _heuristic_standing(game, seed: int | None, kwargs: dict[str, Any]) -> None:
    """``heuristic:standing=<model>``: Silberne Ananas' heuristic steering by a learned
    standing (its ``estimate`` argument)."""
    which = kwargs.pop("standing")
    if game.name != "silberne_ananas":
        raise ValueError(f"heuristic: standing= is a learned match standing; {game.name} "
                         f"has none (Silberne Ananas has)")
    from stichzoo.policies.lab.standing import estimate_of

    kwargs["estimate"] = estimate_of(game, str(which))


def _pimc_endgame(game, seed: int | None, kwargs: dict[str, Any]) -> None:
    """``pimc:endgame=K``: from K cards a hand each sampled world is solved exactly (the
    game's ``SearchHooks.endgame``: max^n, in the kernel where it has one) in place of its
    play-out - measured level with the play-outs at equal think time (docs/lab/endgame.md)."""
    from stichzoo.policies.specs import search_hooks

    hooks = search_hooks(game.name)
    if kwargs["endgame"] and hooks.endgame is None:
        raise ValueError(f"pimc: endgame={kwargs['endgame']!r}; {game.name} has no exact "
                         f"endgame")
    kwargs["solver"], kwargs["endgame_phases"] = hooks.endgame, hooks.endgame_phases


register_option("pimc", ("endgame",), _pimc_endgame)
register_option("pimc", ("infer", "belief", "temper", "policy", "candidates", "plays"),
                _world_sampler)
register_option("pimc", ("standing",), _pimc_standing)
register_option("heuristic", ("standing",), _heuristic_standing)
