"""NCCL's fixed cost of a ring collective across nodes (calculators.parallel.latency), and NVLSTree on two nodes.

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
from calculators.parallel.collectives import bus_factor
from calculators.parallel.latency import cross_node_ring_latency_s, net_step_latency_s, nvls_tree_latency_s
from calculators.parallel.links import nvls_tree_applies
from calculators.parallel.collective_records import record_bus_bandwidth_bytes_per_s
from calculators.parallel.nvls import nvls_tree_algbw_bytes_per_s

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


# --- NVLSTree: an all-reduce across two NVLink SHARP nodes (calculators.parallel.nvls, links.nvls_tree_applies) ---
# Expected values derived by hand: NVLS in a node moves S (1 + 1/g) per GPU each way at NVLink's payload share (0.8,
# nccl-tests issue 149) x NCCL's nvlsEfficiency (Hopper 0.85, tuning.cc); between two nodes each node's NICs carry S
# each way (a ring's carry 2 (n-1)/n x S: NCCL issues 812 / 946, "up to ~2x the network speed"; tuning.cc interBw x 2).


def test_nvls_tree_is_switch_bound_on_p5_and_ndr_nodes() -> None:
    # 450 GB/s x 0.8 x 0.85 x 8/9 = 272 GB/s; the network 32 x 12.5 (EFA) or 8 x 50 (NDR) GB/s x 0.96 = 384 GB/s
    switch = 450e9 * 0.8 * 0.85 * 8 / 9
    for nics, nic in ((32, 12.5e9), (8, 50e9)):
        algbw = nvls_tree_algbw_bytes_per_s(intra_node=NVLINK4, gpus_per_node=8, nics_per_node=nics,
                                            nic_bytes_per_s=nic, nic_efficiency=0.96)
        assert algbw == pytest.approx(switch)


def test_nvls_tree_on_a_slow_network_gives_twice_nearly_a_rings_busbw() -> None:
    # 8 x HDR (25 GB/s) x 0.96 = 192 GB/s < the switch's 272: algbw 192, busbw 2 x 15/16 x 192 = 360 GB/s where the
    # ring's busbw is the NICs' 192 GB/s: 1.875 x (the "up to ~2x" of NCCL issue 812)
    algbw = nvls_tree_algbw_bytes_per_s(intra_node=NVLINK4, gpus_per_node=8, nics_per_node=8, nic_bytes_per_s=25e9,
                                        nic_efficiency=0.96)
    assert algbw == pytest.approx(192e9)
    assert bus_factor("all-reduce", gpus=16) * algbw / 192e9 == pytest.approx(1.875)


@pytest.mark.parametrize(("collective", "nodes", "intra", "algorithm", "expected"), [
    ("all-reduce", 2, "nvlink4", "auto", True),       # two H100 nodes: NVLSTree
    ("all-reduce", 4, "nvlink4", "auto", False),      # more nodes: the tree's network rate is a ring's; ring kept
    ("all-reduce", 2, "nvlink3", "auto", False),      # A100: no NVLink SHARP (nvlsEfficiency 0 on Ampere)
    ("all-reduce", 2, "nvlink4", "ring", False),      # NCCL_ALGO=Ring
    ("all-gather", 2, "nvlink4", "auto", False),      # NVLSTree is an all-reduce algorithm
])
def test_nvls_tree_applies_only_to_two_node_sharp_all_reduce(collective: str, nodes: int, intra: str,
                                                            algorithm: str, expected: bool) -> None:
    assert nvls_tree_applies(collective=collective, nodes=nodes, intra_node=get_interconnect(intra),
                             algorithm=algorithm) is expected


def test_nvls_tree_latency_is_nccls() -> None:
    # hwLatencies NVLSTree/Simple: NVLink 25 us, NET 20.9 us (+ 2 x 75 us aws-ofi-nccl p5); 2 x log2(2) network hops
    assert nvls_tree_latency_s(nodes=2, network=EFA) == pytest.approx((25 + 2 * (20.9 + 150)) * US)
    assert nvls_tree_latency_s(nodes=2, network=IB) == pytest.approx((25 + 2 * 20.9) * US)


def test_published_two_node_p5_all_reduce_is_timed_as_nvls_tree() -> None:
    # coll-h100-2node-efa-ar: 8 GiB over 16 ranks on two p5 nodes, algorithm left to the tuner (NVLSTree/Simple for
    # 16 ranks above 30 MiB, aws-ofi-nccl v1.16.3 src/tuner/nccl_ofi_regions.cpp): 1.875 x 8 GiB / (8 GiB / 272 GB/s
    # + 366.8 us); measured 477.7 GB/s
    record = next(json.loads(line) for line in COLLECTIVES.read_text(encoding="utf-8").splitlines()
                  if '"coll-h100-2node-efa-ar"' in line)
    size = 8 * 2**30
    expected = 1.875 * size / (size / (450e9 * 0.8 * 0.85 * 8 / 9) + 366.8 * US)
    assert record_bus_bandwidth_bytes_per_s(record) == pytest.approx(expected, rel=1e-9)
    assert abs(record_bus_bandwidth_bytes_per_s(record) / record["measured"] - 1) < 0.10
