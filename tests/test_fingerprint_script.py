"""scripts/fingerprint.py: the behaviour fingerprint is deterministic and well-formed.

Not a test against scripts/fingerprint.json (that file holds every game at
full size and is compared by hand around a refactor); this plays one game
with ``--quick`` twice and checks that the hashes agree and look right.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "fingerprint.py"
GAME = "wizard"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fingerprint_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return _script()


def test_quick_fingerprint_is_stable(script: ModuleType) -> None:
    first = script.fingerprint([GAME], quick=True)
    second = _script().fingerprint([GAME], quick=True)  # a fresh module, same hashes
    assert first == second
    assert list(first) == sorted(first)
    parts = {key.split("/")[0] for key in first}
    assert parts == {"env", "bot-quick", "batch-quick"}
    assert all(key.split("/")[1] == GAME for key in first)
    assert all(re.fullmatch(r"[0-9a-f]{64}", digest) for digest in first.values())
    bots = [key for key in first if key.startswith("bot-quick/")]
    assert len(bots) == len(script.specs_of(GAME))
    # every spec played (none hashed a build or play error)
    assert not [key for key in script.ERRORS if key.startswith(f"bot/{GAME}/")]


def test_out_and_check(script: ModuleType, tmp_path: Path, capsys) -> None:
    saved = tmp_path / "fp.json"
    assert script.main(["--games", GAME, "--quick", "--out", str(saved)]) == 0
    lines = capsys.readouterr().out.splitlines()
    data = json.loads(saved.read_text())
    assert lines == [f"{key} {digest}" for key, digest in data.items()]
    assert script.main(["--games", GAME, "--quick", "--check", str(saved)]) == 0
    key = next(iter(data))
    data[key] = "0" * 64
    saved.write_text(json.dumps(data))
    assert script.main(["--games", GAME, "--quick", "--check", str(saved)]) == 1
    assert f"differs: {key}" in capsys.readouterr().err
