"""Usable memory: what one process can allocate on each GPU, next to the marketed capacity.

The marketed "80 GB" of an H100 and what CUDA lets a process have are different numbers.
``torch.cuda.mem_get_info()`` (CUDA ``cudaMemGetInfo``) reports a *total* below the
capacity: the driver keeps memory back (page tables, ECC, reserved regions), and on GDDR
cards with ECC on the total drops by about 6 %. Fit decisions use this total; the CUDA
context then comes out of it (:data:`calculators.memory.overhead.CUDA_CONTEXT_BYTES`).

Apple silicon has no CUDA and no separate device memory: the GPU may wire at most
``recommendedMaxWorkingSetSize`` of the unified memory by default (macOS sets it; the
``iogpu.wired_limit_mb`` sysctl overrides it). PyTorch's MPS backend refuses allocations
past 1.7 x that working set by default, and the system pages to swap well before that.

>>> from calculators.catalog.gpus import get_gpu
>>> usable_memory_bytes(get_gpu("h100-sxm"))
85017493504
>>> round(usable_memory_bytes(get_gpu("rtx-4090")) / 2**30, 2)
23.64
>>> usable_memory_record(get_gpu("m4-max")).source.kind
'derived'
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.catalog.apple_memory import apple_working_set_bytes as apple_working_set_bytes
from calculators.catalog.custom_gpu import CustomGPU
from calculators.catalog.gpus import GPU
from calculators.catalog.sources import Source
from calculators.units import GIB, MIB
from calculators.validate import GPU_RECORD, instance_of

_READ = "2026-11-25"


@dataclass(frozen=True)
class UsableMemory:
    """The memory one process can allocate on a GPU, with where the figure comes from.

    Attributes:
        gpu_id: catalog id.
        usable_bytes: ``torch.cuda.mem_get_info()`` total (CUDA/ROCm), or the default GPU
            working set (Apple).
        source: the document (``kind`` ``"measured"`` for a reading, ``"derived"`` for a
            figure worked out from other readings, with the rule in its title).
        note: caveats (driver drift, ECC).
    """

    gpu_id: str
    usable_bytes: int
    source: Source
    note: str = ""


def _reading(title: str, url: str) -> Source:
    return Source(title=title, url=url, as_of=_READ, kind="measured")


def _derived(title: str, url: str) -> Source:
    return Source(title=title, url=url, as_of=_READ, kind="derived")


_H100_MEASURED = 85_017_493_504  # tests/data/measurements_cuda/h100-sxm/env.json, mem_get_info total
_H100_SMI_MIB = 81_559  # nvidia-smi "Total" on the same card
_SMI_TO_CUDA_GAP_MIB = _H100_SMI_MIB - _H100_MEASURED / MIB  # about 480 MiB on the measured H100
_H200_SMI_MIB = 143_771
_L40S_ECC_RATIO = 47_803_596_800 / (48 * GIB)  # GDDR6 with ECC on: usable share of capacity
_DRIFT = "CUDA's total moves by tens of MiB between driver versions"

_RECORDS: tuple[UsableMemory, ...] = (
    UsableMemory("rtx-3090", 25_327_697_920, _reading(
        "deviceQuery on a GeForce RTX 3090, driver 12.6: 'Total amount of global memory: 24154 MBytes "
        "(25327697920 bytes)'",
        "https://github.com/thamada/nvidia-smi/blob/b09ef139265ffc7e3c78006346981de8e4d70499/gls/RTX3090_deviceQuery.py"),
        f"PyTorch OOM messages on older drivers say 23.69-23.70 GiB; {_DRIFT}"),
    UsableMemory("rtx-4090", 25_386_352_640, _reading(
        "deviceQuery on a GeForce RTX 4090, driver 12.4: '24210 MBytes (25386352640 bytes)'; PyTorch OOM "
        "messages on 4090s say 'total capacity of 23.64 GiB'",
        "https://github.com/thamada/nvidia-smi/blob/b09ef139265ffc7e3c78006346981de8e4d70499/gls/RTX4090_deviceQuery.py"),
        _DRIFT),
    UsableMemory("rtx-5090", int(31.36 * GIB), _reading(
        "PyTorch out-of-memory message on an RTX 5090: 'GPU 0 has a total capacity of 31.36 GiB'",
        "https://github.com/TrajectoryCrafter/TrajectoryCrafter/issues/20"),
        "two other reports read 31.37 GiB; a two-decimal GiB figure is good to about 5 MiB"),
    UsableMemory("rtx-pro-6000-blackwell", int(96 * GIB * _L40S_ECC_RATIO), _derived(
        "derived: 96 GiB x the usable share of a 48 GiB GDDR card with ECC on (L40S deviceQuery, "
        "47,803,596,800 B), as this card ships with ECC on; no reading of this card was found",
        "https://github.com/thamada/nvidia-smi/blob/c768aedc1e0bf705fc91b08e8d9403bf53760365/nvsim/L40S_deviceQuery.py"),
        "with ECC off it would be about 6 % more"),
    UsableMemory("rtx-a6000", 51_041_271_808, _reading(
        "XLA's device description for the NVIDIA RTX A6000: 'device_memory_size: 51041271808'",
        "https://github.com/openxla/xla/blob/4336d12e0706168f6a382ddb231f3a83853b0657/xla/backends/gpu/target_config/"
        "specs/a6000.txtpb"),
        "ECC off (the default on this card); with ECC on expect about 6 % less"),
    UsableMemory("t4", 15_095 * 1_048_576, _reading(
        "deviceQuery on a Tesla T4 (Colab): 'Global Memory | 15095 MBytes'; PyTorch OOM messages on T4s say "
        "'total capacity of 14.75 GiB'",
        "https://github.com/sylvia-ymlin/cuda-kernels-from-scratch/blob/HEAD/README.md"),
        "ECC on"),
    UsableMemory("l4", 23_570_219_008, _reading(
        "deviceQuery on an NVIDIA L4, driver 12.4, ECC enabled: '22478 MBytes (23570219008 bytes)'",
        "https://github.com/thamada/nvidia-smi/blob/b09ef139265ffc7e3c78006346981de8e4d70499/gls/L4_deviceQuery.py"),
        "ECC on"),
    UsableMemory("l40s", 47_803_596_800, _reading(
        "deviceQuery on an NVIDIA L40S, ECC enabled: '45589 MBytes (47803596800 bytes)'",
        "https://github.com/thamada/nvidia-smi/blob/c768aedc1e0bf705fc91b08e8d9403bf53760365/nvsim/L40S_deviceQuery.py"),
        "ECC on (the default)"),
    UsableMemory("v100-sxm2-32gb", int(31.74 * GIB), _reading(
        "PyTorch out-of-memory message on a V100 32GB: '(GPU 0; 31.74 GiB total capacity; ...)'",
        "https://github.com/liucongg/ChatGLM-Finetuning/issues/73"),
        "the report does not say SXM2 or PCIe; both carry the same 32 GB HBM2"),
    UsableMemory("a100-40gb-sxm", 42_298_834_944, _reading(
        "deviceQuery on an NVIDIA A100-SXM4-40GB, driver 12.2: '40339 MBytes (42298834944 bytes)'",
        "https://github.com/bottlerocket-os/bottlerocket/pull/3873"),
        f"older drivers report up to 39.59 GiB; {_DRIFT}"),
    UsableMemory("a100-80gb-sxm", 85_100_068_864, _reading(
        "deviceQuery on an NVIDIA A100-SXM4-80GB, driver 12.5: '81158 MBytes (85100068864 bytes)'",
        "https://github.com/thamada/nvidia-smi/blob/b09ef139265ffc7e3c78006346981de8e4d70499/gls/"
        "A100SXMx4_deviceQuery.py"),
        _DRIFT),
    UsableMemory("h100-pcie", _H100_MEASURED, _derived(
        "derived: the H100 SXM reading (same 80 GB capacity); no reading of an H100 PCIe was found",
        "tests/data/measurements_cuda/h100-sxm/env.json"),
        "PCIe cards carry HBM2e rather than HBM3; the driver's reserve may differ slightly"),
    UsableMemory("h100-sxm", _H100_MEASURED, _reading(
        "this guide's H100 80GB HBM3 runs: torch.cuda.mem_get_info() total 85,017,493,504 B (driver 580, "
        "CUDA 13.0); deviceQuery elsewhere reads 85,045,477,376 B on driver 12.7",
        "tests/data/measurements_cuda/h100-sxm/env.json"),
        f"OOM messages on other drivers say 79.11 GiB; {_DRIFT}"),
    UsableMemory("h200", int((_H200_SMI_MIB - _SMI_TO_CUDA_GAP_MIB) * MIB), _derived(
        "derived: nvidia-smi's 143,771 MiB total for an H200 less the gap between nvidia-smi (81,559 MiB) and "
        "mem_get_info (85,017,493,504 B) measured on the H100, about 480 MiB",
        "tests/data/measurements_cuda/h100-sxm/env.json"),
        "no CUDA reading of an H200 was found: measure one before relying on the last GiB"),
    UsableMemory("b200", 191_514_411_008, _reading(
        "XLA's device description for the NVIDIA B200 (driver 13.0): 'sm_10.0a with 191514411008B RAM'; "
        "cudaGetDeviceProperties on a B200 reads 'Total Global Memory: 178.35 GB' (GiB)",
        "https://github.com/openxla/xla/blob/300ec95ab85fa9f40af388054f7d43707407cb52/xla/backends/gpu/target_config/"
        "specs/b200.txtpb"),
        _DRIFT),
    UsableMemory("mi300x", 196_592 * 1_048_576, _reading(
        "HIP deviceQuery on an AMD Instinct MI300X: '196592: Total Global Memory (MB)'",
        "https://github.com/thamada/nvidia-smi/blob/a296cf1dff865bac1d5fd7ba38789570cab4a8da/nvsim/"
        "MI300X_x4_deviceQuery.py"),
        "ROCm; the CUDA context figures of this guide are NVIDIA's"),
    UsableMemory("m4-max", 96 * GIB, _derived(
        "derived: macOS's default GPU working set, about three quarters of unified memory above 36 GB "
        "('For a 128 GB Mac, this value comes out to about 96 GB'); PyTorch reports recommendedMaxWorkingSetSize",
        "https://stencel.io/posts/apple-silicon-limitations-with-usage-on-local-llm%20.html"),
        "macOS 26 reads higher (107.52 GiB on a 128 GB M5 Max); sudo sysctl iogpu.wired_limit_mb raises it"),
    UsableMemory("m3-max", 96 * GIB, _derived(
        "derived: macOS's default GPU working set, about three quarters of unified memory above 36 GB "
        "('For a 128 GB Mac, this value comes out to about 96 GB')",
        "https://stencel.io/posts/apple-silicon-limitations-with-usage-on-local-llm%20.html"),
        "sudo sysctl iogpu.wired_limit_mb raises it"),
)

_MAC_RULE_URL = "https://stencel.io/posts/apple-silicon-limitations-with-usage-on-local-llm%20.html"
_BY_ID = {record.gpu_id: record for record in _RECORDS}


def usable_memory_record(gpu: GPU) -> UsableMemory:
    """The usable-memory record of a GPU: the catalog's, or how a custom GPU's figure is obtained.

    >>> from calculators.catalog.custom_gpu import custom_gpu
    >>> usable_memory_record(custom_gpu(memory_gb=64, bandwidth_gbps=400)).source.kind
    'derived'
    """
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    found = _BY_ID.get(record.id) if not isinstance(record, CustomGPU) else None
    if found is not None:
        return found
    usable = usable_memory_bytes(record)
    if isinstance(record, CustomGPU) and record.usable_bytes is not None and record.vendor != "Apple":
        return UsableMemory(record.id, usable, Source("given with the custom GPU (usable_gb)", "user input", _READ,
                                                      kind="assumed"))
    if record.vendor == "Apple":
        return UsableMemory(record.id, usable, _derived(
            "derived: macOS's default GPU working set, 2/3 of unified memory up to 36 GB and 3/4 above "
            "(apple_working_set_bytes)", _MAC_RULE_URL))
    return UsableMemory(record.id, usable, _derived(
        "derived: capacity x the share CUDA reports on the measured H100 (85,017,493,504 B of 80 GiB)",
        "tests/data/measurements_cuda/h100-sxm/env.json"), "give usable_gb for your card's reading")


def usable_memory_bytes(gpu: GPU) -> int:
    """Bytes one process can allocate on ``gpu`` (what fit decisions compare ``total_bytes`` with).

    A custom GPU uses its ``usable_gb`` when given; otherwise a Mac gets macOS's default
    working set and any other GPU the H100's measured share of its capacity (derived).
    """
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    if isinstance(record, CustomGPU):
        if record.usable_bytes is not None:
            return record.usable_bytes
    else:
        found = _BY_ID.get(record.id)
        if found is not None:
            return found.usable_bytes
    if record.vendor == "Apple":
        return apple_working_set_bytes(record.memory_bytes)
    return int(record.memory_bytes * _H100_MEASURED / (80 * GIB))
