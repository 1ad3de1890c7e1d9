"""One link model for every command: the fraction of a link's per-direction bandwidth a large collective reaches.

``parallel``, ``train-time``, ``speed`` and ``recommend`` all time their collectives with
:func:`collective_efficiency`, so one question about one link gets one answer. Links
fall into five kinds, each with its own efficiency ``busbw / per-direction bandwidth``
fitted on published nccl-tests runs (``tests/data/published_speed/collectives.jsonl``):

* ``nvlink``: a ring over NVLink (or AMD Infinity Fabric) through a switch;
* ``nvlink-sharp``: an all-reduce on an NVSwitch with NVLink SHARP (H100/H200/B200
  nodes), which NCCL uses by default for all-reduce (NCCL maintainer, nccl-tests issue
  212): the switch adds the partial sums, so busbw exceeds the per-direction link rate;
  reduce-scatter and all-gather stay rings (``nvlink``);
* ``nvlink-bridge``: a two-GPU NVLink bridge (pairs only);
* ``pcie``: GPUs talking over PCIe, where the host's root complex and memory often set a
  ceiling well below the link;
* ``network``: a ring across nodes, per GPU ``min(intra-node link, NICs per node x NIC)``
  (:func:`calculators.parallel.collectives.multi_node_ring_bytes_per_s`).

Formula: ``efficiency(kind) = median over the kind's runs of busbw / per-direction bandwidth``
(:func:`fit_link_efficiencies`); a kind with no runs takes the median of all runs.

>>> from calculators.catalog.interconnects import get_interconnect
>>> link_kind(get_interconnect("nvlink4"), collective="all-reduce", gpus=8)
'nvlink-sharp'
>>> link_kind(get_interconnect("nvlink4"), collective="all-gather", gpus=8)
'nvlink'
>>> round(collective_efficiency(get_interconnect("pcie4"), collective="all-reduce", gpus=4), 2)
0.55
>>> round(latency_per_ring_step_s(get_interconnect("pcie4")) * 1e6, 2)  # microseconds
3.44

References:
    NVIDIA nccl-tests doc/PERFORMANCE.md (busbw); the threads cited in the dataset;
    docs page "Interconnect and communication time".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from statistics import mean, median
from typing import Any

from calculators.catalog.interconnects import Interconnect, get_interconnect
from calculators.catalog.sources import Source
from calculators.parallel.collectives import (
    COLLECTIVES,
    MAX_EFFICIENCY,
    multi_node_ring_bytes_per_s,
    ring_steps,
)
from calculators.validate import finite_float, instance_of, one_of, positive_int

#: Link families whose small-message latency is taken from the NVLink measurements.
_FAST_KINDS = ("nvlink", "infinity-fabric")
#: Link kinds with their own collective efficiency.
LINK_KINDS: tuple[str, ...] = ("nvlink", "nvlink-sharp", "nvlink-bridge", "pcie", "network")
#: Links whose switch can reduce in the network (NVLink SHARP, third-generation NVSwitch on; NVIDIA
#: nccl-tests issue 212: "allreduce uses NVLink SHARP by default" on H100).
SHARP_LINKS: tuple[str, ...] = ("nvlink4", "nvlink5")

#: Efficiency per link kind, fitted by :func:`fit_link_efficiencies` on every record of
#: ``tests/data/published_speed/collectives.jsonl`` (a test refits and compares), with the
#: records each is the median of.
LINK_EFFICIENCY: dict[str, float] = {
    "nvlink": 0.7444,
    "nvlink-sharp": 1.0622,
    "nvlink-bridge": 0.3867,
    "pcie": 0.5469,
    "network": 0.75,
}
LINK_EFFICIENCY_RECORDS: dict[str, tuple[str, ...]] = {
    "nvlink": ("coll-h100-8-ring", "coll-a100-8-ring"),
    "nvlink-sharp": ("coll-h100-8-nvls", "coll-h100-8-nvls-290"),
    "nvlink-bridge": ("coll-h100pcie-2-bridge",),
    "pcie": ("coll-4090-4-pcie4", "coll-5090-8-pcie5", "coll-5090-4-pcie5"),
    "network": ("coll-dgxa100-2node-ib-hdr", "coll-a100-2node-8x100g-ring", "coll-a100-2node-8x100g-roce"),
}


def link_kind(link: Interconnect, *, collective: str = "all-reduce", gpus: int = 8) -> str:
    """Which of :data:`LINK_KINDS` a collective over this link is timed as.

    NVLink SHARP only for an all-reduce over more than two GPUs on a SHARP-capable
    switch; a pair-only bridge is ``nvlink-bridge``; InfiniBand and Ethernet are ``network``.
    """
    link = instance_of("link", link, Interconnect, "an Interconnect (calculators.catalog.interconnects.get_interconnect)")
    kind = one_of("collective", collective, COLLECTIVES)
    n = positive_int("gpus", gpus, maximum=1 << 16)
    if link.kind == "pcie":
        return "pcie"
    if link.kind in ("infiniband", "ethernet"):
        return "network"
    if link.pair_only:
        return "nvlink-bridge"
    if kind == "all-reduce" and link.id in SHARP_LINKS and n > 2:
        return "nvlink-sharp"
    return "nvlink"


def collective_efficiency(link: Interconnect, *, collective: str = "all-reduce", gpus: int = 8,
                          efficiencies: Mapping[str, float] | None = None) -> float:
    """Fraction of the per-direction bandwidth a large collective reaches on this link (fitted).

    Formula: ``efficiencies[link_kind(link, collective, gpus)]``, by default :data:`LINK_EFFICIENCY`.

    >>> round(collective_efficiency(get_interconnect("nvlink3"), collective="all-gather"), 3)
    0.744
    """
    table = LINK_EFFICIENCY if efficiencies is None else efficiencies
    return table[link_kind(link, collective=collective, gpus=gpus)]


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


def fit_link_efficiencies(records: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Efficiency per link kind: the median of ``busbw / per-direction bandwidth`` over the kind's records.

    A kind without records takes the median over all records (so a left-out source never
    leaves a kind undefined).

    >>> fit_link_efficiencies([{"link": "pcie4", "link_kind": "pcie", "measured": 16e9}])["pcie"]
    0.5
    """
    implied: dict[str, list[float]] = {kind: [] for kind in LINK_KINDS}
    for record in records:
        implied[str(record["link_kind"])].append(float(record["measured"]) / record_link_bytes_per_s(record))
    every = [value for values in implied.values() for value in values]
    fallback = median(every) if every else 1.0
    return {kind: round(median(values), 4) if values else round(fallback, 4) for kind, values in implied.items()}


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
    a network was read, and a network hop is unlikely to be faster).

    >>> round(latency_per_ring_step_s(get_interconnect("nvlink4")) * 1e6, 1)
    3.0
    """
    link = instance_of("link", link, Interconnect, "an Interconnect (calculators.catalog.interconnects.get_interconnect)")
    kind = "nvlink" if link.kind in _FAST_KINDS else "pcie"
    return mean(r.per_ring_step_s for r in LATENCY_MEASUREMENTS if r.link_kind == kind)


def check_efficiency(field: str, value: object) -> float:
    """A user-given collective efficiency, in (0, 2] (above 1 only where the switch reduces: NVLink SHARP)."""
    return finite_float(field, value, minimum=0.0, maximum=MAX_EFFICIENCY, allow_minimum=False)
