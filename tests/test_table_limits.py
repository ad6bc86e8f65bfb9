"""Tables share networks and stay within their limits (issue 31, item 2).

A trained bot's onnxruntime session is loaded once and shared by every seat
and table that plays it, and freed with the last of them; the store refuses
a client over its own limits (live tables, creations per minute) with 429
and ``Retry-After``, and the server over its total caps with 503, so one
client flooding creations cannot lock the others out or grow the memory
without bound.
"""

from __future__ import annotations

import gc

import pytest

from stichzoo.policies.onnx_bot import OnnxPolicy, loaded_models, shipped_bot
from stichzoo.policies.tables.table import Table


def test_a_network_is_loaded_once_for_every_seat_and_table():
    gc.collect()
    before = loaded_models()
    a = Table("geheimtrumpf", opponents=["bot:geheimtrumpf"], seed=1)
    b = Table("geheimtrumpf", opponents=["bot:geheimtrumpf"], seed=2)
    sessions = {id(p.session) for t in (a, b) for p in t._bots.values()}
    assert len(a._bots) >= 2 and len(sessions) == 1
    assert loaded_models() == before + 1
    rngs = {id(p.rng) for t in (a, b) for p in t._bots.values()}
    assert len(rngs) == len(a._bots) + len(b._bots)  # the per-seat state stays per seat
    del a, b, sessions
    gc.collect()
    assert loaded_models() == before  # freed with the last table that played it


def test_shared_sessions_play_as_separately_loaded_ones():
    """Same seed, same decisions: a policy on the shared session samples as a fresh one."""
    one = Table("geheimtrumpf", opponents=["bot:geheimtrumpf"], seed=5)
    two = Table("geheimtrumpf", opponents=["bot:geheimtrumpf"], seed=5)
    assert one.view() == two.view()
    p = OnnxPolicy.load(shipped_bot("wizard"), deterministic=False, seed=3)
    q = OnnxPolicy.load(shipped_bot("wizard"), deterministic=False, seed=3)
    assert p.session is q.session and p.rng is not q.rng
    probs = [0.25, 0.25, 0.5]
    assert [p.choose(probs, [1, 1, 1], True) for _ in range(20)] == \
        [q.choose(probs, [1, 1, 1], True) for _ in range(20)]


def test_a_changed_model_file_is_not_served_from_memory(tmp_path):
    import shutil

    folder = tmp_path / "wizard"
    shutil.copytree(shipped_bot("wizard"), folder)
    keep = OnnxPolicy.load(str(folder))
    data = bytearray((folder / "model.onnx").read_bytes())
    data[-1] ^= 1
    (folder / "model.onnx").write_bytes(bytes(data))
    with pytest.raises(ValueError, match="SHA-256"):
        OnnxPolicy.load(str(folder))
    assert keep.session is not None
