"""Human play: one person and bots at a table, the rules engine as referee.

- :mod:`~stichzoo.policies.tables.table`: the table model (:class:`Table`, a
  play session) and its store (:class:`TableStore`, many sessions for a
  server);
- :mod:`~stichzoo.policies.tables.terminal`: the terminal table
  (``stichzoo play``);
- :mod:`~stichzoo.policies.tables.web`: the browser table's JSON API and its
  page (``static/``), served by ``stichzoo serve``.
"""
