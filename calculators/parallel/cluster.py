"""The GPUs of one training job and how the model is split over them, checked once: a :class:`Cluster`.

A job runs on ``gpus`` GPUs of one kind. Each model replica spans ``tp x pp`` of them (tensor and
pipeline parallel, Megatron-LM), so ``gpus / (tp x pp)`` replicas train in data parallel with the
ZeRO stage ``zero`` (0: DDP, 3: FSDP full shard); a mixture of experts' routed experts are split
over ``expert_parallel`` GPUs of a pipeline stage. The GPUs of a node talk over ``interconnect``
(``"auto"``: the GPU's own link), the nodes over ``nics_per_node`` network cards ``nic``.

:meth:`Cluster.of` reads the GPU once (:func:`calculators.inputs.gpu.resolve_gpu`: an id, a
``custom:``/``mac:`` description or a record) and checks every count, naming the field and its
range; the engine functions that take a :class:`Cluster`
(:func:`~calculators.performance.scaling.data_parallel_overhead`,
:func:`~calculators.performance.model_parallel.model_parallel_step`,
:func:`~calculators.performance.expert_parallel.expert_parallel_communication`,
:func:`~calculators.parallel.step.step_communication_of`) trust it. The links are looked up where
they are used (:mod:`calculators.parallel.ring_link`), which refuses an unknown id by name. The shape of a
node is assumed: :data:`GPUS_PER_NODE` GPUs, :data:`NICS_PER_NODE` NICs of :data:`CROSS_NODE_NIC` (NVIDIA's
DGX H100 reference design).

>>> cluster = Cluster.of(gpu="h100-sxm", gpus=64, tensor_parallel=4, pipeline_parallel=2, zero=1)
>>> cluster.gpu.name, cluster.data_parallel, cluster.cross_node
('H100 SXM 80GB', 8, True)
>>> Cluster.of(gpu="h100-sxm", gpus=6, tensor_parallel=4)
Traceback (most recent call last):
...
calculators.errors.InputError: gpus: got 6; expected a multiple of the GPUs per model replica, tp x pp = 4
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.catalog.interconnects import get_interconnect
from calculators.errors import InputError, UnknownNameError
from calculators.inputs.gpu import resolve_gpu
from calculators.memory.training_inputs import MAX_GPUS, ZERO_STAGES
from calculators.validate import AUTO, positive_int

#: GPUs in one node; larger jobs cross nodes (assumed: the HGX/DGX eight-GPU node).
GPUS_PER_NODE = 8
#: NIC across nodes when ``interconnect="auto"`` (assumed: DGX H100 has eight ConnectX-7 NDR ports).
CROSS_NODE_NIC = "ib-ndr"
#: NICs per node across nodes (assumed: one per GPU, as in DGX/HGX nodes).
NICS_PER_NODE = 8

#: Tensor-parallel, pipeline-parallel and interleaved (virtual) stages above this are refused (a typo guard).
MAX_STAGES = 1024
#: Network cards per node above this are refused.
MAX_NICS_PER_NODE = 64

#: The keywords :meth:`Cluster.of` takes and their defaults (``gpu`` has none).
CLUSTER_DEFAULTS: dict[str, Any] = {
    "gpus": 1, "zero": 0, "tensor_parallel": 1, "pipeline_parallel": 1, "virtual_stages": 1,
    "expert_parallel": 1, "interconnect": AUTO, "nic": CROSS_NODE_NIC, "nics_per_node": NICS_PER_NODE,
}


@dataclass(frozen=True)
class Cluster:
    """A training job's GPUs and their parallel layout, checked (see the module docstring).

    Attributes:
        gpu: the GPU record every GPU of the job is.
        gpus: GPUs in the job, a multiple of ``tensor_parallel x pipeline_parallel``.
        zero: ZeRO stage 0-3 of the data-parallel replicas.
        tensor_parallel, pipeline_parallel, virtual_stages: Megatron-style model parallelism.
        expert_parallel: GPUs the routed experts are split over, a divisor of ``gpus / pipeline_parallel``.
        interconnect: a catalog link id within a node, or ``"auto"`` (the GPU's own link: resolved where it is
            used, with the GPU count the link serves).
        nic, nics_per_node: the network between nodes (``nic`` a catalog link id, checked whether the job crosses
            nodes or not).
    """

    gpu: GPU
    gpus: int = 1
    zero: int = 0
    tensor_parallel: int = 1
    pipeline_parallel: int = 1
    virtual_stages: int = 1
    expert_parallel: int = 1
    interconnect: str = AUTO
    nic: str = CROSS_NODE_NIC
    nics_per_node: int = NICS_PER_NODE

    @classmethod
    def of(cls, *, gpu: str | GPU, **raw: Any) -> Cluster:
        """Read ``gpu`` once and check every count of :data:`CLUSTER_DEFAULTS`.

        Raises:
            InputError: a count out of range or a layout that does not divide the GPUs, naming the field;
                an unknown keyword, naming it.
            UnknownNameError: an unknown GPU, link (``interconnect``) or NIC id.
        """
        for key in raw:
            if key not in CLUSTER_DEFAULTS:
                raise InputError(key, raw[key], f"a cluster setting: gpu, {', '.join(CLUSTER_DEFAULTS)}")
        values = {**CLUSTER_DEFAULTS, **raw}
        record = resolve_gpu(gpu)
        gpus = positive_int("gpus", values["gpus"], maximum=MAX_GPUS)
        tp = positive_int("tensor_parallel", values["tensor_parallel"], maximum=MAX_STAGES)
        pp = positive_int("pipeline_parallel", values["pipeline_parallel"], maximum=MAX_STAGES)
        stages = positive_int("virtual_stages", values["virtual_stages"], maximum=MAX_STAGES)
        if gpus % (tp * pp):
            raise InputError("gpus", gpus, f"a multiple of the GPUs per model replica, tp x pp = {tp * pp}")
        ep = positive_int("expert_parallel", values["expert_parallel"], maximum=MAX_GPUS)
        if (gpus // pp) % ep:
            raise InputError("expert_parallel", ep, f"a divisor of the GPUs per pipeline stage, gpus / pp = {gpus // pp}")
        zero = positive_int("zero", values["zero"], minimum=min(ZERO_STAGES), maximum=max(ZERO_STAGES))
        nics = positive_int("nics_per_node", values["nics_per_node"], maximum=MAX_NICS_PER_NODE)
        try:
            nic = get_interconnect(values["nic"]).id
        except UnknownNameError as error:
            raise UnknownNameError("nic", str(values["nic"]), error.choices) from None
        link = str(values["interconnect"]).strip().lower()
        if link != AUTO:
            link = get_interconnect(link).id
        return cls(gpu=record, gpus=gpus, zero=zero, tensor_parallel=tp, pipeline_parallel=pp, virtual_stages=stages,
                   expert_parallel=ep, interconnect=link, nic=nic, nics_per_node=nics)

    @property
    def shards(self) -> int:
        """GPUs per model replica: ``tensor_parallel x pipeline_parallel``."""
        return self.tensor_parallel * self.pipeline_parallel

    @property
    def data_parallel(self) -> int:
        """Model replicas training in data parallel: ``gpus / (tp x pp)``."""
        return self.gpus // self.shards

    @property
    def cross_node(self) -> bool:
        """True when the job spans more than one node of :data:`GPUS_PER_NODE` GPUs."""
        return self.gpus > GPUS_PER_NODE

    @property
    def nic_share(self) -> int:
        """GPUs of a node in different data-parallel rings, sharing its NICs: ``min(tp x pp, GPUs per node)``."""
        return min(self.shards, GPUS_PER_NODE)


__all__ = ["CLUSTER_DEFAULTS", "CROSS_NODE_NIC", "Cluster", "GPUS_PER_NODE", "MAX_NICS_PER_NODE", "MAX_STAGES",
           "NICS_PER_NODE"]
