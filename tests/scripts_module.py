"""Load a file of scripts/ as a module, for tests of the entry points (scripts/ is not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


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
