"""Published figures the catalog cannot answer yet: kept in the dataset, scored once the catalog can.

A figure is recorded as published, naming its GPU, model and weight format by catalog id
(``tests/data/published_speed/README.md``). Some name a part the catalog does not hold yet (a GPU or
format another change adds: ``gb200``, ``m3-ultra``, ``mxfp4``), or need a rate the catalog's record
does not give (a prefill on an Apple GPU whose dense rate is not published in the catalog). Such a
figure is **pending**: :func:`pending_reason` says why, it is neither fitted nor scored
(:func:`calculators.speed_accuracy.data.scored` and :func:`calculators.speed_accuracy.training.scored`
leave it out), and it enters the scores by itself the day the catalog gains what it lacks. Nothing
here guesses a missing rate: a figure the model would answer from its bandwidth alone, where a
compute rate bounds it, would be scored against a time the model cannot know.

>>> pending_reason({"gpu": "h100-sxm", "model": "llama-3-8b", "weights": "bf16", "metric": "decode_rate"})
''
>>> pending_reason({"gpu": "no-such-gpu", "model": "llama-3-8b", "weights": "bf16", "metric": "decode_rate"})
"gpu 'no-such-gpu' is not in the catalog yet"
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.dtypes import DType
from calculators.errors import InputError, UnknownNameError
from calculators.memory.weight_formats import weight_format
from calculators.performance.flops import compute_rate_flop_per_s
from calculators.performance.speed_setup import compute_dtype

#: Inference metrics a decode step alone answers (memory-bound at batch 1: no compute rate needed to bound them).
DECODE_METRICS = frozenset({"decode_rate", "decode_step_time"})


def _training_dtype(record: Mapping[str, Any]) -> DType:
    if record.get("fp8"):
        return DType.FP8
    precision = str(record.get("precision") or "bf16-mixed")
    return DType.FP32 if precision == "fp32" else DType.BF16 if precision.startswith("bf16") else DType.FP16


def pending_reason(figure: Mapping[str, Any]) -> str:
    """Why the catalog cannot answer a published figure yet (``""``: it can).

    Checked in order: the GPU id, the model id (training records may give ``model_config``
    instead), the weight format (inference figures), and the dense rate the figure needs: any
    inference figure but a decode step (prefill, first token and whole-batch times are bound by
    compute), and every training figure.
    """
    try:
        gpu = get_gpu(str(figure["gpu"]))
    except UnknownNameError:
        return f"gpu {figure['gpu']!r} is not in the catalog yet"
    if figure.get("model") or not figure.get("model_config"):
        try:
            get_model(str(figure["model"]))
        except UnknownNameError:
            return f"model {figure['model']!r} is not in the catalog yet"
    if "metric" in figure:
        try:
            weights = weight_format(str(figure["weights"]))
        except InputError:
            return f"weight format {figure['weights']!r} is not in the catalog yet"
        if str(figure["metric"]) in DECODE_METRICS:
            return ""
        dtype = compute_dtype(weights.family)
    else:
        dtype = _training_dtype(figure)
    if compute_rate_flop_per_s(gpu, dtype) is None:
        return f"{gpu.name} has no published dense {dtype.value} rate in the catalog (the figure is bound by compute)"
    return ""


__all__ = ["DECODE_METRICS", "pending_reason"]
