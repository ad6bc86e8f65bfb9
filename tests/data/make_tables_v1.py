"""Make tests/data/tables_v1.sqlite: a table store of schema version 1 with one Wizard table
in progress (three moves of the person played), for the migration test
(tests/tables/test_table_store_sqlite.py).  Run once when version 1 was current; later
versions of stichzoo must open the file as it is, so it is never made again.

    .venv/bin/python tests/data/make_tables_v1.py
"""

import os
import sqlite3

from stichzoo.policies.tables.store_sqlite import SqliteTables
from stichzoo.policies.tables.table import TableStore

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tables_v1.sqlite")

if __name__ == "__main__":
    if os.path.exists(PATH):
        raise SystemExit(f"{PATH} exists; it is a fixture of version 1 and never made again")
    store = TableStore(saved=SqliteTables(PATH, clock=lambda: 1_796_000_000.0))
    table_id, _ = store.create("wizard", num_players=4, options={"rounds": [1, 2, 3]},
                               opponents=["random", "heuristic", "pimc:worlds=3,rollouts=1"],
                               seed=2026, client="127.0.0.1")
    for _ in range(3):
        view = store.view(table_id)
        store.act(table_id, view["moves"][-1]["id"], view["decisions"])
    store.shutdown()
    db = sqlite3.connect(PATH)
    db.execute("PRAGMA journal_mode=DELETE")  # a single file, whatever opens it
    db.execute("VACUUM")
    db.close()
    print(PATH, os.path.getsize(PATH), "bytes")
