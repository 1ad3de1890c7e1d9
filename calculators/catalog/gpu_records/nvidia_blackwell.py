"""NVIDIA data-centre Blackwell GPUs: the HGX B200 and one GPU of a GB200 NVL72 rack, with their sources.

NVIDIA prints the GB200's figures for the whole rack (72 GPUs) and for one superchip (2 GPUs); the
per-GPU figures are those divided (kind ``derived``), and the tensor headlines are with 2:4 sparsity,
so the dense rate is half. Assembled by :mod:`calculators.catalog.gpus`.
"""

from __future__ import annotations

from calculators.catalog.gpu_records.base import GPU, HBM_BINARY, READ, derived
from calculators.catalog.sources import Source
from calculators.units import GIB

_HGX_B200 = Source("NVIDIA HGX platform specifications (HGX B200, per-GPU column)",
                   "https://www.nvidia.com/en-us/data-center/hgx/", READ)
_GB200_NVL72 = Source("NVIDIA GB200 NVL72 specifications (rack of 72 Blackwell GPUs and 36 Grace CPUs: FP4 1,440 "
                      "PFLOPS, FP8/FP6 720, FP16/BF16 360, FP32 5,760 TFLOPS, up to 13.4 TB HBM3e at 576 TB/s, NVLink "
                      "130 TB/s; tensor figures with sparsity)", "https://www.nvidia.com/en-us/data-center/gb200-nvl72/",
                      READ)
_GB200_WIKI = Source("AI Wiki: NVIDIA GB200 NVL72 (1.4 exaFLOPS FP4 and 720 petaFLOPS FP8 per rack, about 13.4 TB of "
                     "GPU memory, 130 TB/s of NVLink, 1.8 TB/s per GPU; announced at GTC 2024 on March 18, 2024)",
                     "https://aiwiki.ai/wiki/nvidia_gb200_nvl72/raw", "2026-06-21")
_GB200_MLPERF = Source("MLCommons Inference v6.1, Crusoe system description GB200-NVL72: 'accelerator_memory_capacity': "
                       "'186 GB', HBM3e, '5th-gen NVLink and NVLink Switches'",
                       "https://raw.githubusercontent.com/mlcommons/inference_results_v6.1/main/closed/Crusoe/systems/"
                       "GB200-NVL72_GB200-186GB_aarch64x16_Dynamo.json", READ, kind="measured")

RECORDS: tuple[GPU, ...] = (
    GPU(id="b200", name="B200 (HGX B200) 180GB", vendor="NVIDIA", architecture="Blackwell",
        segment="datacenter", memory_bytes=180 * GIB, memory_type="HBM3e",
        memory_bandwidth_bytes_per_s=7.7e12, bf16_dense_flop_per_s=2.25e15,
        fp16_dense_flop_per_s=2.25e15, fp8_dense_flop_per_s=4.5e15, fp32_flop_per_s=75e12,
        sparse_figures_note="HGX table per-GPU BF16 4.5 PFLOPS and FP8 9 PFLOPS are with sparsity; dense is half",
        fp4_dense_flop_per_s=9e15,
        interconnect="NVLink 5, 18 links", nvlink_bandwidth_bytes_per_s=1.8e12, pcie_generation=5,
        pcie_lanes=16, tdp_watts=1000, ecc=True, source=_HGX_B200,
        field_sources=(("bf16_dense_flop_per_s", derived("half of 4.5 PFLOPS sparse", _HGX_B200)),
                       ("fp16_dense_flop_per_s", derived("half of 4.5 PFLOPS sparse", _HGX_B200)),
                       ("fp8_dense_flop_per_s", derived("half of 9 PFLOPS sparse", _HGX_B200)),
                       ("fp4_dense_flop_per_s", derived("half of 144 PFLOPS sparse for the 8 GPUs, per GPU",
                                                        _HGX_B200))),
        notes=("nvidia-smi reports 183359 MiB total (180 GiB = 184320 MiB); the package "
               "carries 192 GB of HBM3e of which 180 GB is enabled.",
               "Earlier DGX B200 material quotes 8 TB/s per GPU (64 TB/s for 8); the HGX table "
               "now prints 7.7 TB/s.",
               "TDP 'configurable up to 1,000 W'; GB200 parts run faster at higher power.",
               HBM_BINARY)),
    GPU(id="gb200", name="GB200 NVL72 Blackwell GPU 186GB", vendor="NVIDIA", architecture="Blackwell",
        segment="datacenter", memory_bytes=186 * GIB, memory_type="HBM3e",
        memory_bandwidth_bytes_per_s=8e12, bf16_dense_flop_per_s=2.5e15,
        fp16_dense_flop_per_s=2.5e15, fp8_dense_flop_per_s=5e15, fp32_flop_per_s=80e12,
        fp4_dense_flop_per_s=10e15,
        sparse_figures_note=("rack headlines 1,440 PFLOPS FP4, 720 FP8 and 360 FP16/BF16 are with sparsity: per GPU "
                             "20, 10 and 5 PFLOPS, dense is half"),
        interconnect="NVLink 5, 18 links, NVL72 domain", nvlink_bandwidth_bytes_per_s=1.8e12,
        nvlink_domain_gpus=72, ecc=True, launch_date="2024-03-18", source=_GB200_NVL72,
        field_sources=(("memory_bytes", _GB200_MLPERF),
                       ("memory_bandwidth_bytes_per_s", derived("576 TB/s over 72 GPUs", _GB200_NVL72)),
                       ("bf16_dense_flop_per_s", derived("360 PFLOPS sparse over 72 GPUs, halved", _GB200_NVL72)),
                       ("fp16_dense_flop_per_s", derived("360 PFLOPS sparse over 72 GPUs, halved", _GB200_NVL72)),
                       ("fp8_dense_flop_per_s", derived("720 PFLOPS sparse over 72 GPUs, halved", _GB200_NVL72)),
                       ("fp4_dense_flop_per_s", derived("1,440 PFLOPS sparse over 72 GPUs, halved", _GB200_NVL72)),
                       ("fp32_flop_per_s", derived("5,760 TFLOPS over 72 GPUs", _GB200_NVL72)),
                       ("nvlink_bandwidth_bytes_per_s", _GB200_WIKI), ("nvlink_domain_gpus", _GB200_WIKI),
                       ("launch_date", _GB200_WIKI)),
        notes=("One of the 72 Blackwell GPUs of a GB200 NVL72 rack: two per GB200 superchip with one Grace CPU; all "
               "72 share one NVLink domain through the NVLink Switch trays, so tensor parallelism can span the rack.",
               "The host link is NVLink-C2C to the Grace CPU, not PCIe: pcie_generation is empty.",
               "Runs at a higher power and clock than the HGX B200: the per-GPU rates exceed the B200's.",
               "NVIDIA prints no per-GPU power for this part: TDP unknown.", HBM_BINARY)),
)
