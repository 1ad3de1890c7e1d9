"""Generated numbers in the prose of the docs, one module per docs section.

A sentence that states a computed result holds a value marker instead of a typed number, and
``scripts/gen_tables.py`` (or ``--only docs/<page>.md``) writes the number between the markers
(:mod:`calculators.inline_values` says how). To add one:

1. In a module here, write a named function returning a
   :class:`calculators.inline_values.Value` (usually through
   :func:`calculators.inline_values.quantity`, which fixes the rounding and the unit), that
   calls the calculators; never return a typed constant for a computed result.
2. Give it a new id (lowercase, digits, hyphens; prefixed by the page's section), written once:
   ``@value("value-id")`` on a function that takes the id, or, for several values from one
   function that takes the id first, a key of the module's
   ``VALUES = declared_values(globals(), {"value-id": bound(function, setting=...)})``, which
   becomes ``functools.partial(function, "value-id", setting=...)``; lambdas are refused (a
   value's provenance names its function).
3. Put ``<!-- value: ID -->?<!-- /value -->`` in the sentence, never at the start of a line
   (Python-Markdown would split the paragraph), and run ``scripts/gen_tables.py``.

The same number in two places gets two ids. ``tests/content/test_inline_values.py`` recomputes
every marker, and flags numbers with units (GiB, GB, GB/s, %, $, ...) typed into prose
outside markers unless the paragraph carries ``<!-- quoted: SOURCE -->``. Modules are
discovered by :func:`calculators.table_registry.all_values`; the site-wide list is the
``values-index`` table on docs/tables/index.md, and
:func:`calculators.table_registry.values_json` gives the same data as JSON.
"""
