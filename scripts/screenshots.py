"""Remake the pictures of the browser table in docs/img/ (docs/web_table.md shows them).

    .venv/bin/python scripts/screenshots.py

The browser tests play each game by clicking, at a desktop (1280x800) and a
phone (390x844) size (to its end at one of them), and take the first screen
of each mid-game (a hand and a trick on the table); with ``STICHZOO_DOC_SCREENSHOTS=1``
they also write those to ``docs/img/table_<game>.png`` and
``docs/img/table_<game>_phone.png``.  So the pictures are the tested page,
and the same seeds give the same pictures.  Needs Debian's Chromium
(``bash scripts/setup_browser.sh``) and Playwright (the ``dev`` extra).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    env = {**os.environ, "STICHZOO_DOC_SCREENSHOTS": "1"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
           "tests/tables/test_web_table_browser.py", "-k",
           "test_play_a_whole_game_by_clicking or test_the_layout_at_the_other_size"]
    done = subprocess.run(cmd, cwd=ROOT, env=env, check=False)
    if done.returncode == 0:
        pictures = sorted((ROOT / "docs" / "img").glob("table_*.png"))
        print("\n".join(str(p.relative_to(ROOT)) for p in pictures))
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
