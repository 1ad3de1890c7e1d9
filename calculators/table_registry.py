"""Every generated table and prose value on the site, by id: the one list ``scripts/gen_tables.py`` and the tests use.

Tables live in the modules of :mod:`calculators.doc_tables`, one per docs section, each
with a ``TABLES`` dict; values (numbers in the prose, :mod:`calculators.inline_values`)
live in the modules of :mod:`calculators.doc_values`, each with a ``VALUES`` dict. This
module collects both and refuses duplicate ids, and ids used both as a table and a value.
The index of tables and the index of values (docs/tables/index.md) are the tables that
depend on the pages themselves: :func:`site_tables` adds them, bound to the pages' Markdown.

>>> "accuracy-summary" in all_tables() and "accuracy-case-count" in all_values()
True
"""

from __future__ import annotations

import functools
import importlib
import json
import pkgutil
import posixpath
from collections.abc import Mapping

from calculators import doc_tables, doc_values
from calculators.catalog.edition import catalog_as_of
from calculators.errors import UnknownNameError
from calculators.inline_values import ValueFunction, function_name, to_record, update_values, value_ids
from calculators.tables import (
    Table,
    TableFunction,
    block_ids,
    data_path,
    first_sentence,
    page_url,
    update_blocks,
    versioned_site_url,
)
from calculators.version import __version__


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


def all_values() -> dict[str, ValueFunction]:
    """Value id -> the named zero-argument function producing the value (:mod:`calculators.doc_values`)."""
    values: dict[str, ValueFunction] = {}
    for info in sorted(pkgutil.iter_modules(doc_values.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{doc_values.__name__}.{info.name}")
        for value_id, function in getattr(module, "VALUES", {}).items():
            if value_id in values:
                raise ValueError(f"value id {value_id!r} defined twice (again in {module.__name__})")
            function_name(function)  # refuses lambdas: a value's provenance names its function
            values[value_id] = function
    return values


# --------------------------------------------------------------------------- the index of tables
#: The page that lists every table (docs/tables/index.md) and the id of its list.
INDEX_PAGE = "tables/index.md"
INDEX_ID = "tables-index"


def table_locations(pages: Mapping[str, str]) -> dict[str, str]:
    """Table id -> the docs page (path under docs/) whose Markdown holds its block.

    Args:
        pages: Page path under docs/ (``"hardware/index.md"``) -> the page's Markdown.

    Raises:
        ValueError: an id appears in two blocks.

    >>> table_locations({"a.md": "<!-- table: x -->\\n<!-- /table -->", "b/index.md": ""})
    {'x': 'a.md'}
    """
    where: dict[str, str] = {}
    for path in sorted(pages):
        for table_id in block_ids(pages[path]):
            if table_id in where:
                raise ValueError(f"table id {table_id!r} is used on {where[table_id]} and again on {path}")
            where[table_id] = path
    return where


def tables_index(locations: Mapping[str, str], tables: Mapping[str, TableFunction]) -> Table:
    """The list of every table on the site: id, caption, page, data files (docs/tables/index.md).

    Args:
        locations: Table id -> page path under docs/ (:func:`table_locations`).
        tables: Table id -> function (:func:`all_tables`); ids without a function are skipped.

    Links are relative to :data:`INDEX_PAGE`, so MkDocs checks every one of them.

    >>> def demo() -> Table:
    ...     return Table(id="demo", caption="Demo table. More.", columns=("a",), rows=())
    >>> tables_index({"demo": "memory/index.md"}, {"demo": demo}).rows[0][:3]
    ('[demo](../memory/index.md#demo)', 'Demo table.', '[memory/](../memory/index.md)')
    """
    here = posixpath.dirname(INDEX_PAGE)
    rows = []
    for table_id in sorted(locations):
        page = locations[table_id]
        if table_id == INDEX_ID:
            caption = INDEX_CAPTION
        elif table_id in tables:
            caption = tables[table_id]().caption
        else:
            continue
        link = posixpath.relpath(page, here)
        data = " · ".join(f"[{ext.upper()}]({posixpath.relpath(data_path(page, table_id, ext), here)})"
                          for ext in ("csv", "json"))
        shown = page_url(page) or "home"
        rows.append((f"[{table_id}]({link}#{table_id})", first_sentence(caption), f"[{shown}]({link})", data))
    return Table(id=INDEX_ID, caption=INDEX_CAPTION, columns=("table", "caption (first sentence)", "page", "data"),
                 rows=tuple(rows))


INDEX_CAPTION = ("Every generated table on the site, by id, with the page that shows it and its CSV and JSON files; "
                 "built by calculators.table_registry.tables_index from the table blocks of the docs pages.")


def site_tables(pages: Mapping[str, str], *,
                values: Mapping[str, ValueFunction] | None = None) -> dict[str, TableFunction]:
    """Every table function the pages need: :func:`all_tables` plus the index of tables, bound to ``pages``.

    Args:
        pages: Page path under docs/ -> the page's Markdown (all pages of the site).
        values: The value functions the index of values lists (default :func:`site_values` of ``pages``);
            a caller that renders the values too passes its own, so that each value is computed once.

    Returns:
        Table id -> function; each function computes its table once and then returns the same object.
    """
    # Each function runs once: the index reads every caption, the pages every table.
    tables: dict[str, TableFunction] = {key: functools.cache(function) for key, function in all_tables().items()}
    for reserved in (INDEX_ID, VALUES_INDEX_ID):
        if reserved in tables:
            raise ValueError(f"table id {reserved!r} is reserved for an index")
    locations = table_locations(pages)
    tables[INDEX_ID] = lambda: tables_index(locations, tables)
    listed = site_values(pages) if values is None else values
    tables[VALUES_INDEX_ID] = lambda: values_index(value_locations(pages), listed)
    return tables


# --------------------------------------------------------------------------- values
#: The id of the list of every value (on :data:`INDEX_PAGE`).
VALUES_INDEX_ID = "values-index"
VALUES_INDEX_CAPTION = ("Every generated number in the prose of the site, by id, with the text shown, what it is, "
                        "the function that computes it and the page that shows it; built by "
                        "calculators.table_registry.values_index from the value markers of the docs pages.")


def value_locations(pages: Mapping[str, str]) -> dict[str, str]:
    """Value id -> the docs page whose Markdown holds its marker.

    Raises:
        ValueError: an id is used by two markers (each value has one home, its anchor).

    >>> value_locations({"a.md": "x <!-- value: v -->1<!-- /value -->", "b.md": ""})
    {'v': 'a.md'}
    """
    where: dict[str, str] = {}
    for path in sorted(pages):
        for value_id in value_ids(pages[path]):
            if value_id in where:
                raise ValueError(f"value id {value_id!r} is used on {where[value_id]} and again on {path}: "
                                 "register a second id for the second place")
            where[value_id] = path
    return where


def site_values(pages: Mapping[str, str]) -> dict[str, ValueFunction]:
    """Every value function, each computing once; refuses an id that is also a table id."""
    values = all_values()
    clash = sorted(values.keys() & (all_tables().keys() | {INDEX_ID, VALUES_INDEX_ID} | table_locations(pages).keys()))
    if clash:
        raise ValueError(f"ids used both as a table and as a value: {', '.join(clash)}")
    # functools.cache keeps the function in __wrapped__, which function_name reads.
    return {key: functools.cache(function) for key, function in values.items()}


def values_index(locations: Mapping[str, str], values: Mapping[str, ValueFunction]) -> Table:
    """The list of every value on the site: id (linked to its anchor), text, kind, what it is, function.

    >>> from calculators.inline_values import Value
    >>> def demo() -> Value:
    ...     return Value(id="demo", text="1.00 GiB", description="A demo.", kind="derived", number=1.0)
    >>> values_index({"demo": "memory/index.md"}, {"demo": demo}).rows[0][:3]
    ('[demo](../memory/index.md#demo)', '1.00 GiB', 'derived')
    """
    here = posixpath.dirname(INDEX_PAGE)
    rows = []
    for value_id in sorted(locations):
        if value_id not in values:
            continue
        value = values[value_id]()
        link = posixpath.relpath(locations[value_id], here)
        rows.append((f"[{value_id}]({link}#{value_id})", value.text, value.kind, value.description,
                     f"`{function_name(values[value_id])}`", "; ".join(value.assumptions) or "none"))
    return Table(id=VALUES_INDEX_ID, caption=VALUES_INDEX_CAPTION,
                 columns=("value", "shown", "kind", "what it is", "computed by", "assumptions"),
                 align=("l", "r", "l", "l", "l", "l"), rows=tuple(rows))


def values_json(pages: Mapping[str, str], *, site_url: str = "", site_version: str = "",
                values: Mapping[str, ValueFunction] | None = None) -> str:
    """Every value of the site with its provenance, as the JSON text of the site's ``values.json``.

    Keys: ``version``, ``catalog_as_of``, ``values`` (id -> :func:`calculators.inline_values.to_record`:
    text, number, unit, description, kind, assumptions, function, page URL, anchor URL, citation).
    ``site_version`` puts the URLs under the version's folder (``SITE_VERSION``). Sorted by id. ``values``:
    the value functions (default :func:`site_values` of ``pages``; the build passes the ones its pages render).

    >>> data = json.loads(values_json({"validation/index.md": "all <!-- value: accuracy-case-count -->"
    ...                                "0<!-- /value --> cases"}, site_url="https://example.org/g/"))
    >>> data["values"]["accuracy-case-count"]["url"]
    'https://example.org/g/validation/#accuracy-case-count'
    """
    values, as_of = site_values(pages) if values is None else values, catalog_as_of()
    base = versioned_site_url(site_url, site_version)
    records = {}
    for value_id, page in sorted(value_locations(pages).items()):
        function = values[value_id]
        url = page_url(page, site_url=base)
        records[value_id] = to_record(function(), function=function_name(function), version=__version__,
                                      catalog_as_of=as_of, page=url, url=f"{url}#{value_id}")
    document = {"version": __version__, "catalog_as_of": as_of, "values": records}
    return json.dumps(document, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def render_page(text: str, path: str, *, tables: Mapping[str, TableFunction], values: Mapping[str, ValueFunction],
                site_url: str = "", version: str = "", catalog_as_of: str = "") -> str:
    """A page's Markdown (``path`` under docs/) with its table blocks and value markers rendered from the code.

    Without ``version`` and ``catalog_as_of`` this is the page as committed (:func:`regenerate_pages`); the site
    build renders each page again with both (``on_page_markdown`` in ``scripts/mkdocs_hooks.py``).

    >>> from calculators.inline_values import Value
    >>> def n() -> Value:
    ...     return Value(id="n", text="3", description="d.", kind="derived", number=3.0)
    >>> page, values = "It is <!-- value: n -->?<!-- /value -->.", {"n": n}
    >>> render_page(page, "a.md", tables={}, values=values).split('title="')[1]
    'n: derived by calculators.table_registry.n">3</span><!-- /value -->.'
    >>> render_page(page, "a.md", tables={}, values=values, version="9.9").split('title="')[1]
    'n: derived by calculators.table_registry.n, v9.9">3</span><!-- /value -->.'
    """
    text = update_blocks(text, tables, version=version, catalog_as_of=catalog_as_of, src_path=path, site_url=site_url)
    try:
        return update_values(text, values, version=version, catalog_as_of=catalog_as_of)
    except UnknownNameError:
        raise
    except ValueError as error:
        raise ValueError(f"docs/{path}: {error}") from None


def regenerate_pages(pages: Mapping[str, str], *, site_url: str = "",
                     tables: Mapping[str, TableFunction] | None = None,
                     values: Mapping[str, ValueFunction] | None = None) -> dict[str, str]:
    """Every page's Markdown as committed: its table blocks and value markers regenerated from the code.

    Unchanged pages are included. The committed pages name no edition (package version,
    catalog date): a release changes none of them; the site build adds it (:func:`render_page`).

    Args:
        pages: Page path under docs/ -> the page's Markdown (all pages of the site).
        site_url: The site's base URL the cite snippets name (``DOCS_SITE_URL``).
        tables: Table functions (default :func:`site_tables` of ``pages``).
        values: Value functions (default :func:`site_values` of ``pages``).

    Raises:
        ValueError: a value id is used twice or clashes with a table id; a value marker opens
            a line (the message names the page).
    """
    values = site_values(pages) if values is None else values
    tables = site_tables(pages, values=values) if tables is None else tables
    value_locations(pages)  # refuses an id used by two markers
    return {path: render_page(text, path, tables=tables, values=values, site_url=site_url)
            for path, text in pages.items()}
