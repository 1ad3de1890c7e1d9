"""Tables generated from the calculators and written into the docs between markers.

A page holds ``<!-- table: ID -->`` ... ``<!-- /table -->``; :func:`update_blocks`
replaces what is between the markers with the table the registered function produces,
so the Markdown source always shows the real numbers and a test can recompute them.
Generation is deterministic: fixed rounding per column and a fixed row order.

>>> table = Table(id="demo", caption="Demo", columns=("model", "GiB"), align=("l", "r"),
...               rows=(("a", "1.00"), ("b", "2.50")))
>>> print(render_markdown(table, version="0.0.0"))
<BLANKLINE>
| model | GiB |
|:--|--:|
| a | 1.00 |
| b | 2.50 |
<BLANKLINE>
*Table demo (v0.0.0). Demo*
<BLANKLINE>
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from calculators.errors import UnknownNameError


@dataclass(frozen=True)
class Table:
    """A generated table: stable id, caption, column names and formatted cells."""

    id: str
    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = ()
    after: str = ""  # optional raw block (e.g. an SVG figure) placed after the caption


_BLOCK = re.compile(r"(<!-- table: (?P<id>[a-z0-9-]+) -->\n)(?P<body>.*?)(<!-- /table -->)", re.DOTALL)

#: Table id -> function producing it. Modules register their tables on import of
#: :mod:`calculators.table_registry`.
TableFunction = Callable[[], Table]


def render_markdown(table: Table, *, version: str) -> str:
    """Markdown for a table, its caption (id, version, assumptions) and any figure."""
    align = table.align or tuple("l" for _ in table.columns)
    marks = {"l": ":--", "r": "--:", "c": ":-:"}
    lines = ["", "| " + " | ".join(map(_cell, table.columns)) + " |", "|" + "|".join(marks[a] for a in align) + "|"]
    lines += ["| " + " | ".join(map(_cell, row)) + " |" for row in table.rows]
    caption = f"*Table {table.id} (v{version}). {table.caption}"
    if table.assumptions:
        caption += " Assumptions: " + "; ".join(table.assumptions) + "."
    lines += ["", caption + "*", ""]
    if table.after:
        lines += [table.after, ""]
    return "\n".join(lines)


def _cell(text: str) -> str:
    """A cell's text with the characters that would break a Markdown table escaped."""
    return text.replace("|", "\\|").replace("\n", " ")


def update_blocks(text: str, tables: dict[str, TableFunction], *, version: str) -> str:
    """Return ``text`` with every ``<!-- table: ID -->`` block regenerated.

    Raises :class:`~calculators.errors.UnknownNameError` for an id nobody registered.
    """

    def replace(match: re.Match[str]) -> str:
        table_id = match.group("id")
        if table_id not in tables:
            raise UnknownNameError("table", table_id, sorted(tables))
        return match.group(1) + render_markdown(tables[table_id](), version=version) + match.group(4)

    return _BLOCK.sub(replace, text)


def block_ids(text: str) -> list[str]:
    """Ids of the generated-table blocks in a page, in order."""
    return [match.group("id") for match in _BLOCK.finditer(text)]
