"""Generated documentation tables, one module per docs section.

Each module defines ``TABLES: dict[str, Callable[[], Table]]``; table ids are unique
across the site (checked by tests/content/test_generated_tables.py). Modules are discovered
automatically by :func:`calculators.table_registry.all_tables`.
"""
