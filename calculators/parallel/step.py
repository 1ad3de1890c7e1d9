"""Communication time of one data-parallel training step, per ZeRO stage, against its compute time.

What each GPU sends per optimizer step, with ``P`` trainable parameters (the ZeRO paper's
communication analysis, Rajbhandari et al. 2020, section 7):

* **DDP (ZeRO 0)**: one all-reduce of the gradients, ``P x grad_bytes``, during backward.
* **ZeRO-1 and ZeRO-2**: a reduce-scatter of the gradients during backward, then an
  all-gather of the updated parameters (``P x param_bytes``) after the optimizer step.
* **ZeRO-3 / FSDP full shard**: an all-gather of the parameters in forward, another in
  backward, and a reduce-scatter of the gradients in backward (1.5 times DDP's volume).

Each collective is timed with :func:`calculators.parallel.ring_link.data_parallel_cost`
(:func:`calculators.parallel.collective_time.collective_cost`, the timing the published nccl-tests runs are
scored with): a ring over the link's per-direction bandwidth, NCCL's latency model across nodes and its
NVLSTree for an all-reduce over two NVLink SHARP nodes. Compute per GPU is ``training FLOPs per token x
tokens / (peak dense BF16 FLOP/s x utilisation) + host time``: the FLOPs of
:func:`calculators.model_flops.training_flops_per_token` (``6 x`` matmul parameters plus
attention) at the utilisation fitted on published runs
(:func:`calculators.catalog.utilisation.predicted_utilisation`, at the micro-batch's tokens)
unless ``mfu`` is given: the compute ``train-time``
(:func:`calculators.performance.training_time.training_time`) times for the same job. Its
forward share is the forward pass's FLOPs over the executed ones (one third without
recomputation: 2 of 6 per parameter, 4 of 12 for attention).

Overlap (assumption, stated in every result): a collective can hide behind the compute
of its own phase only: forward gathers behind forward compute, gradient reductions and
backward gathers behind backward compute; the ZeRO-1/2 parameter all-gather after the
optimizer step hides behind nothing. Exposed time is ``sum over phases of max(0,
communication - compute)``. The interconnect is *the bottleneck* when communication
exceeds compute: then no amount of overlap can hide it.

>>> from calculators.catalog.models import get_model
>>> result = step_communication(get_model("llama-3-8b"), gpu="h100-sxm", gpus=8, zero=0,
...                             interconnect="pcie5", batch=1, seq=4096)
>>> result.collectives[0].kind, round(result.collectives[0].buffer_bytes / 2**30, 1)  # fp32 gradients
('all-reduce', 29.9)
>>> round(result.communication_s, 2), round(result.compute_s, 2), result.interconnect_bound
(1.23, 0.52, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from calculators.catalog.attention_kernels import get_attention_kernel, step_compute_s
from calculators.catalog.interconnects import BRIDGE_BY_GPU
from calculators.catalog.utilisation import host_overhead_s, predicted_utilisation
from calculators.dtypes import DType
from calculators.fit import FitVerdict, fit_verdict
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import training_memory_of
from calculators.memory.kernels import layer_attention_path
from calculators.memory.training_inputs import TrainingSetup
from calculators.model import ModelSpec
from calculators.model_flops import (
    forward_flops_per_token,
    linear_flops_share,
    runs_unfused,
    training_flops_per_token,
    unfused_bytes_per_flop,
)
from calculators.parallel.collective_time import CollectiveCost
from calculators.parallel.links import latency_per_ring_step_s
from calculators.parallel.cluster import Cluster
from calculators.parallel.ring_link import GPUS_PER_NODE  # noqa: F401 - named in the docstrings
from calculators.parallel.ring_link import data_parallel_cost, data_parallel_link
from calculators.parallel.ring_link import default_interconnect as default_interconnect
from calculators.parallel.step_record import COMM_DTYPES as COMM_DTYPES
from calculators.parallel.step_record import STEP_DEFAULTS as STEP_DEFAULTS
from calculators.parallel.step_record import DataParallelStep as DataParallelStep
from calculators.validate import model_spec, settings_signature

#: ``interconnect`` value that picks the GPU's own link (NVLink/Infinity Fabric, else its PCIe).
AUTO = "auto"
#: PyTorch DDP's default gradient bucket (``bucket_cap_mb=25``): one all-reduce per bucket.
DDP_BUCKET_BYTES = 25 * 2**20

_PHASES = ("forward", "backward", "after-step")


@dataclass(frozen=True)
class CollectiveTime:
    """One collective of the step: what moves, in which phase, and how long it takes."""

    name: str
    kind: str
    phase: str
    buffer_bytes: int
    calls: int
    time_s: float
    efficiency: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"name": self.name, "kind": self.kind, "phase": self.phase, "buffer_bytes": self.buffer_bytes,
                "calls": self.calls, "time_s": self.time_s, "efficiency": self.efficiency}


@dataclass(frozen=True)
class StepCommunication:
    """Communication and compute of one data-parallel step on one GPU, in seconds.

    ``compute_s`` and every ``time_s`` are estimates at the stated utilisation (``mfu``;
    ``mfu_given`` False: fitted on published runs, as ``train-time``) and collective
    efficiency; with both set to 1 they become lower bounds.
    """

    model: str
    gpu: str
    gpus: int
    zero: int
    interconnect: str
    interconnect_name: str
    link_per_direction_bytes_per_s: float
    efficiency: float
    latency_s: float
    mfu: float
    trainable_parameters: int
    tokens_per_gpu: int
    flop_per_gpu: float
    compute_s: float
    collectives: tuple[CollectiveTime, ...]
    communication_s: float
    exposed_communication_s: float
    memory: MemoryEstimate
    assumptions: tuple[str, ...]
    notes: tuple[str, ...] = ()
    memory_verdict: FitVerdict | None = None
    mfu_given: bool = False

    @property
    def comm_to_compute(self) -> float:
        """Communication time / compute time (above 1: the interconnect is the bottleneck)."""
        return self.communication_s / self.compute_s if self.compute_s else math.inf

    @property
    def interconnect_bound(self) -> bool:
        """True when communication takes longer than compute, so overlap cannot hide it."""
        return self.communication_s > self.compute_s

    @property
    def step_s(self) -> float:
        """Step time with the stated overlap: compute plus the exposed communication."""
        return self.compute_s + self.exposed_communication_s

    @property
    def step_no_overlap_s(self) -> float:
        """Step time with no overlap at all: compute plus all communication."""
        return self.compute_s + self.communication_s

    @property
    def scaling_efficiency(self) -> float:
        """Compute time / step time with overlap: 1 means communication is fully hidden."""
        return self.compute_s / self.step_s if self.step_s else 1.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (seconds, bytes, bytes/s)."""
        return {
            "model": self.model, "gpu": self.gpu, "gpus": self.gpus, "zero": self.zero,
            "interconnect": self.interconnect, "interconnect_name": self.interconnect_name,
            "link_per_direction_bytes_per_s": self.link_per_direction_bytes_per_s,
            "efficiency": self.efficiency, "latency_s": self.latency_s, "mfu": self.mfu,
            "mfu_basis": "given" if self.mfu_given else "fitted",
            "trainable_parameters": self.trainable_parameters, "tokens_per_gpu": self.tokens_per_gpu,
            "flop_per_gpu": self.flop_per_gpu, "compute_s": self.compute_s,
            "collectives": [c.to_dict() for c in self.collectives],
            "communication_s": self.communication_s, "exposed_communication_s": self.exposed_communication_s,
            "step_s": self.step_s, "step_no_overlap_s": self.step_no_overlap_s,
            "comm_to_compute": self.comm_to_compute, "interconnect_bound": self.interconnect_bound,
            "scaling_efficiency": self.scaling_efficiency,
            "memory_per_gpu_total_bytes": self.memory.total_bytes,
            "memory_per_gpu_peak_allocated_bytes": self.memory.peak_allocated_bytes,
            "memory": None if self.memory_verdict is None else self.memory_verdict.to_dict(),
            "assumptions": list(self.assumptions), "notes": list(self.notes),
        }


@settings_signature(STEP_DEFAULTS, leading=("spec",), records=(DataParallelStep, TrainingSetup, Cluster),
                    types={"gpu": "str | GPU"})
def step_communication(spec: ModelSpec, **settings: Any) -> StepCommunication:
    """Communication time of one full-fine-tuning data-parallel step versus its compute time, seconds.

    Formula: see the module docstring; ``communication = sum of ring collective times``,
    ``compute = training_flops_per_token(seq) x batch x seq / (bf16 dense FLOP/s x utilisation) + host time``
    (:func:`calculators.catalog.utilisation.host_overhead_s`, the Python forward of every layer).

    Assumptions: one micro-batch per optimizer step (no gradient accumulation); every
    GPU is in one ring whose slowest link is ``interconnect``; gradients are reduced in
    ``grad_dtype`` (PyTorch DDP reduces fp32 gradients of fp32 master weights unless a
    compression hook is set); ZeRO gathers parameters in ``param_dtype``.

    The settings (:data:`STEP_DEFAULTS`) are checked once as a :class:`DataParallelStep`
    (:meth:`DataParallelStep.of`, which reads ``gpu`` once); :func:`step_communication_of` times the record.

    Args:
        spec: model shapes; every parameter trains.
        gpu: GPU id or record (its dense BF16 rate sets compute; its link is the default).
        gpus: data-parallel GPUs.
        zero: ZeRO stage 0 (DDP), 1, 2 or 3 (FSDP full shard).
        interconnect: link id from :mod:`calculators.catalog.interconnects` (every hop of the ring), or
            ``"auto"``: the GPU's own link within a node; above :data:`GPUS_PER_NODE` GPUs, the ring
            crosses nodes over ``nics_per_node`` x ``nic`` (:func:`calculators.parallel.ring_link.data_parallel_link`,
            the ring ``train-time`` times).
        batch: micro-batch per GPU, sequences.
        seq: sequence length, tokens.
        mfu: fraction of the dense BF16 rate the step's FLOPs reach, in (0, 1]; ``None`` takes the
            utilisation fitted on published runs for this GPU at ``batch x seq`` tokens per micro-batch
            (:func:`calculators.catalog.utilisation.predicted_utilisation`), the one ``train-time`` uses.
        efficiency: fraction of per-direction link bandwidth the collectives reach (their busbw, whatever the
            algorithm); ``None`` takes the one link model's value per collective
            (:func:`calculators.parallel.collective_time.collective_cost`), as ``train-time`` and
            ``speed`` do.
        latency_s: fixed cost per ring step, seconds (a collective pays it ``ring steps`` times); ``None`` takes
            the model's: the link's measured value in a node
            (:func:`calculators.parallel.links.latency_per_ring_step_s`), NCCL's own model across nodes.
        grad_dtype: dtype of reduced gradients: fp32, bf16 or fp16.
        param_dtype: dtype of gathered parameters (ZeRO 1-3): fp32, bf16 or fp16.
        overlap: let collectives hide behind their phase's compute.
        precision: passed to :func:`calculators.memory.training.training_memory` for the
            per-GPU memory shown beside the times.
        nic, nics_per_node: the network between nodes (``"auto"`` above one node only).
        grad_checkpointing: full activation recomputation: one more forward per step (executed
            FLOPs), its fitted utilisation factor, and the memory it saves, as ``train-time`` counts them.
        framework: the training framework group, ``"pytorch"`` (default) or ``"megatron"``
            (:mod:`calculators.catalog.training_frameworks`): its fitted utilisation factor, as ``train-time``.

    Returns:
        A :class:`StepCommunication`.

    Raises:
        InputError: an input is out of range, or the GPU has no published BF16 rate.
    """
    return step_communication_of(model_spec("spec", spec), DataParallelStep.of(**settings))


def step_communication_of(spec: ModelSpec, step: DataParallelStep) -> StepCommunication:
    """The engine of :func:`step_communication`: a checked :class:`DataParallelStep` of ``spec``, timed.

    >>> from calculators.catalog.models import get_model
    >>> step = DataParallelStep.of(gpu="h100-sxm", gpus=8, zero=3, interconnect="pcie5", seq=4096)
    >>> step_communication_of(get_model("llama-3-8b"), step).collectives[0].name
    'all-gather parameters (forward)'
    """
    cluster, setup = step.cluster, step.setup
    record, n, stage, b, s = cluster.gpu, cluster.gpus, cluster.zero, setup.batch, setup.seq
    recompute = setup.grad_checkpointing
    given_mfu = step.mfu is not None
    # the same unfused elementwise traffic train-time adds for a PyTorch-family run (no fused_kernels setting here)
    unfused = unfused_bytes_per_flop(spec, seq=s, grad_checkpointing=recompute) if runs_unfused(step.framework) else 0.0
    utilisation = (step.mfu if step.mfu is not None
                   else predicted_utilisation(record, micro_batch_tokens=b * s,
                                              checkpointing="full" if recompute else "none",
                                              framework=step.framework, unfused_bytes_per_flop=unfused))
    given_eff, given_alpha = step.efficiency, step.latency_s
    grad_dtype, param_dtype = step.grad_dtype, step.param_dtype
    grad_bytes = int(DType.parse(grad_dtype).bytes_per_element)
    param_bytes = int(DType.parse(param_dtype).bytes_per_element)
    hide, link_key, nics_per_node = step.overlap, cluster.interconnect, cluster.nics_per_node
    # The ring train-time times: the GPUs' own link in a node, NICs across nodes (calculators.parallel.ring_link).
    ring_name, ring_id, bw, link = data_parallel_link(cluster)
    assert record.bf16_dense_flop_per_s is not None  # refused by DataParallelStep.of
    costs: dict[str, CollectiveCost] = {}

    def cost_of(kind: str) -> CollectiveCost:
        if kind not in costs:
            costs[kind] = data_parallel_cost(cluster, kind, efficiency=given_eff, latency_per_step_s=given_alpha)
        return costs[kind]

    primary = cost_of("all-reduce" if stage == 0 else "reduce-scatter")
    eff = primary.efficiency
    alpha = (given_alpha if given_alpha is not None
             else primary.latency_per_ring_step_s if n > 1 else latency_per_ring_step_s(link))

    params = spec.parameters
    tokens = b * s
    per_token = training_flops_per_token(spec, seq=s, grad_checkpointing=recompute)
    flop = per_token * tokens
    forward_share = forward_flops_per_token(spec, seq=s) / per_token
    host_s = host_overhead_s(spec, grad_checkpointing=recompute)
    # the attention products at their fused kernel's efficiency, as train-time times them (the framework's kernel)
    scores = layer_attention_path(spec, attention=setup.attention, compute_bytes=setup.compute_bytes, seq=s)
    kernel = None if scores.materialises_scores else get_attention_kernel("auto", framework=step.framework)
    compute_s = step_compute_s(tokens=tokens, flops_per_token=per_token, rate_flop_per_s=record.bf16_dense_flop_per_s,
                               linear_share=linear_flops_share(spec, seq=s, grad_checkpointing=recompute),
                               utilisation=utilisation, kernel=kernel, compute_capability=record.compute_capability) + host_s
    grads = params * grad_bytes
    gathered = params * param_bytes
    grad_calls = max(1, math.ceil(grads / DDP_BUCKET_BYTES))
    layer_calls = spec.num_layers

    def timed(name: str, kind: str, phase: str, size: int, calls: int) -> CollectiveTime:
        cost = cost_of(kind)  # one GPU: no collective, no time
        return CollectiveTime(name=name, kind=kind, phase=phase, buffer_bytes=size, calls=calls,
                              time_s=cost.time_s(size, calls=calls), efficiency=cost.efficiency)

    if stage == 0:
        collectives = [timed("all-reduce gradients", "all-reduce", "backward", grads, grad_calls)]
    elif stage in (1, 2):
        collectives = [timed("reduce-scatter gradients", "reduce-scatter", "backward", grads, grad_calls),
                       timed("all-gather updated parameters", "all-gather", "after-step", gathered, 1)]
    else:
        collectives = [timed("all-gather parameters (forward)", "all-gather", "forward", gathered, layer_calls),
                       timed("all-gather parameters (backward)", "all-gather", "backward", gathered, layer_calls),
                       timed("reduce-scatter gradients", "reduce-scatter", "backward", grads, layer_calls)]
    if n == 1:
        collectives = []
    communication = sum(c.time_s for c in collectives)
    windows = {"forward": forward_share * compute_s, "backward": (1 - forward_share) * compute_s,
               "after-step": 0.0}
    if hide:
        exposed = sum(max(0.0, sum(c.time_s for c in collectives if c.phase == phase) - windows[phase])
                      for phase in _PHASES)
    else:
        exposed = communication

    memory = training_memory_of(spec, setup)
    assumptions = (
        f"{n} GPUs in one ring over {ring_name}: {bw / 1e9:g} GB/s per direction per GPU "
        + (f"({link.bandwidth_bytes_per_s / 1e9:g} GB/s {link.direction}, {link.source.title})" if ring_id == link.id
           else f"(min(intra-node link, {nics_per_node} x {link.per_direction_bytes_per_s / 1e9:g} GB/s per node); "
                f"NCCL's latency model across nodes, as train-time"
                + ("; the all-reduce as NCCL's NVLSTree over two NVLink SHARP nodes" if any(
                    cost.algorithm == "nvls-tree" for cost in costs.values()) else "") + ")"),
        ("collective efficiency " + ", ".join(sorted({f"{c.kind} {c.efficiency:.3g}" for c in collectives}) or
                                              {f"{eff:.3g}"}) + " of per-direction bandwidth "
         + ("(given)" if given_eff is not None else "(derived per link kind and checked against published nccl-tests runs, "
            "calculators.parallel.links)")
         + f" and {alpha * 1e6:.3g} us per ring step " + (
             "(given)" if given_alpha is not None else "(NCCL's own latency model across nodes, spread over the "
             "ring's steps, calculators.parallel.latency)" if link.kind in ("infiniband", "ethernet")
             else "(derived from published small-message runs)")),
        f"compute = {per_token / 1e9:,.2f} GFLOP per token (6 x matmul parameters + attention over {s:,} "
        f"tokens{', plus one recomputed forward' if recompute else ''}, training_flops_per_token) x {tokens:,} tokens per GPU at utilisation {utilisation:.3g} of "
        f"{record.bf16_dense_flop_per_s / 1e12:g} dense BF16 TFLOP/s "
        + ("(given)" if given_mfu else "(fitted on published runs for this GPU at this micro-batch, "
           "calculators.catalog.utilisation: the compute train-time times for the same job)")
        + f", plus {host_s * 1e3:,.1f} ms of host time (the Python forward of every layer, host_overhead_s)",
        f"gradients reduced in {grad_dtype}, parameters gathered in {param_dtype}; one micro-batch per step",
        (f"overlap: each collective hides behind the compute of its own phase (forward {forward_share:.2f}, "
         f"backward {1 - forward_share:.2f} of compute); the ZeRO-1/2 parameter all-gather after the optimizer step is exposed")
        if hide else "no overlap: communication adds to compute",
    )
    notes: list[str] = list(link.notes)
    if link.pair_only and n > 2:
        notes.append("A bridge joins GPUs in pairs only: a ring over more than two GPUs also crosses PCIe, "
                     "so its slowest link is PCIe, not the bridge.")
    elif record.id in BRIDGE_BY_GPU and link_key == AUTO and n > 2:
        notes.append("This GPU's NVLink bridge joins pairs only; a ring over more than two GPUs runs at PCIe speed.")
    if link.kind in ("infiniband", "ethernet") and ring_id == link.id:
        notes.append("A network link timed as every hop of the ring: a bound for one GPU per node. With NVLink "
                     "inside each node, a ring across nodes sees min(intra-node, NICs per node x NIC) per GPU "
                     "(calculators.parallel.collectives.multi_node_ring_bytes_per_s).")
    return StepCommunication(
        model=spec.name, gpu=record.name, gpus=n, zero=stage, interconnect=ring_id, interconnect_name=ring_name,
        link_per_direction_bytes_per_s=bw, efficiency=eff, latency_s=alpha, mfu=utilisation,
        trainable_parameters=params, tokens_per_gpu=tokens, flop_per_gpu=flop, compute_s=compute_s,
        collectives=tuple(collectives), communication_s=communication, exposed_communication_s=exposed,
        memory=memory, memory_verdict=fit_verdict(memory, record), assumptions=assumptions, notes=tuple(notes),
        mfu_given=given_mfu,
    )
