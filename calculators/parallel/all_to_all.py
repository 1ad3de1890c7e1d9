"""One timing of an all-to-all (expert parallelism's dispatch and combine), on the link model of the collectives.

NCCL has no all-to-all algorithm: an all-to-all is a group of ``ncclSend``/``ncclRecv`` pairs, one per peer
(nccl-tests ``alltoall_perf``; PyTorch's ``all_to_all_single``), which NCCL schedules on its peer-to-peer
channels, every peer of the group in one kernel (``scheduleP2pTasksToPlan`` in NVIDIA/nccl src/enqueue.cc): no
ring, no tree, and no entry in NCCL's tuning model (``ncclTopoTuneModel``, src/graph/tuning.cc, times only the
collectives' algorithms). An all-to-all of ``S`` bytes per GPU over ``N`` GPUs, ``N_d`` of them in each scale-up
domain (a node's NVLink, a GB200 NVL72 rack), sends ``S / N`` to each peer and costs

    ``fixed + max(S x (N_d - 1) / N / intra, S x (N - N_d) / N / net)``

* **bandwidth**: the bytes for peers in the domain over the GPUs' own link at its link kind's efficiency (a
  send moves its bytes as a ring step does: :data:`calculators.parallel.links.LINK_EFFICIENCY` of the kind, never
  a switch reduction), those for peers in other domains over the GPU's share of its node's NICs at the NIC
  efficiency. The two paths run at once; the slower sets the time. Each GPU drives its own NIC: "Alltoall cannot
  aggregate the bandwidth of multiple NICs" (NCCL maintainer, nccl-tests issue 267), and across ``M`` nodes
  nccl-tests' busbw ``= algbw x (N - 1) / N`` comes to about ``M / (M - 1)`` times the network bandwidth per GPU
  (nccl-tests issue 130): the formula gives ``(N - 1) / (N - N_d)`` times it.
* **fixed cost**: the peers run concurrently on their own channels, so one all-to-all pays one step of the slowest
  transport it uses, at NCCL's own step latencies (:mod:`calculators.parallel.latency`): in a domain NCCL's
  intra-node step (NVLink 3.4 us, PCIe 5.7 us; :data:`~calculators.parallel.latency.INTRA_STEP_LATENCY_S`); across
  nodes a network step, 14 us plus twice the network plugin's reported latency
  (:func:`~calculators.parallel.latency.net_step_latency_s`: 75 us each for AWS EFA on p5), plus **per peer in
  another node** NCCL's cost of posting a network operation for its send and its receive (two proxy operations per
  peer, ``addP2pToPlan``; :data:`~calculators.parallel.latency.NET_OVERHEAD_S` each, ``getNetOverhead``), which the
  proxy thread posts one after another.

Assumptions: uniform routing (every peer gets ``S / N``); the Simple protocol (NCCL takes LL only below 16 KiB per
channel, ``NCCL_P2P_LL_THRESHOLD``); ranks fill a domain before crossing it; DeepEP's deduplication of tokens bound
for several experts of one remote node is not modelled.

>>> from calculators.catalog.interconnects import get_interconnect
>>> from calculators.parallel.collective_time import NodeSpan
>>> nvlink, ib = get_interconnect("nvlink4"), get_interconnect("ib-ndr")
>>> one = all_to_all_cost(gpus=8, link=nvlink)
>>> round(one.intra_bytes_per_s / 1e9), round(one.fixed_s * 1e6, 1)  # 0.8 x 450 GB/s; one NVLink step
(360, 3.4)
>>> four = all_to_all_cost(gpus=32, link=ib, span=NodeSpan(4, nvlink, 8, 8))
>>> round(four.inter_bytes_per_s / 1e9), round(four.fixed_s * 1e6, 1)  # 0.96 x 50 GB/s; 14 us + 24 x 2 x 1 us
(48, 62.0)
>>> round(four.bus_bytes_per_s(2**30) / 1e9, 1)  # 31/24 x 48 GB/s = 62.0 less the fixed cost (4/3 x 48 = 64)
61.8

References:
    NVIDIA/nccl src/enqueue.cc (``scheduleP2pTasksToPlan``, ``addP2pToPlan``) and src/graph/tuning.cc at commit
    5067397; nccl-tests src/alltoall.cc and doc/PERFORMANCE.md (busbw); nccl-tests issues 130 and 267 (NCCL
    maintainers on all-to-all bandwidth); the sources of :mod:`calculators.parallel.latency`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from calculators.catalog.interconnects import Interconnect, get_interconnect
from calculators.parallel.collective_time import NodeSpan
from calculators.parallel.latency import INTRA_STEP_LATENCY_S, NET_OVERHEAD_S, net_step_latency_s
from calculators.parallel.links import LINK_EFFICIENCY, link_kind
from calculators.validate import finite_float, instance_of, positive_int

#: The ``collective`` of an all-to-all record (nccl-tests ``alltoall_perf``).
ALL_TO_ALL = "all-to-all"
_INTERCONNECT = "an Interconnect (calculators.catalog.interconnects.get_interconnect)"
#: Network operations NCCL's proxy posts per peer in another node: one for the send, one for the receive
#: (``nProxyOps = 2`` for a peer that is not the rank itself, ``addP2pToPlan`` in NVIDIA/nccl src/enqueue.cc).
NET_POSTS_PER_PEER = 2


@dataclass(frozen=True, kw_only=True)
class AllToAllCost:
    """How one all-to-all is timed: the paths its bytes take and its fixed cost per call.

    Attributes:
        gpus: ranks.
        domain_gpus: ranks in one scale-up domain (the rank's own included).
        intra_bytes_per_s: per GPU, per direction, to peers in the domain (link x its kind's efficiency), bytes/s.
        inter_bytes_per_s: per GPU, per direction, to peers in other domains (NIC share x NIC efficiency), bytes/s;
            0 where every peer is in the domain.
        fixed_s: fixed cost of one call, seconds.
    """

    gpus: int
    domain_gpus: int
    intra_bytes_per_s: float
    inter_bytes_per_s: float
    fixed_s: float

    @property
    def intra_share(self) -> float:
        """Share of a GPU's buffer sent to peers in its domain: ``(N_d - 1) / N``."""
        return (self.domain_gpus - 1) / self.gpus

    @property
    def inter_share(self) -> float:
        """Share of a GPU's buffer sent to peers in other domains: ``(N - N_d) / N``."""
        return (self.gpus - self.domain_gpus) / self.gpus

    def time_s(self, buffer_bytes: float, *, calls: int = 1) -> float:
        """Seconds for ``calls`` all-to-alls of ``buffer_bytes`` each per GPU:
        ``calls x (fixed + max(S x intra_share / intra, S x inter_share / inter))``.

        >>> from calculators.catalog.interconnects import get_interconnect
        >>> round(all_to_all_cost(gpus=8, link=get_interconnect("nvlink4")).time_s(2**28) * 1e3, 3)  # 7/8 x S / 360
        0.656
        """
        size = finite_float("buffer_bytes", buffer_bytes, minimum=0.0, maximum=1e18)
        count = positive_int("calls", calls, maximum=1 << 30)
        if self.gpus == 1:
            return 0.0
        intra = size * self.intra_share / self.intra_bytes_per_s if self.intra_share else 0.0
        inter = size * self.inter_share / self.inter_bytes_per_s if self.inter_share else 0.0
        return count * (self.fixed_s + max(intra, inter))

    @property
    def large_message_bus_bytes_per_s(self) -> float:
        """nccl-tests' busbw once the fixed cost no longer counts: ``(N - 1) / N / max(intra_share / intra,
        inter_share / inter)``, bytes/s."""
        intra = self.intra_share / self.intra_bytes_per_s if self.intra_share else 0.0
        inter = self.inter_share / self.inter_bytes_per_s if self.inter_share else 0.0
        return (self.gpus - 1) / self.gpus / max(intra, inter)

    def bus_bytes_per_s(self, buffer_bytes: float) -> float:
        """nccl-tests' busbw of one all-to-all of ``buffer_bytes`` per GPU: ``S / time x (N - 1) / N``, bytes/s."""
        return buffer_bytes / self.time_s(buffer_bytes) * (self.gpus - 1) / self.gpus


def all_to_all_cost(*, gpus: int, link: Interconnect, span: NodeSpan | None = None) -> AllToAllCost:
    """How an all-to-all over ``gpus`` GPUs is timed (module docstring).

    Args:
        gpus: ranks.
        link: the link between every pair (one scale-up domain), or, with ``span`` over more than one node, the NIC
            between nodes.
        span: the domains the ranks span (:class:`~calculators.parallel.collective_time.NodeSpan`: ``nodes`` domains
            of ``gpus / nodes`` ranks each, filled in turn, their link ``intra_node``, ``nics_per_node`` NICs shared
            by ``nic_share`` GPUs that send at once); ``None``: one domain.

    Raises:
        InputError: a value out of range, naming it.
    """
    n = positive_int("gpus", gpus, maximum=1 << 16)
    link = instance_of("link", link, Interconnect, _INTERCONNECT)
    nodes = 1 if span is None else positive_int("nodes", span.nodes, maximum=n)
    if nodes == 1 or span is None:
        return AllToAllCost(gpus=n, domain_gpus=n, intra_bytes_per_s=_p2p_bytes_per_s(link, gpus=n),
                            inter_bytes_per_s=0.0, fixed_s=_step_latency_s(link, gpus=n) if n > 1 else 0.0)
    intra = instance_of("intra_node", span.intra_node, Interconnect, _INTERCONNECT)
    nics = positive_int("nics_per_node", span.nics_per_node, maximum=1024)
    share = positive_int("nic_share", span.nic_share, maximum=1 << 10)
    domain = math.ceil(n / nodes)
    network = link.per_direction_bytes_per_s * nics / share * LINK_EFFICIENCY[link_kind(link, collective="all-gather",
                                                                                          gpus=n)]
    fixed = net_step_latency_s(link) + (n - domain) * NET_POSTS_PER_PEER * NET_OVERHEAD_S
    return AllToAllCost(gpus=n, domain_gpus=domain, intra_bytes_per_s=_p2p_bytes_per_s(intra, gpus=max(domain, 2)),
                        inter_bytes_per_s=network, fixed_s=fixed)


def record_all_to_all_bus_bytes_per_s(record: Mapping[str, Any]) -> float:
    """The model's busbw for a published ``alltoall_perf`` record (``tests/data/published_speed/collectives.jsonl``,
    ``collective`` ``"all-to-all"``), bytes/s: at its ``message_bytes`` where stated, else a large message's.

    Across nodes the record's ``intra_node`` link and ``nics_per_node`` NICs, shared by the node's GPUs.

    >>> round(record_all_to_all_bus_bytes_per_s({"link": "nvlink4", "gpus": 4, "message_bytes": 524288000}) / 1e9, 1)
    358.9
    """
    gpus, nodes = int(record["gpus"]), int(record.get("nodes") or 1)
    link = get_interconnect(str(record["link"]))
    if nodes > 1 and record.get("intra_node") and record.get("nics_per_node"):
        span = NodeSpan(nodes, get_interconnect(str(record["intra_node"])), int(record["nics_per_node"]),
                        gpus // nodes)
        cost = all_to_all_cost(gpus=gpus, link=link, span=span)
    else:
        cost = all_to_all_cost(gpus=gpus, link=link)
    size = record.get("message_bytes")
    return cost.bus_bytes_per_s(float(size)) if size else cost.large_message_bus_bytes_per_s


def _p2p_bytes_per_s(link: Interconnect, *, gpus: int) -> float:
    """Per-direction bandwidth a send over ``link`` reaches: the link kind's efficiency with no switch reduction."""
    return link.per_direction_bytes_per_s * LINK_EFFICIENCY[link_kind(link, collective="all-gather", gpus=gpus)]


def _step_latency_s(link: Interconnect, *, gpus: int) -> float:
    """NCCL's latency of one step on ``link``: a network step and the posts of ``gpus - 1`` peers for a NIC (one GPU
    per node), else NVLink's or PCIe's intra-node step."""
    if link.kind in ("infiniband", "ethernet"):
        return net_step_latency_s(link) + (gpus - 1) * NET_POSTS_PER_PEER * NET_OVERHEAD_S
    return INTRA_STEP_LATENCY_S["nvlink" if link.kind in ("nvlink", "infinity-fabric") else "pci"]


__all__ = ["ALL_TO_ALL", "AllToAllCost", "NET_POSTS_PER_PEER", "all_to_all_cost", "record_all_to_all_bus_bytes_per_s"]
