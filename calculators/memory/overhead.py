"""What a GPU holds beyond PyTorch's live tensors: workspaces, the CUDA context, the allocator's reserve.

Measured on one H100 80GB HBM3 (torch 2.11.0+cu130, CUDA 13.0, driver 580, default caching
allocator; 147 runs in ``tests/data/measurements_cuda/h100-sxm``):

* **cuBLAS workspaces are allocated tensors.** ``torch.cuda.memory_allocated()`` before the
  first step sat 64-65 MiB above the weights for every model: the cuBLAS workspace (32 MiB on
  sm_90, PyTorch ``CublasHandlePool.cpp``) and its cuBLASLt counterpart come from the caching
  allocator. They are in ``peak_allocated_bytes`` (breakdown ``cuda_workspaces``).
* **The CUDA context and libraries** (driver state, loaded kernels, cuBLAS handles) lie
  outside the allocator: ``(total - free) - memory_reserved()`` was 695-797 MiB, median
  785 MiB. ``total_bytes`` adds the median.
* **The caching allocator reserves more than it hands out.** ``max_memory_reserved /
  max_memory_allocated`` was 1.00-1.66 (median 1.09). The excess follows the largest
  transient blocks of the step: freed blocks stay cached in segments sized to their first
  request, and a later request of another size opens a new segment (PyTorch
  ``CUDACachingAllocator.cpp``: blocks over 10 MiB get segments rounded to 2 MiB and are
  split, not merged across segments). The model: ``reserve = base + a x block + b x
  block x recompute``, where ``block`` is the largest transient tensor of the step (the fp32 logits
  of the loss in training; in inference the prefill's MLP intermediate or, with eager or math
  attention, the fp32 scores) and ``recompute`` is gradient checkpointing. A prefill has its own
  ``a``: there every layer's transients are freed while the KV cache it appends stays, so the
  cache's blocks split the cached transient segments and the next layer opens new ones. ``base``, ``a``
  and ``b`` minimise the median error of ``total_bytes`` on the 135 training runs (384 MiB,
  0.40, 0.20), and the prefill's ``a`` on the 12 inference runs with that base (0.85); a grid
  search, ``scripts/score_real_gpu.py`` prints the result; see :data:`RESERVE_FIT`.
* **The scatter is the allocation order.** Replaying the order in which each measured step
  allocates and frees its tensors (a fake-tensor run of the same step) through the allocator's
  rules (:mod:`calculators.memory.caching_allocator`, ``scripts/replay_allocator.py``) reproduces
  the measured reserve of the training runs far more closely than any fit over block sizes
  (validation page, table ``accuracy-allocator-replay``). The fitted reserve stands in for that
  order, which the calculators do not produce yet.
* **What must be free for the job to run.** The reserve scatters widely around that fit (it
  depends on the order of allocations, not only their sizes), but most of it does not decide
  whether a job runs: when ``cudaMalloc`` fails, the allocator releases every cached segment
  that holds no live tensor and retries (``release_cached_blocks`` in
  ``CUDACachingAllocator.cpp``). What cannot be released is the fragmentation of segments that
  still hold live tensors. :func:`fit_margin_bytes` is what must be free beyond the live tensors
  and the context for the job to run: ``2 GiB + k x block``, with ``k`` 1.15 in training and 1.4 in an
  inference prefill. A verdict is *fits* only when this line fits the usable memory; the part
  above ``total_bytes`` is the result's ``uncertainty_bytes``. How ``k`` was set, and what it
  covers, is in :data:`FIT_LINE`.

With ``allocator="expandable_segments"`` (``PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True``)
segments grow in place in 20 MiB pages, so blocks of different sizes reuse the same memory:
the reserve is taken as zero. This is modelled from the allocator's design, not measured;
the fit margin is kept as it is until it is.

>>> overhead = runtime_overhead_bytes(transient_block_bytes=2**30, recompute=False)
>>> overhead["cuda_context"] // MIB, overhead["allocator_reserve"] // MIB
(785, 793)
>>> fit_margin_bytes(transient_block_bytes=2**30) // MIB
3225
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.units import GIB, MIB
from calculators.validate import nonnegative_int, one_of

#: Caching-allocator settings accepted by the calculators.
ALLOCATORS = ("default", "expandable_segments")

#: Non-PyTorch device memory of one process (CUDA context, kernels, library handles):
#: median of ``non_torch_bytes`` over the 147 H100 runs (range 695-797 MiB).
CUDA_CONTEXT_BYTES = 785 * MIB

#: cuBLAS + cuBLASLt workspaces inside ``memory_allocated()`` on the measured H100:
#: ``base_allocated`` minus the weights, 64.0-65.0 MiB in every run.
CUDA_WORKSPACE_BYTES = 64 * MIB

MEASURED_STACK = ("one H100 80GB HBM3, torch 2.11.0+cu130, CUDA 13.0, driver 580, default caching allocator "
                  "(tests/data/measurements_cuda/h100-sxm, 147 runs)")


@dataclass(frozen=True)
class ReserveFit:
    """Coefficients of the allocator-reserve model and its error on the runs it was fitted on.

    ``reserve = base_bytes + per_block x block + per_recomputed_block x block x recompute`` in
    training, ``base_bytes + per_prefill_block x block`` in an inference prefill.
    """

    base_bytes: int
    per_block: float
    per_recomputed_block: float
    per_prefill_block: float
    fitted_on: str
    total_median_error: float
    total_most_under: float


#: Fit of ``max_memory_reserved - max_memory_allocated`` on the H100 runs: the values on a
#: 0.05 / 128 MiB grid that minimise the median error of ``total_bytes`` (training runs; then
#: the prefill factor on the inference runs with the same base). ``scripts/score_real_gpu.py``
#: prints the fit, and the error on each model when the reserve is fitted on the other two.
RESERVE_FIT = ReserveFit(
    base_bytes=384 * MIB,
    per_block=0.40,
    per_recomputed_block=0.20,
    per_prefill_block=0.85,
    fitted_on=MEASURED_STACK,
    # |total_bytes - measured| / measured on the same runs (tests/validation/test_real_gpu_accuracy.py checks both)
    total_median_error=0.021,
    total_most_under=-0.223,
)


@dataclass(frozen=True)
class FitMargin:
    """What must be free beyond the live tensors and the CUDA context for a step to run.

    ``margin = base_bytes + per_block x block`` (``per_prefill_block`` in an inference prefill).
    """

    base_bytes: int
    per_block: float
    per_prefill_block: float
    fitted_on: str


#: Set on the largest batches that ran on the same H100 (``boundaries.json``: the batch that
#: ran and the next one, which ran out of memory) and checked on the unconstrained runs.
#: With a 2 GiB base, a boundary is answered right or one batch conservative, never
#: over-promised, for ``per_block`` in 0.90-1.19 (Phi-3-mini full bf16, checkpointing;
#: right up to 1.04) and 0.36-1.85 (Qwen2.5-7B LoRA r64, checkpointing; right up to 0.98),
#: and ``per_prefill_block`` in 1.18-1.92 (Mistral-7B at an 8k prompt; right up to 1.54).
#: 1.15 is the smallest training factor under which no unconstrained training run without
#: checkpointing held more than the line (the largest needed 1.145: Llama-3.2-1B amp_bf16
#: sdpa, batch 1 x 2048); checkpointed runs held up to 2.0 x block above it while far from
#: the limit, cache the allocator releases under pressure (the Phi-3 boundary allows at most
#: 1.19). 1.4 covers every unconstrained inference run (they need 0.05 at most) and keeps the
#: Mistral boundary right. ``scripts/score_real_gpu.py`` prints these ranges. What a job needs above its
#: allocated peak at its limit (``scripts/simulate_boundaries.py --needed``, the allocation order replayed at
#: the smallest capacity that runs) is 0.76-1.08 blocks for most training jobs and 1.45-1.73 in a prefill, but
#: 0.13 and 0.45 for two LoRA jobs: the block is lost only when a long-lived tensor of the second step lands in
#: a freed logits-sized segment of the first, which the order decides. The margin covers the case that needs
#: more, so those LoRA jobs are answered 3-4 batches short.
FIT_MARGIN = FitMargin(
    base_bytes=2 * GIB,
    per_block=1.15,
    per_prefill_block=1.4,
    fitted_on=MEASURED_STACK + "; fit boundaries in boundaries.json",
)


def allocator_reserve_bytes(*, transient_block_bytes: int, recompute: bool, allocator: str = "default",
                            prefill: bool = False) -> int:
    """Reserved-but-unallocated bytes at the peak (central estimate).

    Formula: training ``384 MiB + 0.40 x block + 0.20 x block x recompute``; inference
    prefill ``384 MiB + 0.85 x block`` (0 with expandable segments).
    """
    transient_block_bytes = nonnegative_int("transient_block_bytes", transient_block_bytes, maximum=1 << 60)
    if one_of("allocator", allocator, ALLOCATORS) == "expandable_segments":
        return 0
    fit = RESERVE_FIT
    if prefill:
        factor = fit.per_prefill_block
    else:
        factor = fit.per_block + (fit.per_recomputed_block if recompute else 0.0)
    return fit.base_bytes + int(round(factor * transient_block_bytes))


def fit_margin_bytes(*, transient_block_bytes: int, prefill: bool = False) -> int:
    """Memory that must be free beyond the live tensors and the CUDA context for the step to run.

    Formula: ``2 GiB + 1.15 x block`` in training, ``2 GiB + 1.4 x block`` in an inference
    prefill (:data:`FIT_MARGIN`). A job *fits* when ``peak_allocated_bytes + context +
    margin`` is at most the usable memory.
    """
    transient_block_bytes = nonnegative_int("transient_block_bytes", transient_block_bytes, maximum=1 << 60)
    factor = FIT_MARGIN.per_prefill_block if prefill else FIT_MARGIN.per_block
    return FIT_MARGIN.base_bytes + round(factor * transient_block_bytes)


def uncertainty_above_total(overhead: dict[str, int], *, transient_block_bytes: int, prefill: bool = False) -> int:
    """How far the fit line lies above ``total_bytes``: the fit margin less the reserve already counted.

    ``total_bytes = allocated + context + reserve`` and the fit line is ``allocated + context +
    margin``, so the difference is ``margin - reserve`` (never negative). No overhead (not CUDA)
    means no uncertainty.
    """
    if not overhead:
        return 0
    margin = fit_margin_bytes(transient_block_bytes=transient_block_bytes, prefill=prefill)
    return max(0, margin - overhead.get("allocator_reserve", 0))


def runtime_overhead_bytes(*, transient_block_bytes: int = 0, recompute: bool = False, prefill: bool = False,
                           allocator: str = "default") -> dict[str, int]:
    """Bytes per GPU outside PyTorch's allocated peak: the CUDA context and the allocator reserve.

    ``total_bytes = peak_allocated_bytes + cuda_context + allocator_reserve``. The cuBLAS
    workspaces are not here: they are allocated tensors, inside the peak. Per GPU: every GPU
    holds its own context, and the reserve follows the block size, not the peak.
    """
    return {
        "cuda_context": CUDA_CONTEXT_BYTES,
        "allocator_reserve": allocator_reserve_bytes(transient_block_bytes=transient_block_bytes,
                                                     recompute=recompute, allocator=allocator, prefill=prefill),
    }


def overhead_assumptions(allocator: str = "default") -> tuple[str, ...]:
    """Human-readable statements of the overhead terms, for result objects."""
    reserve = ("no allocator reserve (expandable segments: modelled, not measured)" if allocator == "expandable_segments"
               else f"an allocator reserve of {RESERVE_FIT.base_bytes // MIB} MiB + {RESERVE_FIT.per_block:.3g} x "
                    f"the largest transient block (+{RESERVE_FIT.per_recomputed_block:.3g} x with checkpointing; "
                    f"{RESERVE_FIT.per_prefill_block:.3g} x in an inference prefill)")
    return (
        f"peak_allocated_bytes includes {CUDA_WORKSPACE_BYTES // MIB} MiB of cuBLAS workspaces; total_bytes adds "
        f"a CUDA context of {CUDA_CONTEXT_BYTES // MIB} MiB and {reserve}, measured on {MEASURED_STACK}; "
        f"on those runs total_bytes was off by {RESERVE_FIT.total_median_error:.1%} at the median and at most "
        f"{-RESERVE_FIT.total_most_under:.0%} under what the process held; a job fits when the allocated peak, "
        f"the context and {FIT_MARGIN.base_bytes // GIB} GiB + {FIT_MARGIN.per_block:.3g} x the largest transient "
        f"block ({FIT_MARGIN.per_prefill_block:.3g} x in a prefill) fit the usable memory, set on the largest "
        f"batches that ran on that GPU",
    )
