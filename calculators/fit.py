"""Will it fit? The GPUs a job fits on, how many are needed, the largest batch or context.

>>> from calculators.catalog.models import get_model
>>> from calculators.catalog.gpus import get_gpu
>>> answer = fit_inference(get_model("llama-3-8b"), get_gpu("rtx-4090"), context=8192)
>>> answer.fits, answer.gpus_needed
(True, 1)
>>> fit_training(get_model("llama-3-8b"), get_gpu("rtx-4090"), method="full", seq=2048).fits
False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.memory.inference import (
    MAX_BATCH,
    largest_fitting,
    inference_memory,
    max_batch_for_memory,
    max_context_for_memory,
)
from calculators.memory.overhead import runtime_overhead_bytes
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import training_memory
from calculators.model import ModelSpec
from calculators.validate import gpu_record

MAX_GPUS_SEARCHED = 1024


@dataclass(frozen=True)
class FitResult:
    """Whether one job fits one GPU model, and the limits on that GPU.

    Attributes:
        gpu_id: catalog id of the GPU.
        fits: True when ``total_bytes`` of the job fits one GPU's memory.
        estimate: the memory estimate on one GPU.
        headroom_bytes: GPU memory minus ``total_bytes`` (negative when it does not fit).
        gpus_needed: smallest GPU count that holds the job (tensor parallel for inference,
            ZeRO-3 sharding for training); ``None`` when even the search limit fails.
        max_batch: largest batch that fits one GPU at the given sequence/context length.
        max_context: largest prompt (inference) or sequence (training) that fits at the
            given batch.
    """

    gpu_id: str
    fits: bool
    estimate: MemoryEstimate
    headroom_bytes: int
    gpus_needed: int | None
    max_batch: int
    max_context: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "gpu": self.gpu_id,
            "fits": self.fits,
            "headroom_bytes": self.headroom_bytes,
            "gpus_needed": self.gpus_needed,
            "max_batch": self.max_batch,
            "max_context": self.max_context,
            "estimate": self.estimate.to_dict(),
        }


def fit_inference(spec: ModelSpec, gpu: GPU | str, **settings: Any) -> FitResult:
    """Fit of an inference job (settings as :func:`~calculators.memory.inference.inference_memory`).

    ``gpus_needed`` assumes tensor parallelism that splits weights, KV cache and
    activations evenly, with each GPU keeping its own runtime overhead.
    """
    gpu = gpu_record("gpu", gpu)
    estimate = inference_memory(spec, **settings)
    memory = gpu.memory_bytes
    needed: int | None = None
    for count in range(1, MAX_GPUS_SEARCHED + 1):
        per_gpu = -(-estimate.peak_allocated_bytes // count)
        if per_gpu + sum(runtime_overhead_bytes(peak_allocated_bytes=per_gpu).values()) <= memory:
            needed = count
            break
    keep = {k: v for k, v in settings.items() if k not in ("batch", "context")}
    return FitResult(
        gpu_id=gpu.id,
        fits=estimate.total_bytes <= memory,
        estimate=estimate,
        headroom_bytes=memory - estimate.total_bytes,
        gpus_needed=needed,
        max_batch=max_batch_for_memory(spec, memory_bytes=memory, context=settings.get("context", 4096),
                                       **{k: v for k, v in keep.items() if k != "new_tokens"},
                                       new_tokens=settings.get("new_tokens", 0)),
        max_context=max_context_for_memory(spec, memory_bytes=memory, batch=settings.get("batch", 1),
                                           **{k: v for k, v in keep.items() if k != "new_tokens"}),
    )


def fit_training(spec: ModelSpec, gpu: GPU | str, **settings: Any) -> FitResult:
    """Fit of a training step (settings as :func:`~calculators.memory.training.training_memory`).

    ``gpus_needed`` is the smallest data-parallel group whose ZeRO-3 shards fit when the
    job does not fit one GPU with the settings given.
    """
    gpu = gpu_record("gpu", gpu)
    estimate = training_memory(spec, **settings)
    memory = gpu.memory_bytes
    fits = estimate.total_bytes <= memory
    needed: int | None = 1 if fits else None
    if not fits:
        sharded = {**settings, "zero": 3}
        count = 2
        while count <= MAX_GPUS_SEARCHED:
            if training_memory(spec, **{**sharded, "gpus": count}).total_bytes <= memory:
                needed = count
                break
            count *= 2
    base = {k: v for k, v in settings.items() if k not in ("batch", "seq")}
    batch = settings.get("batch", 1)
    seq = settings.get("seq", 2048)

    def batch_fits(b: int) -> bool:
        return training_memory(spec, **base, batch=b, seq=seq).total_bytes <= memory

    def seq_fits(s: int) -> bool:
        return training_memory(spec, **base, batch=batch, seq=s).total_bytes <= memory

    return FitResult(
        gpu_id=gpu.id,
        fits=fits,
        estimate=estimate,
        headroom_bytes=memory - estimate.total_bytes,
        gpus_needed=needed,
        max_batch=largest_fitting(batch_fits, MAX_BATCH),
        max_context=largest_fitting(seq_fits, 1 << 22),
    )
