"""Tests of trainers, fitters, configs, evaluation, the ladder, the Gymnasium and RLlib faces."""
