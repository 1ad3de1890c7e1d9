"""Expert parallelism in training: the all-to-alls that carry tokens to their experts and back, seconds.

With expert parallelism over ``EP`` GPUs each GPU holds ``1 / EP`` of every mixture-of-experts
layer's routed experts. Megatron-Core's token dispatcher (``alltoall``, and DeepEP's ``flex``)
sends every token to the GPUs of the experts it is routed to and brings the outputs back: **two
all-to-alls per MoE layer in the forward pass** (dispatch, combine) and two in the backward (the
gradients of both), two more where full recomputation runs the forward again. Each moves, per GPU,
the layer's tokens on that GPU times the experts per token times the hidden size, 16-bit
activations:

``bytes per all-to-all = T / tp x k x hidden x 2``, of which ``(EP - 1) / EP`` leave the GPU and
``(EP - E_node) / EP`` leave the node (uniform routing, assumed), where ``T`` is the micro-batch's
tokens (the tensor-parallel ranks each hold ``1 / tp`` of them, sequence parallelism) and
``E_node = min(EP, D / tp)`` the group's GPUs in one NVLink domain of ``D`` GPUs (Megatron orders ranks
tensor-, then expert-parallel, so a group fills a domain before crossing it). ``D`` is the GPU's
``nvlink_domain_gpus`` where its record states one larger than a node (72 for a GB200 NVL72 rack, whose
NVLink Switch trays join all 72 GPUs at 1.8 TB/s each: an all-to-all over up to 72 GPUs never touches
the network; NVIDIA GB200 NVL72 specifications), else the node's 8.

An all-to-all is timed by :func:`calculators.parallel.all_to_all.all_to_all_cost`, on the link model every
collective uses: NCCL's grouped send/receive pairs, its slower path setting the time (the bytes that stay in the
domain over the GPUs' own link at the link kind's efficiency, those that leave it over the node's NICs shared by its
GPUs) plus one step of NCCL's latency for the slowest transport and, across nodes, NCCL's cost of posting each
remote peer's send and receive. It is **added** to the micro-batch's compute: the tokens are needed before the experts
run. A schedule that overlaps it with another micro-batch's compute (Megatron-Core's combined 1F1B,
``--overlap-moe-expert-parallel-comm``: each all-to-all of one micro-batch runs beside the
independent forward or backward of the adjacent one, which needs an interleaved pipeline) leaves
only what that compute cannot cover exposed (:func:`exposed_all_to_all_s`, the setting
``expert_overlap``). DeepEP's deduplication of tokens sent to several experts on one remote node is
not modelled.

>>> from calculators.catalog.models import get_model
>>> from calculators.parallel.cluster import Cluster
>>> cluster = Cluster.of(gpu="h100-sxm", gpus=8, expert_parallel=8)
>>> a2a = expert_parallel_communication(get_model("qwen3-235b-a22b"), cluster, micro_batch_tokens=4096,
...                                     moe_layers=94)
>>> a2a.all_to_alls, a2a.bytes_per_all_to_all  # 4 per layer; 4096 tokens x 8 experts x 4096 x 2 bytes
(376, 268435456)
>>> a2a.inter_node_share  # eight GPUs: one node
0.0
>>> nvl72 = Cluster.of(gpu="gb200", gpus=256, expert_parallel=64, pipeline_parallel=4)
>>> expert_parallel_communication(get_model("qwen3-235b-a22b"), nvl72, micro_batch_tokens=4096,
...                               moe_layers=94).inter_node_share  # 64 GPUs in one 72-GPU NVLink domain
0.0

References:
    Megatron-Core MoE documentation (token dispatcher: alltoall, flex with DeepEP); DeepSeek-AI,
    DeepEP README (normal kernels: NVLink within a node, RDMA across); docs page "Training time".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.catalog.interconnects import get_interconnect
from calculators.model import ModelSpec
from calculators.parallel.all_to_all import all_to_all_cost
from calculators.parallel.cluster import Cluster
from calculators.parallel.collective_time import NodeSpan
from calculators.parallel.ring_link import GPUS_PER_NODE, default_interconnect

#: Megatron-Core's documentation of the combined 1F1B schedule (EP all-to-all overlap).
A2A_OVERLAP_URL = ("https://docs.nvidia.com/megatron-core/developer-guide/nightly/user-guide/features/"
                   "moe_a2a_overlap.html")
#: All-to-alls per MoE layer per micro-batch: dispatch and combine, forward and backward.
ALL_TO_ALLS_PER_LAYER = 4
#: More with full recomputation: the forward's dispatch and combine again.
RECOMPUTE_ALL_TO_ALLS_PER_LAYER = 2
#: Bytes per activation element moved (16-bit).
ACTIVATION_BYTES = 2


@dataclass(frozen=True)
class ExpertParallelCommunication:
    """The expert-parallel all-to-alls of one micro-batch on one GPU (estimate)."""

    expert_parallel: int
    all_to_alls: int
    bytes_per_all_to_all: int
    inter_node_share: float
    intra_node_share: float
    intra_link: str
    intra_bytes_per_s: float
    inter_link: str
    inter_bytes_per_s: float  # 0 where every peer is in the GPU's domain
    time_s: float
    fixed_s: float = 0.0

    def assumption(self) -> str:
        """One sentence for a result's assumptions."""
        across = (f", {self.inter_node_share:.0%} of it across nodes over {self.inter_link} "
                  f"({self.inter_bytes_per_s / 1e9:,.1f} GB/s per GPU)" if self.inter_node_share else "")
        return (f"expert parallel over {self.expert_parallel} GPUs: {self.all_to_alls} all-to-alls per micro-batch "
                f"(dispatch and combine, forward and backward, per MoE layer of the stage) of "
                f"{self.bytes_per_all_to_all:,} bytes per GPU, {self.intra_node_share:.0%} of it to other GPUs in the "
                f"node over {self.intra_link} ({self.intra_bytes_per_s / 1e9:,.0f} GB/s){across}, "
                f"{self.fixed_s * 1e6:,.3g} us fixed per all-to-all (NCCL's send/receive latency): "
                f"{self.time_s * 1e3:,.3g} ms per micro-batch, added to its compute (not overlapped; uniform routing)")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"expert_parallel": self.expert_parallel, "all_to_alls": self.all_to_alls,
                "bytes_per_all_to_all": self.bytes_per_all_to_all, "inter_node_share": self.inter_node_share,
                "intra_node_share": self.intra_node_share, "intra_link": self.intra_link,
                "inter_link": self.inter_link, "fixed_s": self.fixed_s, "time_s": self.time_s}


def expert_parallel_communication(spec: ModelSpec, cluster: Cluster, *, micro_batch_tokens: int, moe_layers: int,
                                  grad_checkpointing: bool = False) -> ExpertParallelCommunication:
    """The all-to-alls of one micro-batch on one GPU (module docstring).

    Args:
        spec: a mixture-of-experts model (``spec.moe``; a dense model is refused expert parallelism by
            :meth:`calculators.performance.training_run.TrainingRun.of`).
        cluster: the checked layout: its ``expert_parallel`` GPUs the experts are split over, the
            ``tensor_parallel`` GPUs that split the micro-batch's tokens, its GPU (whose own link carries the
            traffic within a node) and the network between nodes (``nic``, ``nics_per_node``).
        micro_batch_tokens: tokens of the micro-batch (sequences x sequence length).
        moe_layers: MoE layers on this GPU (the model's, divided by the pipeline stages).
        grad_checkpointing: full recomputation (the forward's all-to-alls run twice).
    """
    ep, tp = cluster.expert_parallel, cluster.tensor_parallel
    per_layer = ALL_TO_ALLS_PER_LAYER + (RECOMPUTE_ALL_TO_ALLS_PER_LAYER if grad_checkpointing else 0)
    count = per_layer * moe_layers if ep > 1 and spec.moe is not None else 0
    size = (micro_batch_tokens // tp) * (spec.moe.experts_per_token if spec.moe else 0) * spec.hidden_size \
        * ACTIVATION_BYTES
    in_node = min(ep, max(1, scale_up_domain_gpus(cluster.gpu) // tp))
    gpu = cluster.gpu
    link = default_interconnect(gpu, gpus=in_node) if in_node > 1 else default_interconnect(gpu, gpus=2)
    network = get_interconnect(cluster.nic)
    nodes = -(-ep // in_node)
    cost = (all_to_all_cost(gpus=ep, link=link) if nodes == 1 else
            all_to_all_cost(gpus=ep, link=network, span=NodeSpan(nodes, link, cluster.nics_per_node, GPUS_PER_NODE)))
    return ExpertParallelCommunication(
        expert_parallel=ep, all_to_alls=count, bytes_per_all_to_all=size, inter_node_share=cost.inter_share,
        intra_node_share=cost.intra_share, intra_link=link.name, intra_bytes_per_s=cost.intra_bytes_per_s,
        inter_link=network.name, inter_bytes_per_s=cost.inter_bytes_per_s,
        time_s=cost.time_s(size, calls=count) if count else 0.0, fixed_s=cost.fixed_s)


def scale_up_domain_gpus(gpu: GPU) -> int:
    """GPUs one all-to-all reaches over NVLink: the record's ``nvlink_domain_gpus`` where above a node's, else 8.

    >>> from calculators.catalog.gpus import get_gpu
    >>> scale_up_domain_gpus(get_gpu("gb200")), scale_up_domain_gpus(get_gpu("h100-sxm"))
    (72, 8)
    """
    return max(GPUS_PER_NODE, gpu.nvlink_domain_gpus or 0)


def exposed_all_to_all_s(a2a: ExpertParallelCommunication | None, compute_s: float, *, overlap: bool) -> float:
    """The all-to-all time a micro-batch adds to its compute, seconds.

    Formula: ``a2a`` without overlap; with it (Megatron-Core's combined 1F1B, :data:`A2A_OVERLAP_URL`: the
    dispatch and combine of one micro-batch run beside the independent compute of the adjacent one)
    ``max(0, a2a - compute)``, the part the adjacent micro-batch's ``compute_s`` (the same size) cannot
    cover. 0 without expert parallelism.

    >>> from calculators.catalog.models import get_model
    >>> cluster = Cluster.of(gpu="h100-sxm", gpus=8, expert_parallel=8)
    >>> a2a = expert_parallel_communication(get_model("qwen3-235b-a22b"), cluster, micro_batch_tokens=4096,
    ...                                     moe_layers=94)
    >>> exposed_all_to_all_s(a2a, 1.0, overlap=False) == a2a.time_s
    True
    >>> exposed_all_to_all_s(a2a, a2a.time_s / 2, overlap=True) == a2a.time_s / 2
    True
    >>> exposed_all_to_all_s(a2a, 10 * a2a.time_s, overlap=True)
    0.0
    """
    if a2a is None:
        return 0.0
    return max(0.0, a2a.time_s - compute_s) if overlap else a2a.time_s


def sharded_gradient_parameters(spec: ModelSpec, *, tp: int, pp: int, ep: int) -> int:
    """Parameters whose gradients one GPU holds: ``parameters / (tp x pp)``, and with expert parallelism the routed
    experts ``/ (ep x pp)`` instead (their weights are split over the expert-parallel GPUs, not the tensor ones).

    >>> from calculators.catalog.models import get_model
    >>> spec = get_model("qwen3-30b-a3b")
    >>> sharded_gradient_parameters(spec, tp=1, pp=1, ep=8) < sharded_gradient_parameters(spec, tp=1, pp=1, ep=1)
    True
    """
    if ep == 1 or spec.moe is None:
        return spec.parameters // (tp * pp)
    experts = spec.num_moe_layers * spec.moe.num_experts * spec.mlp_parameters(spec.moe.expert_intermediate_size)
    return (spec.parameters - experts) // (tp * pp) + experts // (ep * pp)


__all__ = ["A2A_OVERLAP_URL", "ALL_TO_ALLS_PER_LAYER", "ExpertParallelCommunication", "RECOMPUTE_ALL_TO_ALLS_PER_LAYER",
           "expert_parallel_communication", "exposed_all_to_all_s", "scale_up_domain_gpus",
           "sharded_gradient_parameters"]
