"""The lab wing of policies: levers tried for strength that no shipped bot, ladder rung,
bot level or documented command uses.  No module outside a lab folder imports this
package (tests/test_imports.py); it is not installed with the wheel.  Its verdicts:
``docs/lab/index.md``.
"""
