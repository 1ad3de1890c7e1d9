"""The result of a memory estimate: two named totals, a breakdown and the phase of the peak.

>>> estimate = MemoryEstimate(
...     parameters=10, trainable_parameters=10, active_parameters=10,
...     peak_allocated_bytes=3 * 2**30, total_bytes=4 * 2**30, peak_phase="optimizer",
...     breakdown={"weights": 2**30, "gradients": 2**30, "optimizer_states": 2**30},
...     phase_peaks={"forward": 2**30, "optimizer": 3 * 2**30}, assumptions=("batch 1",))
>>> estimate.peak_allocated_gib, estimate.total_gib
(3.0, 4.0)

Faces show it through :mod:`calculators.jobs` (``mlhw train`` and ``mlhw infer`` print its breakdown table).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from calculators.memory.checkpoint_weights import STORED_NOTE_START
from calculators.units import GIB


@dataclass(frozen=True)
class MemoryEstimate:
    """Memory needed by one training step or one inference request, in bytes.

    Attributes:
        peak_allocated_bytes: what ``torch.cuda.max_memory_allocated()`` would report:
            the largest sum of live tensors over the step.
        total_bytes: what the GPU must hold: the peak plus the CUDA context and the
            caching allocator's reserve (see
            :func:`calculators.memory.overhead.runtime_overhead_bytes`); measured
            ``(total - free)`` at the peak scatters around it.
        uncertainty_bytes: how far above ``total_bytes`` the memory must reach for the step to
            run near the limit: the fit margin less the reserve already in ``total_bytes``
            (:func:`calculators.memory.overhead.fit_margin_bytes`).
        transient_block_bytes: the step's largest transient tensor, which drives the
            allocator reserve and the uncertainty.
        peak_phase: the phase in which the peak occurs (``forward``, ``backward``,
            ``optimizer``, ``prefill``, ``decode``).
        breakdown: bytes per component live at the peak; sums to the peak.
        phase_peaks: peak allocated bytes of each phase.
        cache_shards: the most GPUs a tensor-parallel split divides the ``kv_cache`` over (its KV heads; 1 for a
            multi-head latent attention cache, which every GPU holds whole:
            :func:`~calculators.memory.kv_cache.kv_cache_shards`); 0: no limit (no KV cache).
    """

    parameters: int
    trainable_parameters: int
    active_parameters: int
    peak_allocated_bytes: int
    total_bytes: int
    peak_phase: str
    breakdown: Mapping[str, int]
    phase_peaks: Mapping[str, int]
    assumptions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    overhead: Mapping[str, int] = field(default_factory=dict)
    uncertainty_bytes: int = 0
    transient_block_bytes: int = 0
    warnings: tuple[str, ...] = ()  # what the reader must see before the numbers (a Llama-style guess)
    cache_shards: int = 0

    @property
    def overhead_assumption(self) -> str:
        """What ``total_bytes`` adds beyond the allocated peak and how it was measured: the last of
        ``assumptions``, where every memory calculator puts
        :func:`~calculators.memory.overhead.overhead_assumptions` (``""`` when there is none)."""
        return self.assumptions[-1] if self.assumptions else ""

    @property
    def total_upper_bytes(self) -> int:
        """``total_bytes`` plus its uncertainty: the usable memory the step needs to run (the fit line)."""
        return self.total_bytes + self.uncertainty_bytes

    @property
    def peak_allocated_gib(self) -> float:
        """Peak allocated memory in GiB (2^30 bytes)."""
        return self.peak_allocated_bytes / GIB

    @property
    def total_gib(self) -> float:
        """Total GPU memory needed in GiB (2^30 bytes)."""
        return self.total_bytes / GIB

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: every byte count as an int, names as in the CLI's ``--json``."""
        return {
            "parameters": self.parameters,
            "trainable_parameters": self.trainable_parameters,
            "active_parameters": self.active_parameters,
            "peak_allocated_bytes": self.peak_allocated_bytes,
            "total_bytes": self.total_bytes,
            "uncertainty_bytes": self.uncertainty_bytes,
            "total_upper_bytes": self.total_upper_bytes,
            "transient_block_bytes": self.transient_block_bytes,
            "peak_phase": self.peak_phase,
            "breakdown": dict(self.breakdown),
            "phase_peaks": dict(self.phase_peaks),
            "overhead": dict(self.overhead),
            "assumptions": list(self.assumptions),
            "notes": list(self.notes),
            **({"warnings": list(self.warnings)} if self.warnings else {}),
        }
