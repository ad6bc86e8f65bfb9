"""A real ``stichzoo serve`` in a subprocess, for the scripts and tests that start, kill and
restart one (scripts/checks/chaos_tables.py, scripts/bench/serve_tables.py, the process tests).

    with Served(store="t.sqlite", workers=2) as server:
        httpx.get(server.base + "/tables/options")
        server.kill()       # SIGKILL, the workers too
        server.start()      # the same port and store

The server runs in its own process group, so a SIGKILL reaches uvicorn's
worker processes as well as their parent (a killed parent would otherwise
leave its workers holding the port).  Its output goes to ``log`` (a file),
never to a pipe that could fill up and stall it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time

import httpx

__all__ = ["Served", "free_port"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """``stichzoo serve --store STORE --workers N ARGS...`` on a free loopback port (``ARGS``
    without ``--levels``: ``--levels`` with none, the trained bots only)."""

    def __init__(self, *args: str, store: str = "memory", workers: int = 1,
                 log: str | None = None, port: int | None = None):
        levels = [] if "--levels" in args else ["--levels"]
        self.args = [*levels, *args, "--store", store, "--workers", str(workers)]
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log or os.devnull
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 90.0) -> Served:
        """Start the server and wait until it answers ``GET /tables/options``."""
        with open(self.log, "a") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "stichzoo", "serve", "--port", str(self.port),
                 *self.args], stdout=out, stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True)
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(f"{self.base}/tables/options", timeout=2).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            if self.process.poll() is not None:
                raise RuntimeError(f"stichzoo serve exited with {self.process.returncode} "
                                   f"(its output: {self.log})")
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"stichzoo serve did not answer in {timeout:g} s")
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL the server and its workers (its process group), and reap it."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)
        self._wait_group_gone()
        self.process = None

    def terminate(self, timeout: float = 60.0) -> int:
        """SIGTERM the server (uvicorn's graceful stop) and wait; its exit status."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=timeout)
        finally:
            if self.process.poll() is None:
                self.kill()
        self._wait_group_gone()
        self.process = None
        return code

    def _wait_group_gone(self, timeout: float = 30.0) -> None:
        """Wait until no live process of the server's group is left (its workers die after
        it; a dead one waiting to be reaped - a zombie - holds no socket)."""
        pid = self.process.pid if self.process is not None else None
        if pid is None:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and _group_alive(pid):
            time.sleep(0.02)

    def __enter__(self) -> Served:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.kill()


def _group_alive(group: int) -> bool:
    """Whether a process of ``group`` still runs (zombies do not count; /proc where there is
    one, else any member at all)."""
    if not os.path.isdir("/proc"):
        try:
            os.killpg(group, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":  # state, ppid, pgrp
            return True
    return False
