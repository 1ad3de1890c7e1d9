"""Tables of the Performance section's inference pages: docs/performance/index.md (key numbers),
docs/performance/decode-speed.md and docs/performance/serving.md (training time:
:mod:`calculators.doc_tables.training_time`).

Every estimate comes from :mod:`calculators.performance`; the measured columns quote
the documents in :mod:`calculators.performance.published`, named in each caption.

>>> table = speed_validation_table()
>>> table.columns[-1]
'error'
"""

from __future__ import annotations

from calculators.catalog.gpus import _READ as GPU_CATALOG_READ
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import READ_ON as MODEL_CATALOG_READ
from calculators.catalog.models import get_model, model_name
from calculators.columns import Column, decimal_column, gib_column, number_column
from calculators.performance.batching import batching_utilisation, uniform_lengths
from calculators.performance.inference_speed import (
    DEFAULT_BANDWIDTH_EFFICIENCY,
    DEFAULT_COMPUTE_EFFICIENCY,
    decode_step,
    inference_speed,
    prefill,
)
from calculators.performance.published import DECODE_THROUGHPUT, FIRST_TOKEN_LATENCY, TRT_LLM
from calculators.performance.serving_load import Load, ServedModel, ServingLoad, serving_load
from calculators.tables import Table, TableFunction, declared_tables, table
from calculators.units import number, signed_percent

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


# --------------------------------------------------------------------------- inference speed page
@table("performance-speed-key-numbers")
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
        (f"Llama 3.1 8B, bf16, {h100.name}, batch 1: decode per sequence", number(one.tokens_per_s, 1), "tokens/s",
         decode_step),
        (f"Same at batch 64: whole batch ({many.bound}-bound)", number(many.aggregate_tokens_per_s), "tokens/s",
         decode_step),
        (f"Llama 3.1 8B, int4 weights, {rtx.name}, batch 1", number(int4.tokens_per_s, 1), "tokens/s", decode_step),
        (f"Llama 3.1 8B, {SPEED_CONTEXT}-token prompt, {h100.name}: time to first token",
         number(ttft.time_s * 1000, 1), "ms", prefill),
        (f"Mixtral 8x7B, bf16, 2 x {h100.name}, batch 1 (reads the active experts only)",
         number(moe.tokens_per_s, 1), "tokens/s", decode_step),
    )
    return Table.key_numbers(
        rows, caption="Key numbers for inference speed (estimates by calculators.performance.inference_speed).",
        assumptions=(f"{SPEED_CONTEXT} tokens in the cache (or in the prompt), KV cache bf16", EFFICIENCIES, CATALOGS))


@table("performance-speed-reference")
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
                cells.append(number(result.first_step.tokens_per_s, 1) + mark)
            rows.append((model_name(model_id), weights, *cells))
    return Table.of(
        caption=(f"Decode tokens/s of one sequence (batch 1) with {SPEED_CONTEXT} tokens cached, bf16 KV cache, "
                 "one GPU (estimate: memory-bound roofline at the default efficiencies). ✗ = total_bytes of "
                 "inference_memory exceeds the GPU's memory: the figure is what the bandwidth would give if it fit. "
                 "Apple M4 Max has no published FLOP rate, so its figures use the memory time only."),
        columns=(Column("model"), Column("weights"), *(Column(g.name, align="r") for g in gpus)),
        rows=rows, assumptions=(EFFICIENCIES, CATALOGS))


@table("performance-speed-batch")
def speed_batch_table() -> Table:
    """Per-sequence and aggregate decode rate against batch size: where memory-bound turns compute-bound."""
    spec, gpu = get_model("llama-3.1-8b"), get_gpu("h100-sxm")
    rows = []
    for batch in BATCHES:
        step = decode_step(spec, gpu, batch=batch, context=2048)
        mem = inference_speed(spec, gpu, batch=batch, context=2048, new_tokens=1)
        rows.append((batch, step.bytes_read, step.flops / 1e12, step.tokens_per_s, step.aggregate_tokens_per_s,
                     step.max_aggregate_tokens_per_s, step.bound, "yes" if mem.fits else "no"))
    return Table.of(
        caption=(f"One decode step of Llama 3.1 8B (bf16 weights and KV cache) on one {gpu.name} with 2048 tokens "
                 "cached per sequence: GiB read, TFLOP executed, tokens/s per sequence and for the batch "
                 "(estimates), the batch's upper bound at 100 % of the peaks, the limiting term, and whether "
                 "total_bytes of inference_memory fits the GPU."),
        columns=(Column("batch", align="r"), gib_column("GiB read", grouped=True), number_column("TFLOP", 2),
                 number_column("tokens/s per sequence", 1), number_column("tokens/s, batch"),
                 number_column("bound tokens/s, batch"), Column("limited by"), Column("fits")),
        rows=rows, assumptions=(EFFICIENCIES, CATALOGS))


@table("performance-speed-validation")
def speed_validation_table() -> Table:
    """Our generation throughput and first-token latency against TensorRT-LLM's published figures."""
    rows = []
    for r in DECODE_THROUGHPUT:
        result = inference_speed(get_model(r.model_id), get_gpu(r.gpu_id), weights=r.weights, kv_cache=r.kv_cache,
                                 batch=r.batch, context=r.input_tokens, new_tokens=r.output_tokens,
                                 gpus=r.tensor_parallel)
        ours = result.output_tokens_per_s / r.tensor_parallel
        measured = r.output_tokens_per_s_per_gpu
        rows.append((model_name(r.model_id), get_gpu(r.gpu_id).name, r.weights, r.tensor_parallel, r.batch,
                     f"{r.input_tokens}/{r.output_tokens}", "output tokens/s per GPU", measured, ours,
                     ("" if result.fits else "✗ ") + signed_percent(ours / measured - 1)))
    for t in FIRST_TOKEN_LATENCY:
        step = prefill(get_model(t.model_id), get_gpu(t.gpu_id), weights=t.weights, kv_cache=t.weights, batch=1,
                       context=t.input_tokens, gpus=t.tensor_parallel)
        rows.append((model_name(t.model_id), get_gpu(t.gpu_id).name, t.weights, t.tensor_parallel, 1,
                     f"{t.input_tokens}/1", "time to first token, ms", t.latency_s * 1000, step.time_s * 1000,
                     signed_percent(step.time_s / t.latency_s - 1)))
    return Table.of(
        caption=("Estimates of calculators.performance.inference_speed against NVIDIA's published TensorRT-LLM "
                 "measurements (measured column quoted from: " + TRT_LLM.title + ", " + TRT_LLM.url + ", read "
                 + TRT_LLM.as_of + "). Throughput rows: inference_speed(...).output_tokens_per_s / TP over a "
                 "static batch; latency rows: prefill(...).time_s. Error = estimate / measured - 1. ✗ = our "
                 "memory model says the batch does not fit one GPU's memory, though TensorRT-LLM ran it."),
        columns=(Column("model"), Column("GPU"), Column("weights"), Column("TP", align="r"), Column("batch", align="r"),
                 Column("in/out tokens", align="r"), Column("metric"), number_column("measured"),
                 number_column("estimate"), Column("error", align="r")),
        rows=rows,
        assumptions=(EFFICIENCIES, "fp8 rows use fp8 weights, fp8 KV cache and the FP8 tensor rate", CATALOGS))


@table("performance-batching")
def batching_table() -> Table:
    """Static vs continuous batching utilisation for spreads of output lengths."""
    rows = []
    for shortest, longest in ((256, 256), (128, 256), (64, 512), (16, 1024), (1, 2048)):
        lengths = uniform_lengths(shortest, longest, count=64)
        static = batching_utilisation(lengths, policy="static")
        continuous = batching_utilisation(lengths, policy="continuous")
        rows.append((f"{shortest} to {longest}", static, continuous, continuous / static))
    return Table.of(
        caption=("Fraction of decode slots producing tokens when 64 sequences' output lengths spread evenly over a "
                 "range (calculators.performance.batching). Static: mean / max length; continuous: 1 (a finished "
                 "slot is refilled from the queue at the next step). The last column is the throughput ratio."),
        columns=(Column("output lengths (tokens)"), decimal_column("static utilisation", 2),
                 decimal_column("continuous utilisation", 2), decimal_column("continuous / static", 2)),
        rows=rows,
        assumptions=("the queue never runs dry", "prefill of arriving requests and the final drain not modelled"))


#: The serving-load table: model, GPU, engine, request shape and the loads shown.
SERVE_MODEL, SERVE_GPU, SERVE_ENGINE = "llama-3.1-8b", "h100-sxm", "vllm"
SERVE_PROMPT, SERVE_OUTPUT = 1024, 256
SERVE_CONCURRENCIES = (1, 4, 16, 64, 256)
SERVE_RATE_SHARES = (0.25, 0.5, 0.9)


@table("performance-serving-load")
def serving_load_table() -> Table:
    """Throughput and per-user latency of continuous batching at several concurrencies and request rates."""
    model = ServedModel.of(model=get_model(SERVE_MODEL), gpu=get_gpu(SERVE_GPU), engine=SERVE_ENGINE)
    def served(concurrency: int | None = None, rate: float | None = None) -> ServingLoad:
        return serving_load(model, Load.of(prompt_tokens=SERVE_PROMPT, output_tokens=SERVE_OUTPUT,
                                           concurrency=concurrency, request_rate_per_s=rate))

    loads = [(f"concurrency {c}", served(concurrency=c)) for c in SERVE_CONCURRENCIES]
    top = loads[0][1].max_request_rate_per_s
    assert top is not None  # one request fits an H100
    loads += [(f"{share:.0%} of the highest rate ({number(share * top, 1)} requests/s)",
               served(rate=share * top)) for share in SERVE_RATE_SHARES]
    rows = []
    for label, load in loads:
        assert load.status == "ok" and load.decode_tokens_per_s_per_user is not None  # every row runs
        rows.append((label, load.decode_batch or 0.0, load.output_tokens_per_s or 0.0,
                     load.decode_tokens_per_s_per_user, (load.time_to_first_token_s or 0.0) * 1e3,
                     load.end_to_end_latency_s or 0.0, load.memory_total_bytes))
    return Table.of(
        caption=(f"{model_name(SERVE_MODEL)} in bf16 on one {model.gpu.name} with the {SERVE_ENGINE} engine's fitted "
                 f"constants, {SERVE_PROMPT}-token prompts and {SERVE_OUTPUT}-token answers, under continuous "
                 "batching (calculators.performance.serving_load; estimates). Concurrency rows: that many users, "
                 "each sending the next request when the last answer ends; rate rows: Poisson arrivals at a share "
                 f"of the highest sustainable rate ({number(top, 1)} requests/s, at most "
                 f"{loads[0][1].max_concurrency} requests in flight fit). Memory: the GiB the requests in flight "
                 "need, of the GPU's usable memory."),
        columns=(Column("load"), number_column("decode batch", 1), number_column("output tokens/s"),
                 number_column("tokens/s per user", 1), number_column("first token (ms)"),
                 number_column("end to end (s)", 2), gib_column("memory (GiB)", 1, grouped=True)),
        rows=rows,
        assumptions=("each arriving prompt's prefill is its own pass, added to the decode step it rides in",
                     "decode steps at the mean context; a request sees the mean number of others decoding",
                     "every request in flight holds the KV cache of its whole prompt and answer", CATALOGS))


TABLES: dict[str, TableFunction] = declared_tables(globals())
