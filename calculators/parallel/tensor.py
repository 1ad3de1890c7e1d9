"""Communication time of Megatron-style tensor parallelism: activation all-reduces per layer, seconds.

Megatron-LM (Shoeybi et al. 2019, section 3) splits each attention block by heads and
each MLP by its intermediate dimension, so every block ends in a partial sum that the
``N`` tensor-parallel GPUs must add up: **two all-reduces per layer in the forward pass**
(after attention, after the MLP) and two more in the backward pass (their input
gradients). Each all-reduce moves the layer's activations, ``tokens x hidden x bytes``:

* decode step: ``tokens = batch`` (one new token per sequence);
* prefill: ``tokens = batch x prompt``;
* training step: ``tokens = micro-batch x sequence``, four all-reduces per layer.

Each all-reduce is timed with the ring model of
:func:`calculators.parallel.collectives.ring_collective_time_s`:
``2 (N-1)/N x bytes / (bw x eff) + 2 (N-1) x alpha``. The all-reduce result is the next
block's input, so it sits on the critical path: it is **added** to the compute time,
never overlapped (assumed; fused or asynchronous schemes hide part of it).

Two inputs set the cost, each from published measurements (see :data:`LATENCY_MEASUREMENTS`
and :data:`calculators.parallel.measured.MEASUREMENTS`):

* ``alpha``, the cost of one ring step, from the time of a tiny all-reduce (where only
  latency counts) divided by its ``2 (N-1)`` steps: about 3 microseconds per step both on
  NVLink (2 x H100) and on PCIe (8 x RTX 4090, 8 x RTX 3090). Small messages cost about
  the same on both links; the bandwidth term is what separates them.
* ``eff``, the fraction of the per-direction link bandwidth a large all-reduce reaches,
  from the one link model every command shares (:mod:`calculators.parallel.links`):
  one value per link kind (NVLink ring, NVLink SHARP, bridge, PCIe peer-to-peer, PCIe staged
  through host memory, InfiniBand, Ethernet), derived from how the kind moves its bytes and
  checked against published nccl-tests runs; PCIe GPUs with no link named are staged through host
  memory, about half the link rate.

>>> from calculators.catalog.gpus import get_gpu
>>> from calculators.catalog.models import get_model
>>> spec = get_model("llama-3-70b")
>>> link = tensor_parallel_link(get_gpu("rtx-4090"), gpus=4)
>>> link.id, round(link_efficiency(link), 2), round(latency_per_ring_step_s(link) * 1e6, 2)
('pcie4-host', 0.5, 3.44)
>>> comm = tensor_parallel_communication(spec, tokens=1, gpus=4, link=link)
>>> comm.all_reduces, comm.bytes_per_all_reduce  # 2 per layer x 80 layers; 8192 bf16 activations
(160, 16384)
>>> round(comm.time_s * 1e3, 1), round(comm.latency_s * 1e3, 1)  # ms per decode step: mostly latency
(3.5, 3.3)

References:
    Shoeybi et al. 2019, "Megatron-LM" (arXiv:1909.08053), section 3; docs pages
    "Inference speed" and "Interconnect and communication time".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.catalog.interconnects import Interconnect, get_interconnect
from calculators.model import ModelSpec
from calculators.parallel.collectives import (
    MAX_GPUS,
    ring_collective_time_s,
    ring_steps,
)
from calculators.parallel.custom_all_reduce import custom_all_reduce_stages, custom_all_reduce_time_s
from calculators.parallel.links import LATENCY_MEASUREMENTS as LATENCY_MEASUREMENTS
from calculators.parallel.links import SmallMessageLatency as SmallMessageLatency
from calculators.parallel.links import check_efficiency, collective_efficiency
from calculators.parallel.links import latency_per_ring_step_s as latency_per_ring_step_s
from calculators.parallel.step import AUTO, default_interconnect
from calculators.validate import positive_int

#: All-reduces per transformer layer in one forward pass (Megatron-LM, section 3).
ALL_REDUCES_PER_LAYER_FORWARD = 2
#: All-reduces per layer in one backward pass (the input gradients of the same two blocks).
ALL_REDUCES_PER_LAYER_BACKWARD = 2


def link_efficiency(link: Interconnect, *, gpus: int = 8) -> float:
    """Fraction of the per-direction bandwidth a large all-reduce over ``gpus`` GPUs reaches on this link.

    The one link model of :func:`calculators.parallel.links.collective_efficiency`: NVLink
    SHARP on H100/H200/B200 switches, a ring elsewhere, one value per link kind.

    >>> link_efficiency(get_interconnect("nvlink3")), link_efficiency(get_interconnect("pcie4"))
    (0.8, 0.75)
    """
    return collective_efficiency(link, collective="all-reduce", gpus=gpus)


def tensor_parallel_link(gpu: GPU, *, gpus: int, interconnect: str = AUTO) -> Interconnect:
    """The link a tensor-parallel group of ``gpus`` GPUs talks over: the GPU's own, or the one named.

    ``"auto"`` takes :func:`calculators.parallel.step.default_interconnect` (NVLink or
    Infinity Fabric where the GPU has it, a 2-way bridge only for pairs, else its PCIe
    staged through host memory).

    >>> from calculators.catalog.gpus import get_gpu
    >>> tensor_parallel_link(get_gpu("rtx-a6000"), gpus=4).id  # the bridge joins pairs only
    'pcie4-host'
    """
    key = str(interconnect).strip().lower()
    n = positive_int("gpus", gpus, maximum=MAX_GPUS)
    return default_interconnect(gpu, gpus=n) if key == AUTO else get_interconnect(key)


@dataclass(frozen=True)
class TensorParallelCommunication:
    """All-reduce time of one pass under tensor parallelism, per GPU (all GPUs wait for it), seconds.

    ``time_s`` is an estimate at ``efficiency`` and ``latency_per_step_s``; ``bound_time_s``
    the bandwidth term at 100 % of the link with no latency (a lower bound).
    """

    gpus: int
    link_id: str
    link_name: str
    link_per_direction_bytes_per_s: float
    efficiency: float
    latency_per_step_s: float
    all_reduces: int
    bytes_per_all_reduce: int
    time_s: float
    bound_time_s: float
    stages: int = 0

    @property
    def latency_s(self) -> float:
        """The part of ``time_s`` that is fixed per collective, seconds."""
        steps = self.stages + 1 if self.stages else ring_steps("all-reduce", gpus=self.gpus)
        return self.all_reduces * steps * self.latency_per_step_s

    def assumption(self) -> str:
        """One sentence for a result's assumptions."""
        kind = (f"the engine's {'one' if self.stages == 1 else 'two'}-stage custom all-reduce kernel "
                f"({self.stages + 1} cross-GPU steps each, vLLM's custom_all_reduce)" if self.stages
                else "ring all-reduces")
        return (f"tensor parallel over {self.link_name} ({self.link_per_direction_bytes_per_s / 1e9:g} GB/s per "
                f"direction): {self.all_reduces} {kind} of {self.bytes_per_all_reduce:,} bytes per pass "
                f"(2 per layer per forward, Megatron-LM), at efficiency {self.efficiency:.2f} and "
                f"{self.latency_per_step_s * 1e6:.2f} us per step (derived from published nccl-tests runs), "
                "added to compute (not overlapped)")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"gpus": self.gpus, "interconnect": self.link_id, "interconnect_name": self.link_name,
                "link_per_direction_bytes_per_s": self.link_per_direction_bytes_per_s,
                "efficiency": self.efficiency, "latency_per_ring_step_s": self.latency_per_step_s,
                "all_reduces": self.all_reduces, "bytes_per_all_reduce": self.bytes_per_all_reduce,
                "custom_all_reduce_stages": self.stages, "time_s": self.time_s, "latency_s": self.latency_s,
                "bound_time_s": self.bound_time_s}


def tensor_parallel_communication(spec: ModelSpec, *, tokens: int, gpus: int, link: Interconnect,
                                  activation_bytes: int = 2, backward: bool = False,
                                  efficiency: float | None = None,
                                  custom_kernel: bool = False) -> TensorParallelCommunication:
    """All-reduce time of one pass over ``tokens`` tokens split over ``gpus`` tensor-parallel GPUs, seconds.

    Formula: ``all-reduces = (2 + 2 if backward) x layers``; each of ``tokens x hidden x
    activation_bytes`` bytes, timed by :func:`~calculators.parallel.collectives.ring_collective_time_s`
    at :func:`link_efficiency` and :func:`latency_per_ring_step_s`. One GPU: zero.

    Args:
        spec: model shapes (``hidden_size``, ``num_layers``).
        tokens: tokens in the pass (decode: batch; prefill: batch x prompt).
        gpus: tensor-parallel GPUs.
        link: the ring's slowest link (:func:`tensor_parallel_link`).
        activation_bytes: bytes per activation element (2 for bf16/fp16, 4 for fp32).
        backward: count the backward pass's all-reduces too (training).
        efficiency: fraction of per-direction bandwidth reached; ``None`` = :func:`link_efficiency`.
        custom_kernel: the engine all-reduces with its own one- or two-stage kernel where it takes the
            buffer (vLLM, SGLang, TensorRT-LLM: :mod:`calculators.parallel.custom_all_reduce`), else NCCL's ring.

    The counts come from checked records (a :class:`~calculators.parallel.cluster.Cluster`'s ``tensor_parallel``
    and a micro-batch's tokens, a :class:`~calculators.performance.speed_setup.SpeedSetup`'s GPUs and batch) and
    are trusted; a given ``efficiency`` is checked (the one value a caller may pass through unchecked).

    Raises:
        InputError: an efficiency out of range, naming it.
    """
    t, n = tokens, gpus
    size = t * spec.hidden_size * activation_bytes
    eff = link_efficiency(link, gpus=n) if efficiency is None else check_efficiency("collective_efficiency", efficiency)
    alpha = latency_per_ring_step_s(link)
    per_layer = ALL_REDUCES_PER_LAYER_FORWARD + (ALL_REDUCES_PER_LAYER_BACKWARD if backward else 0)
    count = per_layer * spec.num_layers
    bw = link.per_direction_bytes_per_s
    stages = custom_all_reduce_stages(size, gpus=n, link=link) if custom_kernel and n > 1 else 0
    if stages:
        one = custom_all_reduce_time_s(size, gpus=n, link=link, efficiency=eff, latency_s=alpha)
        bound = custom_all_reduce_time_s(size, gpus=n, link=link, efficiency=1.0, latency_s=0.0)
    else:
        one = ring_collective_time_s("all-reduce", size, gpus=n, link_bytes_per_s=bw, efficiency=eff,
                                     latency_s=alpha)
        bound = ring_collective_time_s("all-reduce", size, gpus=n, link_bytes_per_s=bw, efficiency=1.0,
                                       latency_s=0.0)
    count = count if n > 1 else 0
    return TensorParallelCommunication(
        gpus=n, link_id=link.id, link_name=link.name, link_per_direction_bytes_per_s=bw, efficiency=eff,
        latency_per_step_s=alpha, all_reduces=count, bytes_per_all_reduce=size, time_s=count * one,
        bound_time_s=count * bound, stages=stages)
