"""Tables generated from the calculators and written into the docs between markers.

A page holds ``<!-- table: ID -->`` ... ``<!-- /table -->``; :func:`update_blocks`
replaces what is between the markers with the table the registered function produces,
so the Markdown source always shows the real numbers and a test can recompute them.
Generation is deterministic: fixed rounding per column and a fixed row order.

Each block is citable: an anchor whose id is the table id, a short caption above the table
(the id, the edition and the caption's first sentence, :func:`caption_parts`), links to the
table's data files (``tables/ID.csv``, its metadata and ``tables/ID.json`` next to the page,
relative so they work wherever the site is served; the site build writes them, see
:mod:`calculators.table_files`), the rest of the caption and the assumptions folded below,
and a collapsed "Cite this table" snippet with the table's URL. The edition (the package
version and the catalog's as-of date) is not committed: it is the same on every block, so
the site build adds it (``version=``, ``catalog_as_of=``) and a release changes no page of docs/.

>>> table = Table(id="demo", caption="Demo. Batch 1.", columns=("model", "GiB"), align=("l", "r"),
...               rows=(("a", "1.00"), ("b", "2.50")))
>>> print(render_markdown(table))
<BLANKLINE>
<div class="generated-table" id="demo"></div>
<BLANKLINE>
**Table demo.** Demo.
<BLANKLINE>
| model | GiB |
|:--|--:|
| a | 1.00 |
| b | 2.50 |
<BLANKLINE>
Data: [CSV](tables/demo.csv) ([columns and sources](tables/demo.csv-metadata.json)) · [JSON](tables/demo.json)
<BLANKLINE>
??? note "About this table: assumptions and notes"
    Batch 1.
<BLANKLINE>
??? quote "Cite this table"
    ```text
    Sizing ML Hardware, table demo. #demo
    ```
<BLANKLINE>
>>> built = render_markdown(table, version="0.0.0", catalog_as_of="2026-01-31")
>>> print("\\n".join(line.strip() for line in built.splitlines() if "2026" in line))
**Table demo (v0.0.0, catalog as of 2026-01-31).** Demo.
Sizing ML Hardware, version 0.0.0, table demo (catalog as of 2026-01-31). #demo
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from calculators.columns import Column
from calculators.errors import UnknownNameError

# A page's and a table's addresses are a subject of their own; re-exported here, where the page generators,
# the site build and the tests import them.
from calculators.site_addresses import (
    DOCS_SITE_URL as DOCS_SITE_URL,
    data_path as data_path,
    page_url as page_url,
    site_url_problem as site_url_problem,
    versioned_site_url as versioned_site_url,
)

#: The title a citation names (mkdocs.yml ``site_name``).
SITE_NAME = "Sizing ML Hardware"


@dataclass(frozen=True, kw_only=True)
class Table:
    """A generated table: stable id, caption, column names and formatted cells.

    A page's table function declares its id once, with :func:`table`, and builds the Table without it.
    """

    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    id: str = ""
    align: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = ()
    after: str = ""  # optional raw block (e.g. an SVG figure) placed after the caption
    notes: tuple[str, ...] = ()  # per column, what its values mean ("" none): the web face's header tooltips
    #: The rows as the CSV file holds them (:meth:`of` fills it from each column's ``raw``); empty: read back
    #: from the cells (:func:`calculators.table_files.csv_cell`).
    data: tuple[tuple[object, ...], ...] = ()
    #: Each column's unit, as the CSV's metadata file names it (:attr:`calculators.columns.Column.unit`).
    units: tuple[str, ...] = ()
    #: The documents the table's values come from (URLs), named in the CSV's metadata file with any the cells link to.
    sources: tuple[str, ...] = ()

    @classmethod
    def of(cls, columns: Sequence[Column], rows: Iterable[Sequence[Any]], **fields: Any) -> Table:
        """A table whose rows hold raw values (bytes, counts, fractions), formatted by their typed columns
        (:mod:`calculators.columns`).

        >>> from calculators.columns import Column, gib_column
        >>> Table.of((Column("model"), gib_column("GiB")), [("a", 2**30), ("b", 2.5 * 2**30)], caption="c").rows
        (('a', '1.00'), ('b', '2.50'))
        >>> Table.of((Column("a"), Column("b", note="what b means")), [], caption="c").notes
        ('', 'what b means')
        """
        if any(column.note for column in columns):
            fields = {"notes": tuple(column.note for column in columns), **fields}
        listed = [tuple(row) for row in rows]
        return cls(columns=tuple(column.name for column in columns), align=tuple(column.align for column in columns),
                   rows=tuple(tuple(column.text(value) for column, value in zip(columns, row, strict=True))
                              for row in listed),
                   data=tuple(tuple(column.text(value) if column.raw is None else column.raw(value)
                                    for column, value in zip(columns, row, strict=True)) for row in listed),
                   units=tuple(column.unit for column in columns), **fields)

    @classmethod
    def key_numbers(cls, rows: Iterable[Sequence[str | Callable[..., object]]], *,
                    columns: Sequence[str] = ("quantity", "value", "unit", "computed by"), figures: int = 1,
                    dotted: bool = False, code: bool = True, **fields: Any) -> Table:
        """A page's key numbers: each row names a quantity, then its ``figures`` right-aligned figures, formatted
        by the row (each row has its own unit), then left-aligned text; a function in a row is cited by
        :func:`computed_by` (with ``dotted`` and ``code``).

        >>> from calculators.units import gib
        >>> table = Table.key_numbers([("two GiB", gib(2**31), "GiB", gib)], caption="c.", dotted=True)
        >>> table.rows, table.align
        ((('two GiB', '2.00', 'GiB', '`calculators.units.gib`'),), ('l', 'r', 'l', 'l'))
        """
        def cell(value: str | Callable[..., object]) -> str:
            return value if isinstance(value, str) else computed_by(value, dotted=dotted, code=code)

        align = ("l", *("r",) * figures, *("l",) * (len(columns) - 1 - figures))
        return cls.of([Column(name, cell, side) for name, side in zip(columns, align, strict=True)], rows, **fields)


#: A block: ``<!-- table: ID -->`` or, for a long reference table readers consult rather than read,
#: ``<!-- table: ID folded -->`` (:data:`BLOCK_OPTIONS`), the generated Markdown, ``<!-- /table -->``.
_BLOCK = re.compile(r"(?P<open><!-- table: (?P<id>[a-z0-9-]+)(?P<options>(?: [a-z]+)*) -->\n)(?P<body>.*?)"
                    r"(?P<close><!-- /table -->)", re.DOTALL)

#: Options a block's opening marker may name after the id. ``folded``: the rows are rendered in a
#: closed ``???`` box under the caption (a long list is a page's length otherwise; the caption, the
#: data links and the cite snippet stay visible, and the browser's find-in-page searches it once open).
BLOCK_OPTIONS = frozenset({"folded"})

#: Table id -> function producing it. Modules register their tables on import of
#: :mod:`calculators.table_registry`.
TableFunction = Callable[[], Table]


_ID = re.compile(r"[a-z0-9][a-z0-9-]*")


def checked_id(kind: str, declared_id: str) -> str:
    """``declared_id`` when it is lowercase letters, digits and hyphens (a table's or a value's id).

    >>> checked_id("table", "Bad id")
    Traceback (most recent call last):
    ...
    ValueError: table id 'Bad id': use lowercase letters, digits and hyphens
    """
    if not _ID.fullmatch(declared_id):
        raise ValueError(f"{kind} id {declared_id!r}: use lowercase letters, digits and hyphens")
    return declared_id


def declared_under(namespace: Mapping[str, object], attribute: str) -> dict[str, Callable[[], object]]:
    """The functions of a module's namespace that carry an id in ``attribute``, id -> function, in order."""
    return {getattr(function, attribute): function for function in namespace.values()
            if callable(function) and isinstance(getattr(function, attribute, None), str)}


def table(table_id: str) -> Callable[[TableFunction], TableFunction]:
    """Declare a table function under its id, written here once: the Table it builds gets this id.

    >>> @table("demo-table")
    ... def demo() -> Table:
    ...     return Table(caption="c", columns=("a",), rows=(("1",),))
    >>> demo().id, demo.table_id, demo.__name__
    ('demo-table', 'demo-table', 'demo')
    """
    checked_id("table", table_id)

    def declare(build: TableFunction) -> TableFunction:
        @functools.wraps(build)
        def built() -> Table:
            made = build()
            if made.id not in ("", table_id):
                raise ValueError(f"{build.__qualname__} is declared as table {table_id!r} but builds {made.id!r}")
            return dataclasses.replace(made, id=table_id)

        built.table_id = table_id  # type: ignore[attr-defined]
        return built

    return declare


def declared_tables(namespace: dict[str, object]) -> dict[str, TableFunction]:
    """The tables a module declares with :func:`table`, id -> function, in the order they are defined."""
    return declared_under(namespace, "table_id")  # type: ignore[return-value]


def computed_by(function: Callable[..., object], *, dotted: bool = False, code: bool = True) -> str:
    """How a page names the engine function behind a figure, read from the function itself.

    A page cites the function object, never its name typed as text, so a renamed or moved
    function changes the page instead of leaving a stale name. ``dotted`` gives the module
    path, ``code`` the backticks of inline code.

    >>> from calculators.memory.weights import weight_bytes
    >>> computed_by(weight_bytes), computed_by(weight_bytes, dotted=True, code=False)
    ('`weight_bytes`', 'calculators.memory.weights.weight_bytes')
    """
    name = f"{function.__module__}.{function.__qualname__}" if dotted else function.__qualname__
    return f"`{name}`" if code else name


# --------------------------------------------------------------------------- Markdown
def render_markdown(table: Table, *, version: str = "", catalog_as_of: str = "", src_path: str = "",
                    site_url: str = "", folded: bool = False) -> str:
    """Markdown for a table block: anchor, short caption, table, data links, any figure, folded notes, cite snippet.

    The caption above the table names the id, the edition and the caption's title
    (:func:`caption_parts`); the rest of the caption and the assumptions are folded below the
    data links. The data links are relative to the page, so they work wherever the site is
    served; only the citation names the site's address.

    Args:
        table: The table.
        version: Package version the numbers come from (``calculators.__version__``); the
            committed pages leave it out, the site build names it.
        catalog_as_of: The catalog's edition date (:func:`calculators.catalog.edition.catalog_as_of`),
            likewise added by the build.
        src_path: The page's path under docs/ (for the absolute URL of the cite snippet).
        site_url: The site's base URL (mkdocs.yml ``site_url``).
        folded: Put the rows in a closed box under the caption (``<!-- table: ID folded -->``).

    >>> folded = render_markdown(Table(id="demo", caption="Demo.", columns=("a",), rows=(("1",),)), folded=True)
    >>> print("\\n".join(folded.splitlines()[5:10]))
    ??? abstract "Show the table: 1 row"
    <BLANKLINE>
        | a |
        |:--|
        | 1 |
    """
    align = table.align or tuple("l" for _ in table.columns)
    marks = {"l": ":--", "r": "--:", "c": ":-:"}
    title, notes = caption_parts(table)
    stamp = edition(version, catalog_as_of)
    lines = ["", f'<div class="generated-table" id="{table.id}"></div>', "",
             f"**Table {table.id}" + (f" ({stamp})" if stamp else "") + f".** {title}", ""]
    grid = ["| " + " | ".join(map(_cell, table.columns)) + " |", "|" + "|".join(marks[a] for a in align) + "|"]
    grid += ["| " + " | ".join(map(_cell, row)) + " |" for row in table.rows]
    if folded:
        count = len(table.rows)
        grid = [f'??? abstract "Show the table: {count:,} row{"" if count == 1 else "s"}"', ""] + ["    " + line for line in grid]
    lines += grid
    lines += ["", f"Data: [CSV](tables/{table.id}.csv) ([columns and sources](tables/{table.id}.csv-metadata.json))"
              f" · [JSON](tables/{table.id}.json)", ""]
    if table.after:
        lines += [table.after, ""]
    if notes:
        lines += ['??? note "About this table: assumptions and notes"', f"    {notes}", ""]
    anchor = page_url(src_path, site_url=site_url) + "#" + table.id if src_path else "#" + table.id
    cite = citation(f"table {table.id}", version=version, catalog_as_of=catalog_as_of)
    lines += ['??? quote "Cite this table"', "    ```text", f"    {cite} {anchor}", "    ```", ""]
    return "\n".join(lines)


#: The most words a caption's title (the line above its table) has; a longer first sentence is cut.
TITLE_WORDS = 25


def caption_parts(table: Table) -> tuple[str, str]:
    """(title, notes) of a table's caption: the short line above the table and what is folded below it.

    The title is the caption's first sentence when it has at most :data:`TITLE_WORDS` words,
    else its first clause (up to a colon, semicolon or parenthesis) when that is short enough,
    else its first words and an ellipsis; the notes hold the rest of the caption (all of it
    when the title was cut) and the assumptions.

    >>> caption_parts(Table(caption="Peak GiB by size. Batch 1.", columns=(), rows=(), assumptions=("bf16",)))
    ('Peak GiB by size.', 'Batch 1. Assumptions: bf16.')
    >>> long = "Memory of one step, derived by training_memory: " + "word " * 30 + "end."
    >>> title, notes = caption_parts(Table(caption=long, columns=(), rows=()))
    >>> title, notes == long
    ('Memory of one step, derived by training_memory.', True)
    """
    caption = table.caption.strip()
    sentence = first_sentence(caption, limit=len(caption) + 1)
    if len(sentence.split()) <= TITLE_WORDS:
        title, rest = sentence, caption[len(sentence):].strip()
    else:
        clause = re.split(r":\s|;\s|\s\(", sentence, maxsplit=1)[0].rstrip(",. ")
        words = clause.split()
        title = clause + "." if 3 <= len(words) <= TITLE_WORDS else " ".join(sentence.split()[:20]) + "…"
        rest = caption
    if table.assumptions:
        rest += (" " if rest else "") + "Assumptions: " + "; ".join(table.assumptions) + "."
    return title, rest


def edition(version: str, catalog_as_of: str = "") -> str:
    """The edition the numbers come from, as captions and hover texts name it (empty without either).

    >>> edition("0.1.0", "2026-11-21")
    'v0.1.0, catalog as of 2026-11-21'
    >>> edition("")
    ''
    """
    named = (f"v{version}" if version else "", f"catalog as of {catalog_as_of}" if catalog_as_of else "")
    return ", ".join(part for part in named if part)


def citation(name: str, *, version: str = "", catalog_as_of: str = "") -> str:
    """The one-line citation of a table (``table ID``) or value (``value ID``), without its URL.

    >>> citation("table hardware-catalog", version="0.1.0", catalog_as_of="2026-11-21")
    'Sizing ML Hardware, version 0.1.0, table hardware-catalog (catalog as of 2026-11-21).'
    >>> citation("value x")
    'Sizing ML Hardware, value x.'
    """
    dated = f" (catalog as of {catalog_as_of})" if catalog_as_of else ""
    return f"{SITE_NAME}, " + (f"version {version}, " if version else "") + f"{name}{dated}."


def _cell(text: str) -> str:
    """A cell's text with the characters that would break a Markdown table escaped."""
    return text.replace("|", "\\|").replace("\n", " ")


def update_blocks(text: str, tables: Mapping[str, TableFunction], *, version: str = "", catalog_as_of: str = "",
                  src_path: str = "", site_url: str = "") -> str:
    """Return ``text`` with every ``<!-- table: ID -->`` block regenerated.

    Keyword arguments are those of :func:`render_markdown`.

    Raises :class:`~calculators.errors.UnknownNameError` for an id nobody registered.
    """

    def replace(match: re.Match[str]) -> str:
        table_id = match.group("id")
        if table_id not in tables:
            raise UnknownNameError("table", table_id, sorted(tables))
        options = set(match.group("options").split())
        if options - BLOCK_OPTIONS:
            raise ValueError(f"table {table_id}: unknown option(s) {sorted(options - BLOCK_OPTIONS)} in its marker; "
                             f"accepted: {sorted(BLOCK_OPTIONS)}")
        body = render_markdown(tables[table_id](), version=version, catalog_as_of=catalog_as_of,
                               src_path=src_path, site_url=site_url, folded="folded" in options)
        return match.group("open") + body + match.group("close")

    return _BLOCK.sub(replace, text)


def block_ids(text: str) -> list[str]:
    """Ids of the generated-table blocks in a page, in order."""
    return [match.group("id") for match in _BLOCK.finditer(text)]


def first_sentence(caption: str, *, limit: int = 200) -> str:
    """The caption's first sentence (for lists of tables), cut at ``limit`` characters.

    >>> first_sentence("Peak memory by size (GiB). Assumptions follow.")
    'Peak memory by size (GiB).'
    >>> first_sentence("Ratio, e.g. 2. Then more.")
    'Ratio, e.g. 2.'
    """
    match = re.search(r"(?<!e\.g)(?<!i\.e)(?<!vs)\.\s+(?=[A-Z'\"(`*])", caption)
    sentence = caption[: match.start() + 1] if match else caption
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"
