"""Every guide page carries a calculator widget (issue #4: "Every guide page carries at
least one calculator widget relevant to it")."""

from __future__ import annotations

from pathlib import Path

import pytest

from calculators.widgets.markdown import MARKER, parse_marker
from calculators.jobs.registry import calculator_names

DOCS = Path(__file__).resolve().parents[2] / "docs"

#: Pages that are not guide pages, with the reason.
NO_WIDGET = {
    "tables/index.md": "an index of every generated table and value; the tables' own pages carry the widgets",
    "reference/glossary.md": "definitions of the words results use; each links to the page whose calculator computes it",
}

PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))


@pytest.mark.parametrize("page", PAGES)
def test_guide_page_has_a_known_widget(page: str) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    names = [parse_marker(match.group("body"))[0] for line in text.splitlines() if (match := MARKER.match(line))]
    if page in NO_WIDGET:
        assert not names, f"{page} now has a widget: drop it from NO_WIDGET"
        return
    assert names, f"docs/{page} has no <!-- widget: NAME --> marker"
    unknown = sorted(set(names) - set(calculator_names()))
    assert not unknown, f"docs/{page}: unknown widget(s) {unknown}"


def test_no_widget_list_names_existing_pages() -> None:
    assert set(NO_WIDGET) <= set(PAGES)
