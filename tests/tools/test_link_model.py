"""One link model: ``parallel``, ``train-time``, ``speed`` and ``recommend`` give one answer for one link.

Before, ``parallel`` timed PCIe at 0.8 of the per-direction bandwidth while ``train-time``
and ``speed`` used 0.62. Every command now takes the efficiency from
:func:`calculators.parallel.links.collective_efficiency`; these tests run the CLI and
the API and compare.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from calculators.catalog.gpus import get_gpu
from calculators.catalog.interconnects import get_interconnect
from calculators.catalog.models import get_model
from calculators.cli import main
from calculators.parallel.links import (
    LINK_EFFICIENCY,
    collective_efficiency,
    link_kind,
    nvls_bus_efficiency,
    record_link_kind,
)
from calculators.parallel.collective_records import record_bus_bandwidth_bytes_per_s
from calculators.parallel.ring_link import default_interconnect
from calculators.parallel.tensor import link_efficiency, tensor_parallel_communication
from calculators.recommend import Workload, recommend

MODEL = "llama-3.1-8b"
#: (link, GPU, GPUs): a PCIe box and an NVSwitch node.
CASES = [("pcie4", "rtx-4090", 4), ("nvlink4", "h100-sxm", 8)]


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


@pytest.mark.parametrize(("link", "gpu", "gpus"), CASES)
def test_parallel_train_time_and_speed_use_one_efficiency(capsys: pytest.CaptureFixture[str], link: str, gpu: str,
                                                          gpus: int) -> None:
    record = get_interconnect(link)
    expected = collective_efficiency(record, collective="all-reduce", gpus=gpus)
    n = str(gpus)
    parallel = _json(capsys, "parallel", "--model", MODEL, "--gpu", gpu, "--gpus", n, "--zero", "0",
                     "--interconnect", link)
    assert parallel["collectives"][0]["kind"] == "all-reduce"
    assert parallel["collectives"][0]["efficiency"] == expected
    train = _json(capsys, "train-time", "--model", MODEL, "--gpu", gpu, "--gpus", n, "--tokens", "1B",
                  "--interconnect", link, "--method", "qlora")
    assert train["data_parallel"]["efficiency"] == expected
    speed = _json(capsys, "speed", "--model", MODEL, "--gpu", gpu, "--gpus", n, "--interconnect", link)
    # speed reports the all-reduce time of a decode step: the same ring at the same efficiency
    comm = tensor_parallel_communication(get_model(MODEL), tokens=1, gpus=gpus, link=record, efficiency=expected)
    assert speed["last_step"]["communication_time_s"] == pytest.approx(comm.time_s, rel=1e-9)
    assert link_efficiency(record, gpus=gpus) == expected


def test_pcie_is_one_answer_not_two() -> None:
    # the example: parallel 0.8 against train-time/speed 0.62 on PCIe
    pcie = get_interconnect("pcie4")
    assert {collective_efficiency(pcie, collective=c, gpus=4) for c in ("all-reduce", "reduce-scatter",
                                                                         "all-gather")} == {LINK_EFFICIENCY["pcie"]}


def test_nvlink_sharp_only_for_all_reduce_on_a_switch() -> None:
    nvlink4 = get_interconnect("nvlink4")
    assert link_kind(nvlink4, collective="all-reduce", gpus=8) == "nvlink-sharp"
    assert link_kind(nvlink4, collective="reduce-scatter", gpus=8) == "nvlink"
    assert link_kind(nvlink4, collective="all-reduce", gpus=2) == "nvlink"
    assert link_kind(get_interconnect("nvlink3"), collective="all-reduce", gpus=8) == "nvlink"
    assert link_kind(get_interconnect("nvlink-bridge-h100-pcie"), gpus=2) == "nvlink-bridge"
    assert link_kind(get_interconnect("ib-ndr")) == "infiniband"
    assert link_kind(get_interconnect("eth-400g")) == "ethernet"
    # NCCL_ALGO=RING on an NVSwitch: a ring, not NVLink SHARP
    assert link_kind(nvlink4, collective="all-reduce", gpus=8, algorithm="ring") == "nvlink"


def test_pcie_path_is_peer_to_peer_or_staged_through_host_memory() -> None:
    # the same PCIe 4.0 x16 link: peer-to-peer at NCCL's PCIe figure, staged through host memory at half the
    # per-direction rate (calculators.parallel.links.PCIE_PEER_EFFICIENCY, HOST_STAGED_EFFICIENCY)
    assert link_kind(get_interconnect("pcie4")) == "pcie"
    assert link_kind(get_interconnect("pcie4-host")) == "pcie-host"
    assert collective_efficiency(get_interconnect("pcie4")) == 0.75  # 24 GB/s of 32 (NCCL src/graph/topo.h)
    assert collective_efficiency(get_interconnect("pcie4-host")) == 0.5
    # with no link named, PCIe GPUs take the staged path (GeForce has no peer-to-peer; NCCL uses none through an
    # Intel root complex)
    assert default_interconnect(get_gpu("rtx-4090"), gpus=4).id == "pcie4-host"
    assert default_interconnect(get_gpu("rtx-5090"), gpus=8).id == "pcie5-host"
    assert default_interconnect(get_gpu("l40s"), gpus=4).id == "pcie4-host"
    assert get_interconnect("pcie5-host").per_direction_bytes_per_s == get_interconnect("pcie5").per_direction_bytes_per_s


def test_recommend_times_training_with_the_same_link_model() -> None:
    # recommend's fine-tuning rows are train-time's runs: same link model, same tokens/s
    from calculators.performance.training_time import training_time

    result = recommend(Workload(model=MODEL, job="finetune", method="qlora", tokens=10**9))
    row = next(c for c in result.rows if c.gpu_id == "rtx-4090" and c.count == 4)
    context = result.context
    run = training_time(get_model(MODEL), get_gpu("rtx-4090"), tokens=10**9, gpus=4, seq=context, method="qlora",
                        grad_checkpointing=True, zero=3)
    assert run.scaling.efficiency == LINK_EFFICIENCY["pcie-host"]  # a 4090 box: staged through host memory
    assert row.tokens_per_s == pytest.approx(run.tokens_per_s, rel=1e-12)


def test_a_stated_message_size_pays_the_ring_latency() -> None:
    # 4 GPUs on PCIe 4.0 peer-to-peer, 1 MiB all-reduce: busbw = 1.5 x bytes / time, time = 1.5 x bytes / (32 GB/s x
    # 0.75) + 2 (N-1) = 6 ring steps of the PCIe step latency, the mean of 42.14 us / 14 (8 x RTX 4090, NVIDIA/nccl
    # issue 1530) and 54.18 us / 14 (8 x RTX 3090, NVIDIA/nccl issue 1439)
    record = {"link": "pcie4", "collective": "all-reduce", "gpus": 4, "algorithm": "ring"}
    size = 2**20
    alpha = (42.14e-6 / 14 + 54.18e-6 / 14) / 2
    time = 1.5 * size / (32e9 * 0.75) + 6 * alpha
    assert record_bus_bandwidth_bytes_per_s({**record, "message_bytes": size}) == pytest.approx(1.5 * size / time)
    # no size stated: the large-message busbw, bw x eff
    assert record_bus_bandwidth_bytes_per_s(record) == pytest.approx(32e9 * 0.75)
    # NCCL_ALGO=RING on an H100 NVSwitch is a ring at NVLink's payload share, not NVLink SHARP
    ring = {"link": "nvlink4", "collective": "all-reduce", "gpus": 8, "algorithm": "ring"}
    assert record_link_kind(ring) == "nvlink" and record_link_kind({**ring, "algorithm": "nvls"}) == "nvlink-sharp"
    assert record_bus_bandwidth_bytes_per_s(ring) == pytest.approx(450e9 * 0.8)


def test_nvlink_sharp_is_derived_and_meets_both_published_h100_runs() -> None:
    # 8 x H100 SXM, NVLink 4 (450 GB/s per direction), NVLS all-reduce: 480 GB/s busbw (NCCL maintainer,
    # nccl-tests issue 212) and 476 GB/s (NVIDIA, nccl-tests issue 290), tests/data/published_speed/collectives.jsonl
    record = {"link": "nvlink4", "collective": "all-reduce", "gpus": 8, "algorithm": "nvls"}
    busbw = record_bus_bandwidth_bytes_per_s(record)
    assert busbw == pytest.approx(480e9, rel=0.02) and busbw == pytest.approx(476e9, rel=0.02)
    # derivation by hand: 0.8 payload x 0.85 NCCL NVLS efficiency x 2 x 7 / 9 = 1.0578
    assert LINK_EFFICIENCY["nvlink-sharp"] == pytest.approx(0.8 * 0.85 * 14 / 9, abs=1e-4)
    # a larger domain moves relatively fewer bytes per GPU: 2 (n-1)/(n+1) grows towards 2
    assert nvls_bus_efficiency(4) < nvls_bus_efficiency(8) < nvls_bus_efficiency(72) < 2 * 0.8 * 0.85
