"""Every table in docs/ is generated from the code, current, and checked cell by cell.

A page holds ``<!-- table: ID -->`` ... ``<!-- /table -->`` blocks written by
``scripts/gen_tables.py``. These tests:

* regenerate every page and require the committed text unchanged (the staleness check);
* parse every page with markdown-it-py, recompute each generated table from its function
  and compare it cell by cell, naming page, table id, row, column, expected and found;
* render every table twice and require identical bytes (Markdown, CSV, JSON);
* fail on any table with numbers outside the markers, unless the line before it is
  ``<!-- quoted: SOURCE -->`` or the table is in :data:`HAND_TYPED_ALLOWED` with a reason.

Each check is shown to fail on a doctored copy.
"""

from __future__ import annotations

import difflib
import functools
import re
import sys
from pathlib import Path

import pytest
from support import docs_pages, load_script
from support import site_tables as shared_site_tables
from support import site_values as shared_site_values

from calculators import __version__, table_registry
from calculators.catalog import edition
from calculators.catalog.edition import catalog_as_of
from calculators.inline_values import strip_values
from calculators.table_registry import (
    INDEX_ID,
    VALUES_INDEX_ID,
    all_tables,
    regenerate_pages,
    site_values,
    table_locations,
    tables_index,
    value_locations,
    values_index,
)
from calculators.table_files import to_csv, to_json
from calculators.tables import DOCS_SITE_URL, Table, block_ids, render_markdown, update_blocks

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


diff_tables = load_script("diff_tables")
PAGES = docs_pages()
SITE_URL = DOCS_SITE_URL
TABLES = shared_site_tables()  # computed once a session, with the other modules' (support.site_tables)
VALUES = shared_site_values()

#: Hand-typed tables with numbers that are neither generated nor marked quoted, by
#: (page, header cells) -> why they are tolerated for now. Each entry is a finding for the
#: page's writer to fix (generate the table, or mark its source with <!-- quoted: ... -->);
#: the test fails when an entry no longer matches a table, so the list stays current.
HAND_TYPED_ALLOWED: dict[tuple[str, tuple[str, ...]], str] = {}

#: A number standing on its own (not part of a name such as H100, FP16, ZeRO-3 or 8-bit).
NUMBER = re.compile(r"(?<![\w.\-/])[-+−±~≈]?\d+(?:[.,]\d+)*(?![\w\-])")


@functools.cache
def _regenerated() -> dict[str, str]:
    return regenerate_pages(PAGES, site_url=SITE_URL, tables=TABLES, values=VALUES)


@functools.cache
def _computed(table_id: str) -> Table:
    return TABLES[table_id]()


# --------------------------------------------------------------------------- staleness
@pytest.mark.parametrize("page", sorted(PAGES))
def test_generated_tables_are_current(page: str) -> None:
    regenerated = _regenerated()[page]
    text = PAGES[page]
    diff = "".join(difflib.unified_diff(text.splitlines(True), regenerated.splitlines(True), "committed",
                                        "regenerated", n=1))
    assert regenerated == text, f"docs/{page} is stale; run scripts/gen_tables.py:\n{diff[:4000]}"


def test_staleness_check_catches_an_edited_cell() -> None:
    """Prove the check can fail: change one number in a copy of a generated block."""
    def table() -> Table:
        return Table(id="demo", caption="Demo.", columns=("a", "GiB"), rows=(("x", "1.00"),), align=("l", "r"))

    fresh = update_blocks("<!-- table: demo -->\n<!-- /table -->\n", {"demo": table})
    edited = fresh.replace("| x | 1.00 |", "| x | 1.01 |")
    assert edited != fresh
    assert update_blocks(edited, {"demo": table}) == fresh


def test_a_version_bump_changes_no_committed_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """The edition (package version, catalog date) is added by the build: another one rewrites no page."""
    committed, as_of = _regenerated(), edition.catalog_as_of
    for name, module in list(sys.modules.items()):
        if not name.startswith(("calculators", "mkdocs_hooks")):
            continue
        if getattr(module, "__version__", None) == __version__:
            monkeypatch.setattr(module, "__version__", "9.9.9")
        if getattr(module, "catalog_as_of", None) is as_of:
            monkeypatch.setattr(module, "catalog_as_of", lambda: "2099-12-31")
    assert (table_registry.__version__, table_registry.catalog_as_of()) == ("9.9.9", "2099-12-31"), "bump not applied"
    assert regenerate_pages(PAGES, site_url=SITE_URL, tables=TABLES, values=VALUES) == committed


# --------------------------------------------------------------------------- ids
def test_table_ids_are_unique_across_the_site() -> None:
    seen: dict[str, str] = {}
    for page, text in PAGES.items():
        for table_id in block_ids(text):
            assert table_id not in seen, f"table {table_id} appears in docs/{seen[table_id]} and docs/{page}"
            seen[table_id] = page
    assert seen == table_locations(PAGES)
    assert {"accuracy-summary", INDEX_ID} <= seen.keys()


def test_every_block_names_a_registered_table() -> None:
    unknown = {table_id: page for table_id, page in table_locations(PAGES).items() if table_id not in TABLES}
    assert not unknown, f"blocks with no table function: {unknown}"


# --------------------------------------------------------------------------- cell by cell
def compare(page: str, found: object, table: Table) -> list[str]:
    """Every difference between a table parsed from a page and the table the code produces."""
    assert isinstance(found, diff_tables.ParsedTable)
    where = f"docs/{page}, table {table.id}"
    expected_header = tuple(_shown(c) for c in table.columns)
    problems = [f"{where}, header, column {i + 1}: expected {e!r}, found {f!r}"
                for i, (e, f) in enumerate(zip(expected_header, found.columns)) if e != f]
    if len(found.columns) != len(expected_header):
        problems.append(f"{where}: expected {len(expected_header)} columns, found {len(found.columns)}")
    if len(found.rows) != len(table.rows):
        problems.append(f"{where}: expected {len(table.rows)} rows, found {len(found.rows)}")
    for number, (expected_row, found_row) in enumerate(zip(table.rows, found.rows), start=1):
        for column, expected in enumerate(expected_row):
            cell = found_row[column] if column < len(found_row) else None
            if cell != _shown(expected):
                name = table.columns[column] if column < len(table.columns) else str(column + 1)
                problems.append(f"{where}, row {number} ({expected_row[0]}), column {name!r}: "
                                f"expected {_shown(expected)!r}, found {cell!r}")
    return problems


def _shown(cell: str) -> str:
    """A cell as markdown-it reads it back from the page: one line, outer spaces trimmed."""
    return cell.replace("\n", " ").strip()


@pytest.mark.parametrize("page", sorted(p for p, text in PAGES.items() if block_ids(text)))
def test_every_generated_table_matches_the_code_cell_by_cell(page: str) -> None:
    parsed = diff_tables.generated_tables(PAGES[page])
    ids = block_ids(PAGES[page])
    assert sorted(parsed) == sorted(ids), f"docs/{page}: blocks without a table: {sorted(set(ids) - set(parsed))}"
    problems = [problem for table_id in ids for problem in compare(page, parsed[table_id], _computed(table_id))]
    assert not problems, "\n".join(problems[:20])


def test_cell_check_catches_an_edited_cell() -> None:
    """Prove the check can fail: one cell of a copy of a real page, changed."""
    page = "validation/index.md"
    table = _computed("accuracy-summary")
    row = table.rows[0]
    text = PAGES[page]
    line = "| " + " | ".join(c.replace("|", "\\|") for c in row) + " |"
    assert line in text
    doctored = text.replace(line, line.replace(f"| {row[1]} |", "| 999 |", 1))
    problems = compare(page, diff_tables.generated_tables(doctored)["accuracy-summary"], table)
    assert problems == [f"docs/{page}, table accuracy-summary, row 1 ({row[0]}), column {table.columns[1]!r}: "
                        f"expected {row[1]!r}, found '999'"]


def test_cell_check_catches_a_missing_row() -> None:
    page = "validation/index.md"
    table = _computed("accuracy-summary")
    line = "| " + " | ".join(c.replace("|", "\\|") for c in table.rows[-1]) + " |\n"
    doctored = PAGES[page].replace(line, "")
    problems = compare(page, diff_tables.generated_tables(doctored)["accuracy-summary"], table)
    assert f"docs/{page}, table accuracy-summary: expected {len(table.rows)} rows, found {len(table.rows) - 1}" \
        in problems


# --------------------------------------------------------------------------- determinism
@pytest.mark.parametrize("table_id", sorted(table_locations(PAGES)))
def test_rendering_is_deterministic(table_id: str) -> None:
    """Two builds produce identical tables: render each one twice, from two calls of its function.

    The first render is of the session's table (:data:`TABLES`, :data:`VALUES`: computed once, by whichever test
    asked first, and read by every other check), the second of a fresh call of its function (with fresh values for
    the index of values)."""
    page = table_locations(PAGES)[table_id]
    renders = []
    for fresh in (False, True):
        # The index of tables is rebuilt from the (cached) tables both times; every other table is recomputed.
        if table_id == INDEX_ID:
            table = tables_index(table_locations(PAGES), TABLES)
        elif table_id == VALUES_INDEX_ID:
            table = values_index(value_locations(PAGES), site_values(PAGES) if fresh else VALUES)
        else:
            table = all_tables()[table_id]() if fresh else _computed(table_id)
        renders.append((render_markdown(table, version=__version__, catalog_as_of=catalog_as_of(), src_path=page,
                                        site_url=SITE_URL),
                        to_csv(table),
                        to_json(table, version=__version__, catalog_as_of=catalog_as_of(), src_path=page,
                                site_url=SITE_URL)))
    assert renders[0] == renders[1]


# --------------------------------------------------------------------------- hand-typed tables
def numeric_cells(table: object) -> list[str]:
    """Cells of a parsed table that state a number (outside ``<!-- value: ID -->`` markers, which are generated)."""
    assert isinstance(table, diff_tables.ParsedTable)
    return [cell for row in (table.columns, *table.rows) for cell in row if NUMBER.search(strip_values(cell))]


def hand_typed(page: str, text: str) -> list[tuple[tuple[str, ...], str]]:
    """(header, message) of every numeric table outside the markers with no quoted source."""
    found = []
    for table in diff_tables.parse_tables(text):
        if table.block is not None or table.quoted:
            continue
        cells = numeric_cells(table)
        if cells:
            found.append((table.columns, f"docs/{page}:{table.line}: table {' | '.join(table.columns)!r} has numbers "
                                         f"({', '.join(repr(c) for c in cells[:3])}) outside <!-- table: ID --> "
                                         "markers and no <!-- quoted: SOURCE --> line before it"))
    return found


def test_no_hand_typed_numeric_tables() -> None:
    problems, matched = [], set()
    for page, text in PAGES.items():
        for header, message in hand_typed(page, text):
            if (page, header) in HAND_TYPED_ALLOWED:
                matched.add((page, header))
            else:
                problems.append(message)
    stale = sorted(set(HAND_TYPED_ALLOWED) - matched)
    assert not problems, "\n".join(problems)
    assert not stale, f"fixed, remove from HAND_TYPED_ALLOWED: {stale}"


@pytest.mark.parametrize(
    ("markdown", "flagged"),
    [
        pytest.param("| GPU | GiB |\n|--|--|\n| H100 | 80 |\n", True, id="numbers"),
        pytest.param("Text.\n\n| optimizer | bytes |\n|--|--|\n| adamw | `2 × p` |\n", True, id="formula"),
        pytest.param("!!! note\n\n    | GPU | GiB |\n    |--|--|\n    | H100 | 80 |\n", True, id="in-admonition"),
        pytest.param("<!-- quoted: NVIDIA H100 datasheet -->\n| GPU | GiB |\n|--|--|\n| H100 | 80 |\n", False,
                     id="quoted"),
        pytest.param("<!-- quoted:  -->\n| GPU | GiB |\n|--|--|\n| H100 | 80 |\n", True, id="quoted-no-source"),
        pytest.param("| command | answers |\n|--|--|\n| `train` | H100, FP16, ZeRO-3, 8-bit |\n", False,
                     id="names-not-numbers"),
        pytest.param("<!-- table: t -->\n\n| GPU | GiB |\n|--|--|\n| H100 | 80 |\n<!-- /table -->\n", False,
                     id="generated"),
        pytest.param("| GPU | memory |\n|--|--|\n| H100 | <!-- value: v --><span>80 GiB</span><!-- /value --> |\n",
                     False, id="value-marker"),
    ],
)
def test_hand_typed_check(markdown: str, flagged: bool) -> None:
    """The check fails a numeric table outside markers, and only that."""
    assert bool(hand_typed("demo.md", markdown)) is flagged


def test_a_declared_table_id_is_written_once_in_its_module() -> None:
    # Issue 13: each table id is typed once. A page module declares a table with @table("id") and builds the
    # Table without it; the id then occurs once in the module's source (the dict-registered tables of
    # validation, recommend and claims are built elsewhere or from a pattern, and are not declared).
    import importlib
    import inspect
    import pkgutil

    from calculators import doc_tables

    declared = 0
    for info in pkgutil.iter_modules(doc_tables.__path__):
        module = importlib.import_module(f"{doc_tables.__name__}.{info.name}")
        source = inspect.getsource(module).replace(module.__doc__ or "", "")  # doctests may use an id
        for table_id, function in getattr(module, "TABLES", {}).items():
            if getattr(function, "table_id", None) == table_id:
                declared += 1
                assert source.count(f'"{table_id}"') == 1, f"{table_id} is written more than once in {info.name}"
    assert declared >= 90


def _resolves_to_function(name: str, module: object) -> bool:
    """True when ``name`` (bare, looked up in ``module``, or dotted) is a function of the package."""
    import importlib

    if "." not in name:
        found = getattr(module, name, None)
    else:
        module_name, _, attribute = name.rpartition(".")
        try:
            found = getattr(importlib.import_module(module_name), attribute, None)
        except ImportError:
            return False
    return (callable(found) and not isinstance(found, type)
            and getattr(found, "__module__", "").startswith("calculators"))


def _functions_named_in(text: str, module: object) -> list[str]:
    """The package functions a string literal names as text: a literal that is a bare name in inline code
    (``"`weight_bytes`"``, ``"`fit_inference` (max_batch)"``), or a dotted path anywhere in it
    (``"... (calculators.fit.fit_verdict): ..."``)."""
    named = re.findall(r"calculators(?:\.[a-z_0-9]+)+", text)
    whole = re.fullmatch(r"`([a-z_][a-z_0-9]*)`( \([^()]*\))?", text)
    if whole is not None:
        named.append(whole.group(1))  # a bare word counts only as inline code: "fits" is a verdict, "`fits`" a name
    return [name for name in named if _resolves_to_function(name, module)]


def test_pages_cite_engine_functions_by_reference_not_by_their_names() -> None:
    # Issue 13: a page module cites the function behind a figure as the function object
    # (calculators.tables.computed_by), so renaming or moving it changes the page instead of leaving a
    # stale name typed as text. Every string literal of a doc_tables or doc_values module is checked,
    # docstrings (where :func: references are checked by the doc build) aside.
    import ast
    import importlib
    import inspect
    import pkgutil

    from calculators import doc_tables, doc_values

    typed = []
    checked = 0
    for package in (doc_tables, doc_values):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            tree = ast.parse(inspect.getsource(module))
            docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                          if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
                          and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                    checked += 1
                    typed += [f"{info.name}: {name} in {node.value!r}"
                              for name in _functions_named_in(node.value, module)]
    assert checked > 1000
    assert not typed, "functions named as text (use calculators.tables.computed_by): " + "; ".join(typed)


@pytest.mark.parametrize(("text", "names"), [
    ("`weight_bytes`", ["weight_bytes"]),
    ("calculators.memory.training.training_memory", ["calculators.memory.training.training_memory"]),
    ("`fit_inference` (max_batch)", ["fit_inference"]),
    ("the largest that fit (calculators.fit.fit_inference: total", ["calculators.fit.fit_inference"]),
    ("weights", []), ("fit_inference", []), ("see calculators.memory.inference", []), ("bf16 weights and KV cache", []),
])
def test_function_name_check(text: str, names: list[str]) -> None:
    """The check finds a function's bare name in inline code or its dotted path in a literal, and nothing else
    (a module's path is not a function's)."""
    from calculators.doc_tables import inference

    assert _functions_named_in(text, inference) == names
