"""The package imports only the standard library, and nothing Pyodide cannot run.

STYLE.md (Code layout): "Standard library only ... A test fails on any import Pyodide
cannot run (threading, multiprocessing, subprocess, socket, tkinter) or that is not
stdlib." Pyodide's documentation ("Python compatibility", WebAssembly limitations) lists
these as unavailable or non-functional in the browser: no threads or processes, no raw
sockets, no Tk, no foreign-function loading through ctypes.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "calculators"

#: Modules (and their submodules) that cannot run under Pyodide.
FORBIDDEN = ("threading", "multiprocessing", "subprocess", "socket", "tkinter", "asyncio.subprocess", "ctypes",
             "_thread", "concurrent.futures.process", "concurrent.futures.thread")


def imported_modules(source: str, filename: str = "<string>") -> set[str]:
    """Every module a source file imports, dotted names and ``from`` targets included.

    Relative imports (``from . import x``) are reported as ``calculators``.
    """
    found: set[str] = set()
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                found.add("calculators")
                continue
            assert node.module is not None
            found.add(node.module)
            # `from asyncio import subprocess` imports the submodule asyncio.subprocess.
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__import__":
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.add(node.args[0].value)
    return found


def problems(source: str, filename: str = "<string>") -> list[str]:
    """Imports that break the stdlib-only, Pyodide-safe rule, as readable messages."""
    issues: list[str] = []
    for module in sorted(imported_modules(source, filename)):
        top = module.split(".")[0]
        if top != "calculators" and top not in sys.stdlib_module_names:
            issues.append(f"{filename}: {module} is not in the standard library")
        for banned in FORBIDDEN:
            if module == banned or module.startswith(banned + "."):
                issues.append(f"{filename}: {module} cannot run under Pyodide")
    return issues


def _sources() -> list[Path]:
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 10, files  # the walk found the package
    return files


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_imports_stdlib_only(path: Path) -> None:
    assert problems(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE))) == []


# ------------------------------------------------------------------ the checker can fail
@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("import numpy as np\n", "numpy is not in the standard library", id="numpy"),
        pytest.param("from numpy.linalg import norm\n", "numpy.linalg is not in the standard library",
                     id="from-numpy"),
        pytest.param("def f():\n    import torch\n", "torch is not in the standard library", id="nested-import"),
        pytest.param("import threading\n", "threading cannot run under Pyodide", id="threading"),
        pytest.param("import multiprocessing.pool\n", "multiprocessing.pool cannot run under Pyodide",
                     id="multiprocessing"),
        pytest.param("from subprocess import run\n", "subprocess cannot run under Pyodide", id="subprocess"),
        pytest.param("import socket\n", "socket cannot run under Pyodide", id="socket"),
        pytest.param("import tkinter\n", "tkinter cannot run under Pyodide", id="tkinter"),
        pytest.param("import ctypes\n", "ctypes cannot run under Pyodide", id="ctypes"),
        pytest.param("import asyncio.subprocess\n", "asyncio.subprocess cannot run under Pyodide",
                     id="asyncio.subprocess"),
        pytest.param("from asyncio import subprocess\n", "asyncio.subprocess cannot run under Pyodide",
                     id="from-asyncio-import-subprocess"),
        pytest.param("np = __import__('numpy')\n", "numpy is not in the standard library", id="dunder-import"),
    ],
)
def test_checker_reports_bad_imports(source: str, expected: str) -> None:
    assert any(expected in issue for issue in problems(source)), problems(source)


def test_checker_allows_stdlib_and_package() -> None:
    source = "import json\nimport math\nfrom dataclasses import dataclass\nfrom calculators.errors import InputError\n" \
             "from . import model\nimport asyncio\n"
    assert problems(source) == []
