"""Tests of human play: the table model, the terminal, the browser table."""
