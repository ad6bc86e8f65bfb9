"""The lab wing of training: fitters and trainer options tried for strength and not
shipped (belief models, the learned match standing, the privileged critic).  No module
outside a lab folder imports this package (tests/test_imports.py); it is not installed
with the wheel.  Its verdicts: ``docs/lab/index.md``.
"""
