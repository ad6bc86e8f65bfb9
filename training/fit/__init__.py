"""Fitters of the shipped models that are not bots: Hoch & Tief's leaf value, Silberne
Ananas' tricks to come and the Wizard bid model.
"""
