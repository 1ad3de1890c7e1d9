"""Long sessions (issue #30 item 3): results never out of order, a hung worker replaced and the reader told.

* Typing fast: 40 values sent to the worker as fast as the page takes them (each a committed
  change, so each is computed, none debounced away). Every result the page shows must be the
  answer to the newest request sent at that moment (recorded where the page and its worker
  meet: ``Worker.postMessage`` and the ``mlhw-output`` mark), and the one left on screen must
  be exactly what ``calculators.widgets.api.compute_json`` answers for the last inputs sent.
* A worker that never answers (a test copy of the worker script that spins on one value) is
  ended and replaced after ``window.mlhwHungMs``; the widget says so and computes again on the
  new worker when the reader changes an input.

Memory over 500 recomputes is measured by ``scripts/bench_long_session.py`` (a benchmark, not
a test: ~1 min).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from calculators.widgets.api import compute_json
from sitetools import LIVE_TIMEOUT_MS, SiteServer, wait_state

pytestmark = pytest.mark.browser

#: The memory calculators (training, inference, KV cache with its config.json, encoders).
PAGE = "calculators/memory/"
WIDGET = "[data-calculator=training-memory]"

#: Before any page script: record every compute sent to a worker and which request each shown result answered.
RECORD_JS = """
window.mlhwSent = []; window.mlhwShown = [];
const post = Worker.prototype.postMessage;
Worker.prototype.postMessage = function (message, ...rest) {
  if (message && message.type === 'compute') window.mlhwSent.push({ id: message.id, name: message.name, inputs: message.inputs });
  return post.call(this, message, ...rest);
};
const mark = performance.mark.bind(performance);
performance.mark = (name, options) => {
  if (name === 'mlhw-output') {
    const sent = window.mlhwSent;
    window.mlhwShown.push({ newest: sent.length ? sent[sent.length - 1].id : null, answered: window.mlhwAnswering });
  }
  return mark(name, options);
};
const listen = Worker.prototype.addEventListener;
Object.defineProperty(Worker.prototype, 'onmessage', {
  set(handler) {
    this._mlhwHandler = handler;
    listen.call(this, 'message', (event) => {
      if (this._mlhwHandler !== handler) return;
      window.mlhwAnswering = event.data && event.data.id;
      handler.call(this, event);
    });
  },
  get() { return this._mlhwHandler || null; },
  configurable: true,
});
"""


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    fresh = browser.new_context(viewport={"width": 1200, "height": 900}, service_workers="block")
    yield fresh
    fresh.close()


def _number_input(page: Any) -> Any:
    return page.locator(f"{WIDGET} input[type=number]:visible").first


def test_typing_fast_never_shows_an_older_answer(context: Any, server: SiteServer) -> None:
    context.add_init_script(RECORD_JS)
    page = context.new_page()
    page.goto(server.url + PAGE)
    wait_state(page, WIDGET, ("live",))
    field = _number_input(page)
    values = [str(v) for v in range(1, 41)]
    field.evaluate("""async (el, values) => {
      for (const value of values) {
        el.value = value;
        el.dispatchEvent(new Event('change', { bubbles: true }));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }""", values)
    page.wait_for_function(f"""() => {{ const root = document.querySelector('{WIDGET}');
      const sent = window.mlhwSent.filter((s) => s.name === 'training-memory');
      return sent.length > 0 && window.mlhwShown.some((s) => s.answered === sent[sent.length - 1].id)
        && root.dataset.state === 'live'; }}""", timeout=LIVE_TIMEOUT_MS)
    sent = [s for s in page.evaluate("window.mlhwSent") if s["name"] == "training-memory"]
    shown = page.evaluate("window.mlhwShown")
    assert len(sent) >= len(values), "every committed change was sent"
    assert shown, "no result shown"
    older = [s for s in shown if s["answered"] != s["newest"]]
    assert not older, f"{len(older)} of {len(shown)} results answered an older request: {older[:3]}"
    # What is left on screen is the answer to the last inputs sent, as the package computes it.
    last = sent[-1]
    assert values[-1] in last["inputs"].values()
    reply = json.loads(compute_json("training-memory", json.dumps(last["inputs"])))
    assert reply["ok"]
    expected = page.evaluate("html => { const t = document.createElement('template'); t.innerHTML = html; "
                             "const d = document.createElement('div'); d.append(t.content); return d.innerHTML; }",
                             reply["html"])
    # assets/scroll.js marks a result table that scrolls sideways (data-scroll, data-scroll-columns...): layout
    # state of the page, not part of the answer, so it is left out of the comparison.
    shown_html = page.locator(f"{WIDGET} [data-role=output]").evaluate(
        "el => { const copy = el.cloneNode(true); for (const node of [copy, ...copy.querySelectorAll('*')]) "
        "for (const name of node.getAttributeNames()) if (name.startsWith('data-scroll')) node.removeAttribute(name); "
        "return copy.innerHTML; }")
    assert shown_html == expected


#: Appended to the worker script: a compute whose inputs hold the value 987654 never returns.
SPIN_JS = """
const mlhwAnswer = self.onmessage;
self.onmessage = (event) => {
  if (event.data && event.data.type === 'compute' && Object.values(event.data.inputs || {}).includes('987654')) {
    for (;;) { /* hung */ }
  }
  return mlhwAnswer(event);
};
"""


def test_a_hung_worker_is_replaced_and_the_reader_told(context: Any, server: SiteServer) -> None:
    context.add_init_script("window.mlhwHungMs = 3000;")

    def spinning(route: Any) -> None:
        response = route.fetch()
        route.fulfill(response=response, body=response.text() + SPIN_JS)

    context.route("**/assets/pyodide-worker.js*", spinning)
    page = context.new_page()
    page.goto(server.url + PAGE)
    wait_state(page, WIDGET, ("live",))
    field = _number_input(page)
    field.fill("987654")
    field.dispatch_event("change")
    wait_state(page, WIDGET, ("error",), timeout=20_000)
    status = page.locator(f"{WIDGET} [data-role=status]").inner_text()
    assert "stopped answering" in status and "restarted" in status, status
    # The new worker computes the reader's next input.
    page.wait_for_function("performance.getEntriesByName('mlhw-live').length === 2", timeout=LIVE_TIMEOUT_MS)
    before = page.evaluate("performance.getEntriesByName('mlhw-output').length")
    field.fill("3")
    field.dispatch_event("change")
    page.wait_for_function(f"performance.getEntriesByName('mlhw-output').length > {before}", timeout=LIVE_TIMEOUT_MS)
    wait_state(page, WIDGET, ("live",))
    assert "Recomputed" in page.locator(f"{WIDGET} [data-role=status]").inner_text()
