"""The dense rate a GPU runs a format's matrix multiplies at (FLOP/s).

The FLOP counts per token (matmul parameters, attention, a trained token) are in
:mod:`calculators.model_flops`, below the parallel layer, so every face counts one number.

>>> from calculators.catalog.gpus import get_gpu
>>> compute_rate_flop_per_s(get_gpu("h100-sxm"), DType.BF16) / 1e12
989.4
"""

from __future__ import annotations

from calculators.catalog.custom_gpu import CustomGPU
from calculators.catalog.gpus import GPU
from calculators.dtypes import DType


def compute_rate_flop_per_s(gpu: GPU, dtype: DType) -> float | None:
    """Dense tensor rate a GPU runs matrix multiplies at for a format, FLOP/s (``None`` = unknown).

    fp32 uses the non-tensor FP32 rate; fp8 the FP8 tensor rate where the GPU has one;
    every other format (bf16, fp16, and weight-only int8/int4/nf4, which are
    dequantised to 16 bits before the multiply) the BF16 rate, else the FP16 one.

    >>> from calculators.catalog.gpus import get_gpu
    >>> compute_rate_flop_per_s(get_gpu("h100-sxm"), DType.FP8) / 1e12
    1978.9
    >>> compute_rate_flop_per_s(get_gpu("t4"), DType.BF16) / 1e12  # no BF16: FP16 rate
    65.0
    """
    if dtype is DType.FP32:
        return gpu.fp32_flop_per_s
    if dtype is DType.FP8 and gpu.fp8_dense_flop_per_s:
        return gpu.fp8_dense_flop_per_s
    return gpu.bf16_dense_flop_per_s or gpu.fp16_dense_flop_per_s


def sustained_rate_flop_per_s(gpu: GPU, dtype: DType) -> float | None:
    """The rate inference matrix multiplies are timed at: the GPU's measured sustained rate where catalogued.

    A datasheet rate is the tensor cores' throughput at the boost clock. Under continuous dense matrix work
    the power manager holds a lower clock: AMD measures its MI300X at 708 TFLOPS BF16 (1,207 MHz) and
    1,273 FP8 where the datasheet says 1,307.4 and 2,614.9 at 2,100 MHz, and the 70 W T4 holds about 24 of
    its 65 TFLOPS FP16 (:mod:`calculators.catalog.gpu_records.matmul_rates`, each with its measurement, and
    why the other GPUs keep their datasheet rates). Where such a rate is catalogued it replaces the
    datasheet rate for 16-bit and weight-only (dequantised to 16 bits) and FP8 matrix multiplies, so the
    engine's compute efficiency is a share of what the GPU sustains, not of a clock it does not hold;
    elsewhere this is :func:`compute_rate_flop_per_s`. Training utilisation stays a share of the datasheet
    rate (model FLOPs utilisation, as training runs report it).

    >>> from calculators.catalog.gpus import get_gpu
    >>> sustained_rate_flop_per_s(get_gpu("mi300x"), DType.BF16) / 1e12, sustained_rate_flop_per_s(get_gpu("mi300x"), DType.FP8) / 1e12
    (708.0, 1273.0)
    >>> sustained_rate_flop_per_s(get_gpu("t4"), DType.BF16) / 1e12  # FP16: the T4 has no BF16
    24.0
    >>> sustained_rate_flop_per_s(get_gpu("h100-sxm"), DType.BF16) / 1e12  # no sustained rate catalogued
    989.4
    """
    peak = compute_rate_flop_per_s(gpu, dtype)
    if peak is None or dtype is DType.FP32:
        return peak
    fp8 = dtype is DType.FP8 and bool(gpu.fp8_dense_flop_per_s)
    sustained = gpu.sustained_fp8_flop_per_s if fp8 else gpu.sustained_bf16_flop_per_s
    return peak if sustained is None else min(peak, sustained)


def sustained_rate_notes(gpu: GPU, dtype: DType) -> tuple[str, ...]:
    """The note an inference answer carries when :func:`sustained_rate_flop_per_s` is below the datasheet rate.

    >>> from calculators.catalog.gpus import get_gpu
    >>> sustained_rate_notes(get_gpu("mi300x"), DType.FP8)[0][:72]
    'AMD Instinct MI300X: matrix multiplies are timed at 1,273 TFLOPS, its me'
    >>> sustained_rate_notes(get_gpu("h100-sxm"), DType.FP8)  # no sustained rate catalogued
    ()
    """
    peak, sustained = compute_rate_flop_per_s(gpu, dtype), sustained_rate_flop_per_s(gpu, dtype)
    if peak is None or sustained is None or not sustained < peak:
        return ()
    return (f"{gpu.name}: matrix multiplies are timed at {sustained / 1e12:,.0f} TFLOPS, its measured "
            f"sustained rate at the clock it holds under dense matrix work, not the datasheet's "
            f"{peak / 1e12:,.1f} at its boost clock",)


def rate_notes(gpu: GPU, dtype: DType) -> tuple[str, ...]:
    """Warnings for a rate :func:`compute_rate_flop_per_s` did not take as published for ``dtype``.

    An FP8 pass on a GPU with no published FP8 rate is timed at its 16-bit rate, a lower rate
    than its FP8 hardware may reach; a Mac described without its chip is timed at the lowest
    rate of any Mac (:func:`calculators.catalog.apple_chips.mac_rates`). Both make compute-bound
    times upper bounds, and the answer says so.

    >>> from calculators.catalog.gpus import get_gpu
    >>> rate_notes(get_gpu("rtx-pro-6000-server"), DType.FP8)[0][:60]
    'RTX PRO 6000 Blackwell Server Edition has no published dense'
    >>> rate_notes(get_gpu("h100-sxm"), DType.FP8)
    ()
    """
    notes: list[str] = []
    if isinstance(gpu, CustomGPU) and gpu.rate_warning:
        notes.append(gpu.rate_warning)
    sixteen = gpu.bf16_dense_flop_per_s or gpu.fp16_dense_flop_per_s
    if dtype is DType.FP8 and not gpu.fp8_dense_flop_per_s and sixteen:
        notes.append(f"{gpu.name} has no published dense FP8 rate: FP8 matrix multiplies are timed at its 16-bit rate "
                     f"({sixteen / 1e12:,.1f} TFLOPS), lower than its FP8 hardware may reach, so compute-bound times "
                     "are upper bounds")
    return tuple(notes)
