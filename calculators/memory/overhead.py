"""What a GPU holds beyond PyTorch's allocated tensors: CUDA context, workspaces, allocator slack.

``peak_allocated_bytes`` is what ``torch.cuda.max_memory_allocated()`` reports; the card
must also hold the CUDA context (driver state and loaded kernels), cuBLAS/cuDNN
workspaces and the caching allocator's reserved-but-unused blocks. These terms are
**assumed** values, not derived: they depend on the driver, CUDA version, kernels
loaded and the allocation pattern. Calibrate them with ``scripts/measure_memory.py
--device cuda`` (it records ``max_memory_reserved`` and the nvidia-smi view).

>>> overhead = runtime_overhead_bytes(peak_allocated_bytes=10 * 2**30)
>>> overhead["cuda_context"] // 2**20, overhead["cublas_workspace"] // 2**20
(512, 32)
>>> overhead["allocator_slack"] // 2**20
512
"""

from __future__ import annotations

from calculators.catalog.sources import Source

MIB = 2**20

#: CUDA context plus PyTorch's kernels once loaded (lazy module loading, CUDA 12).
#: Seen as 300-600 MiB in nvidia-smi on Ampere/Hopper cards; we assume 512 MiB.
CUDA_CONTEXT_BYTES = 512 * MIB

#: cuBLAS workspace PyTorch reserves per handle on Hopper-class GPUs (``:4096:8``,
#: eight 4 MiB chunks); older GPUs use less.
CUBLAS_WORKSPACE_BYTES = 32 * MIB

#: Reserved-but-unallocated memory of the caching allocator, as a fraction of the
#: allocated peak (fragmentation and block rounding). Training loops with stable shapes
#: typically sit at a few percent; variable shapes can reach 20 %+.
ALLOCATOR_SLACK_FRACTION = 0.05

OVERHEAD_SOURCE = Source(
    title=("PyTorch documentation, 'CUDA semantics: memory management' (caching allocator, "
           "CUBLAS_WORKSPACE_CONFIG); values are this guide's assumptions pending GPU calibration"),
    url="https://pytorch.org/docs/stable/notes/cuda.html",
    as_of="2026-11-21",
    kind="assumed",
)


def runtime_overhead_bytes(*, peak_allocated_bytes: int, gpus: int = 1) -> dict[str, int]:
    """Bytes per GPU outside PyTorch's tensors: context, cuBLAS workspace, allocator slack.

    Formula: ``context + workspace + slack_fraction x peak_allocated`` (per GPU).

    Args:
        peak_allocated_bytes: the allocated peak on one GPU, in bytes.
        gpus: number of GPUs (each holds its own context); reported per GPU.

    Returns:
        A dict of named overhead terms in bytes, for one GPU.
    """
    del gpus  # every GPU holds the same per-GPU overhead
    return {
        "cuda_context": CUDA_CONTEXT_BYTES,
        "cublas_workspace": CUBLAS_WORKSPACE_BYTES,
        "allocator_slack": int(round(ALLOCATOR_SLACK_FRACTION * peak_allocated_bytes)),
    }


def overhead_assumptions() -> tuple[str, ...]:
    """Human-readable statements of the assumed overhead terms, for result objects."""
    return (
        f"total_bytes adds a CUDA context of {CUDA_CONTEXT_BYTES // MIB} MiB, a cuBLAS workspace of "
        f"{CUBLAS_WORKSPACE_BYTES // MIB} MiB and allocator slack of {ALLOCATOR_SLACK_FRACTION:.0%} "
        "of the allocated peak (assumed, not measured)",
    )
