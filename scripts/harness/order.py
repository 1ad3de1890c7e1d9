"""The allocation order of one case: what ``scripts/replay_allocator.py`` and ``simulate_boundaries.py`` replay.

:func:`allocation_order` runs the case under fake tensors with the tracker's event log on and
returns the events a CUDA run would send the caching allocator, with the index from which the
measured window counts (the first phase; the model's weights come before it).
"""

from __future__ import annotations

import warnings

import harness.tracker
from harness.case import Case
from harness.outcomes import run_case

#: cuBLAS and cuBLASLt workspaces: allocated at the first matmul, inside the measured window
#: (``calculators.memory.overhead.CUDA_WORKSPACE_BYTES``, 64 MiB in all).
WORKSPACE_ALLOCATIONS_BYTES = (32 << 20, 32 << 20)


def allocation_order(case: Case) -> tuple[list[tuple[str, int, int]], int]:
    """``(events, first_phase)``: the case's ``("alloc", id, bytes)`` / ``("free", id, 0)`` events in order.

    The workspaces are allocated at the start of the window; phase markers are dropped.
    """
    harness.tracker.event_log = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run_case(case, "fake")
        events = harness.tracker.event_log
    finally:
        harness.tracker.event_log = None
    first_phase = next(i for i, event in enumerate(events) if event[0] == "phase")
    workspaces = [("alloc", -1 - i, size) for i, size in enumerate(WORKSPACE_ALLOCATIONS_BYTES)]
    ordered = events[:first_phase] + workspaces + [event for event in events[first_phase:] if event[0] != "phase"]
    return ordered, first_phase
