"""The interconnect catalog: sourced figures, explicit direction, derived per-direction values."""

from __future__ import annotations

import datetime
from dataclasses import fields

import pytest

from calculators.catalog.interconnects import (
    DIRECTIONS,
    KINDS,
    Interconnect,
    all_interconnects,
    get_interconnect,
    interconnect_ids,
)
from calculators.errors import UnknownNameError

LINKS = all_interconnects()


def test_ids_are_unique() -> None:
    assert len(set(interconnect_ids())) == len(LINKS)


@pytest.mark.parametrize("link", LINKS, ids=[link.id for link in LINKS])
def test_every_record_is_sourced_dated_and_positive(link: Interconnect) -> None:
    assert link.kind in KINDS and link.direction in DIRECTIONS
    assert link.bandwidth_bytes_per_s > 0 and link.name and link.scope
    assert link.source.url.startswith("https://") and link.source.title
    datetime.date.fromisoformat(link.source.as_of)


def test_derived_figures_are_properties_not_fields() -> None:
    names = {f.name for f in fields(Interconnect)}
    assert "per_direction_bytes_per_s" not in names and "bidirectional_bytes_per_s" not in names


@pytest.mark.parametrize(("link_id", "quoted_gb", "direction", "per_direction_gb"), [
    # PCI-SIG's x16 table sums both directions: 8/16/32/64 GT/s x 16 lanes / 8 bits x 2 directions.
    ("pcie3", 32, "bidirectional", 16),
    ("pcie4", 64, "bidirectional", 32),
    ("pcie5", 128, "bidirectional", 64),
    ("pcie6", 256, "bidirectional", 128),
    # NVIDIA datasheets: A100 600 GB/s, H100 900 GB/s, B200 1.8 TB/s per GPU, both directions.
    ("nvlink3", 600, "bidirectional", 300),
    ("nvlink4", 900, "bidirectional", 450),
    ("nvlink5", 1800, "bidirectional", 900),
    # AMD MI300X data sheet: 7 links x 128 GB/s = 896 GB/s aggregate.
    ("infinity-fabric-mi300x", 896, "bidirectional", 448),
    # Network ports are quoted per direction: 400 Gb/s / 8 = 50 GB/s each way.
    ("ib-ndr", 50, "per-direction", 50),
    ("eth-100g", 12.5, "per-direction", 12.5),
    ("eth-400g", 50, "per-direction", 50),
])
def test_quoted_and_per_direction_figures(link_id: str, quoted_gb: float, direction: str,
                                          per_direction_gb: float) -> None:
    link = get_interconnect(link_id)
    assert link.bandwidth_bytes_per_s == quoted_gb * 1e9
    assert link.direction == direction
    assert link.per_direction_bytes_per_s == per_direction_gb * 1e9
    assert link.bidirectional_bytes_per_s == 2 * link.per_direction_bytes_per_s


def test_nvlink_figures_agree_with_the_gpu_catalog() -> None:
    from calculators.catalog.gpus import get_gpu

    for gpu_id, link_id in (("a100-80gb-sxm", "nvlink3"), ("h100-sxm", "nvlink4"), ("b200", "nvlink5"),
                            ("mi300x", "infinity-fabric-mi300x"), ("h100-pcie", "nvlink-bridge-h100-pcie")):
        assert get_gpu(gpu_id).nvlink_bandwidth_bytes_per_s == get_interconnect(link_id).bidirectional_bytes_per_s


def test_pcie5_vs_nvlink4_claim_is_seven_times_either_way() -> None:
    # "PCIe Gen 5 tops out at 128 GB/s, NVLink 900 GB/s": both bidirectional; 64 vs 450 per direction.
    pcie, nvlink = get_interconnect("pcie5"), get_interconnect("nvlink4")
    assert (pcie.bidirectional_bytes_per_s, nvlink.bidirectional_bytes_per_s) == (128e9, 900e9)
    assert (pcie.per_direction_bytes_per_s, nvlink.per_direction_bytes_per_s) == (64e9, 450e9)


def test_unknown_link_names_the_field_and_suggests() -> None:
    with pytest.raises(UnknownNameError) as error:
        get_interconnect("nvlink9")
    assert error.value.field == "interconnect" and "nvlink5" in str(error.value)
