"""NCCL's fixed cost of a ring collective across nodes (calculators.parallel.latency).

Expected values are NCCL's and aws-ofi-nccl's own constants (NVIDIA/nccl src/graph/tuning.cc at commit 5067397:
baseLatencies Ring/Simple 8.4 us, hwLatencies Ring/Simple NVLink 3.4, PCI 5.7, NET 14 us, getNetOverhead 1 us x 3
for Simple; src/transport/net_ib/init.cc: the IB transport reports latency 0; aws/aws-ofi-nccl src/platform-aws.cpp
at v1.16.3: p5/p5e report 75 us), combined by hand as the ring branch of ncclTopoTuneModel does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calculators.catalog.interconnects import get_interconnect
from calculators.errors import InputError
from calculators.parallel.latency import cross_node_ring_latency_s, net_step_latency_s
from calculators.parallel.links import record_bus_bandwidth_bytes_per_s

US = 1e-6
NVLINK4, PCIE4 = get_interconnect("nvlink4"), get_interconnect("pcie4")
IB, EFA = get_interconnect("ib-ndr"), get_interconnect("efa-100g")
COLLECTIVES = Path(__file__).resolve().parents[1] / "data" / "published_speed" / "collectives.jsonl"


def test_network_step_is_nccls_net_latency_plus_twice_the_plugins() -> None:
    # InfiniBand/RoCE through NCCL's own transport: 14 us; EFA through aws-ofi-nccl on p5: 14 + 2 x 75 us
    assert net_step_latency_s(IB) == pytest.approx(14 * US)
    assert net_step_latency_s(EFA) == pytest.approx(164 * US)


def test_all_reduce_over_two_nodes_crosses_the_network_twice() -> None:
    # 16 ranks on 2 NVLink nodes: 30 steps, 2 over the network: 8.4 + 28 x 3.4 + 2 x 14 us
    t = cross_node_ring_latency_s("all-reduce", gpus=16, nodes=2, intra_node=NVLINK4, network=IB)
    assert t == pytest.approx((8.4 + 28 * 3.4 + 2 * 14) * US)


def test_pcie_nodes_take_nccls_pcie_step() -> None:
    # all-gather, 32 ranks on 4 PCIe nodes: 31 steps, 3 over the network: 8.4 + 28 x 5.7 + 3 x 14 us
    t = cross_node_ring_latency_s("all-gather", gpus=32, nodes=4, intra_node=PCIE4, network=IB)
    assert t == pytest.approx((8.4 + 28 * 5.7 + 3 * 14) * US)


def test_more_nodes_for_the_same_ranks_cost_more() -> None:
    # a network step (14 us) costs more than an NVLink one (3.4 us): spreading 64 ranks over more nodes adds latency
    costs = [cross_node_ring_latency_s("reduce-scatter", gpus=64, nodes=k, intra_node=NVLINK4, network=IB)
             for k in (2, 4, 8, 16)]
    assert costs == sorted(costs) and costs[0] < costs[-1]


def test_more_nodes_than_ranks_is_refused_by_name() -> None:
    with pytest.raises(InputError, match="nodes"):
        cross_node_ring_latency_s("all-reduce", gpus=4, nodes=8, intra_node=NVLINK4, network=IB)


def test_published_p5_all_gather_pays_nccls_cross_node_latency() -> None:
    # coll-h100-32node-efa-ag: 2 GiB gathered over 256 ranks on 32 p5 nodes; the ring's bandwidth is
    # min(450, 32 x 12.5) GB/s x 0.96 (NIC efficiency); its fixed cost 8.4 + 224 x 3.4 + 31 x 164 us = 5.854 ms
    record = next(json.loads(line) for line in COLLECTIVES.read_text(encoding="utf-8").splitlines()
                  if '"coll-h100-32node-efa-ag"' in line)
    size = 2 * 2**30 * 255 / 256
    expected_time = size / (400e9 * 0.96) + (8.4 + 224 * 3.4 + 31 * 164) * US
    assert record_bus_bandwidth_bytes_per_s(record) == pytest.approx(size / expected_time, rel=1e-9)
