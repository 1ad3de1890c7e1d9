"""Apple silicon in the catalog: each chip at its largest GPU and memory configuration.

Memory, cores and bandwidth are Apple's (:mod:`calculators.catalog.apple_chips`, one table for these
records and the ``mac:`` descriptions); the rates are derived there from the GPU core count and clock
(``cores x 256 FLOP x clock``), the same for FP32, FP16 and BF16: Apple GPUs have no separate matrix
units. No FP8 or FP4. Assembled by :mod:`calculators.catalog.gpus`.
"""

from __future__ import annotations

from calculators.catalog.apple_chips import M3_PR, M3_ULTRA_PR, M4_PR, apple_rate_flop_per_s, get_apple_chip, rate_source
from calculators.catalog.gpu_records.base import GPU
from calculators.catalog.sources import Source
from calculators.units import GIB

_WIRED = ("macOS caps how much memory the GPU may wire by default (sysctl iogpu.wired_limit_mb; 0 = default "
          "heuristic), so a model cannot use all of it.")
_RATES = ("Apple publishes no TFLOPS figure for this chip: the rates are derived from the GPU core count and clock, "
          "identical for FP32, FP16 and BF16 (no separate matrix units).")


def _apple(chip_id: str, *, name: str, memory_gib: int, source: Source, launch_date: str | None,
           notes: tuple[str, ...]) -> GPU:
    chip = get_apple_chip(chip_id)
    rate = apple_rate_flop_per_s(chip)
    derivation = rate_source(chip)
    assert chip.bandwidth_bytes_per_s is not None, chip.id  # every catalog chip has Apple's figure
    return GPU(id=chip.id, name=name, vendor="Apple", architecture=f"Apple {chip.name.split()[0]}", segment="apple",
               memory_bytes=memory_gib * GIB, memory_type=None, memory_bandwidth_bytes_per_s=chip.bandwidth_bytes_per_s,
               bf16_dense_flop_per_s=rate, fp16_dense_flop_per_s=rate, fp8_dense_flop_per_s=None, fp32_flop_per_s=rate,
               launch_date=launch_date, source=source,
               field_sources=tuple((name, derivation) for name in ("bf16_dense_flop_per_s", "fp16_dense_flop_per_s",
                                                                    "fp32_flop_per_s")),
               notes=(f"Memory is unified and shared with the CPU; {memory_gib} GB is the largest configuration.",
                      _WIRED, _RATES, *notes))


RECORDS: tuple[GPU, ...] = (
    _apple("m4-max", name="Apple M4 Max (16-core CPU, 40-core GPU)", memory_gib=128, source=M4_PR,
           launch_date="2024-10-30",
           notes=("546 GB/s is for the 40-core-GPU part; the 32-core part has less.",
                  "The clock is a GPU database's for the M4 Max (1,678 MHz; its 32-core entry, 13.74 TFLOPS); Apple "
                  "publishes none.")),
    _apple("m4-pro", name="Apple M4 Pro (14-core CPU, 20-core GPU)", memory_gib=64, source=M4_PR,
           launch_date="2024-10-30",
           notes=("273 GB/s; the 16-core-GPU part has the same bandwidth and fewer cores.",
                  "The clock is the lowest a GPU database lists for M4 parts (1,470 MHz), so the rate is a lower "
                  "bound on the peak.")),
    _apple("m3-max", name="Apple M3 Max (16-core CPU, 40-core GPU)", memory_gib=128, source=M3_PR,
           launch_date=None, notes=("400 GB/s is for the 40-core-GPU part; the 30-core part has less.",)),
    _apple("m3-ultra", name="Apple M3 Ultra (32-core CPU, 80-core GPU)", memory_gib=512, source=M3_ULTRA_PR,
           launch_date="2025-03-05",
           notes=("Two M3 Max dies joined by UltraFusion; the 60-core-GPU part has the same 819 GB/s.",)),
)
