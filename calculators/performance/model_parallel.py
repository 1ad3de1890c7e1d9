"""Tensor and pipeline parallelism in a training step: the all-reduces TP adds and the bubble PP leaves, seconds.

With ``tp`` tensor-parallel and ``pp`` pipeline-parallel GPUs per model replica, each GPU
runs ``1 / (tp x pp)`` of every token's FLOPs, and the step pays two costs the
replica's compute does not hide:

* **tensor parallel**: four all-reduces per layer per micro-batch (two forward, two
  backward, Megatron-LM section 3) of ``micro-batch x seq x hidden`` activations, timed
  by :func:`calculators.parallel.tensor.tensor_parallel_communication` over the GPUs' own
  link with the one link model's efficiency; each pipeline stage runs ``1 / pp`` of them;
  added to compute (assumed: not overlapped);
* **pipeline parallel**: the 1F1B schedule idles each stage for ``pp - 1`` micro-batch
  slots per step; with ``v`` interleaved stages per GPU the bubble is
  ``(pp - 1) / (v x m)`` of the ideal step, ``m`` micro-batches per step (Narayanan et al.
  2021, "Efficient Large-Scale Language Model Training on GPU Clusters Using
  Megatron-LM", section 2.2).

``stage time per micro-batch = (compute + TP all-reduces) / pp``;
``step = m x stage time x (1 + bubble)``. Point-to-point sends between stages and the
context-parallel exchanges are not modelled (small next to the above; stated).

>>> from calculators.catalog.models import get_model
>>> from calculators.parallel.cluster import Cluster
>>> cluster = Cluster.of(gpu="h100-sxm", gpus=16, tensor_parallel=4, pipeline_parallel=4, virtual_stages=20)
>>> mp = model_parallel_step(get_model("llama-2-70b"), cluster, micro_batches=32, micro_batch_tokens=4096,
...                          micro_batch_compute_s=1.0)
>>> round(mp.bubble_fraction, 4), mp.tensor_parallel is not None
(0.0047, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculators.model import ModelSpec
from calculators.parallel.cluster import Cluster
from calculators.parallel.tensor import (
    TensorParallelCommunication,
    tensor_parallel_communication,
    tensor_parallel_link,
)


@dataclass(frozen=True)
class ModelParallelStep:
    """Per-micro-batch stage time and the pipeline bubble of one replica, seconds."""

    tp: int
    pp: int
    virtual_stages: int
    micro_batches: int
    stage_s: float
    bubble_fraction: float
    tensor_parallel: TensorParallelCommunication | None

    @property
    def tensor_parallel_s(self) -> float:
        """TP all-reduce time per micro-batch on one stage, seconds."""
        return 0.0 if self.tensor_parallel is None else self.tensor_parallel.time_s / self.pp

    @property
    def step_s(self) -> float:
        """One optimizer step of the replica, seconds: ``micro-batches x stage x (1 + bubble)``."""
        return self.micro_batches * self.stage_s * (1.0 + self.bubble_fraction)

    def assumptions(self) -> tuple[str, ...]:
        """Sentences for a result's assumptions."""
        notes: tuple[str, ...] = ()
        if self.tensor_parallel is not None:
            notes += (self.tensor_parallel.assumption().replace("per pass", "per micro-batch (forward and backward)"),)
        if self.pp > 1:
            notes += (f"pipeline parallel over {self.pp} stages x {self.virtual_stages} interleaved, "
                      f"{self.micro_batches} micro-batches per step: bubble {self.bubble_fraction:.1%} of the step "
                      "(1F1B, Megatron-LM); sends between stages not modelled",)
        return notes

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"tp": self.tp, "pp": self.pp, "virtual_stages": self.virtual_stages,
                "micro_batches": self.micro_batches, "stage_s": self.stage_s,
                "tensor_parallel_s": self.tensor_parallel_s, "bubble_fraction": self.bubble_fraction,
                "tensor_parallel": None if self.tensor_parallel is None else self.tensor_parallel.to_dict()}


def model_parallel_step(spec: ModelSpec, cluster: Cluster, *, micro_batches: int, micro_batch_tokens: int,
                        micro_batch_compute_s: float, activation_bytes: int = 2) -> ModelParallelStep:
    """Stage time per micro-batch and the pipeline bubble of one model replica.

    Formula: ``stage = (compute + TP all-reduces of the whole model) / pp``;
    ``bubble = (pp - 1) / (virtual_stages x micro_batches)`` (0 when ``pp = 1``).

    Args:
        spec: model shapes.
        cluster: the checked layout: its ``tensor_parallel`` and ``pipeline_parallel`` GPUs per replica,
            ``virtual_stages`` (interleaved model chunks per GPU, Megatron's virtual pipeline), and its GPU and
            ``interconnect`` that carry the TP all-reduces.
        micro_batches: micro-batches per optimizer step on each replica (at least 1, checked by the caller).
        micro_batch_tokens: tokens in one micro-batch (sequences x seq).
        micro_batch_compute_s: compute of one micro-batch through the whole model on one
            tensor-parallel group, seconds: ``tokens x executed FLOPs / (tp x rate x utilisation)``.
        activation_bytes: bytes per activation element all-reduced.
    """
    t, p, v = cluster.tensor_parallel, cluster.pipeline_parallel, cluster.virtual_stages
    comm = None
    if t > 1:
        link = tensor_parallel_link(cluster.gpu, gpus=t, interconnect=cluster.interconnect)
        comm = tensor_parallel_communication(spec, tokens=micro_batch_tokens, gpus=t, link=link,
                                             activation_bytes=activation_bytes, backward=True)
    stage = (micro_batch_compute_s + (0.0 if comm is None else comm.time_s)) / p
    bubble = (p - 1) / (v * micro_batches) if p > 1 else 0.0
    return ModelParallelStep(tp=t, pp=p, virtual_stages=v, micro_batches=micro_batches, stage_s=stage,
                             bubble_fraction=bubble, tensor_parallel=comm)
