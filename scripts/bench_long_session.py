#!/usr/bin/env python3
"""A long session in one calculator (issue #30 item 3): N recomputes, then memory growth and speed.

Opens the calculators page of the built site in headless Chromium, lets the training-memory
widget go live, recomputes it a few times to settle, then N times more (a committed change of
one input, alternating two values, each waiting for its result) and prints, before and after:

* the page's JavaScript heap (Chrome DevTools ``Runtime.getHeapUsage`` after a collection);
* the worker's: its wasm memory (Python's heap; wasm memory only grows, so growth here is
  memory Python kept) and the objects Python tracks after ``gc.collect()`` (the
  worker's ``memory`` request, docs/assets/pyodide-worker.js);
* the renderer's resident memory (the page and its worker run in one process), for reference;
* the round trip of the first and the last 50 recomputes (medians).

Exits 1 when the page heap or the worker's wasm memory grew by more than --bound-mb, or the
last 50 recomputes were more than twice as slow as the first 50 (and over 5 ms slower).

Usage: .venv/bin/python scripts/bench_long_session.py [--recomputes 500] [--bound-mb 4] [--site site]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from sitetools import CHROMIUM, CHROMIUM_ARGS, SiteServer, wait_state  # noqa: E402

WIDGET = "[data-calculator=training-memory]"
#: Before the page's scripts: keep the page's worker reachable, to ask it for its memory.
KEEP_WORKER_JS = """
const post = Worker.prototype.postMessage;
Worker.prototype.postMessage = function (...args) { window.mlhwWorker = this; return post.apply(this, args); };
"""
WORKER_MEMORY_JS = """() => new Promise((resolve) => {
  const worker = window.mlhwWorker;
  const listener = (event) => {
    if (event.data && event.data.type === 'memory') { worker.removeEventListener('message', listener); resolve(event.data); }
  };
  worker.addEventListener('message', listener);
  worker.postMessage({ type: 'memory', id: -1 });
})"""
#: Recomputes the widget ``n`` times (a committed change each, waiting for its result); ms each.
RECOMPUTE_JS = """async ([selector, n]) => {
  const root = document.querySelector(selector);
  const input = [...root.querySelectorAll('input[type=number]')].find((el) => el.offsetParent !== null);
  const times = [];
  for (let i = 0; i < n; i++) {
    const before = performance.getEntriesByName('mlhw-output').length;
    const began = performance.now();
    input.value = String(i % 2 ? 3 : 2);
    input.dispatchEvent(new Event('change', { bubbles: true }));
    while (performance.getEntriesByName('mlhw-output').length === before) await new Promise((r) => setTimeout(r, 0));
    times.push(performance.now() - began);
  }
  performance.clearMarks('mlhw-output');
  return times;
}"""


def _measure(page: Any, cdp: Any, renderer: Any) -> dict[str, float]:
    cdp.send("HeapProfiler.collectGarbage")
    heap = cdp.send("Runtime.getHeapUsage")
    worker = page.evaluate(WORKER_MEMORY_JS)
    return {"page_heap": heap["usedSize"], "wasm": worker["wasmBytes"], "objects": worker["objects"],
            "rss": renderer.memory_info().rss if renderer else float("nan")}


def _renderer() -> Any:
    """The Chromium renderer with the largest resident memory (the page and its worker), or None without psutil."""
    try:
        import psutil  # type: ignore[import-untyped]
    except ImportError:
        return None
    renderers = [p for p in psutil.Process().children(recursive=True) if "--type=renderer" in " ".join(p.cmdline())]
    return max(renderers, key=lambda p: p.memory_info().rss, default=None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recomputes", type=int, default=500)
    parser.add_argument("--bound-mb", type=float, default=4.0)
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    server = SiteServer(args.site)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            context = browser.new_context(service_workers="block")
            context.add_init_script(KEEP_WORKER_JS)
            page = context.new_page()
            page.goto(server.url + "calculators/memory/")
            wait_state(page, WIDGET, ("live",))
            cdp = context.new_cdp_session(page)
            cdp.send("HeapProfiler.enable")
            renderer = _renderer()
            page.evaluate(RECOMPUTE_JS, [WIDGET, 50])  # settle: JIT, caches, the snapshot stored
            before = _measure(page, cdp, renderer)
            times = page.evaluate(RECOMPUTE_JS, [WIDGET, args.recomputes])
            after = _measure(page, cdp, renderer)
            browser.close()
    finally:
        server.stop()
    mib = 1024 * 1024
    first, last = statistics.median(times[:50]), statistics.median(times[-50:])
    print(f"{args.recomputes} recomputes of training-memory")
    for key, label in (("page_heap", "page JS heap"), ("wasm", "worker wasm memory"), ("rss", "renderer RSS")):
        print(f"  {label:20} {before[key] / mib:8.1f} MiB -> {after[key] / mib:8.1f} MiB  "
              f"(growth {(after[key] - before[key]) / mib:+.2f} MiB)")
    print(f"  {'Python objects':20} {before['objects']:8.0f}     -> {after['objects']:8.0f}      "
          f"(growth {after['objects'] - before['objects']:+.0f})")
    print(f"  round trip, median  first 50 {first:.1f} ms, last 50 {last:.1f} ms")
    failed = []
    for key in ("page_heap", "wasm"):
        if after[key] - before[key] > args.bound_mb * mib:
            failed.append(f"{key} grew by more than {args.bound_mb} MiB")
    if last > 2 * first and last - first > 5:
        failed.append("the last 50 recomputes were more than twice as slow as the first 50")
    for line in failed:
        print("FAIL:", line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
