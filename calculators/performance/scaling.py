"""Data-parallel scaling of a training run: the communication compute cannot hide, seconds per optimizer step.

What each GPU sends per optimizer step follows :mod:`calculators.parallel.step` (ZeRO
paper, Rajbhandari et al. 2020, section 7), with ``P`` trainable parameters:

* ZeRO 0 (DDP): all-reduce the gradients once, in the last micro-batch's backward;
* ZeRO 1 and 2: reduce-scatter the gradients in that backward, then all-gather the
  updated parameters after the optimizer step (hides behind nothing);
* ZeRO 3 (FSDP full shard): every micro-batch all-gathers every parameter in forward and
  again in backward, and reduce-scatters the gradients in backward.

Each collective is timed by :func:`calculators.parallel.ring_link.data_parallel_cost`
(:func:`calculators.parallel.collective_time.collective_cost`: the one timing ``parallel`` uses and the published
nccl-tests runs are scored with), on the ring :mod:`calculators.parallel.ring_link` chooses: within a node a ring at
the link model's efficiency (per link kind and collective) and the link's measured per-step latency. Above
:data:`GPUS_PER_NODE` GPUs the ring crosses nodes: its per-GPU bandwidth is ``min(intra-node link, NICs per node x
NIC)`` (default eight 400 Gb/s InfiniBand NDR NICs per node, as in NVIDIA's DGX H100 reference design: assumed) at
the network efficiency, with NCCL's own latency model (:mod:`calculators.parallel.latency`); an all-reduce over two
nodes of NVLink SHARP GPUs is NCCL's NVLSTree.

Overlap (assumed, as in :mod:`calculators.parallel.step`): a collective hides behind the
compute of its own phase only, so the exposed time per optimizer step is ``sum over
phases of max(0, communication - compute)``. Scaling efficiency = compute / (compute +
exposed): it falls with the GPU count (more ring steps, more latency) and with a slower
link.

>>> from calculators.catalog.models import get_model
>>> from calculators.parallel.cluster import Cluster
>>> spec = get_model("llama-3-8b")
>>> nvlink = data_parallel_overhead(spec, Cluster.of(gpu="h100-sxm", gpus=8, zero=0), micro_batch_compute_s=0.5,
...                                 forward_share=1 / 3)
>>> nvlink.link_id, nvlink.exposed_s  # the gradient all-reduce hides behind backward
('nvlink4', 0.0)
>>> pcie = data_parallel_overhead(spec, Cluster.of(gpu="h100-sxm", gpus=8, zero=0, interconnect="pcie5"),
...                               micro_batch_compute_s=0.5, forward_share=1 / 3)
>>> round(pcie.scaling_efficiency, 2)
0.36

References:
    docs pages "Training time" and "Multi-GPU memory and communication"; Rajbhandari et al.
    2020 (arXiv:1910.02054) section 7; the sources of :mod:`calculators.parallel.collective_time`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from calculators.catalog.sources import Source
from calculators.errors import InputError
from calculators.model import ModelSpec
from calculators.parallel.cluster import Cluster
from calculators.parallel.ring_link import GPUS_PER_NODE, data_parallel_cost, data_parallel_link
from calculators.parallel.step import DDP_BUCKET_BYTES, CollectiveTime
from calculators.parallel.tensor import latency_per_ring_step_s
from calculators.validate import AUTO

_PHASES = ("forward", "backward", "after-step")


@dataclass(frozen=True)
class DataParallelOverhead:
    """Communication of one optimizer step per GPU, the part compute cannot hide, and the scaling efficiency.

    Times in seconds per optimizer step; ``compute_s`` covers every micro-batch of the step.
    """

    gpus: int
    zero: int
    link_name: str
    link_id: str
    link_per_direction_bytes_per_s: float
    efficiency: float
    latency_per_step_s: float
    collectives: tuple[CollectiveTime, ...]
    compute_s: float
    communication_s: float
    exposed_s: float

    @property
    def scaling_efficiency(self) -> float:
        """Compute / (compute + exposed communication): 1 when communication is fully hidden."""
        total = self.compute_s + self.exposed_s
        return self.compute_s / total if total else 1.0

    def assumption(self) -> str:
        """One sentence for a result's assumptions."""
        if self.gpus == 1:
            return "one GPU: no data-parallel communication"
        # a ring across nodes is named "intra+nic" (calculators.parallel.ring_link.data_parallel_link)
        basis = ("NCCL's own latency model across nodes" if "+" in self.link_id
                 else "derived from published nccl-tests runs")
        return (f"data parallel (ZeRO {self.zero}) over {self.link_name}: {self.link_per_direction_bytes_per_s / 1e9:g} "
                f"GB/s per direction at efficiency {self.efficiency:.2f}, {self.latency_per_step_s * 1e6:.2f} us per "
                f"ring step ({basis}); collectives hide only behind their own phase's "
                f"compute; scaling efficiency {self.scaling_efficiency:.3f}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"gpus": self.gpus, "zero": self.zero, "interconnect": self.link_id,
                "interconnect_name": self.link_name,
                "link_per_direction_bytes_per_s": self.link_per_direction_bytes_per_s,
                "efficiency": self.efficiency, "latency_per_ring_step_s": self.latency_per_step_s,
                "collectives": [c.to_dict() for c in self.collectives], "compute_s": self.compute_s,
                "communication_s": self.communication_s, "exposed_s": self.exposed_s,
                "scaling_efficiency": self.scaling_efficiency}


def data_parallel_overhead(spec: ModelSpec, cluster: Cluster, *, micro_batch_compute_s: float, forward_share: float,
                           accumulation: int = 1, trainable_parameters: int | None = None, grad_bytes: float = 4,
                           gathered_bytes_per_parameter: float = 2) -> DataParallelOverhead:
    """Exposed data-parallel communication of one optimizer step per GPU, seconds.

    Formula: collectives as the module docstring lists; exposed = ``sum over phases of
    max(0, communication - compute)`` with forward = ``forward_share`` of each
    micro-batch's compute and backward the rest; ZeRO 0-2 reduce gradients in the last
    micro-batch only, ZeRO 3 gathers and reduces in every micro-batch.

    Args:
        spec: model shapes (``parameters`` are gathered under ZeRO 3; ``num_layers`` sets its calls).
        cluster: the checked layout: its ``data_parallel`` replicas form the ring, with its ``zero`` stage, its
            GPU's link (``interconnect`` ``"auto"``) or the one named, and across nodes (more than
            :data:`GPUS_PER_NODE` GPUs in the job) ``nics_per_node`` x ``nic`` shared by the ``nic_share`` GPUs of a
            node in different rings (:func:`~calculators.parallel.ring_link.data_parallel_link`).
        micro_batch_compute_s: compute of one micro-batch on one GPU, seconds.
        forward_share: fraction of that compute in the forward pass, in (0, 1).
        accumulation: micro-batches per optimizer step (at least 1, checked by the caller's record).
        trainable_parameters: parameters with gradients (default: all; LoRA: the adapters).
        grad_bytes: bytes per reduced gradient (4: fp32 gradients of fp32 master weights).
        gathered_bytes_per_parameter: bytes per gathered parameter (2 for bf16; about 0.5 for NF4).

    Raises:
        InputError: an unknown link, or ``"auto"`` on a GPU with none above one GPU, naming it.
    """
    n, stage, micro, share, accum = (cluster.data_parallel, cluster.zero, micro_batch_compute_s, forward_share,
                                     accumulation)
    interconnect = cluster.interconnect
    trainable = spec.parameters if trainable_parameters is None else trainable_parameters
    compute = micro * accum
    try:
        name, link_id, bw, slowest = data_parallel_link(cluster)
    except InputError as error:
        if n > 1 or error.field != "interconnect" or str(interconnect).strip().lower() != AUTO:
            raise
        # one GPU needs no link: a GPU that has none (Apple silicon) trains alone
        return DataParallelOverhead(gpus=1, zero=stage, link_name="none", link_id="none",
                                    link_per_direction_bytes_per_s=0.0, efficiency=0.0, latency_per_step_s=0.0,
                                    collectives=(), compute_s=compute, communication_s=0.0, exposed_s=0.0)
    reduce = data_parallel_cost(cluster, "all-reduce")
    eff = reduce.efficiency
    alpha = reduce.latency_per_ring_step_s if n > 1 else latency_per_ring_step_s(slowest)
    if n == 1:
        return DataParallelOverhead(gpus=1, zero=stage, link_name=name, link_id=link_id,
                                    link_per_direction_bytes_per_s=bw, efficiency=eff, latency_per_step_s=alpha,
                                    collectives=(), compute_s=compute, communication_s=0.0, exposed_s=0.0)

    def timed(label: str, kind: str, phase: str, size: float, calls: int, repeats: int) -> CollectiveTime:
        cost = data_parallel_cost(cluster, kind)  # the timing parallel and the scored nccl-tests runs use
        return CollectiveTime(name=label, kind=kind, phase=phase, buffer_bytes=int(size), calls=calls * repeats,
                              time_s=cost.time_s(size, calls=calls) * repeats, efficiency=cost.efficiency)

    grads = trainable * grad_bytes
    buckets = max(1, math.ceil(grads / DDP_BUCKET_BYTES))
    gathered = spec.parameters * gathered_bytes_per_parameter
    layers = spec.num_layers
    if stage == 0:
        collectives = [timed("all-reduce gradients", "all-reduce", "backward", grads, buckets, 1)]
    elif stage in (1, 2):
        collectives = [timed("reduce-scatter gradients", "reduce-scatter", "backward", grads, buckets, 1),
                       timed("all-gather updated parameters", "all-gather", "after-step",
                             trainable * gathered_bytes_per_parameter, 1, 1)]
    else:
        collectives = [timed("all-gather parameters (forward)", "all-gather", "forward", gathered, layers, accum),
                       timed("all-gather parameters (backward)", "all-gather", "backward", gathered, layers, accum),
                       timed("reduce-scatter gradients", "reduce-scatter", "backward", grads, layers, accum)]
    repeats = accum if stage == 3 else 1
    windows = {"forward": share * micro * repeats, "backward": (1 - share) * micro * repeats, "after-step": 0.0}
    exposed = sum(max(0.0, sum(c.time_s for c in collectives if c.phase == phase) - windows[phase])
                  for phase in _PHASES)
    return DataParallelOverhead(gpus=n, zero=stage, link_name=name, link_id=link_id, link_per_direction_bytes_per_s=bw,
                                efficiency=eff, latency_per_step_s=alpha, collectives=tuple(collectives),
                                compute_s=compute, communication_s=sum(c.time_s for c in collectives),
                                exposed_s=exposed)


#: Global batches (tokens per optimizer step) of published pre-training runs, quoted for comparison with the
#: global batch a job assumes (``global_batch_tokens``); none is used as a default.
PUBLISHED_GLOBAL_BATCHES: tuple[tuple[str, int, Source], ...] = (
    ("Llama 2 (7B-70B)", 4 * 10**6, Source(
        "Touvron et al. 2023, 'Llama 2: Open Foundation and Fine-Tuned Chat Models', Table 1: 'All models are "
        "trained with a global batch-size of 4M tokens'", "https://arxiv.org/abs/2307.09288", "2023-07-19")),
    ("Llama 3 405B, last stage (4M, then 8M, then 16M)", 16 * 10**6, Source(
        "Llama Team, AI @ Meta 2024, 'The Llama 3 Herd of Models', section 3.4.1: an initial batch of 4M tokens, "
        "doubled to 8M after 252M tokens and to 16M after 2.87T tokens", "https://arxiv.org/abs/2407.21783",
        "2024-07-31")),
)


def global_batch_assumption(replicas: int, accumulation: int, batch: int, seq: int, *, given: bool) -> str:
    """The tokens per optimizer step, how they were chosen, and the published pre-training batches beside them."""
    tokens = replicas * accumulation * batch * seq
    published = "; ".join(f"{name}: {size / 1e6:g}M ({source.url})" for name, size, source in PUBLISHED_GLOBAL_BATCHES)
    how = ("from global_batch_tokens" if given else
           "the default: grad_accumulation micro-batches per replica, no global batch given")
    return (f"global batch {tokens:,} tokens per optimizer step = {replicas} replica{'s' if replicas > 1 else ''} x "
            f"{accumulation} micro-batch{'es' if accumulation > 1 else ''} x {batch} x {seq} tokens ({how}); the data-parallel communication is paid once per step, so a small global "
            f"batch lowers the scaling efficiency; published pre-training steps on {published} "
            "(global_batch_tokens / --global-batch-tokens)")
