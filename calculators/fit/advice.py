"""What would make an inference job fit: single changes, each with the verdict it then gets (#27 item 4).

Each change is tried alone, every other setting as given, against the one verdict
(:func:`~calculators.fit.placement.share_verdict` on the reader's GPU count): smaller weights
(int8, or fp8 where the GPU multiplies in it, then int4), an fp8 KV cache, one sequence instead
of a batch, the longest prompt that fits, and the fewest GPUs whose shares fit. Only changes
whose verdict is *fits* are listed (a tight job is not promised), with that verdict, so a
face can state the new margin. What a change costs in quality or speed is not judged here:
a 4-bit checkpoint loses some accuracy, a shorter prompt holds less text.

>>> from calculators.catalog.gpus import get_gpu
>>> from calculators.catalog.models import get_model
>>> for label, verdict in inference_fit_advice(get_model("llama-3.1-70b"), get_gpu("h100-sxm"), context=8192):
...     print(f"{label}: {verdict.verdict}, {verdict.margin_bytes / 2**30:.1f} GiB to spare")
int8 weights: fits, 5.6 GiB to spare
fp8 weights: fits, 5.6 GiB to spare
int4 weights: fits, 36.2 GiB to spare
2 GPUs, tensor or pipeline parallel: fits, 9.9 GiB to spare
"""

from __future__ import annotations

from typing import Any

from calculators.catalog.gpus import GPU
from calculators.dtype_support import runs_natively
from calculators.fit.placement import INFERENCE_SPLIT, inference_placement, share_verdict
from calculators.fit.verdict import MAX_GPUS_SEARCHED, FitVerdict
from calculators.memory.inference import MAX_CONTEXT, inference_memory, largest_fitting, with_stored_weights
from calculators.memory.weight_formats import weight_format
from calculators.model import ModelSpec
from calculators.validate import GPU_RECORD, instance_of, positive_int

#: The weight formats tried, largest first, where each saves at least a bit per weight on the job's own.
SMALLER_WEIGHTS = ("int8", "fp8", "int4")


def inference_fit_advice(spec: ModelSpec, gpu: GPU, *, gpus: int = 1,
                         **settings: Any) -> tuple[tuple[str, FitVerdict], ...]:
    """Single changes that make an inference job (settings as
    :func:`~calculators.memory.inference.inference_memory`) *fit* on ``gpus`` GPUs of ``gpu``, each with
    its verdict there; empty when the job fits already (see the module docstring).
    """
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    gpus = positive_int("gpus", gpus, maximum=MAX_GPUS_SEARCHED)
    settings = with_stored_weights(spec, settings)

    def verdict(**change: Any) -> FitVerdict:
        return share_verdict(inference_memory(spec, **{**settings, **change}), record, gpus=gpus)

    if verdict().fits:
        return ()
    bits = weight_format(settings["weights"]).bits_per_weight
    changes: list[tuple[str, dict[str, Any]]] = []
    for form in SMALLER_WEIGHTS:
        if weight_format(form).bits_per_weight <= bits - 1 and (form != "fp8" or runs_natively(record, "fp8")):
            changes.append((f"{form} weights", {"weights": form}))
    if str(settings.get("kv_cache", "bf16")) in ("bf16", "fp16", "fp32") and runs_natively(record, "fp8"):
        changes.append(("fp8 KV cache", {"kv_cache": "fp8"}))
    batch = int(settings.get("batch", 1))
    if batch > 1:
        changes.append(("one sequence instead of a batch", {"batch": 1}))
    advice = [(label, found) for label, change in changes if (found := verdict(**change)).fits]
    context = int(settings.get("context", 4096))
    room = MAX_CONTEXT - int(settings.get("new_tokens", 0))
    longest = largest_fitting(lambda n: verdict(context=n).fits, min(context - 1, room)) if context > 1 else 0
    if longest:
        advice.append((f"a prompt of {longest:,} tokens", verdict(context=longest)))
    placed = inference_placement(inference_memory(spec, **settings), record, gpus=gpus)
    if placed.fewest_fits is not None and placed.fewest_fits_verdict is not None and placed.fewest_fits > gpus:
        advice.append((f"{placed.fewest_fits} GPUs, {INFERENCE_SPLIT}", placed.fewest_fits_verdict))
    return tuple(advice)
