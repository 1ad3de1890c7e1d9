"""Decode roofline, prefill, generation and batching utilisation (calculators.performance)."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calculators.inputs.gpu import resolve_gpu
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.cli import main
from calculators.errors import InputError
from calculators.memory.weights import weight_bytes
from calculators.performance.batching import batching_utilisation, static_utilisation, uniform_lengths
from calculators.model_flops import causal_attended_pairs, matmul_parameters
from calculators.performance.flops import compute_rate_flop_per_s
from calculators.performance.forward_pass import decode_flops_per_token, prefill_flops, weight_bytes_read
from calculators.performance.inference_speed import (
    CUDNN_PLAN_NOTE,
    DEFAULT_BANDWIDTH_EFFICIENCY,
    decode_step,
    inference_speed,
    prefill,
)
from calculators.performance.published import DECODE_THROUGHPUT, FIRST_TOKEN_LATENCY

H100 = get_gpu("h100-sxm")


def test_batch_one_decode_reads_weights_plus_cache_at_the_bandwidth() -> None:
    # Derivation: bytes = 2 x 8,030,261,248 params + 1 x 4096 x 128 KiB; time = bytes / (3.35e12 x 0.8).
    spec = get_model("llama-3-8b")
    step = decode_step(spec, H100, batch=1, context=4096)
    expected_bytes = 2 * 8030261248 + 4096 * 131072
    assert step.bytes_read == expected_bytes
    assert step.bound == "memory"
    assert step.time_s == pytest.approx(expected_bytes / (3.35e12 * DEFAULT_BANDWIDTH_EFFICIENCY))
    assert step.bound_time_s == pytest.approx(expected_bytes / 3.35e12)


def test_decode_flops_exclude_the_embedding_lookup() -> None:
    # Llama 2 7B: 6,738,415,616 params, 32,000 x 4,096 embedding, untied head.
    spec = get_model("llama-2-7b")
    assert matmul_parameters(spec) == 6738415616 - 32000 * 4096
    assert decode_flops_per_token(spec, context=0) == 2 * matmul_parameters(spec)
    # Attention: 4 FLOP x q_dim 4096 x 32 layers per cached token.
    assert decode_flops_per_token(spec, context=100) - decode_flops_per_token(spec, context=0) == 4 * 4096 * 32 * 100


def test_causal_pairs_of_a_windowed_layer_stop_growing_quadratically() -> None:
    # Mistral 7B v0.1: every layer windowed at 4096 tokens.
    spec = get_model("mistral-7b-v0.1")
    w = 4096
    assert causal_attended_pairs(spec, tokens=w) == 32 * w * (w + 1) // 2
    assert causal_attended_pairs(spec, tokens=w + 10) == 32 * (w * (w + 1) // 2 + 10 * w)


def test_moe_batch_one_reads_the_active_parameters_only() -> None:
    spec = get_model("mixtral-8x7b")
    assert weight_bytes_read(spec, dtype="bf16", tokens=1) == 2 * spec.active_parameters
    assert weight_bytes_read(spec, dtype="bf16", tokens=10**5) == weight_bytes(spec, dtype="bf16")
    reads = [weight_bytes_read(spec, dtype="bf16", tokens=n) for n in (1, 2, 4, 8, 64)]
    assert reads == sorted(reads)


def test_dense_model_reads_every_weight_regardless_of_batch() -> None:
    spec = get_model("llama-3-8b")
    assert weight_bytes_read(spec, dtype="int4", tokens=1) == weight_bytes(spec, dtype="int4")


def test_fp8_weights_use_the_fp8_rate_and_int4_the_bf16_rate() -> None:
    spec = get_model("llama-2-7b")
    fp8 = prefill(spec, H100, weights="fp8", context=4096)
    int4 = prefill(spec, H100, weights="int4", context=4096)
    assert fp8.compute_time_s is not None and int4.compute_time_s is not None
    assert int4.compute_time_s / fp8.compute_time_s == pytest.approx(1978.9 / 989.4)


def test_prefill_counts_the_head_for_the_last_position_only() -> None:
    spec = get_model("llama-3-8b")
    head = 128256 * 4096
    one, two = prefill_flops(spec, prompt=1), prefill_flops(spec, prompt=2)
    body = matmul_parameters(spec) - head
    assert two - one == pytest.approx(2 * body + 4 * spec.q_dim * spec.num_layers * 2)


def test_gpu_without_a_rate_gives_memory_time_and_says_so() -> None:
    # every catalog GPU has a rate now (tests/engine/test_bounded_terms.py); a custom GPU given without one has none
    gpu = resolve_gpu("custom:memory_gb=128,bandwidth_gbps=546")
    result = inference_speed(get_model("llama-3-8b"), gpu, batch=1, context=512, weights="int4", kv_cache="fp8")
    assert result.first_step.compute_time_s is None
    assert any("no published dense rate" in note for note in result.notes)


def test_tensor_parallel_splits_bytes_and_adds_two_all_reduces_per_layer() -> None:
    # Derivation (Megatron-LM, Shoeybi et al. 2019, section 3): 2 all-reduces per layer per forward pass,
    # each of batch x hidden bf16 activations = 8 x 8192 x 2 bytes. Ring over 2 GPUs: 2(N-1)/N = 1 times the
    # buffer over NVLink 4's 450 GB/s per direction (900 GB/s bidirectional, NVIDIA H100 page) at the link
    # model's NVLink ring efficiency, NVLink's 128-byte payload share of the line rate, ~20 of 25 GB/s per link
    # (NCCL maintainer, nccl-tests issue 149), plus 2(N-1) = 2 ring steps of 3 us (6 us for a 2-GPU all-reduce,
    # NVIDIA/nccl issue 1259).
    spec = get_model("llama-3-70b")
    one = decode_step(spec, H100, weights="fp8", batch=8, context=1024)
    two = decode_step(spec, H100, weights="fp8", batch=8, context=1024, gpus=2)
    ring = 20 / 25
    per_all_reduce = 8 * 8192 * 2 / (450e9 * ring) + 2 * 3e-6
    assert two.communication_time_s == pytest.approx(2 * 80 * per_all_reduce, rel=1e-9)
    assert two.time_s == pytest.approx(one.time_s / 2 + two.communication_time_s)
    assert two.bytes_read == one.bytes_read


def test_tokens_per_gpu_fall_as_tensor_parallel_grows_over_pcie() -> None:
    # Every added GPU adds ring steps to each of the 2 x layers all-reduces while the per-GPU bytes shrink,
    # so tokens/s per GPU must fall; over PCIe 4.0 (32 GB/s per direction) the fall is steeper than over NVLink.
    spec = get_model("llama-3-70b")
    for gpu in ("rtx-4090", "h100-sxm"):
        per_gpu = [decode_step(spec, get_gpu(gpu), weights="int4", batch=32, context=4096, gpus=n)
                   .aggregate_tokens_per_s / n for n in (1, 2, 4, 8)]
        assert per_gpu == sorted(per_gpu, reverse=True) and len(set(per_gpu)) == 4
    pcie = decode_step(spec, get_gpu("rtx-4090"), weights="int4", batch=32, context=4096, gpus=4)
    nvlink = decode_step(spec, H100, weights="int4", batch=32, context=4096, gpus=4)
    assert pcie.communication_time_s > 2 * nvlink.communication_time_s


def test_forcing_pcie_on_an_nvlink_gpu_slows_only_the_communication() -> None:
    spec = get_model("llama-3-8b")
    own = decode_step(spec, H100, batch=64, context=2048, gpus=4)
    pcie = decode_step(spec, H100, batch=64, context=2048, gpus=4, interconnect="pcie5")
    assert pcie.communication_time_s > own.communication_time_s
    assert pcie.time_s - pcie.communication_time_s == pytest.approx(own.time_s - own.communication_time_s)


def test_long_prefill_over_pcie_at_eight_gpus_is_communication_bound() -> None:
    # Each all-reduce moves 4096 x 4096 x 2 bytes = 32 MiB; 64 of them over a 32 GB/s-per-direction link
    # take about a quarter of a second, more than the prefill's matmuls split eight ways.
    step = prefill(get_model("llama-3-8b"), get_gpu("rtx-4090"), context=4096, gpus=8)
    assert step.bound == "communication"
    assert step.communication_time_s > 64 * 1.75 * 4096 * 4096 * 2 / 32e9


def test_generation_sums_prefill_and_decode_steps() -> None:
    spec = get_model("llama-3.2-1b")
    result = inference_speed(spec, H100, batch=2, context=100, new_tokens=4)
    steps = [decode_step(spec, H100, batch=2, context=c).time_s for c in (101, 102, 103)]
    assert result.generation_time_s == pytest.approx(result.prefill.time_s + sum(steps))
    assert result.output_tokens_per_s == pytest.approx(2 * 4 / result.generation_time_s)


@pytest.mark.parametrize("model, settings", [
    ("llama-3.2-1b", {"batch": 2, "context": 100}),
    ("mixtral-8x7b", {"batch": 8, "context": 512, "gpus": 2, "engine": "vllm"}),  # routed experts, all-reduces
    ("gemma-2-9b", {"batch": 3, "context": 4000}),  # sliding-window layers
    ("llama-2-70b", {"batch": 4, "context": 1024, "gpus": 4, "engine": "tensorrt-llm-0.7"}),  # repeated KV reads
])
def test_a_generation_is_timed_as_its_decode_steps_to_the_last_bit(model: str, settings: dict[str, object]) -> None:
    # inference_speed computes what no context changes (weights, experts, all-reduces) once for all the
    # decode steps: the sum must be decode_step's, step by step, exactly.
    from calculators.performance.roofline import decode_contexts

    spec = get_model(model)
    result = inference_speed(spec, H100, new_tokens=700, **settings)
    steps = decode_contexts(int(str(settings["context"])), 700)
    decode_s = sum(count * decode_step(spec, H100, **{**settings, "context": context}).time_s
                   for count, context in steps)
    assert result.generation_time_s == result.request_overhead_s + result.prefill.time_s + decode_s


def test_long_generations_are_sampled_close_to_the_exact_sum() -> None:
    spec = get_model("llama-3.2-1b")
    long = inference_speed(spec, H100, batch=4, context=64, new_tokens=2000)
    exact = long.prefill.time_s + sum(decode_step(spec, H100, batch=4, context=c).time_s for c in range(65, 2064))
    assert long.generation_time_s == pytest.approx(exact, rel=1e-4)


@settings(max_examples=40, deadline=None)
@given(model=st.sampled_from(["llama-3-8b", "mixtral-8x7b", "gemma-2-9b"]), batch=st.integers(1, 2000),
       context=st.integers(1, 100000))
def test_more_batch_never_lowers_aggregate_and_never_raises_per_sequence_speed(model: str, batch: int,
                                                                               context: int) -> None:
    spec = get_model(model)
    small = decode_step(spec, H100, batch=batch, context=context)
    large = decode_step(spec, H100, batch=batch + 1, context=context)
    assert large.aggregate_tokens_per_s >= small.aggregate_tokens_per_s * (1 - 1e-12)
    assert large.tokens_per_s <= small.tokens_per_s * (1 + 1e-12)


@settings(max_examples=40, deadline=None)
@given(batch=st.integers(1, 512), context=st.integers(1, 200000), extra=st.integers(1, 10000))
def test_longer_context_is_never_faster(batch: int, context: int, extra: int) -> None:
    spec = get_model("llama-3-8b")
    assert (decode_step(spec, H100, batch=batch, context=context + extra).time_s
            >= decode_step(spec, H100, batch=batch, context=context).time_s)


@pytest.mark.parametrize("batch", [1, 64, 1024])
def test_fewer_weight_bytes_at_the_same_compute_rate_are_never_slower(batch: int) -> None:
    spec = get_model("llama-3-8b")
    times = [decode_step(spec, H100, weights=w, batch=batch, context=2048).time_s for w in ("bf16", "int8", "int4")]
    assert times == sorted(times, reverse=True)


def test_every_time_is_at_least_its_bound() -> None:
    result = inference_speed(get_model("qwen2.5-7b"), get_gpu("a100-80gb-sxm"), batch=16, context=1000,
                             new_tokens=10)
    for step in (result.first_step, result.last_step, result.prefill):
        assert step.time_s >= step.bound_time_s > 0
        assert math.isfinite(step.time_s)


# ----------------------------------------------------------------- against published measurements
def _errors() -> list[float]:
    errors = []
    for r in DECODE_THROUGHPUT:
        result = inference_speed(get_model(r.model_id), get_gpu(r.gpu_id), weights=r.weights, kv_cache=r.kv_cache,
                                 batch=r.batch, context=r.input_tokens, new_tokens=r.output_tokens,
                                 gpus=r.tensor_parallel)
        errors.append(result.output_tokens_per_s / r.tensor_parallel / r.output_tokens_per_s_per_gpu - 1)
    return errors


def test_throughput_against_tensorrt_llm_stays_within_the_documented_spread() -> None:
    # Measured: NVIDIA TensorRT-LLM docs/source/performance.md (v0.6.1), quoted in performance/published.py.
    errors = _errors()
    assert statistics.median(abs(e) for e in errors) < 0.25
    assert all(-0.5 < e < 1.5 for e in errors)


def test_long_output_single_gpu_rows_are_within_ten_percent() -> None:
    # Decode-dominated rows (2048 output tokens, one GPU): the regime the roofline describes best.
    rows = [(r, e) for r, e in zip(DECODE_THROUGHPUT, _errors()) if r.output_tokens == 2048 and r.tensor_parallel == 1]
    assert len(rows) == 3
    assert all(abs(e) < 0.10 for _, e in rows)


def test_long_prompt_first_token_latency_within_fifteen_percent() -> None:
    # TensorRT-LLM v0.5 first-token latency at 2048-token prompts, A100 FP16 (compute-bound prefill).
    for t in FIRST_TOKEN_LATENCY:
        if t.input_tokens == 2048 and t.gpu_id == "a100-80gb-sxm":
            step = prefill(get_model(t.model_id), get_gpu(t.gpu_id), weights=t.weights, kv_cache=t.weights,
                           context=t.input_tokens, gpus=t.tensor_parallel)
            assert step.time_s == pytest.approx(t.latency_s, rel=0.15)


# ----------------------------------------------------------------- batching
def test_static_utilisation_is_mean_over_max() -> None:
    assert static_utilisation([1, 3]) == pytest.approx(2 / 3)
    assert batching_utilisation([5, 5, 5], policy="static") == 1.0
    assert batching_utilisation([1, 100], policy="continuous") == 1.0
    assert uniform_lengths(10, 10, count=3) == [10, 10, 10]


@pytest.mark.parametrize(("call", "field"), [
    (lambda: static_utilisation([]), "lengths"),
    (lambda: static_utilisation([0, 4]), "lengths"),
    (lambda: batching_utilisation([4], policy="paged"), "policy"),
    (lambda: uniform_lengths(10, 5), "longest"),
])
def test_bad_batching_input_names_the_field(call: object, field: str) -> None:
    with pytest.raises(InputError) as error:
        call()  # type: ignore[operator]
    assert error.value.field == field


# ----------------------------------------------------------------- errors and CLI
@pytest.mark.parametrize(("settings_", "field"), [
    ({"batch": 0}, "batch"), ({"context": 0}, "context"), ({"gpus": 0}, "gpus"), ({"weights": "int3"}, "weights"),
    ({"kv_cache": "int4"}, "kv_cache"), ({"bandwidth_efficiency": 0}, "bandwidth_efficiency"),
    ({"compute_efficiency": 1.5}, "compute_efficiency"), ({"collective_efficiency": "nan"}, "collective_efficiency"),
    ({"interconnect": "carrier-pigeon"}, "interconnect"),
    ({"new_tokens": -1}, "new_tokens"), ({"context": 1 << 24, "new_tokens": 1}, "new_tokens"),
])
def test_invalid_speed_input_raises_naming_the_field(settings_: dict[str, object], field: str) -> None:
    with pytest.raises(InputError) as error:
        inference_speed(get_model("llama-3-8b"), H100, **settings_)  # type: ignore[arg-type]
    assert error.value.field == field


def test_rate_lookup_falls_back_to_fp16_and_reports_unknown() -> None:
    from calculators.dtypes import DType

    assert compute_rate_flop_per_s(get_gpu("t4"), DType.BF16) == 65e12
    assert compute_rate_flop_per_s(resolve_gpu("custom:memory_gb=128,bandwidth_gbps=546"), DType.BF16) is None
    assert compute_rate_flop_per_s(get_gpu("a100-80gb-sxm"), DType.FP8) == 312e12  # no FP8 on Ampere


def test_cli_speed_json_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["speed", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--batch", "4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["batch"] == 4 and data["fits"] is True and data["decode_tokens_per_s"] > 0
    assert main(["speed", "--model", "llama-3-8b", "--gpu", "h100-sxm"]) == 0
    assert "tokens/s per sequence" in capsys.readouterr().out
    assert main(["speed", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--compute-efficiency", "2"]) == 2
    assert capsys.readouterr().err.startswith("mlhw: error: --compute-efficiency: got")
    assert main(["speed", "--model", "llama-3-8b", "--gpu", "h101"]) == 2


def test_transformers_on_hopper_warns_about_cudnn_plan_builds() -> None:
    # PyTorch tries cuDNN attention first from compute capability 9.0 (Hopper); the A100 is 8.0.
    spec = get_model("llama-3-8b")
    assert CUDNN_PLAN_NOTE in inference_speed(spec, "h100-sxm", engine="transformers").notes
    assert CUDNN_PLAN_NOTE not in inference_speed(spec, "a100-80gb-sxm", engine="transformers").notes
    assert CUDNN_PLAN_NOTE not in inference_speed(spec, "h100-sxm", engine="vllm").notes


def test_the_cudnn_note_states_the_measured_gap() -> None:
    # The note's "16-76 ms" is the range of (SDPA - eager) decode step times over the shared H100 runs
    # with the same model, batch and prompt (tests/data/measurements_cuda/h100-sxm/cases.jsonl).
    path = Path(__file__).resolve().parents[1] / "data/measurements_cuda/h100-sxm/cases.jsonl"
    steps = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        run = json.loads(line)
        if run["kind"] == "infer" and not run.get("out_of_memory"):
            steps[(run["model"], run["batch"], run["seq"], run["attention"])] = run["decode_step_s"]
    gaps_ms = [1000 * (steps[(m, b, s, "sdpa")] - steps[(m, b, s, "eager")])
               for (m, b, s, attention) in steps if attention == "eager"]
    assert len(gaps_ms) == 6
    assert f"{min(gaps_ms):.0f}-{max(gaps_ms):.0f} ms longer" in CUDNN_PLAN_NOTE


def test_engines_without_a_grouped_query_kernel_reread_each_kv_head_per_query_head() -> None:
    # Llama 2 70B has 64 query heads and 8 KV heads (its config.json): a kernel with one query head per block
    # reads each KV head 8 times, 7 of them repeats (TensorRT-LLM's XQA blog: the XQA kernel, from v0.8, reads
    # it once per group). The repeats are timed at the engine's re-read cost of a read from memory.
    from calculators.catalog.engines import get_engine
    from calculators.performance.inference_speed import SpeedSetup, decode_work, repeated_kv_traffic

    spec, gpu = get_model("llama-2-70b"), get_gpu("h200")
    old = SpeedSetup.of(engine="tensorrt-llm-0.7", weights="fp8", kv_cache="fp8", batch=64, context=2048)
    new = SpeedSetup.of(engine="tensorrt-llm", weights="fp8", kv_cache="fp8", batch=64, context=2048)
    assert (repeated_kv_traffic(spec, old), repeated_kv_traffic(spec, new)) == ((7, 0), (0, 0))
    _, _, once = decode_work(spec, gpu, new, 2048)
    _, _, again = decode_work(spec, gpu, old, 2048)
    assert once.kv_reread_s == 0.0
    assert again.kv_reread_s == pytest.approx(7 * once.attention_memory_s)
    cost = get_engine("tensorrt-llm-0.7").value("kv_reread_cost")
    slow = decode_step(spec, gpu, engine="tensorrt-llm-0.7", weights="fp8", kv_cache="fp8", batch=64, context=2048)
    fast = decode_step(spec, gpu, engine="tensorrt-llm", weights="fp8", kv_cache="fp8", batch=64, context=2048)
    extra_s = 7 * once.attention_memory_s * cost / old.bandwidth_efficiency
    assert slow.time_s == pytest.approx(fast.time_s + extra_s, rel=1e-6)


def test_multi_head_attention_reads_its_cache_once_on_every_engine() -> None:
    # Llama 2 7B: 32 query heads and 32 KV heads, so there is nothing to re-read, with or without XQA.
    spec = get_model("llama-2-7b")
    steps = [decode_step(spec, H100, engine=engine, batch=32, context=2048).time_s
             for engine in ("tensorrt-llm", "tensorrt-llm-0.7")]
    assert steps[0] == steps[1]
