"""The named calculators every face shares: one declaration per job a reader sizes.

A :class:`~calculators.jobs.calculator.Calculator` holds a job's inputs (fields declared once,
:mod:`calculators.inputs.fields`), the function that computes it through the engine, and its
views. The web face draws its form and shows its HTML (:mod:`calculators.widgets`); the command
line builds a subcommand from the same fields and prints its text or JSON
(:mod:`calculators.commands`, :mod:`calculators.cli`). Both compute through the calculator, so
one job has one code path. The registry (:mod:`calculators.jobs.registry`) holds every calculator
by name; each subject has its module here.
"""
