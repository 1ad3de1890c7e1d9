"""NVIDIA PCIe cards: GeForce and RTX workstation cards, and the PCIe data-centre cards (T4, L4, L40, L40S,
RTX PRO 6000 Server Edition), with their sources.

For GeForce and RTX workstation cards the tensor rate is the one with FP32 accumulation from NVIDIA's
architecture whitepapers (mixed-precision training accumulates in FP32; GeForce cards run
FP16-accumulate at twice that rate). Assembled by :mod:`calculators.catalog.gpus`.
"""

from __future__ import annotations

from calculators.catalog.gpu_records.base import GPU, HBM_BINARY, READ, derived
from calculators.catalog.sources import Source
from calculators.units import GIB

_T4_DS = Source("NVIDIA T4 Tensor Core GPU datasheet",
                "https://www.nvidia.com/en-us/data-center/tesla-t4/", READ)
_L4_DS = Source("NVIDIA L4 Tensor Core GPU datasheet",
                "https://www.nvidia.com/en-us/data-center/l4/", READ)
_L40S_DS = Source("NVIDIA L40S datasheet", "https://www.nvidia.com/en-us/data-center/l40s/", READ)
_GA102_WP = Source(
    "NVIDIA Ampere GA102 GPU Architecture whitepaper v2.0 (RTX 3090 Appendix A, RTX A6000 Appendix C)",
    "https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf", READ)
_ADA_WP = Source(
    "NVIDIA Ada GPU Architecture whitepaper, Appendix A (GeForce RTX 4090)",
    "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf", READ)
_RTX_BW_WP = Source(
    "NVIDIA RTX Blackwell GPU Architecture whitepaper, Table 3",
    "https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/nvidia-rtx-blackwell-gpu-architecture.pdf",
    READ)
_RTX_PRO_WP = Source(
    "NVIDIA RTX PRO Blackwell GPU Architecture whitepaper v1.0, Table 4",
    "https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/quadro-product-literature/"
    "NVIDIA-RTX-Blackwell-PRO-GPU-Architecture-v1.0.pdf", READ)
_RTX_PRO_PAGE = Source("NVIDIA RTX PRO 6000 Blackwell Workstation Edition product page",
                       "https://www.nvidia.com/en-us/products/workstations/professional-desktop-gpus/"
                       "rtx-pro-6000/", READ)
_GEFORCE_ECC = Source("gpumap NVIDIA spec table (ECC row: GeForce cards list no ECC)",
                      "https://github.com/lamonoai/gpumap/blob/main/nvidia/GPU.md", READ)
_PRICE_3090 = Source("Indian Express: Nvidia GeForce RTX 3090 announced ($1,499, 24 September)",
                     "https://indianexpress.com/article/technology/tech-news-technology/"
                     "meet-nvidia-geforce-rtx-3090-worlds-first-8k-gaming-gpu-6579782/", "2020-09-02")
_PRICE_4090 = Source("PC Gamer: RTX 4090 release date October 12, 2022, price $1,599",
                     "https://www.pcgamer.com/nvidia-geforce-rtx-4090-release-date-price-specs-performance/",
                     "2022-09-21")
_PRICE_5090 = Source("TechTwisted: RTX 50 Series at CES 2025, RTX 5090 $1,999",
                     "https://techtwisted.com/news/nvidias-rtx-50-series-brings-ai-revolution-with-dollar1999-flagship-gpu",
                     READ)
_DATE_5090 = Source("Copy of PCGamesN RTX 5090 guide: release date Thursday, January 30, 2025",
                    "https://dream-dictionary.org/nvidia-geforce-rtx-5090-release-date-price-and-specs", READ)
_DATES_SYSRQ = Source("sysrqmts GPU pages (release dates)", "https://sysrqmts.com/en/gpus/nvidia/tesla/t4", READ)
_AIWIKI = Source("AI Wiki hardware pages (announcement/release dates)", "https://aiwiki.ai/wiki/nvidia_h200", READ)
_L40_DS = Source("NVIDIA L40 GPU for data center, product specifications",
                 "https://www.nvidia.com/en-us/data-center/l40/", READ)
_RTX_PRO_SERVER = Source("NVIDIA RTX PRO 6000 Blackwell Server Edition product specifications",
                         "https://www.nvidia.com/en-us/data-center/rtx-pro-6000-blackwell-server-edition/", READ)

RECORDS: tuple[GPU, ...] = (
    GPU(id="rtx-3090", name="GeForce RTX 3090", vendor="NVIDIA", architecture="Ampere (GA102)",
        segment="consumer", memory_bytes=24 * GIB, memory_type="GDDR6X",
        memory_bandwidth_bytes_per_s=936e9, bf16_dense_flop_per_s=71.2e12,
        fp16_dense_flop_per_s=71.2e12, fp8_dense_flop_per_s=None, fp32_flop_per_s=35.6e12,
        sparse_figures_note=("NVIDIA's '285 Tensor-TFLOPS' is FP16 with FP16 accumulate and "
                             "sparsity; FP32-accumulate dense is a quarter of that"),
        pcie_generation=4, pcie_lanes=16, tdp_watts=350, ecc=False, launch_price_usd=1499,
        launch_date="2020-09-24", source=_GA102_WP,
        field_sources=(("bf16_dense_flop_per_s", _RTX_BW_WP), ("fp16_dense_flop_per_s", _RTX_BW_WP),
                       ("fp16_accumulate_dense_flop_per_s", _GA102_WP),
                       ("ecc", _GEFORCE_ECC), ("launch_price_usd", _PRICE_3090),
                       ("launch_date", _PRICE_3090)),
        fp16_accumulate_dense_flop_per_s=142e12,
        notes=("Tensor rates are FP32-accumulate; GA102 whitepaper rounds them to 71/142 "
               "(dense/sparse), the RTX Blackwell whitepaper prints 71.2/142.4.",
               "FP16 with FP16 accumulate runs at twice the FP32-accumulate rate on GeForce: 142/284 "
               "(dense/sparse) in the GA102 whitepaper.",
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
        fp16_accumulate_dense_flop_per_s=330.3e12,
        notes=("Tensor rates are FP32-accumulate; FP16/FP8 with FP16 accumulate run twice as fast "
               "(FP16: 330.3 dense, 660.6 sparse).",
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
        field_sources=(("fp32_flop_per_s", derived("21,760 CUDA cores x 2 FLOP x 2.407 GHz boost",
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
    GPU(id="rtx-pro-6000-server", name="RTX PRO 6000 Blackwell Server Edition", vendor="NVIDIA",
        architecture="Blackwell (GB202)", segment="datacenter", memory_bytes=96 * GIB, memory_type="GDDR7",
        memory_bandwidth_bytes_per_s=1.6e12, bf16_dense_flop_per_s=503.8e12 * 120 / 125,
        fp16_dense_flop_per_s=None, fp8_dense_flop_per_s=None, fp32_flop_per_s=120e12,
        sparse_figures_note="'4 PFLOPS' FP4 headline is with sparsity",
        pcie_generation=5, pcie_lanes=16, tdp_watts=600, ecc=True, source=_RTX_PRO_SERVER,
        field_sources=(("bf16_dense_flop_per_s", derived(
            "Workstation Edition's dense BF16 503.8 TFLOPS (RTX PRO whitepaper Table 4) x 120/125, the ratio of the "
            "two editions' FP32 rates (same GB202 with 188 SMs, so the tensor rate scales with the clock)",
            _RTX_PRO_SERVER)),),
        notes=("Passively cooled, for servers; maximum power is configurable (600 W is the ceiling).",
               "The same 188-SM GB202 as the Workstation Edition at a lower clock and memory bandwidth.",
               "FP16 and FP8 dense figures not established from a read source: left unknown (FP8 jobs are "
               "timed at the BF16 rate, with a note).",
               "No NVLink.")),
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
        field_sources=(("bf16_dense_flop_per_s", derived("half of 242 sparse", _L4_DS)),
                       ("fp16_dense_flop_per_s", derived("half of 242 sparse", _L4_DS)),
                       ("fp8_dense_flop_per_s", derived("half of 485 sparse", _L4_DS)),
                       ("launch_date", _AIWIKI)),
        notes=("No NVLink.",)),
    GPU(id="l40", name="NVIDIA L40", vendor="NVIDIA", architecture="Ada Lovelace (AD102)",
        segment="datacenter", memory_bytes=48 * GIB, memory_type="GDDR6",
        memory_bandwidth_bytes_per_s=864e9, bf16_dense_flop_per_s=181.05e12,
        fp16_dense_flop_per_s=181.05e12, fp8_dense_flop_per_s=362e12, fp32_flop_per_s=90.5e12,
        sparse_figures_note="datasheet BF16 362.1 and FP8 724 TFLOPS are with sparsity",
        pcie_generation=4, pcie_lanes=16, tdp_watts=300, ecc=True, source=_L40_DS,
        notes=("The datasheet prints the dense figure next to the sparse one.",
               "Half the L40S's dense BF16 and FP8 rates on the same AD102 chip, as the two datasheets print them.",
               "No NVLink.")),
    GPU(id="l40s", name="NVIDIA L40S", vendor="NVIDIA", architecture="Ada Lovelace (AD102)",
        segment="datacenter", memory_bytes=48 * GIB, memory_type="GDDR6",
        memory_bandwidth_bytes_per_s=864e9, bf16_dense_flop_per_s=362.05e12,
        fp16_dense_flop_per_s=362.05e12, fp8_dense_flop_per_s=733e12, fp32_flop_per_s=91.6e12,
        sparse_figures_note="datasheet BF16 733 and FP8 1,466 TFLOPS are with sparsity",
        pcie_generation=4, pcie_lanes=16, tdp_watts=350, ecc=True, source=_L40S_DS,
        notes=("The datasheet prints the dense figure next to the sparse one.", "No NVLink.")),
)
