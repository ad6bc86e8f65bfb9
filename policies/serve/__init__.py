"""The bot server: ask bots for moves over HTTP or JSON lines (``stichzoo serve``).

    from stichzoo.policies.serve import create_app, serve_stdio
    app = create_app("policies/bots")        # FastAPI; the browser table at / too

One module per job:

- :mod:`~stichzoo.policies.serve.app`: the FastAPI app (``/bots``, OpenAPI)
  and the uvicorn settings;
- :mod:`~stichzoo.policies.serve.server`: the ``stichzoo serve`` process - one,
  or ``--workers N`` on one table store - and its graceful stop;
- :mod:`~stichzoo.policies.serve.stdio`: the JSON-lines transport;
- :mod:`~stichzoo.policies.serve.registry`: the bots a server answers for
  and how a player view becomes a move;
- :mod:`~stichzoo.policies.serve.levels`: the difficulty levels and the
  measured strength behind each;
- :mod:`~stichzoo.policies.serve.requests`: reading and checking request
  bodies, for every endpoint (the bots' and the table API's).
"""

from stichzoo.policies.serve.app import (
    DEFAULT_KEEP_ALIVE,
    DEFAULT_LIMIT_CONCURRENCY,
    DEFAULT_REQUEST_TIMEOUT,
    create_app,
    server_config,
)
from stichzoo.policies.serve.registry import BotError, BotRegistry
from stichzoo.policies.serve.requests import DEFAULT_MAX_BODY_BYTES, RequestError
from stichzoo.policies.serve.stdio import serve_stdio

__all__ = ["DEFAULT_KEEP_ALIVE", "DEFAULT_LIMIT_CONCURRENCY", "DEFAULT_MAX_BODY_BYTES",
           "DEFAULT_REQUEST_TIMEOUT", "BotError", "BotRegistry", "RequestError", "create_app",
           "serve_stdio", "server_config"]
