"""Every generated table in docs/ matches what the code produces now.

A page holds ``<!-- table: ID -->`` ... ``<!-- /table -->`` blocks written by
``scripts/gen_tables.py``; if the code or the measurements change, the committed page is
stale and this test fails with the diff (run ``scripts/gen_tables.py`` to refresh).
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from calculators import __version__
from calculators.table_registry import all_tables
from calculators.tables import Table, block_ids, update_blocks

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(DOCS.rglob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_generated_tables_are_current(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    regenerated = update_blocks(text, all_tables(), version=__version__)
    diff = "".join(difflib.unified_diff(text.splitlines(True), regenerated.splitlines(True), "committed",
                                        "regenerated", n=1))
    assert regenerated == text, f"{page.relative_to(DOCS)} is stale; run scripts/gen_tables.py:\n{diff[:4000]}"


def test_table_ids_are_unique_across_the_site() -> None:
    seen: dict[str, str] = {}
    for page in PAGES:
        for table_id in block_ids(page.read_text(encoding="utf-8")):
            assert table_id not in seen, f"table {table_id} appears in {seen.get(table_id)} and {page}"
            seen[table_id] = str(page)
    assert "accuracy-summary" in seen


def test_staleness_check_catches_an_edited_cell(tmp_path: Path) -> None:
    """Prove the check can fail: change one number in a copy of a generated block."""
    def table() -> Table:
        return Table(id="demo", caption="Demo.", columns=("a", "GiB"), rows=(("x", "1.00"),), align=("l", "r"))

    fresh = update_blocks("<!-- table: demo -->\n<!-- /table -->\n", {"demo": table}, version="0")
    edited = fresh.replace("| x | 1.00 |", "| x | 1.01 |")
    assert edited != fresh
    assert update_blocks(edited, {"demo": table}, version="0") == fresh
