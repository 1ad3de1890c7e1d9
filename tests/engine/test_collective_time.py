"""One timing of a collective (calculators.parallel.collective_time) for the answers and the scored published runs.

Expected values are hand arithmetic from NCCL's tuning model (NVIDIA/nccl src/graph/tuning.cc at commit 5067397:
Ring/Simple base 8.4 us, NVLink step 3.4 us, network step 14 us; Tree/Simple base 8.4 us, intra-node 4.0 us,
network 14 us, busBw x .92, algbw = busBw / 2) and the link figures of the catalog (NVLink 4: 450 GB/s per
direction; InfiniBand NDR: 50 GB/s; the NIC efficiency 0.96 of NCCL's maintainers' expected peak per NIC).
"""

from __future__ import annotations

import pytest

from calculators.catalog.interconnects import get_interconnect
from calculators.catalog.models import get_model
from calculators.parallel.cluster import Cluster
from calculators.parallel.collective_time import NodeSpan, collective_cost, record_collective_cost
from calculators.parallel.collective_records import record_bus_bandwidth_bytes_per_s
from calculators.parallel.ring_link import data_parallel_cost
from calculators.parallel.step import step_communication

NVLINK4, IB = get_interconnect("nvlink4"), get_interconnect("ib-ndr")


def test_tree_latency_and_choice_across_eight_nodes() -> None:
    # 64 H100 on 8 nodes, 8 NDR NICs each: busbw min(450, 8 x 50) x 0.96 = 384 GB/s.
    cost = collective_cost("all-reduce", gpus=64, link=IB, span=NodeSpan(8, NVLINK4, 8))
    ring_fixed = (8.4 + (126 - 14) * 3.4 + 14 * 14) * 1e-6  # 585.2 us
    tree_fixed = (8.4 + 2 * (7 * 4.0 + 3 * 14)) * 1e-6  # 148.4 us
    assert cost.algorithm == "ring" and cost.bus_bytes_per_s == pytest.approx(384e9)
    assert cost.fixed_s == pytest.approx(ring_fixed)
    assert cost.alternative is not None and cost.alternative.fixed_s == pytest.approx(tree_fixed)
    # a 25 MB DDP bucket: the Tree (busbw 0.92 x 384 x 63/64) is faster than the ring's 585 us of latency
    size = 25e6
    ring = 2 * 63 / 64 * size / 384e9 + ring_fixed
    tree = 2 * 63 / 64 * size / (0.92 * 384e9 * 63 / 64) + tree_fixed
    assert tree < ring
    assert cost.time_s(size) == pytest.approx(tree)
    # 8 GiB: the ring's 8 % more bandwidth outweighs its latency
    big = 8 * 2**30
    assert cost.time_s(big) == pytest.approx(2 * 63 / 64 * big / 384e9 + ring_fixed)


def test_given_overrides_mean_what_they_say() -> None:
    # latency_us of the parallel face is per ring step: an all-gather over 16 GPUs pays 15 of them, whatever runs
    cost = collective_cost("all-gather", gpus=16, link=IB, span=NodeSpan(2, NVLINK4, 8),
                           latency_per_step_s=10e-6, efficiency=0.7)
    assert cost.fixed_s == pytest.approx(15 * 10e-6) and cost.alternative is None
    assert cost.bus_bytes_per_s == pytest.approx(0.7 * 400e9)
    tree = collective_cost("all-reduce", gpus=16, link=IB, span=NodeSpan(2, NVLINK4, 8),
                           latency_per_step_s=10e-6, efficiency=0.7)
    assert tree.algorithm == "nvls-tree" and tree.fixed_s == pytest.approx(30 * 10e-6)
    assert tree.bus_bytes_per_s == pytest.approx(0.7 * 400e9)


def test_answers_and_scored_records_time_one_collective_alike() -> None:
    # 16 H100 in DDP: the ring train-time and parallel time is the record {16 GPUs, 2 nodes, 8 x NDR, NVLink 4}.
    cluster = Cluster.of(gpu="h100-sxm", gpus=16)
    record = {"link": "ib-ndr", "intra_node": "nvlink4", "nics_per_node": 8, "nodes": 2, "gpus": 16,
              "collective": "all-reduce", "algorithm": "auto"}
    assert data_parallel_cost(cluster, "all-reduce") == record_collective_cost(record)
    # NVLSTree on two nodes: algbw min(450 x 0.8 x 0.85 x 8/9, 8 x 50 x 0.96) = 272 GB/s
    size = 2**30
    time = data_parallel_cost(cluster, "all-reduce").time_s(size)
    assert time == pytest.approx(size / 272e9 + (25 + 2 * 20.9) * 1e-6)
    assert record_bus_bandwidth_bytes_per_s({**record, "message_bytes": size}) == pytest.approx(
        size / time * 2 * 15 / 16)


def test_the_parallel_step_times_its_collectives_with_it() -> None:
    spec = get_model("llama-3-8b")
    result = step_communication(spec, gpu="h100-sxm", gpus=64, zero=0, batch=1, seq=4096)
    reduce = result.collectives[0]
    cost = data_parallel_cost(Cluster.of(gpu="h100-sxm", gpus=64), "all-reduce")
    assert reduce.time_s == pytest.approx(cost.time_s(reduce.buffer_bytes, calls=reduce.calls))
    # per 25 MB bucket: NCCL's Tree latency, not 2 x ceil(log2 64) = 12 steps x 3.44 us as before
    assert reduce.time_s > reduce.calls * 148e-6
