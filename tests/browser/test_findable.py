"""Findable and readable (issue 27 item 8): a long page is split, measured as a reader sees it.

Every page of the built site is loaded at 1280 x 800 in one browser context and its height
read (``scrollHeight``); a page over :data:`MAX_SCREENS` screens fails: split it by subject, as
every page over it was (hardware/, inference/, validation/, fine-tuning/, calculators/, recommend/,
performance/ and nine more, each into pages a reader would look for, old anchors kept). The widgets' Python runtime is not needed to measure a page: its
downloads, the search index and the service worker are blocked, so the whole site takes seconds. Folded content
(a closed ``???`` box, such as a long reference table rendered ``<!-- table: ID folded -->``)
takes no screen until opened.

``performance/accuracy/`` was about 60 screens; its generalisation section and its list of
every figure are pages of their own, and its contents list the calculator on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sitetools import SITE, SiteServer

#: Screens a page may take at 1280 x 800 before it is split (issue 27: "longer than about 15 screens").
MAX_SCREENS = 15
VIEWPORT = {"width": 1280, "height": 800}

#: Folders of the built site that are not pages (runtime, wheels, data files, assets, search).
NOT_PAGES = ("assets/", "pyodide/", "wheels/", "search/", "tables/data/")


def site_pages(site: Path = SITE) -> list[str]:
    """Every page of the built site, as the path after the site's root ("" for the home page)."""
    pages = []
    for index in sorted(site.rglob("index.html")):
        path = index.parent.relative_to(site).as_posix()
        path = "" if path == "." else path + "/"
        if not path.startswith(NOT_PAGES):
            pages.append(path)
    return pages


def test_every_page_fits_in_15_screens_or_is_listed(browser: Any, server: SiteServer) -> None:
    pages = site_pages()
    assert len(pages) > 30 and "performance/accuracy/" in pages  # the site's pages were found
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    context.route("**/pyodide/**", lambda route: route.abort())
    context.route("**/wheels/**", lambda route: route.abort())
    # Nor is the search index: the theme's search worker fetches it (1 MB) and builds its index on every page load,
    # half this test's time; it draws nothing on the page (heights unchanged with and without it).
    context.route("**/search/**", lambda route: route.abort())
    screens: dict[str, float] = {}
    try:
        page = context.new_page()
        for path in pages:
            page.goto(server.url + path, wait_until="load")
            screens[path] = page.evaluate("document.documentElement.scrollHeight") / VIEWPORT["height"]
        # The speed-accuracy page's table of contents lists its calculator's heading.
        page.goto(server.url + "performance/accuracy/", wait_until="load")
        toc = page.locator(".md-sidebar--secondary a.md-nav__link", has_text="Calculator: Inference speed")
        assert toc.count() == 1
    finally:
        context.close()
    too_long = {path: round(n, 1) for path, n in screens.items() if n > MAX_SCREENS}
    assert not too_long, f"pages over {MAX_SCREENS} screens at 1280 x 800 (split them by subject): {too_long}"
