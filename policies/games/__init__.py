"""Each game's own bots: its rule-based heuristic, its fast rollout player and the
search hooks (:class:`stichzoo.policies.hooks.SearchHooks`) PIMC plays it with, one module
a game (``policies/games/<game>.py``).
"""
