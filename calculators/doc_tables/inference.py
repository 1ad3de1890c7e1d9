"""Tables of docs/inference/index.md and docs/inference/kv-cache.md, with the formats the Inference pages share.

The quantization page's tables are in :mod:`calculators.doc_tables.inference_quantization`,
the mixture-of-experts page's in :mod:`calculators.doc_tables.inference_moe`. Every cell comes from :mod:`calculators.memory.inference`, :mod:`calculators.memory.weights`
and the catalogs; nothing is typed by hand.

>>> table = kv_per_token_table()
>>> ("Llama 2 7B", "MHA") == table.rows[[r[0] for r in table.rows].index("Llama 2 7B")][:2]
True
"""

from __future__ import annotations

from calculators.catalog.gpus import GPU, get_gpu
from calculators.catalog.models import READ_ON, all_models, get_model, model_name
from calculators.columns import Column, gib_column, number_column
from calculators.fit import FitResult, fit_inference
from calculators.memory.inference import (
    inference_memory,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    recurrent_state_bytes,
)
from calculators.memory.weights import weight_bytes
from calculators.model import ModelSpec
from calculators.tables import Table, TableFunction, computed_by, declared_tables, table
from calculators.units import KIB, MIB, gib, number

CATALOG = f"model catalog as of {READ_ON}"
#: The GPUs the fit tables size against: one per common memory size (24, 48, 80, 141 GiB).
FIT_GPUS = ("rtx-4090", "l40s", "h100-sxm", "h200")
#: Prompt length of the max-batch columns, in tokens.
BATCH_CONTEXT = 8192
#: The models the max-context/max-batch table sizes: dense ones and one mixture of experts (the table sorts
#: them by weight bytes).
FIT_MODELS = ("llama-2-7b", "mistral-7b-v0.3", "qwen2.5-7b", "llama-3.1-8b", "gemma-2-9b", "qwen2.5-32b",
              "llama-3.1-70b", "mixtral-8x7b")


def _attention_kind(spec: ModelSpec) -> str:
    if spec.mla is not None:
        return "MLA"
    kind = "MHA" if spec.num_kv_heads == spec.num_attention_heads else "GQA"
    others = [name for mixer, name in (("linear_attention", "linear attention"), ("mamba", "Mamba"))
              if spec.count_layers(mixer=mixer)]
    return f"{kind} + {' + '.join(others)}" if others else kind


def _layers(spec: ModelSpec) -> str:
    """``"48"``, or ``"12 of 48"`` when only some layers keep a KV cache (the others have no attention, or read an
    earlier layer's K and V)."""
    if spec.kv_cache_layers == spec.num_layers:
        return str(spec.num_layers)
    return f"{spec.kv_cache_layers} of {spec.num_layers}"


def gpu_header(gpu: GPU) -> str:
    """A column header naming the GPU and its memory in GiB."""
    return f"{gpu.name} ({gpu.memory_gib:g} GiB)"


def limits_cell(spec: ModelSpec, fit: FitResult) -> str:
    """A GPU cell of a fit table: the longest prompt at batch 1 (tokens, † past the model's trained context) /
    the most prompts that fit at once ('-' when not one does)."""
    if fit.max_context == 0:
        context = "does not fit"
    else:
        beyond = spec.max_position_embeddings is not None and fit.max_context > spec.max_position_embeddings
        context = number(fit.max_context) + (" †" if beyond else "")
    return f"{context} / {fit.max_batch or '-'}"


# --------------------------------------------------------------------------- index.md (kv-per-token: kv-cache.md)
@table("inference-key-numbers")
def key_numbers_table() -> Table:
    """Headline figures of the serving-memory page."""
    l2, l3 = get_model("llama-2-7b"), get_model("llama-3.1-8b")
    rtx, h100 = get_gpu("rtx-4090"), get_gpu("h100-sxm")
    est = inference_memory(l3, weights="bf16", kv_cache="bf16", batch=1, context=BATCH_CONTEXT)
    rows = (
        ("KV cache per token, Llama 2 7B (MHA, 32 KV heads), bf16", number(kv_cache_bytes_per_token(l2) / KIB, 1),
         "KiB", kv_cache_bytes_per_token),
        ("KV cache per token, Llama 3.1 8B (GQA, 8 KV heads), bf16", number(kv_cache_bytes_per_token(l3) / KIB, 1),
         "KiB", kv_cache_bytes_per_token),
        (f"Llama 3.1 8B, bf16, one {BATCH_CONTEXT}-token prompt: total on the GPU", gib(est.total_bytes), "GiB",
         computed_by(inference_memory) + " (total_bytes)"),
        (f"Longest prompt Llama 3.1 8B (bf16) fits on a {rtx.name}, batch 1",
         number(fit_inference(l3, rtx).max_context), "tokens", computed_by(fit_inference) + " (max_context)"),
        (f"Most {BATCH_CONTEXT}-token prompts Llama 3.1 8B (bf16) serves at once on an {h100.name}",
         number(fit_inference(l3, h100, context=BATCH_CONTEXT).max_batch), "sequences",
         computed_by(fit_inference) + " (max_batch)"),
    )
    # A memory estimate states the runtime overhead last among its assumptions.
    return Table.key_numbers(
        rows, caption=("Key numbers for serving memory (derived by the calculators in calculators.memory.inference; "
                       "KiB = 2^10 bytes, GiB = 2^30 bytes)."),
        assumptions=("bf16 weights and KV cache, SDPA attention, no new tokens (prefill only)", est.overhead_assumption,
                     CATALOG))


@table("inference-kv-per-token")
def kv_per_token_table() -> Table:
    """KV-cache bytes per token and per sequence for every catalogued model."""
    rows = []
    for record in sorted(all_models(), key=lambda record: record.name.lower()):
        spec = record.spec()
        if spec.mla is not None:
            layout = f"latent {spec.mla.kv_lora_rank} + rope {spec.mla.qk_rope_head_dim}"
        else:
            layout = f"{spec.num_kv_heads} x {spec.head_dim}"
        mark = ""
        if spec.sliding_window and spec.sliding_window_layers:
            window = f"{spec.sliding_window_layers} of {spec.num_layers} layers, {spec.sliding_window} (windowed)"
        elif spec.sliding_window:
            window = f"every layer, {spec.sliding_window} (kept full length ‡)"
            mark = " ‡"
        else:
            window = "none"
        rows.append((record.name, _attention_kind(spec), _layers(spec), layout, kv_cache_bytes_per_token(spec),
                     *(gib(kv_cache_bytes(spec, batch=1, context=n)) + mark for n in (8192, 32768, 131072)),
                     recurrent_state_bytes(spec, batch=1), window))
    return Table.of(
        caption=("KV cache of one sequence, bf16 (2 bytes per element): KiB per token summed over the attention "
                 "layers, and GiB held at 8K, 32K and 128K tokens (GiB = 2^30 bytes); hybrid models' linear-attention "
                 "and Mamba layers hold a fixed state instead (MiB, whatever the context). Derived by "
                 "kv_cache_bytes_per_token, kv_cache_bytes and recurrent_state_bytes; windowed layers stop growing at "
                 "their window, "
                 "which is why Gemma 2's 8K-to-128K growth is less than 16-fold. ‡ = the config sets a window for "
                 "every layer but the calculators keep every token, as a mask-only window would; transformers "
                 "5.23 keeps only the last window after the first decode step, so past the window these cells "
                 "are upper bounds. Token counts beyond a model's max_position_embeddings are shown for scale "
                 "only."),
        columns=(Column("model"), Column("attention"), Column("attention layers", align="r"),
                 Column("KV heads x head_dim"), number_column("KiB per token", 1, unit=KIB),
                 *(Column(f"GiB at {k}", align="r") for k in ("8K", "32K", "128K")),
                 number_column("fixed state, MiB", 1, unit=MIB),
                 Column("sliding-window layers in the config, window (tokens)")),
        rows=rows,
        assumptions=("batch 1, KV cache bf16, transformers DynamicCache layout; recurrent state fp32, conv state bf16",
                     "DeepSeek-V3: the compressed latent that serving engines such as vLLM cache (see the MoE page)", CATALOG),
    )


PREFILL_CASES: tuple[tuple[int, str, int], ...] = (
    (4096, "sdpa", 0), (4096, "eager", 0), (32768, "sdpa", 0), (32768, "eager", 0),
    (131072, "sdpa", 0), (4096, "sdpa", 4096),
)


@table("inference-prefill-breakdown")
def prefill_breakdown_table() -> Table:
    """Where the memory of one Llama 3.1 8B request goes, by prompt length and attention kernel."""
    spec = get_model("llama-3.1-8b")
    rows = []
    for context, attention, new in PREFILL_CASES:
        est = inference_memory(spec, weights="bf16", kv_cache="bf16", batch=1, context=context,
                               new_tokens=new, attention=attention)
        b = est.breakdown
        rows.append((context, new, attention, b["weights"], b["kv_cache"], b["activations_and_logits"],
                     est.peak_allocated_bytes, est.total_bytes, est.peak_phase))
    return Table.of(
        caption=("Llama 3.1 8B, batch 1, bf16 weights and KV cache: the parts of the peak (GiB = 2^30 bytes), "
                 "derived by inference_memory. Activations and logits are one layer's temporaries over the "
                 "whole prompt (MLP intermediates with SDPA; the S x S scores in fp32 with eager attention) plus "
                 "the last position's logits. peak allocated = what torch.cuda.max_memory_allocated() would "
                 "report; total = peak plus assumed CUDA context, cuBLAS workspace and allocator slack."),
        columns=(number_column("prompt tokens"), number_column("new tokens"), Column("attention"),
                 *(gib_column(name, grouped=True) for name in ("weights GiB", "KV cache GiB",
                                                               "activations and logits GiB", "peak allocated GiB",
                                                               "total GiB")),
                 Column("peak phase")),
        rows=rows,
        assumptions=("one prefill forward over the whole prompt, logits for the last position only (generate())",
                     est.overhead_assumption, CATALOG),
    )


@table("inference-max-context-batch")
def max_context_batch_table() -> Table:
    """Largest prompt at batch 1 and largest batch of 8K prompts, per model and GPU size."""
    gpus = [get_gpu(g) for g in FIT_GPUS]
    rows = []
    for model_id in sorted(FIT_MODELS, key=lambda model_id: weight_bytes(get_model(model_id), dtype="bf16")):
        spec = get_model(model_id)
        fits = [fit_inference(spec, gpu, context=BATCH_CONTEXT) for gpu in gpus]
        rows.append((model_name(model_id), weight_bytes(spec, dtype="bf16"), *(limits_cell(spec, fit) for fit in fits)))
    return Table.of(
        caption=("Each GPU cell: longest prompt that fits at batch 1 (tokens) / most 8K-token prompts that fit at "
                 f"once (sequences): the largest that fit ({computed_by(fit_inference, dotted=True, code=False)}: "
                 "total_bytes plus its measured uncertainty within the memory a process can allocate). '-' = not "
                 "even one sequence fits. "
                 "† = beyond the model's max_position_embeddings: the memory is there, the model was not trained "
                 "for that length. Gemma 2 runs eager attention (its score softcapping), so S x S scores bound it."),
        columns=(Column("model"), gib_column("bf16 weights GiB", 1, grouped=True),
                 *(Column(gpu_header(g), align="r") for g in gpus)),
        rows=rows,
        assumptions=("bf16 weights and KV cache, SDPA attention where the model supports it, no new tokens",
                     "one GPU, no tensor parallelism", fits[0].estimate.overhead_assumption, CATALOG,
                     "GPU memory = the catalog's capacity (nvidia-smi shows a few hundred MiB less usable)"),
    )


TABLES: dict[str, TableFunction] = declared_tables(globals())
