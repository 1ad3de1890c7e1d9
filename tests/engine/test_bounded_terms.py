"""No unbounded term (issue #28): every catalog GPU, every Apple chip a ``mac:`` description names, every engine.

A speed or time answer is bounded by what it can see: a compute rate (else a prefill is timed by
bandwidth alone, as if the GPU multiplied infinitely fast), a link for every multi-GPU answer, and
the fixed costs the engine's fits define. This walks the whole catalog with a small job (Qwen3
0.6B, one short prompt: the issue's M3 Ultra example) and a large one (Llama 3 70B, a batch of 8 at
8k context), on 1, 2 and 8 GPUs, through :func:`inference_speed` and :func:`training_time`, and
fails on a term that is missing or zero where the inputs define it. A combination may instead be
refused, but only for a reason the catalog states: a format the GPU does not run, Macs that have no
GPU-to-GPU link, FP8 training on a GPU with no published FP8 rate.
"""

from __future__ import annotations

from typing import Any

import pytest

from calculators.catalog.apple_chips import CHIPS, AppleChip
from calculators.inputs.gpu import resolve_gpu
from calculators.catalog.engines import engine_ids, get_engine
from calculators.catalog.gpus import GPU, all_gpus
from calculators.catalog.models import get_model
from calculators.dtype_support import UnsupportedFormatError, on_gpu, runs_natively
from calculators.errors import InputError
from calculators.performance.inference_speed import inference_speed
from calculators.performance.steps import InferenceSpeed
from calculators.performance.training_time import training_time

SMALL = {"spec": "qwen3-0.6b", "batch": 1, "context": 512}
LARGE = {"spec": "llama-3-70b", "batch": 8, "context": 8192}
GPU_COUNTS = (1, 2, 8)


def _mac(chip: AppleChip) -> GPU:
    # A chip whose bandwidth no read source gives needs the user's figure (else speed answers are refused).
    bandwidth = "" if chip.bandwidth_bytes_per_s is not None else ",bandwidth_gbps=100"
    return resolve_gpu(f"mac:memory_gb=64,chip={chip.id}{bandwidth}")


SUBJECTS: tuple[GPU, ...] = (*all_gpus(), *(_mac(chip) for chip in CHIPS))


def unbounded_terms(result: InferenceSpeed, *, engine: str, layers: int, vendor: str = "") -> list[str]:
    """What is missing or zero in ``result`` that its inputs define (empty: every term is bounded)."""
    problems = []
    for label, step in (("prefill", result.prefill), ("decode", result.first_step)):
        if step.compute_time_s is None or not step.compute_time_s > 0:
            problems.append(f"{label}: no compute time (bounded by bandwidth alone)")
        if result.gpus > 1 and not step.communication_time_s > 0:
            problems.append(f"{label}: {result.gpus} GPUs but no link time")
        chosen = get_engine(engine)
        per_layer = chosen.value("step_overhead_s_per_layer")
        # An engine whose host works through every sequence between steps (vLLM) adds a cost per sequence.
        per_sequence = chosen.value("sequence_overhead_s") if chosen.host_work_per_sequence else 0.0
        # A build with no CUDA graph waits for the CPU's launches in each decode step on an NVIDIA GPU (engine_kernels).
        launches = chosen.host_launch_s_per_layer if label == "decode" and vendor == "NVIDIA" else 0.0
        # On an Apple GPU an engine's measured Metal cost per layer stands in for its fitted one in decode steps.
        if label == "decode" and vendor == "Apple" and chosen.metal_step_s_per_layer:
            per_layer = chosen.metal_step_s_per_layer
        expected = layers * (per_layer + launches) + result.batch * per_sequence
        # An engine that replays graphs for decode only launches each prefill from the host (pass_peaks): some share of
        # its measured launches per layer, more than none and at most all (engine_kernels.exposed_launch_s).
        ungraphed = (chosen.ungraphed_launch_s_per_layer
                     if label == "prefill" and chosen.graph_replay and vendor == "NVIDIA" else 0.0)
        if ungraphed:
            if not expected < step.overhead_time_s <= expected + layers * ungraphed * (1 + 1e-9):
                problems.append(f"{label}: fixed cost {step.overhead_time_s} where the engine defines {per_layer} per "
                                f"layer and up to {ungraphed} per layer of launches")
        elif step.overhead_time_s != pytest.approx(expected) or (per_layer > 0 and not step.overhead_time_s > 0):
            problems.append(f"{label}: fixed cost {step.overhead_time_s} where the engine defines {per_layer} per layer "
                            f"and {per_sequence} per sequence")
    if result.request_overhead_s != get_engine(engine).value("request_overhead_s"):
        problems.append("request overhead differs from the engine's")
    if result.gpus > 1 and not any("tensor parallel over" in line for line in result.assumptions):
        problems.append("multi-GPU answer names no link")
    return problems


def _refusal_is_stated(gpu: GPU, error: InputError, *, gpus: int) -> bool:
    """A refusal for a reason the catalog states: a Mac has no GPU-to-GPU link (one device per machine)."""
    return gpu.vendor == "Apple" and gpus > 1 and error.field == "interconnect"


def _settings(gpu: GPU, *, weights: str) -> dict[str, Any]:
    return on_gpu(gpu, {"weights": weights, "kv_cache": "bf16"})


@pytest.mark.parametrize("gpu", SUBJECTS, ids=lambda g: g.name)
def test_every_inference_answer_is_bounded(gpu: GPU) -> None:
    answered = 0
    for job in (SMALL, LARGE):
        spec = get_model(str(job["spec"]))
        for engine in engine_ids():
            for gpus in GPU_COUNTS:
                try:
                    result = inference_speed(spec, gpu, new_tokens=16, engine=engine, gpus=gpus, batch=job["batch"],
                                             context=job["context"], **_settings(gpu, weights="bf16"))
                except InputError as error:
                    assert _refusal_is_stated(gpu, error, gpus=gpus), (engine, gpus, str(error))
                    continue
                answered += 1
                assert unbounded_terms(result, engine=engine, layers=spec.num_layers, vendor=gpu.vendor) == [], (
                    engine, gpus, job)
    assert answered >= len(engine_ids()) * 2  # at least every engine on one GPU, for both jobs


@pytest.mark.parametrize("gpu", [g for g in SUBJECTS if runs_natively(g, "fp8")], ids=lambda g: g.name)
def test_an_fp8_rate_that_is_not_published_is_a_lower_rate_with_a_warning(gpu: GPU) -> None:
    result = inference_speed(get_model("llama-3-8b"), gpu, weights="fp8", kv_cache="fp8", batch=64, context=2048)
    warned = any("no published dense FP8 rate" in note for note in result.notes)
    assert warned == (gpu.fp8_dense_flop_per_s is None)
    assert result.prefill.compute_time_s is not None and result.prefill.compute_time_s > 0


@pytest.mark.parametrize("gpu", SUBJECTS, ids=lambda g: g.name)
def test_every_training_answer_is_bounded(gpu: GPU) -> None:
    precision = on_gpu(gpu, {"precision": "bf16-mixed"})["precision"]
    for job in (SMALL, LARGE):
        spec = get_model(str(job["spec"]))
        for gpus in GPU_COUNTS:
            try:
                result = training_time(spec, gpu, tokens=10**9, gpus=gpus, precision=precision, seq=2048)
            except InputError as error:
                assert _refusal_is_stated(gpu, error, gpus=gpus), (gpus, str(error))
                continue
            assert result.rate_flop_per_s > 0 and 0 < result.time_s < float("inf")
            assert any("host time" in line for line in result.assumptions)  # the per-micro-batch fixed cost
            if gpus > 1:
                assert result.scaling.link_id != "none" and result.scaling.communication_s > 0, gpus
        if runs_natively(gpu, "fp8"):
            try:
                fp8 = training_time(spec, gpu, tokens=10**9, fp8=True, seq=2048)
            except InputError as error:  # refused for that format, never timed at an unknown rate
                assert error.field == "gpu" and gpu.fp8_dense_flop_per_s is None
            else:
                assert fp8.rate_flop_per_s == gpu.fp8_dense_flop_per_s


def test_the_check_catches_an_unbounded_prefill() -> None:
    # A custom GPU given without a rate is timed by bandwidth alone: the very term this file forbids in the catalog.
    bare = resolve_gpu("custom:memory_gb=80,bandwidth_gbps=3350")
    result = inference_speed(get_model("llama-3-8b"), bare, weights="int4", kv_cache="fp8")
    assert "prefill: no compute time (bounded by bandwidth alone)" in unbounded_terms(result, engine="generic",
                                                                                      layers=32)


def test_a_mac_without_its_chip_is_timed_at_the_lowest_mac_rate_and_warned() -> None:
    # 7 cores x 256 FLOP x 1.278 GHz (the M1's clock, Philip Turner's metal-benchmarks) = 2.29 TFLOPS.
    mac = resolve_gpu("mac:memory_gb=64,bandwidth_gbps=546")
    assert mac.fp32_flop_per_s == pytest.approx(7 * 256 * 1.278e9)
    result = inference_speed(get_model("qwen3-0.6b"), mac, weights="fp16", kv_cache="fp16")
    assert any("lowest of any Mac" in note for note in result.notes)
    assert unbounded_terms(result, engine="generic", layers=28) == []


def test_unsupported_formats_are_refused_not_timed() -> None:
    # bf16 on a V100 (no BF16 path: Volta) is refused naming the field, never timed at some other rate.
    with pytest.raises(UnsupportedFormatError) as error:
        inference_speed(get_model("llama-3-8b"), "v100-sxm2-32gb", weights="bf16")
    assert error.value.field == "weights"
