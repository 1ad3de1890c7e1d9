"""The speed model against published figures: leave-one-source-out errors must not regress.

The figures are quoted from their documents (tests/data/published_speed); the errors are
computed by the scorer (calculators.speed_accuracy), not timed. Issue 14's targets
(median |error| <= 15 %, 90th percentile <= 35 % in every category with ten or more
figures) are met in every inference category: ``LIMITS`` holds the figures reached when this test was written,
with a little room, so a change that makes any category worse fails here, and a change
that meets a target should tighten its limit.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from calculators import speed_accuracy
from calculators.speed_accuracy.data import CATEGORIES

#: category -> (median, 90th percentile) limits on the cross-validated |error| (fractions).
#: Reached (scripts/score_speed.py): decode 11 % / 34 %, first token 8 % / 31 %, batched 9 % / 32 %, prefill
#: 14 % / 34 % (all meet the target), once TensorRT-LLM before v0.8 re-reads each KV head per query head and
#: eager transformers copies it per query head (no grouped-query decode kernel; before: decode 11 % / 35 %,
#: first token 13 % / 32 %, batched 9 % / 47 %, the same prefill), with TensorRT-LLM's v0.9.0
#: performance tables added (a second TensorRT-LLM source: 24 first-token and 48 static-batch figures; before
#: it: first token 26 % / 73 %, batched 12 % / 62 %, prefill 14 % / 34 %, decode 11 % / 35 %, reached
#: when attention was first timed after the projections; their times add; before that change: first token
#: 37 % / 75 %, batched 10 % / 62 %). Before the H100 SDPA decode steps were
#: excluded (they time cuDNN plan builds, see their records): decode 17 % / 72 %, first token 35 % / 74 %,
#: batched 12 % / 86 %, prefill 12 % / 33 %. Before the second eager-transformers source (optimum's GPTQ
#: benchmark) and the exclusion of the un-warmed H100 prefill timings: 17 % / 720 %, 68 % / 295 %,
#: 11 % / 711 %, 47 % / 828 %. The batched 90th percentile that misses is TensorRT-LLM v0.9.0's Mixtral 8x7B
#: FP8 figures on H100/H200 wherever compute counts (one source; its L40S rows are close) and eager-transformers
#: figures (the two sources' fixed cost per layer differ by about 2x); the worst first-token figures are the one
#: vLLM run over HTTP (one source) and Mixtral 8x7B FP8 prefills of 2,048 tokens.
#: With the 2025-26 figures of issue 28 added (vLLM on 8 x MI300X, MLX on the M4 Max, SGLang on 8 x H200): decode
#: 12.9 % / 28.3 %, first token 11.1 % / 36.0 %, batched 11.0 % / 34.9 % (before them: 10.5 / 33.8, 9.2 / 31.9,
#: 8.9 / 32.4); vLLM's MI300X runs at TP 8 move its fitted constants, so its H100 first-token figure misses more.
#: Then with the engines' custom all-reduce kernels (2-3 cross-GPU steps, not a ring's 2 (N-1)) and vLLM's fixed
#: cost per sequence per step: decode 12.8 % / 31.6 %, first token 10.9 % / 39.5 %, batched 8.7 % / 30.2 %.
#: With the MI300X's compute timed at AMD's measured sustained rate: batched 8.8 % / 29.7 % (ratchet: lowered to it).
#: With a request's fixed cost only through a server (predict.served): decode 12.9 % / 29.9 %, first token
#: 9.6 % / 37.9 %, batched 8.6 % / 26.4 %, prefill 23.4 % / 33.5 %.
#: With TensorRT-LLM v0.5 / v0.6.1 all-reducing by NCCL's ring (their builds did not opt in to the custom kernel):
#: decode 12.7 % / 29.9 %, first token 9.7 % / 37.6 %, batched 8.5 % / 26.5 % (first token lowered to it).
#: With the pooled fixed cost per layer fitted on the CUDA-graph engines (vLLM, SGLang) only: decode 11.4 % / 29.5 %,
#: first token 9.7 % / 37.6 %, batched 8.8 % / 26.5 % (decode lowered to it).
LIMITS = {
    # With llama.cpp's builds before CUDA graphs paying NVIDIA's measured launch cost per layer: decode 10.9 % / 29.7 %.
    # With llama.cpp's measured fixed cost per layer on Metal (its small models on M-series chips were 20-32 % too
    # fast): 8.3 % / 22.9 %.
    "decode_batch1": (0.09, 0.23),
    # With TensorRT-LLM v0.8-v0.9 running an FP8 mixture of experts' expert GEMMs at the 16-bit rate (no FP8 MoE GEMM
    # before v0.10, engine_kernels.TENSORRT_LLM_MOE_GEMM_SOURCE): first token 7.9 % / 38.0 % (median lowered to it).
    # With a tensor-parallel decode step reading the cache each GPU holds (an MLA latent whole): 7.9 % / 36.8 %.
    # With those expert GEMMs as Ampere mma.sync kernels on Hopper, 2/3 of its tensor rate (FlashAttention-3,
    # engine_kernels.MMA_SYNC_ON_HOPPER_SOURCE): 9.3 % / 25.1 % (Mixtral FP8 TP2 2,048 tokens on H100/H200 +63/+60 % ->
    # +17/+15 %). The median rises: those rows no longer hold TensorRT-LLM's fitted FP8 efficiency down (0.486 ->
    # 0.503), so v0.5's Llama 2 7B FP8 H100 2,048-token row, fitted on v0.9's, goes from +5 % to +9 %: a compensating
    # error removed by a sourced term; the median limit follows, once.
    "time_to_first_token": (0.10, 0.26),
    # The same term raises batched's p90 from 26.4 % to 27.9 %: Mixtral's FP8 rows no longer hold the pooled expert
    # efficiency down, so SGLang's DeepSeek-R1 rows, held out with their only source, take a higher pooled value
    # (+28..+36 % at concurrency 32-64). A compensating error removed by a sourced term; the limit follows, once.
    # With TensorRT-LLM v0.9's expert GEMMs on Hopper at mma.sync's 2/3 of the tensor rate: 8.2 % / 25.6 %.
    "batched_throughput": (0.09, 0.26),
    # 30 figures since the 2026 GPUs were catalogued: MLX's ten M4 Max prompt figures are scored and held out
    # with their source (the only MLX prompt figures), modelled 19-34 % slow: 23.1 % / 33.2 % (was 12.6 % / 34 %
    # on the 20 before them).
    # With the M4 Max timed at its own clock (1,678 MHz, hmc-tech's M4 Max entry; 1,470 before): 20.9 % / 27.3 %.
    # With what llama.cpp and eager transformers do between their matmuls (FP16-accumulate GEMMs, unfused attention
    # scores and elementwise kernels, dequantisation before cuBLAS: calculators.performance.unfused): 7.5 % / 12.2 %.
    # With llama.cpp's pre-graph launch cost at decode (its refitted constants move): 7.9 % / 11.2 %.
    # RAISED (median) with llama.cpp's measured fixed cost per layer on Metal (engine_kernels.LLAMA_CPP_METAL_S_PER_
    # LAYER): its Apple decode figures no longer hold its bandwidth efficiency down (0.866 -> 0.898) and its 16-bit
    # compute efficiency moves 0.689 -> 0.676, so its CUDA prompt figures move 1-3 %: 8.5 % / 11.8 % (decode at batch 1
    # 9.7 % / 29.7 % -> 8.3 % / 22.9 %, below).
    "prefill_throughput": (0.09, 0.12),
    # Reached with the training framework input, FP8 as Amdahl over the linear layers with a framework FP8 recipe
    # factor, and LLaMA-Factory read with its default recomputation: 8.5 % / 34.6 % (before: 20.5 % / 73.6 %).
    # The training categories' own regression limits (on their time-or-throughput axis) are in
    # test_speed_training.py.
    # With the Llama 3 405B rows' interleaved pipeline (V 8) and the overlapped expert-parallel all-to-alls where a row
    # says so: 7.8 % / 28.7 %.
    # RAISED with the unfused elementwise traffic of eager PyTorch runs (see test_speed_training.py): 8.8 % / 30.8 %.
    # With the attention products at their fused kernel's efficiency: 8.2 % / 28.3 % (median still RAISED from 0.08).
    "pre-training": (0.09, 0.29),
}


@functools.cache
def _summary() -> dict[str, dict[str, Any]]:
    return {str(item["category"]): item for item in speed_accuracy.summary(speed_accuracy.all_scored())}


@pytest.mark.parametrize("category", CATEGORIES)
def test_cross_validated_error_does_not_regress(category: str) -> None:
    item = _summary()[category]
    median, p90 = LIMITS[category]
    assert item["n"] >= speed_accuracy.MIN_RECORDS
    assert item["median"] <= median, f"{category}: median |error| {item['median']:.1%} above {median:.0%}"
    assert item["p90"] <= p90, f"{category}: 90th percentile {item['p90']:.1%} above {p90:.0%}"


@pytest.mark.parametrize("category", ["decode_batch1", "time_to_first_token", "batched_throughput"])
def test_engines_beat_the_naive_roofline(category: str) -> None:
    item = _summary()[category]
    assert item["median"] < item["naive_median"] and item["p90"] < item["naive_p90"]


def test_targets_are_reported_for_categories_that_meet_them() -> None:
    # When a category meets issue 14's targets, LIMITS must hold it there. The training and collectives
    # categories are held by REGRESSION_LIMITS in tests/validation/test_speed_training.py.
    for category, item in _summary().items():
        if category in LIMITS and item["median"] <= speed_accuracy.TARGET_MEDIAN and item["p90"] <= speed_accuracy.TARGET_P90:
            assert LIMITS[category][0] <= speed_accuracy.TARGET_MEDIAN
            assert LIMITS[category][1] <= speed_accuracy.TARGET_P90


def test_a_figure_is_never_scored_with_its_own_source() -> None:
    # Leave one source out: a figure's engine constants are refitted without its source, so they
    # never name a figure of that source.
    from calculators.speed_accuracy.data import load_figures, scored
    from calculators.speed_accuracy.inference import loso_fits
    from calculators.speed_accuracy.predict import prepare

    figures = scored(load_figures())
    source_of = {str(f["id"]): str(f["source_id"]) for f in figures}
    for source, (pooled, engine_fit) in loso_fits([prepare(f) for f in figures]).items():
        for fit in (pooled, engine_fit):
            for ids in fit.fitted_on.values():
                assert source not in {source_of[i] for i in ids}


def test_scored_rows_have_the_shared_interface() -> None:
    rows = speed_accuracy.all_scored()
    assert rows and all({"category", "figure_id", "source_id", "measured", "estimated", "naive_roofline"} <= set(r)
                        for r in rows)


#: The same limits for the figures whose engine another source also measures in the category.
#: With llama.cpp's pre-graph launch cost: decode 9.6 % / 32.0 %.
MULTI_SOURCE_LIMITS = {"decode_batch1": (0.10, 0.33), "batched_throughput": (0.10, 0.32)}


@pytest.mark.parametrize("category", sorted(MULTI_SOURCE_LIMITS))
def test_cross_validatable_figures_meet_or_approach_the_targets(category: str) -> None:
    items = {str(i["category"]): i for i in speed_accuracy.summary(speed_accuracy.multi_source(
        speed_accuracy.all_scored()))}
    item = items[category]
    median, p90 = MULTI_SOURCE_LIMITS[category]
    assert item["n"] >= speed_accuracy.MIN_RECORDS
    assert item["median"] <= median and item["p90"] <= p90, item


#: (category, engine) -> (median, 90th percentile) limits for engines measured by two or more sources
#: in the category. Reached: llama.cpp decode 11 % / 32 %, prefill 18 % / 34 %; vLLM decode 8 % / 10 %,
#: batched 8 % / 20 %;
#: TensorRT-LLM batched 9 % / 26 % (85 % before its releases without the XQA kernel re-read each KV head per
#: query head: 70B at TP 2-4 with 2048 new tokens over-promised); eager transformers decode 32 % / 68 % and
#: batched 27 % / 66 % (58 % / 540 % and 49 % / 350 % when first written; its two sources disagree, see LIMITS).
ENGINE_LIMITS = {
    # llama.cpp decode 8.7 % / 24.7 %, prefill 7.8 % / 10.8 % with its pre-graph launch cost (calculators.catalog.
    # engine_kernels.LLAMA_CPP_LAUNCH_S_PER_LAYER)
    ("decode_batch1", "llama.cpp"): (0.08, 0.21),
    # llama.cpp prefill 9.3 % / 11.3 % (RAISED from 0.08) and decode 7.9 % / 20.1 % with its measured Metal fixed cost
    # per layer (the refit above).
    ("prefill_throughput", "llama.cpp"): (0.10, 0.12),  # 9.5 % / 12 % with calculators.performance.unfused
    # vLLM with its MI300X TP-8 runs (issue 28): decode 15 % / 22 %, batched 12 % / 34 % (before 8 % / 10 %, 8 % / 20 %);
    # TensorRT-LLM batched 9 % / 33 % (26 % before: the pooled constants its held-out fits lean on moved). With the
    # custom all-reduce kernels and vLLM's cost per sequence: vLLM decode 10 % / 15 %, batched 8 % / 20 %; TensorRT-LLM
    # batched 9 % / 30 %.
    ("decode_batch1", "vllm"): (0.11, 0.16),
    ("batched_throughput", "vllm"): (0.08, 0.21),
    # TensorRT-LLM batched 9 % / 28 % with v0.8-v0.9's 16-bit expert GEMMs for FP8 Mixtral; 9.2 % / 29.4 % once
    # NVLink SHARP's all-reduce efficiency follows the GPU count (TP4 on H100 at 0.82 of the link, not 1.06): the
    # TP4 FP8 Llama-2-70B row moves +27.3 -> +25.0 %, the pooled constants the held-out fits lean on move the rest;
    # 9.2 % / 29.5 % with AMD's xGMI share (0.75) moving the pooled constants again (no TensorRT-LLM row runs on AMD).
    ("batched_throughput", "tensorrt-llm"): (0.10, 0.296),
    ("decode_batch1", "transformers"): (0.35, 0.75),
    ("batched_throughput", "transformers"): (0.30, 0.70),
}


@pytest.mark.parametrize("category, engine", sorted(ENGINE_LIMITS))
def test_engines_with_two_sources_do_not_regress(category: str, engine: str) -> None:
    rows = [r for r in speed_accuracy.all_scored() if r["category"] == category and r["engine"] == engine]
    assert len({r["source_id"] for r in rows}) >= 2
    (item,) = speed_accuracy.summary(rows)
    median, p90 = ENGINE_LIMITS[(category, engine)]
    assert item["median"] <= median and item["p90"] <= p90, item


def _prepared() -> list[Any]:
    from calculators.speed_accuracy.data import load_figures, scored
    from calculators.speed_accuracy.predict import prepare

    return [prepare(f) for f in scored(load_figures())]


def _constants(seed: int) -> list[dict[str, float]]:
    """The generic start values, both ends of every search range, and random points inside them (log-uniform)."""
    import math
    import random

    from calculators.speed_accuracy import fit

    rng = random.Random(seed)
    low, high = ({name: bounds[end] for name, bounds in fit.BOUNDS.items()} for end in (0, 1))
    drawn = [{name: math.exp(rng.uniform(math.log(a), math.log(b))) for name, (a, b) in fit.BOUNDS.items()}
             for _ in range(6)]
    return [fit._start(), low, high, *drawn]


def test_the_fit_times_a_figure_as_model_time_does_to_the_last_bit() -> None:
    # The golden-section search times the figures with objective.model_times_along, which computes once what the
    # searched constant does not move: its times must be model_time's exactly, or the fitted constants (and every
    # score on the site) would drift.
    from calculators.speed_accuracy import fit, objective

    cases = _prepared()
    for values in _constants(seed=14):
        for name in fit.NAMES:
            relevant = [case for case in cases if fit.depends(case, name)]
            times_at = objective.model_times_along(relevant, values, name)
            for value in (fit.BOUNDS[name][0], values[name], fit.BOUNDS[name][1]):
                expected = [objective.model_time(case, {**values, name: value}) for case in relevant]
                assert [t.hex() for t in times_at(value)] == [t.hex() for t in expected], name


def test_the_fit_loss_is_the_objective_to_the_last_bit() -> None:
    from calculators.speed_accuracy import fit, objective

    cases = _prepared()
    start, *others = _constants(seed=7)
    prior = {name: others[0][name] for name in fit.EFFICIENCIES}
    for values in (start, *others[1:]):
        for name in fit.NAMES:
            relevant = [case for case in cases if fit.depends(case, name)]
            loss = objective.loss_along(relevant, values, name, prior)
            for value in (fit.BOUNDS[name][0], values[name]):
                assert loss(value).hex() == objective.loss(relevant, {**values, name: value}, prior).hex(), name
