"""Apple silicon: the share of unified memory the GPU may wire by default.

A module of its own so that both the usable-memory catalog and the custom ``mac:`` GPUs
(:mod:`calculators.catalog.custom_gpu`) read one rule.
"""

from __future__ import annotations

from calculators.units import GIB
from calculators.validate import positive_int


def apple_working_set_bytes(unified_memory_bytes: int) -> int:
    """macOS's default GPU working set for a Mac with ``unified_memory_bytes`` of RAM.

    Formula: ``2/3 x RAM`` up to 36 GiB of RAM, ``3/4 x RAM`` above (community-measured rule;
    PyTorch OOM messages on 8, 16 and 64 GB Macs match it: 'max allowed' / 1.7).

    >>> apple_working_set_bytes(64 * 2**30) / 2**30
    48.0
    """
    unified_memory_bytes = positive_int("unified_memory_bytes", unified_memory_bytes, maximum=1 << 50)
    share = 2 / 3 if unified_memory_bytes <= 36 * GIB else 3 / 4
    return int(unified_memory_bytes * share)
