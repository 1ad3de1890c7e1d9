"""Apple silicon GPUs: cores, clock and memory bandwidth per chip, and the dense rate they give (FLOP/s).

Apple publishes a GPU core count and a memory bandwidth for every chip, and a TFLOPS figure only
for some (M1 and M2 families). An Apple GPU core has 128 FP32 ALUs, each a fused multiply-add per
clock, so 256 FLOP per core per clock; FP16 runs at the same rate on M1 and later, and there are
no separate matrix units: ``simdgroup_matrix`` runs on these pipelines (Philip Turner's
metal-benchmarks, :data:`TURNER`). Hence, for FP32, FP16 and (M3 and later) BF16 alike:

``rate = GPU cores x 256 FLOP x GPU clock`` (derived)

The clocks are Turner's measured ones for M1 and M2 (they reproduce Apple's own M1 and M2
TFLOPS figures), a GPU database's for M3 (1,398 MHz, every M3 part it lists), for the M4 Max
(1,678 MHz, the M4 Max's own entry: 32 cores, 13.74 TFLOPS) and for the M4 and M4 Pro (1,470 MHz,
their entries; it also lists 1,578 MHz for one M4 part, so those two rates are a lower bound on the peak). BF16 on M1 and M2 is emulated (PyTorch MPS), so those chips
carry no BF16 rate and a BF16 job is timed at the FP16 rate.

>>> chip = get_apple_chip("M4 Max")
>>> chip.gpu_cores, chip.bandwidth_bytes_per_s / 1e9
(40, 546.0)
>>> round(apple_rate_flop_per_s(get_apple_chip("m1")) / 1e9)  # Turner's table: M1, 2,617 GFLOPS
2617
>>> round(apple_rate_flop_per_s(chip, gpu_cores=32) / 1e12, 2)  # hmc-tech's 32-core M4 Max: 13.74 TFLOPS
13.75

References:
    Philip Turner, metal-benchmarks README (Apple GPU microarchitecture); Apple Newsroom
    announcements of each chip (cores and bandwidth).
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.catalog.sources import Source
from calculators.errors import InputError, UnknownNameError

_READ = "2026-11-21"

#: FP32 (and FP16) FLOP per Apple GPU core per clock: 128 ALUs x 2 (fused multiply-add).
FLOP_PER_CORE_PER_CLOCK = 256

TURNER = Source(
    "Philip Turner, metal-benchmarks README: 'F32 OPs/Clock 256' and 'F16 OPs/Clock 256' per core (M1, A15); "
    "clock and GFLOPS table (M1 1278 MHz 2617 GFLOPS; M1 Pro/Max/Ultra 1296 MHz; M2 1398 MHz; M2 Pro/Max/Ultra "
    ">= 1398 MHz); 'Apple's \"tensor core\" is the simdgroup_matrix instruction, which improves ALU utilization of "
    "existing FP32 pipelines'",
    "https://github.com/philipturner/metal-benchmarks/blob/936d911ef61c2e45c336ae94f1bedf9c26b58c9e/README.md", _READ)
_HMC_M3 = Source("hmc-tech GPU database: 40-Core M3 Max 1398 MHz (14.32 TFLOPS FP32 and FP16), 18-Core M3 Pro "
                 "1398 MHz; 32-Core M4 Max 1678 MHz",
                 "https://hmc-tech.com/gpu/apple-32-core-m4-max-vs-apple-18-core-m3-pro", _READ)
_HMC_M4_MAX = Source("hmc-tech GPU database: 32-Core M4 Max, 4096 shaders, 1678 MHz, 13.74 TFLOPS FP32 and FP16 "
                     "(the M4 Max's own entry; Apple publishes no GPU clock)",
                     "https://hmc-tech.com/gpu/apple-32-core-m4-max-vs-apple-40-core-m3-max", "2026-11-29")
_HMC_M4 = Source("hmc-tech GPU database: 8-Core M4 1470 MHz, 16-Core M4 Pro 1470 MHz (6.02 TFLOPS FP32 and FP16); "
                 "another M4 entry lists 1578 MHz",
                 "https://hmc-tech.com/gpu/apple-8-core-m4-fl-vs-apple-16-core-m4-pro", _READ)
_M1 = Source("Apple Newsroom: Apple unleashes M1 (8-core GPU, 2.6 teraflops)",
             "https://www.apple.com/newsroom/2020/11/apple-unleashes-m1/", "2020-11-10")
_M1_PRO_MAX = Source("Apple Newsroom: Introducing M1 Pro and M1 Max (up to 16-core GPU and 200GB/s; 32-core GPU and "
                     "400GB/s)", "https://www.apple.com/newsroom/2021/10/introducing-m1-pro-and-m1-max-the-most-"
                     "powerful-chips-apple-has-ever-built/", "2021-10-18")
_M1_ULTRA = Source("Apple Newsroom: Apple unveils M1 Ultra (64-core GPU, 800GB/s)",
                   "https://www.apple.com/newsroom/2022/03/apple-unveils-m1-ultra-the-worlds-most-powerful-chip-for-a-"
                   "personal-computer/", "2022-03-08")
_M2 = Source("Apple Newsroom: Apple unveils M2 (up to 10-core GPU, 100GB/s)",
             "https://www.apple.com/newsroom/2022/06/apple-unveils-m2-with-breakthrough-performance-and-capabilities/",
             "2022-06-06")
_M2_PRO_MAX = Source("Apple Newsroom: Apple unveils M2 Pro and M2 Max (up to 19-core GPU and 200GB/s; up to 38-core "
                     "GPU and 400GB/s)", "https://www.apple.com/newsroom/2023/01/apple-unveils-m2-pro-and-m2-max-next-"
                     "generation-chips-for-next-level-workflows/", "2023-01-17")
_M2_ULTRA = Source("Apple Newsroom: Apple introduces M2 Ultra (up to 76-core GPU, 800GB/s)",
                   "https://www.apple.com/newsroom/2023/06/apple-introduces-m2-ultra/", "2023-06-05")
M3_PR = Source(
    "Apple Newsroom: Apple unveils M3, M3 Pro, and M3 Max",
    "https://www.apple.com/newsroom/2023/10/apple-unveils-m3-m3-pro-and-m3-max-the-most-advanced-chips-for-a-personal-"
    "computer/", "2023-10-30")
M3_ULTRA_PR = Source("Apple Newsroom: Apple reveals M3 Ultra (up to 80-core GPU, over 800GB/s, up to 512GB unified "
                     "memory); Mac Studio tables list 819.2 GB/s", "https://www.apple.com/newsroom/2025/03/apple-reveals-"
                     "m3-ultra-taking-apple-silicon-to-a-new-extreme/", "2025-03-05")
M4_PR = Source("Apple Newsroom: Apple introduces M4 Pro and M4 Max (M4: 10-core GPU, 120GB/s; M4 Pro: up to 20-core GPU, "
               "273GB/s, up to 64GB; M4 Max: up to 40-core GPU, 546GB/s, up to 128GB)",
               "https://www.apple.com/newsroom/2024/10/apple-introduces-m4-pro-and-m4-max/", "2024-10-30")


@dataclass(frozen=True, kw_only=True)
class AppleChip:
    """One Apple silicon chip at its largest GPU configuration.

    Attributes:
        id: slug, e.g. ``"m4-max"``. name: Apple's name, e.g. ``"M4 Max"``.
        gpu_cores: GPU cores of the top configuration.
        bandwidth_bytes_per_s: unified-memory bandwidth of that configuration (decimal, as Apple
            quotes it); ``None`` where no read source gives it.
        gpu_clock_hz: GPU clock the rate is derived at.
        native_bf16: False on M1 and M2 (MPS emulates BF16 there).
        source: the chip's cores and bandwidth. clock_source: its clock.
    """

    id: str
    name: str
    gpu_cores: int
    bandwidth_bytes_per_s: float | None
    gpu_clock_hz: float
    native_bf16: bool
    source: Source
    clock_source: Source


def _chip(chip_id: str, name: str, cores: int, bandwidth_gbps: float | None, clock_mhz: float, source: Source,
          clock_source: Source) -> AppleChip:
    return AppleChip(id=chip_id, name=name, gpu_cores=cores,
                     bandwidth_bytes_per_s=None if bandwidth_gbps is None else bandwidth_gbps * 1e9,
                     gpu_clock_hz=clock_mhz * 1e6, native_bf16=not chip_id.startswith(("m1", "m2")), source=source,
                     clock_source=clock_source)


CHIPS: tuple[AppleChip, ...] = (
    _chip("m1", "M1", 8, None, 1278, _M1, TURNER),
    _chip("m1-pro", "M1 Pro", 16, 200, 1296, _M1_PRO_MAX, TURNER),
    _chip("m1-max", "M1 Max", 32, 400, 1296, _M1_PRO_MAX, TURNER),
    _chip("m1-ultra", "M1 Ultra", 64, 800, 1296, _M1_ULTRA, TURNER),
    _chip("m2", "M2", 10, 100, 1398, _M2, TURNER),
    _chip("m2-pro", "M2 Pro", 19, 200, 1398, _M2_PRO_MAX, TURNER),
    _chip("m2-max", "M2 Max", 38, 400, 1398, _M2_PRO_MAX, TURNER),
    _chip("m2-ultra", "M2 Ultra", 76, 800, 1398, _M2_ULTRA, TURNER),
    _chip("m3", "M3", 10, None, 1398, M3_PR, _HMC_M3),
    _chip("m3-pro", "M3 Pro", 18, None, 1398, M3_PR, _HMC_M3),
    _chip("m3-max", "M3 Max", 40, 400, 1398, M3_PR, _HMC_M3),
    _chip("m3-ultra", "M3 Ultra", 80, 819, 1398, M3_ULTRA_PR, _HMC_M3),
    _chip("m4", "M4", 10, 120, 1470, M4_PR, _HMC_M4),
    _chip("m4-pro", "M4 Pro", 20, 273, 1470, M4_PR, _HMC_M4),
    _chip("m4-max", "M4 Max", 40, 546, 1678, M4_PR, _HMC_M4_MAX),
)

#: The Mac GPU with the lowest rate that Apple sold: the 7-core M1 (a binned 8-core part) at the M1's clock. A
#: Mac described without its chip or GPU cores is timed at this rate, a lower bound, and told so.
FLOOR_CORES, FLOOR_CHIP = 7, "m1"


def apple_chip_ids() -> list[str]:
    """Ids of every chip, oldest first."""
    return [chip.id for chip in CHIPS]


def get_apple_chip(name: str) -> AppleChip:
    """The chip with this id or name (``"m4-max"``, ``"M4 Max"``), ignoring case, spaces and hyphens.

    Raises:
        UnknownNameError: no such chip (field ``chip``; the message lists the ids).
    """
    key = str(name).strip().lower().replace(" ", "-")
    for chip in CHIPS:
        if key == chip.id:
            return chip
    raise UnknownNameError("chip", str(name), apple_chip_ids())


def apple_rate_flop_per_s(chip: AppleChip, *, gpu_cores: int | None = None) -> float:
    """Dense FP32 (= FP16) rate of ``chip`` with ``gpu_cores`` cores (default: its top configuration), FLOP/s.

    Formula: ``gpu_cores x 256 x gpu_clock_hz`` (derived; module docstring).

    Raises:
        InputError: ``gpu_cores`` is not between 1 and the chip's top configuration.
    """
    cores = chip.gpu_cores if gpu_cores is None else gpu_cores
    if isinstance(cores, bool) or not isinstance(cores, int) or not 1 <= cores <= chip.gpu_cores:
        raise InputError("gpu_cores", gpu_cores, f"a whole number of GPU cores from 1 to {chip.gpu_cores} ({chip.name})")
    return cores * FLOP_PER_CORE_PER_CLOCK * chip.gpu_clock_hz


def rate_source(chip: AppleChip, *, gpu_cores: int | None = None) -> Source:
    """The derivation of :func:`apple_rate_flop_per_s` as a :class:`Source` of kind ``"derived"``."""
    cores = chip.gpu_cores if gpu_cores is None else gpu_cores
    return Source(f"{cores} GPU cores x 256 FLOP per core per clock (128 FP32 ALUs, fused multiply-add; FP16 at the "
                  f"same rate: {TURNER.title.split(':')[0]}) x {chip.gpu_clock_hz / 1e6:g} MHz ({chip.clock_source.title})",
                  chip.clock_source.url, chip.clock_source.as_of, kind="derived")


@dataclass(frozen=True)
class MacRates:
    """The rates of a Mac described by its chip, GPU cores or FP32 TFLOPS (``mac:`` descriptions).

    Attributes:
        fp32_flop_per_s: FP32 (= FP16) dense rate, FLOP/s.
        bf16_flop_per_s: BF16 rate; ``None`` on M1/M2 (emulated) and at the floor.
        bandwidth_bytes_per_s: the chip's bandwidth when the description names its top configuration, else ``None``.
        label: what the description named (``"M4 Max, 40-core GPU"``), empty at the floor.
        warning: a sentence every speed answer shows when the rate is the floor, else ``None``.
    """

    fp32_flop_per_s: float
    bf16_flop_per_s: float | None
    bandwidth_bytes_per_s: float | None
    label: str
    warning: str | None


def mac_rates(*, chip: str | None = None, gpu_cores: int | None = None, fp32_tflops: float | None = None) -> MacRates:
    """The rates of a Mac from what its description gives: a chip (and GPU cores), an FP32 TFLOPS figure, or nothing.

    Nothing: the lowest rate of any Mac GPU (a 7-core M1, :data:`FLOOR_CORES`), with a warning: times of
    compute-bound passes are then upper bounds. ``gpu_cores`` needs ``chip`` (the clock is the chip's).

    >>> mac_rates(chip="m4-pro").label, round(mac_rates(chip="m4-pro").fp32_flop_per_s / 1e12, 2)
    ('M4 Pro, 20-core GPU', 7.53)
    >>> round(mac_rates().fp32_flop_per_s / 1e12, 2), mac_rates().warning is not None
    (2.29, True)

    Raises:
        UnknownNameError: an unknown chip. InputError: ``gpu_cores`` without ``chip``, or out of range.
    """
    if gpu_cores is not None and chip is None:
        raise InputError("gpu_cores", gpu_cores, "a Mac's GPU cores together with its chip (e.g. chip=m4-max,"
                         "gpu_cores=32): the clock is the chip's")
    if fp32_tflops is not None:
        label = "" if chip is None else get_apple_chip(chip).name
        return MacRates(fp32_tflops * 1e12, fp32_tflops * 1e12, None, label, None)
    if chip is None:
        floor = get_apple_chip(FLOOR_CHIP)
        rate = apple_rate_flop_per_s(floor, gpu_cores=FLOOR_CORES)
        return MacRates(rate, None, None, "", (
            f"no chip or GPU core count given for this Mac: its GPU is timed at {rate / 1e12:.2f} TFLOPS, the lowest "
            f"of any Mac ({FLOOR_CORES}-core M1), so compute-bound times are upper bounds; give chip= (e.g. "
            "mac:memory_gb=64,chip=m4-max) or fp32_tflops="))
    found = get_apple_chip(chip)
    cores = found.gpu_cores if gpu_cores is None else gpu_cores
    rate = apple_rate_flop_per_s(found, gpu_cores=cores)
    top = cores == found.gpu_cores
    return MacRates(rate, rate if found.native_bf16 else None, found.bandwidth_bytes_per_s if top else None,
                    f"{found.name}, {cores}-core GPU", None)
