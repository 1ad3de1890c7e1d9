"""The measured sustained matrix-multiply rates (calculators.catalog.gpu_records.matmul_rates) and what they time.

Expected values are the measurements' own figures: AMD's 'Measuring Max-Achievable FLOPs - Part 2' Table 1 (MI300X
708 / 1,273 TFLOPS, MI325X 843 / 1,519) and the NVIDIA forum thread on the T4 (cuBLAS FP16 4096^3 about 24 TFLOPS
under its 70 W cap, against the datasheet's 65).
"""

from __future__ import annotations

import pytest

from calculators.catalog.gpu_records.matmul_rates import RATES
from calculators.catalog.gpus import get_gpu
from calculators.dtypes import DType
from calculators.performance.flops import compute_rate_flop_per_s, sustained_rate_flop_per_s


@pytest.mark.parametrize("gpu_id", sorted(RATES))
def test_a_measured_rate_is_below_the_datasheet_rate_and_cited(gpu_id: str) -> None:
    # A sustained rate above the datasheet's would be a sparsity headline or a misread unit; one below a quarter of it
    # a misread one too (the lowest measured, the power-capped T4, holds 0.37).
    gpu, rate = get_gpu(gpu_id), RATES[gpu_id]
    peak = compute_rate_flop_per_s(gpu, DType.BF16)
    assert peak is not None and 0.25 * peak < rate.bf16_flop_per_s < peak
    if rate.fp8_flop_per_s is not None:
        assert gpu.fp8_dense_flop_per_s is not None and 0.25 * gpu.fp8_dense_flop_per_s < rate.fp8_flop_per_s
        assert rate.fp8_flop_per_s < gpu.fp8_dense_flop_per_s
    assert rate.source.kind == "measured" and rate.source.url.startswith("https://")
    sources = dict(gpu.field_sources)
    assert sources["sustained_bf16_flop_per_s"] == rate.source
    assert gpu.sustained_bf16_flop_per_s == rate.bf16_flop_per_s and gpu.sustained_fp8_flop_per_s == rate.fp8_flop_per_s


@pytest.mark.parametrize(("gpu_id", "bf16_tflops", "fp8_tflops"),
                         [("mi300x", 708.0, 1273.0), ("mi325x", 843.0, 1519.0), ("t4", 24.0, None)])
def test_the_rates_are_the_measurements(gpu_id: str, bf16_tflops: float, fp8_tflops: float | None) -> None:
    gpu = get_gpu(gpu_id)
    assert sustained_rate_flop_per_s(gpu, DType.BF16) == pytest.approx(bf16_tflops * 1e12)
    if fp8_tflops is not None:
        assert sustained_rate_flop_per_s(gpu, DType.FP8) == pytest.approx(fp8_tflops * 1e12)


def test_a_t4_prompt_is_timed_at_what_the_card_sustains_and_the_answer_says_so() -> None:
    # 65 / 24 = 2.7 times the datasheet-rate compute time, for the same engine efficiency.
    from calculators.catalog.models import get_model
    from calculators.performance.inference_speed import inference_speed, prefill

    spec, t4 = get_model("qwen2.5-1.5b"), get_gpu("t4")
    step = prefill(spec, t4, engine="generic", weights="fp16", kv_cache="fp16", context=1475)
    assert step.compute_time_s == pytest.approx(step.flops / (24e12 * 0.6))  # generic: 0.6 of the rate
    notes = inference_speed(spec, t4, weights="fp16", kv_cache="fp16", context=1475).notes
    assert any("24 TFLOPS" in note and "65.0" in note for note in notes)


def test_a_gpu_with_no_measurement_keeps_its_datasheet_rate() -> None:
    # matmul_rates says why: the H100 SXM's measured 794.5 of 989.4 is within what the fitted efficiencies absorb.
    h100 = get_gpu("h100-sxm")
    assert h100.sustained_bf16_flop_per_s is None and h100.sustained_fp8_flop_per_s is None
    assert sustained_rate_flop_per_s(h100, DType.FP8) == compute_rate_flop_per_s(h100, DType.FP8)
