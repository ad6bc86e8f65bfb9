"""Tests of the bots: heuristics, the search and its hooks, specs, policy runtimes."""
