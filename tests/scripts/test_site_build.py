"""The published build: a real site_url everywhere, no broken link, the same bytes on every build.

Issue #17: every cite link, canonical link, JSON ``url`` and sitemap entry pointed to the
placeholder ``https://example.invalid/…``; 404.html loaded its assets from an absolute prefix
(48 broken links when the site is served at its root); the worked-example pages (random
notebook cell ids), the search index and the sitemap's dates changed on every build.

The module builds the site twice (``mkdocs build --strict``, ~62 CPU-s each: ~31 computing every table
and value in ``on_files``, ~13 rendering the pages, ~22 in the five notebook kernels and the Pyodide
snapshot; the two at once took 104 s on a quiet 2-core machine, 223 s beside other work)
as a release (``MLHW_RELEASE=1``) with a real ``SITE_URL`` and a fixed ``SOURCE_DATE_EPOCH``
into temporary folders, and compares them byte for byte (the second takes the memory snapshot of
``site/`` when scripts/build made one of the same version: two runs of node all the same). The two builds run under different
``PYTHONHASHSEED`` values, so the comparison also catches any published order that follows
``set`` or ``dict`` iteration of strings (one process has one hash seed): every page, every
table's CSV and JSON, ``values.json`` and every widget's built HTML
(``tests/content/test_determinism.py`` checks the rest: the CLI and the widgets no page shows). It needs what ``scripts/build``
makes first (the wheel in build/wheelhouse, the Pyodide runtime in node_modules) and is
skipped without them.
"""

from __future__ import annotations

import csv
import datetime
import filecmp
import gzip
import html
import io
import json
import os
import posixpath
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from linkcheck import broken_links

from calculators.tables import DOCS_SITE_URL

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"
#: A real address with a path, as a project site is published (not a placeholder, not local).
SITE_URL = "https://guide.example.org/sizing-ml-hardware/"
#: One hash seed per build (any two different values).
HASH_SEEDS = ("1", "4242")
#: 2026-01-02 03:04:05 UTC: any fixed time; the sitemap must carry its date, not the build's.
EPOCH = 1767323045
#: The memory snapshot's clock: scripts/build's (1980-01-01, no SOURCE_DATE_EPOCH), so that site/'s snapshot has the
#: release builds' version when nothing else changed.
SNAPSHOT_EPOCH = "315532800"

pytestmark = pytest.mark.skipif(
    not list((ROOT / "build" / "wheelhouse").glob("*.whl")) or not (ROOT / "node_modules" / "pyodide").is_dir(),
    reason="needs scripts/build's wheel and the Pyodide runtime (scripts/setup)")


def _start_build(site_dir: Path, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site_dir)],
                            cwd=ROOT, env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(process: subprocess.Popen[str]) -> subprocess.CompletedProcess[str]:
    stdout, stderr = process.communicate(timeout=600)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def _build(site_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return _finish(_start_build(site_dir, **env))


def _files(site: Path) -> dict[str, Path]:
    return {path.relative_to(site).as_posix(): path for path in sorted(site.rglob("*")) if path.is_file()}


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    # The two builds run at once: a build waits on its notebook kernel and its snapshot process for much of
    # its time, so two take about as long as one on two cores (they write only under their own site dir).
    # The first makes its Pyodide memory snapshot (node, ~10 CPU-s); the second takes site/'s when site/ has this
    # version's (scripts/build made it, from the same wheel, runtime, scripts and clock), else makes its own: either
    # way the two builds' snapshots come from two runs of node, so the comparison still catches one that differs.
    # Likewise the speed model's held-out fits (~20 CPU-s): the first build reads scripts/build's when scripts/test
    # kept them (MLHW_FIT_STORE, calculators/speed_accuracy/fit_store.py), the second always makes its own, so
    # the tables of two fits made in two processes under two hash seeds are still compared.
    sites = [tmp_path_factory.mktemp("release") / name for name in ("first", "second")]
    reuse: list[dict[str, str]] = [{}, {"MLHW_SNAPSHOT_FROM": str(SITE), "MLHW_FIT_STORE": ""}]
    started = [_start_build(site, SITE_URL=SITE_URL, SOURCE_DATE_EPOCH=str(EPOCH), MLHW_RELEASE="1", PYTHONHASHSEED=seed,
                            MLHW_SNAPSHOT_EPOCH=SNAPSHOT_EPOCH, **snapshot_from)
               for site, seed, snapshot_from in zip(sites, HASH_SEEDS, reuse, strict=True)]
    for result in [_finish(process) for process in started]:
        assert result.returncode == 0, result.stderr[-3000:]
    yield sites[0], sites[1]


def test_two_builds_are_identical_byte_for_byte(builds: tuple[Path, Path]) -> None:
    first, second = (_files(site) for site in builds)
    assert sorted(first) == sorted(second)
    differ = [path for path in first if not filecmp.cmp(first[path], second[path], shallow=False)]
    assert differ == []
    # The files that used to differ are there: the worked examples, the index, the sitemaps, the snapshot.
    assert "examples/serve-70b-model/index.html" in first and "sitemap.xml.gz" in first
    # What the two hash seeds are compared on: every table's data, every value, the widgets' built HTML.
    assert "values.json" in first and sum(path.endswith(".csv") for path in first) > 100
    assert 'data-calculator="training-memory"' in (builds[0] / "calculators" / "memory" / "index.html").read_text(
        encoding="utf-8")
    assert any(path.startswith("pyodide/snapshot-") for path in first)


def test_sitemap_dates_come_from_source_date_epoch_not_the_build_day(builds: tuple[Path, Path]) -> None:
    day = datetime.datetime.fromtimestamp(EPOCH, datetime.timezone.utc).date().isoformat()
    sitemap = (builds[0] / "sitemap.xml").read_text(encoding="utf-8")
    assert set(re.findall(r"<lastmod>(.*?)</lastmod>", sitemap)) == {day}
    packed = (builds[0] / "sitemap.xml.gz").read_bytes()
    # gzip header MTIME (RFC 1952, 2.3): MkDocs takes the newest page date, midnight of that day.
    midnight = datetime.datetime.fromisoformat(day).replace(tzinfo=datetime.timezone.utc).timestamp()
    assert int.from_bytes(packed[4:8], "little") == int(midnight)
    assert gzip.decompress(packed).decode("utf-8") == sitemap


def test_notebook_cell_ids_are_numbered(builds: tuple[Path, Path]) -> None:
    page = (builds[0] / "examples" / "serve-70b-model" / "index.html").read_text(encoding="utf-8")
    ids = re.findall(r'id="cell-id=([^"]+)"', page)
    assert ids and ids == [f"cell-{n}" for n in range(1, len(ids) + 1)]


def test_a_real_site_url_leaves_no_placeholder(builds: tuple[Path, Path]) -> None:
    placeholder = DOCS_SITE_URL.split("/")[2]  # example.invalid
    found = {path: text.count(placeholder) for path, file in _files(builds[0]).items()
             if file.suffix in (".html", ".json", ".xml", ".js", ".csv", ".txt")
             for text in [file.read_text(encoding="utf-8", errors="replace")] if placeholder in text}
    assert found == {}
    # Every citation, canonical link, JSON url and sitemap entry names the configured address.
    hardware = (builds[0] / "hardware" / "index.html").read_text(encoding="utf-8")
    assert f'<link rel="canonical" href="{SITE_URL}hardware/">' in hardware
    catalog = (builds[0] / "hardware" / "catalog" / "index.html").read_text(encoding="utf-8")
    assert f"{SITE_URL}hardware/catalog/#hardware-catalog" in catalog
    assert f'"url": "{SITE_URL}hardware/catalog/#hardware-catalog"' in (
        builds[0] / "hardware" / "tables" / "hardware-catalog.json").read_text(encoding="utf-8")
    assert f"<loc>{SITE_URL}hardware/</loc>" in (builds[0] / "sitemap.xml").read_text(encoding="utf-8")


def test_no_broken_links_404_page_included(builds: tuple[Path, Path]) -> None:
    # Before: 48 broken links, all in 404.html (assets and navigation under /sizing-ml-hardware/).
    assert (builds[0] / "404.html").is_file() and (builds[0] / "offline.html").is_file()
    assert broken_links(builds[0]) == []
    # Only the <base> names the site path (a script moves it to where the site is served).
    page = (builds[0] / "404.html").read_text(encoding="utf-8")
    assert re.findall(r'(?:href|src)="/sizing-ml-hardware/', page) == ['href="/sizing-ml-hardware/']
    assert '<base href="/sizing-ml-hardware/">' in page


@pytest.mark.skipif(not (SITE / "index.html").is_file(), reason="site/ not built (scripts/build)")
def test_no_broken_links_in_the_local_build() -> None:
    assert broken_links(SITE) == []


@pytest.mark.parametrize("site_url", ["", "https://example.invalid/sizing-ml-hardware/", "http://localhost:8000/"])
def test_a_release_build_refuses_a_local_or_placeholder_site_url(tmp_path: Path, site_url: str) -> None:
    env = {"MLHW_RELEASE": "1", "MLHW_SNAPSHOT": "0", "SITE_URL": site_url}
    result = _build(tmp_path / "site", **env)
    assert result.returncode != 0
    assert "site_url" in result.stderr and "SITE_URL=https://" in result.stderr
    assert not (tmp_path / "site" / "index.html").exists()


# --------------------------------------------------------------------------- findable and citable (issue 27, items 8-9)
def _page(site: Path, path: str) -> str:
    return (site / path / "index.html").read_text(encoding="utf-8")


def _ids(html: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', html))


def test_the_calculators_page_reaches_every_calculator(builds: tuple[Path, Path]) -> None:
    """Issue 27 item 8: 12 calculators existed, the Calculators tab held 4 (now: each one's widget, or a link to it)."""
    from calculators.jobs.registry import calculator_names, get_calculator

    site = builds[0]
    page = _page(site, "calculators")
    unreached = []
    for name in calculator_names():
        if f'data-calculator="{name}"' in page:
            continue
        title = html.escape(get_calculator(name).title, quote=False)
        link = re.search(r'<a href="([^"]+)">' + re.escape(title) + "</a>", page)
        target, _, anchor = (link.group(1) if link else "").partition("#")
        path = (site / "calculators" / target / "index.html").resolve()
        if not link or not path.is_file():
            unreached.append(name)
            continue
        # The link lands on that calculator's heading: its widget follows it before any other widget.
        text = path.read_text(encoding="utf-8")
        heading = text.find(f'id="{anchor}"')
        following = re.search(r'data-calculator="([a-z0-9-]+)"', text[heading:]) if heading >= 0 else None
        if following is None or following.group(1) != name:
            unreached.append(name)
    assert unreached == []


def test_every_widget_is_listed_in_its_page_contents(builds: tuple[Path, Path]) -> None:
    """Issue 27 item 8: widgets on topic pages sat 7-29 screens down and were not in the page's contents.

    Each widget's nearest heading names its calculator and is in the page's table of contents; a widget
    under the title alone opens its page (home, examples) and needs none.
    """
    from calculators.jobs.registry import get_calculator

    missing = []
    for file in sorted(builds[0].rglob("index.html")):
        text = file.read_text(encoding="utf-8")
        toc = set(re.findall(r'<a href="#([^"]+)" class="md-nav__link">', text))
        for widget in re.finditer(r'<section class="mlhw-widget"[^>]*data-calculator="([a-z0-9-]+)"', text):
            headings = re.findall(r'<h[2-6] id="([^"]+)">(.*?)<a class="headerlink"', text[:widget.start()])
            title = html.escape(get_calculator(widget.group(1)).title, quote=False)
            if headings and (headings[-1][0] not in toc or title not in headings[-1][1]):
                missing.append(f"{file.parent.relative_to(builds[0])}: {widget.group(1)} under {headings[-1][1]!r}")
    assert missing == []


def test_the_accuracy_page_is_split_and_its_old_anchors_still_lead_to_its_tables(builds: tuple[Path, Path]) -> None:
    """Issue 27 item 8: performance/accuracy/ was 910 lines (about 60 screens); its sections are now pages."""
    site = builds[0]
    main = _page(site, "performance/accuracy")
    for sub, table_id in (("accuracy-generalisation", "speed-generalisation"), ("accuracy-figures", "speed-accuracy-figures"),
                          ("accuracy-engines", "speed-accuracy-engines"), ("accuracy-figures", "speed-accuracy-sources")):
        assert f'id="{table_id}"' in _page(site, f"performance/{sub}")
        # The old address (accuracy/#ID) still lands on a line that links to the table's new page.
        assert f'<span id="{table_id}"></span>' in main and f'href="../{sub}/#{table_id}"' in main
    # Its height at 1280 px is measured in tests/browser/test_findable.py; here, rows of tables left on it (was 790).
    assert main.count("<tr>") < 100


#: Issue 27 item 8, pages split after performance/accuracy/: old page -> {new page: tables that moved there}.
SPLIT_TABLES = {
    "validation": {"validation/real-gpu": ("accuracy-real-gpu", "accuracy-allocator-replay", "accuracy-real-gpu-boundaries",
                                           "accuracy-simulated-boundaries")},
    "performance": {"performance/serving": ("performance-batching", "performance-serving-load"),
                    "performance/decode-speed": ("performance-speed-reference", "performance-speed-batch",
                                                 "performance-speed-validation")},
    "performance/training-time": {"performance/training-utilisation": ("performance-train-mfu-defaults",
                                                                       "performance-train-goodput", "performance-train-validation")},
    "performance/accuracy-generalisation": {"performance/accuracy-bands": ("speed-error-bands",)},
}


@pytest.mark.parametrize("old", sorted(SPLIT_TABLES))
def test_a_split_page_keeps_the_old_anchors_of_its_moved_tables(builds: tuple[Path, Path], old: str) -> None:
    """The old address (old/#ID) of a table that moved lands on a line that links to the table on its new page."""
    site = builds[0]
    main = _page(site, old)
    for new, table_ids in SPLIT_TABLES[old].items():
        href = posixpath.relpath(new, old) + "/"
        for table_id in table_ids:
            assert f'<div class="generated-table" id="{table_id}">' in _page(site, new)
            assert f'<span id="{table_id}"></span>' in main and f'href="{href}#{table_id}"' in main, (old, table_id)
            assert f'<div class="generated-table" id="{table_id}">' not in main


def test_the_glossary_defines_the_words_of_the_results(builds: tuple[Path, Path]) -> None:
    glossary = _page(builds[0], "reference/glossary")
    for term in ("fits", "tight", "margin", "usable-memory", "peak-allocated", "kv-cache", "ttft", "goodput",
                 "utilisation-mfu", "fsdp-zero-1-zero-2-zero-3", "tensor-parallel-tp-pipeline-parallel-pp"):
        assert f'id="{term}"' in glossary, term
    # Each link to a page section names a heading that exists there.
    for target, anchor in re.findall(r'href="(\.\./\.\./[^"#]+/)#([^"]+)"', glossary):
        assert anchor in _ids(_page(builds[0], posixpath.normpath(posixpath.join("reference/glossary", target)))), (
            target, anchor)
    assert 'href="../reference/glossary/"' in _page(builds[0], "calculators")


def test_a_table_is_captioned_above_and_its_data_links_are_relative(builds: tuple[Path, Path]) -> None:
    """Issue 27 item 9: the caption came after the table (104 italic words); "Data:" links named the build's host."""
    site = builds[0]
    page = _page(site, "hardware/catalog")
    start = page.index('<div class="generated-table" id="hardware-catalog"></div>')
    block = page[start:page.index("<!-- /table -->", start)]
    caption = re.search(r"<p><strong>Table hardware-catalog \(v[^)]+, catalog as of \d{4}-\d{2}-\d{2}\)\.</strong> "
                        r"([^<]+)</p>", block)
    assert caption and len(caption.group(1).split()) <= 25
    assert block.index(caption.group(0)) < block.index("<table>") < block.index("<details")
    # The catalog is on hardware/catalog/; its data files lie beside the other hardware tables, in hardware/tables/.
    data = re.findall(r'href="(\.\./tables/hardware-catalog\.[a-z.-]+)"', block)
    assert data == ["../tables/hardware-catalog.csv", "../tables/hardware-catalog.csv-metadata.json",
                    "../tables/hardware-catalog.json"]
    assert all((site / "hardware" / "catalog" / href).is_file() for href in data)
    assert not re.findall(r'href="https?://[^"]*/tables/', page), "no data link names a host"
    rows = list(csv.reader(io.StringIO((site / "hardware" / "catalog" / data[0]).read_text(encoding="utf-8"))))
    cells = [cell for row in rows[1:] for cell in row]
    assert "—" not in cells and not [c for c in cells if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", c)]
    meta = json.loads((site / "hardware" / "catalog" / data[1]).read_text(encoding="utf-8"))
    assert meta["url"] == "hardware-catalog.csv" and re.fullmatch(r"\d{4}-\d{2}-\d{2}", meta["dc:date"])
    assert meta["schema:version"] and meta["dc:source"] and len(meta["tableSchema"]["columns"]) == len(rows[0])
