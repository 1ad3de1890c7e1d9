"""One link model for every command: the fraction of a link's per-direction bandwidth a large collective reaches.

``parallel``, ``train-time``, ``speed`` and ``recommend`` all time their collectives with
:func:`collective_efficiency`, so one question about one link gets one answer. Links
fall into seven kinds; each kind's efficiency ``busbw / per-direction bandwidth`` comes
from what moves the bytes and none is fitted; the published nccl-tests runs
(``tests/data/published_speed/collectives.jsonl``) score it:

* ``nvlink``: a ring over NVLink through a switch:
  :data:`NVLINK_PAYLOAD_EFFICIENCY`, the share of the line rate the SMs' 128-byte payloads carry
  (derived);
* ``nvlink-bridge``: a two-GPU NVLink bridge: the same NVLink packets, the same share (derived);
* ``infinity-fabric``: AMD's xGMI links between Instinct GPUs: :data:`XGMI_EFFICIENCY`, AMD's usable share of
  each link after CRC and protocol overhead (derived);
* ``nvlink-sharp``: an all-reduce on an NVSwitch with NVLink SHARP (H100/H200/B200
  nodes), which NCCL uses by default for all-reduce (NCCL maintainer, nccl-tests issue
  212): the switch adds the partial sums, so busbw exceeds the per-direction link rate
  (:func:`nvls_bus_efficiency`: the bytes each GPU moves, NVLink's payload share and NCCL's own
  NVLS efficiency; derived, at an 8-GPU Hopper node); reduce-scatter and all-gather stay rings (``nvlink``);
* ``pcie``: GPUs writing into each other's memory over PCIe (peer-to-peer: a PCIe switch, an
  AMD host): :data:`PCIE_PEER_EFFICIENCY`, NCCL's own figure for a PCIe link (derived);
* ``pcie-host``: PCIe staged through host memory, the default between PCIe GPUs (GeForce
  cards have no peer-to-peer; NCCL uses none through an Intel root complex): each hop is a
  write to host memory and a read back, :data:`HOST_STAGED_EFFICIENCY` (assumed);
* ``infiniband``: a ring across nodes, per GPU ``min(intra-node link, NICs per node x NIC)``
  (:func:`calculators.parallel.collectives.multi_node_ring_bytes_per_s`), at
  :data:`NIC_EFFICIENCY` (NCCL maintainers' expected peak per NIC, derived);
* ``ethernet``: the same ring over Ethernet NICs (RoCE, AWS EFA), at the same :data:`NIC_EFFICIENCY`
  (the maintainers state one expected figure per NIC for InfiniBand and RoCE alike).

Across nodes a collective also pays NCCL's own latency model (:mod:`calculators.parallel.latency`), and an
all-reduce across two NVLink SHARP nodes is NCCL's NVLSTree (:func:`nvls_tree_applies`,
:func:`~calculators.parallel.nvls.nvls_tree_algbw_bytes_per_s`): each node's NICs carry the buffer once each way;
:func:`calculators.parallel.collective_time.collective_cost` times a collective so, for the answers and the scored
published runs alike.

Formula: ``efficiency(kind)``: the derived constant of the kind (:data:`LINK_EFFICIENCY`, each with its basis in
:data:`LINK_EFFICIENCY_BASIS`). Nothing is fitted: the published runs score the model, they do not set it, so a
run scores the same whichever group of runs is held out.

>>> from calculators.catalog.interconnects import get_interconnect
>>> link_kind(get_interconnect("nvlink4"), collective="all-reduce", gpus=8)
'nvlink-sharp'
>>> link_kind(get_interconnect("nvlink4"), collective="all-gather", gpus=8)
'nvlink'
>>> round(collective_efficiency(get_interconnect("pcie4"), collective="all-reduce", gpus=4), 3)
0.75
>>> collective_efficiency(get_interconnect("pcie4-host"), collective="all-reduce", gpus=4)
0.5
>>> round(latency_per_ring_step_s(get_interconnect("pcie4")) * 1e6, 2)  # microseconds
3.44

References:
    NVIDIA nccl-tests doc/PERFORMANCE.md (busbw); NVIDIA/nccl src/graph/topo.h (NCCL's link
    bandwidths); the threads cited below and in the dataset; docs page "Interconnect and
    communication time".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from calculators.catalog.interconnects import Interconnect, get_interconnect
from calculators.parallel.collectives import (
    COLLECTIVES,
    MAX_EFFICIENCY,
    multi_node_ring_bytes_per_s,
)
# The fixed costs (per ring step in a node, NCCL's model across nodes) are the latency module's; re-exported here.
from calculators.parallel.latency import LATENCY_MEASUREMENTS as LATENCY_MEASUREMENTS
from calculators.parallel.latency import SmallMessageLatency as SmallMessageLatency
from calculators.parallel.latency import latency_per_ring_step_s as latency_per_ring_step_s
from calculators.parallel.nvls import NVLINK_PAYLOAD_EFFICIENCY as NVLINK_PAYLOAD_EFFICIENCY
from calculators.parallel.nvls import NVLS_GENERATION as NVLS_GENERATION
from calculators.parallel.nvls import NVLS_NODE_GPUS as NVLS_NODE_GPUS
from calculators.parallel.nvls import NVLS_SWITCH_EFFICIENCY as NVLS_SWITCH_EFFICIENCY
from calculators.parallel.nvls import SHARP_LINKS as SHARP_LINKS
from calculators.parallel.nvls import nvls_bus_efficiency as nvls_bus_efficiency
from calculators.parallel.nvls import nvls_link_efficiency as nvls_link_efficiency
from calculators.parallel.nvls import nvls_tree_algbw_bytes_per_s as nvls_tree_algbw_bytes_per_s
from calculators.validate import finite_float, instance_of, one_of, positive_int

#: Link kinds with their own collective efficiency.
LINK_KINDS: tuple[str, ...] = ("nvlink", "nvlink-sharp", "nvlink-bridge", "infinity-fabric", "pcie", "pcie-host",
                               "infiniband", "ethernet")
#: Algorithms a collective can be pinned to: ``auto`` is NCCL's default (NVLink SHARP for an all-reduce
#: on a SHARP switch), ``ring`` what ``NCCL_ALGO=RING`` forces, ``nvls`` NVLink SHARP.
ALGORITHMS: tuple[str, ...] = ("auto", "ring", "nvls")
#: AMD Infinity Fabric (xGMI): "After protocol and error correction overheads, the max theoretical per-direction
#: bandwidth for gfx94 devices is 48GB/s" of a link's 64 GB/s (AMD's G. Lee, ROCm/rccl issue 1210, 2024-07-02;
#: RCCL's topology counts an XGMI link at 48.0 GB/s, ncclTopoXGMISpeed), and AMD's blog "Understanding RCCL Bandwidth
#: and xGMI Performance on AMD Instinct MI300X" (2025-03-02): "approximately 48 GB/s per link ... about 75% of the
#: theoretical peak". Derived on MI300X (gfx942); the MI325X shares its links, and the MI355X's faster links are
#: taken to carry the same share (assumed).
XGMI_EFFICIENCY = 0.75
#: PCIe peer-to-peer: NCCL's topology model counts a Gen3 x16 link as 12 GB/s (PCI_BW in
#: src/graph/topo.h) of its 16 GB/s per direction, what is left after 128b/130b encoding and
#: packet headers; later generations scale with the lane rate. Derived.
PCIE_PEER_EFFICIENCY = 0.75
#: PCIe staged through host memory (no peer-to-peer: the GeForce driver; NCCL's default between GPUs
#: not behind one PCIe switch on an Intel host, src/graph/paths.cc): each hop is two PCIe transfers
#: through the host, the sender writing a chunk into host memory and the receiver reading it back,
#: which the host's root complex and memory serve in turn: taken as half the link's per-direction
#: rate. Assumed (first order), not fitted: the host's memory bandwidth and sockets, which also set
#: it (NCCL maintainer, NVIDIA/nccl issue 1639: "the bandwidth your CPU and memory can deliver"), are
#: not inputs. Against the two published staged runs (4 and 8 x RTX 5090 on two Xeon 8480+, the same
#: issue) it is 9 % low and 14 % high; the drop from 4 to 8 GPUs (a ring across both sockets) is not
#: modelled.
HOST_STAGED_EFFICIENCY = 0.5
#: A network ring per NIC: NCCL's maintainers "usually consider 24GB/s is the peak performance per
#: 200G NIC (12 GB/s for 100G NICs)" (S. Jeaugey, NVIDIA/nccl-tests issue 119, 2022-11-17): 0.96
#: of the line rate. The same for RoCE: "Running on two nodes (over IB/RoCE) ... For NDR @ 400Gbps you should see
#: 46-48GB/s per NIC" (A. Laddy, NVIDIA/nccl-tests issue 290, 2025-03-03), and to a reporter on 400G RoCE,
#: "CX-7 NICs at NDR rate (400Gbps) should achieve up to 48-49GB/s per NIC" (nccl-tests issue 267, 2025-01-23):
#: NCCL drives a RoCE NIC through the same verbs transport (NET/IB) as an InfiniBand one. Derived; applied to every
#: network NIC (InfiniBand, Ethernet/RoCE, and AWS EFA, for which no figure of AWS's own was read).
NIC_EFFICIENCY = 0.96

#: Efficiency of each link kind, derived from how its bytes move (none is fitted), with its basis below. Ethernet was
#: fitted (0.675, the median of the two RoCE runs, then 0.8121 with the p5 EFA runs) until the maintainers' per-NIC
#: figure was read for RoCE, and NVLink SHARP (1.0622 on its two runs) until :func:`nvls_bus_efficiency` derived it.
LINK_EFFICIENCY: dict[str, float] = {
    "nvlink": NVLINK_PAYLOAD_EFFICIENCY,
    "nvlink-bridge": NVLINK_PAYLOAD_EFFICIENCY,
    "infinity-fabric": XGMI_EFFICIENCY,
    "nvlink-sharp": round(nvls_bus_efficiency(NVLS_NODE_GPUS), 4),
    "pcie": PCIE_PEER_EFFICIENCY,
    "pcie-host": HOST_STAGED_EFFICIENCY,
    "infiniband": NIC_EFFICIENCY,
    "ethernet": NIC_EFFICIENCY,
}
LINK_EFFICIENCY_BASIS: dict[str, str] = {
    "nvlink": "NVLink's 128-byte payload share of the line rate (NCCL maintainer, nccl-tests issue 149)",
    "nvlink-bridge": "NVLink's 128-byte payload share of the line rate (NCCL maintainer, nccl-tests issue 149)",
    "infinity-fabric": "AMD's usable 48 of each xGMI link's 64 GB/s per direction after CRC and protocol overhead "
                       "(ROCm/rccl issue 1210; RCCL's XGMI link speed)",
    "nvlink-sharp": "NVLink SHARP all-reduce on an 8-GPU Hopper node: 2 (n-1)/(n+1) of NVLink's payload rate "
                    "(the bytes NVLS moves per GPU) at NCCL's NVLS efficiency 0.85 (NCCL src/graph/tuning.cc)",
    "pcie": "NCCL's PCIe figure, 12 GB/s of a Gen3 x16 link's 16 GB/s per direction (NCCL src/graph/topo.h)",
    "pcie-host": "half the per-direction rate: each hop through host memory is a PCIe write and a PCIe read "
                 "(assumed)",
    "infiniband": "24 GB/s per 200 Gb/s NIC, NCCL maintainer's expected peak (nccl-tests issue 119)",
    "ethernet": "the same expected peak per NIC for RoCE, 46-49 GB/s per 400 Gb/s NIC (NCCL maintainer, nccl-tests "
                "issues 290 and 267)",
}
def link_kind(link: Interconnect, *, collective: str = "all-reduce", gpus: int = 8, algorithm: str = "auto") -> str:
    """Which of :data:`LINK_KINDS` a collective over this link is timed as.

    NVLink SHARP only for an all-reduce over more than two GPUs on a SHARP-capable switch,
    unless a ring is forced (``algorithm="ring"``); a pair-only bridge is ``nvlink-bridge``;
    PCIe staged through host memory is ``pcie-host``; InfiniBand and Ethernet are their own.
    """
    link = instance_of("link", link, Interconnect, "an Interconnect (calculators.catalog.interconnects.get_interconnect)")
    kind = one_of("collective", collective, COLLECTIVES)
    n = positive_int("gpus", gpus, maximum=1 << 16)
    pinned = one_of("algorithm", algorithm, ALGORITHMS)
    if link.kind == "pcie":
        return "pcie-host" if link.host_staged else "pcie"
    if link.kind in ("infiniband", "ethernet"):
        return link.kind
    if link.kind == "infinity-fabric":
        return "infinity-fabric"
    if link.pair_only:
        return "nvlink-bridge"
    if kind == "all-reduce" and link.id in SHARP_LINKS and n > 2 and pinned != "ring":
        return "nvlink-sharp"
    return "nvlink"


def collective_efficiency(link: Interconnect, *, collective: str = "all-reduce", gpus: int = 8) -> float:
    """Fraction of the per-direction bandwidth a large collective reaches on this link.

    Formula: ``LINK_EFFICIENCY[link_kind(link, collective, gpus)]``; an NVLink SHARP all-reduce takes
    :func:`nvls_link_efficiency` (its GPU count and generation).

    >>> round(collective_efficiency(get_interconnect("nvlink3"), collective="all-gather"), 3)
    0.8
    """
    kind = link_kind(link, collective=collective, gpus=gpus)
    if kind == "nvlink-sharp":
        return nvls_link_efficiency(link, gpus=gpus)
    return LINK_EFFICIENCY[kind]


def record_link_kind(record: Mapping[str, Any]) -> str:
    """The kind the model times a collectives record as, from its link, GPUs and algorithm.

    >>> record_link_kind({"link": "nvlink4", "collective": "all-reduce", "gpus": 8, "algorithm": "ring"})
    'nvlink'
    """
    collective = str(record.get("collective") or "all-reduce")
    if collective == "all-to-all":  # NCCL's sends carry their bytes as a ring step does: no switch reduction
        collective = "all-gather"
    return link_kind(get_interconnect(str(record["link"])), collective=collective,
                     gpus=int(record.get("gpus") or 8), algorithm=str(record.get("algorithm") or "auto"))


def record_link_bytes_per_s(record: Mapping[str, Any]) -> float:
    """Per-direction bandwidth the ring model uses for a collectives record, bytes/s (derived).

    One node: the link's per-direction rate; several: ``min(intra-node, NICs per node x NIC)``.
    """
    link = get_interconnect(str(record["link"])).per_direction_bytes_per_s
    if not record.get("nics_per_node") or not record.get("intra_node"):
        return link
    return multi_node_ring_bytes_per_s(
        intra_node_bytes_per_s=get_interconnect(str(record["intra_node"])).per_direction_bytes_per_s,
        nic_bytes_per_s=link, nics_per_node=int(record["nics_per_node"]))


#: Nodes up to which NCCL's NVLSTree all-reduce crosses the network at twice a ring's rate ("Handle 2 node case of
#: NVLSTree": ``interBw x 2`` when ``nNodes <= 2``, NVIDIA/nccl src/graph/tuning.cc at commit 5067397).
NVLS_TREE_MAX_NODES = 2


def nvls_tree_applies(*, collective: str, nodes: int, intra_node: Interconnect, algorithm: str = "auto") -> bool:
    """Whether NCCL runs this all-reduce as NVLSTree: two nodes whose GPUs share an NVLink SHARP switch.

    On two nodes NCCL's model credits NVLSTree with twice the network rate a ring gets (tuning.cc), so
    it picks NVLSTree for large all-reduces there; AWS's tuner plugin (aws-ofi-nccl v1.16.3,
    src/tuner/nccl_ofi_regions.cpp, p5/p5e) pins NVLSTree/Simple for 16 ranks above 30 MiB too. On more
    nodes the tree's network rate is a ring's, and the ring is kept. A pinned ``ring`` or ``nvls`` never.
    """
    intra_node = instance_of("intra_node", intra_node, Interconnect, "an Interconnect (get_interconnect)")
    kind = one_of("collective", collective, COLLECTIVES)
    return (kind == "all-reduce" and 1 < positive_int("nodes", nodes, maximum=1 << 16) <= NVLS_TREE_MAX_NODES
            and intra_node.id in SHARP_LINKS and one_of("algorithm", algorithm, ALGORITHMS) == "auto")


def check_efficiency(field: str, value: object) -> float:
    """A user-given collective efficiency, in (0, 2] (above 1 only where the switch reduces: NVLink SHARP)."""
    return finite_float(field, value, minimum=0.0, maximum=MAX_EFFICIENCY, allow_minimum=False)
