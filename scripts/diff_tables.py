#!/usr/bin/env python3
"""List every generated-table cell and prose value that changed between two versions of the docs.

Usage::

    scripts/diff_tables.py REV_A REV_B            # git revisions: v0.1.0, main, HEAD~3, a hash
    scripts/diff_tables.py 0.1.0 0.2.0            # a released version: tried as given, then as tag v0.1.0
    scripts/diff_tables.py v0.1.0 WORKTREE        # WORKTREE: the docs/ files on disk now

Reads each revision's ``docs/**/*.md`` with ``git show REV:path`` (no checkout), parses the
``<!-- table: ID -->`` blocks with markdown-it-py and prints one line per difference::

    hardware-catalog | H100 SXM 80GB | memory GiB: 80 → 94

Rows are matched by their key (the first column, or as many leading columns as make the
keys unique), columns by name. Added and removed tables, rows and columns are listed
too. Numbers in the prose (``<!-- value: ID -->`` markers, :mod:`calculators.inline_values`)
follow the tables, one line per changed, added or removed value::

    system-example-host-ram | value: 640 GiB → 704 GiB

Exit status 0, or 1 with ``--exit-code`` when anything changed.

The parser here (:func:`parse_tables`, :func:`generated_tables`) is also what the tests use
to read tables out of the pages.
"""

from __future__ import annotations

import argparse
import html
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

REPO = Path(__file__).resolve().parents[1]
WORKTREE = "WORKTREE"

_VALUE = re.compile(r"<!-- value: (?P<id>[a-z0-9-]+) -->(?P<body>[^\n]*?)<!-- /value -->")
_TAG = re.compile(r"<[^>]*>")
_OPEN = re.compile(r"^\s*<!-- table: (?P<id>[a-z0-9-]+)(?: [a-z]+)* -->")
_CLOSE = re.compile(r"^\s*<!-- /table -->")
_QUOTED = re.compile(r"^\s*<!-- quoted: (?P<source>.*?) -->\s*$")
_CONTAINER = re.compile(r"^(?P<indent> *)(?:!!!|\?\?\?\+?|===)\s")


@dataclass(frozen=True)
class ParsedTable:
    """A table read from a page: its cells as Markdown source text, and where it stands.

    Attributes:
        block: Id of the ``<!-- table: ID -->`` block holding it, ``None`` outside any block.
        columns: Header cells.
        rows: Body cells, row by row.
        line: 1-based line of the header row in the page.
        quoted: For a table outside a block, the SOURCE of a ``<!-- quoted: SOURCE -->``
            line right before it, else ``None``.
    """

    block: str | None
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    line: int
    quoted: str | None = None


def _flatten_containers(text: str) -> str:
    """Dedent admonition and tab bodies (``!!!``, ``???``, ``===``) so their tables parse as tables.

    Python-Markdown reads a 4-space-indented body as the container's content; CommonMark
    would read it as a code block. Line numbers are kept.
    """
    lines = text.split("\n")
    changed = True
    while changed:
        changed = False
        for start, line in enumerate(lines):
            match = _CONTAINER.match(line)
            if not match:
                continue
            indent = len(match.group("indent"))
            lines[start] = " " * indent + "<!-- container -->"
            changed = True
            for number in range(start + 1, len(lines)):
                body = lines[number]
                if body.strip() and len(body) - len(body.lstrip(" ")) < indent + 4:
                    break
                lines[number] = body[4:] if body.startswith(" " * (indent + 4)) else body.strip()
    return "\n".join(lines)


def parse_tables(text: str) -> list[ParsedTable]:
    """Every table of a page (GFM pipe tables, inside containers too), in page order."""
    tokens = MarkdownIt("commonmark").enable("table").parse(_flatten_containers(text))
    found: list[ParsedTable] = []
    block: str | None = None
    for index, token in enumerate(tokens):
        if token.type == "html_block":
            if match := _OPEN.match(token.content):
                block = match.group("id")
            elif _CLOSE.match(token.content):
                block = None
        if token.type != "table_open":
            continue
        header: list[str] = []
        rows: list[list[str]] = []
        for inner in tokens[index + 1:]:
            if inner.type == "table_close":
                break
            if inner.type == "tr_open":
                rows.append([])
            elif inner.type == "inline":
                rows[-1].append(inner.content)
            elif inner.type == "thead_close":
                header = rows.pop()
        previous = tokens[index - 1] if index else None
        quoted = None
        if block is None and previous is not None and previous.type == "html_block":
            if match := _QUOTED.match(previous.content):
                quoted = match.group("source").strip()
        line = (token.map[0] + 1) if token.map else 0
        found.append(ParsedTable(block, tuple(header), tuple(map(tuple, rows)), line, quoted))
    return found


def generated_tables(text: str) -> dict[str, ParsedTable]:
    """Block id -> the first table inside that ``<!-- table: ID -->`` block."""
    tables: dict[str, ParsedTable] = {}
    for table in parse_tables(text):
        if table.block is not None and table.block not in tables:
            tables[table.block] = table
    return tables


# --------------------------------------------------------------------------- reading revisions
def _git(*args: str, repo: Path) -> str:
    result = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, encoding="utf-8")
    if result.returncode != 0:
        raise LookupError(result.stderr.strip() or f"git {' '.join(args)} failed")
    return result.stdout


def resolve(rev: str, *, repo: Path = REPO) -> str:
    """A revision git knows: ``rev`` itself, else the release tag ``v<rev>``."""
    if rev == WORKTREE:
        return rev
    for candidate in (rev, f"v{rev}"):
        try:
            return _git("rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}", repo=repo).strip()
        except LookupError:
            continue
    raise LookupError(f"{rev!r} is neither a git revision nor a release tag v{rev} in {repo}")


def docs_at(rev: str, *, repo: Path = REPO, docs: str = "docs") -> dict[str, str]:
    """Page path under docs/ -> Markdown, as committed at ``rev`` (or on disk for ``WORKTREE``)."""
    if rev == WORKTREE:
        root = repo / docs
        return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.md"))}
    names = _git("ls-tree", "-r", "--name-only", rev, "--", f"{docs}/", repo=repo).splitlines()
    return {name.removeprefix(f"{docs}/"): _git("show", f"{rev}:{name}", repo=repo)
            for name in sorted(names) if name.endswith(".md")}


def tables_at(rev: str, *, repo: Path = REPO, docs: str = "docs") -> dict[str, tuple[str, ParsedTable]]:
    """Table id -> (page, table) for every generated table at ``rev``."""
    found: dict[str, tuple[str, ParsedTable]] = {}
    for page, text in docs_at(rev, repo=repo, docs=docs).items():
        for table_id, table in generated_tables(text).items():
            found.setdefault(table_id, (page, table))
    return found


def values_at(rev: str, *, repo: Path = REPO, docs: str = "docs") -> dict[str, tuple[str, str]]:
    """Value id -> (page, the text the page shows) for every prose value at ``rev``."""
    found: dict[str, tuple[str, str]] = {}
    for page, text in docs_at(rev, repo=repo, docs=docs).items():
        for match in _VALUE.finditer(text):
            found.setdefault(match.group("id"), (page, html.unescape(_TAG.sub("", match.group("body")))))
    return found


def diff_values(old: dict[str, tuple[str, str]], new: dict[str, tuple[str, str]]) -> list[str]:
    """One line per changed, added, removed or moved prose value, in id order."""
    lines: list[str] = []
    for value_id in sorted(old.keys() | new.keys()):
        if value_id not in new:
            lines.append(f"{value_id} | value removed (was {old[value_id][1]} on {old[value_id][0]})")
        elif value_id not in old:
            lines.append(f"{value_id} | value added on {new[value_id][0]}: {new[value_id][1]}")
        else:
            if old[value_id][0] != new[value_id][0]:
                lines.append(f"{value_id} | moved: {old[value_id][0]} → {new[value_id][0]}")
            if old[value_id][1] != new[value_id][1]:
                lines.append(f"{value_id} | value: {old[value_id][1]} → {new[value_id][1]}")
    return lines


# --------------------------------------------------------------------------- comparing
def _keys(rows: tuple[tuple[str, ...], ...], width: int) -> list[str]:
    keys = [" / ".join(row[:width]) for row in rows]
    seen: dict[str, int] = {}
    out = []
    for key in keys:
        seen[key] = seen.get(key, 0) + 1
        out.append(key if seen[key] == 1 else f"{key} #{seen[key]}")
    return out


def _key_width(old: ParsedTable, new: ParsedTable) -> int:
    """The fewest leading columns whose values tell every row apart, in both versions."""
    shared = 0
    for a, b in zip(old.columns, new.columns):
        if a != b:
            break
        shared += 1
    for width in range(1, max(shared, 1) + 1):
        if all(len({row[:width] for row in t.rows}) == len(t.rows) for t in (old, new)):
            return width
    return 1


def diff_table(table_id: str, old: ParsedTable, new: ParsedTable) -> list[str]:
    """One line per changed cell, added/removed row or column of one table."""
    lines: list[str] = []
    for column in old.columns:
        if column not in new.columns:
            lines.append(f"{table_id} | column removed: {column}")
    for column in new.columns:
        if column not in old.columns:
            lines.append(f"{table_id} | column added: {column}")
    width = _key_width(old, new)
    old_rows = dict(zip(_keys(old.rows, width), old.rows))
    new_rows = dict(zip(_keys(new.rows, width), new.rows))
    shared = [c for c in old.columns if c in new.columns]
    for key, row in old_rows.items():
        if key not in new_rows:
            lines.append(f"{table_id} | {key} | row removed: " + " | ".join(row))
            continue
        other = new_rows[key]
        for column in shared:
            i, j = old.columns.index(column), new.columns.index(column)
            before = row[i] if i < len(row) else ""
            after = other[j] if j < len(other) else ""
            if before != after:
                lines.append(f"{table_id} | {key} | {column}: {before} → {after}")
    for key, row in new_rows.items():
        if key not in old_rows:
            lines.append(f"{table_id} | {key} | row added: " + " | ".join(row))
    return lines


def diff_revisions(rev_a: str, rev_b: str, *, repo: Path = REPO, docs: str = "docs") -> list[str]:
    """Every difference between the generated tables of two revisions (tables in id order), then their prose values."""
    rev_a, rev_b = resolve(rev_a, repo=repo), resolve(rev_b, repo=repo)
    old = tables_at(rev_a, repo=repo, docs=docs)
    new = tables_at(rev_b, repo=repo, docs=docs)
    lines: list[str] = []
    for table_id in sorted(old.keys() | new.keys()):
        if table_id not in new:
            lines.append(f"{table_id} | table removed (was on {old[table_id][0]})")
        elif table_id not in old:
            lines.append(f"{table_id} | table added on {new[table_id][0]}")
        else:
            if old[table_id][0] != new[table_id][0]:
                lines.append(f"{table_id} | moved: {old[table_id][0]} → {new[table_id][0]}")
            lines += diff_table(table_id, old[table_id][1], new[table_id][1])
    return lines + diff_values(values_at(rev_a, repo=repo, docs=docs), values_at(rev_b, repo=repo, docs=docs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rev_a", help="old revision or released version")
    parser.add_argument("rev_b", help=f"new revision or released version ({WORKTREE} for the files on disk)")
    parser.add_argument("--repo", type=Path, default=REPO, help="git repository (default: this one)")
    parser.add_argument("--docs", default="docs", help="docs folder inside the repository")
    parser.add_argument("--exit-code", action="store_true", help="exit 1 when any cell changed")
    args = parser.parse_args(argv)
    try:
        lines = diff_revisions(args.rev_a, args.rev_b, repo=args.repo, docs=args.docs)
    except LookupError as error:
        print(f"diff_tables: {error}", file=sys.stderr)
        return 2
    for line in lines:
        print(line)
    if not lines:
        print(f"no table changed between {args.rev_a} and {args.rev_b}, and no value", file=sys.stderr)
    return 1 if args.exit_code and lines else 0


if __name__ == "__main__":
    sys.exit(main())
