"""The worked examples in docs/examples/: jupytext notebooks that the site build executes.

Each ``docs/examples/*.py`` must be a jupytext percent-format notebook that imports the
``calculators`` package and draws at least one chart, be listed in mkdocs.yml's nav, ship
an ``.ipynb`` copy for download that holds the same cells, and run to the end without an
error (executed here in-process, so a broken example fails pytest as well as the build).

When a built site exists (``site/``, or the folder named by ``EXAMPLES_SITE_DIR``), each
notebook's page must exist at ``examples/<name>/`` with its outputs and charts, carry no
error or stderr output, offer its downloads, and load nothing from a host other than the
one serving the site (tests/browser only visits pages with a widget, so the notebook
pages are checked statically here).

Regenerate the downloads after editing a notebook:
``.venv/bin/jupytext --to ipynb docs/examples/*.py``.
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import warnings
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from support import load_script

jupytext = pytest.importorskip("jupytext", reason="the docs extra is not installed")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.py"))
SITE = Path(os.environ.get("EXAMPLES_SITE_DIR", ROOT / "site"))
#: The five questions of issue #7; more notebooks may follow, none may go.
REQUIRED = {"fine-tune-3b-on-24gb", "buy-or-rent-solo-researcher", "serve-70b-model",
            "plan-7b-full-fine-tune-8-gpus", "size-from-config-json"}
#: matplotlib calls that put marks on an Axes.
PLOT_CALLS = {"plot", "bar", "barh", "scatter", "hist", "fill_between", "step", "stackplot", "imshow"}


def _ids(paths: list[Path]) -> list[str]:
    return [p.stem for p in paths]


def _code(path: Path) -> str:
    notebook = jupytext.read(path)
    return "\n\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")


def test_every_required_example_exists() -> None:
    assert REQUIRED <= {p.stem for p in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_is_jupytext_percent_format(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    notebook = jupytext.reads(text, fmt="py:percent")
    assert notebook.metadata["jupytext"]["text_representation"]["format_name"] == "percent"
    assert notebook.metadata["kernelspec"]["name"] == "python3"  # the kernel mkdocs.yml runs
    kinds = [cell.cell_type for cell in notebook.cells]
    assert kinds[0] == "markdown" and "code" in kinds
    assert notebook.cells[0].source.startswith("# "), "the first cell must hold the page title"
    # Round trip: writing the cells back gives the file below its YAML header (where
    # jupytext adds its own version), so nothing sits outside a cell.
    def body(percent: str) -> str:
        return percent.split("# ---\n\n", 1)[1]

    assert body(jupytext.writes(notebook, fmt="py:percent")) == body(text)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_imports_calculators_and_draws_a_chart(path: Path) -> None:
    tree = ast.parse(_code(path))
    modules = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    modules |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert any(m == "calculators" or m.startswith("calculators.") for m in modules)
    calls = {node.func.attr for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)}
    assert calls & PLOT_CALLS, "no chart: call one of " + ", ".join(sorted(PLOT_CALLS))
    assert "show" in calls, "end each chart with plt.show() so the executed page holds the image"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_listed_in_the_nav(path: Path) -> None:
    assert f"- examples/{path.name}\n" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_ipynb_download_holds_the_same_cells(path: Path) -> None:
    ipynb = path.with_suffix(".ipynb")
    assert ipynb.is_file(), f"missing {ipynb.name}: run .venv/bin/jupytext --to ipynb {path.relative_to(ROOT)}"
    source, copy = jupytext.read(path), jupytext.read(ipynb)
    assert [(c.cell_type, c.source) for c in copy.cells] == [(c.cell_type, c.source) for c in source.cells], (
        f"{ipynb.name} is stale: run .venv/bin/jupytext --to ipynb {path.relative_to(ROOT)}")
    assert not any(c.get("outputs") for c in copy.cells), "the download is unexecuted (outputs come from the build)"


@contextlib.contextmanager
def _headless_figures() -> Iterator[list[Any]]:
    """Agg backend; ``plt.show()`` records the open figures instead of showing them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown: list[Any] = []
    original = plt.show

    def show(*args: Any, **kwargs: Any) -> None:
        shown.extend(plt.figure(n) for n in plt.get_fignums())
        plt.close("all")

    plt.show = show  # type: ignore[assignment]
    try:
        yield shown
    finally:
        plt.show = original  # type: ignore[assignment]
        plt.close("all")


def run_notebook(path: Path) -> tuple[str, list[Any]]:
    """Execute the notebook's code cells in one fresh namespace; returns (stdout, figures shown)."""
    out = io.StringIO()
    with _headless_figures() as shown, contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would print as stderr output on the page
        exec(compile(_code(path), str(path), "exec"), {"__name__": "__main__"})
    return out.getvalue(), shown


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_runs_and_draws(path: Path) -> None:
    printed, figures = run_notebook(path)
    assert printed.strip(), "a notebook answers with printed numbers"
    assert figures and all(fig.axes and fig.axes[0].has_data() for fig in figures)


def test_run_notebook_reports_a_failing_cell(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("# %% [markdown]\n# # Broken\n\n# %%\nimport calculators\n"
                      "calculators.get_model('no-such-model')\n", encoding="utf-8")
    from calculators.errors import UnknownNameError

    with pytest.raises(UnknownNameError):
        run_notebook(broken)


# --- the built pages ----------------------------------------------------------------

class _Page(HTMLParser):
    """Collects what the checks below need from one built page."""

    LOADS = {("script", "src"), ("img", "src"), ("iframe", "src"), ("source", "src"), ("audio", "src"),
             ("video", "src"), ("embed", "src"), ("object", "data")}

    def __init__(self) -> None:
        super().__init__()
        self.external: list[str] = []
        self.mime_types: list[str] = []
        self.images = 0
        self.alts: list[str] = []
        self.links: list[str] = []
        self.mermaid = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        urls = [values[a] for t, a in self.LOADS if t == tag and a in values]
        if tag == "link" and values.get("rel") not in ("canonical", "alternate"):
            urls.append(values.get("href", ""))
        self.external += [u for u in urls if u.startswith(("http:", "https:", "//"))]
        if "data-mime-type" in values:
            self.mime_types.append(values["data-mime-type"])
        if tag == "img" and values.get("src", "").startswith(("data:image/png", "data:image/svg")):
            self.images += 1
            self.alts.append(values.get("alt", ""))
        if tag == "a":
            self.links.append(values.get("href", ""))
        self.mermaid |= "jp-Mermaid" in values.get("class", "")


def _built(name: str) -> _Page:
    if not (SITE / "index.html").is_file():
        pytest.skip(f"no built site in {SITE} (scripts/build, or set EXAMPLES_SITE_DIR)")
    page = SITE / "examples" / name / "index.html"
    assert page.is_file(), f"{page} missing: rebuild the site"
    parsed = _Page()
    parsed.feed(page.read_text(encoding="utf-8"))
    return parsed


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_built_page_has_outputs_and_no_errors(path: Path) -> None:
    page = _built(path.stem)
    assert "text/plain" in page.mime_types, "no printed output: was the notebook executed?"
    assert page.images >= 1, "no chart on the page"
    assert not {"application/vnd.jupyter.stderr", "application/vnd.jupyter.error"} & set(page.mime_types)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_built_charts_carry_their_cells_alt_text(path: Path) -> None:
    # Each chart cell describes its chart in a '#| fig-alt: ' line; the build hook puts those
    # lines, in order, where nbconvert writes its placeholder (WCAG 1.1.1, non-text content).
    page = _built(path.stem)
    expected = [line.split(":", 1)[1].strip() for line in path.read_text(encoding="utf-8").splitlines()
                if line.startswith("#| fig-alt:")]
    assert page.alts == expected and all(expected)


def test_a_chart_without_alt_text_fails_the_build() -> None:
    hooks = load_script("mkdocs_hooks")
    chart = f'<img src="data:image/png;base64,AA" {hooks.NBCONVERT_DEFAULT_ALT}>'
    assert hooks.chart_alt_texts(chart, "#| fig-alt: A & B", name="x.py") == \
        '<img src="data:image/png;base64,AA" alt="A &amp; B">'
    with pytest.raises(Exception, match="1 chart.* 0 '#| fig-alt: ' line"):
        hooks.chart_alt_texts(chart, "plt.show()", name="x.py")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_built_page_loads_nothing_external(path: Path) -> None:
    page = _built(path.stem)
    assert page.external == []
    # nbconvert's template imports mermaid from a CDN, but only when a Mermaid diagram is on the page.
    assert not page.mermaid


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_built_page_offers_the_downloads(path: Path) -> None:
    page = _built(path.stem)
    for href, target in ((f"../{path.stem}.ipynb", SITE / "examples" / f"{path.stem}.ipynb"),
                         (path.name, SITE / "examples" / path.stem / path.name)):
        assert href in page.links
        assert target.read_bytes() == (EXAMPLES / Path(href).name).read_bytes()
