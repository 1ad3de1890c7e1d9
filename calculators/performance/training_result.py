"""The answer of a training-time estimate: :class:`TrainingTime`, its derived rates and its JSON form.

:func:`calculators.performance.training_time.training_time` builds it (the formulas are there); this
module holds the record alone, so the engine stays one subject. Seconds, hours and days are the units
of its properties; every figure is an estimate, ``bound_time_s`` a lower bound.

>>> from calculators.catalog.gpus import get_gpu
>>> from calculators.catalog.models import get_model
>>> from calculators.performance.training_time import training_time
>>> run = training_time(get_model("llama-2-7b"), get_gpu("a100-80gb-sxm"), tokens=10**9, goodput=1)
>>> isinstance(run, TrainingTime), run.gpu_hours == run.time_s / SECONDS_PER_HOUR
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from calculators.catalog.sources import Source
from calculators.fit import FitChange, FitVerdict, Placement
from calculators.memory.result import MemoryEstimate
from calculators.performance.error_bands import ErrorBand
from calculators.performance.expert_parallel import ExpertParallelCommunication
from calculators.performance.goodput import Goodput
from calculators.performance.model_parallel import ModelParallelStep
from calculators.performance.scaling import DataParallelOverhead
from calculators.units import SECONDS_PER_DAY, SECONDS_PER_HOUR


@dataclass(frozen=True)
class TrainingTime:
    """Time and GPU-hours of training on a number of tokens.

    Attributes:
        model_flops_per_token: FLOP per token of forward + backward (no recomputation).
        executed_flops_per_token: FLOP per token the GPUs run (4/3 more with recomputation).
        total_model_flops: model FLOPs of the whole run.
        utilisation: fraction of the dense rate the executed FLOPs run at on one GPU (assumed input).
        mfu: model FLOPs utilisation of the whole run: ``utilisation x model / executed
            FLOPs x scaling efficiency``.
        scaling: the data-parallel communication per optimizer step and the scaling efficiency.
        time_s: wall-clock seconds (estimate). bound_time_s: at 100 % utilisation and no
            communication (a bound).
        tokens_per_s: tokens per second of the whole cluster (estimate).
        gpu_hours: ``gpus x time`` in hours (estimate).
        goodput: steady-state time / whole-run time: the modelled goodput times the fitted whole-run residual,
            or the one given; goodput_model: the modelled part (interruptions, checkpoint saves;
            :mod:`calculators.performance.goodput`), ``None`` where the goodput was given.
        memory: the per-GPU verdict of the step (``None``: not checked).
        memory_changes: the single changes that make the step fit (:func:`calculators.fit.advice.training_fit_advice`;
            empty where it fits, is not checked, or was not searched: ``training_run_time(..., advise=False)``);
            :attr:`memory_advice` is their labels.
        memory_settings: the :func:`~calculators.memory.training.training_memory` settings whose per-GPU verdict
            is ``memory`` (empty: not checked), for :func:`calculators.fit.placement.training_placement`; not in
            :meth:`to_dict`.
        memory_estimate: the step's :func:`~calculators.memory.training.training_memory` for ``memory_settings``
            (``None``: not checked), so a face places and advises on it without computing it again; not in
            :meth:`to_dict`.
        memory_placement: the step's :func:`~calculators.fit.placement.training_placement` (the fewest GPUs that
            hold it), where the changes were searched (it does not fit); ``None`` otherwise; not in :meth:`to_dict`.
    """

    model: str
    gpu: str
    gpus: int
    tokens: int
    seq: int
    precision: str
    grad_checkpointing: bool
    method: str
    adapter_parameters: int
    rate_flop_per_s: float
    model_flops_per_token: float
    executed_flops_per_token: float
    utilisation: float
    mfu: float
    time_s: float
    bound_time_s: float
    mfu_source: Source
    scaling: DataParallelOverhead
    assumptions: tuple[str, ...] = ()
    memory: FitVerdict | None = None
    memory_changes: tuple[FitChange, ...] = ()
    tensor_parallel: int = 1
    pipeline_parallel: int = 1
    fp8: bool = False
    goodput: float = 1.0
    model_parallel: ModelParallelStep | None = None
    grad_accumulation: int = 1
    global_batch_tokens: int = 0
    expert_parallel: ExpertParallelCommunication | None = None
    error_band: ErrorBand | None = None
    goodput_model: Goodput | None = None
    memory_settings: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    memory_estimate: MemoryEstimate | None = field(default=None, compare=False, repr=False)
    memory_placement: Placement | None = field(default=None, compare=False, repr=False)

    @property
    def memory_advice(self) -> tuple[str, ...]:
        """The changes that make the step fit, in words (empty where it fits or is not checked)."""
        return tuple(change.label for change in self.memory_changes)

    @property
    def fits(self) -> bool:
        """True when the job's memory *fits* each GPU (the one verdict of :func:`calculators.fit.fit_verdict`)."""
        return self.memory is None or self.memory.fits

    @property
    def scaling_efficiency(self) -> float:
        """Compute / (compute + exposed data-parallel communication), 1 on one GPU (estimate)."""
        return self.scaling.scaling_efficiency

    @property
    def steady_time_s(self) -> float:
        """Wall-clock seconds at steady state (no restarts or evaluation): ``time_s x goodput``."""
        return self.time_s * self.goodput

    @property
    def total_model_flops(self) -> float:
        """Model FLOPs of the whole run (FLOP)."""
        return self.tokens * self.model_flops_per_token

    @property
    def tokens_per_s(self) -> float:
        """Cluster throughput at steady state, tokens per second (estimate)."""
        return self.tokens / self.steady_time_s

    @property
    def tokens_per_s_per_gpu(self) -> float:
        """Throughput per GPU, tokens per second (estimate)."""
        return self.tokens_per_s / self.gpus

    @property
    def gpu_hours(self) -> float:
        """GPU-hours of the run (estimate)."""
        return self.gpus * self.time_s / SECONDS_PER_HOUR

    @property
    def days(self) -> float:
        """Wall-clock days of the run (estimate)."""
        return self.time_s / SECONDS_PER_DAY

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (FLOP, seconds, hours, days)."""
        return {
            "model": self.model, "gpu": self.gpu, "gpus": self.gpus, "tokens": self.tokens, "seq": self.seq,
            "precision": self.precision, "grad_checkpointing": self.grad_checkpointing, "method": self.method,
            "adapter_parameters": self.adapter_parameters, "scaling_efficiency": self.scaling_efficiency,
            "data_parallel": self.scaling.to_dict(), "tensor_parallel": self.tensor_parallel,
            "pipeline_parallel": self.pipeline_parallel, "fp8": self.fp8, "goodput": self.goodput,
            "grad_accumulation": self.grad_accumulation, "global_batch_tokens": self.global_batch_tokens,
            "steady_state_time_s": self.steady_time_s,
            "model_parallel": None if self.model_parallel is None else self.model_parallel.to_dict(),
            "expert_parallel": None if self.expert_parallel is None else self.expert_parallel.to_dict(),
            "error_band": None if self.error_band is None else self.error_band.to_dict(),
            "goodput_model": None if self.goodput_model is None else self.goodput_model.to_dict(),
            "rate_flop_per_s": self.rate_flop_per_s, "model_flops_per_token": self.model_flops_per_token,
            "executed_flops_per_token": self.executed_flops_per_token, "total_model_flops": self.total_model_flops,
            "utilisation": self.utilisation, "mfu": self.mfu, "time_s": self.time_s,
            "bound_time_s": self.bound_time_s, "tokens_per_s": self.tokens_per_s,
            "tokens_per_s_per_gpu": self.tokens_per_s_per_gpu, "gpu_hours": self.gpu_hours,
            "wall_clock_days": self.days,
            "mfu_source": {"title": self.mfu_source.title, "url": self.mfu_source.url,
                           "as_of": self.mfu_source.as_of, "kind": self.mfu_source.kind},
            "memory": None if self.memory is None else self.memory.to_dict(),
            "memory_advice": list(self.memory_advice),
            "assumptions": list(self.assumptions),
        }


__all__ = ["SECONDS_PER_DAY", "SECONDS_PER_HOUR", "TrainingTime"]
