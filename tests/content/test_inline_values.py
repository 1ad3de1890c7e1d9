"""Every number in the prose that states a computed result is generated, current and checked.

A sentence holds ``<!-- value: ID -->`` ... ``<!-- /value -->`` (written by
``scripts/gen_tables.py`` from the functions in :mod:`calculators.doc_values`). These tests:

* recompute every value marker and compare the text the page shows, naming page, line,
  value id, expected and found (the whole marker body, provenance included, is checked by
  the staleness test in tests/content/test_generated_tables.py);
* require value ids unique across the site, distinct from table ids, registered, used, and
  produced by named functions;
* flag numbers with a unit (GiB, GB, GB/s, tokens/s, %, $, USD, ...) typed into paragraphs
  outside code, tables, generated blocks and value markers, unless the paragraph carries
  ``<!-- quoted: SOURCE -->`` or is on :data:`PROSE_ALLOWED` with a reason.

Each check is shown to fail on a doctored copy.
"""

from __future__ import annotations

import functools
import html
import json
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from support import docs_pages, load_script
from support import site_values as shared_site_values

from calculators import __version__
from calculators.errors import UnknownNameError
from calculators.inline_values import (
    Value,
    function_name,
    quantity,
    render_value,
    shown_values,
    update_values,
    value_markers,
)
from calculators.table_registry import (
    VALUES_INDEX_ID,
    all_tables,
    all_values,
    site_values,
    table_locations,
    value_locations,
    values_index,
    values_json,
)
from calculators.tables import DOCS_SITE_URL

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
sys.path.insert(0, str(ROOT / "scripts"))
from diff_tables import _flatten_containers  # noqa: E402

PAGES = docs_pages()
SITE_URL = DOCS_SITE_URL

#: Pages the lint skips. The test warns when a listed page has no flagged number left:
#: remove an entry as soon as its page is converted. A folder entry (ending in /) covers
#: every page under it. ``examples/``: the worked examples are jupytext notebooks
#: (docs/examples/*.py) whose numbers are the executed output of their own code, not
#: Markdown that gen_tables.py rewrites; tests/content/test_notebooks.py runs each one and checks
#: its built page. The folder's index.md only lists the notebooks by their titles, which
#: name their inputs (a "24 GB" card).
PENDING_PAGES: tuple[str, ...] = (
    "examples/",
)

#: Numbers with units that stay typed in prose, by (page, the number as written) -> why.
#: Only inputs the reader chooses (a card size, an example's input) belong here; a result
#: is a value marker, a quotation carries <!-- quoted: SOURCE --> in its paragraph.
PROSE_ALLOWED: dict[tuple[str, str], str] = {
    ("system/index.md", "110 KB"): "input of the worked example (JPEG size), not a result",
    ("memory/vision.md", "16 GB"): "a card size named as the question, the value beside it is generated",
    ("system/pytorch-basics.md", "16 GB"): "a machine size named as the question, the value beside it is generated",
    ("inference/quantization.md", "80 GiB"): "heading naming the card classes of the fit table under it (its anchor "
                                             "is linked); the sizes in the paragraphs are values",
    ("cost/index.md", "30,000 USD"): "input of the worked example (purchase price), not a result",
    ("cost/index.md", "30 %"): "input of the worked example (utilisation), not a result",
    ("system/index.md", "3 ms"): "input of the worked example (augmentation per image, an assumption), not a result",
    ("system/data-and-storage.md", "3 ms"): "input of the example pipelines (augmentation per image, an assumption), "
                                            "not a result",
}

#: A number with a unit: letter units need a space ("80 GiB"; "80GB" is part of a vendor's
#: SKU name), percent may touch the number, dollars lead it.
_NUMBER = r"\d[\d,]*(?:\.\d+)?"
_RANGE = rf"{_NUMBER}(?:\s?(?:-|–|to)\s?{_NUMBER})?"
UNIT_NUMBER = re.compile(
    rf"(?<![\w.$/-])[~≈]?{_RANGE}(?:[ \u202f\u00a0](?:[KMGTP]i?B(?:/s)?|tokens/s|tokens per second|USD|TFLOPS"
    r"|ms|µs|us|s|seconds|minutes|hours|days|GPU-hours)"
    rf"(?![\w])|\s?%)|\$\s?{_NUMBER}")
_QUOTED = re.compile(r"<!-- quoted: (?P<source>[^>]*?\S[^>]*?) -->")
_STRIP = (
    re.compile(r"<!-- value: [a-z0-9-]+ -->.*?<!-- /value -->", re.DOTALL),  # generated values
    re.compile(r"(`+).+?\1", re.DOTALL),                                      # inline code
    re.compile(r"<!--.*?-->", re.DOTALL),                                     # comments
    re.compile(r"\]\([^)]*\)"),                                               # link targets
    re.compile(r"<[^>\s]+://[^>]*>"),                                         # autolinks
    re.compile(r"<[^>]+>"),                                                   # tags
)
_BLOCK = re.compile(r"<!-- table: [a-z0-9-]+(?: [a-z]+)* -->.*?<!-- /table -->", re.DOTALL)


def prose_numbers(text: str) -> list[tuple[int, str]]:
    """(line, number as written) of every number with a unit in a page's paragraphs and headings.

    Skips code (fenced, indented, inline), tables, generated table blocks, value markers,
    HTML and link targets, and every paragraph holding ``<!-- quoted: SOURCE -->``.
    """
    blanked = _BLOCK.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    tokens = MarkdownIt("commonmark").enable("table").parse(_flatten_containers(blanked))
    found = []
    for index, token in enumerate(tokens):
        if token.type != "inline" or not index or tokens[index - 1].type not in ("paragraph_open", "heading_open"):
            continue
        if _QUOTED.search(token.content):
            continue
        prose = token.content
        for pattern in _STRIP:
            prose = pattern.sub(" ", prose)
        line = (token.map[0] + 1) if token.map else 0
        found += [(line, match.group(0).strip()) for match in UNIT_NUMBER.finditer(prose)]
    return found


def _pending(page: str) -> bool:
    return any(page == entry or (entry.endswith("/") and page.startswith(entry)) for entry in PENDING_PAGES)


@functools.cache
def _values() -> dict[str, Value]:
    return {value_id: function() for value_id, function in shared_site_values().items()}


# --------------------------------------------------------------------------- value by value
def compare(page: str, text: str) -> list[str]:
    """Every value marker of a page whose shown text differs from what its function gives now."""
    values = _values()
    problems = []
    for value_id, shown, line in value_markers(text):
        if value_id not in values:
            problems.append(f"docs/{page}:{line}, value {value_id}: no function registered")
        elif shown != values[value_id].text:
            problems.append(f"docs/{page}:{line}, value {value_id}: expected {values[value_id].text!r}, found {shown!r}")
    return problems


@pytest.mark.parametrize("page", sorted(p for p, text in PAGES.items() if any(value_markers(text))))
def test_every_value_matches_the_code(page: str) -> None:
    problems = compare(page, PAGES[page])
    assert not problems, "\n".join(problems)


def test_value_check_catches_an_edited_value() -> None:
    """Prove the check can fail: one value of a copy of a real page, changed."""
    page = "system/index.md"
    value_id, shown, line = next(m for m in value_markers(PAGES[page]) if m[0] == "system-example-host-ram")
    doctored = PAGES[page].replace(f">{shown}</span><!-- /value -->", ">641 GiB</span><!-- /value -->", 1)
    assert doctored != PAGES[page]
    assert compare(page, doctored) == [f"docs/{page}:{line}, value {value_id}: expected {shown!r}, found '641 GiB'"]


def demo_gib() -> Value:
    """A value for the tests below (module level: value functions must be named)."""
    return quantity("demo-gib", 3 * 2**30, scale=2**30, digits=2, unit="GiB", description="d", kind="derived")


def test_regeneration_restores_an_edited_value() -> None:
    """The staleness check (gen_tables --check, the build hook) rewrites a doctored value back."""
    fresh = update_values("It needs <!-- value: demo-gib --><!-- /value -->.", {"demo-gib": demo_gib})
    assert re.search(r'title="demo-gib: derived by [\w.]*test_inline_values\.demo_gib">3\.00 GiB<', fresh), fresh
    edited = fresh.replace("3.00 GiB", "3.01 GiB")
    assert edited != fresh
    assert update_values(edited, {"demo-gib": demo_gib}) == fresh


def test_gen_tables_check_refuses_a_stale_value(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """``scripts/gen_tables.py --check`` passes the committed page and fails it with one value changed."""
    gen_tables = load_script("gen_tables")
    value_id = "system-example-host-ram"
    page = value_locations(PAGES)[value_id]
    shown = shown_values(PAGES[page])[value_id]
    stale = PAGES[page].replace(f">{shown}</span>", ">1 GiB</span>", 1)
    assert stale != PAGES[page]
    monkeypatch.setattr(gen_tables, "read_pages", lambda: {page: PAGES[page]})
    assert gen_tables.main(["--check"]) == 0
    monkeypatch.setattr(gen_tables, "read_pages", lambda: {page: stale})
    assert gen_tables.main(["--check"]) == 1
    assert f"value {value_id}: found '1 GiB', expected {shown!r}" in capsys.readouterr().out


def test_local_value_functions_are_refused() -> None:
    def local() -> Value:
        return demo_gib()

    with pytest.raises(ValueError, match="named module-level functions"):
        update_values("a <!-- value: demo-gib -->1<!-- /value -->", {"demo-gib": local}, version="0")


# --------------------------------------------------------------------------- ids and provenance
def test_value_ids_are_unique_and_not_table_ids() -> None:
    seen: dict[str, str] = {}
    for page, text in PAGES.items():
        for value_id, _shown, line in value_markers(text):
            assert value_id not in seen, f"value {value_id} is used in docs/{seen[value_id]} and docs/{page}:{line}"
            seen[value_id] = page
    assert seen == value_locations(PAGES)
    tables = set(all_tables()) | set(table_locations(PAGES))
    assert not seen.keys() & tables, f"ids used as table and value: {sorted(seen.keys() & tables)}"


def test_every_marker_is_registered_and_every_value_is_used() -> None:
    registered, used = set(all_values()), set(value_locations(PAGES))
    assert not used - registered, f"markers with no function: {sorted(used - registered)}"
    assert not registered - used, f"registered but on no page (remove or place them): {sorted(registered - used)}"


@pytest.mark.parametrize("value_id", sorted(all_values()))
def test_value_provenance(value_id: str) -> None:
    """Each value names a module function of calculators.doc_values, its kind, its own id and a description."""
    function = all_values()[value_id]
    name = function_name(function)
    assert name.startswith("calculators.doc_values."), name
    value = function()
    assert value.id == value_id
    assert value.description.endswith("."), f"{value_id}: describe the number in a sentence"
    rendered = render_value(value, function=name, version=__version__)
    assert f'id="{value_id}"' in rendered and name in html.unescape(rendered) and f"v{__version__}" in rendered
    assert rendered == render_value(function(), function=name, version=__version__), "not deterministic"


def test_anonymous_value_functions_are_refused() -> None:
    with pytest.raises(ValueError, match="named module-level functions"):
        function_name(lambda: None)


def test_marker_at_line_start_is_refused() -> None:
    with pytest.raises(ValueError, match="opens a line"):
        update_values("Text.\n\n<!-- value: demo-gib -->1<!-- /value --> cases.\n", {"demo-gib": demo_gib},
                      version="0")


def test_unknown_value_id_is_refused() -> None:
    with pytest.raises(UnknownNameError):
        update_values("a <!-- value: nobody -->1<!-- /value -->", {}, version="0")


def test_values_json_lists_every_value_with_provenance() -> None:
    data = json.loads(values_json(PAGES, site_url=SITE_URL, site_version="0.1.0"))
    locations = value_locations(PAGES)
    assert sorted(data["values"]) == sorted(locations)
    record = data["values"]["system-example-host-ram"]
    assert record["url"] == f"{SITE_URL}0.1.0/system/#system-example-host-ram"
    assert record["function"].startswith("calculators.doc_values.system.")
    assert record["version"] == __version__ and record["kind"] in ("derived", "measured", "assumed", "spec")
    assert record["text"] == _values()["system-example-host-ram"].text


@pytest.mark.skipif(not (ROOT / "site" / "values.json").exists(), reason="site/ not built (scripts/build)")
def test_built_site_publishes_values_json() -> None:
    # The build hook (scripts/mkdocs_hooks.py, on_files) writes values.json at the site root.
    built = json.loads((ROOT / "site" / "values.json").read_text(encoding="utf-8"))
    assert sorted(built["values"]) == sorted(value_locations(PAGES))
    for value_id, record in built["values"].items():
        assert record["text"] == _values()[value_id].text, f"site/values.json is stale for {value_id}: rebuild"


def test_values_index_lists_every_value() -> None:
    table = values_index(value_locations(PAGES), site_values(PAGES))
    assert table.id == VALUES_INDEX_ID
    assert [row[0].split("]")[0].lstrip("[") for row in table.rows] == sorted(value_locations(PAGES))


# --------------------------------------------------------------------------- diffs between versions
def _marker(value_id: str, text: str) -> str:
    return f'<!-- value: {value_id} --><span class="generated-value" id="{value_id}" title="t">{text}</span><!-- /value -->'


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_tables_lists_changed_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """scripts/diff_tables.py reports prose values: changed, added, removed (a throwaway repository)."""
    import diff_tables

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false",
                        *args], cwd=tmp_path, check=True, capture_output=True)

    page = tmp_path / "docs" / "a.md"
    page.parent.mkdir()
    git("init", "-q", "-b", "main")
    page.write_text(f"It needs {_marker('ram', '640 GiB')} and {_marker('gone', '3 %')}.\n", encoding="utf-8")
    git("add", "docs")
    git("commit", "-q", "-m", "v1")
    page.write_text(f"It needs {_marker('ram', '704 GiB')} and {_marker('new', '12 &amp; 13')}.\n", encoding="utf-8")
    git("commit", "-q", "-am", "v2")
    assert diff_tables.main(["HEAD~1", "HEAD", "--repo", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "gone | value removed (was 3 % on a.md)",
        "new | value added on a.md: 12 & 13",
        "ram | value: 640 GiB → 704 GiB",
    ]


# --------------------------------------------------------------------------- typed numbers in prose
def test_no_typed_results_in_prose() -> None:
    problems, matched, pending_clean = [], set(), []
    for page, text in sorted(PAGES.items()):
        hits = prose_numbers(text)
        if _pending(page):
            continue
        for line, number in hits:
            if (page, number) in PROSE_ALLOWED:
                matched.add((page, number))
            else:
                problems.append(f"docs/{page}:{line}: {number!r} typed in prose; generate it with a "
                                "<!-- value: ID --> marker or mark the paragraph <!-- quoted: SOURCE -->")
    for entry in PENDING_PAGES:
        pages = [p for p in PAGES if _pending(p) and (p == entry or p.startswith(entry))]
        if pages and not any(prose_numbers(PAGES[p]) for p in pages):
            pending_clean.append(entry)
    assert not problems, "\n".join(problems)
    assert not set(PROSE_ALLOWED) - matched, f"no longer needed, remove from PROSE_ALLOWED: {set(PROSE_ALLOWED) - matched}"
    if pending_clean:  # a warning, not a failure: those pages were still being written when this list was made
        warnings.warn(f"no typed numbers left, remove from PENDING_PAGES: {pending_clean}", stacklevel=1)


@pytest.mark.parametrize(
    ("markdown", "flagged"),
    [
        pytest.param("It needs 17.35 GiB on one card.\n", ["17.35 GiB"], id="gib"),
        pytest.param("Median error 0.4 % and 2% worst.\n", ["0.4 %", "2%"], id="percent"),
        pytest.param("It costs $2.50 an hour, 1,200 USD a month.\n", ["$2.50", "1,200 USD"], id="money"),
        pytest.param("It reads 3.35 TB/s and writes 40-60 tokens/s.\n", ["3.35 TB/s", "40-60 tokens/s"],
                     id="rates"),
        pytest.param("!!! warning \"Title\"\n    An H100 holds 80 GiB.\n", ["80 GiB"], id="in-admonition"),
        pytest.param("## Fits 24 GiB\n", ["24 GiB"], id="heading"),
        pytest.param("- a list item of 9 GB\n", ["9 GB"], id="list-item"),
        pytest.param("It needs <!-- value: x --><span>17.35 GiB</span><!-- /value --> here.\n", [], id="value"),
        pytest.param("The H100 SXM 80GB and `--mem 8 GiB` and [a page](b/9 GB.md).\n", [], id="names-code-links"),
        pytest.param("See [9 GB](a.md).\n", ["9 GB"], id="link-text"),
        pytest.param("```text\n80 GiB\n```\n\n    indented 9 GiB\n", [], id="code-blocks"),
        pytest.param("| GPU | GiB |\n|--|--|\n| H100 | 80 GiB |\n", [], id="table"),
        pytest.param("<!-- table: t -->\nSaid 80 GiB.\n<!-- /table -->\n", [], id="generated-block"),
        pytest.param("A guide says 60-80 GB. <!-- quoted: VRLA Tech guide -->\n", [], id="quoted"),
        pytest.param("A guide says 60-80 GB. <!-- quoted:  -->\n", ["60-80 GB"], id="quoted-no-source"),
        pytest.param("Llama 3 8B has 32 layers and 8 KV heads.\n", [], id="counts-without-units"),
        pytest.param("A step takes 24.5 ms, 3 µs of it latency; the run 2-3 days.\n", ["24.5 ms", "3 µs", "2-3 days"],
                     id="times"),
    ],
)
def test_prose_lint(markdown: str, flagged: list[str]) -> None:
    """The lint flags a number with a unit typed into prose, and only that."""
    assert [number for _line, number in prose_numbers(markdown)] == flagged


def test_no_value_id_is_written_again_as_a_partial_argument() -> None:
    # Issue 13: a value function serving several ids is registered with bound(function, ...), its id written once
    # (the VALUES key); declared_values builds the partial. A literal id repeated in functools.partial is refused.
    import re

    from support import ROOT

    repeated = re.compile(r'functools\.partial\(\s*[\w.]+,\s*"[a-z0-9-]+"')
    found = {path.name: repeated.findall(path.read_text(encoding="utf-8"))
             for path in (ROOT / "calculators" / "doc_values").glob("*.py") if path.name != "__init__.py"}
    assert not {name: hits for name, hits in found.items() if hits}


def test_each_value_id_is_written_once_in_its_module() -> None:
    # Issue 13: a value's id is written once, in @value("id") or as a VALUES key; the function receives it
    # (value_id) rather than typing it again. Any id string that occurs twice in a doc_values module fails.
    import re
    from collections import Counter

    from calculators.table_registry import all_values
    from support import ROOT

    ids = set(all_values())
    repeated = {}
    for path in (ROOT / "calculators" / "doc_values").glob("*.py"):
        counts = Counter(hit for hit in re.findall(r'"([a-z0-9-]+)"', path.read_text(encoding="utf-8")) if hit in ids)
        repeated.update({f"{path.name}: {value_id}": n for value_id, n in counts.items() if n > 1})
    assert not repeated
