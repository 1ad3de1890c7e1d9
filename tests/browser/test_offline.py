"""Offline reading and the not-found pages, in a real browser (issue #17).

One visit to any page saves the whole guide: with the server stopped, every page of the
sitemap then loads from the service worker with its text and its styles, and an address
that was never saved gets the offline page instead of the browser's error. The ~40 MB
Python runtime is saved only once a page with a calculator is open. 404.html works
wherever the site is served: at its site_url path or at the root, at any depth.
"""

from __future__ import annotations

import html
import io
import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sitetools import (LIVE_TIMEOUT_MS, NO_SEARCH_WORKER, SITE, RequestLog, SiteHandler, SiteServer, wait_state,
                       widget_pages)

pytestmark = pytest.mark.browser

#: A page of the guide without a calculator (so nothing but offline.js registers the worker).
PLAIN_PAGE = "tables/"
#: Material's header is sticky once its stylesheet applies; unstyled it is static.
STYLED = "getComputedStyle(document.querySelector('.md-header')).position === 'sticky'"
#: The site is served at the root of the test server.
RUNTIME_CACHED = ("() => caches.match(new URL('/pyodide/pyodide.asm.wasm', location.origin).href, { ignoreSearch: true })"
                  ".then(Boolean)")


def sitemap_pages(site: Path = SITE) -> list[str]:
    """Every page of the sitemap, relative to the site (``""`` for the home page)."""
    locations = re.findall(r"<loc>(.*?)</loc>", (site / "sitemap.xml").read_text(encoding="utf-8"))
    home = min(locations, key=len)  # site_url itself
    return [html.unescape(location)[len(home):] for location in locations]


def _title(path: str) -> str:
    text = (SITE / path / "index.html").read_text(encoding="utf-8")
    found = re.search(r"<title>(.*?)</title>", text, re.DOTALL)
    return html.unescape(found.group(1).strip()) if found else ""


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    fresh = browser.new_context(viewport={"width": 1200, "height": 900})
    yield fresh
    fresh.close()


def _worker_ready(page: Any) -> None:
    # The worker controls the page once active, i.e. after its install saved the guide
    # (polled: a page that never registers one fails here instead of waiting forever).
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=LIVE_TIMEOUT_MS)


def test_one_visit_saves_the_whole_guide_for_offline_reading(context: Any) -> None:
    pages = sitemap_pages()
    assert len(pages) >= 30 and PLAIN_PAGE in pages and PLAIN_PAGE not in widget_pages()
    own = SiteServer()  # this test stops its server
    try:
        page = context.new_page()
        page.goto(own.url + PLAIN_PAGE)
        _worker_ready(page)
        # A reader of the text alone does not download the Python runtime.
        assert not page.evaluate(RUNTIME_CACHED)
        own.stop()
        log = RequestLog()
        log.attach(page)
        # Every page in a second tab of the same reader, whose search worker is empty: the theme's worker reads the
        # search index (1 MB) and builds its index on every page load, 40 of this loop's 85 CPU-s; it draws nothing
        # the loop checks. Search itself is checked offline once below, in the first tab, as the reader would use it.
        reader = context.new_page()
        reader.add_init_script(NO_SEARCH_WORKER)
        log.attach(reader)
        loaded = []
        for path in pages:
            response = reader.goto(own.url + path)
            assert response is not None and response.ok and response.from_service_worker, path
            assert reader.title() == _title(path), path
            assert reader.evaluate(STYLED), f"{path}: the theme's stylesheet did not load offline"
            assert len(reader.inner_text("article")) > 200, path
            loaded.append(path)
        assert loaded == pages
        # The theme asked for its search worker and got the empty one (else NO_SEARCH_WORKER is stale).
        assert reader.evaluate("window.mlhwSearchWorkers") > 0, "the theme's search worker moved: see NO_SEARCH_WORKER"
        reader.close()
        # A page with a calculator keeps its static answer (Python was never saved here).
        page.goto(own.url + "calculators/")
        assert page.locator("[data-calculator] [data-role=output]").first.inner_text().strip()
        # Search reads the saved index.
        query = page.locator("input[data-md-component=search-query]")
        query.fill("bandwidth")
        query.press("End")
        page.wait_for_function("document.querySelectorAll('.md-search-result__item').length > 0",
                               timeout=LIVE_TIMEOUT_MS)
        # An address that was never saved gets the offline page, styled, at any depth.
        response = page.goto(own.url + "memory/no/such/page/")
        assert response is not None and response.from_service_worker
        assert "Offline" in page.inner_text("h1")
        assert page.evaluate(STYLED)
        home = page.locator("article a", has_text="home page")
        home.click()
        page.wait_for_load_state()
        assert page.url == own.url and page.title() == _title("")
        assert log.external() == []
    finally:
        own.stop()


def test_a_calculator_page_after_a_plain_first_visit_saves_the_runtime(context: Any) -> None:
    own = SiteServer()
    try:
        page = context.new_page()
        page.goto(own.url + PLAIN_PAGE)
        _worker_ready(page)
        page.goto(own.url + "calculators/")
        ident = page.eval_on_selector("[data-calculator]", "el => el.id")
        wait_state(page, f"#{ident}", ("live",))
        # widgets.js asks the worker (installed from the plain page) to store the runtime.
        page.wait_for_function(RUNTIME_CACHED, timeout=LIVE_TIMEOUT_MS)
        own.stop()
        response = page.reload()
        assert response is not None and response.from_service_worker
        assert wait_state(page, f"#{ident}", ("live", "error")) == "live"
    finally:
        own.stop()


def _not_found_server(prefix: str) -> SiteServer:
    """site/ served under ``prefix`` with 404.html (status 404) for every missing address, as
    GitHub Pages does; 404.html made as a build for site path ``/sizing-ml-hardware/`` makes it."""
    built = (SITE / "404.html").read_text(encoding="utf-8")
    # The build's site path is in the <base> and the script that moves it; the rest is relative.
    page_404 = re.sub(r'<base href="[^"]*"><script>\(function\(\)\{var p="[^"]*"',
                      '<base href="/sizing-ml-hardware/"><script>(function(){var p="/sizing-ml-hardware/"',
                      built, count=1).encode()
    assert page_404 != built.encode()

    class Handler(SiteHandler):
        def send_head(self) -> Any:
            parts = urllib.parse.urlsplit(self.path)
            if parts.path.startswith(prefix):
                rest = "/" + parts.path[len(prefix):]
                local = Path(self.translate_path(rest))
                if local.is_file() or (local / "index.html").is_file():
                    self.path = rest + ("?" + parts.query if parts.query else "")
                    return super().send_head()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page_404)))
            self.end_headers()
            return io.BytesIO(page_404)

    return SiteServer(handler_class=Handler)


@pytest.mark.parametrize("prefix", ["/", "/sizing-ml-hardware/"], ids=["served-at-root", "served-at-site-path"])
def test_404_page_works_at_any_base_path(context: Any, prefix: str) -> None:
    own = _not_found_server(prefix)
    try:
        page = context.new_page()
        failed: list[str] = []
        page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
        base = own.url.rstrip("/") + prefix
        response = page.goto(base + "memory/no/such/deep/page/")
        assert response is not None and response.status == 404
        assert "404" in page.inner_text("h1")
        assert page.evaluate("document.baseURI") == base
        assert page.evaluate(STYLED), "404.html loaded no stylesheet"
        # At the site path nothing else fails; at the root only the browser's speculative preloads
        # (which read the page's markup <base>, the build's site path, before the script moves it).
        assert failed[0] == base + "memory/no/such/deep/page/"
        misses = [url for url in failed[1:] if not url.startswith(own.url + "sizing-ml-hardware/")]
        assert misses == [], f"assets of 404.html not found: {misses}"
        if prefix != "/":
            assert failed[1:] == []
        # Its navigation leads into the site.
        tab = page.locator("a.md-tabs__link").nth(1)
        assert tab.get_attribute("href") == "memory/"
        page.goto(tab.evaluate("a => a.href"))
        assert page.url == base + "memory/" and page.title() == _title("memory/")
    finally:
        own.stop()
