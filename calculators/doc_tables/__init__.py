"""Generated documentation tables, one module per docs section.

Each module declares its tables with :func:`calculators.tables.table`, the id written once::

    @table("interconnect-links")
    def links() -> Table:
        return Table(caption=..., columns=..., rows=...)   # no id: the declaration gives it

and ends with ``TABLES = declared_tables(globals())`` (id -> function, in definition order).
Tables built elsewhere or from a pattern (the accuracy tables, the claims audit's subjects,
the recommend examples) are entered in ``TABLES`` by hand. Table ids are unique across the
site (checked by tests/content/test_generated_tables.py). Modules are discovered
automatically by :func:`calculators.table_registry.all_tables`.
"""
