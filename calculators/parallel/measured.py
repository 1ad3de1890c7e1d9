"""Published nccl-tests bus bandwidths, to check the ring model against (measured, quoted with sources).

Each :class:`MeasuredBusBandwidth` is a large-message figure someone ran and published,
read from the cited thread: ``busbw`` in nccl-tests' convention (see
:mod:`calculators.parallel.collectives`). The model's prediction for a large buffer is
``per-direction link bandwidth x efficiency``; :func:`model_bus_bandwidth_bytes_per_s`
computes it for a record, so the table shows the error at the default efficiency and
the efficiency the measurement implies.

>>> record = MEASUREMENTS[0]
>>> record.system, record.bus_bandwidth_bytes_per_s / 1e9
('8 x H100 SXM, NVSwitch (ring, no NVLink SHARP)', 370.0)
>>> round(model_bus_bandwidth_bytes_per_s(record) / 1e9)
360
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.catalog.interconnects import get_interconnect
from calculators.catalog.sources import Source
from calculators.parallel.collectives import (
    DEFAULT_EFFICIENCY,
    multi_node_ring_bytes_per_s,
)
from calculators.validate import finite_float, instance_of


@dataclass(frozen=True, kw_only=True)
class MeasuredBusBandwidth:
    """One published large-message collective bandwidth.

    Attributes:
        system: GPUs and how they are joined, in words.
        gpus: ranks in the collective.
        collective: nccl-tests collective (``"all-reduce"``...).
        interconnect: link id the model uses (the ring's slowest link).
        nics_per_node: for runs across nodes, NICs per node (``interconnect`` is then the
            NIC and ``intra_node`` the link inside a node); ``None`` within one node.
        intra_node: link id inside a node for multi-node runs.
        bus_bandwidth_bytes_per_s: reported busbw, bytes/s.
        message_bytes: message size the figure was read at, if the source gives it.
        in_ring_model: False when the algorithm is not a ring over the links (NVLink
            SHARP reduces inside the switch), so the model does not apply.
        source: the thread or document, with kind ``"measured"``.
        note: what to keep in mind when reading the figure.
    """

    system: str
    gpus: int
    collective: str
    interconnect: str
    bus_bandwidth_bytes_per_s: float
    source: Source
    message_bytes: int | None = None
    nics_per_node: int | None = None
    intra_node: str | None = None
    in_ring_model: bool = True
    note: str = ""

    def link_per_direction_bytes_per_s(self) -> float:
        """Per-direction bandwidth the ring model uses for this system, bytes/s (derived)."""
        link = get_interconnect(self.interconnect).per_direction_bytes_per_s
        if self.nics_per_node is None or self.intra_node is None:
            return link
        return multi_node_ring_bytes_per_s(
            intra_node_bytes_per_s=get_interconnect(self.intra_node).per_direction_bytes_per_s,
            nic_bytes_per_s=link, nics_per_node=self.nics_per_node)

    @property
    def implied_efficiency(self) -> float:
        """Measured busbw / per-direction link bandwidth."""
        return self.bus_bandwidth_bytes_per_s / self.link_per_direction_bytes_per_s()


def model_bus_bandwidth_bytes_per_s(record: MeasuredBusBandwidth, *, efficiency: float = DEFAULT_EFFICIENCY) -> float:
    """The ring model's large-message busbw for a measured system: ``link x efficiency``, bytes/s."""
    record = instance_of("record", record, MeasuredBusBandwidth, "a MeasuredBusBandwidth of calculators.parallel.measured")
    eff = finite_float("efficiency", efficiency, minimum=0.0, maximum=1.0, allow_minimum=False)
    return record.link_per_direction_bytes_per_s() * eff


def _issue(repo: str, number: int, title: str, date: str) -> Source:
    return Source(f"{repo} issue #{number}: {title}", f"https://github.com/{repo}/issues/{number}", date,
                  kind="measured")


#: Published figures, NVLink first, then PCIe, then across nodes.
MEASUREMENTS: tuple[MeasuredBusBandwidth, ...] = (
    MeasuredBusBandwidth(
        system="8 x H100 SXM, NVSwitch (ring, no NVLink SHARP)", gpus=8, collective="all-reduce",
        interconnect="nvlink4", bus_bandwidth_bytes_per_s=370e9,
        source=_issue("NVIDIA/nccl-tests", 212, "H100 all reduce performance is poor (reply by NCCL maintainer "
                      "S. Jeaugey: ~370 GB/s effective NVLink bandwidth with NCCL_ALGO=RING)", "2024-05-06"),
        note="maintainer's figure: 450 GB/s line rate less ~20 % protocol overhead"),
    MeasuredBusBandwidth(
        system="8 x H100 SXM, NVSwitch with NVLink SHARP (NVLS)", gpus=8, collective="all-reduce",
        interconnect="nvlink4", bus_bandwidth_bytes_per_s=480e9, in_ring_model=False,
        source=_issue("NVIDIA/nccl-tests", 212, "H100 all reduce performance is poor (same reply: peak busbw "
                      "~480 GB/s on 8 GPUs with NVLink SHARP)", "2024-05-06"),
        note="the switch does the reduction, so busbw exceeds the per-direction link rate"),
    MeasuredBusBandwidth(
        system="8 x A100 SXM4 80GB, NVSwitch (HPE Apollo 6500)", gpus=8, collective="all-reduce",
        interconnect="nvlink3", bus_bandwidth_bytes_per_s=200e9, message_bytes=2**30,
        source=_issue("NVIDIA/nccl-tests", 149, "Expected bandwidth results? A100 GPUs over NVLink "
                      "(busbw ~200 GB/s)", "2023-06-27"),
        note="read at 1 GiB, the run's largest message"),
    MeasuredBusBandwidth(
        system="2 x H100 PCIe, NVLink bridge", gpus=2, collective="all-reduce",
        interconnect="nvlink-bridge-h100-pcie", bus_bandwidth_bytes_per_s=116e9, message_bytes=4 * 2**30,
        source=_issue("NVIDIA/nccl", 1161, "all_reduce_perf between NVLINK connected H100 PCIe GPUs lower than "
                      "A100 SXM4 GPUs (busbw 115-116 GB/s at 1-4 GiB)", "2024-01-27"),
        note="reported by its author as lower than expected"),
    MeasuredBusBandwidth(
        system="4 x GeForce RTX 4090, PCIe 4.0 (P2P-enabled driver)", gpus=4, collective="all-reduce",
        interconnect="pcie4", bus_bandwidth_bytes_per_s=25.95e9, message_bytes=2**30,
        source=_issue("tinygrad/open-gpu-kernel-modules", 36, "RTX 4090D 48GB support? (all_reduce_perf on "
                      "4 x RTX 4090: busbw 25.95 GB/s at 1 GiB)", "2026-11-21"),
        note="GeForce cards need a patched driver for peer-to-peer PCIe"),
    MeasuredBusBandwidth(
        system="8 x GeForce RTX 5090, PCIe 5.0", gpus=8, collective="all-reduce",
        interconnect="pcie5", bus_bandwidth_bytes_per_s=28e9,
        source=_issue("NVIDIA/nccl", 1639, "The performance of NCCL All-Reduce across 8 NVIDIA 5090 GPUs is "
                      "extremely poor (busbw 28 GB/s, 1-8 GiB)", "2025-03-14"),
        note="NCCL maintainer: on PCIe systems the CPU and its memory set the ceiling"),
    MeasuredBusBandwidth(
        system="2 x DGX A100, 8 x HDR InfiniBand (200 Gb/s) per node", gpus=16, collective="all-reduce",
        interconnect="ib-hdr", nics_per_node=8, intra_node="nvlink3", bus_bandwidth_bytes_per_s=192e9,
        source=_issue("NVIDIA/nccl", 812, "Why Tree has better bandwidth performance than Ring on only 2 DGX-A100? "
                      "(NVIDIA reply: 192 GB/s all-reduce busbw on DGX A100 with 8 x 200 Gb/s IB)", "2023-03-31"),
        note="ring per NIC: the 8 NICs together carry what one GPU's NVLink carries"),
)
