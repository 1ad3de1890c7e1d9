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
* **The uncertainty.** The reserve scatters widely around that fit (it depends on the order
  of allocations, not only their sizes). :func:`reserve_band_bytes` is the margin above
  ``total_bytes`` that covered every one of the 147 runs: ``2 GiB + 0.55 x block x (1 +
  recompute)``. A fit verdict is *fits* only when ``total_bytes`` plus this band fits.

With ``allocator="expandable_segments"`` (``PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True``)
segments grow in place in 20 MiB pages, so blocks of different sizes reuse the same memory:
the reserve is taken as zero. This is modelled from the allocator's design, not measured;
the band is kept as it is until it is.

>>> overhead = runtime_overhead_bytes(transient_block_bytes=2**30, recompute=False)
>>> overhead["cuda_context"] // MIB, overhead["allocator_reserve"] // MIB
(785, 793)
>>> reserve_band_bytes(transient_block_bytes=2**30, recompute=False) // MIB
2611
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
    training, ``base_bytes + per_prefill_block x block`` in an inference prefill;
    ``band = band_base_bytes + band_per_block x block x (1 + recompute)``.
    """

    base_bytes: int
    per_block: float
    per_recomputed_block: float
    per_prefill_block: float
    band_base_bytes: int
    band_per_block: float
    fitted_on: str
    total_median_error: float
    total_most_under: float


#: Fit of ``max_memory_reserved - max_memory_allocated`` on the H100 runs: the values on a
#: 0.05 / 128 MiB grid that minimise the median error of ``total_bytes`` (training runs; then
#: the prefill factor on the inference runs with the same base). The band: with a
#: 2 GiB base, the smallest per-block factor under which no run's context + reserved exceeded
#: ``total_bytes`` + band is 0.50, rounded up to 0.55. ``scripts/score_real_gpu.py`` prints
#: both fits, and the error on each model when the reserve is fitted on the other two.
RESERVE_FIT = ReserveFit(
    base_bytes=384 * MIB,
    per_block=0.40,
    per_recomputed_block=0.20,
    per_prefill_block=0.85,
    band_base_bytes=2 * GIB,
    band_per_block=0.55,
    fitted_on=MEASURED_STACK,
    # |total_bytes - measured| / measured on the same runs (tests/validation/test_real_gpu_accuracy.py checks both)
    total_median_error=0.021,
    total_most_under=-0.223,
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


def reserve_band_bytes(*, transient_block_bytes: int, recompute: bool) -> int:
    """How far above ``total_bytes`` the real footprint went, at most, on the measured runs.

    Formula: ``2 GiB + 0.55 x block x (1 + recompute)``.
    """
    transient_block_bytes = nonnegative_int("transient_block_bytes", transient_block_bytes, maximum=1 << 60)
    fit = RESERVE_FIT
    return int(fit.band_base_bytes + round(fit.band_per_block * transient_block_bytes * (2 if recompute else 1)))


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
        f"{-RESERVE_FIT.total_most_under:.0%} under what the process held, which the stated uncertainty covers",
    )
