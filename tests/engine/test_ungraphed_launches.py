"""The host's kernel launches in passes no CUDA graph replays: TensorRT-LLM's published runs.

Expected values are derived by hand from the measurements the catalog cites (llama.cpp issue #6763: 143.35 tok/s
launching each kernel, 163.83 with one CUDA graph, Llama-2-7B's 32 layers; its H100 PCIe at 2.0 TB/s and the model's
3.80 GiB) and the GPUs' datasheet peaks, not copied from the code under test.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from calculators.catalog.engine_kernels import exposed_launch_s
from calculators.catalog.engines import Fitted, get_engine
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.performance.inference_speed import decode_work, prefill_work
from calculators.performance.speed_setup import SpeedSetup

#: llama.cpp's measured saving per layer: (1 / 143.35 - 1 / 163.83) s / 32 layers.
LAUNCH_S_PER_LAYER = (1 / 143.35 - 1 / 163.83) / 32
#: The measured step's layer time at the peaks: 3.80 GiB / 2.0 TB/s / 32 layers = 63.8 us.
REFERENCE_S = 3.80 * 2**30 / 2.0e12 / 32
SPEC, H200 = get_model("llama-2-7b"), get_gpu("h200")


def _setup(*, own_fit: bool, context: int) -> SpeedSetup:
    engine = get_engine("tensorrt-llm-0.9")
    if not own_fit:  # as held out: its cost per layer is the pooled one of graph-replaying engines, fitted on none of it
        engine = replace(engine, step_overhead_s_per_layer=Fitted(7.7e-5))
    return SpeedSetup.of(engine=engine, weights="fp8", kv_cache="fp8", context=context)


def test_a_short_pass_waits_for_every_launch() -> None:
    # A batch-1 decode step of Llama-2-7B FP8 on an H200 reads 6.7 GB over 4.8 TB/s: 44 us per layer, shorter than the
    # measured step's 63.8 us, so all 32 layers' launches are exposed: 32 x 27.3 us = 0.872 ms.
    work = decode_work(SPEC, H200, _setup(own_fit=False, context=128), 128)[2]
    assert work.host_launch_s == pytest.approx(32 * LAUNCH_S_PER_LAYER, rel=1e-9)
    assert work.host_launch_s == pytest.approx(0.872e-3, rel=0.001)


def test_a_long_prompt_hides_most_of_them() -> None:
    # A 2,048-token prompt: 2 x 6.74e9 x 2048 FLOP at 1,979 TFLOPS (H200 FP8 dense) = 13.9 ms, 436 us per layer (more
    # with attention), so at most 63.8 / 436 = 15 % of the launches are exposed.
    work = prefill_work(SPEC, H200, _setup(own_fit=False, context=2048))[2]
    assert 0.0 < work.host_launch_s <= 0.15 * 32 * LAUNCH_S_PER_LAYER


def test_an_engine_fitted_on_its_own_runs_already_carries_them() -> None:
    # TensorRT-LLM's own cost per layer is fitted on its runs, which launched every pass from the host.
    assert get_engine("tensorrt-llm").step_overhead_s_per_layer.fitted_on
    for work in (decode_work(SPEC, H200, _setup(own_fit=True, context=128), 128)[2],
                 prefill_work(SPEC, H200, _setup(own_fit=True, context=128))[2]):
        assert work.host_launch_s == 0.0


def test_an_engine_replaying_decode_graphs_pays_them_in_its_prefills_only() -> None:
    # vLLM's fitted cost per layer comes from graph-replayed decode steps; its prefill is launched eagerly from PyTorch,
    # measured (SGLang PR #1401, flashinfer) at (8.23 - 7.35) ms / 32 layers = 27.5 us per layer. A 128-token prompt of
    # Llama-2-7B FP8 on an H200: max(6.7 GB / 4.8 TB/s, 1.8 TFLOP / 1,979 TFLOPS) = 1.4 ms, 44 us per layer: all exposed.
    setup = SpeedSetup.of(engine="vllm", weights="fp8", kv_cache="fp8", context=128)
    assert decode_work(SPEC, H200, setup, 128)[2].host_launch_s == 0.0
    assert prefill_work(SPEC, H200, setup)[2].host_launch_s == pytest.approx(32 * (8.23e-3 - 7.35e-3) / 32, rel=1e-9)
    assert prefill_work(SPEC, get_gpu("mi300x"), setup)[2].host_launch_s == 0.0  # measured on NVIDIA GPUs only


@pytest.mark.parametrize(("per_layer", "share"), [(REFERENCE_S, 1.0), (REFERENCE_S / 2, 1.0), (4 * REFERENCE_S, 0.25)])
def test_exposure_is_whole_up_to_the_measured_step_then_falls_as_its_length(per_layer: float, share: float) -> None:
    assert exposed_launch_s(LAUNCH_S_PER_LAYER, layers=10, peak_s=10 * per_layer) == pytest.approx(
        10 * LAUNCH_S_PER_LAYER * share)
