"""Extra widget calculators, one module each, discovered by :mod:`calculators.widgets.registry`.

A module here defines ``calculators() -> list[Calculator]``; names must not clash with
the built-in ones (training-memory, inference-memory, kv-cache, fit).
"""
