"""Links that reproduce a result, dark mode and a 390 px phone, in the built site (issue #15).

* A widget's inputs go into the page's query string, a pasted config.json into its fragment
  (never sent to the server); opening that address in a fresh browser restores the inputs and
  recomputes the same result (a config too long for an address is left out with a note). "Copy result" gives Markdown and
  JSON with the inputs, the outputs, the package version, the catalog edition and the link.
* Dark mode (the reader's system setting, or the header's toggle) renders the widgets with
  text that keeps a contrast of at least 4.5:1 (WCAG AA) on its background, measured on the
  computed styles of every text the widget shows.
* At 390 px no page is wider than the screen, anything wider than the text column (a
  table, a code block) sits in a box that scrolls sideways: nothing is cut off, and no
  identifier in a table is broken mid-word.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sitetools import SITE, SiteServer, wait_state, widget_pages

pytestmark = pytest.mark.browser

#: The memory calculators (the Calculators tab's second page): training memory first, the KV cache third.
CALCULATORS = "calculators/memory/"
TRAINING = "#mlhw-training-memory-0"
KV = "#mlhw-kv-cache-2"
#: Which GPUs does a job fit (the Calculators tab's third page).
FIT_PAGE = "calculators/fit/"
FIT = "#mlhw-fit-0"
TINY_CONFIG = {"_name_or_path": "tiny-shared-model", "model_type": "llama", "hidden_size": 512,
               "num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 2,
               "intermediate_size": 1024, "vocab_size": 1000, "max_position_embeddings": 2048}


def _pages(site: Path = SITE) -> list[str]:
    return sorted("" if path.parent == site else path.parent.relative_to(site).as_posix() + "/"
                  for path in site.rglob("index.html"))


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    fresh = browser.new_context(viewport={"width": 1200, "height": 900})
    yield fresh
    fresh.close()


def _live(page: Any, url: str, *selectors: str) -> None:
    page.goto(url)
    for selector in selectors:
        page.locator(selector).scroll_into_view_if_needed()
        assert wait_state(page, selector, ("live", "error")) == "live"


def _changed(page: Any, selector: str, action: Any) -> str:
    """Do ``action`` and wait for the widget's output to change; its new text."""
    output = page.locator(f"{selector} [data-role=output]")
    before = output.inner_html()
    action()
    page.wait_for_function("([el, old]) => el.innerHTML !== old && !el.hasAttribute('data-stale')",
                           arg=[output.element_handle(), before], timeout=20_000)
    text: str = output.inner_text()
    return text


def _query(url: str) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)


def test_a_shared_url_restores_the_inputs_and_the_result(context: Any, browser: Any, server: SiteServer) -> None:
    page = context.new_page()
    _live(page, server.url + CALCULATORS, TRAINING)
    widget = page.locator(TRAINING)
    _changed(page, TRAINING, lambda: widget.locator("select[name=method]").select_option("qlora"))
    result = _changed(page, TRAINING, lambda: widget.locator("input[name=batch]").fill("3"))
    shared = page.url
    # Only what differs from the page's defaults, under the widget's id.
    assert _query(shared) == {"training-memory-0.method": ["qlora"], "training-memory-0.batch": ["3"]}
    other = browser.new_context(viewport={"width": 1200, "height": 900})
    try:
        fresh = other.new_page()
        errors: list[str] = []
        fresh.on("pageerror", lambda error: errors.append(str(error)))
        fresh.goto(shared)
        restored = fresh.locator(TRAINING)
        assert restored.locator("select[name=method]").input_value() == "qlora"
        assert restored.locator("input[name=batch]").input_value() == "3"
        # Until Python has recomputed, the build's answer is marked as not for these inputs.
        restored.scroll_into_view_if_needed()
        fresh.wait_for_function("el => el.dataset.state === 'live' && !el.querySelector('[data-stale]')",
                                arg=restored.element_handle(), timeout=90_000)
        assert restored.locator("[data-role=output]").inner_text() == result
        # A reload keeps them too.
        fresh.reload()
        assert fresh.locator(TRAINING).locator("input[name=batch]").input_value() == "3"
        assert errors == []
    finally:
        other.close()


def test_a_bad_value_in_a_link_is_named_not_applied(context: Any, server: SiteServer) -> None:
    page = context.new_page()
    page.goto(server.url + CALCULATORS + "?training-memory-0.method=sideways&training-memory-0.nope=1"
              "&training-memory-0.batch=3&utm_source=chat")
    widget = page.locator(TRAINING)
    assert widget.locator("select[name=method]").input_value() == "full"  # the default, kept
    for moment in ("restored", "computed"):
        if moment == "computed":  # the note outlives the status line's "Recomputed ..." (issue #30)
            assert wait_state(page, TRAINING, ("live", "error")) == "live"
        status = widget.locator("[data-role=status]").inner_text()
        assert "training-memory-0.method=sideways (not one of this calculator's choices)" in status, moment
        assert "training-memory-0.nope=1 (this calculator has no such input)" in status, moment
    # what fits no widget is told in the page's first one (here the same widget)
    first = page.locator("[data-calculator]").first.locator("[data-role=status]").inner_text()
    assert "utm_source=chat (not an input of the calculators on this page)" in first
    # "Copy link" writes what was applied, nothing else.
    widget.locator("[data-share=link]").click()
    box = widget.locator("[data-role=share-text]")
    page.wait_for_function("el => el.value.startsWith('http')", arg=box.element_handle())
    assert _query(box.input_value()) == {"training-memory-0.batch": ["3"]}
    # The reader's change dismisses it.
    widget.locator("input[name=batch]").fill("2")
    page.wait_for_function("el => !el.textContent.includes('Not restored')",
                           arg=widget.locator("[data-role=status]").element_handle(), timeout=10_000)


def test_copy_result_gives_markdown_and_json_that_reproduce_it(browser: Any, server: SiteServer) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 900},
                                  permissions=["clipboard-read", "clipboard-write"])
    try:
        page = context.new_page()
        _live(page, server.url + CALCULATORS, TRAINING)
        widget = page.locator(TRAINING)
        summary = _changed(page, TRAINING, lambda: widget.locator("input[name=seq]").fill("4096"))
        box = widget.locator("[data-role=share-text]")
        widget.locator("[data-share=json]").click()
        page.wait_for_function("el => !el.hidden && el.value.startsWith('{')", arg=box.element_handle())
        record = json.loads(box.input_value())
        assert record["calculator"] == "training-memory"
        assert record["inputs"]["seq"] == "4096"
        assert record["version"] == widget.get_attribute("data-version")
        assert record["catalog_as_of"] == widget.get_attribute("data-catalog-as-of")
        assert record["url"] == page.url.split("#")[0] + "#mlhw-training-memory-0"
        assert _query(record["url"]) == {"training-memory-0.seq": ["4096"]}
        assert record["outputs"]["summary"][0] in summary
        assert record["outputs"]["tables"][0]["rows"]
        assert page.evaluate("navigator.clipboard.readText()") == box.input_value()
        widget.locator("[data-share=markdown]").click()
        page.wait_for_function("el => el.value.startsWith('**Training memory**')", arg=box.element_handle())
        markdown = box.input_value()
        assert "| Sequence length (tokens) | 4096 |" in markdown
        assert f"catalog as of {record['catalog_as_of']}" in markdown and record["url"] in markdown
        assert "Copied the result as Markdown" in widget.locator("[data-role=share-note]").inner_text()
        widget.locator("[data-share=link]").click()
        page.wait_for_function("el => el.value.startsWith('http')", arg=box.element_handle())
        assert box.input_value() == record["url"]
    finally:
        context.close()


def test_a_pasted_config_travels_in_the_link_and_is_echoed(context: Any, browser: Any, server: SiteServer) -> None:
    page = context.new_page()
    _live(page, server.url + CALCULATORS, KV)
    widget = page.locator(KV)
    widget.locator("select[name=model]").select_option("custom")
    text = _changed(page, KV, lambda: widget.locator("textarea[name=config]").fill(json.dumps(TINY_CONFIG, indent=2)))
    # The echo of what was read: 2 x 1000 x 512 + 4 x (655,360 + 1,572,864 + 1,024) + 512 = 9,941,504 parameters.
    assert "Read from your config.json: tiny-shared-model, architecture llama (GQA), 9.94M parameters" in text
    assert "8 attention heads and 2 KV heads" in text and "context up to 2,048 tokens" in text
    # The config goes in the fragment, which a browser never sends to the server: it stays on the
    # reader's computer until they share the link. The other inputs go in the query.
    assert _query(page.url) == {"kv-cache-2.model": ["custom"]}
    fragment = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).fragment)
    assert json.loads(fragment["kv-cache-2.config"][0]) == TINY_CONFIG
    requested: list[str] = []
    other = browser.new_context(viewport={"width": 1200, "height": 900})
    try:
        fresh = other.new_page()
        fresh.on("request", lambda request: requested.append(request.url))
        fresh.goto(page.url)
        restored = fresh.locator(KV)
        restored.scroll_into_view_if_needed()
        fresh.wait_for_function("el => el.dataset.state === 'live' && !el.querySelector('[data-stale]')",
                                arg=restored.element_handle(), timeout=90_000)
        assert "tiny-shared-model" in restored.locator("[data-role=output]").inner_text()
        assert "2,048 bytes per token" in restored.locator("[data-role=output]").inner_text()
        assert not any("tiny-shared-model" in urllib.parse.unquote(url) for url in requested)
    finally:
        other.close()
    # A config too long for an address: the other inputs stay in the link, and the page says so.
    big = dict(TINY_CONFIG, padding="x" * 7000)  # an unknown key: the same model, so the same result
    widget.locator("textarea[name=config]").fill(json.dumps(big))
    note = widget.locator("[data-role=share-note]")
    note.wait_for(state="visible", timeout=10_000)
    assert "config" not in page.url and _query(page.url) == {"kv-cache-2.model": ["custom"]}
    assert "too long for an address" in note.inner_text()


def _luminance(rgb: tuple[float, float, float]) -> float:
    def channel(value: float) -> float:
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(value) for value in rgb)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(foreground: tuple[float, float, float], background: tuple[float, float, float]) -> float:
    """WCAG 2 contrast ratio of two sRGB colours (1 to 21).

    >>> round(contrast((0, 0, 0), (255, 255, 255)), 1)
    21.0
    """
    lighter, darker = sorted((_luminance(foreground), _luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


#: Every visible text of a widget: its colour (blended with its opacity over the background
#: it sits on) and that background (the first opaque one among its ancestors, the page's otherwise).
COLOURS = """(root) => {
  const rgba = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
  const over = (top, bottom) => { const a = top.length > 3 ? top[3] : 1;
    return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)); };
  const background = (el) => {
    const layers = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const c = rgba(getComputedStyle(node).backgroundColor);
      if (c.length && (c.length < 4 || c[3] > 0)) { layers.push(c); if (c.length < 4 || c[3] >= 1) break; }
    }
    let base = rgba(getComputedStyle(document.body).backgroundColor);
    if (base.length > 3 && base[3] === 0) base = [255, 255, 255];
    return layers.reverse().reduce((acc, c) => over(c, acc), base);
  };
  const out = [];
  for (const el of root.querySelectorAll('*')) {
    const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
    const box = el.getBoundingClientRect();
    if (!own || !box.width || !box.height || el.closest('[hidden], option, title, [data-stale]')) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    const isSvg = el instanceof SVGElement;
    let fg = rgba(isSvg ? style.fill : style.color);
    let alpha = (fg.length > 3 ? fg[3] : 1) * Number(style.opacity) * (isSvg ? Number(style.fillOpacity) : 1);
    for (let node = el.parentElement; node && node !== root.parentElement; node = node.parentElement) {
      alpha *= Number(getComputedStyle(node).opacity);
    }
    const bg = background(isSvg ? el.closest('svg').parentElement : el);
    out.push({text: el.textContent.trim().slice(0, 40), fg: over([fg[0], fg[1], fg[2], alpha], bg), bg});
  }
  return out;
}"""


def _low_contrast(page: Any, selector: str) -> list[tuple[str, str, float]]:
    """The texts of the widget at ``selector`` under 4.5:1 against their background."""
    low = []
    for item in page.evaluate(COLOURS, page.locator(selector).element_handle()):
        ratio = contrast(tuple(item["fg"]), tuple(item["bg"]))
        if ratio < 4.5:
            low.append((selector, item["text"], round(ratio, 2)))
    return low


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_widgets_are_legible_in_both_colour_schemes(browser: Any, server: SiteServer, scheme: str) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 900}, color_scheme=scheme)
    try:
        page = context.new_page()
        _live(page, server.url + CALCULATORS, TRAINING)
        expected = "slate" if scheme == "dark" else "default"
        assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == expected
        # An error message and the verdict colours are part of what must be read.
        page.locator(f"{TRAINING} input[name=batch]").fill("-1")
        assert wait_state(page, TRAINING, ("error",), timeout=10_000) == "error"
        page.locator(f"{TRAINING} details.mlhw-advanced > summary").click()
        low = _low_contrast(page, TRAINING)
        _live(page, server.url + FIT_PAGE, FIT)
        page.locator(f"{FIT} details.mlhw-assumptions > summary").click()
        low += _low_contrast(page, FIT)
        assert low == [], low
        # The stale output is dimmed on purpose (it is not the answer); everything else above was checked live.
    finally:
        context.close()


def test_the_header_toggle_switches_to_dark_and_back(context: Any, server: SiteServer) -> None:
    page = context.new_page()
    page.goto(server.url + CALCULATORS)
    scheme = "document.body.getAttribute('data-md-color-scheme')"
    first = page.evaluate(scheme)
    page.locator("form[data-md-component=palette] label:visible").first.click()
    page.wait_for_function(f"{scheme} !== {json.dumps(first)}")
    assert {first, page.evaluate(scheme)} == {"default", "slate"}


#: Elements of the article that reach past the screen's edge without a scrolling box around them.
CLIPPED = """() => {
  const width = document.documentElement.clientWidth, out = [];
  const scrolls = (el) => { for (let a = el.parentElement; a; a = a.parentElement) {
    const s = getComputedStyle(a).overflowX; if (s === 'auto' || s === 'scroll') return true; } return false; };
  for (const el of document.querySelectorAll('.md-content *')) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || el.closest('[hidden]')) continue;
    if ((r.right > width + 1 || r.left < -1) && !scrolls(el)) out.push(el.tagName + ' ' + (el.textContent || '').trim().slice(0, 30));
  }
  return out.slice(0, 5);
}"""


def test_no_page_is_wider_than_a_390px_phone(browser: Any, server: SiteServer) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="dark", service_workers="block")
    # Layout only: the build's answers are what a phone shows first; Python is not started (32 pages, ~30 s less).
    context.route("**/assets/pyodide-worker.js*", lambda route: route.abort())
    # Nor the search index, which the theme's search worker fetches (1 MB) and indexes on every page load (half
    # the time of this loop); it draws nothing on the page.
    context.route("**/search/**", lambda route: route.abort())
    try:
        page = context.new_page()
        problems = {}
        for path in _pages():
            page.goto(server.url + path)
            page.wait_for_load_state("load")
            wide = page.evaluate("document.documentElement.scrollWidth")
            clipped = page.evaluate(CLIPPED)
            # An identifier in a table (key numbers: calculators.memory.training.training_memory) is
            # drawn on one line, never broken mid-word: the table scrolls instead.
            broken = page.evaluate("[...document.querySelectorAll('.md-content table code')].filter(c => new Set("
                                   "[...c.getClientRects()].map(r => Math.round(r.top))).size > 1)"
                                   ".map(c => c.textContent).slice(0, 3)")  # on more than one line
            if wide > 390 or clipped or broken:
                problems[path] = (wide, clipped, broken)
        assert problems == {}
    finally:
        context.close()


def test_wide_widget_tables_scroll_inside_their_box_at_390px(browser: Any, server: SiteServer) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(server.url)
        table = page.locator("[data-calculator=fit] [data-role=output] > table.mlhw-table")
        sizes = table.evaluate("el => [el.scrollWidth, el.clientWidth, getComputedStyle(el).overflowX]")
        assert sizes[0] > sizes[1] and sizes[2] == "auto"  # wider than the screen, so it scrolls
        # Its last column can be scrolled into view.
        table.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
        last = page.locator("[data-calculator=fit] [data-role=output] > table.mlhw-table thead th").last.bounding_box()
        assert last is not None and last["x"] + last["width"] <= 390
    finally:
        context.close()


def test_home_page_leads_with_a_calculator() -> None:
    html = (SITE / "index.html").read_text(encoding="utf-8")
    article = html[html.index("<article"):]
    assert article.index("data-calculator=") < article.index("<h2")
    assert "" in widget_pages()
