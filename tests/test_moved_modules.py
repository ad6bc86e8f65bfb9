"""Old import paths of policies/ keep working or fail with an ImportError naming the new path."""

from __future__ import annotations

import importlib

import pytest

from stichzoo.policies import MOVED_MODULES


@pytest.mark.parametrize("old,new", sorted(MOVED_MODULES.items()))
def test_a_moved_module_names_its_new_path(old, new):
    with pytest.raises(ImportError, match=f"{old} has moved: import {new}"):
        importlib.import_module(old)
    parent, _, name = old.rpartition(".")
    with pytest.raises(ImportError, match=f"has moved: import {new}"):
        exec(f"from {parent} import {name}", {})
    importlib.import_module(new)


def test_the_kept_paths_still_import():
    from stichzoo.policies.runtimes.onnx_policy import shipped_bot
    from stichzoo.policies.serve import (  # the names the module serve.py had
        DEFAULT_KEEP_ALIVE,
        DEFAULT_LIMIT_CONCURRENCY,
        DEFAULT_MAX_BODY_BYTES,
        DEFAULT_REQUEST_TIMEOUT,
        BotError,
        BotRegistry,
        create_app,
        serve_stdio,
        server_config,
    )

    assert callable(shipped_bot) and callable(create_app) and callable(serve_stdio)
    assert callable(server_config) and issubclass(BotError, ValueError) and BotRegistry
    assert DEFAULT_MAX_BODY_BYTES == 1 << 20 and DEFAULT_REQUEST_TIMEOUT > 0
    assert DEFAULT_KEEP_ALIVE > 0 and DEFAULT_LIMIT_CONCURRENCY > 0


def test_an_unknown_name_is_still_an_attribute_error():
    import stichzoo.policies as policies

    with pytest.raises(AttributeError):
        policies.no_such_thing  # noqa: B018
