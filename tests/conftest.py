"""Shared set-up of the test suite, laid out by the layer each folder tests:

- ``engine/``: the calculators' arithmetic, properties and the package's shape (public API, imports);
- ``catalog/``: GPU, model, price and link records and their sources;
- ``content/``: the docs pages, their generated tables and values, notebooks, the claims audit;
- ``tools/``: the faces: CLI, widgets' Python side, error messages, hostile input;
- ``validation/``: the estimates against measurements (fake-tensor traces, real-GPU runs) and the harness;
- ``scripts/``: the entry points under ``scripts/`` and the built site;
- ``browser/``: the built site in headless Chromium.

``support.py`` (paths, the docs pages read once, ``scripts/`` loaded as modules) is importable
from every folder.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

#: The conftest files hold no doctests; collecting them as modules (``--doctest-modules``)
#: would import two files called ``conftest`` under one name.
collect_ignore = ["conftest.py", "browser/conftest.py", "engine/conftest.py"]

from scheduling import UnitScheduling  # noqa: E402 (tests/ is on sys.path from here)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadscope`` (scripts/test) schedules :mod:`scheduling`'s work units, longest first."""
    return UnitScheduling(config, log) if config.getvalue("dist") == "loadscope" else None
