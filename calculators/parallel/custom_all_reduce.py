"""Inference engines' own all-reduce kernels for tensor parallelism: one-stage and two-stage, not a ring.

vLLM, SGLang and TensorRT-LLM do not send a decode step's small all-reduces through NCCL's ring.
Each GPU maps its peers' buffers (CUDA/HIP IPC) and a single kernel does the all-reduce:

* **one stage** (``cross_device_reduce_1stage``): every GPU reads the whole buffer of each of the
  other ``N - 1`` GPUs and adds them, between a barrier at the start and one at the end;
* **two stages** (``cross_device_reduce_2stage``): a reduce-scatter (each GPU sums its ``1/N`` slice
  from every peer) and an all-gather (it reads the other slices back), three barriers.

vLLM picks one stage for two GPUs, and with every GPU linked to every other (NVLink, Infinity
Fabric) below 512 KiB on up to 4 GPUs or 256 KiB on up to 8, two stages above; buffers over
8 MiB, other GPU counts (only 2, 4, 6 and 8 are compiled) and PCIe groups of more than two go to
NCCL (:data:`CUSTOM_ALL_REDUCE_SOURCE`). SGLang carries the same kernels; TensorRT-LLM's AllReduce
plugin has the same one-shot and two-shot strategies.

TensorRT-LLM differs on PCIe: from v0.8 its builds turn the plugin on by default
(``PluginConfig.use_custom_all_reduce = True``) and it runs on any group whose GPUs have CUDA peer
access, more than two PCIe GPUs included; without peer access a v0.8 or v0.9 engine stops ('Can't enable
access between nodes', 'peer access is not supported between these two devices': TensorRT-LLM issues 1374,
1499 and 1588, maintainer: 'custom allreduce is only supported when the peer access is supported'), as
v0.7.1 on the same two GPUs did not. So NVIDIA's own v0.9 tables on 2, 4 and 8 L40S
cards ran on GPUs with peer access. Such a group is still timed here as NCCL's ring over the GPUs'
default link (staged through host memory, :mod:`calculators.parallel.links`), because the rate of the
plugin's peer reads through a host's root complex is published for none of those machines (NCCL itself
does not use peer-to-peer through an Intel CPU, src/graph/paths.cc), and the one rate the project
derives for peer-to-peer PCIe (NCCL's, 0.75 of the link) contradicts the tables: timed so, the
plugin would put four of NVIDIA's twelve L40S tensor-parallel figures 13 to 44 % fast (Llama-2-70B at
TP2, TP4 and TP8), while the staged ring meets ten of the twelve within 16 % (checked 2026-11-29 with
every figure fitted). The two it misses are Mixtral-8x7B runs it times too slow (the 128-token first
token by 26 %, batch 32 at 2,048 + 2,048 tokens by 31 %, that one 23 % on NVLink H100 too). A link
cannot close the first: of its 19.5 ms, 13.6 ms is the least time a card needs to read its quarter of the
FP8 weights at 864 GB/s and 3.1 ms the least its 64 all-reduces of 1 MiB need at PCIe 4.0's line rate,
which leaves 2.8 ms for everything else, less than the 5.1 ms per-layer fixed cost the model adds to a
32-layer pass (a fitted constant, not a link term).

Formula, with ``S`` the buffer's bytes, ``B`` the link's per-direction bandwidth times its
collective efficiency and ``alpha`` the fixed cost of one cross-GPU step (a flag written to a
peer and seen: :func:`calculators.parallel.links.latency_per_ring_step_s`, the same per-step cost
as a ring step):

* one stage: ``2 alpha + (N - 1) S / B``;
* two stages: ``3 alpha + 2 (N - 1) / N x S / B``;
* the ring it replaces: ``2 (N - 1) alpha + 2 (N - 1) / N x S / B``.

A decode step's all-reduce is tiny (batch x hidden x 2 bytes), so the ring's ``2 (N - 1)`` steps of
latency are what the custom kernel saves: 2 of 14 on 8 GPUs.

>>> from calculators.catalog.interconnects import get_interconnect
>>> link = get_interconnect("nvlink4")
>>> custom_all_reduce_stages(8192 * 2, gpus=8, link=link), custom_all_reduce_stages(4 * 2**20, gpus=8, link=link)
(1, 2)
>>> custom_all_reduce_stages(16 * 2**20, gpus=8, link=link)  # over 8 MiB: NCCL's ring
0
>>> round(custom_all_reduce_time_s(16384, gpus=8, link=link, efficiency=0.8, latency_s=3e-6) * 1e6, 2)  # us
6.32

References:
    vLLM csrc/custom_all_reduce.cuh and vllm/distributed/device_communicators/custom_all_reduce.py;
    TensorRT-LLM cpp/tensorrt_llm/kernels/customAllReduceKernels.h (ONESHOT, TWOSHOT),
    tensorrt_llm/plugin/plugin.py (PluginConfig), issues NVIDIA/TensorRT-LLM#1374, #1499 and #1588 (peer access);
    NVIDIA/nccl src/graph/paths.cc (no peer-to-peer through Intel CPUs by default).
"""

from __future__ import annotations

from calculators.catalog.interconnects import Interconnect
from calculators.catalog.sources import Source
from calculators.validate import finite_float, positive_int

CUSTOM_ALL_REDUCE_SOURCE = Source(
    "vLLM, csrc/custom_all_reduce.cuh (REDUCE_CASE: cross_device_reduce_1stage for 2 GPUs, and with full NVLink for "
    "world_size <= 4 below 512 * 1024 bytes or <= 8 below 256 * 1024 bytes, else cross_device_reduce_2stage; world sizes "
    "2, 4, 6, 8) and vllm/distributed/device_communicators/custom_all_reduce.py (max_size 8192 * 1024 bytes; not "
    "supported on more than two PCIe-only GPUs)",
    "https://github.com/vllm-project/vllm/blob/main/csrc/custom_all_reduce.cuh", "2026-11-29", kind="spec")
#: GPU counts the custom kernels are compiled for.
WORLD_SIZES: tuple[int, ...] = (2, 4, 6, 8)
#: Largest buffer the custom kernels take, bytes; larger ones go to NCCL.
MAX_BYTES = 8192 * 1024


def _fully_connected(link: Interconnect) -> bool:
    """Every GPU of the group reads every other's memory directly: NVLink or Infinity Fabric, not a 2-way bridge."""
    return link.kind in ("nvlink", "infinity-fabric") and not link.pair_only


def custom_all_reduce_stages(buffer_bytes: float, *, gpus: int, link: Interconnect) -> int:
    """Stages of the custom kernel for this all-reduce: 1, 2, or 0 where the engine falls back to NCCL's ring.

    Two GPUs use one stage on any peer-to-peer link (an NVLink bridge, PCIe with peer access); more
    need every pair linked directly.
    """
    n = positive_int("gpus", gpus, maximum=1 << 16)
    size = finite_float("buffer_bytes", buffer_bytes, minimum=0.0, maximum=1e18)
    if n not in WORLD_SIZES or size > MAX_BYTES:
        return 0
    if n == 2:
        return 0 if link.kind == "pcie" and link.host_staged else 1
    if not _fully_connected(link):
        return 0
    small = (n <= 4 and size < 512 * 1024) or (n <= 8 and size < 256 * 1024)
    return 1 if small else 2


def custom_all_reduce_time_s(buffer_bytes: float, *, gpus: int, link: Interconnect, efficiency: float,
                             latency_s: float) -> float:
    """Time of one all-reduce by the engines' custom kernel, seconds (module docstring).

    Raises:
        ValueError: the kernel does not take this all-reduce (:func:`custom_all_reduce_stages` is 0).
    """
    stages = custom_all_reduce_stages(buffer_bytes, gpus=gpus, link=link)
    if not stages:
        raise ValueError("the custom all-reduce does not take this buffer, GPU count or link; time it as a ring")
    bandwidth = link.per_direction_bytes_per_s * finite_float("efficiency", efficiency, minimum=0.0, maximum=2.0,
                                                              allow_minimum=False)
    n = gpus
    if stages == 1:
        return 2 * latency_s + (n - 1) * buffer_bytes / bandwidth
    return 3 * latency_s + 2 * (n - 1) / n * buffer_bytes / bandwidth


__all__ = ["CUSTOM_ALL_REDUCE_SOURCE", "MAX_BYTES", "WORLD_SIZES", "custom_all_reduce_stages",
           "custom_all_reduce_time_s"]
