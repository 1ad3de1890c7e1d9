"""The published build: a real site_url everywhere, no broken link, the same bytes on every build.

Issue #17: every cite link, canonical link, JSON ``url`` and sitemap entry pointed to the
placeholder ``https://example.invalid/…``; 404.html loaded its assets from an absolute prefix
(48 broken links when the site is served at its root); the worked-example pages (random
notebook cell ids), the search index and the sitemap's dates changed on every build.

The module builds the site twice (``mkdocs build --strict``, about 20 s each on 2 cores)
as a release (``MLHW_RELEASE=1``) with a real ``SITE_URL`` and a fixed ``SOURCE_DATE_EPOCH``
into temporary folders, and compares them byte for byte. The two builds run under different
``PYTHONHASHSEED`` values, so the comparison also catches any published order that follows
``set`` or ``dict`` iteration of strings (one process has one hash seed): every page, every
table's CSV and JSON, ``values.json`` and every widget's built HTML
(``tests/content/test_determinism.py`` checks the rest: the CLI and the widgets no page shows). It needs what ``scripts/build``
makes first (the wheel in build/wheelhouse, the Pyodide runtime in node_modules) and is
skipped without them.
"""

from __future__ import annotations

import datetime
import filecmp
import gzip
import os
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
    sites = [tmp_path_factory.mktemp("release") / name for name in ("first", "second")]
    started = [_start_build(site, SITE_URL=SITE_URL, SOURCE_DATE_EPOCH=str(EPOCH), MLHW_RELEASE="1", PYTHONHASHSEED=seed)
               for site, seed in zip(sites, HASH_SEEDS, strict=True)]
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
    assert 'data-calculator="training-memory"' in (builds[0] / "calculators" / "index.html").read_text(encoding="utf-8")
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
    assert f"{SITE_URL}hardware/#hardware-catalog" in hardware
    assert f'"url": "{SITE_URL}hardware/#hardware-catalog"' in (
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
