"""MkDocs hooks for the calculator widgets (registered in mkdocs.yml under ``hooks:``).

Thin by design; the logic lives in :mod:`calculators.widgets`:

* ``on_page_markdown`` expands ``<!-- widget: NAME key=value -->`` markers into the
  widget's form and its result, rendered now by the same Python the browser runs;
  a bad marker fails the build.
* ``on_post_page`` adds the widget stylesheet and script to pages that have a widget
  (only those pages ever load Pyodide), and gives the worked examples' charts the alt text
  of their cells' ``#| fig-alt:`` lines.
* ``on_post_build`` copies the five Pyodide runtime files from ``node_modules/pyodide``
  (``npm ci``) and the package wheel from ``build/wheelhouse`` (``scripts/build``)
  into the site, writes ``wheels/manifest.json``, the offline page ``offline.html`` and
  the service worker ``sw.js`` with two lists (:func:`precache_lists`): the guide (every
  page, the theme, the search index, the images; its cache named after a hash of those
  files), saved on a first visit to any page, and the runtime (its cache named after a
  hash of the wheel, the runtime and the widget scripts), saved once a page with a
  calculator is open.
* One build, never two (:func:`stamp_build`): every page names its build
  (``<meta name="mlhw-build">``, a hash of every guide file and the runtime's version, also
  in ``build.json`` and ``sw.js``), the widget scripts and every runtime file are addressed
  with ``?v=VERSION`` (the worker and widgets.js carry VERSION too, to compare), and the
  site's own stylesheet and script with ``?v=`` their content hash, so that no HTTP cache or
  service worker mixes the pages of one build with the runtime of another.
* ``on_page_content`` numbers the worked examples' random notebook cell ids, and stream
  outputs are merged after execution, so two builds give the same bytes.
* ``on_post_template`` makes ``404.html`` (and the offline page made from it) work at any
  base path: relative links under a ``<base>`` set from the address (:func:`any_base_path`).
* ``on_post_page`` fails the build when a page still names the cite placeholder's host
  (:func:`placeholder_left`): no published page links to ``example.invalid``.
* ``on_config`` refuses a local or placeholder ``site_url`` in a release build
  (``MLHW_RELEASE=1``); ``site_url`` comes from ``SITE_URL`` (mkdocs.yml).
* ``on_config`` also starts ``node scripts/make_snapshot.mjs`` in the background (it runs
  while the pages build): a Pyodide memory snapshot with every calculator imported,
  which ``on_post_build`` writes to ``pyodide/snapshot-VERSION.bin.gz`` and names in the
  manifest, so that a first visit restores Python instead of starting it. Deterministic
  for a given wheel and runtime. ``MLHW_SNAPSHOT=0`` builds without it (the worker then
  boots normally); a failure fails the build. ``MLHW_SNAPSHOT_FROM=DIR`` copies an earlier
  build's snapshot of the same version from ``DIR`` instead of making it again.

And for the generated tables (:mod:`calculators.tables`):

* ``on_files`` recomputes every ``<!-- table: ID -->`` block from the code and fails the
  build when a committed page is stale (run ``scripts/gen_tables.py``), then adds each
  table's data files, ``tables/ID.csv`` (raw numbers), ``tables/ID.csv-metadata.json``
  (version, date, sources, units: :mod:`calculators.table_files`) and ``tables/ID.json``
  beside its page, to the site (so ``--strict`` checks the links under each table).
* ``on_page_markdown`` renders every block and value again, now with the edition the
  committed pages leave out (the package version, ``calculators.version.__version__``, and
  the catalog's as-of date) and with the cite URLs, committed with the placeholder
  ``DOCS_SITE_URL``, under the configured ``site_url``, with the version folder when
  ``SITE_VERSION`` is set (``SITE_VERSION=0.1.0`` gives ``…/0.1.0/…``), as
  ``mike deploy 0.1.0`` publishes the site.
"""

from __future__ import annotations

import difflib
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import tempfile
import urllib.parse
import zipfile
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

from calculators.version import __version__
from calculators.catalog.edition import catalog_as_of
from calculators.inline_values import ValueFunction
from calculators.table_registry import (
    regenerate_pages,
    render_page,
    site_tables,
    site_values,
    table_locations,
    values_json,
)
from calculators.table_files import csv_metadata, function_path, to_csv, to_json
from calculators.tables import (
    DOCS_SITE_URL,
    TableFunction,
    data_path,
    site_url_problem,
    versioned_site_url,
)
from calculators.widgets.markdown import WidgetMarkupError, expand_widgets

ROOT = Path(__file__).resolve().parent.parent
PYODIDE_DIR = ROOT / "node_modules" / "pyodide"
#: Where scripts/build puts the wheel; MLHW_WHEELHOUSE points a build at another folder.
WHEELHOUSE = Path(os.environ.get("MLHW_WHEELHOUSE") or ROOT / "build" / "wheelhouse")
#: All Pyodide needs to start without packages (no micropip, no CDN).
RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
#: Our browser runtime, under docs/assets/; sw.js is a template written to the site root.
ASSETS = ("assets/widgets.js", "assets/widgets.css", "assets/pyodide-worker.js")
SW_TEMPLATE = "assets/sw.js"
#: The site's own files every page names, addressed with ``?v=`` their content hash.
PAGE_ASSETS = ("assets/site.css", "assets/offline.js", "assets/scroll.js")
#: Written by the build in place of these: the runtime's version into the widget scripts, the
#: build's id into every page (after the guide's files are hashed with the placeholder in them).
VERSION_PLACEHOLDER = "__MLHW_VERSION__"
BUILD_PLACEHOLDER = "__MLHW_BUILD__"
BUILD_META = f'<meta name="mlhw-build" content="{BUILD_PLACEHOLDER}">'
#: Makes the build-time memory snapshot (node); its code is part of the site's version.
SNAPSHOT_SCRIPT = ROOT / "scripts" / "make_snapshot.mjs"

_pages_with_widgets: list[str] = []
_state: dict[str, str] = {}
#: This build's table and value functions (on_files), each computing once, for on_page_markdown.
_tables: dict[str, TableFunction] = {}
_values: dict[str, ValueFunction] = {}
#: An earlier build's site folder (``MLHW_SNAPSHOT_FROM``, e.g. ``site/``) whose memory snapshot of this version, when
#: it has one, this build copies instead of making it again: one version name means the same wheel, runtime, scripts
#: and clock, so the same bytes (tests/scripts/test_site_build.py compares a snapshot made so with one made anew).
SNAPSHOT_FROM = os.environ.get("MLHW_SNAPSHOT_FROM", "")
#: The running snapshot job: (version, process, output file, its temporary folder); no process when the output file
#: is a copy of SNAPSHOT_FROM's.
_snapshot_job: list[tuple[str, subprocess.Popen[str] | None, Path, tempfile.TemporaryDirectory[str]]] = []


def _wheel() -> Path:
    """The one wheel in build/wheelhouse, checked to hold exactly the package's current sources.

    A stale wheel would make the browser compute with other code than the build rendered
    the static answers with, so it fails the build.
    """
    wheels = sorted(WHEELHOUSE.glob("*.whl"))
    if len(wheels) != 1:
        raise PluginError(f"expected one wheel in {WHEELHOUSE}, found {len(wheels)}: build the site with scripts/build")
    with zipfile.ZipFile(wheels[0]) as archive:
        packed = {name: archive.read(name) for name in archive.namelist()
                  if name.startswith("calculators/") and name.endswith(".py")}
    sources = {path.relative_to(ROOT).as_posix(): path.read_bytes() for path in (ROOT / "calculators").rglob("*.py")}
    missing = sorted(sources.keys() - packed.keys())
    changed = sorted(name for name in packed if packed[name] != sources.get(name))
    if missing or changed:
        raise PluginError(
            f"{wheels[0].name} does not match calculators/: "
            + (f"changed since it was built: {', '.join(changed[:5])}; " if changed else "")
            + (f"not in it: {', '.join(missing[:5])} (a new subpackage must be listed in pyproject.toml "
               "[tool.setuptools] packages); " if missing else "")
            + "build the site with scripts/build, which rebuilds the wheel first")
    return wheels[0]


def on_config(config: Any) -> Any:
    # site_url comes from SITE_URL (mkdocs.yml: !ENV, a local default). A release build must
    # name the real address: every cite URL, canonical link, JSON url and sitemap entry has it.
    problem = site_url_problem(str(config["site_url"] or ""))
    if os.environ.get("MLHW_RELEASE") == "1" and problem:
        raise PluginError(f"{problem}: a release build (MLHW_RELEASE=1) needs the address the site is published at, "
                          "e.g. SITE_URL=https://your.host/sizing-ml-hardware/ (README: 'Site address')")
    missing = [name for name in RUNTIME_FILES if not (PYODIDE_DIR / name).is_file()]
    if missing:
        raise PluginError(f"Pyodide runtime missing in {PYODIDE_DIR} ({', '.join(missing)}): "
                          "run scripts/setup (npm ci)")
    wheel = _wheel()
    # The version names the service worker's cache and the browser's Pyodide memory
    # snapshot: it changes with the wheel, our scripts and the runtime.
    digest = hashlib.sha256(wheel.read_bytes())
    docs = Path(config["docs_dir"])
    for name in (*ASSETS, SW_TEMPLATE):
        digest.update((docs / name).read_bytes())
    for name in RUNTIME_FILES:
        digest.update((PYODIDE_DIR / name).read_bytes())
    digest.update(SNAPSHOT_SCRIPT.read_bytes())
    if os.environ.get("MLHW_SNAPSHOT", "1") != "0":
        digest.update(snapshot_epoch().encode())
    _state.update(wheel=str(wheel), wheel_sha256=hashlib.sha256(wheel.read_bytes()).hexdigest(),
                  version=digest.hexdigest()[:16])
    for name in PAGE_ASSETS:
        _state[name] = hashlib.sha256((docs / name).read_bytes()).hexdigest()[:16]
    _start_snapshot(wheel)
    _pages_with_widgets.clear()
    site_url = str(config["site_url"] or "")
    _state["site_url"] = site_url
    site_version = os.environ.get("SITE_VERSION", "")
    if site_version and site_url:
        # The version folder is where this build is published: canonical links, the sitemap
        # and 404.html's base name it.
        config["site_url"] = versioned_site_url(site_url, site_version)
    return config


def snapshot_epoch() -> str:
    """The memory snapshot's clock (seconds since 1970): never the build's, so builds repeat.

    ``MLHW_SNAPSHOT_EPOCH`` (scripts/build sets it to the wheel's timestamp), else
    ``SOURCE_DATE_EPOCH``, else 1980-01-01. It is part of the site's version (the snapshot's
    name), so one name always means the same bytes.
    """
    return os.environ.get("MLHW_SNAPSHOT_EPOCH") or os.environ.get("SOURCE_DATE_EPOCH") or "315532800"


def _start_snapshot(wheel: Path) -> None:
    """Start making the memory snapshot of this version in the background (node, ~5 s)."""
    version = _state["version"]
    if os.environ.get("MLHW_SNAPSHOT", "1") == "0" or any(job[0] == version for job in _snapshot_job):
        return  # off, or `mkdocs serve` rebuilding the same version: reuse the job
    while _snapshot_job:
        _, process, _, folder = _snapshot_job.pop()
        if process is not None:
            process.kill()
            process.wait()
        folder.cleanup()
    folder = tempfile.TemporaryDirectory(prefix="mlhw-snapshot-")
    out = Path(folder.name) / "snapshot.bin.gz"
    earlier = Path(SNAPSHOT_FROM) / "pyodide" / f"snapshot-{version}.bin.gz"
    if SNAPSHOT_FROM and earlier.is_file():
        shutil.copyfile(earlier, out)  # now: the earlier build's folder may be this build's, cleaned before pages
        _snapshot_job.append((version, None, out, folder))
        return
    node = shutil.which("node")
    if node is None:
        folder.cleanup()
        raise PluginError("node not found: it makes the Pyodide memory snapshot (scripts/setup installs it; "
                          "MLHW_SNAPSHOT=0 builds without the snapshot)")
    process = subprocess.Popen([node, str(SNAPSHOT_SCRIPT), str(PYODIDE_DIR), str(wheel), str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, "SOURCE_DATE_EPOCH": snapshot_epoch()})
    _snapshot_job.append((version, process, out, folder))


def _finish_snapshot(runtime: Path) -> str | None:
    """Wait for the snapshot job and copy its file into the site; its site path, or None when off."""
    if not _snapshot_job:
        return None
    version, process, out, _ = _snapshot_job[-1]
    log = process.communicate()[0] if process is not None and process.returncode is None else ""
    if (process is not None and process.returncode != 0) or not out.is_file():
        _snapshot_job.clear()
        raise PluginError(f"scripts/make_snapshot.mjs failed (exit {process and process.returncode}; MLHW_SNAPSHOT=0 "
                          f"builds without the snapshot):\n{log[-3000:]}")
    name = f"snapshot-{version}.bin.gz"
    shutil.copyfile(out, runtime / name)
    return f"pyodide/{name}"


def on_files(files: Any, config: Any) -> Any:
    template = files.get_file_from_path(SW_TEMPLATE)
    if template is not None:
        files.remove(template)  # written to the site root by on_post_build
    pages, site_url, site_version = _pages(files), _state.get("site_url", ""), os.environ.get("SITE_VERSION", "")
    # One set of value functions for the pages, the index of values and values.json: each value computes once.
    _values.clear()
    _values.update(site_values(pages))
    _tables.clear()
    _tables.update(site_tables(pages, values=_values))
    data_files = table_data_files(pages, _tables, _values, site_url=site_url, site_version=site_version)
    for path, content in data_files.items():
        files.append(File.generated(config, path, content=content))
    # Every inline value with its provenance, so a number quoted from prose is citable too.
    files.append(File.generated(config, "values.json",
                                content=values_json(pages, site_url=site_url, site_version=site_version,
                                                    values=_values)))
    return files


def _pages(files: Any) -> dict[str, str]:
    return {page.src_uri: Path(page.abs_src_path).read_text(encoding="utf-8")
            for page in sorted(files.documentation_pages(), key=lambda f: f.src_uri)}


def table_data_files(pages: dict[str, str], tables: dict[str, TableFunction], values: dict[str, ValueFunction], *,
                     site_url: str, site_version: str = "") -> dict[str, str]:
    """Site path -> content of every table's CSV, CSV metadata and JSON file; refuses stale committed tables and values.

    ``pages`` maps each page's path under docs/ to its Markdown as committed (cite snippets
    written with ``DOCS_SITE_URL``, no edition), ``tables`` and ``values`` are their functions
    (``site_tables``, ``site_values``). The JSON records the page's URL under ``site_url``,
    versioned when ``site_version`` is set. Sorted by path, the same bytes on every build.
    """
    as_of = catalog_as_of()
    regenerated = regenerate_pages(pages, site_url=DOCS_SITE_URL, tables=tables, values=values)
    stale = [path for path in pages if regenerated[path] != pages[path]]
    if stale:
        diff = "".join(difflib.unified_diff(pages[stale[0]].splitlines(True), regenerated[stale[0]].splitlines(True),
                                            f"docs/{stale[0]}", "regenerated", n=1))
        raise PluginError(f"generated tables or values are stale in {', '.join(stale)}: "
                          f"run scripts/gen_tables.py\n{diff[:2000]}")
    url = versioned_site_url(site_url, site_version)
    out: dict[str, str] = {}
    for table_id, page in table_locations(pages).items():
        table = tables[table_id]()
        out[data_path(page, table_id, "csv")] = to_csv(table)
        out[data_path(page, table_id, "json")] = to_json(table, version=__version__, catalog_as_of=as_of,
                                                        src_path=page, site_url=url)
        out[data_path(page, table_id, "csv-metadata.json")] = csv_metadata(
            table, version=__version__, catalog_as_of=as_of, src_path=page, site_url=url,
            computed_by=function_path(tables[table_id]))
    return dict(sorted(out.items()))


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    # The committed blocks are current (on_files); rendered again with the edition and the published address.
    site_url = _state.get("site_url", "")
    url = versioned_site_url(site_url, os.environ.get("SITE_VERSION", "")) if site_url else DOCS_SITE_URL
    markdown = render_page(markdown, page.file.src_uri, tables=_tables, values=_values, site_url=url,
                           version=__version__, catalog_as_of=catalog_as_of())
    try:
        expanded = expand_widgets(markdown, source=f"docs/{page.file.src_uri}")
    except WidgetMarkupError as error:
        raise PluginError(str(error)) from None
    if expanded != markdown:
        _pages_with_widgets.append(page.url)
    return expanded


#: A notebook cell's anchor in nbconvert's HTML: ``cell-id=`` and the cell's id, which jupytext
#: draws at random for a .py notebook (nbformat's ``random_cell_id``) on every build.
CELL_ID = re.compile(r"cell-id=(?P<id>[A-Za-z0-9_-]+)")


def stable_cell_ids(content: str) -> str:
    """Number a notebook page's random cell ids in order of appearance, so builds repeat byte for byte.

    >>> stable_cell_ids('<div id="cell-id=9f3a21bc"></div><a href="#cell-id=9f3a21bc"></a><p id="cell-id=77e0">')
    '<div id="cell-id=cell-1"></div><a href="#cell-id=cell-1"></a><p id="cell-id=cell-2">'
    """
    ids: dict[str, str] = {}

    def rename(match: re.Match[str]) -> str:
        return "cell-id=" + ids.setdefault(match.group("id"), f"cell-{len(ids) + 1}")

    return CELL_ID.sub(rename, content)


def _coalesce_streams_after_execution() -> None:
    """Merge each executed cell's consecutive stream outputs, as nbconvert does before executing.

    The kernel sends a cell's printed text in chunks as its output buffer flushes, at times
    that vary from run to run; nbconvert merges consecutive chunks (CoalesceStreamsPreprocessor)
    only before ExecutePreprocessor, so each build split a long print differently. Patched
    here, where mkdocs-jupyter runs nbconvert, so every build renders one block per stream.
    """
    from nbconvert.preprocessors import CoalesceStreamsPreprocessor, ExecutePreprocessor

    execute = ExecutePreprocessor.preprocess
    if getattr(execute, "_mlhw_coalesces", False):
        return

    def preprocess(self: Any, nb: Any, resources: Any = None, km: Any = None) -> Any:
        nb, resources = execute(self, nb, resources, km)
        return CoalesceStreamsPreprocessor().preprocess(nb, resources)

    preprocess._mlhw_coalesces = True  # type: ignore[attr-defined]
    ExecutePreprocessor.preprocess = preprocess  # type: ignore[method-assign]


_coalesce_streams_after_execution()


#: Inline code (``<code>`` outside ``<pre>``) and each ``<pre>`` block, which is left alone.
_INLINE_CODE = re.compile(r"(<pre\b.*?</pre>)|<code>([^<]*)</code>", re.DOTALL)
#: A break opportunity after a dot or underscore that joins two parts of an identifier.
_JOINT = re.compile(r"(?<=[A-Za-z0-9][._])(?=[A-Za-z])")


def breakable_identifiers(html_content: str) -> str:
    """Let long inline identifiers wrap only between their parts, never mid-word.

    Material lets inline code break anywhere (``word-break: break-word``), which split
    ``calculators.memory.inference.inference_memory`` as ``inference_me`` / ``mory`` on a
    phone. A ``<wbr>`` after each joining dot or underscore gives the line its break points and
    site.css turns off breaking elsewhere; code blocks (``<pre>``) keep their lines and scroll.

    >>> breakable_identifiers("<p><code>calculators.fit.fit_verdict</code></p><pre><code>a.b</code></pre>")
    '<p><code>calculators.<wbr>fit.<wbr>fit_<wbr>verdict</code></p><pre><code>a.b</code></pre>'
    """
    def mark(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            return match.group(1)
        return "<code>" + _JOINT.sub("<wbr>", match.group(2)) + "</code>"

    return _INLINE_CODE.sub(mark, html_content)


def on_page_content(html_content: str, page: Any, config: Any, files: Any) -> str:
    # Before the search plugin reads the page (on_page_context): the index repeats too.
    if page.file.src_uri.startswith("examples/") and page.file.src_uri.endswith(".py"):
        return stable_cell_ids(html_content)
    return breakable_identifiers(html_content)


#: The text nbconvert gives a chart that has none; each chart's own text comes from its cell.
NBCONVERT_DEFAULT_ALT = 'alt="No description has been provided for this image"'
FIG_ALT = re.compile(r"^#\| fig-alt: (?P<text>.+)$", re.MULTILINE)


def chart_alt_texts(output: str, source: str, *, name: str) -> str:
    """Give a notebook page's charts the ``#| fig-alt: TEXT`` lines of its source, in order.

    nbconvert's HTML has no alt text of its own (it writes a placeholder): each chart cell of
    docs/examples/*.py carries one such line. A count that differs fails the build.

    >>> chart_alt_texts('<img src="a" ' + NBCONVERT_DEFAULT_ALT + '>', "#| fig-alt: Cost by year", name="x.py")
    '<img src="a" alt="Cost by year">'
    """
    texts = [match.group("text").strip() for match in FIG_ALT.finditer(source)]
    charts = output.count(NBCONVERT_DEFAULT_ALT)
    if charts != len(texts):
        raise PluginError(f"{name}: {charts} chart(s) without alt text but {len(texts)} '#| fig-alt: ' line(s); "
                          "give every chart cell one line describing its chart")
    for text in texts:
        output = output.replace(NBCONVERT_DEFAULT_ALT, f'alt="{html.escape(text, quote=True)}"', 1)
    return output


def placeholder_left(output: str, *, page: str) -> str | None:
    """A message when a built page still names the cite placeholder's host (``example.invalid``), else None.

    ``on_page_markdown`` rewrites every committed cite URL to ``site_url``; a placeholder left in
    a page (a snippet written by hand, a new kind of link) would publish a citation that leads
    nowhere, so the build fails instead.

    >>> placeholder_left('<a href="https://example.invalid/sizing-ml-hardware/x/">', page="x/")
    'x/: a link still names the placeholder https://example.invalid/sizing-ml-hardware/ (write cite URLs with calculators.tables.DOCS_SITE_URL so the build replaces them with site_url)'
    >>> placeholder_left("<p>fine</p>", page="x/") is None
    True
    """
    host = urllib.parse.urlsplit(DOCS_SITE_URL).netloc
    if host not in output:
        return None
    return (f"{page}: a link still names the placeholder {DOCS_SITE_URL} (write cite URLs with "
            "calculators.tables.DOCS_SITE_URL so the build replaces them with site_url)")


def on_post_page(output: str, page: Any, config: Any) -> str:
    problem = placeholder_left(output, page=page.file.src_uri)
    if problem:
        raise PluginError(problem)
    if page.file.src_uri.startswith("examples/") and page.file.src_uri.endswith(".py"):
        output = chart_alt_texts(output, Path(page.file.abs_src_path).read_text(encoding="utf-8"),
                                 name=f"docs/{page.file.src_uri}")
    output = page_stamps(output)
    if page.url not in _pages_with_widgets:
        return output
    root = get_relative_url(".", page.url).rstrip("/") + "/"
    # Links between calculators name a page from the site's root (calculators.jobs.plan_links): from this page.
    output = re.sub(r'<a data-site-href="([^"]*)"', lambda found: f'<a href="{root}{found[1]}" data-site-href="{found[1]}"',
                    output)
    version = _state["version"]
    tags = (f'<link rel="stylesheet" href="{root}assets/widgets.css?v={version}">'
            f'<script defer src="{root}assets/widgets.js?v={version}"></script>')
    return output.replace("</head>", tags + "</head>", 1)


def page_stamps(output: str) -> str:
    """A page with its build's id (a placeholder until :func:`stamp_build`) and its own assets versioned.

    >>> page_stamps('<head><link href="../assets/site.css"></head>').count("?v=") + page_stamps("<head>").count("mlhw-build")
    2
    """
    for name in PAGE_ASSETS:
        output = re.sub(f'((?:href|src)="[^"]*{re.escape(name)})"', rf'\1?v={_state.get(name, "0")}"', output)
    return output.replace("<head>", "<head>" + BUILD_META, 1)


#: 404.html's <base>: the build's site path (what a reader without JavaScript and the browser's
#: preload scanner use), then set when the page loads to the longest tail of that path
#: (``/guide/0.1.0/``, ``/0.1.0/``, ``/``) that starts the address the server answered for.
BASE_SCRIPT = ("<base href=%s><script>(function(){var p=%s.split('/').filter(Boolean),"
               "b=document.querySelector('base');for(var i=0;i<=p.length;i++){"
               "var c='/'+p.slice(i).join('/')+(i<p.length?'/':'');"
               "if(location.pathname.indexOf(c)===0){b.href=c;break}}})()</script>")
#: Material reads its base and search-worker URLs from #__config against the page's address,
#: which for 404.html is any missing URL: resolve them against the <base> instead.
CONFIG_SCRIPT = ("<script>(function(){var e=document.getElementById('__config'),c=JSON.parse(e.textContent);"
                 "c.base=document.baseURI;c.search=new URL(c.search,document.baseURI).href;"
                 "e.textContent=JSON.stringify(c)})()</script>")
OFFLINE_PAGE = "offline.html"


def any_base_path(output: str, site_path: str) -> str:
    """404.html that works wherever the site is served: at its site_url path, a version folder or the root.

    MkDocs writes 404.html with absolute URLs under the site_url's path (it is served for any
    missing address, at any depth), which all break when the site is served elsewhere, e.g.
    at the root. Here they become relative to a ``<base>`` that a first script sets from the
    address (:data:`BASE_SCRIPT`).

    >>> page = ('<html><head><link href="/g/assets/a.css"></head><body><a href="/g/memory/">m</a>'
    ...         '<script id="__config">{"base": "/g/", "search": "/g/w.js"}</script>'
    ...         '<script src="/g/assets/javascripts/bundle.1.js"></script></body></html>')
    >>> out = any_base_path(page, "/g/")
    >>> out.count("/g/"), 'href="assets/a.css"' in out, 'href="memory/"' in out, '"base": "."' in out
    (2, True, True, True)
    """
    prefix = site_path if site_path.endswith("/") else site_path + "/"
    out = re.sub(r'(href|src)="' + re.escape(prefix), r'\1="', output)
    out = out.replace(f'new URL("{prefix}",location)', "new URL(document.baseURI)")
    out = out.replace(f'"base": "{prefix}"', '"base": "."').replace(f'"search": "{prefix}', '"search": "')
    out = out.replace("<head>", "<head>" + BASE_SCRIPT % (json.dumps(prefix), json.dumps(prefix)), 1)
    out = re.sub(r'<script src="assets/javascripts/bundle\.', lambda match: CONFIG_SCRIPT + match.group(0), out,
                 count=1)
    return out


def offline_page(not_found: str) -> str:
    """The page the service worker shows for an address it has no copy of while offline (from 404.html)."""
    message = ('<h1>Offline: this address was not saved</h1>\n'
               '<p>You are offline and this address is not part of the saved guide. Every page of the guide '
               'was saved on your first visit: use the navigation, or go to the <a href="./">home page</a>.</p>')
    return not_found.replace("<h1>404 - Not found</h1>", message, 1)


def on_post_template(output_content: str, template_name: str, config: Any) -> str:
    if template_name != "404.html":
        return output_content
    site_path = urllib.parse.urlsplit(str(config["site_url"] or "/")).path or "/"
    output = any_base_path(page_stamps(output_content), site_path)
    _state["offline_page"] = offline_page(output)
    return output


#: Files of the guide a reader needs offline besides its pages: the theme, the search index
#: and its worker, the widgets' look and script (their static answers render without Python),
#: images. Not the downloads (tables/*.csv|json, notebooks, values.json): they stay online.
GUIDE_PATTERNS = ("assets/stylesheets/*.css", "assets/javascripts/*.js", "assets/javascripts/workers/search.*.js",
                  "search/search_index.json", "assets/offline.js", "assets/scroll.js", "assets/site.css",
                  "assets/widgets.css", "assets/widgets.js")
IMAGE_SUFFIXES = (".png", ".svg", ".jpg", ".jpeg", ".gif", ".webp", ".ico")


def precache_lists(site: Path, *, wheel: str, snapshot: str | None) -> tuple[list[str], list[str]]:
    """(runtime, guide): the site paths the service worker stores for offline visits.

    The runtime (Pyodide, the wheel, the snapshot, the worker script; ~40 MB) is stored when
    a page with a calculator is open; the guide (every page as its directory URL, the
    offline page, the theme, the search index, the images; a few MB) on a first visit to
    any page.
    """
    runtime = [f"pyodide/{name}" for name in RUNTIME_FILES] + [f"wheels/{wheel}", "wheels/manifest.json"]
    runtime += [snapshot] if snapshot else []
    runtime += ["assets/pyodide-worker.js"]
    pages = []
    for page in sorted(site.rglob("index.html")):
        folder = page.parent.relative_to(site).as_posix()
        pages.append("./" if folder == "." else folder + "/")
    images = sorted(path.relative_to(site).as_posix() for path in site.rglob("*")
                    if path.suffix.lower() in IMAGE_SUFFIXES and path.is_file()
                    and path.relative_to(site).parts[0] not in ("pyodide", "wheels"))
    assets = sorted({path.relative_to(site).as_posix() for pattern in GUIDE_PATTERNS for path in site.glob(pattern)})
    return runtime, [*pages, OFFLINE_PAGE, *assets, *images]


def stamp_build(site: Path, guide_files: list[str], *, version: str) -> str:
    """Write the build's id into its pages and ``build.json``, the runtime's version into the widget scripts; the id.

    The id hashes every file of the guide (pages with the placeholder in them, the theme, the
    images, the widget scripts once they carry ``version``) and ``version``: a text edit
    changes it (the service worker saves the guide again), the runtime's cache stays.
    """
    for name in ("assets/widgets.js", "assets/pyodide-worker.js"):
        script = site / name
        script.write_text(script.read_text(encoding="utf-8").replace(VERSION_PLACEHOLDER, version), encoding="utf-8")
    digest = hashlib.sha256(version.encode())
    for path in guide_files:
        file = site / (path + "index.html" if path.endswith("/") or path == "./" else path)
        digest.update(path.encode() + b"\0" + (file.read_bytes() if file.is_file() else b""))
    build = digest.hexdigest()[:16]
    for page in sorted(site.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        if BUILD_PLACEHOLDER in text:
            page.write_text(text.replace(BUILD_PLACEHOLDER, build), encoding="utf-8")
    # What offline.js asks the server (past the HTTP cache) when no service worker serves the page.
    (site / "build.json").write_text(json.dumps({"build": build, "version": version}) + "\n", encoding="utf-8")
    return build


def on_post_build(config: Any) -> None:
    site = Path(config["site_dir"])
    runtime = site / "pyodide"
    runtime.mkdir(parents=True, exist_ok=True)
    for name in RUNTIME_FILES:
        shutil.copyfile(PYODIDE_DIR / name, runtime / name)
    wheels = site / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    wheel = Path(_state["wheel"])
    shutil.copyfile(wheel, wheels / wheel.name)
    pyodide_version = json.loads((PYODIDE_DIR / "package.json").read_text(encoding="utf-8"))["version"]
    # The lockfile's info block lets the worker start Pyodide without downloading the
    # lockfile (it loads no packages).
    lock_info = json.loads((PYODIDE_DIR / "pyodide-lock.json").read_text(encoding="utf-8"))["info"]
    snapshot = _finish_snapshot(runtime)
    # The bytes of each file the worker downloads, for its progress indicator ("4.2 of 23.4 MB").
    downloads = {path: (site / path).stat().st_size for path in (*(f"pyodide/{name}" for name in RUNTIME_FILES
                 if name != "pyodide-lock.json"), f"wheels/{wheel.name}", *([snapshot] if snapshot else []))}
    manifest = {"wheel": wheel.name, "sha256": _state["wheel_sha256"], "pyodide": pyodide_version,
                "version": _state["version"], "lockfile_info": lock_info, "snapshot": snapshot, "downloads": downloads}
    (wheels / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")

    if "offline_page" in _state:
        (site / OFFLINE_PAGE).write_text(_state["offline_page"], encoding="utf-8")
    runtime_files, guide_files = precache_lists(site, wheel=wheel.name, snapshot=snapshot)
    build = stamp_build(site, guide_files, version=_state["version"])
    template = (Path(config["docs_dir"]) / SW_TEMPLATE).read_text(encoding="utf-8")
    worker = (template.replace('"__VERSION__"', json.dumps(_state["version"]))
              .replace('"__BUILD__"', json.dumps(build))
              .replace("[/* __RUNTIME__ */]", json.dumps(runtime_files, indent=2))
              .replace("[/* __GUIDE__ */]", json.dumps(guide_files, indent=2))
              .replace("[/* __WIDGET_PAGES__ */]", json.dumps(sorted({url or "./" for url in _pages_with_widgets})))
              .replace('"__OFFLINE_PAGE__"', json.dumps(OFFLINE_PAGE)))
    (site / "sw.js").write_text(worker, encoding="utf-8")
