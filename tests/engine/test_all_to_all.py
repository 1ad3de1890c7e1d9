"""The all-to-all's timing (calculators.parallel.all_to_all) against what NCCL's maintainers say an all-to-all reaches.

Expected values: nccl-tests issue 130 (S. Jeaugey, 2023-02-03: "If you have one GPU per node the BusBw should be the
NIC BW"; "On 2 nodes, 50% of the traffic is inter-node so you should see BusBW = 2x network bandwidth per GPU"),
nccl-tests issue 267 (A. Laddy, 2025-01-23: "CX-7 NICs at NDR rate (400Gbps) should achieve up to 48-49GB/s per
NIC"; S. Jeaugey, 2024-11-19: "Alltoall cannot aggregate the bandwidth of multiple NICs"), NCCL's step latencies
(src/graph/tuning.cc at commit 5067397: NVLink Ring/Simple 3.4 us, network 14 us; getNetOverhead 1 us) and aws-ofi-nccl's
75 us on p5 (src/platform-aws.cpp, v1.16.3).
"""

from __future__ import annotations

import pytest

from calculators.catalog.interconnects import get_interconnect
from calculators.errors import InputError
from calculators.parallel.all_to_all import all_to_all_cost
from calculators.parallel.collective_time import NodeSpan

NVLINK4, IB, EFA = get_interconnect("nvlink4"), get_interconnect("ib-ndr"), get_interconnect("efa-100g")
LARGE = 8 * 2**30


def test_one_gpu_per_node_reaches_one_nic() -> None:
    cost = all_to_all_cost(gpus=16, link=IB, span=NodeSpan(16, NVLINK4, 1, 1))
    assert cost.domain_gpus == 1 and cost.intra_share == 0
    assert cost.bus_bytes_per_s(LARGE) / 1e9 == pytest.approx(48.5, abs=1.0)  # 48-49 GB/s per NDR NIC


def test_two_nodes_of_eight_reach_about_twice_the_network_per_gpu() -> None:
    cost = all_to_all_cost(gpus=16, link=IB, span=NodeSpan(2, NVLINK4, 8, 8))
    per_gpu_network = 50e9 * 0.96  # one of the node's eight NDR NICs per GPU: NICs are not aggregated
    assert cost.inter_bytes_per_s == pytest.approx(per_gpu_network)
    # the maintainer's 2x counts the node's own half as free; 15/8 of it is what the NICs carry in a timed run
    assert cost.bus_bytes_per_s(LARGE) / per_gpu_network == pytest.approx(2.0, rel=0.07)
    # more nodes: towards 1x the network per GPU (N / (N - 1) for N nodes)
    many = all_to_all_cost(gpus=256, link=IB, span=NodeSpan(32, NVLINK4, 8, 8))
    assert many.bus_bytes_per_s(LARGE) / per_gpu_network == pytest.approx(32 / 31, rel=0.02)


def test_fixed_cost_is_one_step_of_the_slowest_transport_and_the_posts_of_each_remote_peer() -> None:
    assert all_to_all_cost(gpus=8, link=NVLINK4).fixed_s == pytest.approx(3.4e-6)
    assert all_to_all_cost(gpus=1, link=NVLINK4).time_s(1e9) == 0.0
    ib = all_to_all_cost(gpus=64, link=IB, span=NodeSpan(8, NVLINK4, 8, 8))
    assert ib.fixed_s == pytest.approx(14e-6 + 56 * 2 * 1e-6)
    efa = all_to_all_cost(gpus=64, link=EFA, span=NodeSpan(8, NVLINK4, 32, 8))
    assert efa.fixed_s == pytest.approx(14e-6 + 2 * 75e-6 + 56 * 2 * 1e-6)
    # calls pay it each: many small all-to-alls are latency-bound
    assert ib.time_s(0, calls=100) == pytest.approx(100 * ib.fixed_s)


def test_bad_inputs_are_refused_by_name() -> None:
    with pytest.raises(InputError, match="gpus"):
        all_to_all_cost(gpus=0, link=NVLINK4)
    with pytest.raises(InputError, match="nodes"):
        all_to_all_cost(gpus=4, link=IB, span=NodeSpan(8, NVLINK4, 8, 8))
    with pytest.raises(InputError, match="buffer_bytes"):
        all_to_all_cost(gpus=8, link=NVLINK4).time_s(-1.0)


def test_published_four_gpu_nvlink_all_to_all_is_met() -> None:
    # NVIDIA/nccl issue 2169 (2026-05-11): 4 x H100 SXM in one node, alltoall_perf, 524288000 B out-of-place in
    # 1174.14 us, busbw 334.90 GB/s (tests/data/published_speed/collectives.jsonl, coll-h100-4-alltoall)
    from calculators.parallel.collective_records import record_bus_bandwidth_bytes_per_s

    record = {"link": "nvlink4", "gpus": 4, "collective": "all-to-all", "message_bytes": 524288000}
    assert record_bus_bandwidth_bytes_per_s(record) == pytest.approx(334.90e9, rel=0.10)
