"""The ring a data-parallel job's collectives run on: which link, how fast per GPU, and how each is timed.

Within a node the ring runs on the GPUs' own link (:func:`default_interconnect`: NVLink or
Infinity Fabric, a pair-only bridge for two GPUs, else PCIe staged through host memory). Above :data:`GPUS_PER_NODE`
GPUs it crosses nodes: its per-GPU bandwidth is ``min(intra-node link, NICs per node x NIC)``
(:func:`~calculators.parallel.collectives.multi_node_ring_bytes_per_s`; default eight 400 Gb/s
InfiniBand NDR NICs per node, as in NVIDIA's DGX H100 reference design: assumed), the NIC is
the link whose efficiency applies, and each collective is timed by
:func:`calculators.parallel.collective_time.collective_cost` (:func:`data_parallel_cost`), the timing the
published nccl-tests runs are scored with: NCCL's own latency model across nodes, and its NVLSTree for an
all-reduce over two NVLink SHARP nodes.

Both faces that time data-parallel communication, ``parallel``
(:func:`calculators.parallel.step.step_communication`) and ``train-time``
(:func:`calculators.performance.scaling.data_parallel_overhead`), choose their ring here, so
they time one ring for one job.

>>> from calculators.parallel.cluster import Cluster
>>> data_parallel_link(Cluster.of(gpu="h100-sxm", gpus=8))[1], data_parallel_link(Cluster.of(gpu="h100-sxm", gpus=64))[1]
('nvlink4', 'nvlink4+ib-ndr')

References:
    NVIDIA DGX H100 user guide (eight ConnectX-7 ports per node); the sources of
    :mod:`calculators.parallel.collective_time`.
"""

from __future__ import annotations

import math

from calculators.catalog.gpus import GPU, get_gpu  # noqa: F401 - get_gpu is used by the doctests
from calculators.catalog.interconnects import (
    BRIDGE_BY_GPU,
    LINK_BY_GPU,
    NVLINK_BY_GENERATION,
    PCIE_HOST_BY_GENERATION,
    Interconnect,
    get_interconnect,
    interconnect_ids,
)
from calculators.errors import InputError
# The node's assumed shape (GPUs, NICs) is the cluster record's; this module times the ring on it.
from calculators.parallel.cluster import CROSS_NODE_NIC as CROSS_NODE_NIC
from calculators.parallel.cluster import GPUS_PER_NODE as GPUS_PER_NODE
from calculators.parallel.cluster import NICS_PER_NODE as NICS_PER_NODE
from calculators.parallel.cluster import Cluster
from calculators.parallel.collective_time import CollectiveCost, NodeSpan, collective_cost
from calculators.parallel.collectives import multi_node_ring_bytes_per_s
from calculators.validate import AUTO, GPU_RECORD, instance_of


def default_interconnect(gpu: GPU, *, gpus: int = 8) -> Interconnect:
    """The link a ring over ``gpus`` of these GPUs runs on when none is chosen.

    The GPU's own scale-up link where :data:`~calculators.catalog.interconnects.LINK_BY_GPU` names one (a GB200
    NVL72 domain, an AMD platform's Infinity Fabric), else the NVLink generation named in the record; a pair-only
    bridge (RTX A6000, H100 PCIe) only for two GPUs; otherwise the GPU's PCIe generation,
    staged through host memory: NCCL's path between PCIe GPUs unless they share a PCIe
    switch on an Intel host or sit on an AMD one (NCCL src/graph/paths.cc, default P2P level),
    and the only path for GeForce cards, whose stock driver has no peer-to-peer (assumed: the
    host is not known; name ``pcie4`` etc. for a peer-to-peer path).

    >>> default_interconnect(get_gpu("h100-sxm")).id, default_interconnect(get_gpu("rtx-4090")).id
    ('nvlink4', 'pcie4-host')
    """
    gpu = instance_of("gpu", gpu, GPU, GPU_RECORD)
    text = gpu.interconnect or ""
    if gpu.id in BRIDGE_BY_GPU:
        if gpus <= 2:
            return get_interconnect(BRIDGE_BY_GPU[gpu.id])
    elif gpu.id in LINK_BY_GPU:
        return get_interconnect(LINK_BY_GPU[gpu.id])
    else:
        for generation, link_id in NVLINK_BY_GENERATION.items():
            if text.startswith(generation):
                return get_interconnect(link_id)
    if gpu.pcie_generation in PCIE_HOST_BY_GENERATION:
        return get_interconnect(PCIE_HOST_BY_GENERATION[gpu.pcie_generation])
    raise InputError("interconnect", AUTO, f"a link id for {gpu.name}, which lists no PCIe generation or NVLink: "
                     f"one of {', '.join(interconnect_ids())}")


def data_parallel_link(cluster: Cluster) -> tuple[str, str, float, Interconnect]:
    """(name, id, per-direction bytes/s, slowest link) of the ring a cluster's data-parallel replicas run on.

    ``"auto"``: the GPU's own link within a node; when the job crosses nodes (``cluster.cross_node``),
    ``min(own link, nics_per_node x nic)`` per GPU
    (:func:`~calculators.parallel.collectives.multi_node_ring_bytes_per_s`), and the NIC is
    the link whose efficiency applies; the ``nic_share`` GPUs of a node in different rings (its tensor- and
    pipeline-parallel ranks) share its NICs. A named link is used for every hop.
    """
    n, nics, share, nic, interconnect = (cluster.data_parallel, cluster.nics_per_node, cluster.nic_share, cluster.nic,
                                         cluster.interconnect)
    gpu = cluster.gpu
    network = get_interconnect(nic)  # ids checked by Cluster.of
    across = cluster.cross_node
    if interconnect != AUTO:
        link = get_interconnect(interconnect)
        return link.name, link.id, link.per_direction_bytes_per_s, link
    link = default_interconnect(gpu, gpus=min(n, GPUS_PER_NODE))
    if not across or n == 1:
        return link.name, link.id, link.per_direction_bytes_per_s, link
    per_direction = multi_node_ring_bytes_per_s(intra_node_bytes_per_s=link.per_direction_bytes_per_s,
                                                nic_bytes_per_s=network.per_direction_bytes_per_s / share,
                                                nics_per_node=nics)
    return (f"{link.name} in each node, {nics} x {network.name} per node across nodes",
            f"{link.id}+{network.id}", per_direction, network)


def data_parallel_nodes(cluster: Cluster) -> int:
    """Nodes one data-parallel ring spans: 1 within a node, else ``min(replicas, ceil(gpus / GPUS_PER_NODE))``.

    Each node of a job holds GPUs of every ring when a replica fits in a node (``tp x pp`` at most
    :data:`GPUS_PER_NODE`); a larger replica puts each of a ring's ranks on a node of its own.

    >>> from calculators.parallel.cluster import Cluster
    >>> data_parallel_nodes(Cluster.of(gpu="h100-sxm", gpus=64)), data_parallel_nodes(Cluster.of(
    ...     gpu="h100-sxm", gpus=64, tensor_parallel=16))
    (8, 4)
    """
    n = cluster.data_parallel
    return min(n, math.ceil(cluster.gpus / GPUS_PER_NODE)) if cluster.cross_node and n > 1 else 1


def data_parallel_cost(cluster: Cluster, collective: str, *, efficiency: float | None = None,
                       latency_per_step_s: float | None = None) -> CollectiveCost:
    """How one collective of a cluster's data-parallel ring is timed (:func:`collective_cost`).

    ``"auto"`` across nodes: the GPUs' own link in each node, ``nics_per_node`` x ``nic`` between nodes shared by
    the ``nic_share`` GPUs of a node in different rings, over :func:`data_parallel_nodes` nodes; within a node, or
    a named link (every hop): a ring on that link. ``efficiency`` and ``latency_per_step_s`` are the faces' given
    overrides (``None``: the model's).

    >>> from calculators.parallel.cluster import Cluster
    >>> cost = data_parallel_cost(Cluster.of(gpu="h100-sxm", gpus=16), "all-reduce")
    >>> cost.algorithm, round(cost.bus_bytes_per_s / 1e9)  # NCCL's NVLSTree on two nodes: 2 x 15/16 x 272
    ('nvls-tree', 510)
    """
    _, _, _, link = data_parallel_link(cluster)
    nodes = data_parallel_nodes(cluster) if cluster.interconnect == AUTO else 1
    span = (NodeSpan(nodes, default_interconnect(cluster.gpu, gpus=min(cluster.data_parallel, GPUS_PER_NODE)),
                     cluster.nics_per_node, cluster.nic_share) if nodes > 1 else None)
    return collective_cost(collective, gpus=cluster.data_parallel, link=link, span=span, efficiency=efficiency,
                           latency_per_step_s=latency_per_step_s)
