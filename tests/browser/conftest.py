"""Fixtures of the browser tests (helpers in sitetools.py): a served site/ and headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sitetools import CHROMIUM, CHROMIUM_ARGS, SiteServer, site_built


@pytest.fixture(scope="session", autouse=True)
def _need_site() -> None:
    if not site_built():
        pytest.skip("site/ is not built (run scripts/build; scripts/test does it before pytest)")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def server() -> Iterator[SiteServer]:
    running = SiteServer()
    yield running
    running.stop()
