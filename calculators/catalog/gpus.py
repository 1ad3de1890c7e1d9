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

The records live in :mod:`calculators.catalog.gpu_records` by vendor and generation (NVIDIA
cards, NVIDIA data-centre Volta to Hopper, NVIDIA Blackwell, AMD, Apple); this module assembles
them, adds each NVIDIA part's compute capability, and is the one to import.

>>> h100 = get_gpu("H100 SXM 80GB")
>>> h100.memory_gib, h100.bf16_dense_flop_per_s / 1e12
(80.0, 989.4)
>>> get_gpu("rtx-4090").source_of("bf16_dense_flop_per_s").title
'NVIDIA Ada GPU Architecture whitepaper, Appendix A (GeForce RTX 4090)'

References:
    Each record's ``source`` and ``field_sources``; docs page "Hardware catalog".
"""

from __future__ import annotations

from dataclasses import replace

from calculators.catalog.gpu_records import amd, apple, matmul_rates, nvidia_blackwell, nvidia_cards, nvidia_datacenter
from calculators.catalog.gpu_records.base import GPU as GPU
from calculators.catalog.gpu_records.base import READ
from calculators.catalog.sources import Source
from calculators.errors import UnknownNameError
from calculators.units import GIB as GIB

_READ = READ  # the date the catalog's documents were read (doc_tables.performance quotes it)

_CUDA_GPUS = Source("NVIDIA Developer: CUDA GPU Compute Capability (table of current GPUs)",
                    "https://developer.nvidia.com/cuda-gpus", _READ)
_CUDA_LEGACY = Source("NVIDIA Developer: Legacy CUDA GPU Compute Capability (7.0: NVIDIA V100)",
                      "https://developer.nvidia.com/cuda-legacy-gpus", _READ)
_CUDA_GPUS_2022 = Source("Copy of NVIDIA's CUDA GPUs page, data-centre table (NVIDIA A100 8.0, NVIDIA T4 7.5), "
                         "posted 2022-08-16", "https://www.cnblogs.com/nightnine/p/16591404.html", _READ)
_HOPPER_CC = Source("derived: a Hopper GH100 part, compute capability 9.0 like the H100 (NVIDIA Developer: CUDA GPU "
                    "Compute Capability)", "https://developer.nvidia.com/cuda-gpus", _READ, kind="derived")
_SERVER_CC = Source("antirez/ds4 pull request #256: 'a single NVIDIA RTX PRO 6000 Blackwell Server Edition (97 GB "
                    "VRAM, compute capability sm_120)'", "https://github.com/antirez/ds4/pull/256", _READ,
                    kind="measured")
_CC = {"rtx-3090": ("8.6", _CUDA_GPUS), "rtx-4090": ("8.9", _CUDA_GPUS), "rtx-5090": ("12.0", _CUDA_GPUS),
       "rtx-pro-6000-blackwell": ("12.0", _CUDA_GPUS), "rtx-pro-6000-server": ("12.0", _SERVER_CC),
       "rtx-a6000": ("8.6", _CUDA_GPUS), "t4": ("7.5", _CUDA_GPUS_2022), "l4": ("8.9", _CUDA_GPUS),
       "l40": ("8.9", _CUDA_GPUS), "l40s": ("8.9", _CUDA_GPUS), "v100-sxm2-32gb": ("7.0", _CUDA_LEGACY),
       "a100-40gb-sxm": ("8.0", _CUDA_GPUS_2022), "a100-80gb-sxm": ("8.0", _CUDA_GPUS_2022),
       "a100-80gb-pcie": ("8.0", _CUDA_GPUS_2022), "h100-pcie": ("9.0", _CUDA_GPUS), "h100-nvl": ("9.0", _CUDA_GPUS),
       "h100-sxm": ("9.0", _CUDA_GPUS), "h200": ("9.0", _CUDA_GPUS), "h20": ("9.0", _HOPPER_CC),
       "b200": ("10.0", _CUDA_GPUS), "gb200": ("10.0", _CUDA_GPUS)}

_GPUS: tuple[GPU, ...] = (*nvidia_cards.RECORDS, *nvidia_datacenter.RECORDS, *nvidia_blackwell.RECORDS, *amd.RECORDS,
                          *apple.RECORDS)


def _with_compute_capability(gpu: GPU) -> GPU:
    """The record with its compute capability and that figure's source (NVIDIA parts only)."""
    if gpu.id not in _CC:
        return gpu
    capability, source = _CC[gpu.id]
    return replace(gpu, compute_capability=capability,
                   field_sources=gpu.field_sources + (("compute_capability", source),))


def _with_measured_matmul(gpu: GPU) -> GPU:
    """The record with its measured matrix-multiply rates and their source, where one is published
    (:mod:`calculators.catalog.gpu_records.matmul_rates`)."""
    rate = matmul_rates.RATES.get(gpu.id)
    if rate is None:
        return gpu
    sources: tuple[tuple[str, Source], ...] = (("sustained_bf16_flop_per_s", rate.source),)
    if rate.fp8_flop_per_s is not None:
        sources += (("sustained_fp8_flop_per_s", rate.source),)
    return replace(gpu, sustained_bf16_flop_per_s=rate.bf16_flop_per_s, sustained_fp8_flop_per_s=rate.fp8_flop_per_s,
                   field_sources=gpu.field_sources + sources)


_GPUS = tuple(_with_measured_matmul(_with_compute_capability(gpu)) for gpu in _GPUS)


def all_gpus() -> tuple[GPU, ...]:
    """Every GPU record, in catalog order.

    >>> len(all_gpus()) >= 28
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
