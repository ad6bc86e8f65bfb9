"""Tests of the bot server and the browser table's HTTP face."""
