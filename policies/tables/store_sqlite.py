"""The tables on disk: a SQLite file that keeps every table, move by move, across restarts.

    saved = SqliteTables("tables.sqlite")   # made, or opened and migrated
    saved.insert(table_id, table.saved(), client="1.2.3.4")
    ok = saved.save_move(table_id, before, table.saved())   # False: another process moved
    row = saved.load(table_id)              # Table.resume(row) plays on
    saved.close()

:class:`~stichzoo.policies.tables.table.TableStore` keeps its tables in
memory and, given one of these, writes each table here when it is created
and after every accepted move, before the answer is sent.  A move is one
``UPDATE ... WHERE decisions = <the count the move started from>``: SQLite
runs it as one transaction under its write lock, so of two processes (or
two threads) that played from the same decision, exactly one's move is
kept and the other learns that the table moved on.  That is what lets
``stichzoo serve --workers N`` share one file and a retried move be played
once.

The file is in WAL mode (readers never wait for the writer, and a crash
leaves the last committed move) with ``synchronous=FULL``: each commit is on
the disk before the move's answer is sent, so a move a person saw accepted
survives a power loss too, not only a killed process (NORMAL may lose the
last commits on power loss; one fsync per move is cheap next to a bot's
move, docs/operations.md measures it).  The schema's version is SQLite's
``PRAGMA user_version``; :data:`MIGRATIONS` brings an older file up to
:data:`SCHEMA_VERSION`, and a file of a newer version is refused rather
than misread.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SqliteTables", "StoreError", "default_store_path"]

#: the schema this version of stichzoo writes
SCHEMA_VERSION = 1

#: per version, the statements that bring a file of that version to the next one
#: (0: a new file); a file opens by running every step from its version up
MIGRATIONS: dict[int, tuple[str, ...]] = {
    0: (
        """CREATE TABLE tables (
               id TEXT PRIMARY KEY,        -- secrets.token_urlsafe: the capability
               game TEXT NOT NULL,
               options TEXT NOT NULL,      -- JSON: every game option, num_players included
               seating TEXT NOT NULL,      -- JSON: each seat's policy spec, null: the person
               human_seat INTEGER NOT NULL,
               seed INTEGER NOT NULL,      -- seeds the bots (and the deal unless dealt)
               dealt INTEGER NOT NULL,     -- 1: the deck orders were given, not shuffled
               client TEXT,                -- who created it (the per-client limits' key)
               status TEXT NOT NULL,       -- 'playing' or 'over'
               decisions INTEGER NOT NULL, -- decisions so far: the move transaction's check
               record TEXT NOT NULL,       -- JSON: the game record (partial while playing)
               bots TEXT NOT NULL,         -- JSON: per bot seat, its generators' states
               created REAL NOT NULL,      -- Unix time
               updated REAL NOT NULL       -- Unix time of the last move
           )""",
        "CREATE INDEX tables_updated ON tables (updated)",
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ),
}


class StoreError(RuntimeError):
    """A store file that cannot be used (newer schema, not a store, unreadable): the message
    says which file and why; ``stichzoo serve`` stops with it."""


def default_store_path() -> str:
    """Where ``stichzoo serve`` keeps its tables unless ``--store`` says: the per-user data
    folder (``platformdirs``: ``~/.local/share/stichzoo`` on Linux, ``~/Library/Application
    Support/stichzoo`` on macOS, ``%LOCALAPPDATA%\\stichzoo`` on Windows), so a server
    started from any folder finds the same tables."""
    import platformdirs

    return os.path.join(platformdirs.user_data_dir("stichzoo", appauthor=False),
                        "tables.sqlite")


class SqliteTables:
    """The saved tables in one SQLite file; safe to share between threads and processes.

    One connection per store object, used under a lock (a request thread
    holds it for one statement or one transaction, microseconds to a disk
    sync); other processes wait up to ``busy_timeout`` seconds for the write
    lock.  ``clock`` gives the Unix times of ``created``/``updated``;
    ``synchronous`` is ``FULL`` (the module's reasons) or ``NORMAL`` (for the
    benchmark that prices the difference).
    """

    def __init__(self, path: str, *, busy_timeout: float = 30.0,
                 clock: Callable[[], float] = time.time, synchronous: str = "FULL"):
        self.path = path
        self.clock = clock
        folder = os.path.dirname(os.path.abspath(path))
        try:
            os.makedirs(folder, exist_ok=True)
            if not os.path.exists(path):  # every hand of every game is in it: the owner's only
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
            self._db = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None,
                                       check_same_thread=False)
        except (OSError, sqlite3.Error) as e:
            raise StoreError(f"table store {path}: cannot open it ({e})") from None
        self._lock = threading.Lock()
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            if synchronous not in ("FULL", "NORMAL"):
                raise StoreError(f"synchronous={synchronous!r}: FULL or NORMAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            self._migrate()
            self.instance = self._instance()
        except sqlite3.DatabaseError as e:
            self._db.close()
            raise StoreError(f"table store {path}: not a SQLite database of stichzoo "
                             f"tables ({e})") from None
        except StoreError:
            self._db.close()
            raise

    # -- the schema ----------------------------------------------------------------------

    def _migrate(self) -> None:
        """Bring the file to :data:`SCHEMA_VERSION`, each step in its own transaction."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")  # one process migrates; the others wait
            try:
                version = self._db.execute("PRAGMA user_version").fetchone()[0]
                if version > SCHEMA_VERSION:
                    raise StoreError(
                        f"table store {self.path}: schema version {version} was written by "
                        f"a newer stichzoo (this one reads versions up to {SCHEMA_VERSION}); "
                        f"upgrade stichzoo, or serve another file with --store")
                if version == 0:
                    names = [r[0] for r in self._db.execute(
                        "SELECT name FROM sqlite_master WHERE type = 'table'")]
                    if names:
                        raise StoreError(
                            f"table store {self.path}: a SQLite file with other tables "
                            f"({', '.join(sorted(names)[:5])}), not a stichzoo table store; "
                            f"choose another --store")
                while version < SCHEMA_VERSION:
                    for statement in MIGRATIONS[version]:
                        self._db.execute(statement)
                    version += 1
                    self._db.execute(f"PRAGMA user_version = {version}")
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def _instance(self) -> str:
        """The store's id, made once: the same in every process and after restarts (a page
        compares it to tell a server that lost its tables from one that kept them)."""
        with self._lock:
            self._db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('instance', ?)",
                             (secrets.token_urlsafe(8),))
            return self._db.execute("SELECT value FROM meta WHERE key = 'instance'").fetchone()[0]

    @property
    def schema_version(self) -> int:
        with self._lock:
            return self._db.execute("PRAGMA user_version").fetchone()[0]

    # -- tables --------------------------------------------------------------------------

    def insert(self, table_id: str, saved: dict, client: str | None = None) -> None:
        """Keep a new table (``Table.saved()``), committed when this returns."""
        now = self.clock()
        with self._lock:
            self._db.execute(
                "INSERT INTO tables (id, game, options, seating, human_seat, seed, dealt, "
                "client, status, decisions, record, bots, created, updated) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (table_id, saved["game"], _dumps(saved["options"]), _dumps(saved["seating"]),
                 saved["human_seat"], saved["seed"], int(saved["dealt"]), client,
                 _status(saved), saved["decisions"], _dumps(saved["record"]),
                 _dumps(saved["bots"]), now, now))

    def save_move(self, table_id: str, before: int, saved: dict) -> bool:
        """Keep the table after a move made at decision ``before``; False (nothing written)
        when the stored table is no longer at ``before`` - another process or request
        played first - or is gone.  Committed to the disk when this returns True."""
        with self._lock:
            cursor = self._db.execute(
                "UPDATE tables SET status = ?, decisions = ?, record = ?, bots = ?, updated = ? "
                "WHERE id = ? AND decisions = ?",
                (_status(saved), saved["decisions"], _dumps(saved["record"]),
                 _dumps(saved["bots"]), self.clock(), table_id, before))
            return cursor.rowcount == 1

    def decisions(self, table_id: str) -> int | None:
        """The stored table's decision count (None: no such table): the cheap freshness check
        of a copy in memory."""
        with self._lock:
            row = self._db.execute("SELECT decisions FROM tables WHERE id = ?",
                                   (table_id,)).fetchone()
        return None if row is None else row[0]

    def load(self, table_id: str) -> dict | None:
        """The saved table as ``Table.resume`` reads it, with its ``client``; None if none.

        A field that is not JSON raises ``ValueError`` (the caller refuses the table)."""
        with self._lock:
            row = self._db.execute(
                "SELECT game, options, seating, human_seat, seed, dealt, client, decisions, "
                "record, bots FROM tables WHERE id = ?", (table_id,)).fetchone()
        if row is None:
            return None
        game, options, seats, human, seed, dealt, client, decisions, record, bots = row
        return {"game": game, "options": _loads("options", options),
                "seating": _loads("seating", seats), "human_seat": human, "seed": seed,
                "dealt": bool(dealt), "client": client, "decisions": decisions,
                "record": _loads("record", record), "bots": _loads("bots", bots)}

    def delete(self, table_id: str) -> bool:
        """Forget a table for good (a person closed it); whether there was one."""
        with self._lock:
            return self._db.execute("DELETE FROM tables WHERE id = ?",
                                    (table_id,)).rowcount == 1

    def purge(self, keep_days: float) -> int:
        """Delete every table without a move for ``keep_days`` days - finished ones and
        abandoned ones alike; how many."""
        cutoff = self.clock() - keep_days * 86400.0
        with self._lock:
            return self._db.execute("DELETE FROM tables WHERE updated < ?",
                                    (cutoff,)).rowcount

    def counts(self) -> dict[str, int]:
        """Tables kept, by status (``playing``, ``over``)."""
        with self._lock:
            rows = self._db.execute("SELECT status, COUNT(*) FROM tables GROUP BY status")
            return dict(rows.fetchall())

    def backup(self, path: str) -> None:
        """A consistent copy of the store at ``path`` while it is in use (SQLite's online
        backup API; the same as ``sqlite3 FILE ".backup COPY"``)."""
        target = sqlite3.connect(path)
        try:
            with self._lock:
                self._db.backup(target)
        finally:
            target.close()

    def close(self) -> None:
        """Close the file: the last connection checkpoints the WAL into the database and
        removes it, so a stopped server leaves one file behind."""
        with self._lock:
            self._db.close()


def _status(saved: dict) -> str:
    return "over" if saved["over"] else "playing"


def _loads(column: str, text: Any) -> Any:
    """A JSON column's value; a ``ValueError`` naming the column when it is not JSON."""
    try:
        return json.loads(text)
    except (TypeError, ValueError) as e:
        raise ValueError(f"its {column} is not JSON ({e})") from None


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))
