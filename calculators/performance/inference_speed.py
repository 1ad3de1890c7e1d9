"""Decode and prefill speed of serving a model on GPUs: a roofline with stated efficiencies.

One decode step reads every active weight once and each sequence's KV cache once, and
does ``2 x active parameters`` FLOP per token plus attention over the cache. Its time is
the larger of the memory time and the compute time (a roofline):

``t_step = max(bytes / (bandwidth x bandwidth_efficiency), FLOPs / (rate x compute_efficiency))``

Over ``N`` tensor-parallel GPUs each GPU reads and computes ``1/N`` of the step, then
the GPUs all-reduce their activations twice per layer (Megatron-LM), which adds
``t_comm`` from :mod:`calculators.parallel.tensor` (ring all-reduces over the GPUs'
link, with a per-collective latency; not overlapped). Over PCIe that term grows with
``N`` and with the batch, so tokens/s stops scaling where NVLink keeps scaling.

With both efficiencies at 1 (and the link at its full rate with no latency) this is a
lower bound on the step time (an upper bound on tokens/s); the defaults below make it
an estimate, and the "Inference speed" page compares it with published measurements.

>>> from calculators.catalog.gpus import get_gpu
>>> from calculators.catalog.models import get_model
>>> step = decode_step(get_model("llama-3-8b"), get_gpu("h100-sxm"), batch=1, context=1024)
>>> step.bound
'memory'
>>> round(step.tokens_per_s)  # per sequence = aggregate at batch 1
165

References:
    docs page "Inference speed"; Pope et al. 2022, "Efficiently Scaling Transformer
    Inference" (arXiv:2211.05102), section 2 (memory vs compute time of decoding).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculators.catalog.custom_gpu import memory_bandwidth_bytes_per_s
from calculators.catalog.gpu_input import gpu_record
from calculators.catalog.gpus import GPU
from calculators.catalog.interconnects import Interconnect, get_interconnect
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.dtype_support import serving_notes
from calculators.dtypes import DType
from calculators.errors import InputError
from calculators.fit import footprint_on, split_inference_footprint, verdict_for
from calculators.memory.inference import (
    MAX_CONTEXT,
    inference_memory,
    inference_setup,
    kv_cache_bytes,
)
from calculators.memory.training_inputs import MAX_GPUS
from calculators.model import ModelSpec
from calculators.parallel.step import AUTO
from calculators.parallel.tensor import (
    tensor_parallel_communication,
    tensor_parallel_link,
)
from calculators.performance.flops import compute_rate_flop_per_s
from calculators.performance.forward_pass import (
    decode_flops_per_token,
    prefill_flops,
    weight_bytes_read,
)
from calculators.performance.steps import DecodeStep, Step
from calculators.validate import finite_float, model_spec, nonnegative_int, positive_int

#: Assumed fraction of peak memory bandwidth a decode step achieves.
DEFAULT_BANDWIDTH_EFFICIENCY = 0.8
#: Assumed fraction of the dense tensor rate matrix multiplies achieve (prefill, large batches).
DEFAULT_COMPUTE_EFFICIENCY = 0.6
#: Above this many decode steps :func:`generation` sums sampled steps instead of every step.
_EXACT_STEPS = 512


def _efficiency(field: str, value: Any) -> float:
    return finite_float(field, value, minimum=0.0, maximum=1.0, allow_minimum=False)


@dataclass(frozen=True)
class SpeedSetup:
    """Validated settings shared by the speed functions."""

    weights: DType
    kv_cache: DType
    batch: int
    context: int
    gpus: int
    bandwidth_efficiency: float
    compute_efficiency: float
    interconnect: str = AUTO
    collective_efficiency: float | None = None

    def link(self, gpu: GPU) -> Interconnect:
        """The tensor-parallel link for this GPU (``interconnect``, or the GPU's own when ``"auto"``)."""
        return tensor_parallel_link(gpu, gpus=self.gpus, interconnect=self.interconnect)

    def assumptions(self) -> tuple[str, ...]:
        """The efficiencies and layout, as sentences for a result."""
        return (
            f"bandwidth efficiency {self.bandwidth_efficiency:g} and compute efficiency "
            f"{self.compute_efficiency:g} of the spec-sheet peaks (assumed)",
            f"{self.gpus} GPUs in tensor parallel: bytes and FLOPs split evenly" if self.gpus > 1 else "one GPU",
            f"weights {self.weights.value}, KV cache {self.kv_cache.value}",
        )


def speed_setup(*, weights: str = "bf16", kv_cache: str = "bf16", batch: int = 1, context: int = 4096,
                gpus: int = 1, bandwidth_efficiency: float = DEFAULT_BANDWIDTH_EFFICIENCY,
                compute_efficiency: float = DEFAULT_COMPUTE_EFFICIENCY, interconnect: str = AUTO,
                collective_efficiency: float | None = None) -> SpeedSetup:
    """Check every speed input; raises :class:`~calculators.errors.InputError` naming the field.

    ``interconnect`` is a link id of :mod:`calculators.catalog.interconnects` or ``"auto"``
    (the GPU's own link); ``collective_efficiency`` the fraction of its per-direction
    bandwidth the all-reduces reach (``None``: :func:`calculators.parallel.tensor.link_efficiency`).
    """
    link = str(interconnect).strip().lower()
    if link != AUTO:
        link = get_interconnect(link).id
    blank = collective_efficiency is None or (isinstance(collective_efficiency, str)
                                              and not collective_efficiency.strip())
    # The serving inputs the memory calculator also takes get its checks, so the two never disagree.
    serving = inference_setup(weights=weights, kv_cache=kv_cache, batch=batch, context=context)
    return SpeedSetup(
        weights=serving.weights,
        kv_cache=serving.kv_cache,
        batch=serving.batch,
        context=serving.context,
        gpus=positive_int("gpus", gpus, maximum=MAX_GPUS),
        bandwidth_efficiency=_efficiency("bandwidth_efficiency", bandwidth_efficiency),
        compute_efficiency=_efficiency("compute_efficiency", compute_efficiency),
        interconnect=link,
        collective_efficiency=None if blank else _efficiency("collective_efficiency", collective_efficiency),
    )


def _roofline(spec: ModelSpec, gpu: GPU, setup: SpeedSetup, *, bytes_read: int, flops: float, tokens: int,
              compute_dtype: DType) -> dict[str, Any]:
    n = setup.gpus
    rate = compute_rate_flop_per_s(gpu, compute_dtype)
    memory_peak = bytes_read / (memory_bandwidth_bytes_per_s(gpu) * n)
    compute_peak = None if rate is None else flops / (rate * n)
    memory_time = memory_peak / setup.bandwidth_efficiency
    compute_time = None if compute_peak is None else compute_peak / setup.compute_efficiency
    comm_time = comm_bound = 0.0
    if n > 1:
        comm = tensor_parallel_communication(spec, tokens=tokens, gpus=n, link=setup.link(gpu),
                                             activation_bytes=4 if compute_dtype is DType.FP32 else 2,
                                             efficiency=setup.collective_efficiency)
        comm_time, comm_bound = comm.time_s, comm.bound_time_s
    work = max(memory_time, compute_time or 0.0)
    bound = "compute" if compute_time is not None and compute_time > memory_time else "memory"
    if comm_time > work:
        bound = "communication"
    return {"memory_time_s": memory_time, "compute_time_s": compute_time, "communication_time_s": comm_time,
            "time_s": work + comm_time, "bound_time_s": max(memory_peak, compute_peak or 0.0) + comm_bound,
            "bound": bound}


def _compute_dtype(weights: DType) -> DType:
    # fp8 checkpoints run fp8 matmuls; weight-only int8/int4/nf4 dequantise to 16 bits.
    if weights in (DType.FP32, DType.FP8):
        return weights
    return DType.BF16


def _decode(spec: ModelSpec, gpu: GPU, setup: SpeedSetup, context: int) -> DecodeStep:
    bytes_read = (weight_bytes_read(spec, dtype=setup.weights, tokens=setup.batch)
                  + kv_cache_bytes(spec, batch=setup.batch, context=context, kv_dtype=setup.kv_cache))
    flops = setup.batch * decode_flops_per_token(spec, context=context)
    times = _roofline(spec, gpu, setup, bytes_read=bytes_read, flops=flops, tokens=setup.batch,
                      compute_dtype=_compute_dtype(setup.weights))
    return DecodeStep(bytes_read=bytes_read, flops=flops, tokens=setup.batch, batch=setup.batch, context=context,
                      **times)


def decode_step(spec: ModelSpec, gpu: GPU, **settings: Any) -> DecodeStep:
    """Time of one decode step of ``batch`` sequences with ``context`` tokens cached each.

    Formula: bytes = weights read
    (:func:`~calculators.performance.forward_pass.weight_bytes_read`) +
    ``kv_cache_bytes(batch, context)``; FLOPs = ``batch x``
    :func:`~calculators.performance.forward_pass.decode_flops_per_token`; time = roofline of
    the two (module docstring) divided over ``gpus``, plus the tensor-parallel all-reduces
    of ``batch x hidden`` activations (:mod:`calculators.parallel.tensor`).

    Args:
        spec: model shapes.
        gpu: catalog GPU (memory bandwidth, dense rates).
        **settings: keyword arguments of :func:`speed_setup`.

    Returns:
        A :class:`DecodeStep`; ``tokens_per_s`` is per sequence, ``aggregate_tokens_per_s``
        for the batch.
    """
    spec, gpu = model_spec("spec", spec), gpu_record("gpu", gpu)
    setup = speed_setup(**settings)
    serving_notes(gpu, weights=setup.weights, kv_cache=setup.kv_cache)  # refuses a format the GPU cannot run
    return _decode(spec, gpu, setup, setup.context)


def _prefill(spec: ModelSpec, gpu: GPU, setup: SpeedSetup) -> Step:
    tokens = setup.batch * setup.context
    bytes_read = (weight_bytes_read(spec, dtype=setup.weights, tokens=tokens)
                  + kv_cache_bytes(spec, batch=setup.batch, context=setup.context, kv_dtype=setup.kv_cache))
    flops = setup.batch * prefill_flops(spec, prompt=setup.context)
    times = _roofline(spec, gpu, setup, bytes_read=bytes_read, flops=flops, tokens=tokens,
                      compute_dtype=_compute_dtype(setup.weights))
    return Step(bytes_read=bytes_read, flops=flops, tokens=tokens, **times)


def prefill(spec: ModelSpec, gpu: GPU, **settings: Any) -> Step:
    """Time to prefill ``batch`` prompts of ``context`` tokens: the time to first token.

    Formula: FLOPs = ``batch x`` :func:`~calculators.performance.forward_pass.prefill_flops`;
    bytes = weights + the KV cache written; time = roofline of the two. Prompts are
    compute-bound beyond a few hundred tokens on data-centre GPUs.

    >>> from calculators.catalog.gpus import get_gpu
    >>> from calculators.catalog.models import get_model
    >>> first = prefill(get_model("llama-2-7b"), get_gpu("a100-80gb-sxm"), context=2048)
    >>> first.bound, round(first.time_s * 1000)  # milliseconds
    ('compute', 148)
    """
    spec, gpu = model_spec("spec", spec), gpu_record("gpu", gpu)
    setup = speed_setup(**settings)
    serving_notes(gpu, weights=setup.weights, kv_cache=setup.kv_cache)
    return _prefill(spec, gpu, setup)


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

    @property
    def time_to_first_token_s(self) -> float:
        """Seconds to the first token: the prefill time (estimate)."""
        return self.prefill.time_s

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (seconds, tokens/s, bytes, FLOP)."""
        def step(s: Step) -> dict[str, Any]:
            return {"bytes_read": s.bytes_read, "flops": s.flops, "memory_time_s": s.memory_time_s,
                    "compute_time_s": s.compute_time_s, "communication_time_s": s.communication_time_s,
                    "time_s": s.time_s, "bound_time_s": s.bound_time_s, "bound": s.bound}

        return {
            "model": self.model, "gpu": self.gpu, "gpus": self.gpus, "batch": self.batch,
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
            "assumptions": list(self.assumptions), "notes": list(self.notes),
        }

    def to_text(self) -> str:
        """Plain-text summary for the CLI."""
        first, last = self.first_step, self.last_step
        lines = [] if self.fits else [
            f"WARNING: this job {self.verdict} in memory ({self.memory_total_bytes / 2**30:,.2f} GiB per GPU of "
            f"{self.memory_capacity_bytes / 2**30:,.2f} GiB usable): the times below are for a job that "
            + ("may not run" if self.verdict == "tight" else "cannot run as set up")]
        lines += [
            f"{self.model} on {self.gpus} x {self.gpu}, batch {self.batch}, prompt {self.context} tokens",
            f"decode at {first.context} tokens: {first.tokens_per_s:,.1f} tokens/s per sequence, "
            f"{first.aggregate_tokens_per_s:,.1f} tokens/s aggregate ({first.bound}-bound; "
            f"bound {first.max_aggregate_tokens_per_s:,.1f})",
            f"decode at {last.context} tokens: {last.tokens_per_s:,.1f} tokens/s per sequence",
            f"time to first token (prefill): {self.time_to_first_token_s * 1000:,.1f} ms ({self.prefill.bound}-bound)",
        ]
        if self.new_tokens:
            lines.append(f"{self.new_tokens} new tokens: {self.generation_time_s:,.2f} s, "
                         f"{self.output_tokens_per_s:,.1f} output tokens/s")
        lines.append(f"memory per GPU: {self.memory_total_bytes / 2**30:,.2f} GiB (+ up to "
                     f"{self.memory_uncertainty_bytes / 2**30:,.2f} GiB measured uncertainty) of "
                     f"{self.memory_capacity_bytes / 2**30:,.2f} GiB usable: {self.verdict}")
        return "\n".join(lines + [f"assumes: {a}" for a in self.assumptions] + [f"note: {n}" for n in self.notes])


def _decode_total_s(spec: ModelSpec, gpu: GPU, setup: SpeedSetup, new_tokens: int) -> float:
    """Seconds of the decode steps after the prefill: contexts ``context+1 .. context+new_tokens-1``.

    The prefill yields the first new token, so ``new_tokens - 1`` steps follow. Up to
    :data:`_EXACT_STEPS` steps are summed one by one; beyond, the range is cut into that
    many equal chunks, each timed at its middle context (step time is piecewise linear in
    the context, so the error is negligible).
    """
    steps = new_tokens - 1
    if steps <= 0:
        return 0.0
    start = setup.context + 1
    if steps <= _EXACT_STEPS:
        return sum(_decode(spec, gpu, setup, start + i).time_s for i in range(steps))
    total = 0.0
    for chunk in range(_EXACT_STEPS):
        low = start + steps * chunk // _EXACT_STEPS
        high = start + steps * (chunk + 1) // _EXACT_STEPS
        if high > low:
            total += (high - low) * _decode(spec, gpu, setup, (low + high - 1) // 2).time_s
    return total


def inference_speed(spec: ModelSpec, gpu: GPU, *, new_tokens: int = 256, **settings: Any) -> InferenceSpeed:
    """Decode rate, time to first token and generation throughput of one batch.

    Formula: generation time = prefill(batch, context) + sum of decode steps at contexts
    ``context + 1 .. context + new_tokens - 1``; output tokens/s = ``batch x new_tokens /
    generation time``. All sequences start and finish together (a static batch; see
    :mod:`calculators.performance.batching` for continuous batching).

    Args:
        spec: model shapes.
        gpu: catalog GPU.
        new_tokens: tokens generated per sequence.
        **settings: keyword arguments of :func:`speed_setup`.

    >>> from calculators.catalog.gpus import get_gpu
    >>> from calculators.catalog.models import get_model
    >>> speed = inference_speed(get_model("llama-3-8b"), get_gpu("rtx-4090"), context=1024)
    >>> speed.fits, speed.first_step.bound
    (True, 'memory')
    """
    spec, gpu = model_spec("spec", spec), gpu_record("gpu", gpu)
    setup = speed_setup(**settings)
    new_tokens = nonnegative_int("new_tokens", new_tokens, maximum=MAX_CONTEXT)
    if setup.context + new_tokens > MAX_CONTEXT:
        raise InputError("new_tokens", new_tokens, f"at most {MAX_CONTEXT - setup.context} with this context")
    format_notes = serving_notes(gpu, weights=setup.weights, kv_cache=setup.kv_cache)
    first = _decode(spec, gpu, setup, setup.context)
    last = _decode(spec, gpu, setup, setup.context + new_tokens)
    pre = _prefill(spec, gpu, setup)
    total = pre.time_s + _decode_total_s(spec, gpu, setup, new_tokens)
    memory = inference_memory(spec, weights=setup.weights.value, kv_cache=setup.kv_cache.value, batch=setup.batch,
                              context=setup.context, new_tokens=new_tokens)
    footprint, uncertainty = (split_inference_footprint(memory, setup.gpus) if setup.gpus > 1
                              else footprint_on(memory, gpu))
    verdict = verdict_for(footprint, uncertainty, usable_memory_bytes(gpu))
    notes = list(format_notes)
    if compute_rate_flop_per_s(gpu, _compute_dtype(setup.weights)) is None:
        notes.append(f"{gpu.name} has no published dense rate for this format: compute time unknown, "
                     "so every time is the memory time only (a lower bound)")
    if spec.mla is not None:
        notes.append("multi-head latent attention: attention FLOPs counted as per-head attention over q_dim; "
                     "the cache read is the compressed latent")
    if spec.moe is not None:
        notes.append("mixture of experts: experts read per step assume uniform, independent routing")
    assumptions = setup.assumptions() + (
        "a static batch: every sequence has the same prompt and the same number of new tokens",
        "time to first token = prefill of the whole batch; queueing, sampling and network time not counted",
    )
    if setup.gpus > 1:
        link = setup.link(gpu)
        comm = tensor_parallel_communication(spec, tokens=setup.batch, gpus=setup.gpus, link=link,
                                             efficiency=setup.collective_efficiency)
        assumptions += (comm.assumption(),
                        "memory per GPU: weights, KV cache and activations of one-GPU inference_memory divided by "
                        "the GPU count; each GPU keeps its own context and workspaces")
        if link.kind == "pcie" and gpu.segment == "consumer":
            notes.append("GeForce drivers disable peer-to-peer PCIe transfers; without a patched driver NCCL "
                         "stages all-reduces through host memory, slower than this estimate")
    return InferenceSpeed(
        model=spec.name, gpu=gpu.name, gpus=setup.gpus, batch=setup.batch, context=setup.context,
        new_tokens=new_tokens, first_step=first, last_step=last, prefill=pre, generation_time_s=total,
        output_tokens_per_s=setup.batch * new_tokens / total if new_tokens else 0.0,
        memory_total_bytes=verdict.total_bytes, memory_capacity_bytes=verdict.usable_bytes, fits=verdict.fits,
        verdict=verdict.verdict, memory_uncertainty_bytes=verdict.uncertainty_bytes,
        assumptions=assumptions, notes=tuple(notes))
