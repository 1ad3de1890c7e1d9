"""Type to search a long choice (#26 item 7): the model picker of the fit widget on the home page.

The catalog holds over a hundred models; a ``<select>`` of that length gets a search box above it
(docs/assets/widgets.js, ``addFilter``). Typing words hides the options that do not hold every
word, the first match is chosen when the chosen model is hidden, and the widget recomputes for it.
The box has no name: it never becomes an input of the calculator, the page's address or a copy.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from sitetools import SiteServer, wait_state

pytestmark = pytest.mark.browser

FIT = "#mlhw-fit-0"


@pytest.fixture
def page(browser: Any, server: SiteServer) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    opened = context.new_page()
    opened.goto(server.url)
    opened.locator(FIT).scroll_into_view_if_needed()
    assert wait_state(opened, FIT, ("live", "error")) == "live"
    yield opened
    context.close()


def test_typing_filters_the_models_and_computes_the_first_match(page: Any) -> None:
    widget = page.locator(FIT)
    # the model and the GPU choices are both long enough for a box; the model's is in its field
    assert widget.locator("input[data-role=filter]").count() == 2
    box = widget.locator("[data-field=model] input[data-role=filter]")
    select = widget.locator("select[name=model]")
    assert box.count() == 1 and box.get_attribute("name") is None
    output = widget.locator("[data-role=output]")
    before = output.inner_html()
    box.fill("qwen3 30b")
    page.wait_for_function("([el, old]) => el.innerHTML !== old", arg=[output.element_handle(), before])
    shown = select.evaluate("s => Array.from(s.options).filter(o => !o.hidden).map(o => o.value + ' ' + o.text)")
    assert shown, "no model matched 'qwen3 30b'"
    assert all("qwen3" in text.lower() and "30b" in text.lower() for text in shown), shown
    chosen = select.input_value()
    assert any(text.startswith(chosen + " ") for text in shown)
    # the address holds the chosen model, never the search words
    assert "qwen3" in page.url and "30b" in page.url and "filter" not in page.url
    # words that match nothing leave the choice as it was, and say so to the box's validity
    box.fill("no such model zzz")
    assert select.input_value() == chosen
    assert box.evaluate("b => b.validationMessage") != ""
