"""Every generated table on the site, by id: the one list ``scripts/gen_tables.py`` and the tests use.

Tables live in the modules of :mod:`calculators.doc_tables`, one per docs section, each
with a ``TABLES`` dict; this module collects them and refuses duplicate ids. The index
of tables (docs/tables/index.md) is the one table that depends on the pages themselves:
:func:`site_tables` adds it, bound to the pages' Markdown.

>>> "accuracy-summary" in all_tables()
True
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import posixpath
from collections.abc import Mapping

from calculators import __version__, doc_tables
from calculators.catalog.edition import catalog_as_of
from calculators.tables import Table, TableFunction, block_ids, data_path, first_sentence, page_url, update_blocks


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


def site_tables(pages: Mapping[str, str]) -> dict[str, TableFunction]:
    """Every table function the pages need: :func:`all_tables` plus the index of tables, bound to ``pages``.

    Args:
        pages: Page path under docs/ -> the page's Markdown (all pages of the site).

    Returns:
        Table id -> function; each function computes its table once and then returns the same object.
    """
    # Each function runs once: the index reads every caption, the pages every table.
    tables: dict[str, TableFunction] = {key: functools.cache(function) for key, function in all_tables().items()}
    if INDEX_ID in tables:
        raise ValueError(f"table id {INDEX_ID!r} is reserved for the index of tables")
    locations = table_locations(pages)
    tables[INDEX_ID] = lambda: tables_index(locations, tables)
    return tables


def regenerate_pages(pages: Mapping[str, str], *, site_url: str = "",
                     tables: Mapping[str, TableFunction] | None = None) -> dict[str, str]:
    """Every page's Markdown with its table blocks regenerated from the code (unchanged pages included).

    Each block is stamped with the package version and the catalog's as-of date, and its
    cite snippet with the page's URL under ``site_url``.

    Args:
        pages: Page path under docs/ -> the page's Markdown (all pages of the site).
        site_url: The site's base URL (mkdocs.yml ``site_url``).
    """
    tables = site_tables(pages)
    as_of = catalog_as_of()
    return {path: update_blocks(text, tables, version=__version__, catalog_as_of=as_of, src_path=path,
                                site_url=site_url)
            for path, text in pages.items()}
