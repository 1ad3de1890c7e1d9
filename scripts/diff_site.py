#!/usr/bin/env python3
"""List what differs between two built sites, file by file, and show the changed lines of each page.

Usage::

    scripts/build && cp -r site /tmp/site-after           # on one commit (and the same on another)
    scripts/diff_site.py /tmp/site-before /tmp/site-after  # what a change did to the published site
    scripts/diff_site.py A B --lines 0                     # the list of files only

Prints the files only in one site, then every file whose bytes differ: for a text file
(HTML, JSON, CSV, JS, XML) the lines that differ, as a unified diff cut to ``--lines`` lines a
file; for a binary file (the package wheel, the Pyodide memory snapshot, the gzipped sitemap)
its two sizes. A refactor that changes no answer shows only the wheel and the snapshot that
carry the code (and the sitemap's dates when the two commits' dates differ, see README: the
build stamps them with the last commit's time). Exit status 0, or 1 with ``--exit-code`` when
anything differs.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

#: Suffixes read as text; every other file is compared by its bytes only.
TEXT_SUFFIXES = frozenset({".html", ".json", ".csv", ".js", ".mjs", ".css", ".xml", ".txt", ".md", ".svg", ".py"})


def site_files(root: Path) -> dict[str, Path]:
    """Every file under ``root``, by its path relative to it (``/``-separated)."""
    return {path.relative_to(root).as_posix(): path for path in sorted(root.rglob("*")) if path.is_file()}


def changed_lines(before: Path, after: Path, *, name: str, limit: int) -> list[str]:
    """The unified diff of two text files, at most ``limit`` lines (the rest counted in a last line).

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "a").write_text("x\\ny\\n"); _ = (folder / "b").write_text("x\\nz\\n")
    >>> changed_lines(folder / "a", folder / "b", name="page.html", limit=10)[2:]
    ['@@ -1,2 +1,2 @@', ' x', '-y', '+z']
    """
    diff = list(difflib.unified_diff(before.read_text(encoding="utf-8", errors="replace").splitlines(),
                                     after.read_text(encoding="utf-8", errors="replace").splitlines(),
                                     f"a/{name}", f"b/{name}", n=1, lineterm=""))
    if len(diff) <= limit:
        return diff
    return diff[:limit] + [f"... {len(diff) - limit} more diff lines"]


def compare(before: Path, after: Path, *, lines: int) -> list[str]:
    """The report on two sites: files only in one, then each differing file with its changes."""
    old, new = site_files(before), site_files(after)
    report = [f"only in {before}: {name}" for name in sorted(old.keys() - new.keys())]
    report += [f"only in {after}: {name}" for name in sorted(new.keys() - old.keys())]
    for name in sorted(old.keys() & new.keys()):
        if old[name].read_bytes() == new[name].read_bytes():
            continue
        if Path(name).suffix not in TEXT_SUFFIXES:
            report.append(f"differs: {name} ({old[name].stat().st_size:,} -> {new[name].stat().st_size:,} bytes)")
            continue
        report.append(f"differs: {name}")
        if lines:
            report += ["    " + line for line in changed_lines(old[name], new[name], name=name, limit=lines)]
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="a built site (scripts/build writes site/)")
    parser.add_argument("after", type=Path, help="another built site")
    parser.add_argument("--lines", type=int, default=40, help="diff lines shown per text file (0: names only)")
    parser.add_argument("--exit-code", action="store_true", help="exit with status 1 when anything differs")
    args = parser.parse_args(argv)
    for site in (args.before, args.after):
        if not (site / "index.html").is_file():
            parser.error(f"{site}: not a built site (no index.html); run scripts/build")
    report = compare(args.before, args.after, lines=max(args.lines, 0))
    print("\n".join(report) if report else "the two sites are byte-identical")
    differing = sum(line.startswith(("only in", "differs:")) for line in report)
    print(f"{differing} file(s) differ", file=sys.stderr)
    return 1 if (args.exit_code and report) else 0


if __name__ == "__main__":
    sys.exit(main())
