"""Every generated table on the site, by id: the one list ``scripts/gen_tables.py`` and the tests use.

>>> "accuracy-summary" in all_tables()
True
"""

from __future__ import annotations

from calculators import accuracy
from calculators.measurements import load_measurements
from calculators.tables import TableFunction


def all_tables() -> dict[str, TableFunction]:
    """Table id -> zero-argument function producing the table."""
    return {
        "accuracy-summary": lambda: accuracy.summary_table(load_measurements()),
        "accuracy-cases": lambda: accuracy.cases_table(load_measurements()),
    }
