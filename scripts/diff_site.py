#!/usr/bin/env python3
"""List what differs between two built sites, file by file, and show the changed lines of each page.

Usage::

    scripts/build && cp -r site /tmp/site-after           # on one commit (and the same on another)
    scripts/diff_site.py /tmp/site-before /tmp/site-after  # what a change did to the published site
    scripts/diff_site.py A B --lines 0                     # the list of files only
    scripts/diff_site.py A B --same-runtime --no-forms     # what readers see, code and forms aside

Prints the files only in one site, then every file whose bytes differ: for a text file
(HTML, JSON, CSV, JS, XML) the lines that differ, as a unified diff cut to ``--lines`` lines a
file; for a binary file (the package wheel, the Pyodide memory snapshot, the gzipped sitemap)
its two sizes. A refactor that changes no answer shows only the wheel and the snapshot that
carry the code (and the sitemap's dates when the two commits' dates differ, see README: the
build stamps them with the last commit's time; build both with one ``SOURCE_DATE_EPOCH``).

Two masks separate what a reader sees from what carries the code. ``--same-runtime`` reads the
runtime's content hash (the ``?v=`` of the widget assets and the memory snapshot's name, which
change with any change to the package) as one value. ``--no-forms`` drops each calculator's
form (its inputs) from the pages, so that what is left of a widget is its computed answer: a
change that adds an input to a form but changes no answer then shows no page at all. Exit
status 0, or 1 with ``--exit-code`` when anything differs.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path

#: Suffixes read as text; every other file is compared by its bytes only.
TEXT_SUFFIXES = frozenset({".html", ".json", ".csv", ".js", ".mjs", ".css", ".xml", ".txt", ".md", ".svg", ".py"})


#: The runtime's content hash where pages name it: widget assets (``?v=HASH``) and the memory snapshot,
#: and the build's id (every page's ``<meta name="mlhw-build">``, which changes with any page).
_RUNTIME_HASH = re.compile(r"(?<=\?v=)[0-9a-f]{16}\b|(?<=snapshot-)[0-9a-f]{16}\b|(?<=mlhw-build\" content=\")[0-9a-f]{16}\b")
#: A calculator's form in a built page (its inputs), up to its end tag.
_FORM = re.compile(r'<form class="mlhw-form".*?</form>', re.DOTALL)


def masked(text: str, *, same_runtime: bool, no_forms: bool) -> str:
    """``text`` with the runtime's hash read as one value and the calculators' forms dropped, as asked.

    >>> masked('<a href="w.js?v=0123456789abcdef">', same_runtime=True, no_forms=False)
    '<a href="w.js?v=RUNTIME">'
    >>> masked('<form class="mlhw-form" x>inputs</form><p>answer</p>', same_runtime=False, no_forms=True)
    '<form/><p>answer</p>'
    """
    if same_runtime:
        text = _RUNTIME_HASH.sub("RUNTIME", text)
    if no_forms:
        text = _FORM.sub("<form/>", text)
    return text


def site_files(root: Path) -> dict[str, Path]:
    """Every file under ``root``, by its path relative to it (``/``-separated)."""
    return {path.relative_to(root).as_posix(): path for path in sorted(root.rglob("*")) if path.is_file()}


def changed_lines(before: str, after: str, *, name: str, limit: int) -> list[str]:
    """The unified diff of two texts, at most ``limit`` lines (the rest counted in a last line).

    >>> changed_lines("x\\ny\\n", "x\\nz\\n", name="page.html", limit=10)[2:]
    ['@@ -1,2 +1,2 @@', ' x', '-y', '+z']
    """
    diff = list(difflib.unified_diff(before.splitlines(), after.splitlines(), f"a/{name}", f"b/{name}", n=1,
                                     lineterm=""))
    if len(diff) <= limit:
        return diff
    return diff[:limit] + [f"... {len(diff) - limit} more diff lines"]


def compare(before: Path, after: Path, *, lines: int, same_runtime: bool = False,
            no_forms: bool = False) -> list[str]:
    """The report on two sites: files only in one, then each differing file with its changes."""
    def name_of(path: str) -> str:
        return masked(path, same_runtime=same_runtime, no_forms=False)

    old = {name_of(name): path for name, path in site_files(before).items()}
    new = {name_of(name): path for name, path in site_files(after).items()}
    report = [f"only in {before}: {name}" for name in sorted(old.keys() - new.keys())]
    report += [f"only in {after}: {name}" for name in sorted(new.keys() - old.keys())]
    for name in sorted(old.keys() & new.keys()):
        if old[name].read_bytes() == new[name].read_bytes():
            continue
        if Path(name).suffix not in TEXT_SUFFIXES:
            report.append(f"differs: {name} ({old[name].stat().st_size:,} -> {new[name].stat().st_size:,} bytes)")
            continue
        texts = [masked(path.read_text(encoding="utf-8", errors="replace"), same_runtime=same_runtime,
                        no_forms=no_forms) for path in (old[name], new[name])]
        if texts[0] == texts[1]:
            continue
        report.append(f"differs: {name}")
        if lines:
            report += ["    " + line for line in changed_lines(*texts, name=name, limit=lines)]
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="a built site (scripts/build writes site/)")
    parser.add_argument("after", type=Path, help="another built site")
    parser.add_argument("--lines", type=int, default=40, help="diff lines shown per text file (0: names only)")
    parser.add_argument("--same-runtime", action="store_true",
                        help="read the runtime's content hash (asset ?v=, snapshot name) as one value")
    parser.add_argument("--no-forms", action="store_true", help="leave the calculators' forms (their inputs) out")
    parser.add_argument("--exit-code", action="store_true", help="exit with status 1 when anything differs")
    args = parser.parse_args(argv)
    for site in (args.before, args.after):
        if not (site / "index.html").is_file():
            parser.error(f"{site}: not a built site (no index.html); run scripts/build")
    report = compare(args.before, args.after, lines=max(args.lines, 0), same_runtime=args.same_runtime,
                     no_forms=args.no_forms)
    print("\n".join(report) if report else "the two sites are byte-identical")
    differing = sum(line.startswith(("only in", "differs:")) for line in report)
    print(f"{differing} file(s) differ", file=sys.stderr)
    return 1 if (args.exit_code and report) else 0


if __name__ == "__main__":
    sys.exit(main())
