"""Tests of the games: rules cores, envs, observations, views, the batch engine, records."""
