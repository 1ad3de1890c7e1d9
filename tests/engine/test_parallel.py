"""Ring collective times, the data-parallel step model, the CLI and the nccl-tests comparison."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calculators.catalog.engines import get_engine
from calculators.catalog.gpus import get_gpu
from calculators.catalog.utilisation import DEFAULT_FIT
from calculators.catalog.models import get_model
from calculators.cli import main
from calculators.errors import InputError
from calculators.parallel.collectives import (
    bus_bandwidth_bytes_per_s,
    multi_node_ring_bytes_per_s,
    ring_collective_time_s,
    tensor_parallel_bytes_per_layer,
)
from calculators.parallel.measured import MEASUREMENTS, model_bus_bandwidth_bytes_per_s
from calculators.parallel.step import default_interconnect, step_communication

SPEC = get_model("llama-3-8b")


def test_ring_all_reduce_formula() -> None:
    # 2 x (8-1)/8 x 1 GB / (450 GB/s x 0.8) + 14 steps x 2 us (derivation in collectives' docstring)
    t = ring_collective_time_s("all-reduce", 1e9, gpus=8, link_bytes_per_s=450e9, efficiency=0.8, latency_s=2e-6)
    assert t == pytest.approx(1.75 * 1e9 / 360e9 + 14 * 2e-6)


def test_reduce_scatter_plus_all_gather_is_all_reduce() -> None:
    kw = {"gpus": 16, "link_bytes_per_s": 64e9, "efficiency": 0.5, "latency_s": 5e-6}
    both = ring_collective_time_s("reduce-scatter", 3e9, **kw) + ring_collective_time_s("all-gather", 3e9, **kw)
    assert both == pytest.approx(ring_collective_time_s("all-reduce", 3e9, **kw))


def test_one_gpu_or_empty_buffer_takes_no_time() -> None:
    assert ring_collective_time_s("all-reduce", 1e9, gpus=1, link_bytes_per_s=1e9) == 0.0
    assert ring_collective_time_s("all-gather", 0, gpus=8, link_bytes_per_s=1e9) == 0.0


def test_busbw_of_the_model_is_link_times_efficiency() -> None:
    # nccl-tests convention: busbw = algbw x 2(N-1)/N; for a large buffer the model gives bw x eff for any N.
    for n in (2, 4, 8, 64):
        t = ring_collective_time_s("all-reduce", 8e9, gpus=n, link_bytes_per_s=450e9, efficiency=0.8, latency_s=0)
        assert bus_bandwidth_bytes_per_s("all-reduce", 8e9, gpus=n, time_s=t) == pytest.approx(360e9)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 1024), size=st.floats(1, 1e12), bw=st.floats(1e9, 2e12))
def test_time_grows_with_bytes_and_gpus_and_shrinks_with_bandwidth(n: int, size: float, bw: float) -> None:
    t = ring_collective_time_s("all-reduce", size, gpus=n, link_bytes_per_s=bw)
    assert t > 0 and math.isfinite(t)
    assert ring_collective_time_s("all-reduce", size * 2, gpus=n, link_bytes_per_s=bw) >= t
    assert ring_collective_time_s("all-reduce", size, gpus=n + 1, link_bytes_per_s=bw) >= t
    assert ring_collective_time_s("all-reduce", size, gpus=n, link_bytes_per_s=bw * 2) <= t


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"collective": "broadcast"}, "collective"),
    ({"gpus": 0}, "gpus"),
    ({"buffer_bytes": -1}, "buffer_bytes"),
    ({"buffer_bytes": float("nan")}, "buffer_bytes"),
    ({"link_bytes_per_s": 0}, "link_bytes_per_s"),
    ({"efficiency": 0}, "efficiency"),
    ({"efficiency": 2.5}, "efficiency"),  # above 1 only with in-switch reduction (NVLink SHARP), at most 2
    ({"latency_s": -1e-6}, "latency_s"),
    ({"calls": 0}, "calls"),
])
def test_collective_rejects_bad_input(kwargs: dict[str, object], field: str) -> None:
    args: dict[str, object] = {"collective": "all-reduce", "buffer_bytes": 1e9, "gpus": 8, "link_bytes_per_s": 1e9}
    args.update(kwargs)
    collective = args.pop("collective")
    size = args.pop("buffer_bytes")
    with pytest.raises(InputError) as error:
        ring_collective_time_s(collective, size, **args)  # type: ignore[arg-type]
    assert error.value.field == field


def test_multi_node_ring_is_capped_by_nics() -> None:
    # DGX A100: 8 x 200 Gb/s HDR = 200 GB/s per direction, below NVLink 3's 300 GB/s.
    assert multi_node_ring_bytes_per_s(intra_node_bytes_per_s=300e9, nic_bytes_per_s=25e9, nics_per_node=8) == 200e9


def test_tensor_parallel_volume() -> None:
    # Megatron: 2 all-reduces forward + 2 backward of tokens x hidden x 2 bytes.
    assert tensor_parallel_bytes_per_layer(tokens=2048, hidden_size=8192) == 4 * 2048 * 8192 * 2


def test_ddp_all_reduces_fp32_gradients_once() -> None:
    r = step_communication(SPEC, gpus=8, zero=0, interconnect="nvlink4", latency_s=0)
    assert [c.kind for c in r.collectives] == ["all-reduce"]
    assert r.collectives[0].buffer_bytes == 4 * SPEC.parameters
    # H100 all-reduces run on NVLink SHARP, busbw 2 (n-1)/(n+1) of NVLink 4's 450 GB/s per direction at its 0.8 payload
    # share and NCCL's NVLS efficiency 0.85 (src/graph/tuning.cc): 476 GB/s on 8 GPUs, as published (480 and 476 GB/s,
    # nccl-tests issues 212 and 290).
    assert r.communication_s == pytest.approx(1.75 * 4 * SPEC.parameters / (450e9 * 0.8 * 0.85 * 14 / 9), rel=1e-3)


def test_zero3_moves_one_and_a_half_times_ddp() -> None:
    # ZeRO paper, section 7: DDP 2 Psi, ZeRO-3 3 Psi (same dtype for gradients and gathered weights).
    kw = {"gpus": 8, "interconnect": "pcie5", "latency_s": 0, "grad_dtype": "bf16", "param_dtype": "bf16"}
    ddp = step_communication(SPEC, zero=0, **kw)  # type: ignore[arg-type]
    z3 = step_communication(SPEC, zero=3, **kw)  # type: ignore[arg-type]
    z1 = step_communication(SPEC, zero=1, **kw)  # type: ignore[arg-type]
    assert z3.communication_s == pytest.approx(1.5 * ddp.communication_s)
    assert z1.communication_s == pytest.approx(ddp.communication_s)


def test_compute_is_training_flops_over_peak_times_mfu() -> None:
    # Llama 3 8B: 6 x matmul parameters (all but the 128,256 x 4,096 input embedding, a lookup) plus
    # attention, 12 x q_dim (32 heads x 128) x 32 layers x seq per token (PaLM Appendix B); H100 SXM
    # dense BF16 989.4 TFLOP/s (NVIDIA datasheet); plus the host time of one Python forward through its 32 layers at
    # eager transformers' per-layer overhead (fitted on batch-1 decode, calculators.catalog.engines).
    r = step_communication(SPEC, gpu="h100-sxm", gpus=8, batch=2, seq=1024, mfu=0.5)
    per_token = 6 * (SPEC.parameters - 128256 * 4096) + 12 * 4096 * 32 * 1024
    host = 32 * get_engine("transformers").value("step_overhead_s_per_layer")
    # the attention products in FlashAttention-2: 7/12 of them at 0.35 of the H100's rate (FlashAttention-3 paper)
    attention = 12 * 4096 * 32 * 1024
    assert r.compute_s == pytest.approx(((per_token - attention) / (989.4e12 * 0.5)
                                         + attention * 7 / 12 / (989.4e12 * 0.35)) * 2048 + host)
    assert r.mfu_given and "(given)" in " ".join(r.assumptions)


def test_default_utilisation_is_the_fitted_one() -> None:
    # No mfu given: the utilisation fitted on published runs (1 / (1 + c x R / B) x T / (T + T_half), T = 2 x 1,024
    # tokens per micro-batch), read from the committed fit, not the assumed 0.4 of earlier versions. R / B and T_half
    # are the H100 SXM's ridge point from its datasheet: 989.4 TFLOP/s dense BF16 over 3.35 TB/s.
    # A PyTorch-family step also moves its unfused elementwise kernels' bytes (calculators.model_flops.unfused_bytes_per_flop).
    from calculators.model_flops import unfused_bytes_per_flop

    r = step_communication(SPEC, gpu="h100-sxm", gpus=8, batch=2, seq=1024)
    ridge = 989.4e12 / 3.35e12
    c = DEFAULT_FIT.bytes_per_flop + unfused_bytes_per_flop(SPEC, seq=1024)
    expected = 1 / (1 + c * ridge) * 2048 / (2048 + ridge)
    assert r.mfu == pytest.approx(expected) and not r.mfu_given
    assert "fitted on published runs" in " ".join(r.assumptions) and r.to_dict()["mfu_basis"] == "fitted"


@pytest.mark.parametrize(("model", "gpu", "gpus", "zero", "batch", "seq", "recompute"), [
    ("llama-3-70b", "h100-sxm", 64, 0, 1, 4096, False),
    ("llama-3-8b", "a100-80gb-sxm", 8, 3, 2, 2048, False),
    ("mixtral-8x7b", "h100-sxm", 16, 1, 4, 4096, False),
    ("llama-3-70b", "h100-sxm", 8, 3, 1, 8192, True),
])
def test_parallel_and_train_time_time_one_step_alike(model: str, gpu: str, gpus: int, zero: int, batch: int,
                                                     seq: int, recompute: bool) -> None:
    # One question, one answer (#14): the compute of one data-parallel step (one micro-batch per GPU) is the
    # same number whether `parallel` or `train-time` answers it.
    from calculators.performance.training_time import training_time

    spec = get_model(model)
    step = step_communication(spec, gpu=gpu, gpus=gpus, zero=zero, batch=batch, seq=seq, grad_checkpointing=recompute)
    run = training_time(spec, get_gpu(gpu), tokens=10**9, gpus=gpus, zero=zero, batch=batch, seq=seq, goodput=1,
                        grad_checkpointing=recompute)
    assert step.compute_s == pytest.approx(run.scaling.compute_s, rel=1e-12)
    assert step.mfu == pytest.approx(run.utilisation, rel=1e-12)
    assert step.flop_per_gpu == pytest.approx(run.executed_flops_per_token * batch * seq, rel=1e-12)
    # ... and the same communication: one ring (NVLink in a node, NICs across nodes), one link model.
    assert step.interconnect == run.scaling.link_id
    assert step.communication_s == pytest.approx(run.scaling.communication_s, rel=1e-12)
    assert step.exposed_communication_s == pytest.approx(run.scaling.exposed_s, rel=1e-12)


def test_parallel_opens_on_the_training_defaults() -> None:
    # With every default, `parallel` and `train-time` (and `train`'s memory) ask about the same sequence length
    # and micro-batch, and take the same network between nodes.
    from calculators.memory.training_inputs import training_setup
    from calculators.performance.training_time import training_time
    from calculators.validate import default_of

    for name in ("seq", "batch", "zero", "interconnect", "nic", "nics_per_node", "grad_checkpointing", "mfu"):
        assert default_of(step_communication, name) == default_of(training_time, name), name
    assert default_of(step_communication, "seq") == default_of(training_setup, "seq")


def test_a_ring_across_nodes_runs_at_the_nics_and_trees_latency() -> None:
    # 64 H100 SXM in 8 nodes: the ring leaves each node over its 8 NDR NICs (400 Gb/s = 50 GB/s per direction
    # each), so it runs at min(NVLink 4's 900 / 2 = 450 GB/s, 8 x 50 GB/s) = 400 GB/s per direction; NCCL's
    # trees take 2 ceil(log2 64) = 12 latency steps instead of the ring's 2 x 63 (NVIDIA Technical Blog, NCCL 2.4).
    step = step_communication(get_model("llama-3-70b"), gpu="h100-sxm", gpus=64, zero=0)
    assert step.interconnect == "nvlink4+ib-ndr" and "across nodes" in step.interconnect_name
    assert step.link_per_direction_bytes_per_s == pytest.approx(400e9)
    ring_only = step_communication(get_model("llama-3-70b"), gpu="h100-sxm", gpus=64, zero=0, interconnect="nvlink4")
    assert step.communication_s != ring_only.communication_s


def test_pcie_is_the_bottleneck_and_nvlink_is_not_for_an_8b_model() -> None:
    assert step_communication(SPEC, gpus=8, zero=0, interconnect="pcie4").interconnect_bound
    assert not step_communication(SPEC, gpus=8, zero=0, interconnect="nvlink4").interconnect_bound


def test_overlap_hides_at_most_the_phase_compute() -> None:
    r = step_communication(SPEC, gpus=8, zero=0, interconnect="pcie5")
    assert r.exposed_communication_s == pytest.approx(r.communication_s - 2 / 3 * r.compute_s)
    no = step_communication(SPEC, gpus=8, zero=0, interconnect="pcie5", overlap=False)
    assert no.exposed_communication_s == no.communication_s


def test_memory_comes_from_training_memory() -> None:
    from calculators.memory.training import training_memory

    r = step_communication(SPEC, gpus=8, zero=3, batch=1, seq=4096)
    expected = training_memory(SPEC, method="full", precision="bf16-mixed", batch=1, seq=4096, gpus=8, zero=3)
    assert r.memory.total_bytes == expected.total_bytes


def test_default_link_follows_the_gpu() -> None:
    assert default_interconnect(get_gpu("a100-80gb-sxm")).id == "nvlink3"
    assert default_interconnect(get_gpu("b200")).id == "nvlink5"
    assert default_interconnect(get_gpu("mi300x")).id == "infinity-fabric-mi300x"
    # PCIe GPUs: staged through host memory unless a peer-to-peer link is named (calculators.parallel.ring_link)
    assert default_interconnect(get_gpu("rtx-5090")).id == "pcie5-host"
    # A 2-way bridge serves a pair; four bridged GPUs ring over PCIe.
    assert default_interconnect(get_gpu("h100-pcie"), gpus=2).id == "nvlink-bridge-h100-pcie"
    assert default_interconnect(get_gpu("h100-pcie"), gpus=4).id == "pcie5-host"
    # issue #28: a GB200 rides its NVL72 domain, the MI355X its own (faster) Infinity Fabric, the MI325X the MI300X's
    assert default_interconnect(get_gpu("gb200"), gpus=8).id == "nvlink5-nvl72"
    assert default_interconnect(get_gpu("mi355x")).per_direction_bytes_per_s == 7 * 153.6e9 / 2
    assert default_interconnect(get_gpu("mi325x")).id == "infinity-fabric-mi300x"
    assert default_interconnect(get_gpu("h100-nvl"), gpus=2).id == "nvlink-bridge-h100-nvl"


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"gpus": 0}, "gpus"), ({"zero": 4}, "zero"), ({"interconnect": "carrier-pigeon"}, "interconnect"),
    ({"mfu": 0}, "mfu"), ({"efficiency": 2.5}, "efficiency"), ({"grad_dtype": "int8"}, "grad_dtype"),
    ({"param_dtype": "fp8"}, "param_dtype"), ({"batch": 0}, "batch"), ({"seq": 0}, "seq"),
    # the T4 has no BF16 tensor path, so no dense BF16 rate (NVIDIA T4 datasheet)
    ({"gpu": "t4", "interconnect": "pcie4"}, "gpu"), ({"gpu": "nope"}, "gpu"),
])
def test_step_rejects_bad_input(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(InputError) as error:
        step_communication(SPEC, **kwargs)  # type: ignore[arg-type]
    assert error.value.field == field


def test_nccl_comparison_ring_rows_within_stated_bounds() -> None:
    # Published busbw vs the model at efficiency 0.8: NVSwitch H100 (370 GB/s, nccl-tests #212) within 5 %.
    h100 = MEASUREMENTS[0]
    assert abs(model_bus_bandwidth_bytes_per_s(h100) - h100.bus_bandwidth_bytes_per_s) / 370e9 < 0.05
    for record in MEASUREMENTS:
        assert record.source.kind == "measured"
        assert 0 < record.implied_efficiency < 1.1


def test_cli_json_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parallel", "--model", "llama-3-8b", "--gpus", "8", "--zero", "2", "--interconnect", "pcie5",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["zero"] == 2 and data["interconnect"] == "pcie5" and data["interconnect_bound"] is True
    assert main(["parallel", "--model", "llama-3-8b", "--interconnect", "nvlink9"]) == 2
    assert "interconnect: got 'nvlink9'" in capsys.readouterr().err
    assert main(["parallel", "--model", "llama-3-8b", "--latency-us", "-1"]) == 2


@pytest.mark.parametrize("zero", [0, 1, 3])
def test_one_gpu_has_no_collectives_and_no_error(zero: int) -> None:
    """One GPU runs no collective: no communication time (it divided the link latency by zero ring steps)."""
    result = step_communication(SPEC, gpu=get_gpu("h100-sxm"), gpus=1, zero=zero)
    assert result.communication_s == 0.0 and result.exposed_communication_s == 0.0
