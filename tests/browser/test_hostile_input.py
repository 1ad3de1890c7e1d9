"""Hostile input in the browser (issue #17): big or mis-encoded uploads, huge integers, a crashed runtime.

An upload over the 1 MiB limit is refused from ``File.size`` before the page reads it; a
UTF-16 file is refused naming the encoding and a UTF-8 file with a byte-order mark is
accepted; a 4,300-digit integer is a field error; and when Python in the worker breaks
(Pyodide's fatal state, simulated by making the worker's compute call throw), the page
starts a fresh worker, says so, and computes again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from calculators.config_input import MAX_CONFIG_BYTES
from sitetools import SiteServer, wait_state

pytestmark = pytest.mark.browser

TINY = {"_name_or_path": "tiny-bom-model", "model_type": "llama", "hidden_size": 512, "num_hidden_layers": 4,
        "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 1024, "vocab_size": 1000}


@pytest.fixture(scope="module")
def page(browser: Any, server: SiteServer) -> Iterator[Any]:
    """The calculators page with its KV-cache widget live, file reads counted in ``window.mlhwReads``."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    opened = context.new_page()
    opened.add_init_script("""
        window.mlhwReads = 0;
        const read = File.prototype.arrayBuffer;
        File.prototype.arrayBuffer = function () { window.mlhwReads += 1; return read.call(this); };
        const text = Blob.prototype.text;
        Blob.prototype.text = function () { window.mlhwReads += 1; return text.call(this); };
        FileReader.prototype.readAsText = function () { window.mlhwReads += 1; };
    """)
    opened.goto(server.url + "calculators/memory/")  # the memory calculators, the KV cache among them
    for ident in opened.eval_on_selector_all("[data-calculator]", "els => els.map(el => el.id)"):
        wait_state(opened, f"#{ident}", ("live",))
    yield opened
    context.close()


def _kv(page: Any) -> tuple[Any, str]:
    widget = page.locator("[data-calculator=kv-cache]").first
    return widget, f"#{widget.get_attribute('id')}"


def _custom(page: Any) -> tuple[Any, str]:
    """The KV-cache widget switched to a custom model (its empty config.json already refused)."""
    widget, ident = _kv(page)
    widget.locator("select[name=model]").select_option("custom")
    _config_error(page, ident, "config.json: got ''")
    return widget, ident


def _config_error(page: Any, ident: str, start: str) -> str:
    """Wait for the config field's message to start with ``start``; returns it."""
    page.wait_for_function(
        "([sel, start]) => document.querySelector(sel + ' [data-field=config] [data-role=error]')"
        ".textContent.startsWith(start)", arg=[ident, start], timeout=10_000)
    text: str = page.locator(f"{ident} [data-field=config] [data-role=error]").inner_text()
    return text


def _reset(page: Any) -> None:
    widget, ident = _kv(page)
    widget.locator("select[name=model]").select_option("llama-3-8b")
    widget.locator("input[name=context]").fill("4096")
    assert wait_state(page, ident, ("live",), timeout=20_000) == "live"


def test_an_upload_over_the_limit_is_refused_before_it_is_read(page: Any, tmp_path: Path) -> None:
    widget, ident = _custom(page)
    big = tmp_path / "config.json"
    with big.open("wb") as handle:
        handle.truncate(100 * 2**20)  # 100 MB (sparse): the upload that crashed the tab
    reads = page.evaluate("window.mlhwReads")
    widget.locator("input[type=file]").set_input_files(str(big))
    _config_error(page, ident, f"config.json: got a file of {100 * 2**20:,} bytes; expected at most "
                               f"{MAX_CONFIG_BYTES:,} bytes")
    assert widget.get_attribute("data-state") == "error"
    assert page.evaluate("window.mlhwReads") == reads  # refused from File.size alone
    _reset(page)


@pytest.mark.parametrize(("encoding", "named"), [("utf-16", "UTF-16"), ("latin-1", "not UTF-8")])
def test_an_upload_not_in_utf8_is_refused_naming_the_encoding(page: Any, tmp_path: Path, encoding: str,
                                                              named: str) -> None:
    widget, ident = _custom(page)
    path = tmp_path / "config.json"
    path.write_bytes(json.dumps({**TINY, "_name_or_path": "caf\u00e9"}, ensure_ascii=False).encode(encoding))
    widget.locator("input[type=file]").set_input_files(str(path))
    message = _config_error(page, ident, "config.json: got ")
    if message.startswith("config.json: got ''"):
        message = _config_error(page, ident, "config.json: got " + ("U" if named == "UTF-16" else "b"))
    assert named in message and "UTF-8" in message, message
    assert widget.get_attribute("data-state") == "error"
    _reset(page)


def test_an_upload_with_a_utf8_byte_order_mark_is_accepted(page: Any, tmp_path: Path) -> None:
    widget, ident = _custom(page)
    path = tmp_path / "config.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(TINY).encode())
    widget.locator("input[type=file]").set_input_files(str(path))
    page.wait_for_function("el => el.textContent.includes('tiny-bom-model')",
                           arg=widget.locator("[data-role=output]").element_handle(), timeout=10_000)
    assert widget.get_attribute("data-state") == "live"
    _reset(page)


def test_a_4300_digit_integer_is_a_field_error(page: Any) -> None:
    widget, ident = _kv(page)
    # Typed into the number input (Chromium hands over '' for a number past the float range)
    # and sent to the worker as it is, the way a script or another browser could.
    widget.locator("input[name=context]").fill("9" * 4300)
    assert wait_state(page, ident, ("error",), timeout=10_000) == "error"
    message = widget.locator("[data-field=context] [data-role=error]").inner_text()
    assert message.startswith("Context: got ") and "expected an integer from 1 to" in message, message
    reply = page.evaluate("""([digits]) => new Promise((resolve) => {
        const worker = new Worker(new URL("/assets/pyodide-worker.js", location.href), { type: "module" });
        worker.onmessage = (event) => {
            if (event.data.type === "ready") {
                worker.postMessage({ type: "compute", id: 1, name: "kv-cache", inputs: { context: digits } });
            } else if (event.data.type === "result") { worker.terminate(); resolve(event.data); }
        };
    })""", ["9" * 4300])
    assert reply["ok"] is False and reply["field"] == "context", reply
    assert reply["message"].startswith("Context: got '9999") and "(4,300 characters)" in reply["message"], reply
    assert "a bug" not in widget.locator("[data-role=status]").inner_text()
    _reset(page)


def test_a_crashed_runtime_restarts_the_worker_and_says_so(page: Any) -> None:
    widget, ident = _kv(page)
    workers = list(page.workers)
    assert workers
    # After a fatal error every call into Pyodide throws; the same happens here to the one
    # call the worker makes per compute.
    for worker in workers:
        worker.evaluate("""() => {
            const parse = JSON.parse;
            JSON.parse = (text, reviver) => {
                if (typeof text === "string" && text.startsWith('{"ok"')) throw new Error("simulated fatal error");
                return parse(text, reviver);
            };
        }""")
    widget.locator("input[name=context]").fill("2048")
    page.wait_for_function("sel => document.querySelector(sel).querySelector('[data-role=status]')"
                           ".textContent.includes('crashed')", arg=ident, timeout=20_000)
    assert widget.get_attribute("data-state") == "error"
    assert "restarted" in widget.locator("[data-role=status]").inner_text()
    assert widget.locator("[data-role=output]").get_attribute("data-stale") == "true"
    # A fresh worker took over: the next change computes.
    widget.locator("input[name=context]").fill("1024")
    assert wait_state(page, ident, ("live",), timeout=30_000) == "live"
    assert "Recomputed in your browser" in widget.locator("[data-role=status]").inner_text()
