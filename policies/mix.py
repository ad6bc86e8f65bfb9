"""One bot per phase: ``mix:play=heuristic,else=bot`` - where does a bot lose?

A bot that loses to the heuristic loses somewhere: in the bids, the draft, the
task choice or the card play.  Swapping one phase's decisions to another bot
and measuring again (duplicate, same deals) tells how much of the gap each
phase holds - ``docs/lab/phase_split.md`` has the table for the shipped networks.
Each key is a phase of the game (``state.phase_name``) or ``else`` (every
other phase; the default is ``heuristic``); each value is a policy spec
without arguments of its own (``heuristic``, ``random``, ``pimc``, ``bot``,
``bot:<game>``).  A mixed bot reads what its parts read, so it is as honest
as they are.
"""

from __future__ import annotations

from stichzoo.policies.base import Decision, Policy, check_phases, decision_phases


class PhaseMix:
    """Asks ``routes[phase]`` (or ``default``) for each decision."""

    def __init__(self, routes: dict[str, Policy], default: Policy, name: str = "mix"):
        self.routes = routes
        self.default = default
        self.name = name

    def act(self, decision: Decision) -> int:
        return self.routes.get(decision.state.phase_name, self.default).act(decision)

    def reseed(self, seed: int) -> None:
        for part in (*self.routes.values(), self.default):
            if hasattr(part, "reseed"):
                part.reseed(seed)


def phase_mix(game, seed: int | None, build, **parts: str) -> PhaseMix:
    """The :class:`PhaseMix` of ``mix:<phase>=<spec>,...,else=<spec>`` for ``game``.

    ``build(spec, seed)`` builds each part (``specs.build_policy``); a phase
    the game does not have, or a part that is not a plain spec, is refused by name.
    """
    try:
        check_phases(game, parts, also="else", meaning="for the rest")
    except ValueError as e:
        raise ValueError(f"mix: {e}") from None
    phases = decision_phases(game)
    if not set(parts) - {"else"}:
        raise ValueError(f"mix: name at least one phase of {game.name} ({', '.join(phases)})")
    for phase, spec in parts.items():
        if not isinstance(spec, str) or "=" in spec or "," in spec:
            raise ValueError(f"mix: {phase}={spec!r}; each part is a spec without arguments "
                             f"(heuristic, random, pimc, bot, bot:<game>)")
    seed = 0 if seed is None else seed
    default = build(parts.get("else", "heuristic"), seed)
    routes = {phase: build(spec, seed) for phase, spec in parts.items() if phase != "else"}
    return PhaseMix(routes, default)
