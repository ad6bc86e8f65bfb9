"""Wizard bids from a predicted trick distribution (stichzoo.training.fit.bid_model).

- the expected score of a bid is the game's own scoring weighted by the
  distribution (against a brute-force sum on hand-made distributions);
- the bid is the argmax over the legal bids only (the dealer restriction);
- the exported graph bids what the Python bidder bids, and plays the actor's
  own logits everywhere else;
- the bid reads only the seat's view: re-dealing what it cannot see at its
  bid gives the same bid;
- the shipped bot is such a bidder and loads through OnnxPolicy/verify_bot;
- ``stichzoo fit bid_model wizard`` collects, fits and exports one (the old
  ``stichzoo tricks`` says that spelling and runs it).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch as th

from stichzoo.envs.wizard.rules import BID, WizardGame, WizardOptions, round_score
from stichzoo.policies.base import Decision, encoder_for
from stichzoo.policies.runtimes.onnx_policy import (
    OnnxPolicy,
    read_manifest,
    shipped_bot,
    verify_bot,
)
from stichzoo.training.export import export_module
from stichzoo.training.fit import bid_model as tricks

HAND_SIZE_OFFSET = 130  # the hand_size piece of the 4-player layout (checked below)


def _positions(game: WizardGame, count: int, seed: int, phase: int | None = BID):
    """(state, seat) at ``count`` decisions of random games (of ``phase`` if given)."""
    rng = random.Random(seed)
    state, out = game.new_game(seed=seed), []
    while len(out) < count:
        if state.over:
            state = game.new_game(seed=rng.randrange(1 << 30))
            continue
        if phase is None or state.phase == phase:
            out.append((state.clone(), state.current_player))
        state.step(rng.choice(state.legal_actions()))
    return out


def _bidder(seed: int = 0) -> tricks.TrickNet:
    th.manual_seed(seed)
    return tricks.TrickNet(603, 15, HAND_SIZE_OFFSET, [32]).eval()


def test_hand_size_offset_is_the_layout_s():
    game = WizardGame(WizardOptions(num_players=4))
    assert encoder_for(game).layout.offsets["hand_size"] == HAND_SIZE_OFFSET


def test_expected_scores_equal_brute_force():
    rng = np.random.default_rng(0)
    for max_hand in (1, 3, 15):
        size = max_hand + 1
        probs = rng.dirichlet(np.ones(size), size=(5, size))  # [position, bid, tricks]
        want = np.array([[sum(probs[k, b, t] * round_score(b, t) for t in range(size))
                          for b in range(size)] for k in range(5)])
        table = tricks.score_table(max_hand)
        np.testing.assert_allclose(tricks.expected_scores(probs, table), want, rtol=1e-5)
        got = tricks.expected_scores(th.as_tensor(probs), th.as_tensor(table)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5)
    certain = np.zeros((4, 4))
    certain[:, 2] = 1.0  # two tricks for sure: bid 2 scores 20 + 20, each trick off -10
    assert tricks.expected_scores(certain, tricks.score_table(3)).tolist() == [-20, -10, 40, -10]
    split = np.zeros((4, 4))
    split[:, 0] = split[:, 3] = 0.5  # none or all three: the bold bid is worth most
    assert tricks.expected_scores(split, tricks.score_table(3)).tolist() == [-5, -15, -15, 10]


def test_net_gives_no_probability_above_the_hand_size():
    game = WizardGame(WizardOptions(num_players=4))
    net = _bidder()
    for state, seat in _positions(game, 20, 1):
        obs = Decision(game, state, seat).observation
        with th.inference_mode():
            p = net.log_probs(th.as_tensor(obs[None]))[0].exp().numpy()
        assert np.allclose(p.sum(1), 1.0, atol=1e-5)
        assert p[:, state.hand_size + 1:].max(initial=0.0) < 1e-12


def test_bid_is_the_best_legal_bid(monkeypatch):
    game = WizardGame(WizardOptions(num_players=4, dealer_bid_restriction=True))
    bidder = tricks.TrickBidder(_bidder(), game.bid0)
    values = np.array([5.0, 30.0, 10.0] + [-50.0] * 13)
    monkeypatch.setattr(bidder, "values", lambda obs: values)
    mask = np.zeros(game.num_actions)
    mask[game.bid0:game.bid0 + 3] = 1
    assert bidder.bid_action(np.zeros(603), mask) == game.bid0 + 1
    mask[game.bid0 + 1] = 0  # the dealer may not make the bids add up: the next best
    assert bidder.bid_action(np.zeros(603), mask) == game.bid0 + 2


def test_reach_bids_near_the_actor_s_own_bid():
    """``reach``: the best legal bid among those within reach of the actor's own (the
    argmax of its legal bid logits) - never a bid further out, whatever its value."""
    game = WizardGame(WizardOptions(num_players=4, dealer_bid_restriction=True))
    actor = tricks.actor_from_onnx(f"{shipped_bot('wizard')}/model.onnx")
    net = _bidder(5)
    free = tricks.TrickBidderForExport(actor, net, game.bid0, 0.1).eval()
    near = tricks.TrickBidderForExport(actor, net, game.bid0, 0.1, reach=1).eval()
    moved = 0
    for state, seat in _positions(game, 60, 4):
        d = Decision(game, state, seat)
        obs = th.as_tensor(d.observation[None])
        mask = th.as_tensor(d.action_mask[None], dtype=th.float32)
        with th.inference_mode():
            raw = actor(obs)[0].numpy()
            values = net.expected_scores(obs)[0].numpy()
            got = int(near.logits(obs, mask)[0].masked_fill(mask[0] < 0.5, -1e18).argmax())
            unbounded = int(free.logits(obs, mask)[0].masked_fill(mask[0] < 0.5, -1e18).argmax())
        legal = np.flatnonzero(d.action_mask[game.bid0:game.bid0 + len(values)] > 0)
        own = legal[np.argmax(raw[game.bid0 + legal])]
        window = legal[np.abs(legal - own) <= 1]
        assert got == game.bid0 + window[np.argmax(values[window])]
        moved += got != unbounded
    assert moved > 0  # the random trick net's favourites lie out of reach at times


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A bidder of a random trick net over the shipped actor, exported with the restriction."""
    game = WizardGame(WizardOptions(num_players=4, dealer_bid_restriction=True))
    actor = tricks.actor_from_onnx(f"{shipped_bot('wizard')}/model.onnx")
    net = _bidder(3)
    module = tricks.TrickBidderForExport(actor, net, game.bid0, 0.1).eval()
    out = export_module(module, game, str(tmp_path_factory.mktemp("bot")), {"test": True})
    return game, actor, net, OnnxPolicy.load(out, game)


def test_exported_bid_is_the_python_bidder_s(exported):
    game, _, net, bot = exported
    bidder = tricks.TrickBidder(net, game.bid0)
    positions = _positions(game, 60, 2)
    assert any(s.forbidden_bid() >= 0 for s, _ in positions)  # the restriction is exercised
    for state, seat in positions:
        d = Decision(game, state, seat)
        assert bot.act(d) == bidder.bid_action(d.observation, d.action_mask)


def test_exported_plays_the_actor_s_logits_elsewhere(exported):
    game, actor, _, bot = exported
    for state, seat in _positions(game, 60, 3, phase=None):
        if state.phase == BID:
            continue
        d = Decision(game, state, seat)
        with th.inference_mode():
            logits = actor(th.as_tensor(d.observation[None]))[0].numpy()
        legal = d.action_mask > 0
        assert bot.act(d) == int(np.flatnonzero(legal)[np.argmax(logits[legal])])


def test_shipped_bot_bids_from_its_trick_model():
    """The shipped Wizard bot verifies, loads, and bids the argmax of its own trick model's
    expected scores; a re-deal of what the seat cannot see at its bid gives the same bid."""
    folder = shipped_bot("wizard")
    manifest, game, _ = verify_bot(folder)
    assert manifest["provenance"]["bids"]["method"].startswith("argmax over legal bids")
    bot = OnnxPolicy.load(folder, game)
    net = tricks.tricks_from_onnx(f"{folder}/model.onnx", game.max_hand, HAND_SIZE_OFFSET)
    bidder = tricks.TrickBidder(net, game.bid0)
    rng = random.Random(4)
    changed = 0
    for state, seat in _positions(game, 40, 4):
        d = Decision(game, state, seat)
        action = bot.act(d)
        assert action == bidder.bid_action(d.observation, d.action_mask)
        for _ in range(3):
            world = game.determinize(state, seat, rng)
            changed += world.hands != state.hands
            assert world.hands[seat] == state.hands[seat]
            assert bot.act(Decision(game, world, seat)) == action
    assert changed > 60  # the re-deals do move the hidden cards


def test_pipeline_end_to_end(tmp_path):
    """``stichzoo fit bid_model wizard`` in miniature: labels are the tricks taken, the bot
    verifies and keeps the source's actor, and a config key it does not know is refused."""
    import json

    from stichzoo.training import cli

    config = tmp_path / "tricks.yaml"
    config.write_text("bot: bot:wizard\nrounds: 2\ncollect: {games: 6, batch: 4}\n"
                      "model: {hidden: [8]}\ntrain: {epochs: 1, batch_size: 64}\n")
    assert cli.main(["fit", "bid_model", "wizard", "--config", str(config), "--out",
                     str(tmp_path / "out"), "--report", str(tmp_path / "report.json"),
                     "--quiet"]) == 0
    bot = tmp_path / "out" / "bot"
    manifest, _, _ = verify_bot(bot)
    rounds = manifest["provenance"]["bids"]["rounds"]
    assert [r["collect"]["games"] for r in rounds] == [6, 6]
    assert rounds[0]["collect"]["bids"] == 6 * 4 * 15  # every seat bids once a round
    assert rounds[1]["fit"]["rows"] == 2 * 6 * 4 * 15
    source = tricks.actor_from_onnx(f"{shipped_bot('wizard')}/model.onnx").state_dict()
    copied = tricks.actor_from_onnx(f"{bot}/model.onnx").state_dict()
    assert all(th.equal(source[k], copied[k]) for k in source)
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["samples"] == 2 * 6 * 4 * 15 and report["quality"] == rounds[1]["fit"]
    assert tricks.load_config(str(bot / "tricks.yaml")) == report["config"]
    (tmp_path / "bad.yaml").write_text("collect: {gamez: 6}\n")
    with pytest.raises(ValueError, match=r"unknown key collect\.'gamez'"):
        tricks.load_config(str(tmp_path / "bad.yaml"))


def test_the_command_s_sets_override_the_config_file(tmp_path, monkeypatch, capsys):
    """``stichzoo fit bid_model --set collect.workers=2`` changes that key alone (as the old
    ``stichzoo tricks``, which says the new spelling, did); a key the config does not know,
    or a value where a section belongs, is one clear error line."""
    from stichzoo.training import cli, fit

    config = tmp_path / "tricks.yaml"
    config.write_text("bot: bot:wizard\nrounds: 2\ncollect: {games: 6, batch: 4}\n")
    seen = {}
    monkeypatch.setattr(fit, "run", lambda name, cfg, out, log: seen.update(cfg) or {})
    assert cli.main(["tricks", "wizard", "--config", str(config), "--quiet",
                     "--set", "collect.workers=2", "--set", "train.epochs=1"]) == 0
    assert "stichzoo tricks is now: stichzoo fit bid_model wizard" in capsys.readouterr().err
    assert seen["collect"] == {**tricks.DEFAULTS["collect"], "games": 6, "batch": 4,
                               "workers": 2}
    assert seen["train"]["epochs"] == 1 and seen["rounds"] == 2
    for bad, message in (("collect.wrokers=2", r"unknown key collect\.'wrokers'"),
                         ("collect=2", "collect is a section, not 2")):
        with pytest.raises(ValueError, match=message):
            cli.cmd_fit(cli.build_parser().parse_args(
                ["fit", "bid_model", "wizard", "--config", str(config), "--set", bad]))


def test_collected_labels_are_the_tricks_taken():
    """Without exploration the rows' bids are the policy's and each label is that seat's
    tricks of that round: the rows of a game sum to the round's hand sizes."""
    game = WizardGame(WizardOptions(num_players=4))
    actor = tricks.actor_from_onnx(f"{shipped_bot('wizard')}/model.onnx")
    player = tricks.TrickBidderForExport(actor, None, game.bid0, 0.1).eval()
    data = tricks.collect_bids(player, {"num_players": 4}, 3, 3, 11, 0.0, 2, game.bid0, 16)
    assert len(data["bid"]) == 3 * 60
    for g in range(3):
        assert data["tricks"][data["game"] == g].sum() == sum(range(1, 16))  # every trick
    hit = np.mean(data["bid"] == data["tricks"])
    assert hit == pytest.approx(data["stats"]["bid_hit_rate"])


def test_mixed_tables_seat_the_player_once_and_label_only_its_bids():
    """``mixed=1``: every game seats the player once among heuristics; the rows are its 15
    bids a game (not the heuristics'), each labelled with the tricks its seat took."""
    game = WizardGame(WizardOptions(num_players=4))
    actor = tricks.actor_from_onnx(f"{shipped_bot('wizard')}/model.onnx")
    player = tricks.TrickBidderForExport(actor, None, game.bid0, 0.1).eval()
    data = tricks.collect_bids(player, {"num_players": 4}, 4, 2, 12, 0.0, 2, game.bid0, 16,
                          mixed=1.0, opponent="heuristic")
    assert data["stats"]["mixed_games"] == 4
    assert len(data["bid"]) == 4 * 15
    for g in range(4):
        assert (data["game"] == g).sum() == 15
        assert (data["tricks"][data["game"] == g] <= np.arange(1, 16)).all()
    self_play = tricks.collect_bids(player, {"num_players": 4}, 4, 2, 12, 0.0, 2, game.bid0, 16)
    assert self_play["stats"]["mixed_games"] == 0 and len(self_play["bid"]) == 4 * 60


def test_a_round_split_over_workers_joins_the_shares_in_worker_order():
    """``collect.workers``: one worker is :func:`collect_bids` itself; two play their shares
    with the seeds ``seed`` and ``seed + 7919`` and the rows come back in worker order, the
    second share's game ids after the first's - the same rows as the two shares played
    alone."""
    game = WizardGame(WizardOptions(num_players=4))
    actor = tricks.actor_from_onnx(f"{shipped_bot('wizard')}/model.onnx")
    player = tricks.TrickBidderForExport(actor, None, game.bid0, 0.1).eval()
    c = {**tricks.DEFAULTS["collect"], "games": 3, "batch": 2, "explore": 0.5, "mixed": 0.5}
    one = tricks.collect_shares(player, {"num_players": 4}, {**c, "workers": 1}, 21, game.bid0, 16)
    alone = tricks.collect_bids(player, {"num_players": 4}, 3, 2, 21, 0.5, 2, game.bid0, 16, 0.5)
    assert all((one[k] == alone[k]).all() for k in ("observation", "bid", "tricks", "game"))
    two = tricks.collect_shares(player, {"num_players": 4}, {**c, "workers": 2}, 21, game.bid0, 16)
    first = tricks.collect_bids(player, {"num_players": 4}, 2, 2, 21, 0.5, 2, game.bid0, 16,
                                 0.5)
    second = tricks.collect_bids(player, {"num_players": 4}, 1, 2, 21 + 7919, 0.5, 2, game.bid0, 16,
                            0.5)
    for key in ("observation", "bid", "tricks"):
        assert (two[key] == np.concatenate([first[key], second[key]])).all()
    assert (two["game"] == np.concatenate([first["game"], second["game"] + 2])).all()
    assert two["stats"]["games"] == 3 and two["stats"]["workers"] == 2
    assert two["stats"]["bids"] == len(two["bid"])
    assert two["stats"]["bid_hit_rate"] == pytest.approx(np.mean(two["bid"] == two["tricks"]))


def test_the_shipped_bots_actor_and_bids_come_back_as_the_same_bot(tmp_path):
    """Expert iteration's round trip (training/trainers/expert.py): the shipped bot's actor loaded
    into a trainable policy (the check leaves out the bids, which are the trick model's), then
    exported with the bot's own trick model (``rebid``), plays exactly as the shipped bot -
    bids and cards."""
    from stichzoo.training import config as config_mod
    from stichzoo.training.trainers.from_bot import has_trick_bids, load_bot_actor
    from stichzoo.training.trainers.ppo import build_network

    folder = shipped_bot("wizard")
    assert has_trick_bids(folder) and not has_trick_bids(shipped_bot("hoch_tief"))
    cfg = config_mod.load(f"{folder}/config.yaml")
    game = config_mod.game_of(cfg)
    policy = load_bot_actor(build_network(cfg, game, "cpu"), folder, game)
    out = tricks.rebid(policy, folder, str(tmp_path / "bot"), game, {"test": True})
    manifest, _, _ = verify_bot(out)
    assert manifest["provenance"]["bids_from"] == folder
    # the record of how the bids were fitted comes along with them
    assert manifest["provenance"]["bids"] == read_manifest(folder)["provenance"]["bids"]
    shipped, again = OnnxPolicy.load(folder, game), OnnxPolicy.load(out, game)
    phases = set()
    for state, seat in _positions(game, 120, 9, phase=None):
        d = Decision(game, state, seat)
        phases.add(state.phase)
        assert np.allclose(again.probabilities(d.observation, d.action_mask),
                           shipped.probabilities(d.observation, d.action_mask), atol=1e-5)
    assert BID in phases and len(phases) > 1


def test_a_refit_can_start_from_the_bots_own_bids():
    """``collect.start: bids``: the first round's games bid as the source bot does (its trick
    model, argmax over the legal bids), not by the actor's policy head; an unknown start is
    refused by name."""
    game = WizardGame(WizardOptions(num_players=4))
    folder = shipped_bot("wizard")
    manifest, _, _ = verify_bot(folder)
    actor = tricks.actor_from_onnx(f"{folder}/model.onnx")
    cfg = tricks.load_config(f"{folder}/tricks.yaml")
    cfg["collect"]["start"] = "bids"
    player = tricks.first_bidder(cfg, folder, manifest, actor, game)
    shipped = OnnxPolicy.load(folder, game)
    differs = 0
    for state, seat in _positions(game, 60, 21):
        d = Decision(game, state, seat)
        obs, mask = d.observation, d.action_mask.astype(np.float32)
        with th.inference_mode():
            m = th.as_tensor(mask)[None]
            ours = int(player.logits(th.as_tensor(obs)[None], m).masked_fill(m == 0, -1e9)
                       .argmax())
        assert ours == int(np.argmax(shipped.probabilities(obs, mask)))
        cfg["collect"]["start"] = "policy"
        head = tricks.first_bidder(cfg, folder, manifest, actor, game)
        cfg["collect"]["start"] = "bids"
        with th.inference_mode():
            raw = head.logits(th.as_tensor(obs)[None], m).masked_fill(m == 0, -1e9)
        differs += int(raw.argmax()) != ours
    assert differs > 0  # the two starts are different bidders
    cfg["collect"]["start"] = "own"
    with pytest.raises(ValueError, match=r"collect\.start"):
        tricks.first_bidder(cfg, folder, manifest, actor, game)
