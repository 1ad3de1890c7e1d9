"""What several test layers share: the repository's paths, the docs pages (read once), the pages'
tables and values (computed once) and the scripts of ``scripts/`` loaded as modules (``scripts/``
is not a package).

``tests/conftest.py`` puts this folder on ``sys.path``, so any layer imports it as ``support``.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
DATA = ROOT / "tests" / "data"
SCRIPTS = ROOT / "scripts"


@functools.cache
def _pages() -> tuple[tuple[str, str], ...]:
    return tuple((p.relative_to(DOCS).as_posix(), p.read_text(encoding="utf-8")) for p in sorted(DOCS.rglob("*.md")))


def docs_pages() -> dict[str, str]:
    """Every Markdown page under ``docs/`` by its path there (``memory/index.md``), read once per session.

    Returns a new dict each call, so a test that edits its copy cannot change another's.
    """
    return dict(_pages())


def command_options(parser: argparse.ArgumentParser, words: tuple[str, ...] = (),
                    inherited: tuple[argparse.Action, ...] = ()) -> Iterator[tuple[str, list[argparse.Action]]]:
    """Every leaf subcommand of ``parser`` (``"fit train"``) with its options, its parents' included."""
    actions, subcommands = list(inherited), None
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            subcommands = action
        elif action.option_strings:
            actions.append(action)
    if subcommands is None:
        yield " ".join(words), actions
        return
    for word, child in subcommands.choices.items():
        yield from command_options(child, (*words, word), tuple(actions))


@functools.cache
def site_tables() -> dict[str, Any]:
    """Every table function of the docs pages (:func:`calculators.table_registry.site_tables`), shared by
    every test module: each table is computed once a session, the index of values from :func:`site_values`.
    A test of determinism builds its own."""
    from calculators import table_registry

    return table_registry.site_tables(docs_pages(), values=site_values())


@functools.cache
def site_values() -> dict[str, Any]:
    """Every value function of the docs pages (:func:`calculators.table_registry.site_values`), each
    computed once a session, shared as :func:`site_tables` is."""
    from calculators import table_registry

    return table_registry.site_values(docs_pages())


def load_script(name: str, *, module_name: str | None = None) -> ModuleType:
    """``scripts/NAME.py`` as a module, registered in ``sys.modules`` (dataclasses look it up there).

    Loaded once per ``module_name`` (default ``name``); later calls return the same module.
    """
    module_name = module_name or name
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None, f"scripts/{name}.py not found"
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
