"""Difficulty levels of the bot server, and the measured strength behind each.

A frontend picks an opponent by level: ``easy``, ``medium`` or ``hard``.
The levels are relative to the game's heuristic, which is ``medium`` by
definition: a bot measurably weaker than it is ``easy``, one measurably
stronger ``hard``, one whose 95% interval does not separate it from the
heuristic ``medium``.  The rule bots serve every game from the player view
alone, named ``<game>-<kind>`` (``wizard-random``, ``wizard-heuristic``,
``wizard-pimc``); the trained bots keep their folder's name (``wizard``).

The figures are measured, never guessed: for the rule bots they are the
baseline tables of docs/evaluation.md (``bash scripts/figures/baselines.sh 400 200``,
duplicate tournaments, seeds 1 and 2), copied here so that the server need not run a
tournament; for a trained bot they come from its manifest
(``provenance.evaluation``, the run's final evaluation).
"""

from __future__ import annotations

import json
import os
from typing import Any

#: the policy kinds served for every game, and their level
KIND_LEVELS = {"random": "easy", "heuristic": "medium", "pimc": "hard", "search": "hard"}
DEFAULT_LEVELS = ("random", "heuristic", "pimc", "search")
#: the ladder's measured matches (training/evaluation/ladder.py writes it): the learned
#: search's strength
LADDER_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "ladder.json")

BASELINE_SOURCE = ("docs/evaluation.md, baseline tournaments: "
                   "bash scripts/figures/baselines.sh 400 200 "
                   "(duplicate, seeds 1 and 2; pimc at its default budget)")

# (players, games, score difference (mean, lo, hi), win-rate difference (mean, lo, hi))
_Row = tuple[int, int, tuple[float, float, float], tuple[float, float, float]]
#: game -> (heuristic vs random, pimc vs heuristic), as in docs/evaluation.md
BASELINES: dict[str, tuple[_Row, _Row]] = {
    "wizard": ((4, 400, (592.33, 581.38, 603.29), (1.000, 0.926, 1.000)),
               (4, 200, (113.12, 95.01, 131.22), (0.473, 0.372, 0.575))),
    "wunder_punkt": ((4, 400, (73.57, 70.87, 76.26), (0.920, 0.887, 0.953)),
                     (4, 200, (59.20, 53.29, 65.11), (0.637, 0.533, 0.740))),
    "silberne_ananas": ((3, 402, (0.90, -0.36, 2.17), (0.496, 0.422, 0.570)),
                        (3, 201, (-2.14, -4.36, 0.08), (0.231, 0.139, 0.324))),
    "hoch_tief": ((4, 400, (29.11, 26.41, 31.81), (0.447, 0.386, 0.508)),
                  (4, 200, (21.41, 17.92, 24.89), (0.320, 0.238, 0.402))),  # 36 worlds
    "geheimtrumpf": ((4, 400, (2.09, 1.97, 2.21), (0.762, 0.713, 0.811)),
                     (4, 200, (1.96, 1.83, 2.09), (0.759, 0.690, 0.828))),
}


def _interval(t) -> dict[str, float]:
    return {"mean": float(t[0]), "lo": float(t[1]), "hi": float(t[2])}


def _match(opponent: str, row: _Row) -> dict[str, Any]:
    players, games, score, win = row
    return {"opponent": opponent, "players": players, "games": games,
            "score_difference": _interval(score), "win_rate_difference": _interval(win),
            "win_rate": None, "source": BASELINE_SOURCE}


def rule_strength(game: str, kind: str, measured: bool = True) -> list[dict[str, Any]]:
    """The measured matches of a rule bot (docs/evaluation.md): the bot in one seat, the
    opponent in all others.

    ``random`` is the floor every other bot is measured against, so it has
    no match of its own; a ``pimc`` with another budget than the default was
    not measured (``measured=False``).
    """
    if kind == "search":
        if not measured:
            return []
        # the target match (400+ games) where measured, else the ladder's 100-game rung
        return ladder_strength(game, "search_target") or ladder_strength(game, "search_vs_pimc")
    if not measured or kind == "random" or game not in BASELINES:
        return []
    versus_random, versus_heuristic = BASELINES[game]
    if kind == "heuristic":
        return [_match("random", versus_random)]
    return [_match("heuristic", versus_heuristic)]


def ladder_strength(game: str, key: str) -> list[dict[str, Any]]:
    """A match the ladder measured (``policies/ladder.json``), in the rule bots' shape."""
    try:
        with open(LADDER_FILE) as f:
            entry = json.load(f)["games"][game][key]
    except (OSError, KeyError, ValueError):
        return []
    return [{"opponent": entry["opponent"], "players": None, "games": entry["games"],
             "score_difference": _maybe_interval(entry.get("score_difference")),
             "win_rate_difference": _maybe_interval(entry.get("win_rate_difference")),
             "win_rate": None, "source": f"policies/ladder.json: {entry['command']}"}]


def trained_strength(manifest: dict) -> list[dict[str, Any]]:
    """A trained bot's final evaluation from its manifest, in the same shape as the rule bots'."""
    evaluation = manifest.get("provenance", {}).get("evaluation", {})
    out = []
    for key, ev in sorted(evaluation.items()) if isinstance(evaluation, dict) else []:
        if not (isinstance(ev, dict) and key.startswith("vs_")):
            continue
        out.append({"opponent": key[3:], "players": manifest.get("num_players"),
                    "games": ev.get("games"),
                    "score_difference": _maybe_interval(ev.get("score_difference")),
                    "win_rate_difference": _maybe_interval(ev.get("win_rate_difference")),
                    "win_rate": _maybe_interval(ev.get("win_rate")),
                    "source": "manifest.json provenance.evaluation (the run's final evaluation)"})
    return out


def _maybe_interval(d: Any) -> dict[str, float] | None:
    keys = ("mean", "lo", "hi")
    if isinstance(d, dict) and all(isinstance(d.get(k), (int, float)) for k in keys):
        return _interval((d["mean"], d["lo"], d["hi"]))
    return None


def trained_level(strength: list[dict[str, Any]], num_players: int | None) -> str | None:
    """easy / medium / hard from the bot's games against the heuristic; None if it has none.

    Seated with heuristics only, an equal bot wins its fair share ``1/n``; the
    win-rate difference (when measured) or the bot's own win rate against
    that share decides, as the level rule above says.
    """
    match = next((m for m in strength if m["opponent"] == "heuristic"), None)
    if match is None:
        return None
    if match["win_rate_difference"] is not None:
        lo, hi, par = match["win_rate_difference"]["lo"], match["win_rate_difference"]["hi"], 0.0
    elif match["win_rate"] is not None and num_players:
        lo, hi, par = match["win_rate"]["lo"], match["win_rate"]["hi"], 1.0 / num_players
    else:
        return None
    if hi < par:
        return "easy"
    if lo > par:
        return "hard"
    return "medium"
