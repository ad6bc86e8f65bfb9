"""The ``stichzoo serve`` process: one, or ``--workers N`` sharing one table store.

    run(settings)          # settings: the serve command's options as a JSON-ready dict

One process builds the app (:func:`build_app`) and runs it under
``uvicorn.Server``.  With ``workers`` > 1 uvicorn's own supervisor runs the
processes (``uvicorn.run(..., workers=N)``: it binds the socket once,
hands it to every worker, restarts a worker that dies and passes SIGTERM /
SIGINT on for a graceful stop) - rather than a home-made fork loop or
SO_REUSEPORT, which Windows and macOS do not share out the same way.  Its
workers are fresh processes (spawned), so they import the app by name:
:func:`app_factory` builds it from the settings the parent put in the
environment (:data:`SETTINGS_ENV`), and :data:`Protocol` is the deadline
protocol for their timeout.  Each worker opens the SQLite store itself;
a table is served by whichever worker a request reaches
(:class:`~stichzoo.policies.tables.table.TableStore` resumes it from the file,
and the move's transaction keeps two workers from both playing one
decision).  The per-client limits and the memory cap count per process.

On SIGTERM uvicorn stops accepting, lets the requests in flight finish (a
move is played and committed, then answered) and runs the app's shutdown,
which closes the store: the WAL is checkpointed into the file.
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any

__all__ = ["SETTINGS_ENV", "app_factory", "build_app", "open_store", "run"]

#: the environment variable that hands the settings to spawned workers
SETTINGS_ENV = "STICHZOO_SERVE_SETTINGS"
#: ``--store memory``: the tables live in the process only (tests, demos)
MEMORY = "memory"


def open_store(settings: dict[str, Any]):
    """The table store the settings ask for: in memory, or on a SQLite file (opened and
    migrated; a file that cannot be used raises
    :class:`~stichzoo.policies.tables.store_sqlite.StoreError` naming it)."""
    from stichzoo.policies.tables.store_sqlite import SqliteTables
    from stichzoo.policies.tables.table import TableStore

    store = settings.get("store") or MEMORY
    keep_days = settings.get("keep_days") or None
    saved = None if store == MEMORY else SqliteTables(store)
    return TableStore(idle_timeout=settings["idle_timeout"], max_tables=settings["max_tables"],
                      max_tables_per_client=settings["max_tables_per_client"] or None,
                      creations_per_minute=settings["creations_per_minute"] or None,
                      searches_per_minute=settings["searches_per_minute"] or None,
                      max_memory_mb=settings["max_memory_mb"] or None,
                      max_analyses=settings["max_analyses"], saved=saved,
                      keep_days=keep_days if saved is not None else None,
                      search_processes=settings.get("search_processes", 0))


def build_app(settings: dict[str, Any]):
    """The app of ``stichzoo serve`` from its settings; its shutdown closes the table store."""
    from stichzoo.policies.serve.app import create_app
    from stichzoo.policies.serve.guard import served_hosts

    tables = not settings["no_tables"]
    store = open_store(settings) if tables else None
    app = create_app(settings["bots"], levels=settings["levels"],
                     max_body_bytes=settings["max_body_bytes"],
                     cors_origins=settings["cors_origin"], web_table=tables, table_store=store,
                     allowed_hosts=served_hosts(settings["host"], settings["port"],
                                                settings["allowed_host"]),
                     trusted_proxies=settings["trusted_proxy"])

    @contextlib.asynccontextmanager
    async def closing(_app):
        try:
            yield
        finally:  # after the last request in flight: every move is committed already
            if store is not None:
                store.shutdown()

    app.router.lifespan_context = closing
    return app


def app_factory():
    """The app of a spawned worker (``uvicorn ... --factory``), from :data:`SETTINGS_ENV`."""
    return build_app(json.loads(os.environ[SETTINGS_ENV]))


def __getattr__(name: str) -> Any:
    """``Protocol``: the deadline protocol at the parent's ``request_timeout``, for a worker
    (uvicorn imports its ``http`` class by name in the new process)."""
    if name == "Protocol":
        from stichzoo.policies.serve.app import deadline_protocol

        return deadline_protocol(json.loads(os.environ[SETTINGS_ENV])["request_timeout"])
    raise AttributeError(name)


def run(settings: dict[str, Any]) -> None:
    """Serve until SIGINT / SIGTERM: one process, or ``settings["workers"]`` of them."""
    import uvicorn

    from stichzoo.policies.serve.app import server_config, server_options

    workers = settings.get("workers", 1)
    limits = {"request_timeout": settings["request_timeout"],
              "keep_alive": settings["keep_alive"],
              "limit_concurrency": settings["limit_concurrency"]}
    if workers == 1:
        uvicorn.Server(server_config(build_app(settings), settings["host"], settings["port"],
                                     **limits)).run()
        return
    if not settings["no_tables"]:  # the file opens (and migrates) once, here, or we stop
        open_store(settings).shutdown()
    os.environ[SETTINGS_ENV] = json.dumps(settings)
    uvicorn.run(f"{__name__}:app_factory",
                **server_options(settings["host"], settings["port"], workers=workers, **limits))
