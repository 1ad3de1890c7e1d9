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

The margin is ``usable - total_bytes`` (negative when it does not fit). A job on several
GPUs is judged by its per-GPU share (:mod:`calculators.fit.placement`: an inference job
split evenly by tensor or pipeline parallelism, a training step sharded by ZeRO over its
data-parallel GPUs); :class:`~calculators.fit.placement.Placement` gives the verdict on the
reader's count and the fewest GPUs that hold the job. ``max_batch`` and ``max_context`` are
the largest values that *fit* on that count; ``max_batch_tight`` and ``max_context_tight``
the largest that are at most tight. :func:`inference_verdict` and
:func:`training_verdict` give the estimate and verdict of :func:`fit_inference` and
:func:`fit_training` alone, without those searches (a table of many verdicts).

>>> from calculators.catalog.models import get_model
>>> answer = fit_inference(get_model("llama-3-8b"), "rtx-4090", context=8192)
>>> answer.verdict.verdict, answer.gpus_needed
('fits', 1)
>>> fit_training(get_model("llama-3-8b"), "rtx-4090", method="full", seq=2048).verdict.verdict
'does not fit'
>>> two = fit_inference(get_model("llama-3.1-70b"), "rtx-4090", gpus=2, weights="int4", context=8192)
>>> two.verdict.verdict, two.placement.fewest_tight, two.gpus_needed
('tight', 2, 3)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.dtype_support import serving_notes, training_notes
from calculators.fit.advice import FitChange, training_fit_advice
from calculators.fit.placement import (
    INFERENCE_SPLIT,
    TRAINING_SEARCH,
    Placement,
    inference_placement,
    share_footprint,
    share_verdict,
    split_inference_estimate,
    split_inference_footprint,
    training_placement,
)
from calculators.fit.verdict import (
    DOES_NOT_FIT,
    ESTIMATE,
    FITS,
    MAX_BYTES,
    MAX_GPUS_SEARCHED,
    MAX_SEQ_SEARCHED,
    TIGHT,
    VERDICTS,
    FitVerdict,
    fit_verdict,
    footprint_on,
    verdict_for,
)
from calculators.inputs.gpu import resolve_gpu
from calculators.memory.checkpoint_weights import STORED_NOTE_START
from calculators.memory.inference import (
    MAX_BATCH,
    MAX_CONTEXT,
    InferenceRequest,
    inference_memory_of,
    largest_fitting,
    with_stored_weights,
)
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import training_memory_of
from calculators.memory.training_inputs import TrainingSetup
from calculators.memory.weight_formats import weight_format
from calculators.model import ModelSpec
from calculators.validate import GPU_RECORD, instance_of, model_spec

__all__ = [
    "DOES_NOT_FIT", "ESTIMATE", "FITS", "INFERENCE_SPLIT", "MAX_BYTES", "MAX_GPUS_SEARCHED", "MAX_SEQ_SEARCHED",
    "TIGHT", "TRAINING_SEARCH", "VERDICTS", "FitChange", "FitResult", "FitVerdict", "Placement", "fit_inference", "fit_training",
    "fit_verdict", "footprint_on", "inference_placement", "inference_verdict", "share_footprint", "share_verdict",
    "split_inference_estimate", "split_inference_footprint", "training_fit_advice", "training_placement",
    "training_verdict", "verdict_for",
]

@dataclass(frozen=True)
class FitResult:
    """Whether one job fits a GPU model (on the reader's count of it), and the limits there.

    Attributes:
        gpu_id: catalog id of the GPU.
        verdict: the :class:`FitVerdict` of the job's per-GPU share on the reader's count (one GPU unless given).
        estimate: the memory estimate of the whole job (inference) or of one GPU's step (training).
        gpus_needed: smallest GPU count whose per-GPU share *fits* (an even split for
            inference, ZeRO-3 sharding for training); ``None`` when even the search limit fails.
        max_batch: largest batch that fits the reader's GPUs at the given sequence/context length.
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
    placement: Placement | None = None

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
            **({} if self.placement is None else {"gpus": self.placement.gpus, "split": self.placement.split,
                                                  "gpus_needed_tight": self.placement.fewest_tight}),
            "estimate": self.estimate.to_dict(),
            "notes": list(self.notes),
        }


def _limits(gpu: GPU, estimate_of: Callable[[int], MemoryEstimate], upper: int, *, gpus: int = 1) -> tuple[int, int]:
    """Largest value that fits, and largest that is at most tight, for a monotone job family
    (an inference job's share on ``gpus`` GPUs; a training step's estimate is already per GPU).

    The two searches probe many of the same values (all the powers of two below the limits):
    each value's footprint is computed once.
    """
    usable = usable_memory_bytes(gpu)
    footprints: dict[int, tuple[int, int]] = {}

    def at_most(n: int, *, tight_ok: bool) -> bool:
        if n not in footprints:
            footprints[n] = share_footprint(estimate_of(n), gpu, gpus=gpus)
        total, uncertainty = footprints[n]
        return total + (0 if tight_ok else uncertainty) <= usable

    return (largest_fitting(lambda n: at_most(n, tight_ok=False), upper),
            largest_fitting(lambda n: at_most(n, tight_ok=True), upper))


def _inference_job(spec: ModelSpec, record: GPU,
                   settings: dict[str, Any]) -> tuple[MemoryEstimate, tuple[str, ...], InferenceRequest]:
    """The inference job's estimate, how the GPU runs its formats (refuses a format it cannot run) and its
    checked request (for the searches)."""
    spec = model_spec("spec", spec)
    settings = with_stored_weights(spec, settings)  # weights "auto": as the checkpoint stores them
    request = InferenceRequest.of(**settings)
    estimate = inference_memory_of(spec, request)
    form = weight_format(settings["weights"])
    notes = serving_notes(record, weights=form.family, kv_cache=str(settings.get("kv_cache", "bf16")),
                          weights_label=form.id)
    stored = [note for note in estimate.notes if note.startswith(STORED_NOTE_START)]
    return estimate, tuple(stored) + notes, request


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
    estimate, _, _ = _inference_job(spec, record, settings)
    return estimate, fit_verdict(estimate, record)


def fit_inference(spec: ModelSpec, gpu: GPU | str, *, gpus: int = 1, **settings: Any) -> FitResult:
    """Fit of an inference job (settings as :func:`~calculators.memory.inference.inference_memory`) on
    ``gpus`` GPUs of ``gpu``.

    The job shares ``gpus`` GPUs evenly (tensor or pipeline parallel: weights, KV cache and
    activations divided, each GPU keeping its own runtime overhead;
    :func:`~calculators.fit.placement.split_inference_estimate`); ``gpus_needed`` is the fewest
    GPUs whose share fits, the largest batch and context those on ``gpus`` GPUs.
    """
    record = resolve_gpu(gpu)
    estimate, notes, request = _inference_job(spec, record, settings)
    placement = inference_placement(estimate, record, gpus=gpus)
    count = placement.gpus
    # The searches vary the checked request: a batch in 1..MAX_BATCH at the job's context and new tokens, a
    # context in 1..MAX_CONTEXT with no new tokens; each is in the range InferenceRequest.of accepts.
    max_batch, max_batch_tight = _limits(
        record, lambda b: inference_memory_of(spec, replace(request, batch=b)), MAX_BATCH, gpus=count)
    max_context, max_context_tight = _limits(
        record, lambda c: inference_memory_of(spec, replace(request, context=c, new_tokens=0)), MAX_CONTEXT, gpus=count)
    return FitResult(gpu_id=record.id, verdict=placement.verdict, estimate=estimate, gpus_needed=placement.fewest_fits,
                     max_batch=max_batch, max_context=max_context, max_batch_tight=max_batch_tight,
                     max_context_tight=max_context_tight, notes=notes, placement=placement)


def _training_job(spec: ModelSpec, record: GPU,
                  settings: dict[str, Any]) -> tuple[MemoryEstimate, tuple[str, ...], TrainingSetup]:
    """The training step's estimate, how the GPU runs it (refuses what it cannot run) and its checked setup
    (for the searches)."""
    spec = model_spec("spec", spec)
    setup = TrainingSetup.of(**settings)
    estimate = training_memory_of(spec, setup)
    return estimate, training_notes(record, precision=str(settings.get("precision", "bf16-mixed")),
                                    method=str(settings.get("method", "full"))), setup


def training_verdict(spec: ModelSpec, gpu: GPU, **settings: Any) -> tuple[MemoryEstimate, FitVerdict]:
    """The estimate and verdict of :func:`fit_training`, without its searches (GPUs needed, largest batch and sequence).

    For a table of verdicts. Refuses what :func:`fit_training` refuses.

    >>> from calculators.catalog.models import get_model
    >>> from calculators.catalog.gpus import get_gpu
    >>> training_verdict(get_model("llama-3-8b"), get_gpu("rtx-4090"), method="full", seq=2048)[1].verdict
    'does not fit'
    """
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    estimate, _, _ = _training_job(spec, record, settings)
    return estimate, fit_verdict(estimate, record)


def fit_training(spec: ModelSpec, gpu: GPU | str, **settings: Any) -> FitResult:
    """Fit of a training step (settings as :func:`~calculators.memory.training.training_memory`).

    The verdict is the step's on each of its ``gpus`` data-parallel GPUs (sharded by its ``zero``
    stage); ``gpus_needed`` is one when the step fits one GPU, else the smallest power of two whose
    ZeRO-3 shards fit (:func:`~calculators.fit.placement.training_placement`).
    """
    record = resolve_gpu(gpu)
    estimate, notes, setup = _training_job(spec, record, settings)
    placement = training_placement(spec, record, estimate=estimate, **settings)
    verdict = placement.verdict
    needed = placement.fewest_fits
    # The searches vary the checked setup: a batch in 1..MAX_BATCH, a sequence in 1..MAX_SEQ_SEARCHED (both the
    # limits TrainingSetup.of accepts); no other field of the setup follows from them.
    max_batch, max_batch_tight = _limits(
        record, lambda b: training_memory_of(spec, replace(setup, batch=b)), MAX_BATCH)
    max_context, max_context_tight = _limits(
        record, lambda s: training_memory_of(spec, replace(setup, seq=s)), MAX_SEQ_SEARCHED)
    return FitResult(gpu_id=record.id, verdict=verdict, estimate=estimate, gpus_needed=needed, max_batch=max_batch,
                     max_context=max_context, max_batch_tight=max_batch_tight, max_context_tight=max_context_tight,
                     notes=notes, placement=placement)
