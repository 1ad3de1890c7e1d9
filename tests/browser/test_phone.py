"""Phone and dark mode (issue #27 item 10), in the built site at 390 px.

* A table wider than the screen scrolls sideways with a visible cue (a hint naming its columns,
  a fade or shadow at the edge with more to see) and keeps its first column pinned.
* Notebook charts keep a readable width (labels about 10 px high) and scroll in their box; in the
  dark scheme they are dark with light text, and their text keeps a contrast of 4.5:1 in both.
* Text in tables, results, notes and charts keeps a contrast of at least 4.5:1 (WCAG AA) in both
  schemes, on representative pages (without waiting for Python: the build's answers are shown).
* While the runtime downloads, each widget shows a bar and the megabytes received of the total,
  replaced by the live status once Python is ready.

(That no page of the site is wider than 390 px, or clips anything, is test_reading.py's
``test_no_page_is_wider_than_a_390px_phone``.)
"""

from __future__ import annotations

import io
import json
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from sitetools import LIVE_TIMEOUT_MS, SITE, SiteHandler, SiteServer, wait_state
from test_reading import COLOURS, contrast

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
#: A page with wide catalog tables, one with a widget (result table, chart, notes), one with notebook outputs.
HARDWARE, HOME, NOTEBOOK = "hardware/catalog/", "", "examples/buy-or-rent-solo-researcher/"


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    """A 390 px page that never starts Python (the layout and colours are the build's)."""
    context = browser.new_context(viewport=PHONE, service_workers="block")
    context.route("**/assets/pyodide-worker.js*", lambda route: route.abort())
    yield context.new_page()
    context.close()


def _scroll_state(locator: Any) -> dict[str, Any]:
    state: dict[str, Any] = locator.evaluate("""(el) => {
      const frame = el.matches('table') ? el : el.parentElement;
      return {scroll: frame.hasAttribute('data-scroll'), left: frame.hasAttribute('data-scroll-left'),
              right: frame.hasAttribute('data-scroll-right'), room: el.scrollWidth - el.clientWidth};
    }""")
    return state


def _scroll_to_end(page: Any, locator: Any) -> None:
    locator.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
    page.wait_for_function("el => el.hasAttribute('data-scroll-left')",
                           arg=locator.evaluate_handle("el => el.matches('table') ? el : el.parentElement"))


def test_wide_tables_scroll_with_a_cue_and_a_pinned_first_column(phone: Any, server: SiteServer) -> None:
    phone.goto(server.url + HARDWARE)
    wrap = phone.locator(".mlhw-scroll-frame > .md-typeset__scrollwrap").first  # the 12-column catalog table, the first on its page
    wrap.scroll_into_view_if_needed()
    assert _scroll_state(wrap) | {"room": 0} == {"scroll": True, "left": False, "right": True, "room": 0}
    assert _scroll_state(wrap)["room"] > 300  # wider than the screen
    hint = wrap.locator("xpath=..").locator(".mlhw-scroll-hint")
    columns = wrap.locator("thead th").count()
    assert hint.is_visible() and hint.inner_text() == f"Scroll sideways to see all {columns} columns \u2192"
    first = wrap.locator("tbody tr").first.locator("td").first
    home = first.bounding_box()
    _scroll_to_end(phone, wrap)
    assert _scroll_state(wrap) | {"room": 0} == {"scroll": True, "left": True, "right": False, "room": 0}
    # Pinned: the row's name is still on screen, at the table's left edge, and shadowed on its right.
    pinned = first.bounding_box()
    assert pinned is not None and home is not None and 0 <= pinned["x"] <= home["x"]
    assert first.evaluate("el => getComputedStyle(el).boxShadow") != "none"
    second = wrap.locator("tbody tr").first.locator("td").nth(1).bounding_box()
    assert second is not None and second["x"] + second["width"] < 0  # the rest did scroll away

    # A widget's result table is its own scroller: the same cue, its hint under the caption.
    phone.goto(server.url + HOME)
    table = phone.locator("[data-calculator=fit] [data-role=output] > table.mlhw-table")
    table.scroll_into_view_if_needed()
    phone.wait_for_function("el => el.hasAttribute('data-scroll-right')", arg=table.element_handle())
    caption_hint = table.locator("caption").evaluate("el => getComputedStyle(el, '::after').content")
    assert caption_hint == f'"Scroll sideways to see all {table.locator("thead th").count()} columns \u2192"'
    first = table.locator("tbody td").first
    _scroll_to_end(phone, table)
    box = first.bounding_box()
    assert box is not None and box["x"] >= 0 and first.evaluate("el => getComputedStyle(el).position") == "sticky"


def _ink_contrast(png: bytes) -> tuple[tuple[int, ...], float]:
    """A chart's paper colour (its most common) and the contrast of its ink on it: the most common neutral
    colour (matplotlib draws axes, ticks and text in one) among those at least 3:1 from the paper."""
    pixels = Counter(Image.open(io.BytesIO(png)).convert("RGB").get_flattened_data())
    paper = pixels.most_common(1)[0][0]
    for colour, _ in pixels.most_common():
        if max(colour) - min(colour) <= 24 and contrast(colour, paper) >= 3:
            return paper, contrast(colour, paper)
    return paper, 1.0


def _scheme(page: Any, scheme: str) -> None:
    """The page in ``scheme``, switched with the header's toggle when it shows the other one."""
    want = "slate" if scheme == "dark" else "default"
    if page.evaluate("document.body.getAttribute('data-md-color-scheme')") != want:
        page.locator("form[data-md-component=palette] label:visible").first.click()
        page.wait_for_function("want => document.body.getAttribute('data-md-color-scheme') === want", arg=want)


def test_notebook_charts_are_readable_on_a_phone_in_both_schemes(phone: Any, server: SiteServer) -> None:
    phone.goto(server.url + NOTEBOOK)
    image = phone.locator(".jp-RenderedImage img").first
    image.scroll_into_view_if_needed()
    # At least 600 px wide (the labels of an 8-inch figure at about 10 px), scrolling in a box with the cue.
    width, natural = image.evaluate("el => [el.getBoundingClientRect().width, el.naturalWidth]")
    assert width >= min(600, natural)
    box = image.locator("xpath=..")
    assert box.evaluate("el => getComputedStyle(el).overflowX") == "auto"
    assert _scroll_state(box)["right"]
    hint = box.locator("xpath=..").locator(".mlhw-scroll-hint")
    assert hint.is_visible() and hint.inner_text() == "Scroll sideways to see the whole chart \u2192"
    # Its colours, read at the image's own size (scaling blurs thin lines into greys): what the box shows.
    image.evaluate("el => { el.style.width = el.naturalWidth + 'px'; el.parentElement.scrollLeft = 0; }")
    for scheme in ("light", "dark"):
        _scheme(phone, scheme)
        paper, ratio = _ink_contrast(box.screenshot())
        assert ratio >= 4.5, (scheme, paper, ratio)
        assert (max(paper) < 80) == (scheme == "dark"), (scheme, paper)  # dark paper in the dark scheme


#: Text of these pages is read: tables (links to functions in code among them); a widget's result (headline,
#: table, chart labels and legend, notes, status); a notebook's outputs and prose; admonitions.
CONTRAST_PAGES = (HOME, NOTEBOOK, "memory/")
CONTRAST_SELECTORS = ".md-content table, .mlhw-scroll-hint, [data-calculator], .jp-OutputArea, .admonition"


def test_text_contrast_on_representative_pages_in_both_schemes(phone: Any, server: SiteServer) -> None:
    low, read = [], Counter[str]()
    for path in CONTRAST_PAGES:
        phone.goto(server.url + path)
        phone.wait_for_load_state("load")
        # Folded notes are part of what is read: open them.
        phone.evaluate("document.querySelectorAll('.md-content details').forEach(d => { d.open = true; })")
        for scheme in ("light", "dark"):
            _scheme(phone, scheme)
            for element in phone.locator(CONTRAST_SELECTORS).element_handles():
                for item in phone.evaluate(COLOURS, element):
                    read[scheme] += 1
                    ratio = contrast(tuple(item["fg"]), tuple(item["bg"]))
                    if ratio < 4.5:
                        low.append((scheme, path, item["text"], round(ratio, 2)))
    assert read["light"] == read["dark"] > 400  # the selectors found the same text in both
    assert low == [], low[:20]


class _GatedHandler(SiteHandler):
    """Serves the build's memory snapshot only once the test opens the gate (the rest at once)."""

    gate = threading.Event()

    def do_GET(self) -> None:
        if "/pyodide/snapshot-" in self.path:
            self.gate.wait(timeout=60)
        super().do_GET()


def test_the_runtime_download_shows_its_progress_in_bytes(browser: Any) -> None:
    _GatedHandler.gate.clear()
    gated = SiteServer(handler_class=_GatedHandler)
    context = browser.new_context(viewport=PHONE, service_workers="block")
    try:
        page = context.new_page()
        page.goto(gated.url + HOME)
        widget = "[data-calculator=fit]"
        progress = page.locator(f"{widget} [data-role=progress]")
        # Everything but the snapshot has arrived: the bar stops short, and the text says how far.
        manifest = json.loads((SITE / "wheels" / "manifest.json").read_text(encoding="utf-8"))
        total = sum(manifest["downloads"].values())
        held = manifest["downloads"][manifest["snapshot"]]
        page.wait_for_function("([el, want]) => !el.hidden && Number(el.firstChild.value) >= want",
                               arg=[progress.element_handle(), total - held], timeout=LIVE_TIMEOUT_MS)
        value, maximum = progress.evaluate("el => [el.firstChild.value, el.firstChild.max]")
        assert (value, maximum) == (total - held, total)
        assert progress.inner_text().strip() == (f"{(total - held) / 1e6:.1f} of {total / 1e6:.1f} MB "
                                                 "of the runtime downloaded")
        assert page.get_attribute(widget, "data-state") == "loading"
        _GatedHandler.gate.set()
        assert wait_state(page, widget, ("live", "error")) == "live"
        assert progress.is_hidden()
        assert page.locator(f"{widget} [data-role=status]").inner_text().startswith("Live: Python started")
    finally:
        _GatedHandler.gate.set()
        context.close()
        gated.stop()
