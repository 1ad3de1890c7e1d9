"""One job, one answer, in the browser (issue #27 items 1-4 and 7), on the pages a reader opens.

Issue #27's first question, Llama 3.1 70B with int4 weights at 8k context on 2x RTX 4090, set through
the address (as a shared link sets it) in the home page's fit widget and in the speed widget:

* items 1-2: the answer opens with the reader's GPU and count, the verdict and the margin; the GPU's row
  says "2 (tight)" and "3 (fits)" where the issue found a bare "3";
* item 3: both widgets give the engine's verdict and margin (the oracle: :func:`calculators.fit.share_verdict`
  of the memory estimate, the same call ``mlhw fit`` makes), and the speed chart marks exactly the
  batches its data table says do not fit or are tight;
* item 4: the single changes that make it fit are listed, each with its margin;
* item 7: the copied Markdown carries the chart's data as a table.

The engine-level faces (command line, JSON, Python API, copies) are compared on many more jobs in
tests/tools/test_one_answer.py; this module checks what the page renders.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from typing import Any

import pytest

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.fit import share_verdict
from calculators.memory.inference import inference_memory
from calculators.units import GIB
from sitetools import SITE, SiteServer, wait_state

pytestmark = pytest.mark.browser

#: Issue #27's first question.
JOB = {"model": "llama-3.1-70b", "weights": "int4", "gpu": "rtx-4090", "gpus": "2", "context": "8192"}


def _widget_of(calculator: str) -> tuple[str, str]:
    """(site-relative page, widget id) of the first built page holding a ``calculator`` widget."""
    for path in sorted(SITE.rglob("index.html")):
        found = re.search(rf'id="(mlhw-{calculator}-\d+)" data-calculator="{calculator}"', path.read_text("utf-8"))
        if found:
            relative = path.parent.relative_to(SITE).as_posix()
            return ("" if relative == "." else relative + "/"), found.group(1)
    raise AssertionError(f"no built page holds a {calculator} widget")


def _open(page: Any, server: SiteServer, calculator: str, values: dict[str, str]) -> Any:
    """The ``calculator`` widget live on its page, its inputs set from the address; its locator."""
    path, widget_id = _widget_of(calculator)
    key = widget_id.removeprefix("mlhw-")
    query = "&".join(f"{key}.{name}={value}" for name, value in values.items())
    page.goto(f"{server.url}{path}?{query}")
    widget = page.locator(f"#{widget_id}")
    widget.scroll_into_view_if_needed()
    assert wait_state(page, f"#{widget_id}", ("live", "error")) == "live"
    page.wait_for_function("([el, gpus]) => { const h = el.querySelector('.mlhw-headline');"
                           " return h && h.textContent.includes(gpus + 'x') && !el.querySelector('[data-stale]'); }",
                           arg=[widget.element_handle(), values["gpus"]], timeout=60_000)
    return widget


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900},
                                  permissions=["clipboard-read", "clipboard-write"])
    yield context.new_page()
    context.close()


def _oracle(context: int) -> tuple[str, str]:
    """The engine's verdict and margin for the job at ``context`` tokens, as the answer words them."""
    estimate = inference_memory(get_model(JOB["model"]), weights=JOB["weights"], context=context)
    verdict = share_verdict(estimate, get_gpu(JOB["gpu"]), gpus=int(JOB["gpus"]))
    return verdict.verdict, f"{verdict.margin_bytes / GIB:.1f} GiB to spare"


def test_the_fit_and_speed_widgets_give_the_engines_verdict_and_mark_what_does_not_fit(
        page: Any, server: SiteServer) -> None:
    verdict, margin = _oracle(int(JOB["context"]))
    assert verdict == "tight"  # tests/engine/test_fit_verdict.py derives why; the faces must agree with it
    opening = f"On 2x GeForce RTX 4090, tensor or pipeline parallel: {verdict}, {margin}"

    fit = _open(page, server, "fit", JOB)
    fit_headline = fit.locator(".mlhw-headline").inner_text()
    assert fit_headline.startswith(opening), fit_headline
    row = fit.locator("tr.mlhw-chosen")
    assert "2 (tight)" in row.inner_text() and "3 (fits)" in row.inner_text()  # not a bare "3"
    changes = fit.locator("p", has_text="Single changes that make it fit").inner_text()
    assert re.search(r"3 GPUs, tensor or pipeline parallel: \d+\.\d GiB to spare each", changes), changes

    speed = _open(page, server, "inference-speed", {**JOB, "batch": "1"})
    assert speed.locator(".mlhw-headline").inner_text() == fit_headline  # one job, one verdict and margin
    # At 4,096 tokens batch 1 fits and larger batches do not: the chart marks exactly those.
    context = speed.locator("input[name=context]")
    context.fill("4096")
    context.dispatch_event("change")
    verdict_4k, margin_4k = _oracle(4096)
    page.wait_for_function("([el, text]) => el.querySelector('.mlhw-headline')?.textContent.includes(text)"
                           " && !el.querySelector('[data-stale]')",
                           arg=[speed.element_handle(), f"{verdict_4k}, {margin_4k}"], timeout=60_000)
    rows = speed.locator(".mlhw-chart-data tbody tr")
    memory = [rows.nth(i).locator("td").last.text_content() for i in range(rows.count())]
    marked = [("mlhw-marked" in (bar.get_attribute("class") or ""))
              for bar in speed.locator("svg.mlhw-chart rect").all()]
    assert len(marked) == len(memory) >= 2
    assert marked == [verdict_row != "fits" for verdict_row in memory], (memory, marked)
    assert "fits" in memory and any(verdict_row != "fits" for verdict_row in memory)

    # Item 7: the copied Markdown holds the chart's data as a table, row for row.
    speed.locator("[data-share=markdown]").click()
    box = speed.locator("[data-role=share-text]")
    page.wait_for_function("el => !el.hidden && el.value.includes('|')", arg=box.element_handle())
    markdown = box.input_value()
    for i in range(rows.count()):
        cells = [cell.strip() for cell in rows.nth(i).locator("td").all_text_contents()]
        assert "| " + " | ".join(cells) + " |" in markdown, (cells, markdown[-3000:])

    # Item 9: on the same page, each generated table's caption (title, id, version, as-of date) stands
    # above it, and its relative "Data:" link fetches raw numbers and a metadata file naming the version.
    tables = page.evaluate("""() => [...document.querySelectorAll('.generated-table')].map(anchor => {
        const caption = anchor.nextElementSibling, table = caption && caption.nextElementSibling;
        const data = [...document.querySelectorAll('a[href$=".csv"]')]
            .find(a => a.getAttribute('href').endsWith(anchor.id + '.csv'));
        return {id: anchor.id, caption: caption ? caption.textContent : '',
                table_follows: !!table && (table.tagName === 'TABLE' || !!table.querySelector('table')), href: data ? data.getAttribute('href') : ''};
    })""")
    assert tables, "the speed widget's page holds no generated table"
    version = speed.get_attribute("data-version")
    for table in tables:
        assert table["caption"].startswith(f"Table {table['id']} (v{version}, catalog as of "), table
        assert table["table_follows"] and table["href"] and not table["href"].startswith(("http", "/")), table
        csv_text, metadata = page.evaluate("""async href => [await (await fetch(href)).text(),
                                                             await (await fetch(href + '-metadata.json')).json()]""",
                                           table["href"])
        cells = [cell.strip() for row in csv.reader(io.StringIO(csv_text)) for cell in row]
        display = [cell for cell in cells if cell in ("—", "-") or re.fullmatch(r"[-+]?\d{1,3}(,\d{3})+(\.\d+)?", cell)]
        assert not display, (table["id"], display)  # the CSV holds raw numbers, empty where unknown
        assert version in str(metadata), (table["id"], metadata)
