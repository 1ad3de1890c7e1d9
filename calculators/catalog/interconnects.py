"""Interconnect catalog: GPU-to-GPU and node-to-node link classes, each with its source and direction.

Vendors quote link bandwidth two ways. NVIDIA's NVLink figures ("900 GB/s per GPU"),
AMD's Infinity Fabric aggregate and PCI-SIG's x16 table are **bidirectional totals**:
both directions summed. Network links (InfiniBand NDR "400 Gb/s", "400 GbE") are quoted
**per direction**: a full-duplex port moves that much each way at once. A collective
such as ring all-reduce sends and receives at the same time, so its time is set by the
bandwidth in one direction. Every record stores the figure exactly as its source quotes
it, with an explicit :attr:`Interconnect.direction`; the per-direction and bidirectional
figures are computed properties, never stored.

Figures are raw signalling rates as published: PCIe's 128b/130b (Gen3 to Gen5) or FLIT
(Gen6) encoding, packet headers and the collective library's protocol overhead are not
subtracted here; the communication model takes them as an explicit efficiency factor.

>>> pcie5 = get_interconnect("pcie5")
>>> pcie5.direction, pcie5.bandwidth_bytes_per_s / 1e9, pcie5.per_direction_bytes_per_s / 1e9
('bidirectional', 128.0, 64.0)
>>> nvlink4 = get_interconnect("nvlink4")
>>> nvlink4.per_direction_bytes_per_s / 1e9, nvlink4.bidirectional_bytes_per_s / 1e9
(450.0, 900.0)
>>> get_interconnect("ib-ndr").per_direction_bytes_per_s / 1e9  # 400 Gb/s each way
50.0

References:
    docs page "Interconnect and communication time" (docs/multi-gpu/interconnect.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from calculators.catalog.gpus import get_gpu
from calculators.catalog.sources import Source
from calculators.errors import UnknownNameError

Direction = Literal["per-direction", "bidirectional"]

#: Accepted values of :attr:`Interconnect.direction`.
DIRECTIONS: tuple[str, ...] = ("per-direction", "bidirectional")
#: Link families.
KINDS: tuple[str, ...] = ("pcie", "nvlink", "infinity-fabric", "infiniband", "ethernet")

_READ = "2026-11-21"  # the date the documents below were read for this catalog


@dataclass(frozen=True, kw_only=True)
class Interconnect:
    """One link class with its headline bandwidth, exactly as the source quotes it.

    Attributes:
        id: Short slug used by the CLI and widgets, e.g. ``"nvlink4"``.
        name: Name as the vendor or standard writes it.
        kind: One of :data:`KINDS`.
        bandwidth_bytes_per_s: The quoted figure in bytes/s (decimal: 1 GB/s = 1e9 B/s;
            a "400 Gb/s" port is 50e9 bytes/s).
        direction: ``"bidirectional"`` when the figure sums both directions (NVLink,
            Infinity Fabric, PCI-SIG's x16 table), ``"per-direction"`` when it is the rate
            each way (network ports).
        scope: What the figure covers, e.g. "per GPU, all 18 links" or "per x16 link".
        pair_only: True when the link joins two GPUs only (a bridge), so a ring over
            more than two GPUs must also cross another link.
        host_staged: True when GPUs on this link do not address each other (no peer-to-peer:
            the GeForce driver, or NCCL's default on Intel hosts), so every transfer is written
            to host memory by one GPU and read back by the next.
        source: The document the figure comes from.
        notes: Caveats in plain words.
    """

    id: str
    name: str
    kind: str
    bandwidth_bytes_per_s: float
    direction: Direction
    scope: str
    source: Source
    pair_only: bool = False
    host_staged: bool = False
    notes: tuple[str, ...] = field(default=())

    @property
    def per_direction_bytes_per_s(self) -> float:
        """Bandwidth in one direction, bytes/s: half a bidirectional total (derived)."""
        if self.direction == "bidirectional":
            return self.bandwidth_bytes_per_s / 2
        return self.bandwidth_bytes_per_s

    @property
    def bidirectional_bytes_per_s(self) -> float:
        """Both directions summed, bytes/s: twice a per-direction figure (derived)."""
        if self.direction == "per-direction":
            return self.bandwidth_bytes_per_s * 2
        return self.bandwidth_bytes_per_s


# --- documents -------------------------------------------------------------------------
_PCISIG = Source(
    "PCI-SIG, PCI Express 6.0 Specification overview (x16 bandwidth by generation: 32, 64, 128, 256 GB/s, "
    "both directions)", "https://pcisig.com/pci-express-6.0-specification", _READ)
_NVLINK = Source(
    "NVIDIA NVLink and NVLink Switch product page (total bandwidth per GPU by NVLink generation)",
    "https://www.nvidia.com/en-us/data-center/nvlink/", _READ)
_A100_DS = Source(
    "NVIDIA A100 Tensor Core GPU datasheet (NVLink: 600 GB/s)",
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
    "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf", _READ)
_H100_DS = Source("NVIDIA H100 Tensor Core GPU product specifications (NVLink: 900 GB/s)",
                  "https://www.nvidia.com/en-us/data-center/h100/", _READ)
_HGX_B200 = Source("NVIDIA HGX platform specifications (HGX B200: NVLink 5, 1.8 TB/s per GPU)",
                   "https://www.nvidia.com/en-us/data-center/hgx/", _READ)
_NVL72 = Source("NVIDIA GB200 NVL72 specifications (72 Blackwell GPUs in one NVLink domain: NVLink 130 TB/s, 1.8 TB/s "
                "per GPU, through the NVLink Switch trays)", "https://www.nvidia.com/en-us/data-center/gb200-nvl72/", _READ)
_MI355X_LINKS = Source("Hume Consulting, AMD MI355X: Infinity Fabric/XGMI about 153 GB/s per link, 7 links to the 7 peers",
                       "https://humeconsulting.co/amd-mi355x-strong-node-level-inference-but-not-yet-rack-scale", _READ)
_A100_BRIDGE = Source("NVIDIA A100 Tensor Core GPU datasheet, A100 80GB PCIe column ('NVIDIA NVLink Bridge for 2 GPUs: "
                      "600 GB/s')", "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
                      "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf", _READ)
_H100_NVL_BRIDGE = Source("NVIDIA H100 product specifications, H100 NVL column (NVIDIA NVLink: 600 GB/s)",
                          "https://www.nvidia.com/en-us/data-center/h100/", _READ)
_V100_DS = Source("NVIDIA V100 Tensor Core GPU datasheet (NVLink: 300 GB/s)",
                  "https://www.nvidia.com/en-us/data-center/v100/", _READ)
_MI300X_DS = Source(
    "AMD Instinct MI300X accelerator data sheet (7 Infinity Fabric links, 128 GB/s each, 896 GB/s aggregate)",
    "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/"
    "amd-instinct-mi300x-data-sheet.pdf", _READ)
_CX7 = Source("NVIDIA ConnectX-7 adapter product page (InfiniBand NDR, 400 Gb/s per port)",
              "https://www.nvidia.com/en-us/networking/ethernet-adapters/connectx-7/", _READ)
_CX6 = Source("NVIDIA ConnectX-6 InfiniBand adapter product page (HDR, 200 Gb/s per port)",
              "https://www.nvidia.com/en-us/networking/infiniband-adapters/connectx-6/", _READ)
_ETH_100 = Source("IEEE Std 802.3-2022, clauses 80-95 (100 Gb/s Ethernet)",
                  "https://standards.ieee.org/ieee/802.3/10422/", _READ)
_P5 = Source("Amazon EC2 P5 instances product page (p5.48xlarge: 8 x H100, 3,200 Gbps of EFAv2 networking, 32 x 100 Gbps "
             "network interfaces, four per GPU)", "https://aws.amazon.com/ec2/instance-types/p5/", "2026-11-29")
_ETH_400 = Source("IEEE Std 802.3bs-2017 (200 Gb/s and 400 Gb/s Ethernet)",
                  "https://standards.ieee.org/ieee/802.3bs/6816/", "2017-12-06")

_PCIE_NOTE = ("PCI-SIG's x16 figure counts both directions and is the raw rate before 128b/130b "
              "(Gen3-5) or FLIT (Gen6) encoding; a GPU-to-GPU transfer also crosses the host's root "
              "complex or a PCIe switch, which often sets a lower ceiling.")

_STAGED_NOTE = ("The path NCCL takes between PCIe GPUs without peer-to-peer: GeForce cards (the stock driver "
                "gives the RTX 4090 and 5090 none), and on Intel hosts any two GPUs not behind one PCIe switch "
                "(NCCL's default P2P level there, src/graph/paths.cc). Each byte goes through host memory.")

_LINKS: tuple[Interconnect, ...] = (
    Interconnect(id="pcie3", name="PCI Express 3.0 x16", kind="pcie", bandwidth_bytes_per_s=32e9,
                 direction="bidirectional", scope="per x16 link (8 GT/s per lane)", source=_PCISIG,
                 notes=(_PCIE_NOTE,)),
    Interconnect(id="pcie4", name="PCI Express 4.0 x16", kind="pcie", bandwidth_bytes_per_s=64e9,
                 direction="bidirectional", scope="per x16 link (16 GT/s per lane)", source=_PCISIG,
                 notes=(_PCIE_NOTE,)),
    Interconnect(id="pcie5", name="PCI Express 5.0 x16", kind="pcie", bandwidth_bytes_per_s=128e9,
                 direction="bidirectional", scope="per x16 link (32 GT/s per lane)", source=_PCISIG,
                 notes=(_PCIE_NOTE,)),
    Interconnect(id="pcie6", name="PCI Express 6.0 x16", kind="pcie", bandwidth_bytes_per_s=256e9,
                 direction="bidirectional", scope="per x16 link (64 GT/s per lane, PAM4)", source=_PCISIG,
                 notes=(_PCIE_NOTE,)),
    Interconnect(id="pcie3-host", name="PCI Express 3.0 x16, staged through host memory", kind="pcie",
                 bandwidth_bytes_per_s=32e9, direction="bidirectional",
                 scope="per x16 link; GPU-to-GPU data written to host memory and read back", source=_PCISIG,
                 host_staged=True, notes=(_PCIE_NOTE, _STAGED_NOTE)),
    Interconnect(id="pcie4-host", name="PCI Express 4.0 x16, staged through host memory", kind="pcie",
                 bandwidth_bytes_per_s=64e9, direction="bidirectional",
                 scope="per x16 link; GPU-to-GPU data written to host memory and read back", source=_PCISIG,
                 host_staged=True, notes=(_PCIE_NOTE, _STAGED_NOTE)),
    Interconnect(id="pcie5-host", name="PCI Express 5.0 x16, staged through host memory", kind="pcie",
                 bandwidth_bytes_per_s=128e9, direction="bidirectional",
                 scope="per x16 link; GPU-to-GPU data written to host memory and read back", source=_PCISIG,
                 host_staged=True, notes=(_PCIE_NOTE, _STAGED_NOTE)),
    Interconnect(id="pcie6-host", name="PCI Express 6.0 x16, staged through host memory", kind="pcie",
                 bandwidth_bytes_per_s=256e9, direction="bidirectional",
                 scope="per x16 link; GPU-to-GPU data written to host memory and read back", source=_PCISIG,
                 host_staged=True, notes=(_PCIE_NOTE, _STAGED_NOTE)),
    Interconnect(id="nvlink2", name="NVLink 2 (V100 SXM2)", kind="nvlink", bandwidth_bytes_per_s=300e9,
                 direction="bidirectional", scope="per GPU, all 6 links", source=_V100_DS,
                 notes=("V100 SXM2 boards link GPUs in a hybrid cube mesh, not through a switch "
                        "(DGX-2 added NVSwitch).",)),
    Interconnect(id="nvlink3", name="NVLink 3 (A100 SXM)", kind="nvlink", bandwidth_bytes_per_s=600e9,
                 direction="bidirectional", scope="per GPU, all 12 links, through NVSwitch", source=_A100_DS),
    Interconnect(id="nvlink4", name="NVLink 4 (H100/H200 SXM)", kind="nvlink", bandwidth_bytes_per_s=900e9,
                 direction="bidirectional", scope="per GPU, all 18 links, through NVSwitch", source=_H100_DS),
    Interconnect(id="nvlink5", name="NVLink 5 (B200)", kind="nvlink", bandwidth_bytes_per_s=1.8e12,
                 direction="bidirectional", scope="per GPU, all 18 links, through NVSwitch", source=_HGX_B200),
    Interconnect(id="nvlink5-nvl72", name="NVLink 5 (GB200 NVL72)", kind="nvlink", bandwidth_bytes_per_s=1.8e12,
                 direction="bidirectional", scope="per GPU, all 18 links, through the NVLink Switch trays; 72 GPUs in "
                 "one NVLink domain", source=_NVL72,
                 notes=("The same per-GPU link as an HGX B200; what differs is the domain, 72 GPUs instead of 8, so "
                        "rings of up to 72 GPUs stay on NVLink.",)),
    Interconnect(id="nvlink-bridge-h100-pcie", name="NVLink bridge (H100 PCIe, 2-way)", kind="nvlink",
                 bandwidth_bytes_per_s=600e9, direction="bidirectional",
                 scope="per GPU of a bridged pair, three bridges fitted (12 NVLink 4 links, 25 GB/s each way)",
                 pair_only=True, source=get_gpu("h100-pcie").source_of("nvlink_bandwidth_bytes_per_s"),
                 notes=("NVIDIA's 600 GB/s is both directions of 12 links: 300 GB/s each way, of which NCCL's SM copies "
                        "carry about 80 % (240 GB/s). A 12-link H100 NVL pair copies 257 GB/s one way (Azure "
                        "health-check issue #162). The one published all-reduce on bridged H100 PCIe cards, 116 GB/s "
                        "(NVIDIA/nccl issue #1161), its author called lower than expected; it is what 6 links carry, "
                        "and the thread states no bridge count, so the figure is kept at NVIDIA's.",)),
    Interconnect(id="nvlink-bridge-h100-nvl", name="NVLink bridge (H100 NVL, 2-way)", kind="nvlink",
                 bandwidth_bytes_per_s=600e9, direction="bidirectional",
                 scope="per GPU of a bridged pair (12 of the chip's 18 NVLink 4 links active)", pair_only=True,
                 source=_H100_NVL_BRIDGE),
    Interconnect(id="nvlink-bridge-a100-pcie", name="NVLink bridge (A100 PCIe, 2-way)", kind="nvlink",
                 bandwidth_bytes_per_s=600e9, direction="bidirectional", scope="per GPU of a bridged pair",
                 pair_only=True, source=_A100_BRIDGE),
    Interconnect(id="nvlink-bridge-a6000", name="NVLink bridge (RTX A6000, 2-way)", kind="nvlink",
                 bandwidth_bytes_per_s=112.5e9, direction="bidirectional", scope="per GPU of a bridged pair",
                 pair_only=True, source=get_gpu("rtx-a6000").source_of("nvlink_bandwidth_bytes_per_s")),
    Interconnect(id="infinity-fabric-mi300x", name="AMD Infinity Fabric (MI300X)", kind="infinity-fabric",
                 bandwidth_bytes_per_s=896e9, direction="bidirectional",
                 scope="per GPU, 7 links x 128 GB/s, one link to each of 7 peers", source=_MI300X_DS,
                 notes=("The 8 GPUs of a platform are fully connected point to point (no switch): a single "
                        "ring uses one link per GPU, so reaching the aggregate takes several rings at once.",
                        "The MI325X platform has the same 7 links (same CDNA 3 package and baseboard).")),
    Interconnect(id="infinity-fabric-mi355x", name="AMD Infinity Fabric (MI355X)", kind="infinity-fabric",
                 bandwidth_bytes_per_s=7 * 153.6e9, direction="bidirectional",
                 scope="per GPU, 7 links x 153.6 GB/s, one link to each of 7 peers", source=_MI355X_LINKS,
                 notes=("Point to point like the MI300X platform, at the CDNA 4 link rate.",)),
    Interconnect(id="ib-hdr", name="InfiniBand HDR (200 Gb/s)", kind="infiniband", bandwidth_bytes_per_s=25e9,
                 direction="per-direction", scope="per port (one NIC per GPU assumed)", source=_CX6),
    Interconnect(id="ib-ndr", name="InfiniBand NDR (400 Gb/s)", kind="infiniband", bandwidth_bytes_per_s=50e9,
                 direction="per-direction", scope="per port (one NIC per GPU assumed)", source=_CX7),
    Interconnect(id="eth-100g", name="100 Gigabit Ethernet", kind="ethernet", bandwidth_bytes_per_s=12.5e9,
                 direction="per-direction", scope="per port", source=_ETH_100,
                 notes=("RoCE or TCP; TCP through the host typically reaches well below line rate.",)),
    Interconnect(id="efa-100g", name="AWS Elastic Fabric Adapter (100 Gb/s interface)", kind="ethernet",
                 bandwidth_bytes_per_s=12.5e9, direction="per-direction", scope="per interface (p5.48xlarge: 32 per node, "
                 "four per GPU)", source=_P5,
                 notes=("EFA is AWS's RDMA-capable interface on its Ethernet network (the SRD transport, reached by NCCL "
                        "through the aws-ofi-nccl plugin): timed as an Ethernet NIC.",)),
    Interconnect(id="eth-400g", name="400 Gigabit Ethernet", kind="ethernet", bandwidth_bytes_per_s=50e9,
                 direction="per-direction", scope="per port", source=_ETH_400),
)

#: NVLink generation named in a GPU record's ``interconnect`` text -> link id.
NVLINK_BY_GENERATION: dict[str, str] = {"NVLink 2": "nvlink2", "NVLink 3": "nvlink3", "NVLink 4": "nvlink4",
                                        "NVLink 5": "nvlink5"}
#: GPU id -> the 2-way bridge it can use (pairs only).
BRIDGE_BY_GPU: dict[str, str] = {"h100-pcie": "nvlink-bridge-h100-pcie", "rtx-a6000": "nvlink-bridge-a6000",
                                 "h100-nvl": "nvlink-bridge-h100-nvl", "a100-80gb-pcie": "nvlink-bridge-a100-pcie"}
#: GPU id -> its own scale-up link where the record's NVLink generation does not name it: an NVL72 domain, or the
#: Infinity Fabric of an AMD platform.
LINK_BY_GPU: dict[str, str] = {"gb200": "nvlink5-nvl72", "mi300x": "infinity-fabric-mi300x",
                               "mi325x": "infinity-fabric-mi300x", "mi355x": "infinity-fabric-mi355x"}
#: PCIe generation -> link id.
PCIE_BY_GENERATION: dict[int, str] = {3: "pcie3", 4: "pcie4", 5: "pcie5", 6: "pcie6"}
#: PCIe generation -> the same link staged through host memory, the default path between PCIe GPUs.
PCIE_HOST_BY_GENERATION: dict[int, str] = {3: "pcie3-host", 4: "pcie4-host", 5: "pcie5-host", 6: "pcie6-host"}


def all_interconnects() -> tuple[Interconnect, ...]:
    """Every link record, in catalog order (PCIe, NVLink, Infinity Fabric, networks).

    >>> [link.id for link in all_interconnects()][:4]
    ['pcie3', 'pcie4', 'pcie5', 'pcie6']
    """
    return _LINKS


def interconnect_ids() -> list[str]:
    """The ids of every link record, in catalog order."""
    return [link.id for link in _LINKS]


def get_interconnect(link_id: str) -> Interconnect:
    """The link record with this id (case-insensitive).

    Raises:
        UnknownNameError: no record has that id; the message lists the ids.

    >>> get_interconnect("NVLink5").name
    'NVLink 5 (B200)'
    """
    key = str(link_id).strip().lower()
    for link in _LINKS:
        if link.id == key:
            return link
    raise UnknownNameError("interconnect", str(link_id), interconnect_ids())
