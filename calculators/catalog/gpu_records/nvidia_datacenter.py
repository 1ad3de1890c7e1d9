"""NVIDIA data-centre GPUs of the Volta, Ampere and Hopper generations (V100, A100, H100, H200, H20), with
their sources. Datasheet tensor rates with a 2:4-sparsity headline are halved (kind ``derived``).
Assembled by :mod:`calculators.catalog.gpus`.
"""

from __future__ import annotations

from calculators.catalog.gpu_records.base import GPU, HBM_BINARY, READ, derived
from calculators.catalog.sources import Source
from calculators.units import GIB

_HOPPER_WP = Source(
    "NVIDIA H100 Tensor Core GPU Architecture whitepaper (Hopper), Table 3",
    "https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper", "2022-03-22")
_H100_DS = Source("NVIDIA H100 Tensor Core GPU product specifications",
                  "https://www.nvidia.com/en-us/data-center/h100/", READ)
_H100_PCIE_PB = Source("NVIDIA H100 PCIe GPU product brief PB-11133-001_v02",
                       "https://www.nvidia.com/en-us/data-center/h100/", "2022-11-30")
_H200_DS = Source("NVIDIA H200 Tensor Core GPU product specifications",
                  "https://www.nvidia.com/en-us/data-center/h200/", READ)
_A100_DS = Source(
    "NVIDIA A100 Tensor Core GPU datasheet",
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
    "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf", READ)
_A100_WP = Source(
    "NVIDIA A100 Tensor Core GPU Architecture whitepaper, Table 1 (V100 column)",
    "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf",
    "2020-05-14")
_V100_DS = Source("NVIDIA V100 Tensor Core GPU datasheet",
                  "https://www.nvidia.com/en-us/data-center/v100/", READ)
_DATES_TPU = Source("Lambda LLM calculator gpu_specs.csv (TechPowerUp-style release dates)",
                    "https://huggingface.co/spaces/lambdabrendan/Lambda-LLM-Calculator/blob/main/data/gpu_specs.csv",
                    READ)
_DATES_SYSRQ = Source("sysrqmts GPU pages (release dates)", "https://sysrqmts.com/en/gpus/nvidia/tesla/t4", READ)
_DATE_H100 = Source("Grokipedia: Nvidia H100 (announced March 22, 2022 at GTC 2022)",
                    "https://grokipedia.com/page/Nvidia_H100", READ)
_AIWIKI = Source("AI Wiki hardware pages (announcement/release dates)", "https://aiwiki.ai/wiki/nvidia_h200", READ)
_H100_BRIDGE = Source("NVIDIA H100 product page text, as quoted on a copy: 'This allows two NVIDIA H100 PCIe cards to "
                      "be connected to deliver 600 GB/s bidirectional bandwidth'",
                      "https://themop.ru/fsepy3/nvidia-h100-nvlink.html", READ)
_NVL_LINKS = Source("Azure/azurehpc-health-checks issue #162: on NCv5 (H100 NVL) 'the H100 PCIE cards only support 12 out "
                    "of the 18 available links'; P2P copy GPU 1 to GPU 0 measured 256.63 GB/s",
                    "https://github.com/Azure/azurehpc-health-checks/issues/162", "2026-06-10", kind="measured")
_H20_SPECS = Source("willitrunai: NVIDIA H20 96GB (96 GB HBM3, 4,000 GB/s, 148 TFLOPS FP16, 296 INT8 TOPS, NVLink 4.0 "
                    "900 GB/s, 400 W); NVIDIA published no public H20 datasheet", "https://willitrunai.com/es/gpus/h20-96gb",
                    READ)
_H20_DENSE = Source("zangshuxian: H20 'FP16 dense 148 TFLOPS, INT8 296, TF32 74, FP32 44, FP64 1' (Chinese, figures "
                    "of NVIDIA's partner spec sheet)", "https://zangshuxian.com/new/674733024499207168", READ)
_H20_NVLINK = Source("deepseek-ai/DeepEP issue #16: 'The H20 NVLink's bi-directional bandwidth is 900 GB/s'",
                     "https://github.com/deepseek-ai/DeepEP/issues/16", "2025-02-25")

RECORDS: tuple[GPU, ...] = (
    GPU(id="v100-sxm2-32gb", name="Tesla V100 SXM2 32GB", vendor="NVIDIA",
        architecture="Volta (GV100)", segment="datacenter", memory_bytes=32 * GIB,
        memory_type="HBM2", memory_bandwidth_bytes_per_s=900e9, bf16_dense_flop_per_s=None,
        fp16_dense_flop_per_s=125e12, fp8_dense_flop_per_s=None, fp32_flop_per_s=15.7e12,
        interconnect="NVLink 2", nvlink_bandwidth_bytes_per_s=300e9, pcie_generation=3,
        pcie_lanes=16, tdp_watts=300, ecc=True, source=_V100_DS,
        field_sources=(("fp16_dense_flop_per_s", _A100_WP), ("fp32_flop_per_s", _A100_WP)),
        notes=("Volta has no BF16, no FP8 and no sparsity: 125 TFLOPS is dense FP16 "
               "with FP32 accumulate.", HBM_BINARY)),
    GPU(id="a100-40gb-sxm", name="A100 SXM 40GB", vendor="NVIDIA", architecture="Ampere (GA100)",
        segment="datacenter", memory_bytes=40 * GIB, memory_type="HBM2",
        memory_bandwidth_bytes_per_s=1555e9, bf16_dense_flop_per_s=312e12,
        fp16_dense_flop_per_s=312e12, fp8_dense_flop_per_s=None, fp32_flop_per_s=19.5e12,
        sparse_figures_note="datasheet prints 312 dense and 624 with sparsity for BF16/FP16",
        interconnect="NVLink 3, 12 links", nvlink_bandwidth_bytes_per_s=600e9,
        pcie_generation=4, pcie_lanes=16, tdp_watts=400, ecc=True, launch_date="2020-05-14",
        source=_A100_DS, field_sources=(("launch_date", _DATES_TPU),), notes=("No FP8 on Ampere.", HBM_BINARY)),
    GPU(id="a100-80gb-sxm", name="A100 SXM 80GB", vendor="NVIDIA", architecture="Ampere (GA100)",
        segment="datacenter", memory_bytes=80 * GIB, memory_type="HBM2e",
        memory_bandwidth_bytes_per_s=2039e9, bf16_dense_flop_per_s=312e12,
        fp16_dense_flop_per_s=312e12, fp8_dense_flop_per_s=None, fp32_flop_per_s=19.5e12,
        sparse_figures_note="datasheet prints 312 dense and 624 with sparsity for BF16/FP16",
        interconnect="NVLink 3, 12 links", nvlink_bandwidth_bytes_per_s=600e9,
        pcie_generation=4, pcie_lanes=16, tdp_watts=400, ecc=True, launch_date="2020-11-16",
        source=_A100_DS, field_sources=(("launch_date", _DATES_TPU),), notes=("No FP8 on Ampere.", HBM_BINARY)),
    GPU(id="a100-80gb-pcie", name="A100 PCIe 80GB", vendor="NVIDIA", architecture="Ampere (GA100)",
        segment="datacenter", memory_bytes=80 * GIB, memory_type="HBM2e",
        memory_bandwidth_bytes_per_s=1935e9, bf16_dense_flop_per_s=312e12,
        fp16_dense_flop_per_s=312e12, fp8_dense_flop_per_s=None, fp32_flop_per_s=19.5e12,
        sparse_figures_note="datasheet prints 312 dense and 624 with sparsity for BF16/FP16",
        interconnect="NVLink bridge, 2-way", nvlink_bandwidth_bytes_per_s=600e9,
        pcie_generation=4, pcie_lanes=16, tdp_watts=300, ecc=True, source=_A100_DS,
        notes=("NVLink bridge joins two cards only (datasheet: 'NVIDIA NVLink Bridge for 2 GPUs: 600 GB/s').",
               "No FP8 on Ampere.", HBM_BINARY)),
    GPU(id="h100-pcie", name="H100 PCIe 80GB", vendor="NVIDIA", architecture="Hopper (GH100)",
        segment="datacenter", memory_bytes=80 * GIB, memory_type="HBM2e",
        memory_bandwidth_bytes_per_s=2.0e12, bf16_dense_flop_per_s=756.5e12,
        fp16_dense_flop_per_s=756.5e12, fp8_dense_flop_per_s=1513e12, fp32_flop_per_s=51e12,
        sparse_figures_note="datasheet headline 1,513 TFLOPS BF16 and 3,026 FP8 are with sparsity; dense is half",
        interconnect="NVLink bridge, 2-way (3 bridges, 12 NVLink 4 links)",
        nvlink_bandwidth_bytes_per_s=600e9, pcie_generation=5,
        pcie_lanes=16, tdp_watts=350, ecc=True, launch_date="2022-03-22", source=_H100_DS,
        field_sources=(("bf16_dense_flop_per_s", derived("half of 1,513 sparse", _H100_DS)),
                       ("fp16_dense_flop_per_s", derived("half of 1,513 sparse", _H100_DS)),
                       ("fp8_dense_flop_per_s", derived("half of 3,026 sparse", _H100_DS)),
                       ("tdp_watts", _H100_PCIE_PB), ("launch_date", _DATE_H100),
                       ("nvlink_bandwidth_bytes_per_s", _H100_BRIDGE)),
        notes=("Product brief: bandwidth 'greater than 2,000 GB/s', TDP 350 W.",
               "600 GB/s is the 2-way bridge with all three NVLink bridges fitted: 12 NVLink 4 links at 25 GB/s each "
               "way, 300 GB/s per direction; a 12-link H100 pair copies 257 GB/s one way (Azure health-check issue "
               "#162). One or two bridges give a third or two thirds of it.", HBM_BINARY)),
    GPU(id="h100-nvl", name="H100 NVL 94GB", vendor="NVIDIA", architecture="Hopper (GH100)",
        segment="datacenter", memory_bytes=94 * GIB, memory_type="HBM3",
        memory_bandwidth_bytes_per_s=3.9e12, bf16_dense_flop_per_s=835.5e12,
        fp16_dense_flop_per_s=835.5e12, fp8_dense_flop_per_s=1670.5e12, fp32_flop_per_s=60e12,
        sparse_figures_note="datasheet headline 1,671 TFLOPS BF16 and 3,341 FP8 are with sparsity; dense is half",
        interconnect="NVLink bridge, 2-way (12 NVLink 4 links)", nvlink_bandwidth_bytes_per_s=600e9,
        pcie_generation=5, pcie_lanes=16, tdp_watts=400, ecc=True, source=_H100_DS,
        field_sources=(("bf16_dense_flop_per_s", derived("half of 1,671 sparse", _H100_DS)),
                       ("fp16_dense_flop_per_s", derived("half of 1,671 sparse", _H100_DS)),
                       ("fp8_dense_flop_per_s", derived("half of 3,341 sparse", _H100_DS))),
        notes=("PCIe card for pairs: the NVLink bridge joins two cards (12 of the chip's 18 links are active, "
               "Azure health-check issue #162).", "TDP 350-400 W (configurable).", HBM_BINARY)),
    GPU(id="h100-sxm", name="H100 SXM 80GB", vendor="NVIDIA", architecture="Hopper (GH100)",
        segment="datacenter", memory_bytes=80 * GIB, memory_type="HBM3",
        memory_bandwidth_bytes_per_s=3.35e12, bf16_dense_flop_per_s=989.4e12,
        fp16_dense_flop_per_s=989.4e12, fp8_dense_flop_per_s=1978.9e12, fp32_flop_per_s=67e12,
        sparse_figures_note="datasheet headline 1,979 TFLOPS BF16 and 3,958 FP8 are with 2:4 sparsity; dense is half",
        interconnect="NVLink 4, 18 links", nvlink_bandwidth_bytes_per_s=900e9, pcie_generation=5,
        pcie_lanes=16, tdp_watts=700, ecc=True, launch_date="2022-03-22", source=_H100_DS,
        field_sources=(("bf16_dense_flop_per_s", _HOPPER_WP), ("fp16_dense_flop_per_s", _HOPPER_WP),
                       ("fp8_dense_flop_per_s", _HOPPER_WP), ("launch_date", _DATE_H100)),
        notes=("nvidia-smi reports 81559 MiB total (80 GiB = 81920 MiB).", HBM_BINARY)),
    GPU(id="h200", name="H200 SXM 141GB", vendor="NVIDIA", architecture="Hopper (GH100)",
        segment="datacenter", memory_bytes=141 * GIB, memory_type="HBM3e",
        memory_bandwidth_bytes_per_s=4.8e12, bf16_dense_flop_per_s=989.4e12,
        fp16_dense_flop_per_s=989.4e12, fp8_dense_flop_per_s=1978.9e12, fp32_flop_per_s=67e12,
        sparse_figures_note="datasheet headline 1,979 TFLOPS BF16 and 3,958 FP8 are with sparsity; dense is half",
        interconnect="NVLink 4, 18 links", nvlink_bandwidth_bytes_per_s=900e9, pcie_generation=5,
        pcie_lanes=16, tdp_watts=700, ecc=True, launch_date="2023-11-13", source=_H200_DS,
        field_sources=(("bf16_dense_flop_per_s", derived("same headline as H100 SXM; dense per",
                                                            _HOPPER_WP)),
                       ("fp16_dense_flop_per_s", derived("same headline as H100 SXM; dense per",
                                                            _HOPPER_WP)),
                       ("fp8_dense_flop_per_s", derived("same headline as H100 SXM; dense per",
                                                           _HOPPER_WP)),
                       ("launch_date", _AIWIKI)),
        notes=("nvidia-smi reports 143771 MiB total (141 GiB = 144384 MiB).",
               "TDP is 'up to 700 W' (configurable).", HBM_BINARY)),
    GPU(id="h20", name="NVIDIA H20 96GB", vendor="NVIDIA", architecture="Hopper (GH100)",
        segment="datacenter", memory_bytes=96 * GIB, memory_type="HBM3",
        memory_bandwidth_bytes_per_s=4.0e12, bf16_dense_flop_per_s=148e12,
        fp16_dense_flop_per_s=148e12, fp8_dense_flop_per_s=296e12, fp32_flop_per_s=44e12,
        sparse_figures_note="the spec sheet's 148 TFLOPS FP16 is the dense figure",
        interconnect="NVLink 4, 18 links", nvlink_bandwidth_bytes_per_s=900e9, pcie_generation=5,
        pcie_lanes=16, tdp_watts=400, ecc=True, source=_H20_SPECS,
        field_sources=(("bf16_dense_flop_per_s", _H20_DENSE), ("fp16_dense_flop_per_s", _H20_DENSE),
                       ("fp8_dense_flop_per_s", derived(
                           "the INT8 rate, 296 TOPS: Hopper runs FP8 and INT8 at the same rate (Table 3, "
                           "3,958 each on H100 SXM)", _HOPPER_WP)),
                       ("fp32_flop_per_s", _H20_DENSE), ("nvlink_bandwidth_bytes_per_s", _H20_NVLINK)),
        notes=("Export-compliant Hopper for the Chinese market: the H100's memory system with about 15 % of its "
               "tensor rate.", "NVIDIA published no public datasheet; the figures are the partner spec sheet's, "
               "as copied by the cited pages.", HBM_BINARY)),
)
