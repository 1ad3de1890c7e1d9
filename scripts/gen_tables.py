#!/usr/bin/env python3
"""Regenerate every ``<!-- table: ID -->`` block under docs/ in place.

Usage: ``scripts/gen_tables.py`` to rewrite, ``scripts/gen_tables.py --check`` to print a
unified diff and exit 1 when any page is stale.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from calculators import __version__  # noqa: E402
from calculators.table_registry import all_tables  # noqa: E402
from calculators.tables import update_blocks  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="report stale pages, change nothing")
    args = parser.parse_args(argv)
    tables = all_tables()
    stale = 0
    for page in sorted((REPO / "docs").rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        new = update_blocks(text, tables, version=__version__)
        if new == text:
            continue
        stale += 1
        relative = page.relative_to(REPO)
        if args.check:
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                                       str(relative), f"{relative} (regenerated)"))
        else:
            page.write_text(new, encoding="utf-8")
            print(f"updated {relative}")
    if args.check and stale:
        print(f"\n{stale} page(s) out of date: run scripts/gen_tables.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
