"""Generated documentation tables, one module per docs section.

Each module declares its tables with :func:`calculators.tables.table`, the id written once::

    @table("interconnect-links")
    def links() -> Table:
        return Table.of(columns, rows, caption=...)   # no id: the declaration gives it

Rows hold raw numbers, formatted by typed columns (:mod:`calculators.columns`); a page's key
numbers are :meth:`calculators.tables.Table.key_numbers`. An assumption that a result states
is read from it (the runtime overhead is the last of ``MemoryEstimate.assumptions``). A module
ends with ``TABLES = declared_tables(globals())`` (id -> function, in definition order).
Tables built elsewhere or from a pattern (the accuracy tables, the claims audit's subjects,
the recommend examples) are entered in ``TABLES`` by hand. Table ids are unique across the
site (checked by tests/content/test_generated_tables.py). Modules are discovered
automatically by :func:`calculators.table_registry.all_tables`.
"""
