"""The roofline of one forward pass with an engine's efficiencies and fixed cost, and the decode schedule.

A forward pass's :class:`Work` is its bytes and FLOPs over the GPUs' peaks (seconds at
100 %), computed once; :func:`step_times` applies an engine's constants to it. The
inference-speed functions and the speed-accuracy fit share this one formula, so the
fit's constants mean what the calculators use.

>>> decode_contexts(10, 3)
[(1, 11), (1, 12)]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: The exponent ``p`` of :func:`overlapped_s`: measured GEMM kernels near the ridge (OpenXLA's kernel table for the H100
#: SXM and the B200, tests/data/gemm_kernels) fit 5.7 (H100 BF16), 3.4 (B200 BF16) and 3.8 (B200 FP8), one joint
#: fit 3.9 with every value from 2.8 to 6.3 within 10 % of its best loss (:mod:`calculators.performance.kernel_overlap`,
#: tests/validation/test_kernel_overlap.py). Taken from the kernels, not fitted to the speed figures.
OVERLAP_EXPONENT = 4


def overlapped_s(memory_s: float, compute_s: float) -> float:
    """Time of a kernel that streams ``memory_s`` worth of bytes and does ``compute_s`` worth of math (seconds).

    A roofline takes the larger of the two, as if the loads and the multiplies hid each other completely. A matrix
    multiply overlaps them only in part: it waits for its first tiles before it can multiply and finishes multiplying
    after its last loads, and where its grid is smaller than the GPU it neither fills the tensor cores nor keeps
    enough loads in flight to reach the bandwidth. The loss is largest at the ridge, where the two times are equal,
    and vanishes where one dominates. The time is their p-norm, ``p =`` :data:`OVERLAP_EXPONENT` (4):

    ``t = (memory^4 + compute^4)^(1/4)``

    the larger time within 1 % once the smaller is under 0.45 of it, and 2^(1/4) = 1.19 times either at the ridge (a
    plain max there over-promises by that much); computed as ``sqrt(hypot(memory^2, compute^2))``.

    >>> overlapped_s(1.0, 0.0), round(overlapped_s(1.0, 1.0), 4), round(overlapped_s(1.0, 0.4), 4)
    (1.0, 1.1892, 1.0063)
    """
    return math.sqrt(math.hypot(memory_s * memory_s, compute_s * compute_s))


#: Above this many decode steps a generation is timed at this many sampled contexts.
EXACT_STEPS = 512


@dataclass(frozen=True)
class Work:
    """What one forward pass costs at 100 % of the peaks, before any efficiency (seconds).

    Attributes:
        memory_s: bytes read over the GPUs' peak bandwidth.
        expert_s: the routed-expert part of ``memory_s``.
        compute_s: FLOPs over the GPUs' dense rate (``None``: rate unknown).
        communication_s: the tensor-parallel all-reduces (their own efficiency included).
        communication_bound_s: the same at the link's full rate with no latency.
        layers: decoder layers that pay the engine's fitted fixed cost per layer (0 where a measured cost stands
            in for it, in ``host_launch_s``: llama.cpp's decode steps on Metal).
        attention_memory_s: the part of ``memory_s`` that attention reads (the KV cache).
        attention_compute_s: the part of ``compute_s`` that attention computes (``QK^T``, ``PV``).
        kv_reread_s: the KV-cache reads a decode step repeats, once per extra query head of a group, on an
            engine without a grouped-query decode kernel (not in ``memory_s``; ``kv_reread_cost`` says how
            much of it reaches memory).
        sequences: the sequences the pass emits a token for (a decode step: the batch; a prefill: its
            prompts), each paying the engine's fixed cost per sequence per step.
        unfused_s: bytes over the peak bandwidth of the memory-bound kernels that run on their own between the
            matrix multiplies (materialised attention scores, dequantisation: :mod:`calculators.performance.unfused`):
            their time adds to the pass.
        host_launch_s: measured fixed time the pass's kernel launches cost where no fitted constant carries it: the
            GPU waiting for the CPU to launch kernels one at a time (no CUDA graph,
            :attr:`calculators.catalog.engines.Engine.host_launch_s_per_layer`), or a decode step's whole fixed cost
            on Metal (:attr:`~calculators.catalog.engines.Engine.metal_step_s_per_layer`): adds to the pass.
    """

    memory_s: float
    expert_s: float
    compute_s: float | None
    communication_s: float
    communication_bound_s: float
    layers: int
    attention_memory_s: float = 0.0
    attention_compute_s: float = 0.0
    kv_reread_s: float = 0.0
    sequences: int = 0
    unfused_s: float = 0.0
    host_launch_s: float = 0.0


def step_times(work: Work, *, bandwidth_efficiency: float, compute_efficiency: float, moe_expert_efficiency: float,
               step_overhead_s_per_layer: float, kv_reread_cost: float = 1.0,
               sequence_overhead_s: float = 0.0) -> tuple[float, float | None, float, float]:
    """Memory, compute, fixed and total time of one forward pass (seconds).

    The projections and the attention are separate kernels that run one after the other, each bound by its own
    roofline (its memory and compute times overlapped in part, :func:`overlapped_s`), so their times add: a
    long-context decode step reads the weights at the compute-bound rate of a large batch *and then* the KV cache at
    the memory-bound rate of attention.

    Formula: ``memory = (memory_s + expert_s x (1 / moe - 1) + kv_reread_s x kv_reread_cost) / bandwidth_efficiency``;
    ``compute = compute_s / compute_efficiency``; ``fixed = layers x step_overhead + sequences x
    sequence_overhead + host_launch`` (the engine's fixed cost per layer of a pass, per sequence the pass emits a
    token for, and the CPU's launches where no CUDA graph replays them);
    ``unfused = unfused_s / bandwidth_efficiency``; ``total = overlapped(memory - attention memory, compute - attention
    compute) + overlapped(attention memory, attention compute) + unfused + communication + fixed`` (the memory time
    returned includes ``unfused``; :func:`overlapped_s`: the two sides of a kernel overlap in part).

    A prefill pays the fixed cost as a decode step does, per-step decoder work included: TensorRT-LLM's published
    first-token latencies are gptSessionBenchmark runs with one output token (its ``performance.md``, "Reproducing
    First Token Latency"), whose timed ``generate`` call holds the context pass, the decoder's step that samples that
    token and the host's wait on it, as each later step holds its own (``gptSession.cpp`` v0.5-v0.9:
    ``decoderStepAsync`` after ``executeContext``, then ``shouldStopSync``, which waits on the decoder's event).

    Memory 0.01 / 0.5 = 0.02 s and compute 0.002 / 0.5 = 0.004 s overlap to 0.02 x (1 + 0.2^4)^(1/4) = 0.020008 s;
    32 layers x 10 us add 0.00032 s:

    >>> times = step_times(Work(0.01, 0.0, 0.002, 0.0, 0.0, 32), bandwidth_efficiency=0.5, compute_efficiency=0.5,
    ...                    moe_expert_efficiency=1.0, step_overhead_s_per_layer=1e-5)
    >>> times[:3], round(times[3], 6)
    ((0.02, 0.004, 0.00032), 0.020328)
    """
    rereads = work.kv_reread_s * kv_reread_cost  # part of attention's memory time
    memory = (work.memory_s + work.expert_s * (1.0 / moe_expert_efficiency - 1.0) + rereads) / bandwidth_efficiency
    compute = None if work.compute_s is None else work.compute_s / compute_efficiency
    fixed = work.layers * step_overhead_s_per_layer + work.sequences * sequence_overhead_s + work.host_launch_s
    attention_memory = (work.attention_memory_s + rereads) / bandwidth_efficiency
    attention_compute = 0.0 if compute is None else work.attention_compute_s / compute_efficiency
    projections = overlapped_s(memory - attention_memory, (compute or 0.0) - attention_compute)
    attention = overlapped_s(attention_memory, attention_compute)
    unfused = work.unfused_s / bandwidth_efficiency
    return memory + unfused, compute, fixed, projections + attention + unfused + work.communication_s + fixed


def decode_contexts(context: int, new_tokens: int, *, chunks: int = EXACT_STEPS) -> list[tuple[int, int]]:
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
