"""One timing of one collective, for the answers and for the validation alike: :func:`collective_cost`.

The training step (``parallel``, ``train-time``, ``recommend``: :mod:`calculators.parallel.ring_link`) and the
scoring of published nccl-tests runs (:func:`record_collective_cost`, through
:func:`calculators.parallel.collective_records.record_bus_bandwidth_bytes_per_s`) both
time a collective here, so the validation tables check the model the answers use. A collective of ``S`` bytes,
``calls`` times, costs

    ``calls x fixed + bus_factor x S / busbw``

with ``busbw`` the large-message bus bandwidth and ``fixed`` the fixed cost of one call:

* **one link every hop** (a node's NVLink, PCIe, Infinity Fabric, or a named link): a ring at
  ``bw x efficiency`` (:func:`calculators.parallel.links.collective_efficiency`, by link kind; NVLink SHARP for an
  unpinned all-reduce on a SHARP switch), fixed cost ``ring steps x`` the link's measured per-step latency
  (:func:`calculators.parallel.latency.latency_per_ring_step_s`); a network link named for every hop is one GPU
  per node: each step crosses the network and pays NCCL's network step
  (:func:`calculators.parallel.latency.net_step_latency_s`), and an all-reduce may take NCCL's Tree (below);
* **across nodes** (an intra-node link, ``nics_per_node`` NICs per node): a ring at ``min(intra, nics x NIC /
  share) x`` the NIC efficiency (:func:`calculators.parallel.collectives.multi_node_ring_bytes_per_s`), fixed cost
  NCCL's own model (:func:`calculators.parallel.latency.cross_node_ring_latency_s`); an unpinned all-reduce over
  exactly two nodes of NVLink SHARP GPUs (more than two per node) is NCCL's NVLSTree
  (:func:`calculators.parallel.links.nvls_tree_applies`): algbw
  :func:`calculators.parallel.nvls.nvls_tree_algbw_bytes_per_s`, fixed cost
  :func:`calculators.parallel.latency.nvls_tree_latency_s`. Any other unpinned all-reduce across nodes may run as
  NCCL's Tree, which NCCL takes where its model times it faster (``ncclTopoGetAlgoTime``): busbw
  :data:`TREE_BUS_SHARE` ``x (N - 1) / N`` of the ring's, fixed cost :func:`calculators.parallel.latency.tree_latency_s`
  (logarithmic in the nodes); each call takes the faster of the two, as NCCL picks per call size.

Overrides keep their meaning whatever the algorithm: a given ``efficiency`` sets ``busbw = efficiency x bw`` (the
fraction of the per-direction bandwidth ``bw`` reached), a given ``latency_per_step_s`` sets ``fixed = ring steps x
latency_per_step_s`` (the fixed cost per ring step).

Assumptions: NCCL's choice is its default model's (a network plugin's tuner, such as AWS's for EFA, may choose
otherwise; NCCL's medium-size tree correction and the ring's "plateau" factor are not modelled); the Simple protocol
(that of large messages); the reduce-scatter and all-gather across nodes are rings (NCCL's PAT, for one GPU per
node, is not modelled); ``share`` GPUs of a node in different rings share its NICs evenly.

>>> from calculators.catalog.interconnects import get_interconnect
>>> nvlink, ib = get_interconnect("nvlink4"), get_interconnect("ib-ndr")
>>> ring = collective_cost("all-gather", gpus=16, link=ib, span=NodeSpan(2, nvlink, 8))
>>> ring.algorithm, round(ring.bus_bytes_per_s / 1e9), round(ring.fixed_s * 1e6, 1)  # 0.96 x 400; 8.4 + 14 x 3.4 + 14
('ring', 384, 70.0)
>>> tree = collective_cost("all-reduce", gpus=16, link=ib, span=NodeSpan(2, nvlink, 8))
>>> tree.algorithm, round(tree.bus_bytes_per_s / 1e9)  # 2 x 15/16 x min(272, 384)
('nvls-tree', 510)

References:
    NVIDIA/nccl src/graph/tuning.cc at commit 5067397 (ring and NVLSTree latencies, NVLSTree's two-node network
    rate); nccl-tests doc/PERFORMANCE.md (busbw); the sources of :mod:`calculators.parallel.latency` and
    :mod:`calculators.parallel.nvls`; docs page "Interconnect and communication time".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from calculators.catalog.interconnects import Interconnect, get_interconnect
from calculators.parallel.collectives import (
    COLLECTIVES,
    bus_bandwidth_bytes_per_s,
    bus_factor,
    multi_node_ring_bytes_per_s,
    ring_steps,
)
from calculators.parallel.latency import (
    cross_node_ring_latency_s,
    latency_per_ring_step_s,
    nvls_tree_latency_s,
    tree_latency_s,
)
from calculators.parallel.links import (
    ALGORITHMS,
    LINK_EFFICIENCY,
    NIC_EFFICIENCY,
    check_efficiency,
    link_kind,
    nvls_link_efficiency,
    nvls_tree_algbw_bytes_per_s,
    nvls_tree_applies,
)
from calculators.validate import finite_float, instance_of, one_of, positive_int

_INTERCONNECT = "an Interconnect (calculators.catalog.interconnects.get_interconnect)"
#: Link kinds that join nodes: a ring over one of them for every hop crosses the network at each step.
_NETWORK_KINDS = ("infiniband", "ethernet")
#: Upper bound of a given fixed cost per ring step, seconds (a typo guard: one second per step).
_MAX_STEP_LATENCY_S = 1.0
#: NCCL's Tree all-reduce reaches this share of the bus bandwidth its ring model gives the same links
#: (``busBw * .92``, then ``algbw = busBw / 2`` where a ring's is ``busBw x N / (2 (N - 1))``; src/graph/tuning.cc at
#: commit 5067397). Its cap, channels x ``perChMaxTreeBws`` (36 GB/s per channel on Hopper above two nodes), is
#: taken not to bind (assumed: the channel count is not an input). Sourced.
TREE_BUS_SHARE = 0.92


@dataclass(frozen=True, kw_only=True)
class CollectiveCost:
    """How one collective is timed: its algorithm, large-message bus bandwidth and fixed cost per call.

    Attributes:
        collective: ``"all-reduce"``, ``"reduce-scatter"`` or ``"all-gather"``.
        gpus: ranks.
        algorithm: ``"ring"``, ``"nvls"`` (NVLink SHARP in one node) or ``"nvls-tree"`` (two nodes).
        link_bytes_per_s: per-direction bandwidth per GPU the efficiency is a fraction of, bytes/s.
        bus_bytes_per_s: nccl-tests' busbw of a large message, bytes/s.
        latency_per_ring_step_s: the fixed cost of one call spread over the ring's steps, seconds.
        alternative: NCCL's Tree for an all-reduce across nodes, taken for a call where the model times it
            faster (NCCL's own choice, ``ncclTopoGetAlgoTime``); ``None`` where there is no choice.
    """

    collective: str
    gpus: int
    algorithm: str
    link_bytes_per_s: float
    bus_bytes_per_s: float
    latency_per_ring_step_s: float
    alternative: CollectiveCost | None = None

    @property
    def efficiency(self) -> float:
        """busbw / per-direction bandwidth (above 1 where a switch reduces)."""
        return self.bus_bytes_per_s / self.link_bytes_per_s

    @property
    def fixed_s(self) -> float:
        """Fixed cost of one call, seconds: the ring's steps x :attr:`latency_per_ring_step_s`."""
        return ring_steps(self.collective, gpus=self.gpus) * self.latency_per_ring_step_s

    def time_s(self, buffer_bytes: float, *, calls: int = 1) -> float:
        """Seconds for ``calls`` collectives of ``buffer_bytes`` in all: ``calls x fixed + bus_factor x S / busbw``,
        or the :attr:`alternative`'s where that is less.

        >>> cost = collective_cost("all-reduce", gpus=4, link=get_interconnect("pcie4"))
        >>> round(cost.time_s(1e9) * 1e3, 2)  # 1.5 x 1 GB / 24 GB/s + 6 x 3.44 us
        62.52
        """
        size = finite_float("buffer_bytes", buffer_bytes, minimum=0.0, maximum=1e18)
        count = positive_int("calls", calls, maximum=1 << 30)
        if self.gpus == 1 or size == 0:
            return 0.0
        own = (bus_factor(self.collective, gpus=self.gpus) * size / self.bus_bytes_per_s
               + count * ring_steps(self.collective, gpus=self.gpus) * self.latency_per_ring_step_s)
        return own if self.alternative is None else min(own, self.alternative.time_s(size, calls=count))


@dataclass(frozen=True)
class NodeSpan:
    """The nodes a collective crosses: ``nodes`` nodes whose GPUs talk over ``intra_node``, joined by
    ``nics_per_node`` NICs each (the collective's link), which ``nic_share`` GPUs of a node in different concurrent
    collectives share."""

    nodes: int
    intra_node: Interconnect
    nics_per_node: int
    nic_share: int = 1


def collective_cost(collective: str, *, gpus: int, link: Interconnect, span: NodeSpan | None = None,
                    algorithm: str = "auto", efficiency: float | None = None,
                    latency_per_step_s: float | None = None) -> CollectiveCost:
    """How a collective over ``gpus`` GPUs is timed (see the module docstring for the rules).

    Args:
        collective: ``"all-reduce"``, ``"reduce-scatter"`` or ``"all-gather"``.
        gpus: ranks.
        link: the link of every hop, or across nodes (``span`` over more than one node) the NIC between nodes: the
            link whose efficiency applies.
        span: the nodes the ranks span, their intra-node link and NICs (:class:`NodeSpan`); ``None``: one node.
        algorithm: ``"auto"`` (NCCL's choice as modelled), ``"ring"`` or ``"nvls"`` (pinned).
        efficiency: given busbw / per-direction bandwidth, in (0, 2]; ``None``: the link model's.
        latency_per_step_s: given fixed cost per ring step, seconds; ``None``: the model's.

    Raises:
        InputError: a value out of range, naming it.
    """
    kind = one_of("collective", collective, COLLECTIVES)
    n = positive_int("gpus", gpus, maximum=1 << 16)
    link = instance_of("link", link, Interconnect, _INTERCONNECT)
    count = 1 if span is None else positive_int("nodes", span.nodes, maximum=n)
    pinned = one_of("algorithm", algorithm, ALGORITHMS)
    share = 1 if span is None else positive_int("nic_share", span.nic_share, maximum=1 << 10)
    given_eff = None if efficiency is None else check_efficiency("efficiency", efficiency)
    given_alpha = None if latency_per_step_s is None else finite_float(
        "latency_per_step_s", latency_per_step_s, minimum=0.0, maximum=_MAX_STEP_LATENCY_S)
    steps = ring_steps(kind, gpus=n)
    if span is not None and count > 1:
        intra = instance_of("intra_node", span.intra_node, Interconnect, _INTERCONNECT)
        nics = positive_int("nics_per_node", span.nics_per_node, maximum=1024)
        nic_bytes_per_s = link.per_direction_bytes_per_s / share
        bw = multi_node_ring_bytes_per_s(intra_node_bytes_per_s=intra.per_direction_bytes_per_s,
                                         nic_bytes_per_s=nic_bytes_per_s, nics_per_node=nics)
        if n // count > 2 and nvls_tree_applies(collective=kind, nodes=count, intra_node=intra, algorithm=pinned):
            algbw = nvls_tree_algbw_bytes_per_s(intra_node=intra, gpus_per_node=n // count, nics_per_node=nics,
                                                nic_bytes_per_s=nic_bytes_per_s, nic_efficiency=NIC_EFFICIENCY)
            bus = bw * given_eff if given_eff is not None else bus_factor(kind, gpus=n) * algbw
            alpha = (given_alpha if given_alpha is not None
                     else nvls_tree_latency_s(nodes=count, network=link) / steps)
            return CollectiveCost(collective=kind, gpus=n, algorithm="nvls-tree", link_bytes_per_s=bw,
                                  bus_bytes_per_s=bus, latency_per_ring_step_s=alpha)
        model_alpha = cross_node_ring_latency_s(kind, gpus=n, nodes=count, intra_node=intra, network=link) / steps
    else:
        bw = link.per_direction_bytes_per_s
        network_every_hop = link.kind in _NETWORK_KINDS and n > 1
        if network_every_hop:
            count = n  # one GPU per node: every step crosses the network
        model_alpha = (cross_node_ring_latency_s(kind, gpus=n, nodes=n, intra_node=link, network=link) / steps
                       if network_every_hop else latency_per_ring_step_s(link))
    link_type = link_kind(link, collective=kind, gpus=n, algorithm=pinned)
    model_eff = nvls_link_efficiency(link, gpus=n) if link_type == "nvlink-sharp" else LINK_EFFICIENCY[link_type]
    bus = bw * (model_eff if given_eff is None else given_eff)
    tree = None
    if count > 1 and kind == "all-reduce" and pinned == "auto" and given_eff is None and given_alpha is None:
        tree = CollectiveCost(collective=kind, gpus=n, algorithm="tree", link_bytes_per_s=bw,
                              bus_bytes_per_s=TREE_BUS_SHARE * bus * (n - 1) / n,
                              latency_per_ring_step_s=tree_latency_s(gpus=n, nodes=count, network=link) / steps)
    return CollectiveCost(collective=kind, gpus=n, algorithm="nvls" if link_type == "nvlink-sharp" else "ring",
                          link_bytes_per_s=bw, bus_bytes_per_s=bus,
                          latency_per_ring_step_s=model_alpha if given_alpha is None else given_alpha,
                          alternative=tree)


def record_collective_cost(record: Mapping[str, Any]) -> CollectiveCost:
    """:func:`collective_cost` of a published collectives record (its link, GPUs, nodes, NICs and algorithm).

    >>> cost = record_collective_cost({"link": "pcie4", "collective": "all-reduce", "gpus": 4})
    >>> cost.algorithm, cost.bus_bytes_per_s / 1e9
    ('ring', 24.0)
    """
    intra, nics, nodes = record.get("intra_node"), record.get("nics_per_node"), int(record.get("nodes") or 1)
    span = NodeSpan(nodes, get_interconnect(str(intra)), int(nics)) if intra and nics and nodes > 1 else None
    return collective_cost(
        str(record.get("collective") or "all-reduce"), gpus=int(record["gpus"]),
        link=get_interconnect(str(record["link"])), span=span, algorithm=str(record.get("algorithm") or "auto"))
