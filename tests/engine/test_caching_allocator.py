"""The caching-allocator simulation follows the rules of PyTorch's ``CUDACachingAllocator.cpp``.

Each expected value is worked out by hand from the rules stated in the module docstring
(rounding to 512 B, 2 MiB / 20 MiB / rounded segments, best fit, split thresholds, merging
within a segment only), not read from the code under test.
"""

from __future__ import annotations

import pytest

from calculators.errors import InputError
from calculators.memory.caching_allocator import (AllocatorOutOfMemory, CachingAllocator, replay, rounded_request_bytes,
                                                 segment_bytes)

MIB = 2**20


def test_requests_round_to_512_bytes() -> None:
    assert [rounded_request_bytes(n) for n in (0, 1, 511, 512, 513, 4096)] == [512, 512, 512, 512, 1024, 4096]


def test_segment_sizes_by_request() -> None:
    # <= 1 MiB: a 2 MiB small segment; under 10 MiB: a 20 MiB segment; from 10 MiB: rounded up to 2 MiB.
    assert segment_bytes(MIB) == 2 * MIB
    assert segment_bytes(MIB + 512) == 20 * MIB
    assert segment_bytes(10 * MIB - 512) == 20 * MIB
    assert segment_bytes(10 * MIB) == 10 * MIB
    assert segment_bytes(10 * MIB + 512) == 12 * MIB


def test_small_requests_share_one_small_segment() -> None:
    allocator = CachingAllocator()
    for _ in range(4):
        allocator.malloc(256 * 1024)  # 4 x 256 KiB = 1 MiB fits one 2 MiB segment
    assert allocator.reserved_bytes == 2 * MIB
    assert allocator.allocated_bytes == MIB


def test_a_freed_block_serves_a_smaller_request_then_the_rest_is_cached() -> None:
    allocator = CachingAllocator()
    big = allocator.malloc(100 * MIB)
    allocator.free(big)
    allocator.malloc(60 * MIB)   # split: 40 MiB stays cached (> 1 MiB)
    allocator.malloc(40 * MIB)   # exactly the cached remainder: no new segment
    assert allocator.reserved_bytes == 100 * MIB
    allocator.malloc(2 * MIB)    # nothing cached: a new 20 MiB segment
    assert allocator.reserved_bytes == 120 * MIB


def test_a_large_remainder_of_one_mib_or_less_is_not_split_off() -> None:
    allocator = CachingAllocator()
    block = allocator.malloc(11 * MIB)          # a 12 MiB segment; the 1 MiB left is not > 1 MiB: not split
    assert allocator.allocated_bytes == 12 * MIB
    allocator.free(block)
    allocator.malloc(11 * MIB - 512)            # now 1 MiB + 512 B would be left: split off and cached
    assert allocator.allocated_bytes == 11 * MIB - 512
    assert allocator.reserved_bytes == 12 * MIB


def test_best_fit_takes_the_smallest_block_that_fits() -> None:
    allocator = CachingAllocator()
    a, b = allocator.malloc(50 * MIB), allocator.malloc(30 * MIB)
    allocator.free(a)
    allocator.free(b)
    allocator.malloc(30 * MIB)   # the 30 MiB block, not a split of the 50 MiB one
    allocator.malloc(50 * MIB)   # so the 50 MiB block is still whole
    assert allocator.reserved_bytes == 80 * MIB


def test_free_neighbours_merge_within_a_segment() -> None:
    allocator = CachingAllocator()
    whole = allocator.malloc(90 * MIB)
    allocator.free(whole)
    parts = [allocator.malloc(30 * MIB) for _ in range(3)]
    for part in parts:
        allocator.free(part)
    allocator.malloc(90 * MIB)   # the three 30 MiB pieces merged back into one 90 MiB block
    assert allocator.reserved_bytes == 90 * MIB


def test_blocks_never_merge_across_segments() -> None:
    # The stranding that makes reserved exceed allocated: two freed 40 MiB segments cannot serve 80 MiB.
    allocator = replay([("alloc", 1, 40 * MIB), ("alloc", 2, 40 * MIB), ("free", 1, 0), ("free", 2, 0),
                        ("alloc", 3, 80 * MIB)])
    assert allocator.reserved_bytes == 160 * MIB
    assert allocator.peak_allocated_bytes == 80 * MIB
    assert allocator.cached_free_bytes() == 80 * MIB


def test_peaks_count_from_the_reset() -> None:
    allocator = replay([("alloc", 1, 100 * MIB), ("free", 1, 0), ("alloc", 2, 20 * MIB)], reset_at=2)
    assert allocator.peak_allocated_bytes == 20 * MIB   # allocated when the peaks were reset: 0, then 20 MiB
    assert allocator.peak_reserved_bytes == 100 * MIB   # the cached segment was already reserved


@pytest.mark.parametrize(("events", "field"), [
    ([("free", 1, 0)], "events[0]"),
    ([("alloc", 1, 10), ("move", 1, 0)], "events[1]"),
    ([("alloc", 1, -5)], "size_bytes"),
    ([("alloc", 1, 2**60)], "size_bytes"),
])
def test_bad_events_name_the_field(events: list[tuple[str, int, int]], field: str) -> None:
    with pytest.raises((InputError, ValueError), match=field.replace("[", r"\[").replace("]", r"\]")):
        replay(events)


def test_a_block_is_freed_once() -> None:
    allocator = CachingAllocator()
    block = allocator.malloc(MIB)
    allocator.free(block)
    with pytest.raises(ValueError, match="already free"):
        allocator.free(block)


def test_out_of_capacity_the_free_segments_are_released_and_the_request_retried() -> None:
    # Two 40 MiB segments cached free, capacity 100 MiB: an 80 MiB request needs a new segment
    # (160 + 80 > 100), so both are released (reserved 0) and the request gets its own 80 MiB.
    allocator = replay([("alloc", 1, 40 * MIB), ("alloc", 2, 40 * MIB), ("free", 1, 0), ("free", 2, 0),
                        ("alloc", 3, 80 * MIB)], capacity_bytes=100 * MIB)
    assert allocator.reserved_bytes == 80 * MIB


def test_a_segment_with_a_live_block_is_not_released() -> None:
    # A 100 MiB segment split 60 live + 40 free stays (its free part cannot be given back); a 50 MiB
    # request needs a new segment and 100 + 50 > 120: out of memory.
    events = [("alloc", 1, 100 * MIB), ("free", 1, 0), ("alloc", 2, 60 * MIB), ("alloc", 3, 50 * MIB)]
    with pytest.raises(AllocatorOutOfMemory):
        replay(events, capacity_bytes=120 * MIB)
    assert replay(events, capacity_bytes=150 * MIB).reserved_bytes == 150 * MIB
