"""Every generated table on the site, by id: the one list ``scripts/gen_tables.py`` and the tests use.

Tables live in the modules of :mod:`calculators.doc_tables`, one per docs section, each
with a ``TABLES`` dict; this module collects them and refuses duplicate ids.

>>> "accuracy-summary" in all_tables()
True
"""

from __future__ import annotations

import importlib
import pkgutil

from calculators import doc_tables
from calculators.tables import TableFunction


def all_tables() -> dict[str, TableFunction]:
    """Table id -> zero-argument function producing the table."""
    tables: dict[str, TableFunction] = {}
    for info in sorted(pkgutil.iter_modules(doc_tables.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{doc_tables.__name__}.{info.name}")
        for table_id, function in getattr(module, "TABLES", {}).items():
            if table_id in tables:
                raise ValueError(f"table id {table_id!r} defined twice (again in {module.__name__})")
            tables[table_id] = function
    return tables
