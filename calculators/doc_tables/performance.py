"""Tables of the Performance section: docs/performance/index.md and training-time.md.

Every estimate comes from :mod:`calculators.performance`; the measured columns quote
the documents in :mod:`calculators.performance.published`, named in each caption.

>>> table = speed_validation_table()
>>> table.columns[-1]
'error'
"""

from __future__ import annotations

from calculators.catalog.gpus import get_gpu
from calculators.catalog.gpus import _READ as GPU_CATALOG_READ
from calculators.catalog.models import READ_ON as MODEL_CATALOG_READ
from calculators.catalog.models import get_model, get_model_record
from calculators.performance.batching import batching_utilisation, uniform_lengths
from calculators.performance.inference_speed import (
    DEFAULT_BANDWIDTH_EFFICIENCY,
    DEFAULT_COMPUTE_EFFICIENCY,
    decode_step,
    inference_speed,
    prefill,
)
from calculators.performance.published import (
    DECODE_THROUGHPUT,
    FIRST_TOKEN_LATENCY,
    NEMO,
    TRAINING_RUNS,
    TRAINING_THROUGHPUT,
    TRT_LLM,
)
from calculators.performance.training_time import (
    DEFAULT_MFU,
    FALLBACK_MFU,
    default_mfu,
    implied_mfu,
    training_flops_per_token,
    training_time,
)
from calculators.tables import Table, TableFunction

CATALOGS = f"model catalog as of {MODEL_CATALOG_READ}, GPU catalog as of {GPU_CATALOG_READ}"
EFFICIENCIES = (f"bandwidth efficiency {DEFAULT_BANDWIDTH_EFFICIENCY:g}, compute efficiency "
                f"{DEFAULT_COMPUTE_EFFICIENCY:g} (the defaults, assumed); tensor parallel adds 2 ring all-reduces "
                "of the activations per layer over the GPUs' own link (calculators.parallel.tensor: efficiency and "
                "per-step latency derived from published nccl-tests runs), not overlapped")
#: Models and GPUs of the decode reference table.
SPEED_MODELS = ("llama-3.2-3b", "llama-3.1-8b", "qwen2.5-14b", "qwen2.5-32b", "mixtral-8x7b", "llama-3.1-70b")
SPEED_GPUS = ("rtx-4090", "rtx-5090", "l40s", "a100-80gb-sxm", "h100-sxm", "h200", "mi300x", "m4-max")
SPEED_CONTEXT = 4096
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
#: Models and GPU counts of the training reference table.
TRAIN_MODELS = ("llama-3.2-1b", "llama-3.2-3b", "llama-3.1-8b", "qwen2.5-14b", "qwen2.5-32b", "llama-3.1-70b",
                "mixtral-8x7b")
TRAIN_TOKENS = 10**12
TRAIN_GPUS = 256
TRAIN_SEQ = 4096


def _name(model_id: str) -> str:
    return get_model_record(model_id).name


def _pct(error: float) -> str:
    return f"{error * 100:+.0f} %"


def _num(value: float, digits: int = 0) -> str:
    return f"{value:,.{digits}f}"


# --------------------------------------------------------------------------- inference speed page
def speed_key_numbers_table() -> Table:
    """Headline figures of the inference-speed page."""
    l3, mixtral = get_model("llama-3.1-8b"), get_model("mixtral-8x7b")
    h100, rtx = get_gpu("h100-sxm"), get_gpu("rtx-4090")
    one = decode_step(l3, h100, batch=1, context=SPEED_CONTEXT)
    many = decode_step(l3, h100, batch=64, context=SPEED_CONTEXT)
    int4 = decode_step(l3, rtx, weights="int4", batch=1, context=SPEED_CONTEXT)
    ttft = prefill(l3, h100, batch=1, context=SPEED_CONTEXT)
    moe = decode_step(mixtral, h100, batch=1, context=SPEED_CONTEXT, gpus=2)
    rows = (
        (f"Llama 3.1 8B, bf16, {h100.name}, batch 1: decode per sequence", _num(one.tokens_per_s, 1), "tokens/s",
         "`decode_step`"),
        (f"Same at batch 64: whole batch ({many.bound}-bound)", _num(many.aggregate_tokens_per_s), "tokens/s",
         "`decode_step`"),
        (f"Llama 3.1 8B, int4 weights, {rtx.name}, batch 1", _num(int4.tokens_per_s, 1), "tokens/s",
         "`decode_step`"),
        (f"Llama 3.1 8B, {SPEED_CONTEXT}-token prompt, {h100.name}: time to first token",
         _num(ttft.time_s * 1000, 1), "ms", "`prefill`"),
        (f"Mixtral 8x7B, bf16, 2 x {h100.name}, batch 1 (reads the active experts only)",
         _num(moe.tokens_per_s, 1), "tokens/s", "`decode_step`"),
    )
    return Table(
        id="performance-speed-key-numbers",
        caption="Key numbers for inference speed (estimates by calculators.performance.inference_speed).",
        columns=("quantity", "value", "unit", "computed by"), align=("l", "r", "l", "l"), rows=rows,
        assumptions=(f"{SPEED_CONTEXT} tokens in the cache (or in the prompt), KV cache bf16", EFFICIENCIES,
                     CATALOGS))


def speed_reference_table() -> Table:
    """Decode tokens/s per sequence at batch 1 for models x GPUs, bf16 and int4 weights."""
    gpus = [get_gpu(g) for g in SPEED_GPUS]
    rows = []
    for model_id in SPEED_MODELS:
        spec = get_model(model_id)
        for weights in ("bf16", "int4"):
            cells = []
            for gpu in gpus:
                result = inference_speed(spec, gpu, weights=weights, batch=1, context=SPEED_CONTEXT, new_tokens=1)
                mark = "" if result.fits else " ✗"
                cells.append(_num(result.first_step.tokens_per_s, 1) + mark)
            rows.append((_name(model_id), weights, *cells))
    return Table(
        id="performance-speed-reference",
        caption=(f"Decode tokens/s of one sequence (batch 1) with {SPEED_CONTEXT} tokens cached, bf16 KV cache, "
                 "one GPU (estimate: memory-bound roofline at the default efficiencies). ✗ = total_bytes of "
                 "inference_memory exceeds the GPU's memory: the figure is what the bandwidth would give if it fit. "
                 "Apple M4 Max has no published FLOP rate, so its figures use the memory time only."),
        columns=("model", "weights", *[g.name for g in gpus]), align=("l", "l", *["r"] * len(gpus)),
        rows=tuple(rows), assumptions=(EFFICIENCIES, CATALOGS))


def speed_batch_table() -> Table:
    """Per-sequence and aggregate decode rate against batch size: where memory-bound turns compute-bound."""
    spec, gpu = get_model("llama-3.1-8b"), get_gpu("h100-sxm")
    rows = []
    for batch in BATCHES:
        step = decode_step(spec, gpu, batch=batch, context=2048)
        mem = inference_speed(spec, gpu, batch=batch, context=2048, new_tokens=1)
        rows.append((str(batch), _num(step.bytes_read / 2**30, 2), _num(step.flops / 1e12, 2),
                     _num(step.tokens_per_s, 1), _num(step.aggregate_tokens_per_s), 
                     _num(step.max_aggregate_tokens_per_s), step.bound, "yes" if mem.fits else "no"))
    return Table(
        id="performance-speed-batch",
        caption=(f"One decode step of Llama 3.1 8B (bf16 weights and KV cache) on one {gpu.name} with 2048 tokens "
                 "cached per sequence: GiB read, TFLOP executed, tokens/s per sequence and for the batch "
                 "(estimates), the batch's upper bound at 100 % of the peaks, the limiting term, and whether "
                 "total_bytes of inference_memory fits the GPU."),
        columns=("batch", "GiB read", "TFLOP", "tokens/s per sequence", "tokens/s, batch", "bound tokens/s, batch",
                 "limited by", "fits"),
        align=("r", "r", "r", "r", "r", "r", "l", "l"), rows=tuple(rows), assumptions=(EFFICIENCIES, CATALOGS))


def speed_validation_table() -> Table:
    """Our generation throughput and first-token latency against TensorRT-LLM's published figures."""
    rows = []
    for r in DECODE_THROUGHPUT:
        result = inference_speed(get_model(r.model_id), get_gpu(r.gpu_id), weights=r.weights, kv_cache=r.kv_cache,
                                 batch=r.batch, context=r.input_tokens, new_tokens=r.output_tokens,
                                 gpus=r.tensor_parallel)
        ours = result.output_tokens_per_s / r.tensor_parallel
        measured = r.output_tokens_per_s_per_gpu
        rows.append((_name(r.model_id), get_gpu(r.gpu_id).name, r.weights, str(r.tensor_parallel), str(r.batch),
                     f"{r.input_tokens}/{r.output_tokens}", "output tokens/s per GPU", _num(measured),
                     _num(ours), ("" if result.fits else "✗ ") + _pct(ours / measured - 1)))
    for t in FIRST_TOKEN_LATENCY:
        step = prefill(get_model(t.model_id), get_gpu(t.gpu_id), weights=t.weights, kv_cache=t.weights, batch=1,
                       context=t.input_tokens, gpus=t.tensor_parallel)
        rows.append((_name(t.model_id), get_gpu(t.gpu_id).name, t.weights, str(t.tensor_parallel), "1",
                     f"{t.input_tokens}/1", "time to first token, ms", _num(t.latency_s * 1000),
                     _num(step.time_s * 1000), _pct(step.time_s / t.latency_s - 1)))
    return Table(
        id="performance-speed-validation",
        caption=("Estimates of calculators.performance.inference_speed against NVIDIA's published TensorRT-LLM "
                 "measurements (measured column quoted from: " + TRT_LLM.title + ", " + TRT_LLM.url + ", read "
                 + TRT_LLM.as_of + "). Throughput rows: inference_speed(...).output_tokens_per_s / TP over a "
                 "static batch; latency rows: prefill(...).time_s. Error = estimate / measured - 1. ✗ = our "
                 "memory model says the batch does not fit one GPU's memory, though TensorRT-LLM ran it."),
        columns=("model", "GPU", "weights", "TP", "batch", "in/out tokens", "metric", "measured", "estimate",
                 "error"),
        align=("l", "l", "l", "r", "r", "r", "l", "r", "r", "r"), rows=tuple(rows),
        assumptions=(EFFICIENCIES, "fp8 rows use fp8 weights, fp8 KV cache and the FP8 tensor rate", CATALOGS))


def batching_table() -> Table:
    """Static vs continuous batching utilisation for spreads of output lengths."""
    rows = []
    for shortest, longest in ((256, 256), (128, 256), (64, 512), (16, 1024), (1, 2048)):
        lengths = uniform_lengths(shortest, longest, count=64)
        static = batching_utilisation(lengths, policy="static")
        continuous = batching_utilisation(lengths, policy="continuous")
        rows.append((f"{shortest} to {longest}", f"{static:.2f}", f"{continuous:.2f}", f"{continuous / static:.2f}"))
    return Table(
        id="performance-batching",
        caption=("Fraction of decode slots producing tokens when 64 sequences' output lengths spread evenly over a "
                 "range (calculators.performance.batching). Static: mean / max length; continuous: 1 (a finished "
                 "slot is refilled from the queue at the next step). The last column is the throughput ratio."),
        columns=("output lengths (tokens)", "static utilisation", "continuous utilisation", "continuous / static"),
        align=("l", "r", "r", "r"), rows=tuple(rows),
        assumptions=("the queue never runs dry", "prefill of arriving requests and the final drain not modelled"))


# --------------------------------------------------------------------------- training-time page
def train_key_numbers_table() -> Table:
    """Headline figures of the training-time page."""
    l3 = get_model("llama-3.1-8b")
    h100, a100 = get_gpu("h100-sxm"), get_gpu("a100-80gb-sxm")
    per_token = training_flops_per_token(l3, seq=8192)
    run = training_time(l3, h100, tokens=TRAIN_TOKENS, gpus=TRAIN_GPUS, seq=8192)
    ckpt = training_time(l3, h100, tokens=TRAIN_TOKENS, gpus=TRAIN_GPUS, seq=8192, grad_checkpointing=True)
    l2 = next(r for r in TRAINING_RUNS if r.model_id == "llama-2-7b")
    rows = (
        ("Llama 3.1 8B: training FLOP per token at seq 8192", _num(per_token / 1e9, 1), "GFLOP",
         "`training_flops_per_token`"),
        (f"Llama 3.1 8B, 1T tokens on {TRAIN_GPUS} x {h100.name} at MFU {run.mfu:g}", _num(run.days, 1), "days",
         "`training_time`"),
        ("Same with full activation recomputation", _num(ckpt.days, 1), "days", "`training_time`"),
        (f"Llama 2 7B: MFU implied by its published {l2.gpu_hours:,.0f} GPU-hours on {a100.name}",
         _num(100 * implied_mfu(get_model(l2.model_id), a100, tokens=l2.tokens, gpu_hours=l2.gpu_hours,
                                seq=l2.seq), 1), "%", "`implied_mfu`"),
    )
    return Table(
        id="performance-train-key-numbers",
        caption="Key numbers for training time (calculators.performance.training_time).",
        columns=("quantity", "value", "unit", "computed by"), align=("l", "r", "l", "l"), rows=rows,
        assumptions=("bf16 mixed precision, dense BF16 tensor rate", f"default MFU for the GPU ({run.mfu:g} for "
                     f"{h100.name}: {run.mfu_source.title})", CATALOGS))


def train_mfu_defaults_table() -> Table:
    """The default MFU per GPU and its source."""
    rows = [(get_gpu(gpu_id).name, f"{mfu:.2f}", source.kind, f"{source.title} ({source.url})")
            for gpu_id, (mfu, source) in sorted(DEFAULT_MFU.items())]
    fallback = default_mfu(get_gpu("rtx-4090"))[1]
    rows.append(("every other GPU", f"{FALLBACK_MFU:.2f}", fallback.kind, fallback.title))
    return Table(
        id="performance-train-mfu-defaults",
        caption=("Default model FLOPs utilisation of training_time when --mfu is not given, and where it comes from "
                 "(calculators.performance.training_time.DEFAULT_MFU)."),
        columns=("GPU", "default MFU", "kind", "source"), align=("l", "r", "l", "l"), rows=tuple(rows),
        assumptions=(CATALOGS,))


def train_flops_check_table() -> Table:
    """Our FLOP per token against the model FLOP rate / token rate NVIDIA NeMo publishes."""
    rows = []
    for r in TRAINING_THROUGHPUT:
        theirs = r.model_flop_per_s_per_gpu / r.tokens_per_s_per_gpu
        ours = training_flops_per_token(get_model(r.model_id), seq=r.seq)
        rows.append((_name(r.model_id), str(r.seq), _num(r.tokens_per_s_per_gpu), _num(r.model_flop_per_s_per_gpu / 1e12),
                     _num(theirs / 1e9, 2), _num(ours / 1e9, 2), _pct(ours / theirs - 1)))
    return Table(
        id="performance-train-flops-check",
        caption=("FLOP per token: NeMo's published model TFLOP/s per GPU divided by its tokens/s per GPU (measured, "
                 f"quoted from {NEMO.title}, {NEMO.url}, read {NEMO.as_of}) against "
                 "training_flops_per_token (derived). Error = ours / theirs - 1."),
        columns=("model", "seq", "NeMo tokens/s per GPU", "NeMo model TFLOP/s per GPU", "NeMo GFLOP per token",
                 "our GFLOP per token", "error"),
        align=("l", "r", "r", "r", "r", "r", "r"), rows=tuple(rows), assumptions=(CATALOGS,))


def train_validation_table() -> Table:
    """Our GPU-hours at the default MFU against published pre-training runs, with the MFU each implies."""
    rows = []
    for r in TRAINING_RUNS:
        spec, gpu = get_model(r.model_id), get_gpu(r.gpu_id)
        ours = training_time(spec, gpu, tokens=r.tokens, seq=r.seq)
        mfu = implied_mfu(spec, gpu, tokens=r.tokens, gpu_hours=r.gpu_hours, seq=r.seq)
        rows.append((_name(r.model_id), gpu.name, f"{r.tokens / 1e12:g}T", str(r.seq), _num(r.gpu_hours),
                     f"{mfu * 100:.1f} %", f"{ours.mfu:.2f}", _num(ours.gpu_hours), _pct(ours.gpu_hours / r.gpu_hours - 1),
                     r.source.title.split(" (")[0] + (f"; {r.note}" if r.note else "")))
    return Table(
        id="performance-train-validation",
        caption=("Published pre-training runs (GPU-hours measured, quoted from the source named in each row; Llama 2: "
                 "https://arxiv.org/abs/2307.09288, Llama 3: https://github.com/meta-llama/llama3 MODEL_CARD.md) "
                 "against training_time at the default MFU for the GPU (estimate). Implied MFU = model FLOPs "
                 "(training_flops_per_token x tokens) / (GPU-hours x 3600 x dense BF16 rate). Error = estimate / "
                 "published - 1."),
        columns=("model", "GPU", "tokens", "seq", "published GPU-hours", "implied MFU", "default MFU",
                 "our GPU-hours", "error", "source"),
        align=("l", "l", "r", "r", "r", "r", "r", "r", "r", "l"), rows=tuple(rows),
        assumptions=("bf16 mixed precision, no activation recomputation", CATALOGS))


def train_reference_table() -> Table:
    """Days and GPU-hours to train catalog models on 1T tokens with 256 GPUs."""
    gpus = [get_gpu(g) for g in ("a100-80gb-sxm", "h100-sxm", "b200")]
    rows = []
    for model_id in TRAIN_MODELS:
        spec = get_model(model_id)
        cells = []
        for gpu in gpus:
            run = training_time(spec, gpu, tokens=TRAIN_TOKENS, gpus=TRAIN_GPUS, seq=TRAIN_SEQ)
            cells += [_num(run.days, 1), _num(run.gpu_hours)]
        rows.append((_name(model_id), _num(training_flops_per_token(spec, seq=TRAIN_SEQ) / 1e9, 1), *cells))
    columns = ["model", "GFLOP per token"]
    for gpu in gpus:
        mfu = default_mfu(gpu)[0]
        columns += [f"{gpu.name}: days (MFU {mfu:g})", f"{gpu.name}: GPU-hours"]
    return Table(
        id="performance-train-reference",
        caption=(f"Wall-clock days and GPU-hours to train on {TRAIN_TOKENS / 1e12:g}T tokens at sequence length "
                 f"{TRAIN_SEQ} with {TRAIN_GPUS} GPUs (estimates by training_time at each GPU's default MFU; the "
                 "B200 figure is assumed, see the defaults table). Mixtral 8x7B counts its active parameters."),
        columns=tuple(columns), align=("l", "r", *["r"] * (2 * len(gpus))), rows=tuple(rows),
        assumptions=("bf16 mixed precision, no activation recomputation", CATALOGS))


TABLES: dict[str, TableFunction] = {
    "performance-speed-key-numbers": speed_key_numbers_table,
    "performance-speed-reference": speed_reference_table,
    "performance-speed-batch": speed_batch_table,
    "performance-speed-validation": speed_validation_table,
    "performance-batching": batching_table,
    "performance-train-key-numbers": train_key_numbers_table,
    "performance-train-mfu-defaults": train_mfu_defaults_table,
    "performance-train-flops-check": train_flops_check_table,
    "performance-train-validation": train_validation_table,
    "performance-train-reference": train_reference_table,
}
