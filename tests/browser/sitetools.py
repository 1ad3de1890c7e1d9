"""Helpers of the browser tests: the built site served on 127.0.0.1, Debian's Chromium flags.

The tests drive the real site in headless Chromium through Playwright (no browser
download: ``executable_path=/usr/bin/chromium``, installed by ``scripts/setup``). Every
non-loopback host is unresolvable inside the browser (``--host-resolver-rules``), and
the tests also fail on any attempted request that is not to 127.0.0.1.
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path
from typing import Any

#: The built site: site/ (scripts/build), or the folder in $MLHW_SITE (a build elsewhere).
SITE = Path(os.environ.get("MLHW_SITE") or Path(__file__).resolve().parents[2] / "site")
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
#: Cold start of Pyodide on a busy 2-core machine can take several seconds.
LIVE_TIMEOUT_MS = 90_000

#: An init script (``add_init_script``) for the tests that load many pages and check nothing of search: Material's
#: search worker (``assets/javascripts/workers/search.*.js``), which reads the search index (1 MB) and builds its
#: index on every page load, is replaced by an empty one and counted in ``window.mlhwSearchWorkers``; every other
#: worker (the calculators' Python) is made as the page asks.
NO_SEARCH_WORKER = """(() => {
  const Real = window.Worker;
  window.mlhwSearchWorkers = 0;
  window.Worker = function (url, options) {
    if (!String(url).includes("/workers/search.")) return new Real(url, options);
    window.mlhwSearchWorkers += 1;
    return new Real(URL.createObjectURL(new Blob([""], { type: "text/javascript" })));
  };
})();"""


def site_built() -> bool:
    """True when scripts/build has produced the site with its Pyodide runtime and wheel."""
    return (SITE / "index.html").is_file() and (SITE / "pyodide" / "pyodide.asm.wasm").is_file() and (
        SITE / "wheels" / "manifest.json").is_file()


def widget_pages(site: Path = SITE) -> list[str]:
    """Site-relative URLs of every built page of ``site`` that holds a widget."""
    if not (site / "index.html").is_file():
        return []
    pages = []
    for path in sorted(site.rglob("index.html")):
        if "data-calculator=" in path.read_text(encoding="utf-8"):
            relative = path.parent.relative_to(site).as_posix()
            pages.append("" if relative == "." else relative + "/")
    return pages


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    # Explicit types: a machine without /etc/mime.types would serve .mjs as octet-stream,
    # which browsers refuse for module scripts.
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
                      ".json": "application/json", ".whl": "application/zip"}

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a browser closing mid-download (page reloads, test teardown) is not an error


class SiteServer:
    """A built site (default ``SITE``) over HTTP on 127.0.0.1 and a free port, stoppable mid-test."""

    def __init__(self, site: Path = SITE, handler_class: type[SiteHandler] = SiteHandler) -> None:
        handler = functools.partial(handler_class, directory=str(site))
        self.httpd = _QuietServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        if self.thread.is_alive():
            self.httpd.shutdown()
            self.httpd.server_close()
            self.thread.join(timeout=10)


class RequestLog:
    """Every URL a page tried to fetch, to check nothing leaves the machine."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def attach(self, page: Any) -> None:
        page.on("request", lambda request: self.urls.append(request.url))

    def external(self) -> list[str]:
        local = ("http://127.0.0.1:", "http://localhost:", "data:", "blob:", "file://")
        return [url for url in self.urls if not url.startswith(local)]


def wait_state(page: Any, selector: str, states: tuple[str, ...], timeout: int = LIVE_TIMEOUT_MS) -> str:
    """Wait until the widget at ``selector`` reaches one of ``states``; returns the state."""
    page.wait_for_function(
        "([sel, states]) => states.includes(document.querySelector(sel)?.dataset.state)",
        arg=[selector, list(states)], timeout=timeout)
    state: str = page.eval_on_selector(selector, "el => el.dataset.state")
    return state
