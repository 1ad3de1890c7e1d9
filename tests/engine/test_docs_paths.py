"""Docs pages named in the package's docstrings and comments exist, and say where the generated text sits.

When long pages were split (#27: ``hardware/index.md`` into ``compute.md``, ``catalog.md`` and ``apple.md``,
``performance/accuracy.md`` into four pages...), the docstrings of the modules that generate their tables kept
naming the old page. Two checks guard that: every ``docs/*.md`` path a docstring or comment of ``calculators/``
names is a file under ``docs/``; and a :mod:`calculators.doc_tables` or :mod:`calculators.doc_values` module
whose docstring names its pages names every page its tables or values are placed on.

A path counts as a docs path when it starts with ``docs/`` or with a folder of ``docs/`` (``memory/index.md``,
as the doctests of the page helpers write it); a bare file name (``a.md``) or another project's path
(``llama.cpp tools/quantize/README.md``, a URL) is not one. String literals that are data (a record's
``Source``) are not read: only docstrings and ``#`` comments.
"""

from __future__ import annotations

import ast
import importlib
import io
import pkgutil
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import calculators.doc_tables
import calculators.doc_values
from calculators.inline_values import value_ids
from calculators.tables import block_ids

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PACKAGE = ROOT / "calculators"
SECTIONS = frozenset(path.name for path in DOCS.iterdir() if path.is_dir())
#: A ``.md`` path not inside another path or a URL (nothing of a path or a scheme just before it).
MD_PATH = re.compile(r"(?<![\w/.:-])(?:\.\./)*((?:[\w-]+/)*[\w.-]+\.md)\b")


def docs_paths(text: str) -> Iterator[str]:
    """The docs page paths ``text`` names, relative to ``docs/`` (``docs/`` dropped).

    >>> list(docs_paths("see docs/hardware/compute.md, memory/index.md#x, a.md and https://x.org/docs/a.md"))
    ['hardware/compute.md', 'memory/index.md']
    """
    for match in MD_PATH.finditer(text):
        path = match.group(1)
        if path.startswith("docs/"):
            yield path.removeprefix("docs/")
        elif "/" in path and path.split("/", 1)[0] in SECTIONS:
            yield path


def prose(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every docstring and ``#`` comment of a module's source."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                yield body[0].lineno, body[0].value.value
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string


def missing_pages(source: str) -> list[tuple[int, str]]:
    """(line, path) of each docs path named in ``source``'s docstrings and comments that is not a file."""
    return [(line, path) for line, text in prose(source) for path in docs_paths(text)
            if not (DOCS / path).is_file()]


def test_the_check_finds_a_page_that_does_not_exist() -> None:
    source = '"""Tables of docs/hardware/no-such-page.md."""\n# and of docs/memory/index.md\nX = "docs/gone.md"\n'
    assert missing_pages(source) == [(1, "hardware/no-such-page.md")]  # a string that is data is not read
    assert missing_pages("# the split page: hardware/nope.md\n") == [(1, "hardware/nope.md")]


def test_every_docs_page_named_in_the_package_prose_exists() -> None:
    named, missing = 0, []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if ".md" not in source:  # nothing to find: spare tokenizing it
            continue
        named += sum(1 for _line, text in prose(source) for _path in docs_paths(text))
        missing += [f"{path.relative_to(ROOT)}:{line}: {page}" for line, page in missing_pages(source)]
    assert named > 50  # the scan reads the package's docstrings (about 100 page paths named today)
    assert missing == []


def _placed(kind: str) -> dict[str, str]:
    """Table or value id -> the docs page (under docs/) it is placed on."""
    ids = block_ids if kind == "TABLES" else value_ids
    return {item: path.relative_to(DOCS).as_posix() for path in sorted(DOCS.rglob("*.md"))
            for item in ids(path.read_text(encoding="utf-8"))}


def test_each_generating_module_names_every_page_it_fills() -> None:
    # A module that names its pages (docs/<page>.md or docs/<section>/*) names each page holding one of its tables
    # or values; one that describes its pages by subject ("every section") names none and is not held to it.
    unnamed = []
    for package, kind in ((calculators.doc_tables, "TABLES"), (calculators.doc_values, "VALUES")):
        placed = _placed(kind)
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            doc = module.__doc__ or ""
            named = set(docs_paths(doc))
            sections = set(re.findall(r"docs/([\w-]+)/\*", doc))
            if not named and not sections:
                continue
            pages = {placed[item] for item in getattr(module, kind) if item in placed}
            unnamed += [f"{module.__name__}: {page}" for page in sorted(pages)
                        if page not in named and page.split("/")[0] not in sections]
    assert unnamed == []
