#!/usr/bin/env python3
"""Regenerate every ``<!-- table: ID -->`` block and ``<!-- value: ID -->`` marker under docs/ in place.

Usage: ``scripts/gen_tables.py`` to rewrite, ``scripts/gen_tables.py --check`` to print a
unified diff (and each stale value: id, found, expected) and exit 1 when any page is stale;
``--only docs/a.md docs/b.md`` limits the rewrite (or check) to those pages. Values are the
numbers in the prose, computed by the functions of ``calculators/doc_values/``. Cite URLs are
written under ``calculators.tables.DOCS_SITE_URL`` and no edition (package version, catalog
date) is written: the site build adds both (``scripts/mkdocs_hooks.py``), so a release changes
no page. The index of tables (docs/tables/index.md) is rebuilt from the blocks of every page.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from calculators.inline_values import value_markers  # noqa: E402
from calculators.table_registry import regenerate_pages  # noqa: E402
from calculators.tables import DOCS_SITE_URL  # noqa: E402

DOCS = REPO / "docs"


def read_pages(docs: Path = DOCS) -> dict[str, str]:
    """Page path under docs/ (POSIX) -> Markdown, for every page."""
    return {page.relative_to(docs).as_posix(): page.read_text(encoding="utf-8") for page in sorted(docs.rglob("*.md"))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="report stale pages, change nothing")
    parser.add_argument("--only", nargs="+", metavar="PAGE", help="only these pages (docs/... paths)")
    args = parser.parse_args(argv)
    only = {Path(page).as_posix().removeprefix("docs/") for page in args.only or ()}
    pages = read_pages()
    regenerated = regenerate_pages(pages, site_url=DOCS_SITE_URL)
    stale = 0
    for path, text in pages.items():
        new = regenerated[path]
        if new == text or (only and path not in only):
            continue
        stale += 1
        relative = f"docs/{path}"
        if args.check:
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                                       relative, f"{relative} (regenerated)"))
            expected = {value_id: shown for value_id, shown, _line in value_markers(new)}
            for value_id, shown, line in value_markers(text):
                if expected.get(value_id, shown) != shown:
                    print(f"{relative}:{line}: value {value_id}: found {shown!r}, expected {expected[value_id]!r}")
        else:
            (DOCS / path).write_text(new, encoding="utf-8")
            print(f"updated {relative}")
    if args.check and stale:
        print(f"\n{stale} page(s) out of date: run scripts/gen_tables.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
