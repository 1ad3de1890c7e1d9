"""AMD Instinct accelerators (CDNA 3 and CDNA 4), with their sources.

AMD prints dense and sparse figures side by side; the dense ones are stored. Assembled by
:mod:`calculators.catalog.gpus`.
"""

from __future__ import annotations

from calculators.catalog.gpu_records.base import GPU, HBM_BINARY, READ, derived
from calculators.catalog.sources import Source
from calculators.units import GIB

_MI300X_DS = Source(
    "AMD Instinct MI300X accelerator data sheet",
    "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/"
    "amd-instinct-mi300x-data-sheet.pdf", READ)
_AIWIKI = Source("AI Wiki hardware pages (announcement/release dates)", "https://aiwiki.ai/wiki/nvidia_h200", READ)
_MI325X_PAGE = Source("AMD Instinct MI325X accelerator product specifications (256 GB HBM3E, 6 TB/s, FP16/BF16 "
                      "1,307.4 TFLOPS, FP8 2,614.9 TFLOPS and 5,229.8 with sparsity, FP32 163.4 TFLOPS, 1,000 W)",
                      "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html", READ)
_MI325X_COPY = Source("awesomeagents: AMD Instinct MI325X key specifications (copy of AMD's figures: FP8 2,614.9 "
                      "TFLOPS, with sparsity 5,229.8, FP16/BF16 1,307.4, FP32 163.4)",
                      "https://awesomeagents.ai/hardware/amd-mi325x", READ)
_MI325X_LINKS = Source("wiaix: AMD Instinct MI325X accelerators ('Seven Infinity Fabric links ensuring full connectivity "
                       "between eight GPUs'; PCIe Gen 5 x16; 6 TB/s)", "https://wiaix.com/amd-instincttm-mi325x-accelerators",
                       READ)
_MI355X_PAGE = Source("AMD Instinct MI355X accelerator product specifications",
                      "https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html", READ)
_MI355X_ISSCC = Source("World Today News on AMD's ISSCC 2026 MI355X paper: 32 CUs per XCD, 'per-CU FP8 throughput "
                       "... 8,192 [FLOPS per clock]', FP8 'five petaflops'", "https://www.world-today-news.com/?p=7253162",
                       READ)
_ROCM_SPECS = Source("ROCm documentation, AMD GPU specifications (MI355X: 288 GiB VRAM, 256 CUs; MI325X: 256 GiB, "
                     "304 CUs)", "https://rocm.docs.amd.com/en/7.13.0-preview/reference/gpu-specs.html", READ)
_MI355X_TOMS = Source("Tom's Hardware: AMD's Instinct MI355X accelerator will consume 1,400 watts (288 GB HBM3E, 8 TB/s; "
                      "FP4/FP6 20.1 PFLOPS with sparsity)",
                      "https://www.tomshardware.com/pc-components/gpus/amds-instinct-mi355x-accelerator-will-consume-1-400-watts",
                      READ)
_MI355X_LINKS = Source("Hume Consulting, AMD MI355X: Infinity Fabric/XGMI 'about 153 GB/s' per link; 288 GB, 8 TB/s, 1.4 kW",
                       "https://humeconsulting.co/amd-mi355x-strong-node-level-inference-but-not-yet-rack-scale", READ)
_MI355X_WIKI = Source("AI Wiki: AMD Instinct MI355X (announced at AMD Advancing AI 2025 on June 12, 2025)",
                      "https://aiwiki.ai/wiki/amd_instinct_mi355x", READ)

RECORDS: tuple[GPU, ...] = (
    GPU(id="mi300x", name="AMD Instinct MI300X", vendor="AMD", architecture="CDNA 3",
        segment="datacenter", memory_bytes=192 * GIB, memory_type="HBM3",
        memory_bandwidth_bytes_per_s=5.3e12, bf16_dense_flop_per_s=1307.4e12,
        fp16_dense_flop_per_s=1307.4e12, fp8_dense_flop_per_s=2614.9e12, fp32_flop_per_s=163.4e12,
        sparse_figures_note="data sheet also prints sparsity figures: 2,614.9 BF16 and 5,229.8 FP8",
        interconnect="AMD Infinity Fabric, 7 links x 128 GB/s", nvlink_bandwidth_bytes_per_s=896e9,
        pcie_generation=5, pcie_lanes=16, tdp_watts=750, ecc=True, launch_date="2023-12-06",
        source=_MI300X_DS, field_sources=(("launch_date", _AIWIKI),),
        notes=("Some third-party pages list 2,615 TFLOPS as 'dense FP16'; that is the sparsity figure.",
               "Infinity Fabric figure is the aggregate of 7 links, bidirectional.", HBM_BINARY)),
    GPU(id="mi325x", name="AMD Instinct MI325X", vendor="AMD", architecture="CDNA 3",
        segment="datacenter", memory_bytes=256 * GIB, memory_type="HBM3E",
        memory_bandwidth_bytes_per_s=6e12, bf16_dense_flop_per_s=1307.4e12,
        fp16_dense_flop_per_s=1307.4e12, fp8_dense_flop_per_s=2614.9e12, fp32_flop_per_s=163.4e12,
        sparse_figures_note="AMD also prints sparsity figures: 2,614.9 BF16 and 5,229.8 FP8",
        interconnect="AMD Infinity Fabric, 7 links x 128 GB/s", nvlink_bandwidth_bytes_per_s=896e9,
        pcie_generation=5, pcie_lanes=16, tdp_watts=1000, ecc=True, launch_date="2024-10-10", source=_MI325X_PAGE,
        field_sources=(("memory_bytes", _ROCM_SPECS), ("bf16_dense_flop_per_s", _MI325X_COPY),
                       ("fp16_dense_flop_per_s", _MI325X_COPY), ("fp8_dense_flop_per_s", _MI325X_COPY),
                       ("fp32_flop_per_s", _MI325X_COPY),
                       ("nvlink_bandwidth_bytes_per_s", derived("the MI300X's 7 links x 128 GB/s: the same CDNA 3 "
                                                                "package and platform", _MI300X_DS)),
                       ("interconnect", _MI325X_LINKS), ("pcie_generation", _MI325X_LINKS),
                       ("launch_date", _MI325X_COPY)),
        notes=("The MI300X's compute (304 CUs) with 256 GB of HBM3E: every rate equals the MI300X's.",
               "Infinity Fabric figure is the aggregate of 7 links, bidirectional.", HBM_BINARY)),
    GPU(id="mi355x", name="AMD Instinct MI355X", vendor="AMD", architecture="CDNA 4",
        segment="datacenter", memory_bytes=288 * GIB, memory_type="HBM3E",
        memory_bandwidth_bytes_per_s=8e12, bf16_dense_flop_per_s=256 * 4096 * 2.4e9,
        fp16_dense_flop_per_s=256 * 4096 * 2.4e9, fp8_dense_flop_per_s=256 * 8192 * 2.4e9,
        fp32_flop_per_s=256 * 256 * 2.4e9, fp4_dense_flop_per_s=256 * 16384 * 2.4e9,
        sparse_figures_note="AMD's 20.1 PFLOPS FP4/FP6 headline is with sparsity; dense is half",
        interconnect="AMD Infinity Fabric, 7 links x 153.6 GB/s", nvlink_bandwidth_bytes_per_s=7 * 153.6e9,
        pcie_generation=5, pcie_lanes=16, tdp_watts=1400, ecc=True, launch_date="2025-06-12", source=_MI355X_PAGE,
        field_sources=(("memory_bytes", _ROCM_SPECS), ("memory_bandwidth_bytes_per_s", _MI355X_TOMS),
                       ("fp8_dense_flop_per_s", derived("256 CUs x 8,192 FP8 FLOP per CU per clock x the 2.4 GHz "
                                                        "peak engine clock of AMD's product page = 5.03 PFLOPS",
                                                        _MI355X_ISSCC)),
                       ("bf16_dense_flop_per_s", derived("half the FP8 rate (CDNA 4 matrix cores: 4,096 FP16/BF16 FLOP "
                                                         "per CU per clock)", _MI355X_ISSCC)),
                       ("fp16_dense_flop_per_s", derived("half the FP8 rate", _MI355X_ISSCC)),
                       ("fp4_dense_flop_per_s", derived("half of the 20.1 PFLOPS FP4 headline with sparsity = twice "
                                                        "the FP8 rate", _MI355X_TOMS)),
                       ("fp32_flop_per_s", derived("256 CUs x 128 FP32 lanes x 2 FLOP (fused multiply-add) x 2.4 "
                                                   "GHz", _ROCM_SPECS)),
                       ("nvlink_bandwidth_bytes_per_s", derived("7 links x 153.6 GB/s", _MI355X_LINKS)),
                       ("tdp_watts", _MI355X_TOMS), ("launch_date", _MI355X_WIKI)),
        notes=("CDNA 4 adds MXFP4 and MXFP6 matrix formats (fp4_dense_flop_per_s; FP6 runs at the FP4 rate).",
               "The 1,000 W MI350X is the same chip at lower clocks; not this record.",
               "Eight GPUs per platform, fully connected point to point by Infinity Fabric (no switch).", HBM_BINARY)),
)
