"""Hint searches in processes of their own, beside a server's request threads.

    pool = SearchPool(1)
    answer = pool.run(search_hint, game, state, seat, seed)   # the same answer, elsewhere
    pool.close()

A hint is a PIMC search of tens of milliseconds of Python.  Run in one of
the server's request threads it holds the interpreter lock for that long,
so a move at another table that arrives meanwhile waits for it: a few
hints a second are enough to triple the moves' p99 (docs/operations.md).
In a process of its own the search takes the other core and the request
threads keep theirs.  The answer is the same: the search's seed travels
with the call, and the game and state are pickled whole.

The processes start on the first search (a server that gives no hint
never starts one) with ``spawn``, never ``fork``: the server has threads,
and a forked copy of a locked lock would hang.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

__all__ = ["SearchPool"]


class SearchPool:
    """``processes`` search processes, started on first use; :meth:`run` waits for the
    answer.  A pool whose process died (killed, out of memory) is replaced at the next
    search, and that search runs in the calling thread, so a hint is never lost to it."""

    def __init__(self, processes: int = 1):
        if isinstance(processes, bool) or not isinstance(processes, int) or processes < 1:
            raise ValueError(f"processes must be a positive integer, not {processes!r}")
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False

    def _executor(self) -> ProcessPoolExecutor | None:
        with self._lock:
            if self._closed:
                return None
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    self.processes, mp_context=multiprocessing.get_context("spawn"))
            return self._pool

    def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in a search process (``fn`` importable, the arguments picklable);
        in this thread once the pool is closed or broken."""
        pool = self._executor()
        if pool is None:
            return fn(*args)
        try:
            return pool.submit(fn, *args).result()
        except BrokenProcessPool:
            with self._lock:
                if self._pool is pool:
                    self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)
            return fn(*args)

    def close(self) -> None:
        """Stop the processes (a server that stops); later searches run in the caller."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
