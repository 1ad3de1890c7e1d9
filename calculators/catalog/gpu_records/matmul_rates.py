"""Measured sustained matrix-multiply rates: where a GPU never runs its tensor cores at the datasheet's clock.

A datasheet tensor rate is the tensor cores' throughput at the boost clock. Under continuous dense matrix work the
power manager holds a lower clock. Two kinds of part are far enough below their datasheet rate that the catalog
times their inference matrix multiplies at a measured rate instead
(:func:`calculators.performance.flops.sustained_rate_flop_per_s`):

* AMD Instinct MI300X and MI325X: AMD measures 708 and 843 TFLOPS BF16 (0.54 and 0.64 of the datasheet's 1,307.4),
  the clock falling from 2,100 MHz to about 1,200-1,450 (:data:`AMD_MAF_BLOG`);
* the 70 W NVIDIA T4, powered from its slot: about 24 of its 65 TFLOPS FP16 (0.37) once a run of matrix multiplies
  lasts, which NVIDIA's forum answer puts down to the power cap (:data:`T4_FORUM`).

Other measured tables were read and tried, and are not used: Stas Bekman's maximum achievable matmul table (A100
SXM 271.2 TFLOPS BF16, H100 SXM 794.5 and 1,402.6 FP8, H200 1,453.4 FP8, B200 1,745.0 and 3,432.5, GB200 1,822.0,
MI355X 1,565.0; https://github.com/stas00/ml-engineering/blob/744d01e18b79512572f64a6bbd8b5f4a725203a7/compute/accelerator/README.md)
and the contributed square-matmul table of zzc0721/torch-performance-test-data (RTX A6000 123.3, L40S 269.2,
H100 PCIe 495.9, H20 141.9, RTX PRO 6000 409-418; database.md at 9d82827637262c4351e3f9483f96b8cff57a601f). Those
parts sustain 0.66-0.87 of their datasheet rates, a spread the engines' fitted efficiencies already absorb: timing
every such GPU at its measured rate (FP8 at the 16-bit share where FP8 was not measured) moved the held-out
llama.cpp prompt figures on A100 and H100 PCIe from +30..+69 % to +15..+42 %, but the cross-validated errors over
429 figures did not improve (leave one source out 8.0 / 25.3 % -> 8.1 / 25.4, one hardware generation out 8.8 /
26.4 -> 9.3 / 27.0) and leaving one engine out got worse (9.6 / 27.3 -> 10.9 / 31.9): every vLLM FP8 figure is on
an MI300X and every TensorRT-LLM one on NVIDIA, so on that basis the two engines' FP8 efficiencies (0.48 and 0.68
of the sustained rate) stand for the two vendors' software as much as for the engines. An L4 run of the same
script (zzc0721/torch-performance-test-data issue #120) gives 54-71 TFLOPS BF16 by matrix size, and does not say
which the 72 W card holds under continuous work: its datasheet rate stays.

>>> RATES["t4"].bf16_flop_per_s / 1e12, RATES["t4"].source.kind
(24.0, 'measured')
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.catalog.sources import Source

#: AMD's measured max-achievable dense GEMM rates (hipBLASLt-bench, M=4096, N=4864 or 3648, K=32896), each with the
#: median engine clock it held: the power manager lowers the clock under dense matrix work from the 2,100 MHz boost
#: clock the datasheet rates assume (MI300X BF16: 708 TFLOPS at 1,207 MHz, 94 % of 751 TFLOPS at that clock).
AMD_MAF_BLOG = Source("AMD ROCm blogs, 'Measuring Max-Achievable FLOPs - Part 2', Table 1 'Max Achievable FLOPs (MAF) "
                      "for AMD Instinct GPUs' (AMD Performance Labs, 2025-02-25): MI300X FP16 654 TFLOPs (1115 MHz), "
                      "BF16 708 (1207 MHz), FP8 1273 (1230 MHz); MI325X FP16 794 (1354 MHz), BF16 843 (1447 MHz), FP8 "
                      "1519 (1464 MHz); the footnotes give 1223.6 TFLOPs FP8 for the MI300X and 777.8 / 840.8 / 1527.7 "
                      "for the MI325X: the table's figures are used",
                      "https://github.com/ROCm/rocm-blogs/blob/8e011952aebcdc6ad86b42f5ee236136aa8765dd/blogs/"
                      "software-tools-optimization/measuring-max-achievable-flops-part2/README.md", "2026-11-29",
                      kind="measured")
#: A user's cuBLAS FP16 4096 x 4096 x 4096 benchmark on a T4, 100 iterations: about 24 TFLOPS; NVIDIA's moderator
#: answers that this is the power cap (about 70 W) lowering the clock, 'expected behavior for approximately continuous
#: matrix multiply operations on a T4', and that the 65 TFLOPS peak is not reachable. (Short runs of one script on
#: Colab and Kaggle T4s reach 42 TFLOPS at their best size, before the cap lowers the clock: zzc0721/torch-performance-
#: test-data database.md.)
T4_FORUM = Source("NVIDIA Developer Forums, 'About GPU peak performance' (T4: cuBLAS FP16 4096^3 about 24 TFLOPS; "
                  "moderator: power capping at about 70 W)",
                  "https://forums.developer.nvidia.com/t/about-gpu-peak-performance/264462", "2026-11-30",
                  kind="measured")


@dataclass(frozen=True)
class MeasuredRate:
    """One GPU's measured sustained dense matrix-multiply rates and where they were read.

    Attributes:
        bf16_flop_per_s: 16-bit rate (BF16, or FP16 where the GPU has no BF16), FLOP/s.
        fp8_flop_per_s: FP8 rate, FLOP/s; ``None`` where the GPU has no FP8 or none was measured.
        source: the measurement.
    """

    bf16_flop_per_s: float
    fp8_flop_per_s: float | None
    source: Source


#: GPU id -> its measured sustained rates (:mod:`calculators.catalog.gpus` copies them onto the GPU records).
RATES: dict[str, MeasuredRate] = {
    "mi300x": MeasuredRate(708e12, 1273e12, AMD_MAF_BLOG),
    "mi325x": MeasuredRate(843e12, 1519e12, AMD_MAF_BLOG),
    "t4": MeasuredRate(24e12, None, T4_FORUM),
}
