"""Findable and readable (issue 27 item 8): a long page is split, measured as a reader sees it.

``performance/accuracy/`` was about 60 screens at 1280 px; its generalisation section and its
list of every figure are now pages of their own. One page load: the page's height over an
800-px window must be at most 15 screens, and its contents must list the calculator on it.
"""

from __future__ import annotations

from typing import Any

from sitetools import SiteServer

#: Screens a page may take at 1280 x 800 before it is split (issue 27: "longer than about 15 screens").
MAX_SCREENS = 15


def test_the_speed_accuracy_page_fits_in_15_screens(browser: Any, server: SiteServer) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.goto(server.url + "performance/accuracy/")
        page.wait_for_load_state("load")
        screens = page.evaluate("document.documentElement.scrollHeight") / 800
        assert screens <= MAX_SCREENS, f"{screens:.1f} screens"
        # The page's table of contents lists its calculator's heading.
        toc = page.locator(".md-sidebar--secondary a.md-nav__link", has_text="Calculator: Inference speed")
        assert toc.count() == 1
    finally:
        context.close()
