"""Fixed cost of a ring collective, seconds: per step in a node (measured), NCCL's own model across nodes.

Within a node the ring's fixed cost per step comes from published small-message times
(:data:`LATENCY_MEASUREMENTS`, :func:`latency_per_ring_step_s`). Across nodes no such figure was
read, so the cost is the one NCCL itself assumes when it chooses an algorithm
(``ncclTopoTuneModel`` in NVIDIA/nccl ``src/graph/tuning.cc``), for the ring with the Simple
protocol, the protocol of large messages:

* once per collective, the ring's base latency, :data:`RING_BASE_LATENCY_S` (8.4 us);
* each step that stays in a node, ``max(hwLat[intra], 3 x netOverhead)``: NVLink 3.4 us, PCIe
  5.7 us (:data:`INTRA_STEP_LATENCY_S`), and at least three network posts of
  :data:`NET_OVERHEAD_S` ("Inter-node rings still have to launch nsteps * net overhead");
* each step that crosses the network (``2 (nodes - 1)`` of an all-reduce's ``2 (N - 1)``,
  ``nodes - 1`` of an all-gather's or reduce-scatter's ``N - 1``), ``hwLat[NET] + 2 x latency``:
  :data:`NET_STEP_LATENCY_S` (14 us) plus twice the latency the network plugin reports (once for
  the transfer, once for the Simple protocol's flush), :func:`net_plugin_latency_s`: 0 for NCCL's
  own InfiniBand/RoCE transport, 75 us for AWS EFA through aws-ofi-nccl on p5.

Formula: ``base + (steps - inter) x intra + inter x (net + 2 x plugin)``.

Assumptions: the host CPU is not an input, so the network post overhead is NCCL's default for
an Intel or unknown host, 1 us (NCCL counts 2 us on an AMD host, which would make each intra-node
step of a cross-node ring 6 us instead of 3.4). Which algorithm runs (the ring; NVLSTree for an all-reduce
across two NVLink SHARP nodes, :func:`nvls_tree_latency_s`; NCCL's Tree where its model times it faster,
:func:`tree_latency_s`) is decided in :func:`calculators.parallel.collective_time.collective_cost`, the one timing
the answers' training step and the scored published runs share.

>>> from calculators.catalog.interconnects import get_interconnect
>>> round(cross_node_ring_latency_s("all-gather", gpus=16, nodes=2, intra_node=get_interconnect("nvlink4"),
...                                 network=get_interconnect("ib-ndr")) * 1e6, 1)  # 8.4 + 14 x 3.4 + 1 x 14
70.0

References:
    NVIDIA/nccl src/graph/tuning.cc (``ncclTunerConstantsDefaults``: baseLatencies, hwLatencies;
    ``getNetOverhead``; the ring branch of ``ncclTopoTuneModel``), read at commit 5067397 (2026-06-11);
    NVIDIA/nccl src/transport/net_ib/init.cc (``props->latency = 0; // Not set``);
    aws/aws-ofi-nccl src/platform-aws.cpp at v1.16.3 (p5/p5e ``.latency = 75.0``); docs page
    "Interconnect and communication time".
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import mean

from calculators.catalog.interconnects import Interconnect, get_interconnect  # noqa: F401 - used by the doctests
from calculators.catalog.sources import Source
from calculators.parallel.collectives import COLLECTIVES, ring_steps
from calculators.validate import instance_of, one_of, positive_int

_INTERCONNECT = "an Interconnect (calculators.catalog.interconnects.get_interconnect)"
#: Link families whose small-message latency is taken from the NVLink measurements.
_FAST_KINDS = ("nvlink", "infinity-fabric")


@dataclass(frozen=True, kw_only=True)
class SmallMessageLatency:
    """A published time of a tiny all-reduce (a few bytes): what one collective costs with no data.

    Attributes:
        link_kind: ``"nvlink"`` or ``"pcie"``: which links the figure stands for.
        system: GPUs, link and settings in words.
        gpus: ranks in the all-reduce.
        all_reduce_s: reported time, seconds.
        source: the thread, kind ``"measured"``.
    """

    link_kind: str
    system: str
    gpus: int
    all_reduce_s: float
    source: Source

    @property
    def per_ring_step_s(self) -> float:
        """The time over the ring's ``2 (N-1)`` steps, seconds (derived)."""
        return self.all_reduce_s / ring_steps("all-reduce", gpus=self.gpus)


def _issue(repo: str, number: int, title: str, date: str) -> Source:
    return Source(f"{repo} issue #{number}: {title}", f"https://github.com/{repo}/issues/{number}", date,
                  kind="measured")


#: Published small-message all-reduce times (nccl-tests ``all_reduce_perf``, smallest size).
LATENCY_MEASUREMENTS: tuple[SmallMessageLatency, ...] = (
    SmallMessageLatency(
        link_kind="nvlink", system="2 x H100 SXM, NVSwitch, NCCL 2.20.5 NVLSTree with CUDA graphs, 128 B", gpus=2,
        all_reduce_s=6e-6,
        source=_issue("NVIDIA/nccl", 1259, "Is intra-node latency supposed to increase with the number of GPUs "
                      "when using NVLink SHARP? (2 GPUs: approximately 6 us)", "2024-04-22")),
    SmallMessageLatency(
        link_kind="pcie", system="8 x GeForce RTX 4090, PCIe, 8 B out-of-place", gpus=8, all_reduce_s=42.14e-6,
        source=_issue("NVIDIA/nccl", 1530, "Ring all-reduce shows poor bandwidth utilization on PCIe-connected "
                      "GPUs (8 B: 42.14 us)", "2026-11-21")),
    SmallMessageLatency(
        link_kind="pcie", system="8 x GeForce RTX 3090, PCIe, 8 B out-of-place", gpus=8, all_reduce_s=54.18e-6,
        source=_issue("NVIDIA/nccl", 1439, "ALLREDUCE timeout (nccl-tests output on 8 x RTX 3090: 8 B in "
                      "54.18 us)", "2024-09-11")),
)


def latency_per_ring_step_s(link: Interconnect) -> float:
    """Fixed cost of one ring step on this link, seconds (derived from :data:`LATENCY_MEASUREMENTS`).

    NVLink and Infinity Fabric: the mean per-step time of the NVLink records; PCIe: that of
    the PCIe records; network links: the PCIe figure (assumed: no small-message figure for
    a network was read, and a network hop is unlikely to be faster). A collective across nodes
    is timed with NCCL's own cross-node model instead (:func:`cross_node_ring_latency_s`, through
    :func:`calculators.parallel.collective_time.collective_cost`), and so is a network link named for every hop.

    >>> round(latency_per_ring_step_s(get_interconnect("nvlink4")) * 1e6, 1)
    3.0
    """
    link = instance_of("link", link, Interconnect, "an Interconnect (calculators.catalog.interconnects.get_interconnect)")
    kind = "nvlink" if link.kind in _FAST_KINDS else "pcie"
    return mean(r.per_ring_step_s for r in LATENCY_MEASUREMENTS if r.link_kind == kind)


# --- across nodes: NCCL's own latency model ----------------------------------------------------------------

#: NCCL's base latency of a ring collective with the Simple protocol, seconds (``baseLatencies``, Ring/Simple:
#: 8.4 us; NVIDIA/nccl src/graph/tuning.cc at commit 5067397). Sourced.
RING_BASE_LATENCY_S = 8.4e-6
#: NCCL's hardware latency of one ring step with the Simple protocol inside a node, seconds, by what links the
#: node's GPUs (``hwLatencies[NCCL_HW_NVLINK]`` 3.4 us, ``[NCCL_HW_PCI]`` 5.7 us, Ring/Simple; same file). NCCL
#: takes NVLink's wherever the intra-node graph is NVLink and PCIe's otherwise; AMD's Infinity Fabric is taken as
#: NVLink (a GPU-to-GPU link; RCCL's own constants were not read). Sourced.
INTRA_STEP_LATENCY_S: dict[str, float] = {"nvlink": 3.4e-6, "pci": 5.7e-6}
#: NCCL's hardware latency of one ring step over the network with the Simple protocol, seconds
#: (``hwLatencies[NCCL_HW_NET]``, Ring/Simple: 14 us; same file). Sourced.
NET_STEP_LATENCY_S = 14e-6
#: NCCL's cost of posting one network operation, seconds: ``getNetOverhead`` returns 1 us on an Intel x86 host and
#: on any host it does not single out, 2 us on an AMD one; the Simple protocol pays it three times per step
#: (:data:`SIMPLE_NET_POSTS`). The default, 1 us, is taken: the host CPU is not an input. Sourced (assumed host).
NET_OVERHEAD_S = 1e-6
#: Network posts per ring step NCCL counts for the Simple protocol (``netOverhead *= 3``; same function).
SIMPLE_NET_POSTS = 3
#: Latency a network plugin reports to NCCL, seconds, by network link id, which NCCL adds twice to each network
#: step. NCCL's own InfiniBand/RoCE transport reports none (``props->latency = 0; // Not set``,
#: src/transport/net_ib/init.cc); AWS's aws-ofi-nccl plugin reports 75 us on p5 and p5e instances
#: (src/platform-aws.cpp at v1.16.3, 2025-08-12, the version of the published p5 runs: "Empirical testing on P5
#: had shown that NCCL's internal tuner choices work better with this value"). A link not listed reports none.
NET_PLUGIN_LATENCY_S: dict[str, float] = {"efa-100g": 75e-6}


def net_plugin_latency_s(network: Interconnect) -> float:
    """Latency the network's NCCL plugin reports, seconds (:data:`NET_PLUGIN_LATENCY_S`; 0 when not listed).

    >>> from calculators.catalog.interconnects import get_interconnect
    >>> net_plugin_latency_s(get_interconnect("efa-100g")) * 1e6, net_plugin_latency_s(get_interconnect("ib-ndr"))
    (75.0, 0.0)
    """
    network = instance_of("network", network, Interconnect, _INTERCONNECT)
    return NET_PLUGIN_LATENCY_S.get(network.id, 0.0)


def intra_node_step_latency_s(intra_node: Interconnect) -> float:
    """NCCL's latency of one intra-node step of a ring that crosses nodes, seconds.

    Formula: ``max(hwLat[NVLink or PCIe], 3 x netOverhead)``.

    >>> from calculators.catalog.interconnects import get_interconnect
    >>> round(intra_node_step_latency_s(get_interconnect("nvlink4")) * 1e6, 1)
    3.4
    """
    intra_node = instance_of("intra_node", intra_node, Interconnect, _INTERCONNECT)
    hw = "nvlink" if intra_node.kind in ("nvlink", "infinity-fabric") else "pci"
    return max(INTRA_STEP_LATENCY_S[hw], SIMPLE_NET_POSTS * NET_OVERHEAD_S)


def net_step_latency_s(network: Interconnect) -> float:
    """NCCL's latency of one ring step over the network, seconds: ``hwLat[NET] + 2 x plugin latency``.

    >>> from calculators.catalog.interconnects import get_interconnect
    >>> round(net_step_latency_s(get_interconnect("efa-100g")) * 1e6, 1)  # 14 + 2 x 75
    164.0
    """
    return NET_STEP_LATENCY_S + 2.0 * net_plugin_latency_s(network)


def cross_node_ring_latency_s(collective: str, *, gpus: int, nodes: int, intra_node: Interconnect,
                              network: Interconnect) -> float:
    """Fixed cost of one ring collective over ``gpus`` GPUs on ``nodes`` nodes, seconds (NCCL's model).

    Formula: ``base + (steps - inter) x intra + inter x (net + 2 x plugin)``, ``steps`` the ring's
    (``2 (N - 1)`` or ``N - 1``), ``inter`` those that cross the network (``2 (nodes - 1)`` or
    ``nodes - 1``). On one node: ``steps x intra`` plus the base.

    Args:
        collective: ``"all-reduce"``, ``"reduce-scatter"`` or ``"all-gather"``.
        gpus: ranks in the ring, at least ``nodes``.
        nodes: nodes the ring spans.
        intra_node: the link between GPUs of a node.
        network: the NIC between nodes.

    Returns:
        Seconds, the whole collective's fixed cost (divide by the ring's steps for a per-step figure).

    >>> from calculators.catalog.interconnects import get_interconnect
    >>> t = cross_node_ring_latency_s("all-gather", gpus=256, nodes=32, intra_node=get_interconnect("nvlink4"),
    ...                               network=get_interconnect("efa-100g"))
    >>> round(t * 1e3, 2)  # ms: 8.4 us + 224 x 3.4 us + 31 x 164 us
    5.85
    """
    kind = one_of("collective", collective, COLLECTIVES)
    n = positive_int("gpus", gpus, maximum=1 << 16)
    count = positive_int("nodes", nodes, maximum=n)
    steps = ring_steps(kind, gpus=n)
    if steps == 0:
        return 0.0
    inter = (2 if kind == "all-reduce" else 1) * (count - 1)
    return (RING_BASE_LATENCY_S + (steps - inter) * intra_node_step_latency_s(intra_node)
            + inter * net_step_latency_s(network))


#: NCCL's latencies of its (binary) Tree all-reduce with the Simple protocol, seconds: ``baseLatencies`` Tree/Simple
#: 8.4 us; ``hwLatencies`` Tree/Simple NVLink 4.0 us, PCIe 4.0 us, NET 14 us (src/graph/tuning.cc at commit 5067397).
#: Sourced.
TREE_BASE_LATENCY_S = 8.4e-6
TREE_INTRA_LATENCY_S = 4.0e-6
TREE_NET_LATENCY_S = 14e-6


def tree_latency_s(*, gpus: int, nodes: int, network: Interconnect) -> float:
    """Fixed cost of one Tree all-reduce over ``gpus`` GPUs on ``nodes`` nodes, seconds (NCCL's model).

    Formula: ``base + 2 x ((gpus / nodes - 1) x intra + log2(nodes) x (net + 2 x plugin))``: up and down a
    chain in each node and a tree between nodes (``log2i``, the floor). The intra-node hop is 4 us on NVLink and
    PCIe alike.

    >>> from calculators.catalog.interconnects import get_interconnect
    >>> round(tree_latency_s(gpus=64, nodes=8, network=get_interconnect("ib-ndr")) * 1e6, 1)  # 8.4 + 2 (28 + 42)
    148.4
    """
    n = positive_int("gpus", gpus, maximum=1 << 16)
    count = positive_int("nodes", nodes, maximum=n)
    hops = count.bit_length() - 1
    return TREE_BASE_LATENCY_S + 2 * ((n // count - 1) * TREE_INTRA_LATENCY_S
                                      + hops * (TREE_NET_LATENCY_S + 2.0 * net_plugin_latency_s(network)))


#: NCCL's latencies of its NVLSTree all-reduce with the Simple protocol, seconds (``hwLatencies``: NVLink, NVLSTree
#: 25 us; NET, NVLSTree 20.9 us; ``baseLatencies`` NVLSTree 0; src/graph/tuning.cc at commit 5067397). Sourced.
NVLS_TREE_INTRA_LATENCY_S = 25e-6
NVLS_TREE_NET_LATENCY_S = 20.9e-6


def nvls_tree_latency_s(*, nodes: int, network: Interconnect) -> float:
    """Fixed cost of one NVLSTree all-reduce across ``nodes`` nodes, seconds (NCCL's model).

    Formula: ``intra + 2 x log2(nodes) x (net + 2 x plugin)``: once through the node's switch, then up and
    down the tree between nodes, each network hop at NCCL's NVLSTree latency plus twice the plugin's
    (:func:`net_plugin_latency_s`). log2 is NCCL's ``log2i``, the floor.

    >>> from calculators.catalog.interconnects import get_interconnect
    >>> round(nvls_tree_latency_s(nodes=2, network=get_interconnect("efa-100g")) * 1e6, 1)  # 25 + 2 x (20.9 + 150)
    366.8
    """
    count = positive_int("nodes", nodes, maximum=1 << 16)
    hops = count.bit_length() - 1
    return NVLS_TREE_INTRA_LATENCY_S + 2 * hops * (NVLS_TREE_NET_LATENCY_S + 2.0 * net_plugin_latency_s(network))
