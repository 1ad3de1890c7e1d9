"""Result records of the roofline: one forward pass (:class:`Step`, :class:`DecodeStep`) and a whole
generation (:class:`InferenceSpeed`).

Built by :func:`calculators.performance.inference_speed.decode_step`,
:func:`~calculators.performance.inference_speed.prefill` and
:func:`~calculators.performance.inference_speed.inference_speed`; times in seconds, bytes in
bytes, FLOPs in FLOP.

>>> step = DecodeStep(bytes_read=10, flops=1.0, memory_time_s=0.5, compute_time_s=0.1, time_s=0.5,
...                   bound_time_s=0.4, bound="memory", tokens=4, batch=4, context=0)
>>> step.tokens_per_s, step.aggregate_tokens_per_s, step.max_aggregate_tokens_per_s
(2.0, 8.0, 10.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from calculators.catalog.engines import DEFAULT_ENGINE
from calculators.memory.result import MemoryEstimate
from calculators.performance.error_bands import ErrorBand
from calculators.performance.speed_setup import SpeedSetup


@dataclass(frozen=True)
class Step:
    """Time of one forward pass (a decode step or a prefill) under the roofline.

    Attributes:
        bytes_read: bytes moved from GPU memory, all GPUs together.
        flops: FLOP executed, all GPUs together.
        memory_time_s: bytes over (bandwidth x efficiency x GPUs), seconds.
        compute_time_s: FLOPs over (rate x efficiency x GPUs), seconds; ``None`` where the
            GPU's rate is unknown.
        time_s: the larger of the two plus ``communication_time_s`` (estimate).
        bound_time_s: the same at 100 % efficiencies and no collective latency: a lower
            bound on the time.
        bound: ``"memory"``, ``"compute"``, ``"communication"`` or ``"fixed cost"``: the largest term.
        tokens: tokens the pass produces (decode: batch; prefill: prompt tokens of the batch).
        communication_time_s: tensor-parallel all-reduces, added to the larger term
            (0 on one GPU), seconds.
        overhead_time_s: the engine's fixed cost of the pass (layers x its cost per
            layer), added too, seconds.
        error_band: how far published figures of this kind were from the model
            (:mod:`calculators.performance.error_bands`; ``None`` where none was attached).
    """

    bytes_read: int
    flops: float
    memory_time_s: float
    compute_time_s: float | None
    time_s: float
    bound_time_s: float
    bound: str
    tokens: int
    communication_time_s: float = 0.0
    overhead_time_s: float = 0.0
    error_band: ErrorBand | None = None

    @property
    def tokens_per_s(self) -> float:
        """Tokens per second of the pass (decode: per sequence; see :class:`DecodeStep`)."""
        return self.tokens / self.time_s


@dataclass(frozen=True)
class DecodeStep(Step):
    """One decode step of ``batch`` sequences at ``context`` cached tokens."""

    batch: int = 1
    context: int = 0

    @property
    def tokens_per_s(self) -> float:
        """Tokens per second each sequence sees (estimate), 1 / step time."""
        return 1.0 / self.time_s

    @property
    def aggregate_tokens_per_s(self) -> float:
        """Tokens per second of the whole batch (estimate), batch / step time."""
        return self.batch / self.time_s

    @property
    def max_aggregate_tokens_per_s(self) -> float:
        """Upper bound on the batch's tokens per second at 100 % efficiencies."""
        return self.batch / self.bound_time_s


@dataclass(frozen=True)
class InferenceSpeed:
    """Speed of serving a batch: first and last decode step, prefill and whole generation.

    Attributes:
        model: model name. gpu: GPU name. gpus: GPUs in tensor parallel.
        batch, context, new_tokens: the request shape (context = prompt tokens).
        first_step: decode step at ``context`` cached tokens.
        last_step: decode step at ``context + new_tokens`` (the slowest).
        prefill: prefill of the batch's prompts (its time is the time to first token).
        generation_time_s: prefill plus every decode step of ``new_tokens`` (estimate).
        output_tokens_per_s: ``batch x new_tokens / generation_time_s``: what offline
            throughput benchmarks report (0 when ``new_tokens`` is 0).
        memory_total_bytes: ``total_bytes`` of :func:`~calculators.memory.inference.inference_memory`
            for the batch, divided by ``gpus`` (weights and KV split evenly).
        memory_capacity_bytes: what one process can allocate on the GPU.
        fits: True only when the fit verdict is *fits*.
        verdict: the one fit verdict (:func:`calculators.fit.verdict_for`): ``"fits"``,
            ``"tight"`` or ``"does not fit"``.
        memory_uncertainty_bytes: the measured uncertainty above ``memory_total_bytes``.
        generation_band: the measured error band of the generation time and output rate
            (:mod:`calculators.performance.error_bands`); the decode and first-token bands are the
            steps' ``error_band``.
        memory: the whole batch's :func:`~calculators.memory.inference.inference_memory` estimate (one GPU's
            share is :func:`calculators.fit.placement.split_inference_estimate`); not in :meth:`to_dict`.
        setup: the checked settings every number here was computed with: the weights ``"auto"`` resolved against
            the model's checkpoint (:func:`~calculators.memory.inference.with_stored_weights`), the engine's
            efficiencies and fixed costs; a face shows and advises on these, never on settings rebuilt from its
            form values without the model (:attr:`memory_settings`); not in :meth:`to_dict`.
    """

    model: str
    gpu: str
    gpus: int
    batch: int
    context: int
    new_tokens: int
    first_step: DecodeStep
    last_step: DecodeStep
    prefill: Step
    generation_time_s: float
    output_tokens_per_s: float
    memory_total_bytes: int
    memory_capacity_bytes: int
    fits: bool
    assumptions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    verdict: str = "fits"
    memory_uncertainty_bytes: int = 0
    engine: str = DEFAULT_ENGINE
    request_overhead_s: float = 0.0
    generation_band: ErrorBand | None = None
    memory: MemoryEstimate | None = field(default=None, compare=False, repr=False)
    setup: SpeedSetup | None = field(default=None, compare=False, repr=False)

    @property
    def memory_settings(self) -> dict[str, Any]:
        """The :func:`~calculators.memory.inference.inference_memory` keywords of :attr:`memory` (the weights as
        :attr:`setup` resolved them: the checkpoint's own format for ``"auto"``), for the fit advice; empty
        without a :attr:`setup`."""
        if self.setup is None:
            return {}
        return {"weights": self.setup.format, "kv_cache": self.setup.kv_cache.value, "batch": self.batch,
                "context": self.context, "new_tokens": self.new_tokens}

    @property
    def time_to_first_token_s(self) -> float:
        """Seconds to the first token: the engine's fixed cost per request plus the prefill (estimate)."""
        return self.request_overhead_s + self.prefill.time_s

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (seconds, tokens/s, bytes, FLOP)."""
        def step(s: Step) -> dict[str, Any]:
            return {"bytes_read": s.bytes_read, "flops": s.flops, "memory_time_s": s.memory_time_s,
                    "compute_time_s": s.compute_time_s, "communication_time_s": s.communication_time_s,
                    "overhead_time_s": s.overhead_time_s, "time_s": s.time_s, "bound_time_s": s.bound_time_s,
                    "bound": s.bound, "error_band": None if s.error_band is None else s.error_band.to_dict()}

        return {
            "model": self.model, "gpu": self.gpu, "engine": self.engine, "gpus": self.gpus, "batch": self.batch,
            "context": self.context, "new_tokens": self.new_tokens,
            "decode_tokens_per_s_per_sequence": self.first_step.tokens_per_s,
            "decode_tokens_per_s": self.first_step.aggregate_tokens_per_s,
            "decode_tokens_per_s_bound": self.first_step.max_aggregate_tokens_per_s,
            "last_step_tokens_per_s_per_sequence": self.last_step.tokens_per_s,
            "time_to_first_token_s": self.time_to_first_token_s,
            "generation_time_s": self.generation_time_s, "output_tokens_per_s": self.output_tokens_per_s,
            "first_step": step(self.first_step), "last_step": step(self.last_step), "prefill": step(self.prefill),
            "memory_total_bytes": self.memory_total_bytes, "memory_capacity_bytes": self.memory_capacity_bytes,
            "fits": self.fits, "verdict": self.verdict, "memory_uncertainty_bytes": self.memory_uncertainty_bytes,
            "generation_band": None if self.generation_band is None else self.generation_band.to_dict(),
            "assumptions": list(self.assumptions), "notes": list(self.notes),
        }
