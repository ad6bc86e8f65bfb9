"""Hints searched in a process of their own (policies/tables/search_pool.py) are the hints
searched in the request's thread: the seed travels with the call."""

import pytest

from stichzoo.policies.tables.search_pool import SearchPool
from stichzoo.policies.tables.table import Table, TableStore


def test_a_hint_from_the_search_process_is_the_hint_from_here():
    store = TableStore(search_processes=1)
    try:
        table_id, table = store.create("geheimtrumpf", num_players=4, opponents=["heuristic"],
                                       seed=9)
        decisions = table.decisions
        here = Table("geheimtrumpf", 4, opponents=["heuristic"], seed=9).hint(decisions)
        assert store.hint(table_id, decisions, client="c") == here
        assert store.searches._pool is not None  # it ran over there
    finally:
        store.shutdown()
    assert store.searches._pool is None
    assert store.hint(table_id, decisions) == here  # closed: searched here


@pytest.mark.parametrize("bad", [0, -1, True, 1.5])
def test_the_pool_refuses_a_bad_size(bad):
    with pytest.raises(ValueError, match="positive integer"):
        SearchPool(bad)
