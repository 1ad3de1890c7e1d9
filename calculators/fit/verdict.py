"""The one fit verdict: a job's footprint on one GPU against the memory a process can allocate there.

* **fits**: ``total_bytes`` plus its measured uncertainty (the fit line) fits the usable memory;
* **tight**: ``total_bytes`` fits but the upper figure does not: a risk;
* **does not fit**: ``total_bytes`` is above the usable memory.

The margin is ``usable - total_bytes`` (negative when it does not fit). Every face and every
engine function that gives a verdict calls :func:`verdict_for` (through :func:`fit_verdict`
or :func:`calculators.fit.placement.share_verdict`).

>>> verdict_for(10 * GIB, 2 * GIB, 13 * GIB).verdict, verdict_for(10 * GIB, 2 * GIB, 11 * GIB).margin_bytes == GIB
('fits', True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.memory.result import MemoryEstimate
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
