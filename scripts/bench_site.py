#!/usr/bin/env python3
"""Time the calculator pages of the built site in headless Chromium and print the figures.

For every page with a widget: time to the static answer (first contentful paint), to
live (Pyodide booted in the worker) on a cold visit and on a warm one (HTTP and
service-worker caches filled), the longest main-thread task (PerformanceObserver
'longtask'), the recompute latency (median over N input changes, round trip and the
Python part; once the moment the cold visit goes live, once "settled" on the warm visit
after a reader's pause) and the bytes the server sent (until live; and in all, once the service
worker has stored its offline copy of the guide and the runtime: "incl. offline"). Prints medians over --runs visits next to
the targets; it asserts nothing (machines differ; the tests check behaviour).

Usage: .venv/bin/python scripts/bench_site.py [--runs 3] [--changes 20] [--site site]
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# One definition of the Chromium flags, the site scan and the server: the browser tests' helpers.
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from sitetools import CHROMIUM, CHROMIUM_ARGS, SiteHandler, SiteServer, widget_pages  # noqa: E402

#: (label, unit, target, key); medians on a 2-core machine.
TARGETS = [
    ("static answer", "ms", 250, "static_ms"),
    ("live, cold", "ms", 3000, "cold_ms"),
    ("live, warm", "ms", 1500, "warm_ms"),
    ("longest main-thread task", "ms", 100, "longtask_ms"),
    ("recompute, round trip", "ms", 5, "roundtrip_ms"),
    ("recompute, Python only", "ms", 5, "python_ms"),
    ("recompute, settled", "ms", 5, "settled_roundtrip_ms"),
    ("recompute, settled Python", "ms", 5, "settled_python_ms"),
    ("bytes sent, cold", "MB", None, "cold_mb"),
    ("bytes sent, incl. offline", "MB", None, "offline_mb"),
    ("bytes sent, warm", "MB", None, "warm_mb"),
]

#: Seconds a reader pauses on the warm visit before the "settled" recompute figures.
SETTLE_S = 3

# Installed before any page script: records long tasks from the start of the page.
INIT_SCRIPT = """
window.__longtasks = [];
try {
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longtasks.push(e.duration); })
    .observe({ type: "longtask", buffered: true });
} catch (e) {}
"""

# Changes the first number input N times (no debounce: 'change' events) and times each
# round trip until the output changes (the page patches changed text and attributes in place,
# so any mutation under the output counts); returns [round trip ms, python ms] pairs.
RECOMPUTE_JS = """
async ([selector, count]) => {
  const root = document.querySelector(selector);
  const input = root.querySelector("input[type=number]");
  const output = root.querySelector("[data-role=output]");
  const status = root.querySelector("[data-role=status]");
  const base = Number(input.value);
  const results = [];
  for (let i = 1; i <= count; i++) {
    const changed = new Promise((resolve) => {
      const observer = new MutationObserver(() => { observer.disconnect(); resolve(); });
      observer.observe(output, { childList: true, subtree: true, characterData: true, attributes: true });
    });
    const started = performance.now();
    input.value = String(base + (i % 2));
    input.dispatchEvent(new Event("change", { bubbles: true }));
    await changed;
    const python = /in ([0-9.]+) ms/.exec(status.textContent);
    results.push([performance.now() - started, python ? Number(python[1]) : NaN]);
  }
  input.value = String(base);
  return results;
}
"""


class _Counting(SiteHandler):
    """The browser tests' handler, counting the bytes it sends."""

    sent = [0]

    def copyfile(self, source: Any, outputfile: Any) -> None:
        data = source.read()
        self.sent[0] += len(data)
        outputfile.write(data)


def _live_ms(page: Any) -> float:
    """Wait for every widget to go live; time of the 'mlhw-live' mark from navigation start."""
    page.locator("[data-calculator]").first.scroll_into_view_if_needed()
    page.wait_for_function("[...document.querySelectorAll('[data-calculator]')].every(el => el.dataset.state === 'live')",
                           timeout=120_000)
    value: float = page.evaluate("performance.getEntriesByName('mlhw-live')[0].startTime")
    return value


def _phases(page: Any) -> dict[str, float]:
    """When the worker was started (ms from navigation) and its boot phases in ms, as the page recorded them."""
    detail: dict[str, float] = page.evaluate("""() => ({
        start: performance.getEntriesByName('mlhw-worker-start')[0]?.startTime ?? NaN,
        ...(performance.getEntriesByName('mlhw-live')[0].detail || {}),
    })""")
    return {key: value for key, value in detail.items() if isinstance(value, (int, float))}


def _visit(playwright: Any, url: str, changes: int) -> dict[str, float]:
    # A fresh on-disk profile per visit, as a first-time reader has: an incognito context's
    # memory cache drops the 9 MB wasm, so the service worker would download it again.
    profile = tempfile.TemporaryDirectory(prefix="mlhw-bench-")
    context = playwright.chromium.launch_persistent_context(
        profile.name, executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, viewport={"width": 1200, "height": 900})
    context.add_init_script(INIT_SCRIPT)
    try:
        page = context.pages[0] if context.pages else context.new_page()
        _Counting.sent[0] = 0
        page.goto(url)
        figures: dict[str, float] = {"cold_ms": _live_ms(page)}
        figures.update({f"cold_{k}_ms": v for k, v in _phases(page).items()})
        figures["static_ms"] = page.evaluate(
            "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN")
        figures["cold_mb"] = _Counting.sent[0] / 1e6
        pairs = page.evaluate(RECOMPUTE_JS, ["[data-calculator]", changes])
        figures["roundtrip_ms"] = statistics.median(pair[0] for pair in pairs)
        figures["python_ms"] = statistics.median(pair[1] for pair in pairs)
        longest = page.evaluate("Math.max(0, ...window.__longtasks)")
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        # Everything the first visit made the server send, the service worker's offline copy of
        # the guide and of the runtime included (ready: its install has stored them).
        figures["offline_mb"] = _Counting.sent[0] / 1e6
        started_from = page.evaluate("performance.getEntriesByName('mlhw-live')[0].detail.from")
        figures["cold_from_build"] = 1.0 if started_from == "build" else 0.0
        # A reader's next visit comes later: let the worker store its memory snapshot first.
        figures["snapshot_store_ms"] = figures["snapshot_mb"] = math.nan
        try:
            page.wait_for_function("performance.getEntriesByName('mlhw-snapshot').length > 0", timeout=60_000)
            stored = page.evaluate("performance.getEntriesByName('mlhw-snapshot')[0].detail")
            if stored.get("stored"):
                figures["snapshot_store_ms"] = stored.get("ms", math.nan)
                figures["snapshot_mb"] = stored.get("bytes", math.nan) / 1e6
        except Exception:  # noqa: BLE001 - an older site or no Cache Storage: the warm visit boots normally
            pass
        _Counting.sent[0] = 0
        page.goto("about:blank")
        page.goto(url)
        figures["warm_ms"] = _live_ms(page)
        figures.update({f"warm_{k}_ms": v for k, v in _phases(page).items()})
        figures["warm_mb"] = _Counting.sent[0] / 1e6
        # "settled": the same changes on the warm visit after a reader's pause of SETTLE_S,
        # once the service worker has cached the runtime and the worker's idle warm-up has run
        # (the first figures are taken the moment the cold visit goes live).
        page.wait_for_timeout(SETTLE_S * 1000)
        pairs = page.evaluate(RECOMPUTE_JS, ["[data-calculator]", changes])
        figures["settled_roundtrip_ms"] = statistics.median(pair[0] for pair in pairs)
        figures["settled_python_ms"] = statistics.median(pair[1] for pair in pairs)
        figures["longtask_ms"] = max(longest, page.evaluate("Math.max(0, ...window.__longtasks)"))
        return figures
    finally:
        context.close()
        profile.cleanup()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, default=Path(os.environ.get("MLHW_SITE") or ROOT / "site"),
                        help="built site to serve (default: $MLHW_SITE or site/)")
    parser.add_argument("--page", action="append", default=None, metavar="PATH",
                        help="only this page, e.g. calculators/ ('' for the home page); repeatable")
    parser.add_argument("--runs", type=int, default=3, help="cold+warm visits per page (medians are printed)")
    parser.add_argument("--changes", type=int, default=20, help="input changes per visit for the recompute median")
    args = parser.parse_args(argv)
    if not (args.site / "pyodide" / "pyodide.asm.wasm").is_file():
        parser.error(f"{args.site} is not built: run scripts/build")
    from playwright.sync_api import sync_playwright

    server = SiteServer(args.site, _Counting)
    base = server.url
    load = os.getloadavg()
    print(f"cores: {os.cpu_count()}, load average before: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; "
          f"{args.runs} runs per page, {args.changes} input changes per run; medians")
    try:
        with sync_playwright() as playwright:
            pages = widget_pages(args.site)
            if args.page is not None:
                pages = [path for path in pages if path in args.page]
            for path in pages:
                runs = [_visit(playwright, base + path, args.changes) for _ in range(args.runs)]
                html = (args.site / path / "index.html").read_text(encoding="utf-8")
                names = re.findall(r'data-calculator="([^"]+)"', html)
                print(f"\n/{path}  widgets: {', '.join(names)} (recompute timed on {names[0]})")
                for label, unit, target, key in TARGETS:
                    value = statistics.median(run[key] for run in runs)
                    shown = f"{value:,.2f}" if unit == "MB" or value < 10 else f"{value:,.0f}"
                    goal = f"target <= {target:,} {unit}" if target is not None else ""
                    verdict = "" if target is None else ("ok" if value <= target else "MISSED")
                    print(f"  {label:<26} {shown:>9} {unit:<3} {goal:<18} {verdict}")
                built = sum(run.get("cold_from_build", 0.0) for run in runs)
                print(f"    cold visits started from the build's memory snapshot: {built:.0f} of {len(runs)}")
                for visit in ("cold", "warm"):
                    names = [key[len(visit) + 1:-3] for key in runs[0] if key.startswith(f"{visit}_") and key.endswith(
                        "_ms") and key != f"{visit}_ms"]
                    parts = ", ".join(f"{name} {statistics.median(run.get(f'{visit}_{name}_ms', math.nan) for run in runs):,.0f}"
                                      for name in names)
                    print(f"    {visit} (ms): {parts}")
    finally:
        server.stop()
    load = os.getloadavg()
    print(f"\nload average after: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
