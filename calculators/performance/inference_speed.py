"""Decode and prefill speed of serving a model on GPUs: a roofline with stated efficiencies.

One decode step reads every active weight once and each sequence's KV cache once, and
does ``2 x active parameters`` FLOP per token plus attention over the cache. Its time is
the larger of the memory time and the compute time (a roofline):

``t_step = max(bytes / (bandwidth x bandwidth_efficiency), FLOPs / (rate x compute_efficiency))
+ layers x step_overhead``

The efficiencies and the fixed costs come from the engine (:mod:`calculators.catalog.engines`:
``engine="vllm"``, ``"llama.cpp"``, ...; the default ``"generic"`` is 0.8 of bandwidth,
0.6 of the tensor rate and no fixed cost, the package's earlier assumption); explicit
``bandwidth_efficiency`` / ``compute_efficiency`` override the engine's. Routed-expert
bytes stream at the engine's ``moe_expert_efficiency`` of the dense rate, and the time to
first token adds the engine's fixed cost per request.

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

from calculators.catalog.engines import DEFAULT_ENGINE, Engine, get_engine
from calculators.catalog.gpus import GPU
from calculators.catalog.interconnects import Interconnect, get_interconnect
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.dtypes import DType
from calculators.memory.weight_formats import WeightFormat, weight_format
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
    expert_bytes_read,
    prefill_flops,
    weight_bytes_read,
)
from calculators.performance.steps import DecodeStep, Step
from calculators.validate import (
    finite_float,
    gpu_record,
    model_spec,
    nonnegative_int,
    positive_int,
)

#: Assumed fraction of peak memory bandwidth a decode step achieves.
DEFAULT_BANDWIDTH_EFFICIENCY = 0.8
#: Assumed fraction of the dense tensor rate matrix multiplies achieve (prefill, large batches).
DEFAULT_COMPUTE_EFFICIENCY = 0.6
#: Above this many decode steps :func:`generation` sums sampled steps instead of every step.
_EXACT_STEPS = 512


def _efficiency(field: str, value: Any) -> float:
    return finite_float(field, value, minimum=0.0, maximum=1.0, allow_minimum=False)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


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
    engine: str = DEFAULT_ENGINE
    weight_format: str = ""
    moe_expert_efficiency: float = 1.0
    step_overhead_s_per_layer: float = 0.0
    request_overhead_s: float = 0.0

    @property
    def format(self) -> WeightFormat:
        """The weights' format (bits per weight); ``weights`` is its DType family."""
        return weight_format(self.weight_format or self.weights)

    def link(self, gpu: GPU) -> Interconnect:
        """The tensor-parallel link for this GPU (``interconnect``, or the GPU's own when ``"auto"``)."""
        return tensor_parallel_link(gpu, gpus=self.gpus, interconnect=self.interconnect)

    def assumptions(self) -> tuple[str, ...]:
        """The efficiencies and layout, as sentences for a result."""
        kind = "assumed" if self.engine == DEFAULT_ENGINE else "fitted on published runs"
        lines = (
            f"engine {self.engine}: bandwidth efficiency {self.bandwidth_efficiency:.3g} and compute efficiency "
            f"{self.compute_efficiency:.3g} of the spec-sheet peaks ({kind})",
            f"{self.gpus} GPUs in tensor parallel: bytes and FLOPs split evenly" if self.gpus > 1 else "one GPU",
            f"weights {self.format.id} ({self.format.bits_per_weight:.4g} bits per weight), KV cache "
            f"{self.kv_cache.value}",
        )
        if self.step_overhead_s_per_layer or self.request_overhead_s:
            lines += (f"fixed costs: {self.step_overhead_s_per_layer * 1e6:,.1f} us per layer per forward pass, "
                      f"{self.request_overhead_s * 1e3:,.2f} ms per request ({kind})",)
        return lines


def speed_setup(*, weights: str = "bf16", kv_cache: str = "bf16", batch: int = 1, context: int = 4096,
                gpus: int = 1, engine: str | Engine = DEFAULT_ENGINE, bandwidth_efficiency: float | None = None,
                compute_efficiency: float | None = None, interconnect: str = AUTO,
                collective_efficiency: float | None = None) -> SpeedSetup:
    """Check every speed input; raises :class:`~calculators.errors.InputError` naming the field.

    ``engine`` is an id of :mod:`calculators.catalog.engines` (``"generic"``, ``"vllm"``,
    ``"sglang"``, ``"tensorrt-llm"``, ``"llama.cpp"``, ``"transformers"``): it gives the
    efficiencies and fixed costs; ``bandwidth_efficiency`` and ``compute_efficiency``
    (0 to 1, ``None`` or blank: the engine's) override its two efficiencies.
    ``interconnect`` is a link id of :mod:`calculators.catalog.interconnects` or ``"auto"``
    (the GPU's own link); ``collective_efficiency`` the fraction of its per-direction
    bandwidth the all-reduces reach (``None``: :func:`calculators.parallel.tensor.link_efficiency`).

    >>> setup = speed_setup(engine="generic", weights="q4_k_m")
    >>> setup.bandwidth_efficiency, setup.compute_efficiency, setup.weights.value
    (0.8, 0.6, 'int4')
    """
    link = str(interconnect).strip().lower()
    if link != AUTO:
        link = get_interconnect(link).id
    # The serving inputs the memory calculator also takes get its checks, so the two never disagree.
    serving = inference_setup(weights=weights, kv_cache=kv_cache, batch=batch, context=context)
    chosen = get_engine(engine)
    return SpeedSetup(
        weights=serving.weights,
        weight_format=serving.weight_format,
        kv_cache=serving.kv_cache,
        batch=serving.batch,
        context=serving.context,
        gpus=positive_int("gpus", gpus, maximum=MAX_GPUS),
        bandwidth_efficiency=(chosen.value("bandwidth_efficiency") if _blank(bandwidth_efficiency)
                              else _efficiency("bandwidth_efficiency", bandwidth_efficiency)),
        compute_efficiency=(chosen.compute_efficiency_for(serving.weights)
                            if _blank(compute_efficiency) else _efficiency("compute_efficiency", compute_efficiency)),
        interconnect=link,
        collective_efficiency=(None if _blank(collective_efficiency)
                               else _efficiency("collective_efficiency", collective_efficiency)),
        engine=chosen.id,
        moe_expert_efficiency=chosen.value("moe_expert_efficiency"),
        step_overhead_s_per_layer=chosen.value("step_overhead_s_per_layer"),
        request_overhead_s=chosen.value("request_overhead_s"),
    )


@dataclass(frozen=True)
class Work:
    """What one forward pass costs at 100 % of the peaks, before any efficiency (seconds).

    Attributes:
        memory_s: bytes read over the GPUs' peak bandwidth.
        expert_s: the routed-expert part of ``memory_s``.
        compute_s: FLOPs over the GPUs' dense rate (``None``: rate unknown).
        communication_s: the tensor-parallel all-reduces (their own efficiency included).
        communication_bound_s: the same at the link's full rate with no latency.
        layers: decoder layers (the fixed cost per forward pass is per layer).
    """

    memory_s: float
    expert_s: float
    compute_s: float | None
    communication_s: float
    communication_bound_s: float
    layers: int


def step_times(work: Work, *, bandwidth_efficiency: float, compute_efficiency: float, moe_expert_efficiency: float,
               step_overhead_s_per_layer: float) -> tuple[float, float | None, float, float]:
    """Memory, compute, fixed and total time of one forward pass (seconds).

    Formula: ``memory = (memory_s + expert_s x (1 / moe - 1)) / bandwidth_efficiency``;
    ``compute = compute_s / compute_efficiency``; ``fixed = layers x step_overhead``;
    ``total = max(memory, compute) + communication + fixed``.

    >>> step_times(Work(0.01, 0.0, 0.002, 0.0, 0.0, 32), bandwidth_efficiency=0.5, compute_efficiency=0.5,
    ...            moe_expert_efficiency=1.0, step_overhead_s_per_layer=1e-5)
    (0.02, 0.004, 0.00032, 0.02032)
    """
    memory = (work.memory_s + work.expert_s * (1.0 / moe_expert_efficiency - 1.0)) / bandwidth_efficiency
    compute = None if work.compute_s is None else work.compute_s / compute_efficiency
    fixed = work.layers * step_overhead_s_per_layer
    return memory, compute, fixed, max(memory, compute or 0.0) + work.communication_s + fixed


def _work(spec: ModelSpec, gpu: GPU, setup: SpeedSetup, *, bytes_read: int, expert_bytes: int, flops: float,
          tokens: int, compute_dtype: DType) -> Work:
    n = setup.gpus
    rate = compute_rate_flop_per_s(gpu, compute_dtype)
    bandwidth = gpu.memory_bandwidth_bytes_per_s * n
    comm_time = comm_bound = 0.0
    if n > 1:
        comm = tensor_parallel_communication(spec, tokens=tokens, gpus=n, link=setup.link(gpu),
                                             activation_bytes=4 if compute_dtype is DType.FP32 else 2,
                                             efficiency=setup.collective_efficiency)
        comm_time, comm_bound = comm.time_s, comm.bound_time_s
    return Work(memory_s=bytes_read / bandwidth, expert_s=expert_bytes / bandwidth,
                compute_s=None if rate is None else flops / (rate * n), communication_s=comm_time,
                communication_bound_s=comm_bound, layers=spec.num_layers)


def _roofline(work: Work, setup: SpeedSetup) -> dict[str, Any]:
    memory_time, compute_time, fixed, total = step_times(
        work, bandwidth_efficiency=setup.bandwidth_efficiency, compute_efficiency=setup.compute_efficiency,
        moe_expert_efficiency=setup.moe_expert_efficiency, step_overhead_s_per_layer=setup.step_overhead_s_per_layer)
    work_time = max(memory_time, compute_time or 0.0)
    bound = "compute" if compute_time is not None and compute_time > memory_time else "memory"
    if work.communication_s > work_time:
        bound = "communication"
    if fixed > max(work_time, work.communication_s):
        bound = "fixed cost"
    return {"memory_time_s": memory_time, "compute_time_s": compute_time,
            "communication_time_s": work.communication_s, "overhead_time_s": fixed, "time_s": total,
            "bound_time_s": max(work.memory_s, work.compute_s or 0.0) + work.communication_bound_s, "bound": bound}


def _compute_dtype(weights: DType) -> DType:
    # fp8 checkpoints run fp8 matmuls; weight-only int8/int4/nf4 dequantise to 16 bits.
    if weights in (DType.FP32, DType.FP8):
        return weights
    return DType.BF16


def decode_work(spec: ModelSpec, gpu: GPU, setup: SpeedSetup, context: int) -> tuple[int, float, Work]:
    bytes_read = (weight_bytes_read(spec, dtype=setup.format, tokens=setup.batch)
                  + kv_cache_bytes(spec, batch=setup.batch, context=context, kv_dtype=setup.kv_cache))
    flops = setup.batch * decode_flops_per_token(spec, context=context)
    work = _work(spec, gpu, setup, bytes_read=bytes_read, flops=flops, tokens=setup.batch,
                 expert_bytes=expert_bytes_read(spec, dtype=setup.format, tokens=setup.batch),
                 compute_dtype=_compute_dtype(setup.weights))
    return bytes_read, flops, work


def _decode(spec: ModelSpec, gpu: GPU, setup: SpeedSetup, context: int) -> DecodeStep:
    bytes_read, flops, work = decode_work(spec, gpu, setup, context)
    return DecodeStep(bytes_read=bytes_read, flops=flops, tokens=setup.batch, batch=setup.batch, context=context,
                      **_roofline(work, setup))


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
    return _decode(spec, gpu, setup, setup.context)


def prefill_work(spec: ModelSpec, gpu: GPU, setup: SpeedSetup) -> tuple[int, float, Work]:
    tokens = setup.batch * setup.context
    bytes_read = (weight_bytes_read(spec, dtype=setup.format, tokens=tokens)
                  + kv_cache_bytes(spec, batch=setup.batch, context=setup.context, kv_dtype=setup.kv_cache))
    flops = setup.batch * prefill_flops(spec, prompt=setup.context)
    work = _work(spec, gpu, setup, bytes_read=bytes_read, flops=flops, tokens=tokens,
                 expert_bytes=expert_bytes_read(spec, dtype=setup.format, tokens=tokens),
                 compute_dtype=_compute_dtype(setup.weights))
    return bytes_read, flops, work


def _prefill(spec: ModelSpec, gpu: GPU, setup: SpeedSetup) -> Step:
    bytes_read, flops, work = prefill_work(spec, gpu, setup)
    return Step(bytes_read=bytes_read, flops=flops, tokens=setup.batch * setup.context, **_roofline(work, setup))


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
    return _prefill(spec, gpu, speed_setup(**settings))


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
    engine: str = DEFAULT_ENGINE
    request_overhead_s: float = 0.0

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
                    "bound": s.bound}

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
            f"{self.model} on {self.gpus} x {self.gpu} with {self.engine}, batch {self.batch}, prompt {self.context} tokens",
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


def decode_contexts(context: int, new_tokens: int, *, chunks: int = _EXACT_STEPS) -> list[tuple[int, int]]:
    """``(steps, context)`` pairs covering the decode steps after a prefill of ``context`` tokens.

    The prefill yields the first new token, so ``new_tokens - 1`` steps follow, at
    contexts ``context + 1 .. context + new_tokens - 1``. Up to ``chunks`` steps are
    listed one by one; beyond, the range is cut into ``chunks`` equal parts, each timed
    at its middle context (step time is piecewise linear in the context, so the error is
    negligible).

    >>> decode_contexts(100, 4)
    [(1, 101), (1, 102), (1, 103)]
    >>> decode_contexts(0, 9, chunks=2)
    [(4, 2), (4, 6)]
    """
    steps = new_tokens - 1
    start = context + 1
    if steps <= 0:
        return []
    if steps <= chunks:
        return [(1, start + i) for i in range(steps)]
    pairs = []
    for chunk in range(chunks):
        low = start + steps * chunk // chunks
        high = start + steps * (chunk + 1) // chunks
        if high > low:
            pairs.append((high - low, (low + high - 1) // 2))
    return pairs


def request_works(spec: ModelSpec, gpu: GPU, setup: SpeedSetup, *, new_tokens: int,
                  chunks: int = _EXACT_STEPS) -> tuple[Work, list[tuple[int, Work]]]:
    """The prefill's :class:`Work` and ``(steps, Work)`` of the decode steps of one static batch.

    What :func:`inference_speed` times: the generation time is the request overhead plus
    :func:`step_times` of the prefill plus each decode work times its step count. The
    speed-accuracy fit (:mod:`calculators.speed_accuracy.fit`) evaluates the same sum
    for many candidate constants without recomputing bytes and FLOPs.
    """
    first = prefill_work(spec, gpu, setup)[2]
    return first, [(count, decode_work(spec, gpu, setup, ctx)[2])
                          for count, ctx in decode_contexts(setup.context, new_tokens, chunks=chunks)]


def _decode_total_s(spec: ModelSpec, gpu: GPU, setup: SpeedSetup, new_tokens: int) -> float:
    """Seconds of the decode steps after the prefill (:func:`decode_contexts`)."""
    return sum(count * _decode(spec, gpu, setup, ctx).time_s for count, ctx in decode_contexts(setup.context, new_tokens))


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
    first = _decode(spec, gpu, setup, setup.context)
    last = _decode(spec, gpu, setup, setup.context + new_tokens)
    pre = _prefill(spec, gpu, setup)
    total = setup.request_overhead_s + pre.time_s + _decode_total_s(spec, gpu, setup, new_tokens)
    memory = inference_memory(spec, weights=setup.format.id, kv_cache=setup.kv_cache.value, batch=setup.batch,
                              context=setup.context, new_tokens=new_tokens)
    footprint, uncertainty = (split_inference_footprint(memory, setup.gpus) if setup.gpus > 1
                              else footprint_on(memory, gpu))
    verdict = verdict_for(footprint, uncertainty, usable_memory_bytes(gpu))
    notes = []
    if compute_rate_flop_per_s(gpu, _compute_dtype(setup.weights)) is None:
        notes.append(f"{gpu.name} has no published dense rate for this format: compute time unknown, "
                     "so every time is the memory time only (a lower bound)")
    if spec.mla is not None:
        notes.append("multi-head latent attention: attention FLOPs counted as per-head attention over q_dim; "
                     "the cache read is the compressed latent")
    if spec.moe is not None:
        notes.append("mixture of experts: experts read per step assume uniform, independent routing; routed-expert "
                     f"weights stream at {setup.moe_expert_efficiency:.3g} of the dense rate (engine {setup.engine})")
    assumptions = setup.assumptions() + (
        "a static batch: every sequence has the same prompt and the same number of new tokens",
        "time to first token = the engine's fixed cost per request + prefill of the whole batch; queueing "
        "behind other requests and network time not counted",
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
        assumptions=assumptions, notes=tuple(notes), engine=setup.engine, request_overhead_s=setup.request_overhead_s)
