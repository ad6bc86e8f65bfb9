"""Training and evaluation of stichzoo agents - filled by later work."""
