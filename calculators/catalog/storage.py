"""Storage device classes: sequential read rate of a representative device per class, with its source.

The rate is the vendor's rated *sequential* read (a best case: large files, a fresh
drive, no thermal throttling) or, for network storage, the Ethernet line rate divided by
8 bits per byte (a ceiling that protocol overhead lowers). Random small-file reads are far
slower on every class, which is why datasets of many small files are packed into shards.

>>> [s.id for s in all_storage()]
['hdd', 'sata-ssd', 'nvme-gen4', 'nvme-gen5', 'net-10gbe', 'net-25gbe', 'net-100gbe']
>>> get_storage("nvme-gen4").sequential_read_bytes_per_s / 1e9
7.45

References:
    docs page "System balance"; each record's ``source``.
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.catalog.sources import Source
from calculators.errors import UnknownNameError

_READ = "2026-11-21"


@dataclass(frozen=True, kw_only=True)
class StorageClass:
    """One class of storage with the sequential read rate of a named example device.

    Attributes:
        id: Short slug, e.g. ``"nvme-gen4"``.
        name: Class name, e.g. ``"NVMe SSD, PCIe 4.0 x4"``.
        example: The device whose figure is used, e.g. ``"Samsung 990 PRO"``.
        sequential_read_bytes_per_s: Rated sequential read, bytes/s (decimal MB/s x 1e6).
        kind: ``"local"`` for a drive in the machine, ``"network"`` for storage reached over Ethernet.
        source: Where the figure comes from.
        notes: Caveats.
    """

    id: str
    name: str
    example: str
    sequential_read_bytes_per_s: float
    kind: str
    source: Source
    notes: tuple[str, ...] = ()


def _ethernet(gbit: int) -> StorageClass:
    # A definition, not a measurement: N Gb/s on the wire is N/8 GB/s before any protocol overhead.
    return StorageClass(
        id=f"net-{gbit}gbe", name=f"Network storage over {gbit} GbE", example=f"{gbit} Gb/s Ethernet link",
        sequential_read_bytes_per_s=gbit * 1e9 / 8, kind="network",
        source=Source(f"IEEE 802.3 {gbit} Gb/s Ethernet line rate / 8 bits per byte",
                      "https://standards.ieee.org/ieee/802.3/10422/", _READ, kind="derived"),
        notes=("Line rate is a ceiling: TCP/IP, NFS or object-store protocol overhead and the "
               "storage server's own disks lower what a client reads.",))


_STORAGE: tuple[StorageClass, ...] = (
    StorageClass(
        id="hdd", name="Hard disk drive, 7200 rpm", example="Seagate Exos X20 (20 TB)",
        sequential_read_bytes_per_s=265e6, kind="local",
        source=Source("Seagate Exos X20 20 TB: up to 265 MB/s sequential, as measured by Hardwareluxx and quoted "
                      "in gocryptfs discussion #752",
                      "https://github.com/rfjakob/gocryptfs/discussions/752", _READ, kind="measured"),
        notes=("Sequential reads on the outer tracks, the best case; inner tracks are slower.",
               "Every seek costs milliseconds: many small files read far slower than this.")),
    StorageClass(
        id="sata-ssd", name="SATA SSD", example="Samsung 870 EVO", sequential_read_bytes_per_s=560e6,
        kind="local",
        source=Source("Samsung 870 EVO rated sequential read 560 MB/s (SATA 6 Gb/s), as quoted by WarpTechLab",
                      "https://news.warptechlab.com/news/215686389", _READ),
        notes=("SATA 6 Gb/s caps every SATA SSD near this figure.",)),
    StorageClass(
        id="nvme-gen4", name="NVMe SSD, PCIe 4.0 x4", example="Samsung 990 PRO",
        sequential_read_bytes_per_s=7450e6, kind="local",
        source=Source("slashcam: Samsung 990 PRO reaches 7,450 MB/s sequential read on PCIe 4.0",
                      "https://www.slashcam.com/news/single/Samsung-990-PRO--New-NVMe-SSD-top-model-reaches-th-17407.html",
                      "2022-08-28"),
        notes=("Close to the PCIe 4.0 x4 interface ceiling; mainstream Gen4 drives rate lower.",)),
    StorageClass(
        id="nvme-gen5", name="NVMe SSD, PCIe 5.0 x4", example="Crucial T700 (2 TB)",
        sequential_read_bytes_per_s=12400e6, kind="local",
        source=Source("Crucial T700 product specifications (2 TB and 4 TB: 12,400 MB/s sequential read)",
                      "https://www.gamingpcbuilder.com/product/crucial-t700/", _READ),
        notes=("The 1 TB model is rated 11,700 MB/s.", "Needs a PCIe 5.0 M.2 slot and cooling.")),
    _ethernet(10),
    _ethernet(25),
    _ethernet(100),
)


def all_storage() -> tuple[StorageClass, ...]:
    """Every storage class, slowest local first, then network links by speed."""
    return _STORAGE


def get_storage(storage_id: str) -> StorageClass:
    """The storage class with this id; raises :class:`UnknownNameError` (field ``storage``)."""
    key = str(storage_id).strip().lower()
    for item in _STORAGE:
        if item.id == key:
            return item
    raise UnknownNameError("storage", storage_id, [item.id for item in _STORAGE])
