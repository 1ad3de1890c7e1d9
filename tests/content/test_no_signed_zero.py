"""No published number prints as a signed zero (issue #27 item 6): ``-0.00%``, ``+0%``, ``-0.0`` mean nothing.

The pages are checked against the code by ``test_generated_tables``; here their text is searched for a
signed zero in a table cell or a generated value, the way an error rounded to zero used to print
(``{:+.2%}`` of -0.00001 is ``-0.00%``; :func:`calculators.units.signed_error` prints ``0.00%``).
"""

from __future__ import annotations

import re
from pathlib import Path

from calculators.units import signed_error

DOCS = Path(__file__).resolve().parents[2] / "docs"
#: A sign, zero, optional zero decimals, then a percent sign, a space or the end of a cell or value.
SIGNED_ZERO = re.compile(r"(?<![\w.])[-+\u2212]0(?:\.0+)?(?:\s?%|(?=\s*[|<]))")


def test_the_pattern_finds_a_signed_zero() -> None:
    assert SIGNED_ZERO.search("| bge-m3 | -0.00% |") and SIGNED_ZERO.search("| +0% |")
    assert SIGNED_ZERO.search("| \u22120.0 |")
    assert not SIGNED_ZERO.search("| 0.00% | +0.01% | -17% | 2026-01-02 | x-0.0 |")
    assert not SIGNED_ZERO.search(signed_error(-0.00001))


def test_no_page_shows_a_signed_zero() -> None:
    found = [f"{path.relative_to(DOCS)}: {match.group(0)!r} in {line.strip()[:120]!r}"
             for path in sorted(DOCS.rglob("*.md")) for line in path.read_text(encoding="utf-8").splitlines()
             for match in SIGNED_ZERO.finditer(line)]
    assert found == []
