"""Tests of the lab wing: levers tried and not shipped (policies/lab, training/lab, probes)."""
