"""Load the measured-memory ground truth recorded by ``scripts/measure_memory.py``.

Each JSON file under ``tests/data/measurements/`` holds one record (a dict with
``id``, ``kind``, ``model``, ``settings``, ``measured`` and ``provenance``) or a
list of such records.  Standard library only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_DIRECTORY", "load_measurements"]

#: ``tests/data/measurements`` of the repository this package lives in.
DEFAULT_DIRECTORY = Path(__file__).resolve().parent.parent / "tests" / "data" / "measurements"


def load_measurements(directory: str | Path | None = None) -> list[dict[str, Any]]:
    """Return every measurement record under *directory*, sorted by ``id``.

    *directory* defaults to :data:`DEFAULT_DIRECTORY`; a missing directory gives
    an empty list.  Files are read recursively (``*.json``).

    >>> load_measurements("/nonexistent/directory")
    []
    """
    root = Path(directory) if directory is not None else DEFAULT_DIRECTORY
    if not root.is_dir():
        return []
    records: list[dict[str, Any]] = []
    for path in sorted(root.rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        items = data if isinstance(data, list) else [data]
        for item in items:
            if not isinstance(item, dict) or "id" not in item:
                raise ValueError(f"{path}: not a measurement record (no 'id')")
            records.append(item)
    return sorted(records, key=lambda r: str(r["id"]))
