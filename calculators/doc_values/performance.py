"""Numbers in the prose of the Performance pages: docs/performance/index.md, docs/performance/decode-speed.md,
docs/performance/serving.md and docs/performance/training-time.md.

Each value calls the same calculators as the pages' tables (``decode_step``,
``inference_speed``, ``training_flops_per_token``, ``training_time``, the tensor-parallel
link model) with the settings the sentence names, so the prose cannot drift from the tables.

>>> perf_tp_nvlink_efficiency().text
'0.80'
>>> train_ckpt_half_peak_mfu().text
'38.5 %'
"""

from __future__ import annotations

from calculators.catalog.gpus import get_gpu
from calculators.catalog.interconnects import get_interconnect
from calculators.catalog.models import get_model
from calculators.doc_values.multi_gpu import SMALL_MESSAGE_RUNS
from calculators.inline_values import Value, ValueFunction, bound, declared_values, quantity, value
from calculators.parallel.tensor import latency_per_ring_step_s, link_efficiency
from calculators.model_flops import matmul_parameters
from calculators.performance.inference_speed import (
    DEFAULT_BANDWIDTH_EFFICIENCY,
    DEFAULT_COMPUTE_EFFICIENCY,
    decode_step,
    inference_speed,
)
from calculators.performance.roofline import OVERLAP_EXPONENT, overlapped_s
from calculators.performance.published import (
    DECODE_THROUGHPUT,
    NEMO,
    TRAINING_THROUGHPUT,
    TRT_LLM,
    DecodeThroughput,
)
from calculators.performance.training_time import (
    training_flops_per_token,
    training_time,
)
from calculators.speed_accuracy.errors import error_summary
from calculators.speed_accuracy.serving import scored_serving

EFFICIENCIES = ((f"bandwidth efficiency {DEFAULT_BANDWIDTH_EFFICIENCY:g}, compute efficiency "
                f"{DEFAULT_COMPUTE_EFFICIENCY:g} (the defaults, assumed)"),)
#: The decode example of docs/performance/index.md (key numbers and pitfall).
SPEED_MODEL, SPEED_GPU, SPEED_CONTEXT, SPEED_BATCH = "llama-3.1-8b", "h100-sxm", 4096, 64
#: Batches at or below this count as "moderate" in the validation paragraph.
MODERATE_BATCH = 128
#: The attention pitfall of docs/performance/training-time.md.
ATTENTION_MODEL = "llama-3.1-8b"
#: The recomputation pitfall: a run at half the peak with full recomputation (Llama 2 7B, A100, 4096 tokens).
CKPT_MODEL, CKPT_GPU, CKPT_SEQ, CKPT_UTILISATION = "llama-2-7b", "a100-80gb-sxm", 4096, 0.5


# --------------------------------------------------------------------------- tensor-parallel link inputs
def link_efficiency_value(value_id: str, *, link: str, kind: str, gpus: int = 2) -> Value:
    """Fraction of a link's per-direction bandwidth a large all-reduce over ``gpus`` GPUs reaches (``link_efficiency``)."""
    record = get_interconnect(link)
    return quantity(value_id, link_efficiency(record, gpus=gpus), digits=2, unit="", kind=kind,
                    description=f"Collective efficiency calculators.parallel.tensor uses on {record.name} "
                                f"({gpus} GPUs).",
                    assumptions=(("the one link model (calculators.parallel.links): the median efficiency of the "
                                  "published all_reduce_perf runs of the link's kind"),))


@value("perf-tp-nvlink-efficiency")
def perf_tp_nvlink_efficiency(value_id: str) -> Value:
    """Tensor-parallel collective efficiency of a ring over NVLink (derived from published runs)."""
    return link_efficiency_value(value_id, link="nvlink4", kind="derived")


def ring_step_latency(value_id: str, *, link: str) -> Value:
    """Fixed cost of one ring step on a link, microseconds (``latency_per_ring_step_s``, derived)."""
    record = get_interconnect(link)
    return quantity(value_id, latency_per_ring_step_s(record), scale=1e-6, digits=1, unit="µs", kind="derived",
                    description=f"Per-ring-step latency of a tensor-parallel all-reduce on {record.name}: a published "
                                "small-message all-reduce time divided by its 2 (N-1) ring steps.",
                    assumptions=(SMALL_MESSAGE_RUNS,))


# --------------------------------------------------------------------------- decode examples
@value("perf-batch64-per-sequence-share")
def perf_batch64_per_sequence_share(value_id: str) -> Value:
    """Per-sequence decode speed at batch 64 as a share of batch 1 (Llama 3.1 8B, H100 SXM), percent."""
    spec, gpu = get_model(SPEED_MODEL), get_gpu(SPEED_GPU)
    one = decode_step(spec, gpu, batch=1, context=SPEED_CONTEXT).tokens_per_s
    many = decode_step(spec, gpu, batch=SPEED_BATCH, context=SPEED_CONTEXT).tokens_per_s
    return quantity(value_id, many / one, digits=0, unit="%", kind="derived",
                    description=f"Tokens/s each sequence sees at batch {SPEED_BATCH} over those at batch 1, "
                                f"{spec.name} bf16 on one {gpu.name} with {SPEED_CONTEXT} tokens cached.",
                    assumptions=EFFICIENCIES)


def _decode_error(row: DecodeThroughput) -> float:
    result = inference_speed(get_model(row.model_id), get_gpu(row.gpu_id), weights=row.weights,
                             kv_cache=row.kv_cache, batch=row.batch, context=row.input_tokens,
                             new_tokens=row.output_tokens, gpus=row.tensor_parallel)
    return result.output_tokens_per_s / row.tensor_parallel / row.output_tokens_per_s_per_gpu - 1


@value("perf-validation-moderate-error")
def perf_validation_moderate_error(value_id: str) -> Value:
    """Largest |error| of the one-H100 throughput rows at moderate batch in the validation table, percent."""
    rows = [r for r in DECODE_THROUGHPUT
            if r.gpu_id == "h100-sxm" and r.tensor_parallel == 1 and r.batch <= MODERATE_BATCH]
    worst = max(abs(_decode_error(r)) for r in rows)
    return quantity(value_id, worst, digits=0, unit="%", kind="derived",
                    description=f"Largest absolute error of inference_speed against TensorRT-LLM's one-H100 "
                                f"throughput rows with batch at most {MODERATE_BATCH} ({len(rows)} rows).",
                    assumptions=EFFICIENCIES + (f"measured figures quoted from {TRT_LLM.title}",))


def perf_tp_comm_share(value_id: str, *, batch: int) -> Value:
    """Share of the last decode step spent on tensor-parallel all-reduces in a tensor-parallel validation row, percent."""
    row = next(r for r in DECODE_THROUGHPUT if r.tensor_parallel > 1 and r.batch == batch)
    spec, gpu = get_model(row.model_id), get_gpu(row.gpu_id)
    step = decode_step(spec, gpu, weights=row.weights, kv_cache=row.kv_cache, batch=row.batch,
                       context=row.input_tokens + row.output_tokens, gpus=row.tensor_parallel)
    return quantity(value_id, step.communication_time_s / step.time_s, digits=0, unit="%", kind="derived",
                    description=f"Share of the final decode step that the modelled all-reduces take: {spec.name}, "
                                f"{row.weights}, batch {row.batch}, {row.tensor_parallel} x {gpu.name} "
                                f"(validation row {row.input_tokens}/{row.output_tokens}).",
                    assumptions=EFFICIENCIES + ("all-reduces over the GPUs' NVLink, not overlapped",))


# --------------------------------------------------------------------------- training time
@value("train-flops-check-error")
def train_flops_check_error(value_id: str) -> Value:
    """Largest |error| of training_flops_per_token against NeMo's published FLOP per token, percent."""
    worst = max(abs(training_flops_per_token(get_model(r.model_id), seq=r.seq)
                    / (r.model_flop_per_s_per_gpu / r.tokens_per_s_per_gpu) - 1) for r in TRAINING_THROUGHPUT)
    return quantity(value_id, worst, digits=1, unit="%", kind="derived",
                    description="Largest absolute difference between our FLOP per token and NeMo's (model TFLOP/s "
                                "over tokens/s per GPU) in the FLOP check table.",
                    assumptions=(f"NeMo figures quoted from {NEMO.title}",))


def _attention_and_six_n(seq: int) -> tuple[float, float]:
    spec = get_model(ATTENTION_MODEL)
    total = training_flops_per_token(spec, seq=seq)
    six_n = 6.0 * matmul_parameters(spec)
    return total - six_n, six_n


@value("perf-overlap-exponent")
def perf_overlap_exponent(value_id: str) -> Value:
    """The exponent p of the kernel overlap (m^p + c^p)^(1/p) every pass is timed with."""
    return quantity(value_id, OVERLAP_EXPONENT, digits=0, unit="", kind="derived",
                    description="roofline.OVERLAP_EXPONENT: the overlap of a kernel's memory and compute times, read "
                                "from measured GEMM kernels near the ridge (calculators.performance.kernel_overlap).")


@value("perf-overlap-ridge-factor")
def perf_overlap_ridge_factor(value_id: str) -> Value:
    """How many times either leg a kernel takes at the ridge, where its memory and compute times are equal."""
    return quantity(value_id, overlapped_s(1.0, 1.0), digits=2, unit="", kind="derived",
                    description="roofline.overlapped_s(1, 1): a kernel's time at the ridge over either of its two "
                                "equal legs, 2^(1/p).")


@value("train-attention-share-8k")
def train_attention_share_8k(value_id: str) -> Value:
    """Share of Llama 3.1 8B's training FLOPs per token that attention takes at 8,192 tokens, percent."""
    attention, six_n = _attention_and_six_n(8192)
    return quantity(value_id, attention / (attention + six_n), digits=0, unit="%", kind="derived",
                    description=f"Attention term of training_flops_per_token over the whole count, "
                                f"{get_model(ATTENTION_MODEL).name} at sequence length 8192.")


@value("train-attention-ratio-32k")
def train_attention_ratio_32k(value_id: str) -> Value:
    """Attention FLOPs over the 6·N term for Llama 3.1 8B at 32,768 tokens (a ratio)."""
    attention, six_n = _attention_and_six_n(32768)
    return quantity(value_id, attention / six_n, digits=2, unit="", kind="derived",
                    description=f"Attention term of training_flops_per_token divided by 6 x matmul parameters, "
                                f"{get_model(ATTENTION_MODEL).name} at sequence length 32768.")


@value("train-ckpt-half-peak-mfu")
def train_ckpt_half_peak_mfu(value_id: str) -> Value:
    """MFU of a run whose GPUs execute at half their peak with full recomputation (training_time), percent."""
    run = training_time(get_model(CKPT_MODEL), get_gpu(CKPT_GPU), tokens=10**12, seq=CKPT_SEQ,
                        mfu=CKPT_UTILISATION, grad_checkpointing=True)
    return quantity(value_id, run.mfu, digits=1, unit="%", kind="derived",
                    description=f"Model FLOPs utilisation of {get_model(CKPT_MODEL).name} training at "
                                f"{CKPT_UTILISATION:g} of the dense peak with full activation recomputation "
                                "(model FLOPs / executed FLOPs x utilisation).",
                    assumptions=(f"sequence length {CKPT_SEQ}, one GPU",))


def train_global_batch_scaling(value_id: str, *, global_batch_tokens: int | None) -> Value:
    """Data-parallel scaling efficiency of Llama 3 70B on 64 H100 SXM with every hop over InfiniBand NDR, percent."""
    run = training_time(get_model("llama-3-70b"), get_gpu("h100-sxm"), tokens=10**12, gpus=64,
                        interconnect="ib-ndr", global_batch_tokens=global_batch_tokens)
    return quantity(value_id, run.scaling_efficiency, digits=0, unit="%", kind="derived",
                    description=f"Scaling efficiency of Llama 3 70B on 64 H100 SXM, DDP with every ring hop over "
                                f"InfiniBand NDR, micro-batch 1 x 2,048 tokens, {run.global_batch_tokens:,} tokens "
                                "per optimizer step (training_time).",
                    assumptions=("global batch: one micro-batch per GPU (the default)" if global_batch_tokens is None
                                 else f"global_batch_tokens={global_batch_tokens:,}",))


def _serving_errors(key: str) -> list[float]:
    return [row[key] for row in scored_serving() if not row["skipped"] and row[key] is not None]


@value("perf-serving-scored-count")
def perf_serving_scored_count(value_id: str) -> Value:
    """How many published serving runs at a stated concurrency serving_load is scored on."""
    return quantity(value_id, len(_serving_errors("separate_error")), digits=0, unit="", kind="measured",
                    description="Published serving runs in tests/data/published_speed that state their concurrency, "
                                "prompt and output lengths (calculators.speed_accuracy.serving).")


def perf_serving_error(value_id: str, *, key: str, statistic: str) -> Value:
    """Median or 90th-percentile |error| of a serving model on the runs at a stated concurrency, percent."""
    summary = error_summary(_serving_errors(key))
    model = "serving_load (separate prefill)" if key == "separate_error" else "a static batch of that many"
    return quantity(value_id, summary[statistic], digits=0, unit="%", kind="derived",
                    description=f"{'Median' if statistic == 'median' else '90th percentile'} absolute error of "
                                f"{model} on the {summary['n']:.0f} published serving runs at a stated concurrency, "
                                "engine constants refitted without each run's source.",
                    assumptions=("errors on the speed axis; nearest-rank percentile",))


VALUES: dict[str, ValueFunction] = declared_values(globals(), {
    "perf-tp-pcie-efficiency": bound(link_efficiency_value, link="pcie4", kind="derived"),
    "perf-tp-nvlink-step-latency": bound(ring_step_latency, link="nvlink4"),
    "perf-tp-pcie-step-latency": bound(ring_step_latency, link="pcie4"),
    "perf-tp70b-comm-share-b1024": bound(perf_tp_comm_share, batch=1024),
    "perf-tp70b-comm-share-b64": bound(perf_tp_comm_share, batch=64),
    **{f"perf-serving-{name}-{statistic}": bound(perf_serving_error, key=f"{key}_error", statistic=statistic)
       for name, key in (("load", "separate"), ("static", "static")) for statistic in ("median", "p90")},
    "train-global-batch-default-scaling": bound(train_global_batch_scaling, global_batch_tokens=None),
    "train-global-batch-4m-scaling": bound(train_global_batch_scaling, global_batch_tokens=4 * 10**6),
})
