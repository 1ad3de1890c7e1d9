"""Checks on the GPU catalog data itself: ids, required fields, ranges, dense vs sparse, lookup."""

from __future__ import annotations

import datetime as dt
from dataclasses import fields

import pytest

from calculators.catalog.gpus import GIB, GPU, all_gpus, get_gpu, gpu_ids
from calculators.catalog.sources import Source
from calculators.errors import UnknownNameError

GPUS = all_gpus()
RATE_FIELDS = ("bf16_dense_flop_per_s", "fp16_dense_flop_per_s", "fp8_dense_flop_per_s", "fp32_flop_per_s",
               "fp4_dense_flop_per_s")


def _sources(gpu: GPU) -> list[Source]:
    return [gpu.source, *(src for _, src in gpu.field_sources)]


def test_ids_and_names_are_unique() -> None:
    ids = gpu_ids()
    assert len(ids) == len(set(ids))
    names = [g.name.lower() for g in GPUS]
    assert len(names) == len(set(names))
    assert not set(ids) & set(names), "an id equal to another record's name makes lookup ambiguous"


def test_catalog_holds_the_required_skus() -> None:
    required = {"rtx-3090", "rtx-4090", "rtx-5090", "rtx-pro-6000-blackwell", "rtx-a6000", "t4", "l4",
                "l40s", "v100-sxm2-32gb", "a100-40gb-sxm", "a100-80gb-sxm", "h100-pcie", "h100-sxm",
                "h200", "b200", "mi300x", "m4-max",
                # issue #28: the hardware of 2025-26 figures, and the cloud parts readers size jobs on
                "gb200", "mi325x", "mi355x", "h20", "rtx-pro-6000-server", "m3-ultra", "m4-pro", "m3-max",
                "l40", "h100-nvl", "a100-80gb-pcie"}
    assert required <= set(gpu_ids())


@pytest.mark.parametrize("gpu", GPUS, ids=lambda g: g.id)
def test_required_fields_filled(gpu: GPU) -> None:
    for name in ("id", "name", "vendor", "architecture"):
        assert getattr(gpu, name).strip()
    assert gpu.id == gpu.id.lower() and " " not in gpu.id
    assert gpu.segment in {"consumer", "workstation", "datacenter", "apple"}
    assert isinstance(gpu.memory_bytes, int)
    for src in _sources(gpu):
        assert src.title.strip() and src.url.startswith("https://")
        assert src.kind in {"spec", "measured", "derived", "assumed"}
    field_names = {f.name for f in fields(GPU)}
    assert all(name in field_names for name, _ in gpu.field_sources)


@pytest.mark.parametrize("gpu", GPUS, ids=lambda g: g.id)
def test_dates_parse(gpu: GPU) -> None:
    for src in _sources(gpu):  # read no later than the last catalog edit (measured matmul rates: 2026-11-30)
        assert dt.date.fromisoformat(src.as_of) <= dt.date(2026, 11, 30)
    if gpu.launch_date is not None:
        assert dt.date(2015, 1, 1) <= dt.date.fromisoformat(gpu.launch_date) <= dt.date(2026, 11, 21)


@pytest.mark.parametrize("gpu", GPUS, ids=lambda g: g.id)
def test_values_positive_and_plausible(gpu: GPU) -> None:
    assert 8 * GIB <= gpu.memory_bytes <= 512 * GIB
    assert 100e9 <= gpu.memory_bandwidth_bytes_per_s <= 20e12
    for name in RATE_FIELDS:
        value = getattr(gpu, name)
        assert value is None or 1e12 <= value <= 20e15, name
    for name in ("nvlink_bandwidth_bytes_per_s", "tdp_watts", "launch_price_usd"):
        value = getattr(gpu, name)
        assert value is None or value > 0, name
    assert gpu.tdp_watts is None or 30 <= gpu.tdp_watts <= 1500
    assert gpu.pcie_generation is None or 3 <= gpu.pcie_generation <= 6
    assert gpu.pcie_lanes in (None, 8, 16)


@pytest.mark.parametrize("gpu", GPUS, ids=lambda g: g.id)
def test_rate_ordering(gpu: GPU) -> None:
    """A tensor path beats non-tensor FP32 (Apple GPUs have none: one rate for all), FP8 is never slower than BF16,
    FP4 never slower than FP8."""
    if gpu.bf16_dense_flop_per_s and gpu.fp32_flop_per_s:
        if gpu.vendor == "Apple":
            # metal-benchmarks: F16 and F32 OPs/clock are both 256 per core; simdgroup_matrix uses the FP32 pipelines
            assert gpu.bf16_dense_flop_per_s == gpu.fp16_dense_flop_per_s == gpu.fp32_flop_per_s
        else:
            assert gpu.bf16_dense_flop_per_s > gpu.fp32_flop_per_s
    if gpu.bf16_dense_flop_per_s and gpu.fp8_dense_flop_per_s:
        assert gpu.fp8_dense_flop_per_s >= gpu.bf16_dense_flop_per_s
    if gpu.fp8_dense_flop_per_s and gpu.fp4_dense_flop_per_s:
        assert gpu.fp4_dense_flop_per_s >= gpu.fp8_dense_flop_per_s


def test_memory_gib_is_binary() -> None:
    assert get_gpu("h100-sxm").memory_bytes == 85_899_345_920
    assert get_gpu("h100-sxm").memory_gib == 80.0


# Datasheet (sparse) headline and dense value for BF16, one row per card.
# Each row cites the document that prints the figures.
SPARSE_VS_DENSE = [
    # NVIDIA H100 product page: "BFLOAT16 Tensor Core 1,979 teraFLOPS*", * with sparsity;
    # Hopper whitepaper Table 3 prints 989.4/1978.9. https://www.nvidia.com/en-us/data-center/h100/
    ("h100-sxm", 1979e12, 989.4e12),
    # Same page, H100 PCIe column: 1,513 teraFLOPS with sparsity.
    ("h100-pcie", 1513e12, 756.5e12),
    # NVIDIA H200 page: 1,979 teraFLOPS with sparsity. https://www.nvidia.com/en-us/data-center/h200/
    ("h200", 1979e12, 989.4e12),
    # NVIDIA A100 datasheet: "BFLOAT16 Tensor Core 312 TFLOPS | 624 TFLOPS*".
    # https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf
    ("a100-80gb-sxm", 624e12, 312e12),
    ("a100-40gb-sxm", 624e12, 312e12),
    # NVIDIA HGX page, HGX B200 per GPU: FP16/BF16 4.5 PFLOPS with sparsity. https://www.nvidia.com/en-us/data-center/hgx/
    ("b200", 4.5e15, 2.25e15),
    # NVIDIA L40S datasheet: BF16 362.05 | 733*. https://www.nvidia.com/en-us/data-center/l40s/
    ("l40s", 733e12, 362.05e12),
    # NVIDIA L4 datasheet: BF16 242 teraFLOPS with sparsity. https://www.nvidia.com/en-us/data-center/l4/
    ("l4", 242e12, 121e12),
    # Ada whitepaper Appendix A, RTX 4090: BF16 with FP32 accumulate 165.2/330.4.
    # https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf
    ("rtx-4090", 330.4e12, 165.2e12),
    # RTX Blackwell whitepaper Table 3, RTX 5090: BF16 with FP32 accumulate 209.5/419.
    # https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/nvidia-rtx-blackwell-gpu-architecture.pdf
    ("rtx-5090", 419e12, 209.5e12),
    # GA102 whitepaper v2 Appendix C, RTX A6000: BF16 with FP32 accumulate 154.8/309.7.
    # https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf
    ("rtx-a6000", 309.7e12, 154.8e12),
    # AMD MI300X data sheet: BF16 1,307.4 dense, 2,614.9 with sparsity.
    # https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf
    ("mi300x", 2614.9e12, 1307.4e12),
    # AMD MI325X: the same 1,307.4 dense and 2,614.9 with sparsity (copy of AMD's table on awesomeagents.ai).
    ("mi325x", 2614.9e12, 1307.4e12),
    # NVIDIA H100 page, H100 NVL column: BF16 1,671 teraFLOPS with sparsity.
    ("h100-nvl", 1671e12, 835.5e12),
    # NVIDIA L40 datasheet: BF16 181.05 | 362.1 with sparsity. https://www.nvidia.com/en-us/data-center/l40/
    ("l40", 362.1e12, 181.05e12),
    # NVIDIA A100 datasheet, PCIe 80GB column: 312 | 624 with sparsity.
    ("a100-80gb-pcie", 624e12, 312e12),
    # NVIDIA GB200 NVL72: FP16/BF16 360 PFLOPS with sparsity for 72 GPUs, 5 PFLOPS each.
    # https://www.nvidia.com/en-us/data-center/gb200-nvl72/
    ("gb200", 360e15 / 72, 2.5e15),
]


@pytest.mark.parametrize(("gpu_id", "sparse_headline", "dense"), SPARSE_VS_DENSE)
def test_bf16_is_the_dense_figure_not_the_sparse_headline(gpu_id: str, sparse_headline: float,
                                                          dense: float) -> None:
    gpu = get_gpu(gpu_id)
    assert gpu.bf16_dense_flop_per_s == pytest.approx(dense, rel=1e-3)
    assert gpu.bf16_dense_flop_per_s != pytest.approx(sparse_headline, rel=1e-3)
    assert gpu.bf16_dense_flop_per_s < sparse_headline


def test_no_record_stores_a_sparse_headline_as_dense() -> None:
    # A card's dense rate may equal another card's sparse headline (the L40S's dense BF16 is the L40's sparse one),
    # so a card with a row is checked against its own headline, the others against every headline.
    own = {row[0]: {row[1]} for row in SPARSE_VS_DENSE}
    every = {row[1] for row in SPARSE_VS_DENSE}
    for gpu in GPUS:
        headlines = own.get(gpu.id, every)
        for name in RATE_FIELDS:
            value = getattr(gpu, name)
            if value is not None and gpu.sparse_figures_note is not None and name not in ("fp8_dense_flop_per_s",
                                                                                          "fp4_dense_flop_per_s"):
                assert all(value != pytest.approx(h, rel=1e-3) for h in headlines), (gpu.id, name)


def test_lookup_by_name_is_case_insensitive() -> None:
    assert get_gpu("h100 sxm 80gb") is get_gpu("H100 SXM 80GB") is get_gpu("H100-SXM")
    assert get_gpu("  GeForce RTX 4090 ").id == "rtx-4090"


def test_unknown_gpu_names_the_field_and_suggests_close_matches() -> None:
    with pytest.raises(UnknownNameError) as info:
        get_gpu("h100-sx")
    message = str(info.value)
    assert message.startswith("gpu:")
    assert info.value.field == "gpu"
    assert "did you mean" in message and "h100-sxm" in message


def test_source_of_prefers_the_field_source() -> None:
    gpu = get_gpu("h100-sxm")
    assert gpu.source_of("bf16_dense_flop_per_s").title.startswith("NVIDIA H100 Tensor Core GPU Architecture")
    assert gpu.source_of("memory_bytes") is gpu.source
    assert get_gpu("l4").source_of("bf16_dense_flop_per_s").kind == "derived"
    with pytest.raises(ValueError):
        gpu.source_of("no_such_field")


def test_unknown_rates_are_none_not_guesses() -> None:
    for gpu in (g for g in GPUS if g.vendor == "Apple"):
        # Apple publishes no TFLOPS for these chips: the rates are derived (cores x 256 x clock), and say so
        assert gpu.fp8_dense_flop_per_s is None and gpu.fp4_dense_flop_per_s is None
        assert all(gpu.source_of(name).kind == "derived"
                   for name in ("bf16_dense_flop_per_s", "fp16_dense_flop_per_s", "fp32_flop_per_s"))
    assert get_gpu("rtx-pro-6000-server").fp8_dense_flop_per_s is None  # no read source prints it
    assert get_gpu("v100-sxm2-32gb").bf16_dense_flop_per_s is None  # Volta has no BF16
    assert get_gpu("a100-80gb-sxm").fp8_dense_flop_per_s is None  # Ampere has no FP8
