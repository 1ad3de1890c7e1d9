"""The published speed figures the inference model is fitted on and scored against.

``tests/data/published_speed/<category>.jsonl`` holds one figure per line, each quoted from
a named document (``title``, ``url``, ``source_id``, ``as_of``) with the hardware, model,
engine, weight format and every setting the document states. ``metric`` says what the
number is, so it can be compared with the model:

=======================  =================================================================
metric                   measured value
=======================  =================================================================
``decode_rate``          tokens/s of one sequence while decoding
``decode_step_time``     seconds (or ms) of one decode step of the batch
``output_rate``          output tokens/s of a batch or of ``concurrency`` requests
``output_rate_per_gpu``  the same divided by the tensor-parallel GPUs
``batch_latency``        seconds (or ms) to prefill and decode one static batch
``ttft``                 seconds (or ms) to the first token of one request
``prefill_rate``         prompt tokens/s of one prefill (no per-request cost)
``prefill_time``         seconds of one prefill of the batch (no per-request cost)
=======================  =================================================================

>>> figures = load_figures()
>>> len(figures) >= 100 and {f["category"] for f in figures} == set(CATEGORIES)
True
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: ``tests/data/published_speed`` of the repository this package lives in.
DEFAULT_DIRECTORY = Path(__file__).resolve().parent.parent.parent / "tests" / "data" / "published_speed"
CATEGORIES = ("decode_batch1", "batched_throughput", "time_to_first_token", "prefill_throughput")
CATEGORY_TITLES = {
    "decode_batch1": "decode tokens/s at batch 1",
    "batched_throughput": "batched and serving throughput",
    "time_to_first_token": "time to first token",
    "prefill_throughput": "prefill throughput",
    "pre-training": "pre-training throughput and GPU-hours",
    "fine-tuning": "fine-tuning throughput and time",
    "collectives": "all-reduce bus bandwidth",
}
METRICS = ("decode_rate", "decode_step_time", "output_rate", "output_rate_per_gpu", "batch_latency", "ttft",
           "prefill_rate", "prefill_time")
#: Units a record may use, and the factor to seconds or tokens/s.
UNITS = {"tokens/s": 1.0, "tokens/s per GPU": 1.0, "s": 1.0, "ms": 1e-3}
REQUIRED = ("id", "category", "source_id", "title", "url", "as_of", "gpu", "model", "engine", "weights", "batch",
            "tensor_parallel", "metric", "measured", "unit")


def load_figures(directory: str | Path | None = None) -> list[dict[str, Any]]:
    """Every figure under ``directory`` (default :data:`DEFAULT_DIRECTORY`), sorted by id.

    A missing directory gives an empty list (the browser build ships no test data).
    """
    root = Path(directory) if directory is not None else DEFAULT_DIRECTORY
    if not root.is_dir():
        return []
    figures: list[dict[str, Any]] = []
    for path in (root / f"{category}.jsonl" for category in CATEGORIES):  # training.py reads the others
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                figures.append(json.loads(line))
    return sorted(figures, key=lambda f: str(f["id"]))


def scored(figures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The figures that are scored: all but those with an ``excluded`` reason and those the catalog cannot answer
    yet (:func:`calculators.speed_accuracy.pending.pending_reason`)."""
    from calculators.speed_accuracy.pending import pending_reason  # the catalog, imported only when scoring

    return [f for f in figures if not f.get("excluded") and not pending_reason(f)]


def pending(figures: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    """The figures kept but not scored until the catalog can answer them, each with the reason."""
    from calculators.speed_accuracy.pending import pending_reason

    return [(f, reason) for f in figures if not f.get("excluded") and (reason := pending_reason(f))]


def measured_value(figure: dict[str, Any]) -> float:
    """The measured number in base units: seconds for times, tokens/s for rates."""
    return float(figure["measured"]) * UNITS[str(figure["unit"])]


def is_time(figure: dict[str, Any]) -> bool:
    """True when the figure is a time (smaller is faster), False for a rate."""
    return str(figure["metric"]) in ("decode_step_time", "batch_latency", "ttft", "prefill_time")
