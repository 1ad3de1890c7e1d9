"""Every generated table can be cited: stable id and anchor, caption with version, catalog date
and assumptions, a cite snippet with its URL, and CSV/JSON files that the build publishes.

The data files are what ``scripts/mkdocs_hooks.py`` writes (``table_data_files``); the last
test reads them back from a built site/ when there is one (``scripts/build``).
"""

from __future__ import annotations

import csv
import io
import json
import posixpath
import re
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest
from support import docs_pages, load_script
from support import site_tables as shared_site_tables
from support import site_values as shared_site_values

from calculators import __version__
from calculators.catalog.edition import catalog_as_of, catalog_sources
from calculators.catalog.gpus import all_gpus
from calculators.inline_values import shown_values
from calculators.table_registry import (
    INDEX_ID,
    INDEX_PAGE,
    table_locations,
    tables_index,
    value_locations,
)
from calculators.columns import Column, gib_column, number_column, percent_column
from calculators.table_files import csv_metadata, to_csv, to_json
from calculators.tables import DOCS_SITE_URL, Table, caption_parts, data_path, page_url, site_url_problem

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SITE = ROOT / "site"
PAGES = docs_pages()
SITE_URL = DOCS_SITE_URL
LOCATIONS = table_locations(PAGES)
TABLES = shared_site_tables()  # computed once a session, with the other modules' (support.site_tables)
VALUES = shared_site_values()
BLOCK = re.compile(r"<!-- table: (?P<id>[a-z0-9-]+)(?: [a-z]+)* -->\n(?P<body>.*?)<!-- /table -->", re.DOTALL)


def _blocks() -> list[tuple[str, str, str]]:
    return [(page, m.group("id"), m.group("body")) for page, text in PAGES.items() for m in BLOCK.finditer(text)]


BLOCKS = _blocks()


def test_committed_snippets_use_a_placeholder_the_build_replaces() -> None:
    # docs/ is written with a placeholder address; scripts/mkdocs_hooks.py rewrites it to the
    # configured site_url, and a published build refuses the placeholder (site_url_problem).
    assert SITE_URL.startswith("https://") and SITE_URL.endswith("/")
    assert "placeholder" in site_url_problem(SITE_URL)


# --------------------------------------------------------------------------- what a block shows
@pytest.mark.parametrize(("page", "table_id", "body"), BLOCKS, ids=[b[1] for b in BLOCKS])
def test_block_is_citable(page: str, table_id: str, body: str) -> None:
    table = TABLES[table_id]()
    anchor = f'<div class="generated-table" id="{table_id}"></div>'
    assert anchor in body, "anchor named after the table id"
    title, notes = caption_parts(table)
    caption = f"**Table {table_id}.** {title}\n"
    assert caption in body, "short caption with the id; the build adds version and catalog date"
    # Above the table: anchor, caption, then the table's header row (issue 27 item 9).
    assert body.index(anchor) < body.index(caption) < body.index("| " + table.columns[0])
    assert len(title.split()) <= 26
    for assumption in table.assumptions:
        assert assumption in notes and f"    {notes}\n" in body, "assumptions folded under the table"
    data = (f"Data: [CSV](tables/{table_id}.csv) ([columns and sources](tables/{table_id}.csv-metadata.json)) · "
            f"[JSON](tables/{table_id}.json)")
    assert data in body and body.index("| " + table.columns[0]) < body.index(data)
    assert '??? quote "Cite this table"' in body
    url = page_url(page, site_url=SITE_URL) + "#" + table_id
    assert f"Sizing ML Hardware, table {table_id}. {url}\n" in body
    # Only the citation names the site's address; the data links are relative (issue 27: "Data:" links named the
    # build's host and port, dead when the site was served elsewhere).
    assert body.count(SITE_URL) == 1


def test_catalog_as_of_is_the_newest_record_date() -> None:
    dates = [source.as_of for source in catalog_sources()]
    assert catalog_as_of() == max(dates)
    assert all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", date) for date in dates)
    assert catalog_as_of() >= max(gpu.source.as_of for gpu in all_gpus())


def test_page_urls_follow_directory_urls() -> None:
    assert page_url("index.md", site_url="https://x.org/g/") == "https://x.org/g/"
    assert page_url("cost/index.md", site_url="https://x.org/g/") == "https://x.org/g/cost/"
    assert page_url("memory/vision.md", site_url="https://x.org/g") == "https://x.org/g/memory/vision/"
    assert data_path("memory/vision.md", "t", "csv") == "memory/tables/t.csv"


# --------------------------------------------------------------------------- what the build adds
def _built(monkeypatch: pytest.MonkeyPatch, page: str, text: str, *, site_url: str, site_version: str) -> str:
    """``text`` as the build's on_page_markdown renders it for ``page``."""
    module = _hooks()
    monkeypatch.setattr(module, "_tables", TABLES)
    monkeypatch.setattr(module, "_values", VALUES)
    monkeypatch.setattr(module, "_state", {"site_url": site_url})
    monkeypatch.setattr(module, "_pages_with_widgets", [])
    monkeypatch.setenv("SITE_VERSION", site_version)
    return str(module.on_page_markdown(text, SimpleNamespace(file=SimpleNamespace(src_uri=page), url=page), {}, None))


def test_build_adds_the_edition_and_the_versioned_address(monkeypatch: pytest.MonkeyPatch) -> None:
    page, table_id, value_id = LOCATIONS["accuracy-summary"], "accuracy-summary", "accuracy-case-count"
    assert value_locations(PAGES)[value_id] == page
    text = PAGES[page] + f"\nOutside: {SITE_URL}x/\n"
    built = _built(monkeypatch, page, text, site_url="https://guide.example.org/g/", site_version="0.1.0")
    stamp = f"v{__version__}, catalog as of {catalog_as_of()}"
    assert f"**Table {table_id} ({stamp}).** " in built
    assert (f"Sizing ML Hardware, version {__version__}, table {table_id} (catalog as of {catalog_as_of()}). "
            f"https://guide.example.org/g/0.1.0/validation/#{table_id}\n") in built
    assert f'<span class="generated-value" id="{value_id}" title="' in built
    assert re.search(f'id="{value_id}" title="[^"]*, {re.escape(stamp)}">', built)
    assert shown_values(built)[value_id] == shown_values(PAGES[page])[value_id]
    assert f"Outside: {SITE_URL}x/" in built, "only the blocks are rewritten"
    assert f"{SITE_URL}validation/" not in built


# --------------------------------------------------------------------------- data files
def _demo() -> Table:
    return Table(id="demo", caption="Demo, with | and \"quotes\".", columns=("model", "GiB"), align=("l", "r"),
                 rows=(("a, b", "1,024.00"), ("c", "2.50")), assumptions=("batch 1",))


def test_csv_round_trips() -> None:
    table = _demo()
    rows = list(csv.reader(io.StringIO(to_csv(table))))
    assert rows == [list(table.columns), ["a, b", "1024.00"], ["c", "2.50"]]


def test_csv_holds_raw_numbers_and_its_metadata_names_edition_sources_and_units() -> None:
    """Issue 27 item 9: the CSV held display strings ("1,008", "—") and no version, date or source."""
    columns = (Column("gpu"), gib_column("memory GiB", 1, grouped=True), number_column("tokens", missing="—"),
               percent_column("share"), Column("source"))
    table = Table.of(columns, [("H100", 80 * 2**30, 1008, 0.123, "[datasheet](https://nvidia.example/h100)"),
                               ("B200", 1536 * 2**30, None, 0.5, "—")], id="demo", caption="GPUs. Two of them.")
    assert table.rows[1][1:3] == ("1,536.0", "—")  # the page keeps its formatting
    rows = list(csv.reader(io.StringIO(to_csv(table))))
    # 80 and 1536 GiB exactly (2^30 bytes each), 1008 tokens, 12.3 %: numbers in the header's unit, unrounded.
    assert rows == [list(table.columns), ["H100", "80.0", "1008", "12.3", "datasheet"],
                    ["B200", "1536.0", "", "50.0", ""]]
    meta = json.loads(csv_metadata(table, version="9.9.9", catalog_as_of="2026-01-31", src_path="hardware/index.md",
                                   site_url="https://x.org/g/", computed_by="calculators.doc_tables.demo"))
    assert (meta["url"], meta["dc:identifier"], meta["schema:version"], meta["dc:date"]) == (
        "demo.csv", "demo", "9.9.9", "2026-01-31")
    assert meta["dc:source"] == ["https://nvidia.example/h100"] and meta["computed_by"] == "calculators.doc_tables.demo"
    assert meta["dc:isPartOf"] == "../", "the page, relative to hardware/tables/demo.csv"
    assert [(c["titles"], c["datatype"], c.get("schema:unitText")) for c in meta["tableSchema"]["columns"]] == [
        ("gpu", "string", None), ("memory GiB", "number", "GiB (2^30 bytes)"), ("tokens", "number", None),
        ("share", "number", "%"), ("source", "string", None)]


def test_json_carries_cells_and_provenance() -> None:
    data = json.loads(to_json(_demo(), version="9.9.9", catalog_as_of="2026-01-31", src_path="memory/index.md",
                              site_url="https://x.org/g/"))
    assert data == {
        "id": "demo", "caption": "Demo, with | and \"quotes\".", "version": "9.9.9", "catalog_as_of": "2026-01-31",
        "assumptions": ["batch 1"], "columns": ["model", "GiB"], "rows": [["a, b", "1,024.00"], ["c", "2.50"]],
        "page": "https://x.org/g/memory/", "url": "https://x.org/g/memory/#demo",
        "csv": "demo.csv", "csv_metadata": "demo.csv-metadata.json",
        "citation": "Sizing ML Hardware, version 9.9.9, table demo (catalog as of 2026-01-31).",
    }


def _hooks() -> ModuleType:
    """scripts/mkdocs_hooks.py, loaded as a module (it needs mkdocs, the [docs] extra)."""
    pytest.importorskip("mkdocs", reason="the site hook needs mkdocs ([docs] extra)")
    return load_script("mkdocs_hooks")


def test_build_writes_a_csv_and_json_per_table() -> None:
    """One file of each kind per table, with the page's cells, under the versioned URL when SITE_VERSION is set."""
    files = _hooks().table_data_files(PAGES, TABLES, VALUES, site_url=SITE_URL, site_version="0.1.0")
    assert list(files) == sorted(data_path(page, table_id, ext) for table_id, page in LOCATIONS.items()
                                 for ext in ("csv", "json", "csv-metadata.json"))
    for table_id, page in LOCATIONS.items():
        table = TABLES[table_id]()
        data = json.loads(files[data_path(page, table_id, "json")])
        assert (data["id"], data["columns"], data["version"]) == (table_id, list(table.columns), __version__)
        assert data["rows"] == [list(row) for row in table.rows]
        assert data["url"] == f"{SITE_URL}0.1.0/{page_url(page)}#{table_id}"
        assert files[data_path(page, table_id, "csv")] == to_csv(table)
        assert list(csv.reader(io.StringIO(files[data_path(page, table_id, "csv")])))[0] == list(table.columns)
        meta = json.loads(files[data_path(page, table_id, "csv-metadata.json")])
        assert (meta["dc:identifier"], meta["schema:version"], meta["dc:date"]) == (table_id, __version__,
                                                                                     catalog_as_of())
        assert meta["computed_by"].startswith("calculators."), meta["computed_by"]
        assert len(meta["tableSchema"]["columns"]) == len(table.columns)
    # No display strings left in any CSV: no grouped number, no dash for "unknown".
    for path, text in files.items():
        if path.endswith(".csv"):
            cells = [cell for row in list(csv.reader(io.StringIO(text)))[1:] for cell in row]
            assert not [c for c in cells if c in ("—", "-") or re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", c)], path


def test_build_refuses_a_stale_table() -> None:
    """Prove the build's check can fail: a page whose table no longer matches the code."""
    module = _hooks()
    page = LOCATIONS["accuracy-summary"]
    row = TABLES["accuracy-summary"]().rows[0]
    stale = dict(PAGES)
    stale[page] = PAGES[page].replace(f"| {row[0]} | {row[1]} |", f"| {row[0]} | 999 |", 1)
    assert stale[page] != PAGES[page]
    with pytest.raises(module.PluginError, match="stale in validation/index.md"):
        module.table_data_files(stale, TABLES, VALUES, site_url=SITE_URL)


def test_build_refuses_a_stale_value() -> None:
    """A page whose prose value no longer matches the code fails the build too."""
    module = _hooks()
    page = value_locations(PAGES)["accuracy-case-count"]
    shown = shown_values(PAGES[page])["accuracy-case-count"]
    stale = dict(PAGES)
    stale[page] = PAGES[page].replace(f">{shown}</span>", ">999</span>", 1)
    assert stale[page] != PAGES[page]
    assert module.table_data_files(PAGES, TABLES, VALUES, site_url=SITE_URL), "the current pages pass"
    with pytest.raises(module.PluginError, match="stale in validation/index.md"):
        module.table_data_files(stale, TABLES, VALUES, site_url=SITE_URL)


# --------------------------------------------------------------------------- the index of tables
def test_index_lists_every_table_with_working_links() -> None:
    index = TABLES[INDEX_ID]()
    assert LOCATIONS[INDEX_ID] == INDEX_PAGE
    listed = [re.match(r"\[([a-z0-9-]+)\]", row[0]).group(1) for row in index.rows]  # type: ignore[union-attr]
    assert listed == sorted(LOCATIONS)
    for row in index.rows:
        for target in re.findall(r"\]\(([^)#]+)", " ".join(row)):
            resolved = posixpath.normpath(posixpath.join(posixpath.dirname(INDEX_PAGE), target))
            assert resolved in PAGES or "/tables/" in f"/{resolved}", resolved


def test_index_is_current_when_a_page_gains_a_table() -> None:
    pages = dict(PAGES)
    pages["extra/index.md"] = "<!-- table: extra-copy -->\n<!-- /table -->\n"
    tables = {**TABLES, "extra-copy": lambda: Table(id="extra-copy", caption="Copy. More.", columns=("a",), rows=())}
    rows = tables_index(table_locations(pages), tables).rows
    assert ("[extra-copy](../extra/index.md#extra-copy)", "Copy.", "[extra/](../extra/index.md)",
            "[CSV](../extra/tables/extra-copy.csv) · [JSON](../extra/tables/extra-copy.json)") in rows
    assert len(rows) == len(LOCATIONS) + 1


# --------------------------------------------------------------------------- the built site
class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.hrefs += [value for name, value in attrs if tag == "a" and name == "href" and value]


@pytest.mark.skipif(not (SITE / "tables" / "index.html").is_file(), reason="site/ not built (scripts/build)")
def test_built_site_caption_links_resolve_to_data_files() -> None:
    """In the built site, every caption's CSV/JSON link points at a file that parses."""
    checked = 0
    for html in sorted(SITE.rglob("index.html")):
        parser = _Links()
        parser.feed(html.read_text(encoding="utf-8"))
        for href in parser.hrefs:
            if "://" in href or not re.search(r"tables/[a-z0-9-]+\.(csv|json|csv-metadata\.json)$", href):
                continue
            target = (html.parent / href).resolve()
            assert target.is_file(), f"{html.relative_to(SITE)} links to missing {href}"
            text = target.read_text(encoding="utf-8")
            if target.name.endswith(".csv-metadata.json"):
                assert json.loads(text)["dc:identifier"] == target.name.removesuffix(".csv-metadata.json")
            elif target.suffix == ".json":
                assert json.loads(text)["id"] == target.stem
            else:
                assert len(list(csv.reader(io.StringIO(text)))) >= 1
            checked += 1
    assert checked >= 2, "no caption links to data files found in site/"
