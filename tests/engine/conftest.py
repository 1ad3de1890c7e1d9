"""Fixtures shared by the engine tests."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from calculators.catalog.gpus import GPU
from calculators.inputs import gpu as gpu_input
from calculators.inputs import model as model_input
from calculators.model import ModelSpec


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Calls of the GPU reader and the model reader while the test runs: ``gpu read`` (an id or a description
    turned into a record), ``gpu pass`` (a record handed back untouched), ``model read``, ``model pass``.

    The one reader of each (:func:`calculators.inputs.gpu.resolve_gpu`, :func:`calculators.inputs.model.resolve_model`)
    is wrapped wherever a loaded module of ``calculators`` holds it, so every call counts, whichever name it goes by.
    """
    counts: Counter[str] = Counter()

    def counting(kind: str, reader: Callable[..., Any]) -> Callable[..., Any]:
        def call(value: Any, **options: Any) -> Any:
            counts[f"{kind} {'pass' if isinstance(value, (GPU, ModelSpec)) else 'read'}"] += 1
            return reader(value, **options)
        return call

    readers = {"resolve_gpu": (gpu_input.resolve_gpu, "gpu"), "resolve_model": (model_input.resolve_model, "model")}
    for module in [m for name, m in sys.modules.items() if name == "calculators" or name.startswith("calculators.")]:
        for name, (reader, kind) in readers.items():
            if getattr(module, name, None) is reader:
                monkeypatch.setattr(module, name, counting(kind, reader))
    yield counts
