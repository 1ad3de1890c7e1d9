"""A new build served at the same address (issue #30): a reader gets one build whole, never two mixed.

The server switches under open tabs from build A (``site/``) to build B, the next build as a
release would make it (:func:`next_build`: another wheel, whose every result carries a mark,
another calculators page, new ids), sending no caching headers (the browser then reuses its
HTTP cache by heuristic, here for hours) or ``max-age=600``, as common static hosts do. Every
load is checked: its page and the calculators that computed on it are of the same build.

* With the service worker (no caching headers): a reload gets B whole; a second tab left on A
  keeps computing with A and offers to reload once B's service worker has saved B; its reload
  (served by A's worker, B's waiting) gets B whole and reaches "load"; once no tab A's worker
  served is left, B's takes over; offline afterwards, pages and calculators are B's.
* Without one (or before it is installed): a page served from the HTTP cache (``max-age=600``)
  stays A with A's calculators and offers to reload (the server's ``build.json`` names B); a page of A whose
  runtime the browser no longer holds refuses B's calculators and offers to reload, never
  computing A's page with B's wheel.

The second build costs no build: :func:`next_build` derives it from ``site/`` (hard links,
one changed module, a memory snapshot made again by node, ~10-20 s once per session).
"""

from __future__ import annotations

import email.utils
import hashlib
import io
import json
import os
import shutil
import subprocess
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sitetools import LIVE_TIMEOUT_MS, SITE, SiteHandler, SiteServer

pytestmark = pytest.mark.browser

PAGE = "calculators/"
ROOT = Path(__file__).resolve().parents[2]
#: What the build makes its memory snapshot with (scripts/mkdocs_hooks.py).
SNAPSHOT_SCRIPT, PYODIDE_DIR = ROOT / "scripts" / "make_snapshot.mjs", ROOT / "node_modules" / "pyodide"
WIDGET = "[data-calculator]"
#: Appended to build B's calculators.widgets.api: every result it computes ends with the mark.
MARKED_API = '''

_unmarked_compute_json = compute_json


def compute_json(name: str, inputs_json: str) -> str:  # a test build: its results carry its mark
    reply = json.loads(_unmarked_compute_json(name, inputs_json))
    if reply.get("ok"):
        reply["html"] += '<p data-test-build="{mark}">computed by build {mark}</p>'
    return json.dumps(reply)
'''


def _write(path: Path, data: bytes) -> None:
    path.unlink()  # a hard link to build A's file: a new file, not A's changed
    path.write_bytes(data)


def next_build(site: Path, out: Path, *, mark: str = "B") -> Path:
    """``site`` as its next build: every result carries ``mark``, so does the calculators page; new ids.

    What a release changes: the wheel (here its ``api`` module marks every result), so its
    memory snapshot (made again from the new wheel, as the build makes it: ~5 s of node), a
    page (a ``<meta name="mlhw-test-build">``), so the runtime's version and the build's id,
    everywhere the build writes them (pages, scripts, manifest, ``build.json``, ``sw.js``, the
    snapshot's name). Unchanged files are hard links to ``site``'s: no second build.
    """
    shutil.copytree(site, out, copy_function=os.link)
    manifest = json.loads((out / "wheels" / "manifest.json").read_text(encoding="utf-8"))
    old_build = json.loads((out / "build.json").read_text(encoding="utf-8"))["build"]
    old_version = manifest["version"]
    version = hashlib.sha256((old_version + mark).encode()).hexdigest()[:16]
    build = hashlib.sha256((old_build + mark).encode()).hexdigest()[:16]
    wheel = out / "wheels" / manifest["wheel"]
    packed = io.BytesIO()
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "calculators/widgets/api.py":
                data += MARKED_API.replace("{mark}", mark).encode()
            target.writestr(info, data)
    _write(wheel, packed.getvalue())
    if manifest["snapshot"]:
        old_snapshot = out / manifest["snapshot"]
        manifest["snapshot"] = manifest["snapshot"].replace(old_version, version)
        old_snapshot.unlink()
        node = shutil.which("node")
        if node is None:
            pytest.skip("node not found: it makes the next build's memory snapshot")
        subprocess.run([node, str(SNAPSHOT_SCRIPT), str(PYODIDE_DIR), str(wheel), str(out / manifest["snapshot"])],
                       check=True, capture_output=True, env={**os.environ, "SOURCE_DATE_EPOCH": "315532800"})
    manifest.update(sha256=hashlib.sha256(packed.getvalue()).hexdigest())
    _write(out / "wheels" / "manifest.json", (json.dumps(manifest, indent=2) + "\n").encode())
    page = out / PAGE / "index.html"
    _write(page, page.read_bytes().replace(b"<head>", f'<head><meta name="mlhw-test-build" content="{mark}">'.encode(), 1))
    for path in out.rglob("*"):
        if path.suffix in (".html", ".js", ".json") and path.is_file():
            text = path.read_bytes()
            if old_version.encode() in text or old_build.encode() in text:
                _write(path, text.replace(old_version.encode(), version.encode()).replace(old_build.encode(), build.encode()))
    return out


class SwitchingServer(SiteServer):
    """Serves one build folder, switchable at any moment, with the caching headers of ``mode``.

    ``mode``: "none" (no Cache-Control; Last-Modified a day back, so that the browser's
    heuristic keeps responses fresh for hours) or a Cache-Control value (``max-age=600``).
    ``html_from`` serves pages from another folder (a reader whose HTTP cache still held the
    pages only).
    """

    def __init__(self, site: Path, mode: str) -> None:
        self.site, self.mode = site, mode
        self.html_from: Path | None = None
        outer = self

        class Handler(SiteHandler):
            def translate_path(self, path: str) -> str:
                folder = outer.site
                if outer.html_from is not None and (path.split("?")[0].endswith((".html", "/"))):
                    folder = outer.html_from
                self.directory = str(folder)
                return super().translate_path(path)

            def send_header(self, keyword: str, value: str) -> None:
                if keyword == "Last-Modified" and outer.mode == "none":
                    value = email.utils.formatdate(time.time() - 86400, usegmt=True)
                super().send_header(keyword, value)

            def end_headers(self) -> None:
                if outer.mode != "none":
                    self.send_header("Cache-Control", outer.mode)
                super().end_headers()

        super().__init__(site, handler_class=Handler)


@pytest.fixture(scope="module")
def build_b(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return next_build(SITE, tmp_path_factory.mktemp("next") / "site")


# ----------------------------------------------------------------------------- what a page runs
#: The page's build (its mark, "A" when it has none) and, after a recompute of the first
#: widget, the build that computed it ("stale" when the widgets refused the server's).
RECOMPUTE_JS = """async () => {
  const page = document.querySelector('meta[name=mlhw-test-build]')?.content || 'A';
  const root = document.querySelector('[data-calculator]');
  const status = () => root.querySelector('[data-role=status]').textContent;
  for (let i = 0; root.dataset.state !== 'live' && root.dataset.state !== 'error'; i++) {
    if (i > 1800) return { page, runtime: 'never live' };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (status().includes('new version')) return { page, runtime: 'stale' };
  const input = [...root.querySelectorAll('input[type=number]')].find((el) => el.offsetParent !== null);
  const results = () => performance.getEntriesByName('mlhw-output').length;
  const before = results();
  input.value = String(Number(input.value) === 2 ? 3 : 2);
  input.dispatchEvent(new Event('change', { bubbles: true }));
  for (let i = 0; results() === before || !status().startsWith('Recomputed'); i++) {
    if (status().includes('new version')) return { page, runtime: 'stale' };
    if (i > 1200) return { page, runtime: 'no result: ' + status() };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const mark = root.querySelector('[data-role=output] [data-test-build]');
  return { page, runtime: mark ? mark.dataset.testBuild : 'A' };
}"""
PROMPT = "#mlhw-new-version"


def built_with(page: Any) -> tuple[str, str]:
    """(the page's build, the build its calculators computed with, or "stale")."""
    seen = page.evaluate(RECOMPUTE_JS)
    return seen["page"], seen["runtime"]


def load(page: Any, url: str | None = None) -> tuple[str, str]:
    """Open ``url`` (or reload); if the page offers a new version, take it; then what it ran."""
    if url:
        page.goto(url)
    else:
        page.reload()
    seen = built_with(page)
    if seen[1] == "stale" or page.locator(PROMPT).count():
        page.locator(f"{PROMPT} button").click(timeout=LIVE_TIMEOUT_MS)
        page.wait_for_load_state()
        seen = built_with(page)
    return seen


def _runtime_saved(page: Any) -> None:
    """Wait until a service worker controls ``page`` and has saved the runtime of the page's build."""
    saved = """async () => navigator.serviceWorker.controller !== null && Boolean(
        await caches.match(new URL('/wheels/manifest.json', location.origin).href, { ignoreSearch: true }) &&
        await caches.match(new URL('/pyodide/pyodide.asm.wasm', location.origin).href, { ignoreSearch: true }))"""
    deadline = time.monotonic() + LIVE_TIMEOUT_MS / 1000
    while not page.evaluate(saved):  # evaluate awaits the promise (wait_for_function would not)
        assert time.monotonic() < deadline, "the service worker never saved the runtime"
        time.sleep(0.25)


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    fresh = browser.new_context(viewport={"width": 1200, "height": 900})
    yield fresh
    fresh.close()


def _taken_over(page: Any, build: Path) -> None:
    """Wait until the service worker of ``build`` is active with its caches alone (the older build's deleted)."""
    ids = json.loads((build / "build.json").read_text(encoding="utf-8"))
    want = sorted([f"mlhw-guide-{ids['build']}", f"mlhw-{ids['version']}"])
    deadline = time.monotonic() + LIVE_TIMEOUT_MS / 1000
    while sorted(page.evaluate("caches.keys()")) != want:
        assert time.monotonic() < deadline, f"caches {page.evaluate('caches.keys()')}, not {want}"
        time.sleep(0.25)


def test_two_tabs_through_an_update_then_offline(context: Any, build_b: Path) -> None:
    """No caching headers: the browser would reuse its copies for hours, the service worker must not."""
    server = SwitchingServer(SITE, "none")
    try:
        first = context.new_page()
        assert load(first, server.url + PAGE) == ("A", "A")
        _runtime_saved(first)
        second = context.new_page()
        assert load(second, server.url + PAGE) == ("A", "A")
        server.site = build_b
        # The tab left open keeps computing with its own build.
        assert built_with(second) == ("A", "A")
        # A reload gets the new build whole (directly, or through the offer to reload).
        assert load(first) == ("B", "B")
        # B's service worker saves B; the tab on A offers to reload, and still computes.
        second.wait_for_selector(PROMPT, timeout=LIVE_TIMEOUT_MS)
        assert built_with(second) == ("A", "A")
        assert load(second) == ("B", "B")
        # Once no tab is left that A's worker served, B's takes over (it waits until then: no
        # skipWaiting); offline, a new tab gets B's pages and B's calculators.
        first.close()
        second.close()
        third = context.new_page()
        third.goto(server.url + "offline.html")
        _taken_over(third, build_b)
        server.stop()
        assert load(third, server.url + PAGE) == ("B", "B")
        build = json.loads((build_b / "build.json").read_text(encoding="utf-8"))["build"]
        third.goto(server.url + "memory/")
        assert third.locator("meta[name=mlhw-build]").get_attribute("content") == build
    finally:
        server.stop()


def test_a_page_from_the_http_cache_stays_whole_and_offers_the_new_build(browser: Any, build_b: Path) -> None:
    server = SwitchingServer(SITE, "max-age=600")
    context = browser.new_context(service_workers="block")
    try:
        page = context.new_page()
        assert load(page, server.url + PAGE) == ("A", "A")
        server.site = build_b
        page.goto("about:blank")
        page.goto(server.url + PAGE)  # fresh for 10 minutes: the browser's copy of A
        assert built_with(page) == ("A", "A")
        page.wait_for_selector(PROMPT, timeout=LIVE_TIMEOUT_MS)  # the server's build.json names B
        assert load(page) == ("B", "B")
    finally:
        context.close()
        server.stop()


def test_a_page_of_the_old_build_never_runs_the_new_calculators(browser: Any, build_b: Path) -> None:
    server = SwitchingServer(build_b, "none")
    server.html_from = SITE  # pages of A (a reader's cache), every other file of B
    context = browser.new_context(service_workers="block")
    try:
        page = context.new_page()
        page.goto(server.url + PAGE)
        assert built_with(page) == ("A", "stale")
        assert page.locator(PROMPT).is_visible()
        server.html_from = None
        assert load(page) == ("B", "B")
    finally:
        context.close()
        server.stop()
