"""Defaults that run (issue #27 item 6): every widget of the guide opens on a job that fits its GPU, and no
number it shows reads as a negative zero ("-0.0", "−0.0 GiB", "-0.00 %").

Each widget is the calculator a page's ``<!-- widget: NAME key=value -->`` marker names, with the marker's
inputs (what the reader sees first), plus each calculator with its own defaults (the command line's).
A memory verdict comes from :mod:`calculators.fit`; the KV-cache calculator has none and is held to its
cache plus weights fitting the usable memory it reports.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from calculators.fit import FITS
from calculators.jobs.registry import calculator_names, get_calculator
from calculators.widgets.markdown import MARKER, parse_marker

DOCS = Path(__file__).resolve().parents[2] / "docs"

#: A negative zero as text: a minus sign (ASCII or U+2212) before a zero with only zeros after it.
NEGATIVE_ZERO = re.compile(r"(?<![\w.])[-\u2212]0(?:\.0+)?(?![\d.])")


def _markers() -> list[tuple[str, str, dict[str, str]]]:
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if match := MARKER.match(line):
                name, inputs = parse_marker(match.group("body"))
                found.append((f"{page.relative_to(DOCS).as_posix()}:{number}", name, inputs))
    return found


JOBS = _markers() + [(f"defaults of {name}", name, {}) for name in calculator_names()]


def test_negative_zero_pattern() -> None:
    hits = [text for text in ("-0.0", "−0.0 GiB", "-0.00 %", "(-0)", "-0.03", "-0.5", "10-0.0", "+0.0", "0.0", "-0.001")
            if NEGATIVE_ZERO.search(text)]
    assert hits == ["-0.0", "−0.0 GiB", "-0.00 %", "(-0)"]


@pytest.mark.parametrize(("where", "name", "inputs"), JOBS, ids=[job[0] for job in JOBS])
def test_every_widget_opens_on_a_job_that_fits(where: str, name: str, inputs: dict[str, str]) -> None:
    answer = get_calculator(name).answer(inputs)
    data: dict[str, Any] = answer.data
    if "answer" in data:  # the reader's GPUs and count (calculators.jobs.answer)
        assert data["answer"]["verdict"] == FITS, f"{where}: {answer.report.headline}"
    elif "total_bytes" in data and "usable_bytes" in data:  # kv-cache: cache plus weights on the GPU it names
        assert data["total_bytes"] + data["weight_bytes"] <= data["usable_bytes"], where
    for face, text in (("text", answer.text), ("html", answer.html)):
        shown = re.sub(r"<[^>]+>", " ", text) if face == "html" else text
        zeros = [shown[max(0, m.start() - 40):m.end() + 10] for m in NEGATIVE_ZERO.finditer(shown)]
        assert zeros == [], f"{where} ({face}): {zeros}"


def test_the_fit_tables_unusual_columns_are_explained_in_their_headers() -> None:
    # The example: "0 (0)" under "Max batch (tight)" was never explained where it stood.
    html = get_calculator("fit").answer({}).html
    header = re.compile(r'<th scope="col"(?: class="num")? title="([^"]+)">([^<]+)</th>')
    titles = {name: title for title, name in header.findall(html)}
    assert {"Margin (GiB)", "Max batch", "Max context (tokens)"} <= set(titles), titles
    assert "in brackets the largest that is at most tight" in titles["Max batch"]
    assert "negative when it does not fit" in titles["Margin (GiB)"]
