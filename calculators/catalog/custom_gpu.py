"""Your own hardware: a GPU described by its numbers, or a Mac by its unified memory, wherever a GPU id goes.

The records here are built from a user's figures, each checked and named on its own:

* :func:`custom_gpu`: memory (GiB), bandwidth (GB/s) and any of the dense rates ``bf16_tflops``,
  ``fp16_tflops``, ``fp8_tflops``, ``fp32_tflops`` (dense, never the sparse headline), ``usable_gb`` (what
  ``torch.cuda.mem_get_info()`` reports; default: the H100's measured share of its
  capacity), ``compute_capability`` (e.g. ``8.9``: decides bf16/fp8/fp4 support, else a
  format runs when its rate is given), ``pcie_gen`` (the link between cards in multi-GPU
  answers; assumed 4 when not given, stated in the record's notes) and ``name``;
* ``mac:64`` or ``mac:memory_gb=64,chip=m4-max``: Apple silicon with that much
  unified memory; the GPU may use macOS's default working set of it (2/3 up to 36 GB, 3/4
  above: :func:`~calculators.catalog.apple_memory.apple_working_set_bytes`), with no CUDA
  context or workspaces. ``chip`` (an id of :mod:`calculators.catalog.apple_chips`) gives the
  GPU's rate (cores x 256 FLOP x clock) and bandwidth, ``gpu_cores`` a smaller configuration
  of it, ``fp32_tflops`` a rate of your own, ``bandwidth_gbps`` the bandwidth. Without a chip
  or rate the GPU is timed at the lowest rate of any Mac, with a warning; without a bandwidth
  memory answers work and speed answers are refused, naming the missing number.

A user writes them as ``custom:memory_gb=64,bandwidth_gbps=400,...`` or ``mac:64`` wherever a GPU
id goes; :func:`calculators.inputs.gpu.resolve_gpu` reads that text.

Memory sizes are GiB, as the catalog counts a vendor's "GB" (module
:mod:`calculators.catalog.gpus`); bandwidth is decimal GB/s; rates are dense TFLOPS.

>>> gpu = custom_gpu(memory_gb=48, bandwidth_gbps=864, bf16_tflops=362.05, compute_capability="8.9")
>>> gpu.name, gpu.memory_gib, gpu.memory_bandwidth_bytes_per_s
('Custom GPU (48 GiB)', 48.0, 864000000000.0)
>>> mac_gpu(memory_gb=64).vendor, round(mac_gpu(memory_gb=64).usable_bytes / 2**30)
('Apple', 48)
>>> custom_gpu(memory_gb=0, bandwidth_gbps=1)
Traceback (most recent call last):
...
calculators.errors.InputError: memory_gb: got 0.0; expected a number from 0.001 to 65536 (GiB)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, TypedDict, Unpack

from calculators.catalog.apple_chips import mac_rates
from calculators.catalog.apple_memory import apple_working_set_bytes
from calculators.catalog.gpus import GPU
from calculators.catalog.sources import Source
from calculators.errors import InputError
from calculators.units import GIB

MAX_MEMORY_GB = 65536.0
MAX_BANDWIDTH_GBPS = 1e6
MAX_TFLOPS = 1e6
#: Host link of a custom GPU when ``pcie_gen`` is not given (assumed; only multi-GPU answers use it).
DEFAULT_PCIE_GEN = 4
_YOURS = Source("your own figures (custom GPU)", "user input", "2026-11-25", kind="assumed")


@dataclass(frozen=True, kw_only=True)
class CustomGPU(GPU):
    """A GPU record built from the user's numbers.

    Attributes:
        usable_bytes: what one process can allocate; ``None`` = derived from ``memory_bytes``
            (:func:`~calculators.catalog.usable_memory.usable_memory_bytes`).
        bandwidth_known: False for a Mac given by memory only (``memory_bandwidth_bytes_per_s``
            is then 0 and speed answers are refused).
        rate_warning: a sentence speed answers show when the rates are an assumed floor (a Mac without its chip).
    """

    usable_bytes: int | None = None
    bandwidth_known: bool = True
    rate_warning: str | None = None


#: Smallest figure accepted for any number of a custom GPU (a MiB of memory, a MB/s, a GFLOP/s).
MIN_FIGURE = 0.001


def figure(field: str, text: str, *, maximum: float, unit: str) -> float:
    """``text`` as a number from :data:`MIN_FIGURE` to ``maximum``, else :class:`InputError` naming ``field``.

    >>> figure("memory_gb", "64", maximum=MAX_MEMORY_GB, unit="GiB")
    64.0
    """
    accepted = f"a number from {MIN_FIGURE:g} to {maximum:g} ({unit})"
    try:
        value = float(text)
    except ValueError:
        raise InputError(field, text, accepted) from None
    if not math.isfinite(value) or value < MIN_FIGURE or value > maximum:
        raise InputError(field, value, accepted)
    return value


class DenseRates(TypedDict, total=False):
    """A custom GPU's dense rates in TFLOPS, each optional (unknown: ``None``, as a catalog record's)."""

    bf16_tflops: float | None
    fp16_tflops: float | None
    fp8_tflops: float | None
    fp32_tflops: float | None


def custom_gpu(*, memory_gb: float, bandwidth_gbps: float, usable_gb: float | None = None,
               compute_capability: str | None = None, pcie_gen: float | None = None, name: str | None = None,
               **rates: Unpack[DenseRates]) -> CustomGPU:
    """A GPU from its memory (GiB), bandwidth (GB/s) and dense rates (TFLOPS, :class:`DenseRates`); errors name
    the argument.

    >>> custom_gpu(memory_gb=24, bandwidth_gbps=1008, bf16_tflops=165.2).bf16_dense_flop_per_s
    165200000000000.0
    """
    unknown = sorted(set(rates) - set(DenseRates.__annotations__))
    if unknown:  # what a keyword-only signature would refuse
        raise TypeError(f"custom_gpu() got an unexpected keyword argument {unknown[0]!r}")
    memory = figure("memory_gb", str(memory_gb), maximum=MAX_MEMORY_GB, unit="GiB")
    bandwidth = figure("bandwidth_gbps", str(bandwidth_gbps), maximum=MAX_BANDWIDTH_GBPS, unit="GB/s")

    def rate(field: Literal["bf16_tflops", "fp16_tflops", "fp8_tflops", "fp32_tflops"]) -> float | None:
        value = rates.get(field)
        return None if value is None else figure(field, str(value), maximum=MAX_TFLOPS, unit="dense TFLOPS") * 1e12

    usable = None
    if usable_gb is not None:
        usable_value = figure("usable_gb", str(usable_gb), maximum=memory, unit="GiB, at most memory_gb")
        usable = int(usable_value * GIB)
    capability = None
    if compute_capability is not None:
        capability = str(compute_capability).strip()
        major, dot, minor = capability.partition(".")
        if not (major.isdigit() and (not dot or minor.isdigit()) and 1 <= int(major) <= 99):
            raise InputError("compute_capability", compute_capability, "a CUDA compute capability such as 8.9")
        capability = f"{int(major)}.{int(minor or 0)}"
    generation = DEFAULT_PCIE_GEN
    if pcie_gen is not None:
        if pcie_gen not in (3, 4, 5, 6):
            raise InputError("pcie_gen", pcie_gen, "a PCIe generation: 3, 4, 5 or 6")
        generation = int(pcie_gen)
    link_note = (f"Host link PCIe {generation}.0 x16" + ("" if pcie_gen is not None else
                 " (assumed: pcie_gen not given; used only by multi-GPU answers)") + ".")
    label = (name or "").strip()[:60] or f"Custom GPU ({memory:g} GiB)"
    return CustomGPU(id="custom", name=label, vendor="custom", architecture="custom", segment="custom",
                     memory_bytes=int(memory * GIB), memory_type=None, memory_bandwidth_bytes_per_s=bandwidth * 1e9,
                     bf16_dense_flop_per_s=rate("bf16_tflops"),
                     fp16_dense_flop_per_s=rate("fp16_tflops"),
                     fp8_dense_flop_per_s=rate("fp8_tflops"),
                     fp32_flop_per_s=rate("fp32_tflops"), source=_YOURS, usable_bytes=usable,
                     compute_capability=capability, pcie_generation=generation, pcie_lanes=16,
                     notes=("Figures given by the user, not a catalog record.", link_note))


def mac_gpu(*, memory_gb: float, bandwidth_gbps: float | None = None, name: str | None = None,
            chip: str | None = None, gpu_cores: int | None = None, fp32_tflops: float | None = None) -> CustomGPU:
    """Apple silicon with ``memory_gb`` GiB of unified memory, its chip (rate and bandwidth) and bandwidth in GB/s.

    The rate comes from :func:`~calculators.catalog.apple_chips.mac_rates`: the chip's (``gpu_cores`` of it),
    ``fp32_tflops``, or without either the lowest of any Mac, with a warning.

    >>> mac_gpu(memory_gb=64, bandwidth_gbps=546).name
    'Mac with 64 GB unified memory'
    >>> mac = mac_gpu(memory_gb=64, chip="m4-max")
    >>> mac.name, mac.memory_bandwidth_bytes_per_s / 1e9, round(mac.fp32_flop_per_s / 1e12, 2)
    ('Mac with 64 GB unified memory (M4 Max, 40-core GPU)', 546.0, 17.18)
    """
    memory = figure("memory_gb", str(memory_gb), maximum=MAX_MEMORY_GB, unit="GiB")
    bandwidth = None if bandwidth_gbps is None else figure("bandwidth_gbps", str(bandwidth_gbps),
                                                            maximum=MAX_BANDWIDTH_GBPS, unit="GB/s") * 1e9
    tflops = None if fp32_tflops is None else figure("fp32_tflops", str(fp32_tflops), maximum=MAX_TFLOPS,
                                                      unit="dense TFLOPS")
    rates = mac_rates(chip=chip, gpu_cores=gpu_cores, fp32_tflops=tflops)
    bandwidth = rates.bandwidth_bytes_per_s if bandwidth is None else bandwidth
    label = (name or "").strip()[:60] or (f"Mac with {memory:g} GB unified memory"
                                          + (f" ({rates.label})" if rates.label else ""))
    if rates.warning is not None:
        rate_note = rates.warning
    elif tflops is not None:
        rate_note = "GPU rate given by the user (fp32_tflops)."
    else:
        rate_note = "GPU rate derived from the chip: cores x 256 FLOP x clock (calculators.catalog.apple_chips)."
    return CustomGPU(id="mac", name=label, vendor="Apple", architecture="Apple silicon", segment="apple",
                     memory_bytes=int(memory * GIB), memory_type=None,
                     memory_bandwidth_bytes_per_s=0.0 if bandwidth is None else bandwidth,
                     bf16_dense_flop_per_s=rates.bf16_flop_per_s, fp16_dense_flop_per_s=rates.fp32_flop_per_s,
                     fp8_dense_flop_per_s=None, fp32_flop_per_s=rates.fp32_flop_per_s, source=_YOURS,
                     usable_bytes=apple_working_set_bytes(int(memory * GIB)), bandwidth_known=bandwidth is not None,
                     rate_warning=rates.warning,
                     notes=("Unified memory shared with the CPU; the GPU gets macOS's default working set.", rate_note))


def memory_bandwidth_bytes_per_s(gpu: GPU) -> float:
    """The GPU's peak memory bandwidth, bytes/s; refuses a Mac given without one.

    >>> memory_bandwidth_bytes_per_s(mac_gpu(memory_gb=32))
    Traceback (most recent call last):
    ...
    calculators.errors.InputError: gpu: got 'Mac with 32 GB unified memory'; expected a GPU with a known memory bandwidth for a speed answer: give the Mac's bandwidth_gbps in GB/s (Apple lists it per chip), e.g. mac:memory_gb=32,bandwidth_gbps=400
    """
    if isinstance(gpu, CustomGPU) and not gpu.bandwidth_known:
        raise InputError("gpu", gpu.name, "a GPU with a known memory bandwidth for a speed answer: give the Mac's "
                         f"bandwidth_gbps in GB/s (Apple lists it per chip), e.g. mac:memory_gb={gpu.memory_gib:g},"
                         "bandwidth_gbps=400")
    return gpu.memory_bandwidth_bytes_per_s
