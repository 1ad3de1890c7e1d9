"""The public API (``calculators.__all__``) is sorted, complete and changes only on purpose.

The signature snapshot works as tabulate's and humanize's API tests do: a changed
signature fails here until ``tests/data/public_api.txt`` is rewritten, so a release note
can list what changed. Rewrite it with ``UPDATE_SNAPSHOTS=1 scripts/test tests/engine/test_public_api.py``
after checking the diff is intended.
"""

from __future__ import annotations

import inspect
import os
import re
import tomllib
from pathlib import Path

import calculators

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "tests" / "data" / "public_api.txt"


def _signature_lines() -> list[str]:
    lines = []
    for name in calculators.__all__:
        obj = getattr(calculators, name)
        if name == "__version__":
            continue
        kind = "class" if inspect.isclass(obj) else "def"
        try:
            signature = str(inspect.signature(obj))
        except (TypeError, ValueError):  # pragma: no cover - every export has one today
            signature = "(...)"
        lines.append(f"{kind} {name}{signature}")
    return lines


def test_all_is_sorted_and_unique() -> None:
    assert calculators.__all__ == sorted(set(calculators.__all__))


def test_every_export_exists_and_is_reexported_from_its_defining_module() -> None:
    for name in calculators.__all__:
        obj = getattr(calculators, name)
        if name == "__version__":
            continue
        module = inspect.getmodule(obj)
        assert module is not None and module.__name__ != "calculators", name
        assert getattr(module, name) is obj, name


def test_one_entry_function_per_subject_documented() -> None:
    doc = calculators.__doc__ or ""
    for name in calculators.__all__:
        obj = getattr(calculators, name)
        if inspect.isfunction(obj) and name not in ("lora_parameters", "max_batch_for_memory",
                                                    "max_context_for_memory"):
            assert f":func:`{name}`" in doc, f"{name} is exported but not in the subject table"


def test_signature_snapshot() -> None:
    current = "\n".join(_signature_lines()) + "\n"
    if os.environ.get("UPDATE_SNAPSHOTS"):
        SNAPSHOT.write_text(current, encoding="utf-8")
    expected = SNAPSHOT.read_text(encoding="utf-8")
    assert current == expected, (
        "The public API changed. If intended, rewrite the snapshot with "
        "UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/engine/test_public_api.py and note it in the changelog.")


def test_version_matches_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert calculators.__version__ == project["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", calculators.__version__)
