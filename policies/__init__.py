"""Policies that play stichzoo games: random, rule-based, search, learned (later work)."""
