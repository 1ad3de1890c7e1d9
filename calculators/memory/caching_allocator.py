"""A simulation of PyTorch's CUDA caching allocator: what it reserves for a sequence of allocations.

``max_memory_allocated`` is the most the live tensors ever held; ``max_memory_reserved`` is
what the allocator took from the driver to serve them, and the difference depends on the
order of the requests, not only their sizes. Replaying an allocation order through the
allocator's rules gives the reserved peak. The rules (PyTorch ``c10/cuda/CUDACachingAllocator.cpp``,
default settings: no ``max_split_size_mb``, no ``expandable_segments``, one stream):

* a request is rounded up to a multiple of 512 bytes (at least 512);
* requests of at most 1 MiB come from a *small* pool, larger ones from a *large* pool, and a
  block never moves between pools;
* a request takes the smallest cached free block of its pool that is large enough (best fit);
* with none, the allocator takes a new segment from the driver: 2 MiB for a small request,
  20 MiB for a request under 10 MiB, otherwise the request rounded up to 2 MiB;
* a block larger than the request is split when what remains is at least 512 bytes (small
  pool) or more than 1 MiB (large pool); the remainder stays cached;
* a freed block merges with free neighbours of the same segment, never across segments;
* segments are kept until ``empty_cache()`` releases them, so the reserved bytes only grow in a
  run with memory to spare;
* with a ``capacity_bytes`` (what ``cudaMalloc`` can get: the usable memory less the CUDA
  context), a new segment that does not fit first makes the allocator release every cached
  segment that is wholly free, then retry (``release_cached_blocks``); a request that still
  does not fit raises :class:`AllocatorOutOfMemory`, as ``torch.OutOfMemoryError`` is raised.

>>> allocator = CachingAllocator()
>>> a = allocator.malloc(300 * MIB); b = allocator.malloc(100 * MIB)
>>> allocator.free(a)
>>> c = allocator.malloc(200 * MIB)      # best fit: split from the cached 300 MiB block
>>> d = allocator.malloc(150 * MIB)      # the 100 MiB left there is too small: a new segment
>>> allocator.reserved_bytes // MIB, allocator.peak_allocated_bytes // MIB, allocator.peak_reserved_bytes // MIB
(550, 450, 550)

References:
    PyTorch ``c10/cuda/CUDACachingAllocator.cpp`` (``round_size``, ``get_allocation_size``,
    ``get_free_block``, ``should_split``, ``free_block``) and its header comment; PyTorch
    documentation, "CUDA semantics: memory management".
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass, field

from calculators.units import MIB
from calculators.validate import nonnegative_int

#: Requests are rounded up to a multiple of this, and no block is smaller.
MIN_BLOCK_BYTES = 512
#: The largest request served from the small pool.
SMALL_REQUEST_BYTES = 1 * MIB
#: Segment size for small requests.
SMALL_SEGMENT_BYTES = 2 * MIB
#: Segment size for large requests under :data:`MIN_LARGE_SEGMENT_REQUEST_BYTES`.
LARGE_SEGMENT_BYTES = 20 * MIB
#: Requests from this size on get a segment of their own size, rounded up to :data:`LARGE_ROUNDING_BYTES`.
MIN_LARGE_SEGMENT_REQUEST_BYTES = 10 * MIB
LARGE_ROUNDING_BYTES = 2 * MIB
#: The largest request the simulation accepts (1 PiB): a guard against absurd sizes.
MAX_REQUEST_BYTES = 1 << 50

_serials = itertools.count()


class AllocatorOutOfMemory(MemoryError):
    """A request the allocator cannot serve within its capacity, even after releasing its free segments."""


def rounded_request_bytes(size_bytes: int) -> int:
    """The block size a request of ``size_bytes`` takes: rounded up to 512 bytes, at least 512.

    >>> rounded_request_bytes(1), rounded_request_bytes(512), rounded_request_bytes(513)
    (512, 512, 1024)
    """
    size_bytes = nonnegative_int("size_bytes", size_bytes, maximum=MAX_REQUEST_BYTES)
    return max(MIN_BLOCK_BYTES, -(-size_bytes // MIN_BLOCK_BYTES) * MIN_BLOCK_BYTES)


def segment_bytes(block_bytes: int) -> int:
    """What the allocator takes from the driver when no cached block fits a request of ``block_bytes``.

    >>> [segment_bytes(n) // 1024 for n in (512, 1024 * 1024, 1024 * 1024 + 512, 11 * 1024 * 1024 + 512)]
    [2048, 2048, 20480, 12288]
    """
    if block_bytes <= SMALL_REQUEST_BYTES:
        return SMALL_SEGMENT_BYTES
    if block_bytes < MIN_LARGE_SEGMENT_REQUEST_BYTES:
        return LARGE_SEGMENT_BYTES
    return -(-block_bytes // LARGE_ROUNDING_BYTES) * LARGE_ROUNDING_BYTES


@dataclass(eq=False)
class Block:
    """A piece of one segment: allocated to a request, or cached free."""

    size_bytes: int
    small: bool
    segment: int
    free: bool = True
    previous: Block | None = field(default=None, repr=False)
    next: Block | None = field(default=None, repr=False)
    serial: int = field(default_factory=lambda: next(_serials))

    @property
    def key(self) -> tuple[int, int]:
        """Order in a pool: size, then age (the C++ allocator breaks ties by address)."""
        return (self.size_bytes, self.serial)


class CachingAllocator:
    """Replays ``malloc`` and ``free`` through the caching allocator's rules; tracks allocated and reserved bytes."""

    def __init__(self, capacity_bytes: int | None = None) -> None:
        self.capacity_bytes = (None if capacity_bytes is None
                               else nonnegative_int("capacity_bytes", capacity_bytes, maximum=MAX_REQUEST_BYTES))
        self._pools: dict[bool, list[tuple[tuple[int, int], Block]]] = {True: [], False: []}
        self._segments = itertools.count()
        self.allocated_bytes = 0
        self.reserved_bytes = 0
        self.peak_allocated_bytes = 0
        self.peak_reserved_bytes = 0

    def reset_peaks(self) -> None:
        """Start the peaks from the present values, as ``torch.cuda.reset_peak_memory_stats()`` does."""
        self.peak_allocated_bytes = self.allocated_bytes
        self.peak_reserved_bytes = self.reserved_bytes

    def malloc(self, size_bytes: int) -> Block:
        """Serve a request of ``size_bytes``: the best cached fit, split if worth it, or a new segment."""
        size = rounded_request_bytes(size_bytes)
        small = size <= SMALL_REQUEST_BYTES
        pool = self._pools[small]
        index = bisect.bisect_left(pool, ((size, -1),))
        if index < len(pool):
            block = pool.pop(index)[1]
        else:
            block = Block(self._new_segment_bytes(size), small, next(self._segments))
            self.reserved_bytes += block.size_bytes
        remaining = block.size_bytes - size
        if remaining >= MIN_BLOCK_BYTES if small else remaining > SMALL_REQUEST_BYTES:
            rest = Block(remaining, small, block.segment, previous=block, next=block.next)
            if block.next is not None:
                block.next.previous = rest
            block.next, block.size_bytes = rest, size
            self._cache(rest)
        block.free = False
        self.allocated_bytes += block.size_bytes
        self.peak_allocated_bytes = max(self.peak_allocated_bytes, self.allocated_bytes)
        self.peak_reserved_bytes = max(self.peak_reserved_bytes, self.reserved_bytes)
        return block

    def free(self, block: Block) -> None:
        """Return ``block`` to its pool, merged with the free neighbours of its segment."""
        if block.free:
            raise ValueError("block: already free (each allocation is freed once)")
        block.free = True
        self.allocated_bytes -= block.size_bytes
        for neighbour in (block.previous, block.next):
            if neighbour is None or not neighbour.free:
                continue
            self._uncache(neighbour)
            first, second = (neighbour, block) if neighbour is block.previous else (block, neighbour)
            first.size_bytes += second.size_bytes
            first.next = second.next
            if second.next is not None:
                second.next.previous = first
            block = first
        self._cache(block)

    def _new_segment_bytes(self, size: int) -> int:
        """The size of a new segment for ``size``, after releasing free segments if the capacity requires it."""
        wanted = segment_bytes(size)
        if self.capacity_bytes is None or self.reserved_bytes + wanted <= self.capacity_bytes:
            return wanted
        for small in (True, False):
            whole = [entry for entry in self._pools[small] if entry[1].previous is None and entry[1].next is None]
            for entry in whole:
                self._uncache(entry[1])
                self.reserved_bytes -= entry[1].size_bytes
        if self.reserved_bytes + wanted > self.capacity_bytes:
            raise AllocatorOutOfMemory(f"a {size}-byte request needs a {wanted}-byte segment; "
                                       f"{self.reserved_bytes} of {self.capacity_bytes} bytes are reserved")
        return wanted

    def cached_free_bytes(self) -> int:
        """Bytes reserved but not allocated now: ``reserved - allocated``."""
        return self.reserved_bytes - self.allocated_bytes

    def _cache(self, block: Block) -> None:
        bisect.insort(self._pools[block.small], (block.key, block))

    def _uncache(self, block: Block) -> None:
        pool = self._pools[block.small]
        del pool[bisect.bisect_left(pool, (block.key,))]


def replay(events: list[tuple[str, int, int]], *, reset_at: int = 0,
           capacity_bytes: int | None = None) -> CachingAllocator:
    """Replay ``("alloc", id, bytes)`` and ``("free", id, 0)`` events; peaks count from event ``reset_at`` on.

    Raises :class:`AllocatorOutOfMemory` when the events do not fit ``capacity_bytes``.

    >>> replay([("alloc", 1, 30 * MIB), ("free", 1, 0), ("alloc", 2, 40 * MIB)]).peak_reserved_bytes // MIB
    70
    >>> replay([("alloc", 1, 30 * MIB), ("free", 1, 0), ("alloc", 2, 40 * MIB)], capacity_bytes=50 * MIB).reserved_bytes
    41943040
    """
    allocator = CachingAllocator(capacity_bytes)
    live: dict[int, Block] = {}
    for index, (kind, key, size_bytes) in enumerate(events):
        if index == reset_at:
            allocator.reset_peaks()
        if kind == "alloc":
            live[key] = allocator.malloc(size_bytes)
        elif kind == "free":
            if key not in live:
                raise ValueError(f"events[{index}]: free of {key}, which is not allocated")
            allocator.free(live.pop(key))
        else:
            raise ValueError(f"events[{index}]: kind {kind!r}; accepted: 'alloc', 'free'")
    return allocator
