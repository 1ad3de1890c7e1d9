"""GPU catalog: memory, bandwidth and dense peak rates of common ML accelerators, each with its source.

Units are base units: bytes, bytes/s, FLOP/s, watts, USD. Tensor-core rates are the
*dense* figures. Datacenter datasheets print their tensor rates "with sparsity" (2:4
structured sparsity doubles the headline), so the dense rate is half the headline;
``sparse_figures_note`` records the headline that was halved. For GeForce and RTX
workstation cards the rate is the one with FP32 accumulation from NVIDIA's architecture
whitepapers, because mixed-precision training accumulates in FP32 and GeForce cards run
FP16-accumulate at twice that rate.

Memory capacity: every card here uses DRAM devices whose densities are powers of two
(HBM stacks of 8, 16 or 24 GiB; GDDR chips of 1, 2 or 3 GiB), so the vendor's "80GB" is
80 GiB = 80 x 2**30 bytes. ``nvidia-smi`` confirms it: it reports 81559 MiB total on an
H100 SXM 80GB and 143771 MiB on an H200, both above 80e9 and 141e9 bytes (76294 and
134468 MiB), and the driver keeps a few hundred MiB back, so usable memory is slightly
below ``memory_bytes``. Apple's "128GB" of unified memory is likewise 128 GiB.

>>> h100 = get_gpu("H100 SXM 80GB")
>>> h100.memory_gib, h100.bf16_dense_flop_per_s / 1e12
(80.0, 989.4)
>>> get_gpu("rtx-4090").source_of("bf16_dense_flop_per_s").title
'NVIDIA Ada GPU Architecture whitepaper, Appendix A (GeForce RTX 4090)'

References:
    Each record's ``source`` and ``field_sources``; docs page "Hardware catalog".
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from calculators.catalog.sources import Source
from calculators.errors import InputError, UnknownNameError
from calculators.units import GIB

_READ = "2026-11-21"  # the date the documents below were read for this catalog


@dataclass(frozen=True, kw_only=True)
class GPU:
    """One accelerator SKU with its datasheet figures in base units.

    Attributes:
        id: Short slug, e.g. ``"h100-sxm"``.
        name: Vendor name verbatim, e.g. ``"H100 SXM 80GB"``.
        vendor: ``"NVIDIA"``, ``"AMD"`` or ``"Apple"``.
        architecture: Vendor architecture name, e.g. ``"Hopper"``.
        segment: ``"consumer"``, ``"workstation"``, ``"datacenter"`` or ``"apple"``.
        memory_bytes: Memory capacity in bytes (binary GiB, see module docstring).
            For Apple parts, the largest unified-memory configuration.
        memory_type: e.g. ``"HBM3"``; ``None`` if the vendor does not say.
        memory_bandwidth_bytes_per_s: Peak DRAM bandwidth, bytes/s (decimal, as quoted).
        bf16_dense_flop_per_s: Dense BF16 tensor rate, FLOP/s; never the sparse figure.
            ``None`` where the hardware has no BF16 tensor path or no figure is published.
        fp16_dense_flop_per_s: Dense FP16 tensor rate with FP32 accumulation, FLOP/s.
        fp8_dense_flop_per_s: Dense FP8 tensor rate (FP32 accumulation), FLOP/s; ``None``
            where there is no FP8.
        fp32_flop_per_s: Non-tensor FP32 rate, FLOP/s.
        sparse_figures_note: What the headline (sparse) figures are, if any.
        interconnect: GPU-to-GPU link, e.g. ``"NVLink 4"``; ``None`` for none or unknown.
        nvlink_bandwidth_bytes_per_s: GPU-to-GPU link bandwidth per GPU, bytes/s, as
            vendors quote it: BIDIRECTIONAL total (both directions summed). For AMD this
            is the Infinity Fabric aggregate. ``None`` without such a link.
        pcie_generation: PCIe generation of the host link.
        pcie_lanes: PCIe lane count of the host link.
        tdp_watts: Maximum board/module power (TDP or TBP), watts.
        ecc: Whether the memory has ECC.
        launch_price_usd: Vendor-published launch price (MSRP), USD; ``None`` where the
            vendor published none. Never a street price.
        launch_date: ISO date of announcement or release, as the cited source gives it.
        source: Primary document for the record.
        field_sources: ``(field_name, Source)`` pairs for values taken from elsewhere.
        notes: Caveats in plain words.
        compute_capability: NVIDIA's CUDA compute capability (``"8.0"``, ``"9.0"``), which
            fixes the tensor-core formats the GPU runs (:mod:`calculators.dtype_support`);
            ``None`` for AMD and Apple parts, which have none.
    """

    id: str
    name: str
    vendor: str
    architecture: str
    segment: str
    memory_bytes: int
    memory_type: str | None
    memory_bandwidth_bytes_per_s: float
    bf16_dense_flop_per_s: float | None
    fp16_dense_flop_per_s: float | None
    fp8_dense_flop_per_s: float | None
    fp32_flop_per_s: float | None
    sparse_figures_note: str | None = None
    interconnect: str | None = None
    nvlink_bandwidth_bytes_per_s: float | None = None
    pcie_generation: int | None = None
    pcie_lanes: int | None = None
    tdp_watts: float | None = None
    ecc: bool | None = None
    launch_price_usd: float | None = None
    launch_date: str | None = None
    source: Source
    field_sources: tuple[tuple[str, Source], ...] = ()
    notes: tuple[str, ...] = field(default=())
    compute_capability: str | None = None

    @property
    def memory_gib(self) -> float:
        """Memory capacity in GiB (2**30 bytes)."""
        return self.memory_bytes / GIB

    def source_of(self, field_name: str) -> Source:
        """The document a field's value comes from: its own entry, else the record's ``source``.

        Args:
            field_name: A field of :class:`GPU`, e.g. ``"bf16_dense_flop_per_s"``.

        Returns:
            The :class:`Source` for that field.

        Raises:
            InputError: ``field_name`` is not a field of :class:`GPU`.
        """
        names = [f.name for f in fields(self)]
        if field_name not in names:
            raise InputError("field", field_name, f"one of: {', '.join(names)}")
        for name, src in self.field_sources:
            if name == field_name:
                return src
        return self.source


# --- documents -------------------------------------------------------------------------
_HOPPER_WP = Source(
    "NVIDIA H100 Tensor Core GPU Architecture whitepaper (Hopper), Table 3",
    "https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper", "2022-03-22")
_H100_DS = Source("NVIDIA H100 Tensor Core GPU product specifications",
                  "https://www.nvidia.com/en-us/data-center/h100/", _READ)
_H100_PCIE_PB = Source("NVIDIA H100 PCIe GPU product brief PB-11133-001_v02",
                       "https://www.nvidia.com/en-us/data-center/h100/", "2022-11-30")
_H200_DS = Source("NVIDIA H200 Tensor Core GPU product specifications",
                  "https://www.nvidia.com/en-us/data-center/h200/", _READ)
_HGX_B200 = Source("NVIDIA HGX platform specifications (HGX B200, per-GPU column)",
                   "https://www.nvidia.com/en-us/data-center/hgx/", _READ)
_A100_DS = Source(
    "NVIDIA A100 Tensor Core GPU datasheet",
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
    "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf", _READ)
_A100_WP = Source(
    "NVIDIA A100 Tensor Core GPU Architecture whitepaper, Table 1 (V100 column)",
    "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf",
    "2020-05-14")
_V100_DS = Source("NVIDIA V100 Tensor Core GPU datasheet",
                  "https://www.nvidia.com/en-us/data-center/v100/", _READ)
_T4_DS = Source("NVIDIA T4 Tensor Core GPU datasheet",
                "https://www.nvidia.com/en-us/data-center/tesla-t4/", _READ)
_L4_DS = Source("NVIDIA L4 Tensor Core GPU datasheet",
                "https://www.nvidia.com/en-us/data-center/l4/", _READ)
_L40S_DS = Source("NVIDIA L40S datasheet", "https://www.nvidia.com/en-us/data-center/l40s/", _READ)
_GA102_WP = Source(
    "NVIDIA Ampere GA102 GPU Architecture whitepaper v2.0 (RTX 3090 Appendix A, RTX A6000 Appendix C)",
    "https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf", _READ)
_ADA_WP = Source(
    "NVIDIA Ada GPU Architecture whitepaper, Appendix A (GeForce RTX 4090)",
    "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf", _READ)
_RTX_BW_WP = Source(
    "NVIDIA RTX Blackwell GPU Architecture whitepaper, Table 3",
    "https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/nvidia-rtx-blackwell-gpu-architecture.pdf",
    _READ)
_RTX_PRO_WP = Source(
    "NVIDIA RTX PRO Blackwell GPU Architecture whitepaper v1.0, Table 4",
    "https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/quadro-product-literature/"
    "NVIDIA-RTX-Blackwell-PRO-GPU-Architecture-v1.0.pdf", _READ)
_RTX_PRO_PAGE = Source("NVIDIA RTX PRO 6000 Blackwell Workstation Edition product page",
                       "https://www.nvidia.com/en-us/products/workstations/professional-desktop-gpus/"
                       "rtx-pro-6000/", _READ)
_MI300X_DS = Source(
    "AMD Instinct MI300X accelerator data sheet",
    "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/"
    "amd-instinct-mi300x-data-sheet.pdf", _READ)
_M4_PR = Source("Apple Newsroom: Apple introduces M4 Pro and M4 Max",
                "https://www.apple.com/newsroom/2024/10/apple-introduces-m4-pro-and-m4-max/", "2024-10-30")
_M3_PR = Source(
    "Apple Newsroom: Apple unveils M3, M3 Pro, and M3 Max",
    "https://www.apple.com/newsroom/2023/10/apple-unveils-m3-m3-pro-and-m3-max-the-most-advanced-chips-for-a-personal-computer/",
    "2023-10-30")
_GEFORCE_ECC = Source("gpumap NVIDIA spec table (ECC row: GeForce cards list no ECC)",
                      "https://github.com/lamonoai/gpumap/blob/main/nvidia/GPU.md", _READ)
_PRICE_3090 = Source("Indian Express: Nvidia GeForce RTX 3090 announced ($1,499, 24 September)",
                     "https://indianexpress.com/article/technology/tech-news-technology/"
                     "meet-nvidia-geforce-rtx-3090-worlds-first-8k-gaming-gpu-6579782/", "2020-09-02")
_PRICE_4090 = Source("PC Gamer: RTX 4090 release date October 12, 2022, price $1,599",
                     "https://www.pcgamer.com/nvidia-geforce-rtx-4090-release-date-price-specs-performance/",
                     "2022-09-21")
_PRICE_5090 = Source("TechTwisted: RTX 50 Series at CES 2025, RTX 5090 $1,999",
                     "https://techtwisted.com/news/nvidias-rtx-50-series-brings-ai-revolution-with-dollar1999-flagship-gpu",
                     _READ)
_DATE_5090 = Source("Copy of PCGamesN RTX 5090 guide: release date Thursday, January 30, 2025",
                    "https://dream-dictionary.org/nvidia-geforce-rtx-5090-release-date-price-and-specs", _READ)
_DATES_TPU = Source("Lambda LLM calculator gpu_specs.csv (TechPowerUp-style release dates)",
                    "https://huggingface.co/spaces/lambdabrendan/Lambda-LLM-Calculator/blob/main/data/gpu_specs.csv",
                    _READ)
_DATES_SYSRQ = Source("sysrqmts GPU pages (release dates)", "https://sysrqmts.com/en/gpus/nvidia/tesla/t4", _READ)
_DATE_H100 = Source("Grokipedia: Nvidia H100 (announced March 22, 2022 at GTC 2022)",
                    "https://grokipedia.com/page/Nvidia_H100", _READ)
_AIWIKI = Source("AI Wiki hardware pages (announcement/release dates)", "https://aiwiki.ai/wiki/nvidia_h200", _READ)


_CUDA_GPUS = Source("NVIDIA Developer: CUDA GPU Compute Capability (table of current GPUs)",
                    "https://developer.nvidia.com/cuda-gpus", _READ)
_CUDA_LEGACY = Source("NVIDIA Developer: Legacy CUDA GPU Compute Capability (7.0: NVIDIA V100)",
                      "https://developer.nvidia.com/cuda-legacy-gpus", _READ)
_CUDA_GPUS_2022 = Source("Copy of NVIDIA's CUDA GPUs page, data-centre table (NVIDIA A100 8.0, NVIDIA T4 7.5), "
                         "posted 2022-08-16", "https://www.cnblogs.com/nightnine/p/16591404.html", _READ)
_CC = {"rtx-3090": ("8.6", _CUDA_GPUS), "rtx-4090": ("8.9", _CUDA_GPUS), "rtx-5090": ("12.0", _CUDA_GPUS),
       "rtx-pro-6000-blackwell": ("12.0", _CUDA_GPUS), "rtx-a6000": ("8.6", _CUDA_GPUS),
       "t4": ("7.5", _CUDA_GPUS_2022), "l4": ("8.9", _CUDA_GPUS), "l40s": ("8.9", _CUDA_GPUS),
       "v100-sxm2-32gb": ("7.0", _CUDA_LEGACY), "a100-40gb-sxm": ("8.0", _CUDA_GPUS_2022),
       "a100-80gb-sxm": ("8.0", _CUDA_GPUS_2022), "h100-pcie": ("9.0", _CUDA_GPUS), "h100-sxm": ("9.0", _CUDA_GPUS),
       "h200": ("9.0", _CUDA_GPUS), "b200": ("10.0", _CUDA_GPUS)}


def _derived(title: str, base: Source) -> Source:
    return Source(f"{title} (from {base.title})", base.url, base.as_of, kind="derived")


_HBM_BINARY = ("Capacity is binary GiB: HBM stacks come in power-of-two densities, and "
               "nvidia-smi reports slightly less than the GiB figure after driver reservations.")

_GPUS: tuple[GPU, ...] = (
    GPU(id="rtx-3090", name="GeForce RTX 3090", vendor="NVIDIA", architecture="Ampere (GA102)",
        segment="consumer", memory_bytes=24 * GIB, memory_type="GDDR6X",
        memory_bandwidth_bytes_per_s=936e9, bf16_dense_flop_per_s=71.2e12,
        fp16_dense_flop_per_s=71.2e12, fp8_dense_flop_per_s=None, fp32_flop_per_s=35.6e12,
        sparse_figures_note=("NVIDIA's '285 Tensor-TFLOPS' is FP16 with FP16 accumulate and "
                             "sparsity; FP32-accumulate dense is a quarter of that"),
        pcie_generation=4, pcie_lanes=16, tdp_watts=350, ecc=False, launch_price_usd=1499,
        launch_date="2020-09-24", source=_GA102_WP,
        field_sources=(("bf16_dense_flop_per_s", _RTX_BW_WP), ("fp16_dense_flop_per_s", _RTX_BW_WP),
                       ("ecc", _GEFORCE_ECC), ("launch_price_usd", _PRICE_3090),
                       ("launch_date", _PRICE_3090)),
        notes=("Tensor rates are FP32-accumulate; GA102 whitepaper rounds them to 71/142 "
               "(dense/sparse), the RTX Blackwell whitepaper prints 71.2/142.4.",
               "FP16 with FP16 accumulate runs at twice the FP32-accumulate rate on GeForce.",
               "No FP8 tensor path on Ampere.",
               "2-way NVLink bridge exists on this card; its bandwidth is not in the cited "
               "documents, so interconnect is left unknown.")),
    GPU(id="rtx-4090", name="GeForce RTX 4090", vendor="NVIDIA", architecture="Ada Lovelace (AD102)",
        segment="consumer", memory_bytes=24 * GIB, memory_type="GDDR6X",
        memory_bandwidth_bytes_per_s=1008e9, bf16_dense_flop_per_s=165.2e12,
        fp16_dense_flop_per_s=165.2e12, fp8_dense_flop_per_s=330.3e12, fp32_flop_per_s=82.6e12,
        sparse_figures_note=("'1,321 AI TFLOPS' headline is FP8 with FP16 accumulate and sparsity; "
                             "whitepaper pairs are 165.2/330.4 (BF16) and 330.3/660.6 (FP8, FP32 acc.)"),
        pcie_generation=4, pcie_lanes=16, tdp_watts=450, ecc=False, launch_price_usd=1599,
        launch_date="2022-10-12", source=_ADA_WP,
        field_sources=(("ecc", _GEFORCE_ECC), ("launch_price_usd", _PRICE_4090),
                       ("launch_date", _PRICE_4090)),
        notes=("Tensor rates are FP32-accumulate; FP16/FP8 with FP16 accumulate run twice as fast.",
               "FP8 with FP32 accumulate was corrected to 330.3 in whitepaper v2.02.",
               "No NVLink.")),
    GPU(id="rtx-5090", name="GeForce RTX 5090", vendor="NVIDIA", architecture="Blackwell (GB202)",
        segment="consumer", memory_bytes=32 * GIB, memory_type="GDDR7",
        memory_bandwidth_bytes_per_s=1792e9, bf16_dense_flop_per_s=209.5e12,
        fp16_dense_flop_per_s=209.5e12, fp8_dense_flop_per_s=419e12, fp32_flop_per_s=104.8e12,
        sparse_figures_note=("'3,352 AI TOPS' headline is FP4 with sparsity; whitepaper pairs are "
                             "209.5/419 (BF16) and 419/838 (FP8, FP32 acc.)"),
        pcie_generation=5, pcie_lanes=16, tdp_watts=575, ecc=False, launch_price_usd=1999,
        launch_date="2025-01-30", source=_RTX_BW_WP,
        field_sources=(("fp32_flop_per_s", _derived("21,760 CUDA cores x 2 FLOP x 2.407 GHz boost",
                                                      _RTX_BW_WP)),
                       ("ecc", _GEFORCE_ECC), ("launch_price_usd", _PRICE_5090),
                       ("launch_date", _DATE_5090)),
        notes=("Tensor rates are FP32-accumulate.", "No NVLink.")),
    GPU(id="rtx-pro-6000-blackwell", name="RTX PRO 6000 Blackwell Workstation Edition",
        vendor="NVIDIA", architecture="Blackwell (GB202)", segment="workstation",
        memory_bytes=96 * GIB, memory_type="GDDR7", memory_bandwidth_bytes_per_s=1792e9,
        bf16_dense_flop_per_s=503.8e12, fp16_dense_flop_per_s=None, fp8_dense_flop_per_s=None,
        fp32_flop_per_s=125e12,
        sparse_figures_note="'4,000 AI TOPS' headline is FP4 with sparsity",
        pcie_generation=5, pcie_lanes=16, tdp_watts=600, ecc=True, source=_RTX_PRO_WP,
        field_sources=(("fp32_flop_per_s", _RTX_PRO_PAGE), ("tdp_watts", _RTX_PRO_PAGE),
                       ("memory_bandwidth_bytes_per_s", _RTX_PRO_PAGE)),
        notes=("BF16 is dense with FP32 accumulate (whitepaper Table 4).",
               "FP16 and FP8 dense figures not established from a read source: left unknown.",
               "Max-Q Workstation and Server Editions differ (power, bandwidth); not this record.",
               "NVIDIA published no launch price that was found: unknown.")),
    GPU(id="rtx-a6000", name="NVIDIA RTX A6000", vendor="NVIDIA", architecture="Ampere (GA102)",
        segment="workstation", memory_bytes=48 * GIB, memory_type="GDDR6",
        memory_bandwidth_bytes_per_s=768e9, bf16_dense_flop_per_s=154.8e12,
        fp16_dense_flop_per_s=154.8e12, fp8_dense_flop_per_s=None, fp32_flop_per_s=38.7e12,
        sparse_figures_note="datasheet 'Tensor performance 309.7 TFLOPS' is with sparsity",
        interconnect="NVLink 3 bridge, 2-way", nvlink_bandwidth_bytes_per_s=112.5e9,
        pcie_generation=4, pcie_lanes=16, tdp_watts=300, ecc=True, launch_date="2020-10-05",
        source=_GA102_WP, field_sources=(("launch_date", _DATES_SYSRQ),),
        notes=("Professional GA102 card: FP32 accumulate runs at the full tensor rate.",
               "No vendor MSRP found in a read source: launch price unknown.")),
    GPU(id="t4", name="NVIDIA T4", vendor="NVIDIA", architecture="Turing (TU104)",
        segment="datacenter", memory_bytes=16 * GIB, memory_type="GDDR6",
        memory_bandwidth_bytes_per_s=320e9, bf16_dense_flop_per_s=None,
        fp16_dense_flop_per_s=65e12, fp8_dense_flop_per_s=None, fp32_flop_per_s=8.1e12,
        pcie_generation=3, pcie_lanes=16, tdp_watts=70, ecc=True, launch_date="2018-09-13",
        source=_T4_DS, field_sources=(("launch_date", _DATES_SYSRQ),),
        notes=("65 TFLOPS is the datasheet's mixed-precision (FP16 multiply, FP32 accumulate) "
               "figure; Turing has no sparsity, no BF16 and no FP8.",
               "Datasheet quotes bandwidth as '320+ GB/s'.",
               "With ECC enabled the usable capacity is below 16 GiB.")),
    GPU(id="l4", name="NVIDIA L4", vendor="NVIDIA", architecture="Ada Lovelace (AD104)",
        segment="datacenter", memory_bytes=24 * GIB, memory_type="GDDR6",
        memory_bandwidth_bytes_per_s=300e9, bf16_dense_flop_per_s=121e12,
        fp16_dense_flop_per_s=121e12, fp8_dense_flop_per_s=242.5e12, fp32_flop_per_s=30.3e12,
        sparse_figures_note="datasheet BF16/FP16 242 and FP8 485 TFLOPS are with sparsity; dense is half",
        pcie_generation=4, pcie_lanes=16, tdp_watts=72, ecc=True, launch_date="2023-03-21",
        source=_L4_DS,
        field_sources=(("bf16_dense_flop_per_s", _derived("half of 242 sparse", _L4_DS)),
                       ("fp16_dense_flop_per_s", _derived("half of 242 sparse", _L4_DS)),
                       ("fp8_dense_flop_per_s", _derived("half of 485 sparse", _L4_DS)),
                       ("launch_date", _AIWIKI)),
        notes=("No NVLink.",)),
    GPU(id="l40s", name="NVIDIA L40S", vendor="NVIDIA", architecture="Ada Lovelace (AD102)",
        segment="datacenter", memory_bytes=48 * GIB, memory_type="GDDR6",
        memory_bandwidth_bytes_per_s=864e9, bf16_dense_flop_per_s=362.05e12,
        fp16_dense_flop_per_s=362.05e12, fp8_dense_flop_per_s=733e12, fp32_flop_per_s=91.6e12,
        sparse_figures_note="datasheet BF16 733 and FP8 1,466 TFLOPS are with sparsity",
        pcie_generation=4, pcie_lanes=16, tdp_watts=350, ecc=True, source=_L40S_DS,
        notes=("The datasheet prints the dense figure next to the sparse one.", "No NVLink.")),
    GPU(id="v100-sxm2-32gb", name="Tesla V100 SXM2 32GB", vendor="NVIDIA",
        architecture="Volta (GV100)", segment="datacenter", memory_bytes=32 * GIB,
        memory_type="HBM2", memory_bandwidth_bytes_per_s=900e9, bf16_dense_flop_per_s=None,
        fp16_dense_flop_per_s=125e12, fp8_dense_flop_per_s=None, fp32_flop_per_s=15.7e12,
        interconnect="NVLink 2", nvlink_bandwidth_bytes_per_s=300e9, pcie_generation=3,
        pcie_lanes=16, tdp_watts=300, ecc=True, source=_V100_DS,
        field_sources=(("fp16_dense_flop_per_s", _A100_WP), ("fp32_flop_per_s", _A100_WP)),
        notes=("Volta has no BF16, no FP8 and no sparsity: 125 TFLOPS is dense FP16 "
               "with FP32 accumulate.", _HBM_BINARY)),
    GPU(id="a100-40gb-sxm", name="A100 SXM 40GB", vendor="NVIDIA", architecture="Ampere (GA100)",
        segment="datacenter", memory_bytes=40 * GIB, memory_type="HBM2",
        memory_bandwidth_bytes_per_s=1555e9, bf16_dense_flop_per_s=312e12,
        fp16_dense_flop_per_s=312e12, fp8_dense_flop_per_s=None, fp32_flop_per_s=19.5e12,
        sparse_figures_note="datasheet prints 312 dense and 624 with sparsity for BF16/FP16",
        interconnect="NVLink 3, 12 links", nvlink_bandwidth_bytes_per_s=600e9,
        pcie_generation=4, pcie_lanes=16, tdp_watts=400, ecc=True, launch_date="2020-05-14",
        source=_A100_DS, field_sources=(("launch_date", _DATES_TPU),), notes=("No FP8 on Ampere.", _HBM_BINARY)),
    GPU(id="a100-80gb-sxm", name="A100 SXM 80GB", vendor="NVIDIA", architecture="Ampere (GA100)",
        segment="datacenter", memory_bytes=80 * GIB, memory_type="HBM2e",
        memory_bandwidth_bytes_per_s=2039e9, bf16_dense_flop_per_s=312e12,
        fp16_dense_flop_per_s=312e12, fp8_dense_flop_per_s=None, fp32_flop_per_s=19.5e12,
        sparse_figures_note="datasheet prints 312 dense and 624 with sparsity for BF16/FP16",
        interconnect="NVLink 3, 12 links", nvlink_bandwidth_bytes_per_s=600e9,
        pcie_generation=4, pcie_lanes=16, tdp_watts=400, ecc=True, launch_date="2020-11-16",
        source=_A100_DS, field_sources=(("launch_date", _DATES_TPU),), notes=("No FP8 on Ampere.", _HBM_BINARY)),
    GPU(id="h100-pcie", name="H100 PCIe 80GB", vendor="NVIDIA", architecture="Hopper (GH100)",
        segment="datacenter", memory_bytes=80 * GIB, memory_type="HBM2e",
        memory_bandwidth_bytes_per_s=2.0e12, bf16_dense_flop_per_s=756.5e12,
        fp16_dense_flop_per_s=756.5e12, fp8_dense_flop_per_s=1513e12, fp32_flop_per_s=51e12,
        sparse_figures_note="datasheet headline 1,513 TFLOPS BF16 and 3,026 FP8 are with sparsity; dense is half",
        interconnect="NVLink bridge", nvlink_bandwidth_bytes_per_s=600e9, pcie_generation=5,
        pcie_lanes=16, tdp_watts=350, ecc=True, launch_date="2022-03-22", source=_H100_DS,
        field_sources=(("bf16_dense_flop_per_s", _derived("half of 1,513 sparse", _H100_DS)),
                       ("fp16_dense_flop_per_s", _derived("half of 1,513 sparse", _H100_DS)),
                       ("fp8_dense_flop_per_s", _derived("half of 3,026 sparse", _H100_DS)),
                       ("tdp_watts", _H100_PCIE_PB), ("launch_date", _DATE_H100)),
        notes=("Product brief: bandwidth 'greater than 2,000 GB/s', TDP 350 W.", _HBM_BINARY)),
    GPU(id="h100-sxm", name="H100 SXM 80GB", vendor="NVIDIA", architecture="Hopper (GH100)",
        segment="datacenter", memory_bytes=80 * GIB, memory_type="HBM3",
        memory_bandwidth_bytes_per_s=3.35e12, bf16_dense_flop_per_s=989.4e12,
        fp16_dense_flop_per_s=989.4e12, fp8_dense_flop_per_s=1978.9e12, fp32_flop_per_s=67e12,
        sparse_figures_note="datasheet headline 1,979 TFLOPS BF16 and 3,958 FP8 are with 2:4 sparsity; dense is half",
        interconnect="NVLink 4, 18 links", nvlink_bandwidth_bytes_per_s=900e9, pcie_generation=5,
        pcie_lanes=16, tdp_watts=700, ecc=True, launch_date="2022-03-22", source=_H100_DS,
        field_sources=(("bf16_dense_flop_per_s", _HOPPER_WP), ("fp16_dense_flop_per_s", _HOPPER_WP),
                       ("fp8_dense_flop_per_s", _HOPPER_WP), ("launch_date", _DATE_H100)),
        notes=("nvidia-smi reports 81559 MiB total (80 GiB = 81920 MiB).", _HBM_BINARY)),
    GPU(id="h200", name="H200 SXM 141GB", vendor="NVIDIA", architecture="Hopper (GH100)",
        segment="datacenter", memory_bytes=141 * GIB, memory_type="HBM3e",
        memory_bandwidth_bytes_per_s=4.8e12, bf16_dense_flop_per_s=989.4e12,
        fp16_dense_flop_per_s=989.4e12, fp8_dense_flop_per_s=1978.9e12, fp32_flop_per_s=67e12,
        sparse_figures_note="datasheet headline 1,979 TFLOPS BF16 and 3,958 FP8 are with sparsity; dense is half",
        interconnect="NVLink 4, 18 links", nvlink_bandwidth_bytes_per_s=900e9, pcie_generation=5,
        pcie_lanes=16, tdp_watts=700, ecc=True, launch_date="2023-11-13", source=_H200_DS,
        field_sources=(("bf16_dense_flop_per_s", _derived("same headline as H100 SXM; dense per",
                                                            _HOPPER_WP)),
                       ("fp16_dense_flop_per_s", _derived("same headline as H100 SXM; dense per",
                                                            _HOPPER_WP)),
                       ("fp8_dense_flop_per_s", _derived("same headline as H100 SXM; dense per",
                                                           _HOPPER_WP)),
                       ("launch_date", _AIWIKI)),
        notes=("nvidia-smi reports 143771 MiB total (141 GiB = 144384 MiB).",
               "TDP is 'up to 700 W' (configurable).", _HBM_BINARY)),
    GPU(id="b200", name="B200 (HGX B200) 180GB", vendor="NVIDIA", architecture="Blackwell",
        segment="datacenter", memory_bytes=180 * GIB, memory_type="HBM3e",
        memory_bandwidth_bytes_per_s=7.7e12, bf16_dense_flop_per_s=2.25e15,
        fp16_dense_flop_per_s=2.25e15, fp8_dense_flop_per_s=4.5e15, fp32_flop_per_s=75e12,
        sparse_figures_note="HGX table per-GPU BF16 4.5 PFLOPS and FP8 9 PFLOPS are with sparsity; dense is half",
        interconnect="NVLink 5, 18 links", nvlink_bandwidth_bytes_per_s=1.8e12, pcie_generation=5,
        pcie_lanes=16, tdp_watts=1000, ecc=True, source=_HGX_B200,
        field_sources=(("bf16_dense_flop_per_s", _derived("half of 4.5 PFLOPS sparse", _HGX_B200)),
                       ("fp16_dense_flop_per_s", _derived("half of 4.5 PFLOPS sparse", _HGX_B200)),
                       ("fp8_dense_flop_per_s", _derived("half of 9 PFLOPS sparse", _HGX_B200))),
        notes=("nvidia-smi reports 183359 MiB total (180 GiB = 184320 MiB); the package "
               "carries 192 GB of HBM3e of which 180 GB is enabled.",
               "Earlier DGX B200 material quotes 8 TB/s per GPU (64 TB/s for 8); the HGX table "
               "now prints 7.7 TB/s.",
               "TDP 'configurable up to 1,000 W'; GB200 parts run faster at higher power.",
               _HBM_BINARY)),
    GPU(id="mi300x", name="AMD Instinct MI300X", vendor="AMD", architecture="CDNA 3",
        segment="datacenter", memory_bytes=192 * GIB, memory_type="HBM3",
        memory_bandwidth_bytes_per_s=5.3e12, bf16_dense_flop_per_s=1307.4e12,
        fp16_dense_flop_per_s=1307.4e12, fp8_dense_flop_per_s=2614.9e12, fp32_flop_per_s=163.4e12,
        sparse_figures_note="data sheet also prints sparsity figures: 2,614.9 BF16 and 5,229.8 FP8",
        interconnect="AMD Infinity Fabric, 7 links x 128 GB/s", nvlink_bandwidth_bytes_per_s=896e9,
        pcie_generation=5, pcie_lanes=16, tdp_watts=750, ecc=True, launch_date="2023-12-06",
        source=_MI300X_DS, field_sources=(("launch_date", _AIWIKI),),
        notes=("Some third-party pages list 2,615 TFLOPS as 'dense FP16'; that is the sparsity figure.",
               "Infinity Fabric figure is the aggregate of 7 links, bidirectional.", _HBM_BINARY)),
    GPU(id="m4-max", name="Apple M4 Max (16-core CPU, 40-core GPU)", vendor="Apple",
        architecture="Apple M4", segment="apple", memory_bytes=128 * GIB, memory_type=None,
        memory_bandwidth_bytes_per_s=546e9, bf16_dense_flop_per_s=None, fp16_dense_flop_per_s=None,
        fp8_dense_flop_per_s=None, fp32_flop_per_s=None, launch_date="2024-10-30", source=_M4_PR,
        notes=("Memory is unified and shared with the CPU; 128 GB is the largest configuration.",
               "macOS caps how much memory the GPU may wire (sysctl iogpu.wired_limit_mb; 0 = "
               "default heuristic), so a model cannot use all 128 GiB by default.",
               "Apple publishes no TFLOPS figures: all rates unknown.",
               "546 GB/s is for the 40-core-GPU part; the 32-core part has less.")),
    GPU(id="m3-max", name="Apple M3 Max (16-core CPU, 40-core GPU)", vendor="Apple",
        architecture="Apple M3", segment="apple", memory_bytes=128 * GIB, memory_type=None,
        memory_bandwidth_bytes_per_s=400e9, bf16_dense_flop_per_s=None, fp16_dense_flop_per_s=None,
        fp8_dense_flop_per_s=None, fp32_flop_per_s=None, source=_M3_PR,
        notes=("Memory is unified and shared with the CPU; 128 GB is the largest configuration.",
               "macOS caps how much memory the GPU may wire by default (iogpu.wired_limit_mb).",
               "Apple publishes no TFLOPS figures: all rates unknown.",
               "400 GB/s is for the 40-core-GPU part; the 30-core part has less.")),
)


def _with_compute_capability(gpu: GPU) -> GPU:
    """The record with its compute capability and that figure's source (NVIDIA parts only)."""
    if gpu.id not in _CC:
        return gpu
    capability, source = _CC[gpu.id]
    return replace(gpu, compute_capability=capability,
                   field_sources=gpu.field_sources + (("compute_capability", source),))


_GPUS = tuple(_with_compute_capability(gpu) for gpu in _GPUS)


def all_gpus() -> tuple[GPU, ...]:
    """Every GPU record, in catalog order.

    >>> len(all_gpus()) >= 17
    True
    """
    return _GPUS


def gpu_ids() -> list[str]:
    """Ids of every GPU record, in catalog order.

    >>> gpu_ids()[:2]
    ['rtx-3090', 'rtx-4090']
    """
    return [g.id for g in _GPUS]


def get_gpu(id_or_name: str) -> GPU:
    """The GPU whose id or vendor name matches, ignoring case and surrounding spaces.

    Args:
        id_or_name: An id such as ``"h100-sxm"`` or a name such as ``"H100 SXM 80GB"``.

    Returns:
        The matching :class:`GPU`.

    Raises:
        UnknownNameError: Nothing matches; the message names the field ``gpu`` and
            suggests close ids.

    >>> get_gpu(" a100-80GB-sxm ").name
    'A100 SXM 80GB'
    """
    key = str(id_or_name).strip().lower()
    for gpu in _GPUS:
        if key in (gpu.id.lower(), gpu.name.lower()):
            return gpu
    raise UnknownNameError("gpu", id_or_name, gpu_ids())
