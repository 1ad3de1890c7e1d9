"""Will it fit? One verdict per job and GPU, the GPUs needed, the largest batch or context.

Every fit answer in the guide (CLI ``fit``, the fit widget, ``recommend``, the speed and
training-time answers) comes from :func:`fit_verdict`, which compares a job's footprint
with the memory a process can really allocate on the GPU
(:func:`calculators.catalog.usable_memory.usable_memory_bytes`, not the marketed size):

* **fits**: ``total_upper_bytes`` (the fit line: allocated peak, CUDA context and the fit
  margin of :func:`calculators.memory.overhead.fit_margin_bytes`, set on the largest batches
  that ran on a real GPU) fits the usable memory;
* **tight**: ``total_bytes`` fits but the upper figure does not: it ran on some measured
  setups and not others; treat it as a risk;
* **does not fit**: ``total_bytes`` is above the usable memory.

The margin is ``usable - total_bytes`` (negative when it does not fit). ``max_batch`` and
``max_context`` are the largest values that *fit*; ``max_batch_tight`` and
``max_context_tight`` the largest that are at most tight. :func:`inference_verdict` and
:func:`training_verdict` give the estimate and verdict of :func:`fit_inference` and
:func:`fit_training` alone, without those searches (a table of many verdicts).

>>> from calculators.catalog.models import get_model
>>> answer = fit_inference(get_model("llama-3-8b"), "rtx-4090", context=8192)
>>> answer.verdict.verdict, answer.gpus_needed
('fits', 1)
>>> fit_training(get_model("llama-3-8b"), "rtx-4090", method="full", seq=2048).verdict.verdict
'does not fit'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.dtype_support import serving_notes, training_notes
from calculators.inputs.gpu import resolve_gpu
from calculators.memory.checkpoint_weights import STORED_NOTE_START
from calculators.memory.inference import MAX_BATCH, MAX_CONTEXT, inference_memory, largest_fitting, with_stored_weights
from calculators.memory.weight_formats import weight_format
from calculators.memory.overhead import allocator_reserve_bytes, uncertainty_above_total
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import training_memory
from calculators.model import ModelSpec
from calculators.units import GIB
from calculators.validate import GPU_RECORD, instance_of, nonnegative_int, positive_int

MAX_BYTES = 1 << 60  # far beyond any job or device
ESTIMATE = "a MemoryEstimate (training_memory, inference_memory or vision_training_memory)"
MAX_GPUS_SEARCHED = 1024
MAX_SEQ_SEARCHED = 1 << 22

FITS = "fits"
TIGHT = "tight"
DOES_NOT_FIT = "does not fit"
VERDICTS = (FITS, TIGHT, DOES_NOT_FIT)


@dataclass(frozen=True)
class FitVerdict:
    """Whether a footprint fits a GPU's usable memory, and by how much.

    Attributes:
        verdict: ``"fits"``, ``"tight"`` or ``"does not fit"``.
        total_bytes: the job's footprint on one GPU (central estimate).
        uncertainty_bytes: how much more the footprint reached on measured runs, at most.
        usable_bytes: what one process can allocate on the GPU.
    """

    verdict: str
    total_bytes: int
    uncertainty_bytes: int
    usable_bytes: int

    @property
    def margin_bytes(self) -> int:
        """Usable memory minus ``total_bytes``: negative when the job does not fit."""
        return self.usable_bytes - self.total_bytes

    @property
    def fits(self) -> bool:
        """True only for a *fits* verdict (a tight job is not promised)."""
        return self.verdict == FITS

    def summary(self) -> str:
        """One sentence: the verdict and the margin in GiB.

        >>> FitVerdict("tight", 70 * GIB, 3 * GIB, 71 * GIB).summary()
        'tight: 1.0 GiB to spare of 71.0 GiB usable, inside the 3.0 GiB measured uncertainty'
        """
        usable = f"{self.usable_bytes / GIB:,.1f} GiB usable"
        margin = abs(self.margin_bytes) / GIB
        if self.verdict == FITS:
            return f"fits: {margin:,.1f} GiB to spare of {usable}"
        if self.verdict == TIGHT:
            return (f"tight: {margin:,.1f} GiB to spare of {usable}, inside the "
                    f"{self.uncertainty_bytes / GIB:,.1f} GiB measured uncertainty")
        return f"does not fit: {margin:,.1f} GiB over the {usable}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"verdict": self.verdict, "margin_bytes": self.margin_bytes, "total_bytes": self.total_bytes,
                "uncertainty_bytes": self.uncertainty_bytes, "usable_bytes": self.usable_bytes}


def footprint_on(estimate: MemoryEstimate, gpu: GPU) -> tuple[int, int]:
    """``(total, uncertainty)`` of an estimate on ``gpu``.

    A Mac has no CUDA context and no cuBLAS workspaces: both leave the total there.
    """
    estimate = instance_of("estimate", estimate, MemoryEstimate, ESTIMATE)
    gpu = instance_of("gpu", gpu, GPU, GPU_RECORD)
    total = estimate.total_bytes
    if gpu.vendor == "Apple":
        total -= estimate.overhead.get("cuda_context", 0) + estimate.breakdown.get("cuda_workspaces", 0)
    return total, estimate.uncertainty_bytes


def verdict_for(total_bytes: int, uncertainty_bytes: int, usable_bytes: int) -> FitVerdict:
    """The verdict for a footprint against usable memory (see the module docstring).

    >>> verdict_for(10 * GIB, 2 * GIB, 11 * GIB).verdict
    'tight'
    """
    total_bytes = nonnegative_int("total_bytes", total_bytes, maximum=MAX_BYTES)
    uncertainty_bytes = nonnegative_int("uncertainty_bytes", uncertainty_bytes, maximum=MAX_BYTES)
    usable_bytes = positive_int("usable_bytes", usable_bytes, maximum=MAX_BYTES)
    if total_bytes + uncertainty_bytes <= usable_bytes:
        verdict = FITS
    elif total_bytes <= usable_bytes:
        verdict = TIGHT
    else:
        verdict = DOES_NOT_FIT
    return FitVerdict(verdict=verdict, total_bytes=total_bytes, uncertainty_bytes=uncertainty_bytes,
                      usable_bytes=usable_bytes)


def fit_verdict(estimate: MemoryEstimate, gpu: GPU) -> FitVerdict:
    """The one verdict of an estimate on a GPU (a record: :func:`calculators.inputs.gpu.resolve_gpu` reads an id)."""
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    total, uncertainty = footprint_on(estimate, record)
    return verdict_for(total, uncertainty, usable_memory_bytes(record))


@dataclass(frozen=True)
class FitResult:
    """Whether one job fits one GPU model, and the limits on that GPU.

    Attributes:
        gpu_id: catalog id of the GPU.
        verdict: the :class:`FitVerdict` of the job on one GPU.
        estimate: the memory estimate on one GPU.
        gpus_needed: smallest GPU count whose per-GPU share *fits* (tensor parallel for
            inference, ZeRO-3 sharding for training); ``None`` when even the search limit fails.
        max_batch: largest batch that fits one GPU at the given sequence/context length.
        max_context: largest prompt (inference) or sequence (training) that fits at the batch.
        max_batch_tight: largest batch that is at most tight.
        max_context_tight: largest prompt or sequence that is at most tight.
        notes: how the GPU runs the job's number formats (a weight-only format dequantised,
            an fp8 KV cache stored only; on a Mac, MPS's training limits).
    """

    gpu_id: str
    verdict: FitVerdict
    estimate: MemoryEstimate
    gpus_needed: int | None
    max_batch: int
    max_context: int
    max_batch_tight: int
    max_context_tight: int
    notes: tuple[str, ...] = ()

    @property
    def fits(self) -> bool:
        """True only when the verdict is *fits*."""
        return self.verdict.fits

    @property
    def headroom_bytes(self) -> int:
        """Usable memory minus ``total_bytes`` (negative when it does not fit)."""
        return self.verdict.margin_bytes

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "gpu": self.gpu_id,
            "verdict": self.verdict.verdict,
            "fits": self.fits,
            "margin_bytes": self.verdict.margin_bytes,
            "usable_bytes": self.verdict.usable_bytes,
            "headroom_bytes": self.headroom_bytes,
            "gpus_needed": self.gpus_needed,
            "max_batch": self.max_batch,
            "max_batch_tight": self.max_batch_tight,
            "max_context": self.max_context,
            "max_context_tight": self.max_context_tight,
            "estimate": self.estimate.to_dict(),
            "notes": list(self.notes),
        }


def _limits(gpu: GPU, estimate_of: Callable[[int], MemoryEstimate], upper: int) -> tuple[int, int]:
    """Largest value that fits, and largest that is at most tight, for a monotone job family.

    The two searches probe many of the same values (all the powers of two below the limits):
    each value's footprint is computed once.
    """
    usable = usable_memory_bytes(gpu)
    footprints: dict[int, tuple[int, int]] = {}

    def at_most(n: int, *, tight_ok: bool) -> bool:
        if n not in footprints:
            footprints[n] = footprint_on(estimate_of(n), gpu)
        total, uncertainty = footprints[n]
        return total + (0 if tight_ok else uncertainty) <= usable

    return (largest_fitting(lambda n: at_most(n, tight_ok=False), upper),
            largest_fitting(lambda n: at_most(n, tight_ok=True), upper))


def split_inference_footprint(estimate: MemoryEstimate, count: int) -> tuple[int, int]:
    """Per-GPU ``(total, uncertainty)`` of an inference job split evenly over ``count`` GPUs.

    Weights, KV cache and activations divide (tensor parallel); each GPU keeps its own
    cuBLAS workspaces and CUDA context, and its allocator reserve and uncertainty follow its
    share of the largest transient block (:mod:`calculators.memory.overhead`).
    """
    estimate = instance_of("estimate", estimate, MemoryEstimate, ESTIMATE)
    count = positive_int("count", count, maximum=MAX_GPUS_SEARCHED)
    workspaces = estimate.breakdown.get("cuda_workspaces", 0)
    context = estimate.overhead.get("cuda_context", 0)
    share = -(-estimate.transient_block_bytes // count)
    reserve = 0
    if estimate.overhead.get("allocator_reserve", 0):  # zero with expandable segments
        reserve = allocator_reserve_bytes(transient_block_bytes=share, recompute=False, prefill=True)
    allocated = -(-(estimate.peak_allocated_bytes - workspaces) // count) + workspaces
    overhead = {"cuda_context": context, "allocator_reserve": reserve} if estimate.overhead else {}
    return allocated + context + reserve, uncertainty_above_total(overhead, transient_block_bytes=share, prefill=True)


def _inference_job(spec: ModelSpec, record: GPU, settings: dict[str, Any]) -> tuple[MemoryEstimate, tuple[str, ...]]:
    """The inference job's estimate and how the GPU runs its formats (refuses a format it cannot run)."""
    settings = with_stored_weights(spec, settings)  # weights "auto": as the checkpoint stores them
    estimate = inference_memory(spec, **settings)
    form = weight_format(settings["weights"])
    notes = serving_notes(record, weights=form.family, kv_cache=str(settings.get("kv_cache", "bf16")),
                          weights_label=form.id)
    stored = [note for note in estimate.notes if note.startswith(STORED_NOTE_START)]
    return estimate, tuple(stored) + notes


def inference_verdict(spec: ModelSpec, gpu: GPU, **settings: Any) -> tuple[MemoryEstimate, FitVerdict]:
    """The estimate and verdict of :func:`fit_inference`, without its searches (GPUs needed, largest batch and context).

    For a table of verdicts: each search costs dozens of estimates. Refuses what
    :func:`fit_inference` refuses (a format the GPU cannot run).

    >>> from calculators.catalog.models import get_model
    >>> from calculators.catalog.gpus import get_gpu
    >>> inference_verdict(get_model("llama-3-8b"), get_gpu("rtx-4090"), context=8192)[1].verdict
    'fits'
    """
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    estimate, _ = _inference_job(spec, record, settings)
    return estimate, fit_verdict(estimate, record)


def fit_inference(spec: ModelSpec, gpu: GPU | str, **settings: Any) -> FitResult:
    """Fit of an inference job (settings as :func:`~calculators.memory.inference.inference_memory`).

    ``gpus_needed`` assumes tensor parallelism that splits weights, KV cache and
    activations evenly, with each GPU keeping its own runtime overhead.
    """
    record = resolve_gpu(gpu)
    estimate, notes = _inference_job(spec, record, settings)
    usable = usable_memory_bytes(record)
    needed: int | None = None
    for count in range(1, MAX_GPUS_SEARCHED + 1):
        total, uncertainty = split_inference_footprint(estimate, count) if count > 1 else footprint_on(estimate, record)
        if total + uncertainty <= usable:
            needed = count
            break
    keep = {k: v for k, v in settings.items() if k not in ("batch", "context")}
    context = settings.get("context", 4096)
    batch = settings.get("batch", 1)
    max_batch, max_batch_tight = _limits(
        record, lambda b: inference_memory(spec, **keep, batch=b, context=context), MAX_BATCH)
    no_new = {k: v for k, v in keep.items() if k != "new_tokens"}
    max_context, max_context_tight = _limits(
        record, lambda c: inference_memory(spec, **no_new, batch=batch, context=c), MAX_CONTEXT)
    return FitResult(gpu_id=record.id, verdict=fit_verdict(estimate, record), estimate=estimate, gpus_needed=needed,
                     max_batch=max_batch, max_context=max_context, max_batch_tight=max_batch_tight,
                     max_context_tight=max_context_tight, notes=notes)


def _training_job(spec: ModelSpec, record: GPU, settings: dict[str, Any]) -> tuple[MemoryEstimate, tuple[str, ...]]:
    """The training step's estimate and how the GPU runs it (refuses what it cannot run)."""
    estimate = training_memory(spec, **settings)
    return estimate, training_notes(record, precision=str(settings.get("precision", "bf16-mixed")),
                                    method=str(settings.get("method", "full")))


def training_verdict(spec: ModelSpec, gpu: GPU, **settings: Any) -> tuple[MemoryEstimate, FitVerdict]:
    """The estimate and verdict of :func:`fit_training`, without its searches (GPUs needed, largest batch and sequence).

    For a table of verdicts. Refuses what :func:`fit_training` refuses.

    >>> from calculators.catalog.models import get_model
    >>> from calculators.catalog.gpus import get_gpu
    >>> training_verdict(get_model("llama-3-8b"), get_gpu("rtx-4090"), method="full", seq=2048)[1].verdict
    'does not fit'
    """
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    estimate, _ = _training_job(spec, record, settings)
    return estimate, fit_verdict(estimate, record)


def fit_training(spec: ModelSpec, gpu: GPU | str, **settings: Any) -> FitResult:
    """Fit of a training step (settings as :func:`~calculators.memory.training.training_memory`).

    ``gpus_needed`` is the smallest data-parallel group whose ZeRO-3 shards fit when the
    job does not fit one GPU with the settings given.
    """
    record = resolve_gpu(gpu)
    estimate, notes = _training_job(spec, record, settings)
    verdict = fit_verdict(estimate, record)
    needed: int | None = 1 if verdict.fits else None
    if not verdict.fits:
        sharded = {**settings, "zero": 3}
        count = 2
        while count <= MAX_GPUS_SEARCHED:
            if fit_verdict(training_memory(spec, **{**sharded, "gpus": count}), record).fits:
                needed = count
                break
            count *= 2
    base = {k: v for k, v in settings.items() if k not in ("batch", "seq")}
    batch = settings.get("batch", 1)
    seq = settings.get("seq", 2048)
    max_batch, max_batch_tight = _limits(record, lambda b: training_memory(spec, **base, batch=b, seq=seq), MAX_BATCH)
    max_context, max_context_tight = _limits(
        record, lambda s: training_memory(spec, **base, batch=batch, seq=s), MAX_SEQ_SEARCHED)
    return FitResult(gpu_id=record.id, verdict=verdict, estimate=estimate, gpus_needed=needed, max_batch=max_batch,
                     max_context=max_context, max_batch_tight=max_batch_tight, max_context_tight=max_context_tight,
                     notes=notes)


def training_fit_advice(spec: ModelSpec, gpu: GPU, **settings: Any) -> tuple[str, ...]:
    """Single changes that make a training job *fit* one GPU of ``gpu``, cheapest first.

    Tried one at a time, each against :func:`fit_verdict`: gradient checkpointing, a
    micro-batch of 1 with gradient accumulation, ZeRO-3 over the GPUs already in the job,
    LoRA, QLoRA, and the fewest GPUs (a power of two) that hold the job with ZeRO-3 and
    checkpointing.

    >>> from calculators.catalog.models import get_model
    >>> from calculators.catalog.gpus import get_gpu
    >>> training_fit_advice(get_model("llama-3-8b"), get_gpu("h100-sxm"), method="full", batch=4)
    ('QLoRA (4-bit NF4 base)', '4 GPUs with ZeRO-3 and gradient checkpointing')
    """
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    batch = int(settings.get("batch", 1))
    accumulation = int(settings.get("grad_accumulation", 1))
    gpus = int(settings.get("gpus", 1))
    changes: list[tuple[str, dict[str, Any]]] = []
    if not settings.get("grad_checkpointing"):
        changes.append(("gradient checkpointing", {"grad_checkpointing": True}))
    if batch > 1:
        changes.append((f"micro-batch 1 with gradient accumulation {batch * accumulation}",
                        {"batch": 1, "grad_accumulation": batch * accumulation}))
    if gpus > 1 and int(settings.get("zero", 0)) < 3:
        changes.append((f"ZeRO-3 over the {gpus} GPUs", {"zero": 3}))
    if settings.get("method", "full") == "full":
        changes.append(("LoRA instead of full fine-tuning", {"method": "lora", "base_dtype": None}))
    if settings.get("method", "full") != "qlora":
        changes.append(("QLoRA (4-bit NF4 base)", {"method": "qlora", "base_dtype": None}))
    advice = [label for label, change in changes
              if fit_verdict(training_memory(spec, **{**settings, **change}), record).fits]
    # More GPUs shard only the model states; activations stay per GPU, so checkpoint them too.
    suffix = "" if settings.get("grad_checkpointing") else " and gradient checkpointing"
    count = max(2, gpus * 2)
    while count <= MAX_GPUS_SEARCHED:
        sharded = {**settings, "gpus": count, "zero": 3, "grad_checkpointing": True}
        if fit_verdict(training_memory(spec, **sharded), record).fits:
            advice.append(f"{count} GPUs with ZeRO-3{suffix}")
            break
        count *= 2
    return tuple(advice)
