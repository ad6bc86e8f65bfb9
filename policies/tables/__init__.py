"""Human play: one person and bots at a table, the rules engine as referee.

- :mod:`~stichzoo.policies.tables.table`: the table model (:class:`Table`, a
  play session) and its store (:class:`TableStore`, many sessions for a
  server);
- :mod:`~stichzoo.policies.tables.terminal`: the terminal table
  (``stichzoo play``);
- :mod:`~stichzoo.policies.tables.store_sqlite`: the tables on disk (a SQLite file that
  keeps every table move by move, across restarts and processes);
- :mod:`~stichzoo.policies.tables.bot_state`: the bots' random generators, saved and
  restored, so that a resumed table plays on exactly as it would have;
- :mod:`~stichzoo.policies.tables.hints`: a hint and a game's analysis for the person;
- :mod:`~stichzoo.policies.tables.search_pool`: a server's hint searches in processes of
  their own, so they never hold up a move;
- :mod:`~stichzoo.policies.tables.rules_text`: the rules at hand (terminal and page).

The browser table's HTTP face lives with the server (``policies/serve/web_table.py``):
serving sits on the tables, never the other way round.
"""
