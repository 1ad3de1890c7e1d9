"""The continuous-batching serving model on the published runs that state their concurrency: no regression.

Figures are quoted from their documents (tests/data/published_speed); the errors come from the
scorer (calculators.speed_accuracy.serving, printed by scripts/score_serving_load.py) with the
engine constants refitted without each figure's own source. Nothing is fitted to these scores:
the limits are what the model reached when this test was written (separate prefill: median
5.7 %, 90th percentile 15.3 % over 13 figures; the static batch: 7.8 % / 23.4 %), with a little
room, so a change that makes serving_load worse on them fails here.
"""

from __future__ import annotations

from calculators.speed_accuracy.errors import error_summary
from calculators.speed_accuracy.serving import scored_serving

#: (median, 90th percentile) limits on |error| of serving_load with separate prefill passes.
#: With SGLang's DeepSeek-R1 sweep on 8 x H200 added (issue 28): 11.9 % / 40.4 % over 17 figures (its TPOT figures
#: are within 14 %; the worst are wmx-l4's first token and output rates); 7.8 % / 19.7 % once the custom all-reduce
#: kernels and vLLM's cost per sequence per step are modelled. 8.6 % / 25.0 % once TensorRT-LLM v0.8-v0.9 runs an FP8
#: mixture of experts' expert GEMMs at the 16-bit rate (its MoE plugin had no FP8 GEMM): Mixtral's FP8 rows no longer
#: hold the pooled expert efficiency down, and SGLang's DeepSeek-R1 runs, whose only source is held out here, take
#: the higher pooled value (+28..+36 % at concurrency 32-64): a compensating error removed; the limits follow, once.
#: 8.5 % / 18.6 % once a tensor-parallel decode step reads the KV cache each GPU holds (DeepSeek-R1's MLA latent
#: whole on each of 8 GPUs, SGLang's data-parallel attention guide).
#: 8.4 % / 20.7 % once TensorRT-LLM v0.9's expert GEMMs run on Hopper at mma.sync's 2/3 of the tensor rate
#: (engine_kernels.MMA_SYNC_ON_HOPPER_SOURCE): its Mixtral FP8 rows no longer hold the pooled FP8 and expert
#: efficiencies down (0.460 -> 0.479, 0.824 -> 0.857), so SGLang's DeepSeek-R1 TPOT at concurrency 64, held out with
#: its only source, goes from about +18.6 % to +20.7 % (the 16th of 17): the same compensating error as before,
#: removed further by a sourced term; the p90 limit follows, once.
#: 8.9 % / 22.3 % once a kernel's memory and compute times overlap in part (roofline.overlapped_s, p = 4 from measured
#: GEMM kernels): passes near the ridge no longer hold the pooled bandwidth and FP8 efficiencies down (0.832 -> 0.843),
#: so the same held-out SGLang DeepSeek-R1 TPOT at concurrency 64 goes from +20.5 % to +22.3 % (still the 16th of 17);
#: the p90 limit follows, once.
LIMITS = (0.09, 0.23)


def test_serving_load_does_not_regress_on_runs_at_a_stated_concurrency() -> None:
    rows = [row for row in scored_serving() if not row["skipped"]]
    assert len(rows) >= 13
    assert all(row["separate_error"] is not None for row in rows)  # every measured run fits its GPU
    summary = error_summary([row["separate_error"] for row in rows])
    assert summary["median"] <= LIMITS[0] and summary["p90"] <= LIMITS[1], summary


def test_a_run_without_prompt_or_output_lengths_is_skipped_with_its_reason() -> None:
    skipped = [row for row in scored_serving() if row["skipped"]]
    assert skipped and all("no stated" in row["skipped"] and row["static_error"] is None for row in skipped)
