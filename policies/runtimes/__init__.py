"""Runtimes of trained artifacts: a torch policy file, an exported ONNX bot, the
network classes they share, and the shipped models that are not bots (Hoch & Tief's leaf
value, Silberne Ananas' tricks to come; their files live in ``policies/models/``).
"""
