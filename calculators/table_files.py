"""The data files of a generated table: CSV of raw numbers, its metadata file, and JSON of the page's cells.

The site build (``scripts/mkdocs_hooks.py``) writes three files beside each page that shows a
table, in ``tables/``:

* ``ID.csv``: a header row, then one row per table row with numbers a spreadsheet reads as
  numbers: in the unit the header names, unrounded, without thousands separators; an
  unknown value is an empty cell (the page shows ``-`` or ``—``).
* ``ID.csv-metadata.json``: what the CSV is, in the W3C "CSV on the Web" layout (the name
  a CSVW processor looks for next to ``ID.csv``): the table's id, title, caption and
  assumptions, the package version and the catalog's as-of date, the function that computes
  the table, the sources its cells link to, and each column's unit.
* ``ID.json``: the cells as the page shows them, with the caption and a citation.

Every address in the files is relative (the CSV beside its metadata) except the citation's,
which names where the site is published.

>>> from calculators.columns import Column, gib_column
>>> table = Table.of((Column("model"), gib_column("GiB", grouped=True)), [("a, b", 1024 * 2**30), ("c", None)],
...                  id="demo", caption="Demo.")
>>> table.rows
(('a, b', '1,024.00'), ('c', '-'))
>>> print(to_csv(table), end="")
model,GiB
"a, b",1024.0
c,
"""

from __future__ import annotations

import csv
import functools
import io
import json
import posixpath
import re
from collections.abc import Callable, Sequence

from calculators.tables import SITE_NAME, Table, caption_parts, citation, data_path, page_url

#: Cells that mean "no value" on a page: an empty CSV cell.
MISSING = frozenset({"", "-", "—", "–", "n/a"})
_NUMBER = re.compile(r"[+\-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")
_PERCENT = re.compile(r"(?P<number>[+\-−]?\d[\d,]*(?:\.\d+)?) ?%")
_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]*)\)")
#: Significant digits a raw number keeps: far beyond any figure's accuracy, short of binary noise
#: (12.299999999999999 is written 12.3).
DIGITS = 12


def csv_cell(value: object) -> object:
    """One value as the CSV holds it: a number as a number, a missing value empty, text without Markdown.

    A raw number (from a typed column) keeps :data:`DIGITS` significant digits; a cell's text is
    read back: ``1,008`` is ``1008``, ``25 %`` is ``25`` (the metadata names the unit), ``-`` and
    ``—`` are empty, a link keeps its text, inline code loses its backticks.

    >>> [csv_cell(v) for v in (12.299999999999999, 8192, None, True, "1,008", "—", "25 %", "[H100](x.md)", "`f`")]
    [12.3, 8192, None, True, '1008', None, '25', 'H100', 'f']
    """
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return float(f"{value:.{DIGITS}g}")
    text = _LINK.sub(r"\1", str(value)).replace("`", "").strip()
    if text in MISSING:
        return None
    percent = _PERCENT.fullmatch(text)
    if percent:
        text = percent.group("number")
    if _NUMBER.fullmatch(text):
        return text.replace(",", "").replace("−", "-")
    return text


def csv_rows(table: Table) -> list[list[object]]:
    """The table's rows as the CSV holds them: its typed columns' raw values, else its cells read back."""
    rows: Sequence[Sequence[object]] = table.data if len(table.data) == len(table.rows) else table.rows
    return [[csv_cell(value) for value in row] for row in rows]


def to_csv(table: Table) -> str:
    """The table as CSV text: a header row, then raw numbers and plain text (``\\n`` line ends).

    >>> print(to_csv(Table(id="t", caption="c", columns=("a", "b"), rows=(("x, y", "1,024"),))), end="")
    a,b
    "x, y",1024
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.columns)
    writer.writerows(csv_rows(table))
    return out.getvalue()


def _unit(table: Table, index: int, values: list[object]) -> str:
    declared = table.units[index] if index < len(table.units) else ""
    if declared:
        return declared
    cells = [str(row[index]) for row in table.rows if index < len(row)]
    if values and any(v is not None for v in values) and all(
            _PERCENT.fullmatch(cell) for cell in cells if cell.strip() not in MISSING):
        return "%"
    return ""


def sources(table: Table) -> list[str]:
    """The table's declared sources and every web address its caption, assumptions and cells link to, sorted.

    >>> sources(Table(caption="From [x](https://b.org/).", columns=("s",), rows=(("<https://a.org/x>",),)))
    ['https://a.org/x', 'https://b.org/']
    """
    text = " ".join((table.caption, *table.assumptions, *(cell for row in table.rows for cell in row)))
    return sorted(set(table.sources) | set(re.findall(r"https?://[^\s)>\]|\"']+", text)))


def csv_metadata(table: Table, *, version: str, catalog_as_of: str = "", src_path: str = "", site_url: str = "",
                 computed_by: str = "") -> str:
    """The CSV's metadata file (``ID.csv-metadata.json``, W3C CSV on the Web layout): what, which edition, sources, units.

    Args:
        table: The table.
        version: The package version the numbers come from.
        catalog_as_of: The catalog's as-of date.
        src_path: The page's path under docs/ (the page is named relative to the CSV file).
        site_url: The published address, for the citation only.
        computed_by: The dotted name of the function that builds the table.

    >>> from calculators.columns import Column, gib_column
    >>> table = Table.of((Column("model"), gib_column("GiB")), [("a", 2**30)], id="t", caption="Weights. Bf16.")
    >>> data = json.loads(csv_metadata(table, version="0.1.0", catalog_as_of="2026-11-21", src_path="memory/index.md"))
    >>> data["url"], data["dc:title"], data["schema:version"], data["dc:date"], data["dc:isPartOf"]
    ('t.csv', 'Weights.', '0.1.0', '2026-11-21', '../')
    >>> [(c["titles"], c["datatype"], c.get("schema:unitText")) for c in data["tableSchema"]["columns"]]
    [('model', 'string', None), ('GiB', 'number', 'GiB (2^30 bytes)')]
    """
    title, notes = caption_parts(table)
    rows = csv_rows(table)
    columns = []
    for index, name in enumerate(table.columns):
        values = [row[index] for row in rows]
        present = [value for value in values if value is not None]
        numeric = bool(present) and all(isinstance(value, (int, float)) and not isinstance(value, bool)
                                        or isinstance(value, str) and _NUMBER.fullmatch(value) for value in present)
        column: dict[str, object] = {"name": f"c{index + 1}", "titles": name,
                                     "datatype": "number" if numeric else "string"}
        unit = _unit(table, index, values) if numeric else ""
        if unit:
            column["schema:unitText"] = unit
        columns.append(column)
    page = page_url(src_path) if src_path else ""
    record: dict[str, object] = {
        "@context": "http://www.w3.org/ns/csvw",
        "url": f"{table.id}.csv",
        "dc:identifier": table.id,
        "dc:title": title,
        "dc:description": table.caption,
        "schema:version": version,
        "dc:date": catalog_as_of,
        "dc:publisher": SITE_NAME,
        # The page the table is on, relative to the CSV (both sit under the page's source folder).
        "dc:isPartOf": _relative_page(src_path, page) if src_path else "",
        "assumptions": list(table.assumptions),
        "notes": notes,
        "computed_by": computed_by,
        "dc:source": sources(table),
        "citation": citation(f"table {table.id}", version=version, catalog_as_of=catalog_as_of)
        + (f" {page_url(src_path, site_url=site_url)}#{table.id}" if src_path and site_url else ""),
        "tableSchema": {"columns": columns},
    }
    return json.dumps(record, indent=2, ensure_ascii=False) + "\n"


def _relative_page(src_path: str, page: str) -> str:
    """The page's URL relative to its data files' folder (``<source folder>/tables/`` in the built site).

    >>> _relative_page("memory/activations.md", "memory/activations/"), _relative_page("index.md", "")
    ('../activations/', '../')
    """
    folder = posixpath.dirname(data_path(src_path, "x", "csv"))
    return posixpath.relpath(page.rstrip("/") or ".", folder) + "/"


def to_json(table: Table, *, version: str, catalog_as_of: str = "", src_path: str = "", site_url: str = "") -> str:
    """The table as JSON text (UTF-8, sorted layout, ends with a newline): cells, caption and provenance.

    Keys: ``id``, ``caption``, ``version``, ``catalog_as_of``, ``assumptions``, ``columns``,
    ``rows`` (lists of cell strings, as the page shows them), ``page`` (the page's URL), ``url``
    (the table's anchor), ``csv`` and ``csv_metadata`` (beside this file), ``citation``.

    >>> data = json.loads(to_json(Table(id="t", caption="c", columns=("a",), rows=(("1",),)), version="0.1.0",
    ...                           src_path="memory/index.md", site_url="https://example.org/"))
    >>> data["url"], data["rows"], data["csv"]
    ('https://example.org/memory/#t', [['1']], 't.csv')
    """
    page = page_url(src_path, site_url=site_url) if src_path else ""
    record = {
        "id": table.id,
        "caption": table.caption,
        "version": version,
        "catalog_as_of": catalog_as_of,
        "assumptions": list(table.assumptions),
        "columns": list(table.columns),
        "rows": [list(row) for row in table.rows],
        "page": page,
        "url": f"{page}#{table.id}",
        "csv": f"{table.id}.csv",
        "csv_metadata": f"{table.id}.csv-metadata.json",
        "citation": citation(f"table {table.id}", version=version, catalog_as_of=catalog_as_of),
    }
    return json.dumps(record, indent=2, ensure_ascii=False) + "\n"


def function_path(function: Callable[..., object]) -> str:
    """A table function's dotted name, through ``functools`` wrappers and partials; a lambda names its module.

    >>> import functools
    >>> from calculators.tables import first_sentence
    >>> function_path(functools.cache(functools.partial(first_sentence, limit=9)))
    'calculators.tables.first_sentence'
    """
    inner: object = function
    while True:
        if isinstance(inner, functools.partial):
            inner = inner.func
        elif hasattr(inner, "__wrapped__"):
            inner = inner.__wrapped__
        else:
            break
    name = getattr(inner, "__qualname__", "")
    module = getattr(inner, "__module__", "") or ""
    return module if not name or "<lambda>" in name else f"{module}.{name}"
