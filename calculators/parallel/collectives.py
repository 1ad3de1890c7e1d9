"""Time of one NCCL-style collective over a ring: all-reduce, reduce-scatter, all-gather.

The alpha-beta model of a ring over ``N`` GPUs, where each GPU sends to the next and
receives from the previous one at the same time (so the bandwidth that matters is the
link's **per-direction** rate):

* all-reduce = reduce-scatter + all-gather: ``2 (N-1)/N x bytes / (bw x eff) + 2 (N-1) x alpha``
* reduce-scatter or all-gather: ``(N-1)/N x bytes / (bw x eff) + (N-1) x alpha``

``bytes`` is the size of the full buffer (the gradients being summed, or the whole
gathered parameter tensor), ``bw`` the per-direction link bandwidth in bytes/s, ``eff``
the fraction of it the library reaches (an **assumed** efficiency, passed explicitly),
``alpha`` the fixed cost of one ring step (assumed).

nccl-tests reports the same quantity as a **bus bandwidth**: ``busbw = algbw x
2(N-1)/N`` for all-reduce and ``algbw x (N-1)/N`` for reduce-scatter and all-gather,
with ``algbw = bytes / time``. For a large buffer this model's busbw is ``bw x eff``,
independent of ``N``, which is why busbw is the figure to compare with a link's
per-direction bandwidth.

>>> t = ring_collective_time_s("all-reduce", 1e9, gpus=8, link_bytes_per_s=450e9, efficiency=0.8,
...                            latency_s=0.0)
>>> round(t * 1e3, 3)  # ms: 2 x 7/8 x 1 GB / 360 GB/s
4.861
>>> round(bus_bandwidth_bytes_per_s("all-reduce", 1e9, gpus=8, time_s=t) / 1e9, 1)
360.0

References:
    NVIDIA nccl-tests, doc/PERFORMANCE.md (algbw and busbw);
    docs page "Interconnect and communication time".
"""

from __future__ import annotations

from calculators.validate import finite_float, one_of, positive_int

#: Collectives this module times.
COLLECTIVES: tuple[str, ...] = ("all-reduce", "reduce-scatter", "all-gather")

#: Default fraction of the per-direction link bandwidth a collective reaches (assumed).
#: NCCL's maintainer puts NCCL's protocol overhead on NVLink at about 20 % (an effective
#: 370 GB/s of H100's 450 GB/s per direction, NVIDIA/nccl-tests issue 212); PCIe systems
#: reach much less (see the validation table on the interconnect page).
DEFAULT_EFFICIENCY = 0.8
#: Default fixed cost of one ring step, seconds (assumed): 8-GPU all-reduces of 8 bytes
#: take 12-42 microseconds in published nccl-tests runs, i.e. 1-3 microseconds per step.
DEFAULT_LATENCY_S = 2e-6
#: Largest accepted efficiency: above 1 only where the switch does the reduction (NVLink SHARP's
#: busbw exceeds the per-direction link rate, nccl-tests issue 212).
MAX_EFFICIENCY = 2.0

MAX_GPUS = 1 << 16
MAX_BYTES = 1e18
MAX_LINK_BYTES_PER_S = 1e15
MAX_LATENCY_S = 1.0


def ring_steps(collective: str, *, gpus: int) -> int:
    """Number of sequential ring steps: ``2 (N-1)`` for all-reduce, ``N-1`` otherwise.

    >>> ring_steps("all-reduce", gpus=8), ring_steps("all-gather", gpus=8)
    (14, 7)
    """
    kind = one_of("collective", collective, COLLECTIVES)
    n = positive_int("gpus", gpus, maximum=MAX_GPUS)
    return (2 if kind == "all-reduce" else 1) * (n - 1)


def bus_factor(collective: str, *, gpus: int) -> float:
    """busbw / algbw in nccl-tests' convention: ``2(N-1)/N`` or ``(N-1)/N``.

    >>> bus_factor("all-reduce", gpus=8)
    1.75
    """
    n = positive_int("gpus", gpus, maximum=MAX_GPUS)
    return ring_steps(collective, gpus=n) / n


def ring_collective_time_s(collective: str, buffer_bytes: float, *, gpus: int, link_bytes_per_s: float,
                           efficiency: float = DEFAULT_EFFICIENCY, latency_s: float = DEFAULT_LATENCY_S,
                           calls: int = 1) -> float:
    """Seconds for one ring collective over ``gpus`` GPUs (an estimate at the assumed efficiency).

    Formula: ``bus_factor x bytes / (bw x eff) + calls x ring_steps x alpha``. With
    ``efficiency=1`` and ``latency_s=0`` it is the lower bound the link allows.

    Args:
        collective: ``"all-reduce"``, ``"reduce-scatter"`` or ``"all-gather"``.
        buffer_bytes: size of the whole buffer, bytes (summed or gathered).
        gpus: GPUs in the ring; one GPU takes no time.
        link_bytes_per_s: per-direction bandwidth of the slowest link in the ring, bytes/s.
        efficiency: fraction of that bandwidth reached, in (0, 2] (above 1 only with in-switch
            reduction, NVLink SHARP); :mod:`calculators.parallel.links` fits it per link kind.
        latency_s: fixed cost per ring step, seconds (assumed).
        calls: how many separate collectives the buffer is split into (buckets, layers);
            each pays the latency term.

    Returns:
        Time in seconds, never negative.

    Raises:
        InputError: a value is out of range; the message names it.
    """
    kind = one_of("collective", collective, COLLECTIVES)
    n = positive_int("gpus", gpus, maximum=MAX_GPUS)
    size = finite_float("buffer_bytes", buffer_bytes, minimum=0.0, maximum=MAX_BYTES)
    bw = finite_float("link_bytes_per_s", link_bytes_per_s, minimum=0.0, maximum=MAX_LINK_BYTES_PER_S,
                      allow_minimum=False)
    eff = finite_float("efficiency", efficiency, minimum=0.0, maximum=MAX_EFFICIENCY, allow_minimum=False)
    alpha = finite_float("latency_s", latency_s, minimum=0.0, maximum=MAX_LATENCY_S)
    count = positive_int("calls", calls, maximum=1 << 30)
    if n == 1 or size == 0:
        return 0.0
    return bus_factor(kind, gpus=n) * size / (bw * eff) + count * ring_steps(kind, gpus=n) * alpha


def bus_bandwidth_bytes_per_s(collective: str, buffer_bytes: float, *, gpus: int, time_s: float) -> float:
    """nccl-tests' busbw for a measured or modelled time: ``bytes / time x bus_factor``.

    >>> bus_bandwidth_bytes_per_s("all-gather", 8e9, gpus=8, time_s=0.02) / 1e9
    350.0
    """
    size = finite_float("buffer_bytes", buffer_bytes, minimum=0.0, maximum=MAX_BYTES)
    t = finite_float("time_s", time_s, minimum=0.0, maximum=1e9, allow_minimum=False)
    return size / t * bus_factor(collective, gpus=gpus)


def tensor_parallel_bytes_per_layer(*, tokens: int, hidden_size: int, activation_bytes: int = 2) -> int:
    """Bytes all-reduced per transformer layer per step under Megatron tensor parallelism.

    Formula: ``4 x tokens x hidden x bytes``: two all-reduces in forward (after the
    attention and MLP blocks) and two in backward (their input gradients), each of the
    layer's ``tokens x hidden`` activations (Megatron-LM, Shoeybi et al. 2019, section 3).

    >>> tensor_parallel_bytes_per_layer(tokens=4096, hidden_size=4096) / 2**20  # MiB
    128.0
    """
    t = positive_int("tokens", tokens, maximum=1 << 40)
    h = positive_int("hidden_size", hidden_size, maximum=1 << 20)
    b = positive_int("activation_bytes", activation_bytes, maximum=8)
    return 4 * t * h * b


def multi_node_ring_bytes_per_s(*, intra_node_bytes_per_s: float, nic_bytes_per_s: float, nics_per_node: int) -> float:
    """Per-direction bandwidth a ring spanning several nodes sees per GPU, bytes/s (a bound).

    Formula: ``min(intra_node, nics_per_node x nic)``. NCCL runs one ring per NIC; in
    each ring only the hops between nodes cross a NIC, so the nodes' NICs together carry
    what one GPU's intra-node link carries (NCCL's maintainers: on 3+ nodes busbw
    "reflects the total NIC bandwidth", NVIDIA/nccl-tests issue 160). Both inputs are
    per-direction figures.

    >>> multi_node_ring_bytes_per_s(intra_node_bytes_per_s=300e9, nic_bytes_per_s=25e9, nics_per_node=8) / 1e9
    200.0
    """
    intra = finite_float("intra_node_bytes_per_s", intra_node_bytes_per_s, minimum=0.0,
                         maximum=MAX_LINK_BYTES_PER_S, allow_minimum=False)
    nic = finite_float("nic_bytes_per_s", nic_bytes_per_s, minimum=0.0, maximum=MAX_LINK_BYTES_PER_S,
                       allow_minimum=False)
    count = positive_int("nics_per_node", nics_per_node, maximum=1024)
    return min(intra, count * nic)
