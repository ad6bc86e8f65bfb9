"""The duplicate tournament runner: lineups, statistics, reproducibility, outputs, CLI errors."""

from __future__ import annotations

import json

import pytest

from stichzoo import envs
from stichzoo.policies.specs import parse_policy_spec
from stichzoo.training.cli import main as cli_main
from stichzoo.training.evaluation.report import format_report, write_outputs
from stichzoo.training.evaluation.stats import (
    deal_means,
    duplicate_ratings,
    mean_ci,
    openskill_ratings,
    paired_test,
    wilson_interval,
)
from stichzoo.training.evaluation.tournament import (
    TournamentConfig,
    default_lineup,
    run_tournament,
    seat_assignments,
    summarise,
)


def test_default_lineup_and_assignments():
    assert default_lineup(["a", "b"], 4) == ["a", "b", "b", "b"]
    assert default_lineup(["a", "b", "c"], 3) == ["a", "b", "c"]
    assert default_lineup(["a"], 3) == ["a", "a", "a"]
    assert len(seat_assignments(["a", "b", "b", "b"])) == 4  # a in every seat
    assert len(seat_assignments(["a", "b", "c"])) == 6  # every permutation
    six = seat_assignments(list("abcdef"))  # 720 permutations: rotations instead
    assert len(six) == 6 and all(sorted(a) == list("abcdef") for a in six)
    for seat in range(6):
        assert {a[seat] for a in six} == set("abcdef")
    with pytest.raises(ValueError, match="3 policies for 2 seats"):
        default_lineup(["a", "b", "c"], 2)


def test_policy_specs():
    assert parse_policy_spec("pimc:worlds=8,horizon=game") == ("pimc", {"worlds": 8,
                                                                        "horizon": "game"})
    with pytest.raises(ValueError, match="unknown policy 'alphago'"):
        parse_policy_spec("alphago")
    with pytest.raises(ValueError, match="key=value"):
        parse_policy_spec("pimc:worlds")
    assert parse_policy_spec("bot:wizard") == ("bot", {"of": "wizard"})
    assert parse_policy_spec("onnx:path=policies/bots/wizard") == (
        "onnx", {"path": "policies/bots/wizard"})


def test_exported_bots_are_policy_specs():
    """The shipped bots and any exported bot folder play in tournaments like any policy."""
    cfg = TournamentConfig("wizard", 4, ["bot:wizard", "onnx:path=policies/bots/wizard",
                                         "heuristic", "random"], deals=1, seed=5, workers=1)
    report = run_tournament(cfg, progress=False)
    assert report["games"] == 24 and set(report["policies"]) == set(cfg.lineup)
    with pytest.raises(ValueError, match="is a folder, not a policy file; try onnx:path="):
        TournamentConfig("wizard", 4, ["ppo:path=policies/bots/wizard"] + ["random"] * 3,
                         deals=1)
    with pytest.raises(ValueError, match="no shipped bot for 'chess'"):
        TournamentConfig("wizard", 4, ["bot:chess"] + ["random"] * 3, deals=1)
    with pytest.raises(ValueError, match="trained for 4 players, the table has 3"):
        TournamentConfig("wizard", 3, ["bot:wizard"] + ["random"] * 2, deals=1)
    with pytest.raises(ValueError, match="not a bot folder"):
        TournamentConfig("wizard", 4, ["onnx:path=nowhere"] + ["random"] * 3, deals=1)


def test_exported_bot_as_training_opponent():
    from stichzoo.training.gym.single_seat import SingleSeatEnv

    env = SingleSeatEnv("hoch_tief", options={"num_players": 4}, opponents=["bot:hoch_tief"])
    env.reset(seed=3)
    assert {type(b).__name__ for b in env._opponents.values()} == {"OnnxPolicy"}


def test_statistics():
    values = [float(i % 5) for i in range(25)]
    ci = mean_ci(values)
    assert ci["mean"] == 2.0 and ci["method"] == "t"
    # t(0.975, 24) = 2.0639; sd = 1.4434 (0..4 five times); half = t * sd / 5
    assert ci["hi"] - ci["mean"] == pytest.approx(2.063899 * 1.4433757 / 5, rel=1e-4)
    test = paired_test([1.0, 1.2, 0.8, 1.1, 0.9] * 5)
    assert test["lo"] > 0 and test["p_value"] < 0.001 and test["verdict"] == "significant"
    null = paired_test([1.0, -1.0, 0.5, -0.5] * 6)
    assert null["lo"] < 0 < null["hi"] and null["p_value"] > 0.5
    assert null["verdict"] == "not significant"


def test_few_deals_give_no_interval_and_no_verdict():
    few = mean_ci([1.0, 2.0, 3.0])
    assert few["lo"] is None and few["hi"] is None and "not enough deals" in few["method"]
    # Hoch & Tief bot vs pimc: 12 deals, every one -0.333 -> no claim at all
    test = paired_test([-1 / 3] * 12, bounds=(-1.0, 1.0))
    assert test["lo"] is None and test["p_value"] is None
    assert test["verdict"] == "not enough deals"


def test_no_spread_between_deals_claims_nothing_from_nothing():
    same = paired_test([-1 / 3] * 40, bounds=(-1.0, 1.0))
    assert same["method"].startswith("wilson") and same["p_value"] is None
    assert -1.0 <= same["lo"] < -0.5 and -1 / 3 < same["hi"] <= 1.0  # wide, not a point
    unbounded = paired_test([5.0] * 40)
    assert unbounded["lo"] is None and unbounded["verdict"] == "no variation between deals"


def test_wilson_intervals_stay_in_range():
    ones = wilson_interval([1.0] * 30)
    assert ones["hi"] == 1.0 and 0.85 < ones["lo"] < 1.0
    zeros = wilson_interval([0.0] * 30)
    assert zeros["lo"] == 0.0 and 0.0 < zeros["hi"] < 0.15
    half = wilson_interval([0.0, 1.0] * 50)  # the textbook case: p = 0.5, n = 100
    assert half["lo"] == pytest.approx(0.4038, abs=1e-3)
    assert half["hi"] == pytest.approx(0.5962, abs=1e-3)
    shares = wilson_interval([1 / 3, 0.5, 0.0, 1.0] * 10)  # shared wins: fractional shares
    assert 0.0 <= shares["lo"] < shares["mean"] < shares["hi"] <= 1.0
    near_one = paired_test([1.0] * 29 + [0.9], bounds=(-1.0, 1.0))  # t would pass 1.0
    assert near_one["hi"] <= 1.0


def test_placement_follows_the_games_winner_rule():
    from stichzoo.envs.core.game import GameState

    state = GameState.__new__(GameState)
    state.totals = [30, 50, 50, 10]
    assert state.placement() == [1, 0, 0, 2]
    cls = envs.game_class("silberne_ananas")
    game = cls(cls.Options())
    sa = game.new_game(seed=1)
    sa.totals = [10, 20, 30]  # the middle total wins; the two others lose alike
    assert sa.winners() == [1] and sa.placement() == [1, 0, 1]


def test_ratings_follow_the_outcome_not_the_score():
    """Silberne Ananas: the middle total wins, so the lower-scoring winner rates higher."""
    games = [{"assignment": ["mid", "high", "high"], "totals": [20, 40, 30],
              "placement": [0, 1, 1]} for _ in range(30)]
    ratings = openskill_ratings(games, ["mid", "high"])
    assert ratings["mid"]["ordinal"] > ratings["high"]["ordinal"]


def _table_of_copies(candidate_seat_score, copies_scores, deals: int = 30) -> list[dict]:
    """Duplicate games of one candidate ("heuristic") against three copies ("random").

    In every game the candidate scores ``candidate_seat_score(deal)`` and the copies
    ``copies_scores(deal)``, whichever seat the candidate takes.
    """
    games = []
    for deal in range(deals):
        for seat in range(4):
            others = list(copies_scores(deal))
            totals = [*others[:seat], candidate_seat_score(deal), *others[seat:]]
            best = max(totals)
            winners = [s for s, t in enumerate(totals) if t == best]
            rest = sorted({t for s, t in enumerate(totals) if s not in winners}, reverse=True)
            placement = [0 if s in winners else 1 + rest.index(t) for s, t in enumerate(totals)]
            games.append({"deal": deal, "assignment": ["random"] * seat + ["heuristic"]
                          + ["random"] * (3 - seat), "totals": totals, "winners": winners,
                          "placement": placement, "truncated": False, "metrics": None,
                          "seconds": 0.0})
    return games


def _rated(games: list[dict]) -> dict:
    cfg = TournamentConfig("hoch_tief", 4, ["heuristic", "random", "random", "random"],
                           deals=30, workers=1)
    return summarise(cfg, games)


def test_a_stronger_bot_by_score_rates_above_a_table_of_copies():
    """Better than the copies' mean in every deal, yet third in every game: rated above.

    (Rating each policy by its seats' placement rated the copies above: their seats
    placed first, second and fourth.)
    """
    games = _table_of_copies(lambda d: 50 + d % 5, lambda d: (60, 55, 10 - d % 3))
    assert all(g["placement"][g["assignment"].index("heuristic")] == 2 for g in games)
    report = _rated(games)
    test = report["versus_baseline"]["heuristic"]["score_difference"]
    assert test["verdict"] == "significant" and test["mean"] > 0
    ratings = report["ratings"]
    assert ratings["heuristic"]["ordinal"] > ratings["random"]["ordinal"] + 5
    duplicate = report["duplicate_ratings"]
    assert duplicate["heuristic"]["mean"] == pytest.approx(test["mean"])  # the paired difference
    assert duplicate["heuristic"]["lo"] > 0 > duplicate["random"]["hi"]


def test_a_weaker_bot_by_score_rates_below_though_it_places_second():
    games = _table_of_copies(lambda d: 40 + d % 4, lambda d: (100, 30 - d % 3, 20))
    assert all(g["placement"][g["assignment"].index("heuristic")] == 1 for g in games)
    report = _rated(games)
    test = report["versus_baseline"]["heuristic"]["score_difference"]
    assert test["verdict"] == "significant" and test["mean"] < 0
    assert report["ratings"]["heuristic"]["ordinal"] < report["ratings"]["random"]["ordinal"]
    assert report["duplicate_ratings"]["heuristic"]["hi"] < 0


def test_duplicate_ratings_order_policies_as_the_paired_tests():
    """Three policies, every one in every deal: rating differences are 3/2 of the mean paired
    differences, so the ratings order the policies as each paired test does."""
    games = []
    for deal in range(25):
        value = {"x": 30 + deal % 7, "y": 20 + deal % 3, "z": 25 - deal % 5}
        for rotation in range(3):
            assignment = [["x", "y", "z"][(i + rotation) % 3] for i in range(3)]
            totals = [value[p] for p in assignment]
            games.append({"deal": deal, "assignment": assignment, "totals": totals,
                          "winners": [totals.index(max(totals))]})
    means = deal_means(games, "score")
    rating = duplicate_ratings(games, ["x", "y", "z"], "score")
    for p, q in (("x", "y"), ("x", "z"), ("y", "z")):
        paired = sum(m[p] - m[q] for m in means.values()) / len(means)
        assert rating[p]["mean"] - rating[q]["mean"] == pytest.approx(1.5 * paired)
    assert rating["x"]["mean"] > rating["z"]["mean"] > rating["y"]["mean"]
    assert duplicate_ratings(games[:1], ["x"], "score") == {}  # self-play: nothing to rate


def test_ratings_compare_deals_not_games():
    """A deal is one match: the copies' mean over all seat assignments of the deal against
    the candidate's; a deal won by the candidate in mean counts once, however its games went."""
    games = _table_of_copies(lambda d: 10, lambda d: (0, 0, 0), deals=4)
    for g in games[:4]:  # deal 0: the candidate scores less in three of its four games
        seat = g["assignment"].index("heuristic")
        g["totals"][seat] = 100 if seat == 0 else -1
    assert deal_means(games[:4], "score")[0] == {"heuristic": 24.25, "random": 0.0}
    ratings = openskill_ratings(games, ["heuristic", "random"], "score")
    assert ratings["heuristic"]["ordinal"] > ratings["random"]["ordinal"]
    with pytest.raises(ValueError, match="objective"):
        openskill_ratings(games, ["heuristic", "random"], "placement")


def test_ratings_agree_with_the_paired_test_on_played_games():
    cfg = TournamentConfig("wizard", 4, ["heuristic", "random", "random", "random"], deals=20,
                           seed=5, options={"rounds": [1, 2, 3]}, workers=1)
    report = run_tournament(cfg, progress=False)
    test = report["versus_baseline"]["heuristic"]["score_difference"]
    assert test["verdict"] == "significant" and test["mean"] > 0
    assert report["ratings"]["heuristic"]["ordinal"] > report["ratings"]["random"]["ordinal"]
    assert report["duplicate_ratings"]["heuristic"]["mean"] == pytest.approx(test["mean"])


def test_self_play_reports_no_win_rate_and_no_rating(capsys):
    cfg = TournamentConfig("wizard", 3, ["random"] * 3, deals=2, seed=3,
                           options={"rounds": [1]}, workers=1)
    report = run_tournament(cfg, progress=False)
    assert report["policies"]["random"]["win_rate"] is None and report["ratings"] == {}
    text = format_report(report)
    assert "n/a (self-play)" in text and "0.250" not in text


def test_metrics_get_intervals_and_the_table_stays_aligned(tmp_path):
    long = "heuristic"
    cfg = TournamentConfig("wizard", 3, [long, "random", "random"], deals=20, seed=2,
                           options={"rounds": [1, 2]}, workers=1)
    report = run_tournament(cfg, progress=False)
    hit = report["policies"][long]["metrics"]["bid_hit_rate"]
    assert hit["method"] == "wilson" and 0.0 <= hit["lo"] <= hit["mean"] <= hit["hi"] <= 1.0
    err = report["policies"][long]["metrics"]["mean_abs_bid_error"]
    assert err["method"] == "t" and err["lo"] < err["mean"] < err["hi"]
    assert report["key_metric"] == "bid_hit_rate" and report["methods"]["win_rate"]
    # a long policy name keeps every column of the table in place
    report["policies"] = {"pimc:worlds=64,rollouts=4,horizon=game": report["policies"][long],
                          "random": report["policies"]["random"]}
    report["ratings"] = {}
    table = format_report(report).splitlines()[1:4]
    assert len({len(line) for line in table}) == 1
    assert table[0].endswith("openskill") and table[1].endswith("n/a")
    paths = write_outputs(run_tournament(cfg, progress=False), str(tmp_path))
    assert (tmp_path / "report.png").stat().st_size > 10_000 and len(paths) == 2


def test_progress_counts_games_as_they_finish(capsys):
    cfg = TournamentConfig("hoch_tief", 3, ["heuristic", "random", "random"], deals=3, seed=1,
                           options={"rounds": 1}, workers=2)
    run_tournament(cfg, progress=True)
    err = capsys.readouterr().err
    assert "9/9" in err and "game" in err and "deal" not in err


def test_bad_config_errors():
    with pytest.raises(ValueError, match="num_players"):
        TournamentConfig("wizard", 9, ["random"] * 9, deals=1)
    with pytest.raises(ValueError, match="unknown option"):
        TournamentConfig("wizard", 3, ["random"] * 3, deals=1, options={"colour": 2})
    with pytest.raises(ValueError, match="baseline"):
        TournamentConfig("wizard", 3, ["random"] * 3, deals=1, baseline="heuristic")


def _report(workers):
    cfg = TournamentConfig("wizard", 3, ["random"] * 3, deals=6, seed=3,
                           options={"rounds": [2, 3]}, workers=workers)
    report = run_tournament(cfg, progress=False)
    for key in ("wall_seconds", "workers", "mean_game_seconds"):
        report.pop(key)
    report["config"].pop("workers")
    return report


def test_reproducible_whatever_the_workers():
    assert json.dumps(_report(1), sort_keys=True) == json.dumps(_report(2), sort_keys=True)


def test_outputs_written(tmp_path):
    cfg = TournamentConfig("hoch_tief", 3, ["random"] * 3, deals=3, seed=1, options={"rounds": 1},
                           workers=1)
    report = run_tournament(cfg, progress=False)
    paths = write_outputs(report, str(tmp_path))
    assert json.loads((tmp_path / "report.json").read_text())["games"] == 3
    assert any(p.endswith("report.png") for p in paths) and (tmp_path / "report.png").stat().st_size


def test_cli_eval_of_a_shipped_bot(capsys):
    assert cli_main(["eval", "hoch_tief", "--policies", "bot:hoch_tief", "heuristic",
                     "--games", "8", "--workers", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "bot:hoch_tief" in out and "not enough deals" in out


def test_cli_errors_are_clear(capsys):
    assert cli_main(["eval", "wizard", "--policies", "nonsense", "--games", "2"]) == 2
    assert "unknown policy 'nonsense'" in capsys.readouterr().err
    assert cli_main(["eval", "wizard", "--option", "colour=1", "--policies", "random",
                     "--games", "2"]) == 2
    assert "unknown option" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main(["eval", "chess"])


def test_cli_runs(capsys):
    assert cli_main(["eval", "wizard", "--players", "3", "--policies", "random", "--games", "3",
                     "--option", "rounds=[1]", "--workers", "1", "--quiet"]) == 0
    assert "wizard 3p: 3 games" in capsys.readouterr().out


def test_evaluate_stays_the_public_face_of_the_split_modules():
    """``from stichzoo.training.evaluation import ...`` keeps working after the split into
    tournament, stats and report."""
    from stichzoo.training import evaluation as evaluate
    from stichzoo.training.evaluation import report, stats, tournament

    for name in evaluate.__all__:
        homes = [m for m in (tournament, stats, report) if hasattr(m, name)]
        assert homes or name in ("build_policy", "parse_policy_spec"), name
        for home in homes:
            assert getattr(evaluate, name) is getattr(home, name), name
