"""A job on the reader's GPUs: the per-GPU verdict for their count, and the fewest GPUs that hold it.

An inference job spread over ``n`` GPUs, by tensor or by pipeline parallelism, splits its
weights and activations evenly, and its KV cache as far as the split of the two that shares it the
least allows: tensor parallelism divides a cache over its KV heads only (a GPU past them keeps a copy,
and every GPU holds an MLA latent whole: :func:`~calculators.memory.kv_cache.kv_cache_shards`), so
the verdict holds for either split; each GPU keeps its own cuBLAS workspaces and CUDA context, and its
allocator reserve and uncertainty follow its share of the largest transient block
(:func:`split_inference_estimate`). A training step on ``n`` data-parallel GPUs is
estimated per GPU by :func:`~calculators.memory.training.training_memory` itself (its ``gpus``
and ``zero``: ZeRO-1/2/3 and FSDP shard the model states); the fewest GPUs that hold a
training job are searched with ZeRO-3 over powers of two (:data:`TRAINING_SEARCH`). Every
verdict here is :func:`~calculators.fit.verdict.verdict_for` of the per-GPU footprint.

A :class:`Placement` holds the answer a reader asks for first: on their GPU and count, the
verdict and the margin; then the fewest GPUs whose share is at most *tight*, and the fewest
whose share *fits*, with that margin ("2 (tight) · 3 (fits)").

>>> from calculators.catalog.gpus import get_gpu
>>> from calculators.catalog.models import get_model
>>> from calculators.memory.inference import inference_memory
>>> job = inference_memory(get_model("llama-3.1-70b"), weights="int4", context=8192)
>>> placed = inference_placement(job, get_gpu("rtx-4090"), gpus=2)
>>> placed.verdict.verdict, placed.fewest_tight, placed.fewest_fits
('tight', 2, 3)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.fit.verdict import (
    ESTIMATE,
    FITS,
    MAX_GPUS_SEARCHED,
    TIGHT,
    FitVerdict,
    fit_verdict,
    footprint_on,
    verdict_for,
)
from calculators.memory.overhead import allocator_reserve_bytes, uncertainty_above_total
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import training_memory
from calculators.model import ModelSpec
from calculators.validate import GPU_RECORD, instance_of, positive_int

#: How an inference job shares several GPUs, for memory: evenly, whichever of the two splits it.
INFERENCE_SPLIT = "tensor or pipeline parallel"
#: How the fewest GPUs of a training job are searched: data parallel with ZeRO-3 (FSDP full shard),
#: over powers of two.
TRAINING_SEARCH = "data parallel with ZeRO-3"
#: The ZeRO stage whose sharding :data:`TRAINING_SEARCH` uses.
SEARCH_ZERO = 3


def split_inference_estimate(estimate: MemoryEstimate, count: int) -> MemoryEstimate:
    """One GPU's share of an inference job split evenly over ``count`` GPUs, as an estimate of its own.

    Formula: every allocated component but the cuBLAS workspaces is divided by ``count``, and the KV
    cache keeps what tensor parallelism, the split that shares it least, cannot divide
    (:func:`~calculators.memory.kv_cache.kv_cache_shards`): ``copies = ceil(kv / min(count, shards)) -
    ceil(kv / count)``, so ``ceil((peak - workspaces) / count) + copies + workspaces`` in total, and each
    phase's peak gains the same copies; each GPU keeps its CUDA context and workspaces; the allocator
    reserve and the uncertainty are those of a transient block of ``ceil(block / count)`` (an
    inference prefill: :mod:`calculators.memory.overhead`). ``count`` 1 returns ``estimate`` unchanged.

    >>> from calculators.catalog.models import get_model
    >>> from calculators.memory.inference import inference_memory
    >>> job = inference_memory(get_model("llama-3-8b"), context=8192)
    >>> half = split_inference_estimate(job, 2)
    >>> half.breakdown["weights"] == job.breakdown["weights"] // 2, sum(half.breakdown.values()) == half.peak_allocated_bytes
    (True, True)
    >>> mla = inference_memory(get_model("deepseek-v3"), context=8192, batch=8)  # one latent per token: not split
    >>> split_inference_estimate(mla, 8).breakdown["kv_cache"] == mla.breakdown["kv_cache"]
    True
    """
    estimate = instance_of("estimate", estimate, MemoryEstimate, ESTIMATE)
    count = positive_int("count", count, maximum=MAX_GPUS_SEARCHED)
    if count == 1:
        return estimate
    workspaces = estimate.breakdown.get("cuda_workspaces", 0)
    context = estimate.overhead.get("cuda_context", 0)
    share = -(-estimate.transient_block_bytes // count)
    reserve = 0
    if estimate.overhead.get("allocator_reserve", 0):  # zero with expandable segments
        reserve = allocator_reserve_bytes(transient_block_bytes=share, recompute=False, prefill=True)
    kv = estimate.breakdown.get("kv_cache", 0)
    holders = min(count, estimate.cache_shards or count)
    copies = max(0, -(-kv // holders) - -(-kv // count))  # kept beyond an even share (MLA, fewer KV heads than GPUs)
    allocated = -(-(estimate.peak_allocated_bytes - workspaces) // count) + copies + workspaces
    overhead = {"cuda_context": context, "allocator_reserve": reserve} if estimate.overhead else {}
    breakdown = {name: value if name == "cuda_workspaces" else value // count + (copies if name == "kv_cache" else 0)
                 for name, value in estimate.breakdown.items()}
    if breakdown:  # the rounding left over goes to the largest component, so the parts add up to the peak
        largest = max((name for name in breakdown if name not in ("cuda_workspaces", "kv_cache")),
                      key=lambda name: breakdown[name], default=None)
        if largest is not None:
            breakdown[largest] += allocated - sum(breakdown.values())
    phases = {phase: -(-(peak - workspaces) // count) + workspaces + copies
              for phase, peak in estimate.phase_peaks.items()}
    return replace(
        estimate, peak_allocated_bytes=allocated, total_bytes=allocated + context + reserve, breakdown=breakdown,
        phase_peaks=phases, overhead=overhead, transient_block_bytes=share,
        uncertainty_bytes=uncertainty_above_total(overhead, transient_block_bytes=share, prefill=True),
        assumptions=(*estimate.assumptions[:-1],
                     f"split evenly over {count} GPUs ({INFERENCE_SPLIT}): weights and activations divided, "
                     + ("the KV cache too" if holders == count else
                        f"the KV cache over {holders} (tensor parallelism splits it by KV heads; an MLA latent is "
                        "held whole by every GPU)")
                     + "; each GPU keeps its own CUDA context and cuBLAS workspaces, and its allocator reserve "
                     "follows its share of the largest transient block", *estimate.assumptions[-1:]))


def split_inference_footprint(estimate: MemoryEstimate, count: int) -> tuple[int, int]:
    """Per-GPU ``(total, uncertainty)`` of an inference job split evenly over ``count`` GPUs
    (:func:`split_inference_estimate`)."""
    share = split_inference_estimate(estimate, positive_int("count", count, minimum=2, maximum=MAX_GPUS_SEARCHED))
    return share.total_bytes, share.uncertainty_bytes


def share_footprint(estimate: MemoryEstimate, gpu: GPU, *, gpus: int = 1) -> tuple[int, int]:
    """Per-GPU ``(total, uncertainty)`` of an inference job on ``gpus`` GPUs of ``gpu``: the whole job's
    footprint on one (:func:`~calculators.fit.verdict.footprint_on`), an even split above one."""
    count = positive_int("gpus", gpus, maximum=MAX_GPUS_SEARCHED)
    return split_inference_footprint(estimate, count) if count > 1 else footprint_on(estimate, gpu)


def share_verdict(estimate: MemoryEstimate, gpu: GPU, *, gpus: int = 1) -> FitVerdict:
    """The verdict of an inference job's per-GPU share on ``gpus`` GPUs of ``gpu`` (:func:`share_footprint`)."""
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    total, uncertainty = share_footprint(estimate, record, gpus=gpus)
    return verdict_for(total, uncertainty, usable_memory_bytes(record))


@dataclass(frozen=True)
class Placement:
    """A job on the reader's GPUs: the verdict for their count, and the fewest GPUs that hold it.

    Attributes:
        gpu_id, gpu_name: the GPU.
        gpus: the reader's GPU count.
        split: how the job shares ``gpus`` GPUs (``""`` on one GPU): :data:`INFERENCE_SPLIT`, or
            ``"data parallel"`` with its ZeRO stage for training.
        verdict: the per-GPU verdict on ``gpus`` GPUs.
        fewest_tight: the fewest GPUs whose share is at most *tight* (``None``: none up to the search limit,
            or not searched).
        fewest_fits: the fewest GPUs whose share *fits* (``None`` likewise).
        fewest_fits_verdict: the verdict on ``fewest_fits`` GPUs (its margin is the one a reader is promised).
        searched: how the fewest counts were searched (``""``: not searched): every count up to
            :data:`~calculators.fit.verdict.MAX_GPUS_SEARCHED` for inference, powers of two with ZeRO-3
            for training.
    """

    gpu_id: str
    gpu_name: str
    gpus: int
    split: str
    verdict: FitVerdict
    fewest_tight: int | None = None
    fewest_fits: int | None = None
    fewest_fits_verdict: FitVerdict | None = None
    searched: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (bytes): the verdict on the reader's GPUs and the fewest GPUs that hold the job."""
        return {"gpu": self.gpu_id, "gpu_name": self.gpu_name, "gpus": self.gpus, "split": self.split,
                **self.verdict.to_dict(), "gpus_needed_tight": self.fewest_tight, "gpus_needed": self.fewest_fits,
                "gpus_needed_margin_bytes": (None if self.fewest_fits_verdict is None
                                             else self.fewest_fits_verdict.margin_bytes),
                "gpus_needed_searched": self.searched}


def inference_placement(estimate: MemoryEstimate, gpu: GPU, *, gpus: int = 1, search: bool = True) -> Placement:
    """An inference job on ``gpus`` GPUs of ``gpu``, and the fewest of them that hold it
    (every count from 1 up to :data:`~calculators.fit.verdict.MAX_GPUS_SEARCHED`; ``search=False``: none).

    >>> from calculators.catalog.gpus import get_gpu
    >>> from calculators.catalog.models import get_model
    >>> from calculators.memory.inference import inference_memory
    >>> placed = inference_placement(inference_memory(get_model("llama-3-8b")), get_gpu("t4"))
    >>> placed.verdict.verdict, placed.fewest_fits
    ('does not fit', 2)
    """
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    count = positive_int("gpus", gpus, maximum=MAX_GPUS_SEARCHED)
    verdict = share_verdict(estimate, record, gpus=count)
    tight: int | None = None
    fits: tuple[int, FitVerdict] | None = None
    if search:
        usable = usable_memory_bytes(record)
        for candidate in range(1, MAX_GPUS_SEARCHED + 1):
            total, uncertainty = share_footprint(estimate, record, gpus=candidate)
            if tight is None and total <= usable:
                tight = candidate
            if total + uncertainty <= usable:
                fits = candidate, verdict_for(total, uncertainty, usable)
                break
    return Placement(gpu_id=record.id, gpu_name=record.name, gpus=count, split=INFERENCE_SPLIT if count > 1 else "",
                     verdict=verdict, fewest_tight=tight, fewest_fits=None if fits is None else fits[0],
                     fewest_fits_verdict=None if fits is None else fits[1],
                     searched=f"every count, {INFERENCE_SPLIT}" if search else "")


def training_split(settings: Mapping[str, Any]) -> str:
    """How a training step's settings share their GPUs: ``"data parallel, ZeRO-2"``; ``""`` on one GPU."""
    gpus = int(settings.get("gpus", 1))
    if gpus <= 1:
        return ""
    zero = int(settings.get("zero", 0))
    return "data parallel, " + (f"ZeRO-{zero}" if zero else "no sharding (DDP)")


def training_placement(spec: ModelSpec, gpu: GPU, *, search: bool = True, estimate: MemoryEstimate | None = None,
                       **settings: Any) -> Placement:
    """A training step (settings as :func:`~calculators.memory.training.training_memory`, ``gpus`` and ``zero``
    included) on its GPUs of ``gpu``, and the fewest GPUs that hold it: one GPU with the settings given,
    else powers of two with ZeRO-3 (:data:`TRAINING_SEARCH`) up to
    :data:`~calculators.fit.verdict.MAX_GPUS_SEARCHED`. ``estimate``: the step's
    :func:`~calculators.memory.training.training_memory` for ``settings``, when the caller has it already.

    >>> from calculators.catalog.gpus import get_gpu
    >>> from calculators.catalog.models import get_model
    >>> placed = training_placement(get_model("llama-3-8b"), get_gpu("h100-sxm"), method="full")
    >>> placed.verdict.verdict, placed.fewest_fits, placed.searched
    ('does not fit', 2, 'powers of two, data parallel with ZeRO-3')
    """
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    verdict = fit_verdict(training_memory(spec, **settings) if estimate is None else estimate, record)
    tight: int | None = None
    fits: tuple[int, FitVerdict] | None = None
    if search:
        count = 1
        while count <= MAX_GPUS_SEARCHED:
            if count == 1:
                trial = verdict if int(settings.get("gpus", 1)) == 1 else fit_verdict(
                    training_memory(spec, **{**settings, "gpus": 1}), record)
            else:
                trial = fit_verdict(training_memory(spec, **{**settings, "gpus": count, "zero": SEARCH_ZERO}), record)
            if tight is None and trial.verdict in (FITS, TIGHT):
                tight = count
            if trial.verdict == FITS:
                fits = count, trial
                break
            count *= 2
    gpus = int(settings.get("gpus", 1))
    return Placement(gpu_id=record.id, gpu_name=record.name, gpus=gpus, split=training_split(settings),
                     verdict=verdict, fewest_tight=tight, fewest_fits=None if fits is None else fits[0],
                     fewest_fits_verdict=None if fits is None else fits[1],
                     searched=f"powers of two, {TRAINING_SEARCH}" if search else "")
