"""Tables of the Inference section: docs/inference/index.md, quantization.md and moe.md.

Every cell comes from :mod:`calculators.memory.inference`, :mod:`calculators.memory.weights`
and the catalogs; nothing here is typed by hand except the claims quoted from the source
guides in :func:`quant_claims_table`, which are quotations and marked so.

>>> table = kv_per_token_table()
>>> ("Llama 2 7B", "MHA") == table.rows[[r[0] for r in table.rows].index("Llama 2 7B")][:2]
True
"""

from __future__ import annotations

from collections.abc import Iterable

from calculators.catalog.gpus import GPU, get_gpu
from calculators.catalog.models import READ_ON, all_models, get_model, get_model_record
from calculators.dtypes import DType
from calculators.memory.inference import (
    inference_memory,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    max_batch_for_memory,
    max_context_for_memory,
)
from calculators.memory.overhead import overhead_assumptions
from calculators.memory.weights import QUANT_OVERHEAD_BYTES_PER_ELEMENT, quantized_bytes_per_element, weight_bytes
from calculators.model import ModelSpec
from calculators.tables import Table, TableFunction

GIB = 2**30
KIB = 2**10
CATALOG = f"model catalog as of {READ_ON}"
#: The GPUs the fit tables size against: one per common memory size (24, 48, 80, 141 GiB).
FIT_GPUS = ("rtx-4090", "l40s", "h100-sxm", "h200")
#: Prompt length of the max-batch columns, in tokens.
BATCH_CONTEXT = 8192
#: Dense models the max-context/max-batch table sizes, small to large.
FIT_MODELS = ("llama-2-7b", "mistral-7b-v0.3", "qwen2.5-7b", "llama-3.1-8b", "gemma-2-9b", "qwen2.5-32b",
              "llama-3.1-70b", "mixtral-8x7b")
WEIGHT_FORMATS = ("bf16", "fp8", "int8", "int4", "nf4")


# --------------------------------------------------------------------------- formatting
def _gib(n: float, digits: int = 2) -> str:
    return f"{n / GIB:,.{digits}f}"


def _kib(n: float) -> str:
    return f"{n / KIB:,.1f}"


def _billions(n: int) -> str:
    return f"{n / 1e9:,.2f}"


def _count(n: int) -> str:
    return f"{n:,}"


def _attention_kind(spec: ModelSpec) -> str:
    if spec.mla is not None:
        return "MLA"
    return "MHA" if spec.num_kv_heads == spec.num_attention_heads else "GQA"


def _name(model_id: str) -> str:
    return get_model_record(model_id).name


def _gpu_header(gpu: GPU) -> str:
    return f"{gpu.name} ({gpu.memory_gib:g} GiB)"


def _total_bytes_assumption() -> str:
    return overhead_assumptions()[0]


# --------------------------------------------------------------------------- index.md
def key_numbers_table() -> Table:
    """Headline figures of the serving-memory page."""
    l2, l3 = get_model("llama-2-7b"), get_model("llama-3.1-8b")
    rtx, h100 = get_gpu("rtx-4090"), get_gpu("h100-sxm")
    est = inference_memory(l3, weights="bf16", kv_cache="bf16", batch=1, context=BATCH_CONTEXT)
    rows = (
        ("KV cache per token, Llama 2 7B (MHA, 32 KV heads), bf16", _kib(kv_cache_bytes_per_token(l2)), "KiB",
         "`kv_cache_bytes_per_token`"),
        ("KV cache per token, Llama 3.1 8B (GQA, 8 KV heads), bf16", _kib(kv_cache_bytes_per_token(l3)), "KiB",
         "`kv_cache_bytes_per_token`"),
        (f"Llama 3.1 8B, bf16, one {BATCH_CONTEXT}-token prompt: total on the GPU", _gib(est.total_bytes), "GiB",
         "`inference_memory` (total_bytes)"),
        (f"Longest prompt Llama 3.1 8B (bf16) fits on a {rtx.name}, batch 1",
         _count(max_context_for_memory(l3, memory_bytes=rtx.memory_bytes)), "tokens", "`max_context_for_memory`"),
        (f"Most {BATCH_CONTEXT}-token prompts Llama 3.1 8B (bf16) serves at once on an {h100.name}",
         _count(max_batch_for_memory(l3, memory_bytes=h100.memory_bytes, context=BATCH_CONTEXT)), "sequences",
         "`max_batch_for_memory`"),
    )
    return Table(
        id="inference-key-numbers",
        caption=("Key numbers for serving memory (derived by the calculators in "
                 "calculators.memory.inference; KiB = 2^10 bytes, GiB = 2^30 bytes)."),
        columns=("quantity", "value", "unit", "computed by"),
        align=("l", "r", "l", "l"),
        rows=rows,
        assumptions=("bf16 weights and KV cache, SDPA attention, no new tokens (prefill only)",
                     _total_bytes_assumption(), CATALOG),
    )


def kv_per_token_table() -> Table:
    """KV-cache bytes per token and per sequence for every catalogued model."""
    rows = []
    for record in all_models():
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
        rows.append((
            record.name, _attention_kind(spec), str(spec.num_layers), layout,
            _kib(kv_cache_bytes_per_token(spec)),
            _gib(kv_cache_bytes(spec, batch=1, context=8192)) + mark,
            _gib(kv_cache_bytes(spec, batch=1, context=32768)) + mark,
            _gib(kv_cache_bytes(spec, batch=1, context=131072)) + mark,
            window,
        ))
    rows.sort(key=lambda row: row[0].lower())
    return Table(
        id="inference-kv-per-token",
        caption=("KV cache of one sequence, bf16 (2 bytes per element): KiB per token summed over all layers, "
                 "and GiB held at 8K, 32K and 128K tokens (GiB = 2^30 bytes). Derived by "
                 "kv_cache_bytes_per_token and kv_cache_bytes; windowed layers stop growing at their window, "
                 "which is why Gemma 2's 8K-to-128K growth is less than 16-fold. ‡ = the config sets a window for "
                 "every layer but the calculators keep every token, as a mask-only window would; transformers "
                 "5.23 keeps only the last window after the first decode step, so past the window these cells "
                 "are upper bounds. Token counts beyond a model's max_position_embeddings are shown for scale "
                 "only."),
        columns=("model", "attention", "layers", "KV heads x head_dim", "KiB per token", "GiB at 8K",
                 "GiB at 32K", "GiB at 128K", "sliding-window layers in the config, window (tokens)"),
        align=("l", "l", "r", "l", "r", "r", "r", "r", "l"),
        rows=tuple(rows),
        assumptions=("batch 1, KV cache bf16, transformers DynamicCache layout",
                     "DeepSeek-V3: the compressed latent that serving engines such as vLLM cache (see the MoE page)", CATALOG),
    )


PREFILL_CASES: tuple[tuple[int, str, int], ...] = (
    (4096, "sdpa", 0), (4096, "eager", 0), (32768, "sdpa", 0), (32768, "eager", 0),
    (131072, "sdpa", 0), (4096, "sdpa", 4096),
)


def prefill_breakdown_table() -> Table:
    """Where the memory of one Llama 3.1 8B request goes, by prompt length and attention kernel."""
    spec = get_model("llama-3.1-8b")
    rows = []
    for context, attention, new in PREFILL_CASES:
        est = inference_memory(spec, weights="bf16", kv_cache="bf16", batch=1, context=context,
                               new_tokens=new, attention=attention)
        b = est.breakdown
        rows.append((
            _count(context), _count(new), attention, _gib(b["weights"]), _gib(b["kv_cache"]),
            _gib(b["activations_and_logits"]), _gib(est.peak_allocated_bytes), _gib(est.total_bytes),
            est.peak_phase,
        ))
    return Table(
        id="inference-prefill-breakdown",
        caption=("Llama 3.1 8B, batch 1, bf16 weights and KV cache: the parts of the peak (GiB = 2^30 bytes), "
                 "derived by inference_memory. Activations and logits are one layer's temporaries over the "
                 "whole prompt (MLP intermediates with SDPA; the S x S scores in fp32 with eager attention) plus "
                 "the last position's logits. peak allocated = what torch.cuda.max_memory_allocated() would "
                 "report; total = peak plus assumed CUDA context, cuBLAS workspace and allocator slack."),
        columns=("prompt tokens", "new tokens", "attention", "weights GiB", "KV cache GiB",
                 "activations and logits GiB", "peak allocated GiB", "total GiB", "peak phase"),
        align=("r", "r", "l", "r", "r", "r", "r", "r", "l"),
        rows=tuple(rows),
        assumptions=("one prefill forward over the whole prompt, logits for the last position only (generate())",
                     _total_bytes_assumption(), CATALOG),
    )


def _context_cell(spec: ModelSpec, tokens: int) -> str:
    if tokens == 0:
        return "does not fit"
    mark = " †" if spec.max_position_embeddings is not None and tokens > spec.max_position_embeddings else ""
    return _count(tokens) + mark


def max_context_batch_table() -> Table:
    """Largest prompt at batch 1 and largest batch of 8K prompts, per model and GPU size."""
    gpus = [get_gpu(g) for g in FIT_GPUS]
    rows = []
    for model_id in FIT_MODELS:
        spec = get_model(model_id)
        row = [_name(model_id), _gib(weight_bytes(spec, dtype="bf16"), 1)]
        for gpu in gpus:
            context = max_context_for_memory(spec, memory_bytes=gpu.memory_bytes)
            batch = max_batch_for_memory(spec, memory_bytes=gpu.memory_bytes, context=BATCH_CONTEXT)
            row.append(f"{_context_cell(spec, context)} / {batch if batch else '-'}")
        rows.append(tuple(row))
    rows.sort(key=lambda r: float(r[1].replace(",", "")))
    return Table(
        id="inference-max-context-batch",
        caption=("Each GPU cell: longest prompt that fits at batch 1 (tokens) / most 8K-token prompts that fit at "
                 "once (sequences), on the total_bytes basis (peak allocated plus assumed runtime overhead), "
                 "derived by max_context_for_memory and max_batch_for_memory. '-' = not even one sequence fits. "
                 "† = beyond the model's max_position_embeddings: the memory is there, the model was not trained "
                 "for that length. Gemma 2 runs eager attention (its score softcapping), so S x S scores bound it."),
        columns=("model", "bf16 weights GiB", *(_gpu_header(g) for g in gpus)),
        align=("l", "r", *("r" for _ in gpus)),
        rows=tuple(rows),
        assumptions=("bf16 weights and KV cache, SDPA attention where the model supports it, no new tokens",
                     "one GPU, no tensor parallelism", _total_bytes_assumption(), CATALOG,
                     "GPU memory = the catalog's capacity (nvidia-smi shows a few hundred MiB less usable)"),
    )


# --------------------------------------------------------------------------- quantization.md
QUANT_MODELS_MIN_PARAMETERS = 6_000_000_000


def _dense_models(min_parameters: int = QUANT_MODELS_MIN_PARAMETERS) -> list[tuple[str, ModelSpec]]:
    chosen = []
    for record in all_models():
        spec = record.spec()
        if spec.moe is None and spec.parameters >= min_parameters:
            chosen.append((record.name, spec))
    chosen.sort(key=lambda item: (item[1].parameters, item[0]))
    return chosen


def quant_key_numbers_table() -> Table:
    """Headline figures of the quantization page."""
    l70 = get_model("llama-3.1-70b")
    l8 = get_model("llama-3.1-8b")
    h100 = get_gpu("h100-sxm")
    kept = l8.parameters - l8.linear_parameters
    rows = (
        ("Stored bits per int4 weight, group of 128 with fp16 scale and 4-bit zero point",
         f"{quantized_bytes_per_element(DType.INT4) * 8:.3f}", "bits", "`quantized_bytes_per_element`"),
        ("Llama 3.1 70B weights, bf16", _gib(weight_bytes(l70, dtype="bf16")), "GiB", "`weight_bytes`"),
        ("Llama 3.1 70B weights, int4 (embeddings, head and norms stay bf16)",
         _gib(weight_bytes(l70, dtype="int4")), "GiB", "`weight_bytes`"),
        ("Llama 3.1 8B parameters that stay 16-bit when quantised (embeddings, head, norms)",
         f"{kept / l8.parameters:.1%}", "of parameters", "`ModelSpec.linear_parameters`"),
        (f"Longest prompt Llama 3.1 70B int4 with an fp8 KV cache fits on an {h100.name}, batch 1",
         _count(max_context_for_memory(l70, memory_bytes=h100.memory_bytes, weights="int4", kv_cache="fp8")),
         "tokens", "`max_context_for_memory`"),
    )
    return Table(
        id="inference-quant-key-numbers",
        caption="Key numbers for quantised serving (derived by the calculators; GiB = 2^30 bytes).",
        columns=("quantity", "value", "unit", "computed by"),
        align=("l", "r", "l", "l"),
        rows=rows,
        assumptions=("quantised formats apply to the nn.Linear weights of the decoder layers only",
                     "SDPA attention, no new tokens", _total_bytes_assumption(), CATALOG),
    )


_FORMAT_NOTES = {
    DType.BF16: "reference: 16-bit brain float",
    DType.FP16: "16-bit IEEE half",
    DType.FP8: "E4M3; per-tensor or per-block scales not counted",
    DType.INT8: "per-channel scales not counted",
    DType.INT4: "GPTQ/AWQ style: one fp16 scale and one 4-bit zero point per 128 weights",
    DType.NF4: "bitsandbytes/QLoRA: 64-weight blocks, absmax double-quantised to 8 bits",
}


def quant_formats_table() -> Table:
    """Bits per stored weight of each format, scales included."""
    rows = []
    for dtype in (DType.BF16, DType.FP16, DType.FP8, DType.INT8, DType.INT4, DType.NF4):
        overhead = QUANT_OVERHEAD_BYTES_PER_ELEMENT.get(dtype, 0.0)
        rows.append((dtype.value, f"{dtype.bytes_per_element * 8:.3f}", f"{overhead * 8:.3f}",
                     f"{(dtype.bytes_per_element + overhead) * 8:.3f}", _FORMAT_NOTES[dtype]))
    return Table(
        id="inference-quant-formats",
        caption=("Bits each quantised weight occupies: the element itself plus its share of scales and zero "
                 "points, from calculators.memory.weights.QUANT_OVERHEAD_BYTES_PER_ELEMENT (derived from "
                 "each format's block layout)."),
        columns=("format", "element bits", "scale bits per weight", "total bits per weight", "layout"),
        align=("l", "r", "r", "r", "l"),
        rows=tuple(rows),
        assumptions=("NF4 overhead as in the QLoRA paper, section 3",),
    )


def quant_weights_table() -> Table:
    """Weight GiB of every dense catalog model of 6B parameters or more, by storage format."""
    rows = []
    for name, spec in _dense_models():
        kept = weight_bytes(spec, dtype="int4") - round(spec.linear_parameters
                                                        * quantized_bytes_per_element(DType.INT4))
        rows.append((name, _billions(spec.parameters),
                     *(_gib(weight_bytes(spec, dtype=fmt), 1) for fmt in WEIGHT_FORMATS), _gib(kept, 2)))
    return Table(
        id="inference-quant-weights",
        caption=("Weights alone (no KV cache, activations or runtime overhead), GiB = 2^30 bytes, derived by "
                 "weight_bytes. Quantised columns store the decoder layers' linear weights in the format and keep "
                 "the embedding, output head and norms in bf16; the last column is that 16-bit part."),
        columns=("model", "parameters (B)", *(f"{fmt} GiB" for fmt in WEIGHT_FORMATS), "kept in bf16 GiB"),
        align=("l", "r", *("r" for _ in WEIGHT_FORMATS), "r"),
        rows=tuple(rows),
        assumptions=("dense catalog models with at least 6B parameters; MoE models are on the MoE page", CATALOG),
    )


QUANT_FIT_CASES: tuple[tuple[str, str, str], ...] = (
    ("llama-3.1-8b", "bf16", "bf16"), ("llama-3.1-8b", "int8", "bf16"), ("llama-3.1-8b", "int4", "bf16"),
    ("llama-3.1-8b", "int4", "fp8"),
    ("llama-3.1-70b", "bf16", "bf16"), ("llama-3.1-70b", "fp8", "bf16"), ("llama-3.1-70b", "int8", "bf16"),
    ("llama-3.1-70b", "int4", "bf16"), ("llama-3.1-70b", "int4", "fp8"),
)


def quant_fit_table() -> Table:
    """How the weight and KV-cache format move the fit on 24, 48 and 80 GiB GPUs."""
    gpus = [get_gpu(g) for g in ("rtx-4090", "l40s", "h100-sxm")]
    rows = []
    for model_id, weights, kv in QUANT_FIT_CASES:
        spec = get_model(model_id)
        est = inference_memory(spec, weights=weights, kv_cache=kv, batch=1, context=BATCH_CONTEXT)
        row = [_name(model_id), weights, kv, _gib(est.total_bytes)]
        for gpu in gpus:
            context = max_context_for_memory(spec, memory_bytes=gpu.memory_bytes, weights=weights, kv_cache=kv)
            batch = max_batch_for_memory(spec, memory_bytes=gpu.memory_bytes, context=BATCH_CONTEXT,
                                         weights=weights, kv_cache=kv)
            row.append(f"{_context_cell(spec, context)} / {batch if batch else '-'}")
        rows.append(tuple(row))
    return Table(
        id="inference-quant-fit",
        caption=("total GiB: one 8K-token prompt at batch 1 (peak allocated plus assumed runtime overhead). GPU "
                 "cells: longest prompt at batch 1 (tokens) / most 8K-token prompts at once; '-' = none fits; "
                 "† = beyond max_position_embeddings. Derived by inference_memory, max_context_for_memory and "
                 "max_batch_for_memory; the kernels' dequantisation workspaces are not counted."),
        columns=("model", "weights", "KV cache", "total GiB at 8K", *(_gpu_header(g) for g in gpus)),
        align=("l", "l", "l", "r", *("r" for _ in gpus)),
        rows=tuple(rows),
        assumptions=("SDPA attention, no new tokens, one GPU", _total_bytes_assumption(), CATALOG),
    )


def _claim_rows() -> Iterable[tuple[str, str, str, str]]:
    a100 = get_gpu("a100-80gb-sxm")
    rtx3090 = get_gpu("rtx-3090")
    l70 = get_model("llama-3.1-70b")
    l27 = get_model("llama-2-7b")
    q32 = get_model("qwen2.5-32b")
    est_int8 = inference_memory(l70, weights="int8", kv_cache="bf16", batch=1, context=4096)
    ctx_int8 = max_context_for_memory(l70, memory_bytes=a100.memory_bytes, weights="int8")
    yield ("Lyceum", "a 70B model quantised to INT8 fits on a single 80 GB A100",
           f"Llama 3.1 70B int8: {_gib(weight_bytes(l70, dtype='int8'))} GiB of weights; "
           f"{_gib(est_int8.total_bytes)} GiB total for a 4K prompt",
           f"fits; longest prompt at batch 1 on the {a100.name}: {_count(ctx_int8)} tokens")
    yield ("Lyceum", "INT8 inference: parameters x 1 byte",
           f"Llama 3.1 70B int8 weights {_gib(weight_bytes(l70, dtype='int8'))} GiB vs "
           f"parameters x 1 byte = {_gib(l70.parameters)} GiB",
           "close for weights (embeddings and head stay 16-bit); KV cache and activations come on top")
    yield ("VRLA Tech", "Inference 70B (FP8): 70GB",
           f"Llama 3.1 70B fp8 weights {_gib(weight_bytes(l70, dtype='fp8'))} GiB",
           f"weights only: add the KV cache ({_gib(kv_cache_bytes(l70, batch=1, context=8192))} GiB per "
           "8K-token sequence in bf16) and runtime overhead")
    ctx_3090 = max_context_for_memory(l27, memory_bytes=rtx3090.memory_bytes)
    yield ("Hardware for ML practitioners",
           "a 24 GB RTX 3090 can run inference on a 7B model (with quantization)",
           f"Llama 2 7B bf16 weights {_gib(weight_bytes(l27, dtype='bf16'))} GiB; "
           f"longest bf16 prompt at batch 1 on the {rtx3090.name}: {_count(ctx_3090)} tokens",
           "fits without quantisation; quantising buys context or batch, not feasibility")
    yield ("Hardware for ML practitioners",
           "36 GB of unified memory runs models up to about 30B parameters (quantized)",
           f"Qwen2.5 32B int4 weights {_gib(weight_bytes(q32, dtype='int4'))} GiB, "
           f"bf16 {_gib(weight_bytes(q32, dtype='bf16'))} GiB",
           "plausible at 4 bits with a short context; how much unified memory the GPU may use is not modelled")


def quant_claims_table() -> Table:
    """Claims about quantised serving in the source guides, against the calculators."""
    rows = [(src, f"\"{claim}\" (quoted)", calc, verdict) for src, claim, calc, verdict in _claim_rows()]
    return Table(
        id="inference-quant-claims",
        caption=("Claims quoted from the source guides (see Sources), and what the calculators derive for a "
                 "catalogued model of that size (GiB = 2^30 bytes; total = total_bytes, peak allocated plus "
                 "assumed runtime overhead)."),
        columns=("source", "claim", "calculators", "verdict"),
        align=("l", "l", "l", "l"),
        rows=tuple(rows),
        assumptions=("SDPA attention, batch 1, no new tokens", _total_bytes_assumption(), CATALOG),
    )


# --------------------------------------------------------------------------- moe.md
def moe_key_numbers_table() -> Table:
    """Headline figures of the mixture-of-experts page."""
    mixtral, ds = get_model("mixtral-8x7b"), get_model("deepseek-v3")
    rows = (
        ("Mixtral 8x7B parameters, all experts", _billions(mixtral.parameters), "B", "`ModelSpec.parameters`"),
        ("Mixtral 8x7B parameters active per token (2 of 8 experts)", _billions(mixtral.active_parameters), "B",
         "`ModelSpec.active_parameters`"),
        ("Mixtral 8x7B weights, bf16", _gib(weight_bytes(mixtral, dtype="bf16")), "GiB", "`weight_bytes`"),
        ("DeepSeek-V3 weights, fp8 linears (its released format)", _gib(weight_bytes(ds, dtype="fp8")), "GiB",
         "`weight_bytes`"),
        ("DeepSeek-V3 KV cache per token, bf16 latent", _kib(kv_cache_bytes_per_token(ds)), "KiB",
         "`kv_cache_bytes_per_token`"),
    )
    return Table(
        id="inference-moe-key-numbers",
        caption="Key numbers for mixture-of-experts serving (derived; B = 10^9, GiB = 2^30 bytes, KiB = 2^10 bytes).",
        columns=("quantity", "value", "unit", "computed by"),
        align=("l", "r", "l", "l"),
        rows=rows,
        assumptions=(CATALOG,),
    )


def moe_params_table() -> Table:
    """Total and active parameters and weight GiB of the catalogued MoE models."""
    rows = []
    for record in all_models():
        spec = record.spec()
        if spec.moe is None:
            continue
        m = spec.moe
        shared = f" + {m.num_shared_experts} shared" if m.num_shared_experts else ""
        rows.append((
            record.name, f"{m.num_experts} routed, top-{m.experts_per_token}{shared}",
            f"{spec.num_moe_layers} of {spec.num_layers}",
            _billions(spec.parameters), _billions(spec.active_parameters),
            _billions(spec.active_parameters - spec.embedding_parameters),
            f"{spec.active_parameters / spec.parameters:.1%}",
            *(_gib(weight_bytes(spec, dtype=fmt), 1) for fmt in ("bf16", "fp8", "int4")),
        ))
    rows.sort(key=lambda r: r[0].lower())
    return Table(
        id="inference-moe-params",
        caption=("Exact parameter counts from the configs (ModelSpec.parameters counts every expert; "
                 "ModelSpec.active_parameters counts what one token passes through: the input embedding, attention, "
                 "norms, routers, the top-k routed experts, any shared expert and the output head; the next column "
                 "leaves out the input embedding, which a token looks up rather than multiplies) and the weights' GiB (2^30 bytes) by weight_bytes. Memory "
                 "must hold every expert: the weight columns use the total."),
        columns=("model", "experts per MoE layer", "MoE layers", "total params (B)", "active params (B)",
                 "active without input embedding (B)", "active share", "bf16 GiB", "fp8 GiB", "int4 GiB"),
        align=("l", "l", "r", "r", "r", "r", "r", "r", "r", "r"),
        rows=tuple(rows),
        assumptions=("quantised formats apply to decoder linears (experts, routers, attention); embeddings, head "
                     "and norms stay bf16", "DeepSeek-V3 counted without its multi-token-prediction module",
                     CATALOG),
    )


def mixtral_split_table() -> Table:
    """Where Mixtral's parameters sit, and why '8 x 7B' overstates them."""
    mixtral, mistral = get_model("mixtral-8x7b"), get_model("mistral-7b-v0.1")
    m = mixtral.moe
    assert m is not None
    layers = mixtral.num_layers
    embed = mixtral.embedding_parameters + mixtral.lm_head_parameters
    attention = layers * mixtral.attention_parameters_per_layer
    norms = layers * mixtral.norm_parameters_per_layer + mixtral.hidden_size
    router = layers * mixtral.hidden_size * m.num_experts
    expert = layers * mixtral.mlp_parameters(m.expert_intermediate_size)
    rows = [
        ("embedding and output head (every token)", embed, embed),
        ("attention, all layers (every token)", attention, attention),
        ("RMSNorm weights (every token)", norms, norms),
        ("routers (every token)", router, router),
        (f"experts: {m.num_experts} per layer, {m.experts_per_token} per token", m.num_experts * expert,
         m.experts_per_token * expert),
        ("Mixtral 8x7B, exact", mixtral.parameters, mixtral.active_parameters),
        (f"naive: {m.num_experts} x and {m.experts_per_token} x Mistral 7B v0.1", m.num_experts * mistral.parameters,
         m.experts_per_token * mistral.parameters),
    ]
    return Table(
        id="inference-moe-mixtral-split",
        caption=("Mixtral 8x7B's parameters by component (M = 10^6), counted from its config by ModelSpec. "
                 "Mixtral has Mistral 7B v0.1's shapes (hidden 4096, 32 layers, 8 KV heads, MLP width 14336) "
                 "with each MLP replaced by 8 experts of the same width; the last row multiplies the whole of "
                 "Mistral 7B, which copies the shared parts too."),
        columns=("component", "total (M)", "active per token (M)"),
        align=("l", "r", "r"),
        rows=tuple((name, f"{total / 1e6:,.1f}", f"{active / 1e6:,.1f}") for name, total, active in rows),
        assumptions=(CATALOG,),
    )


def mla_decompressed_bytes_per_token(spec: ModelSpec, *, kv_dtype: str = "bf16") -> int:
    """Bytes per token when MLA's K and V are cached decompressed, per head.

    Formula: ``layers x heads x ((qk_nope + qk_rope) + v_head) x bytes``: the layout of
    transformers 4.x's ``DeepseekV3Attention``, which called ``cache.update(key_states,
    value_states)`` after ``kv_b_proj`` expanded the latent.
    """
    assert spec.mla is not None
    m = spec.mla
    per_head = m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim
    return int(spec.num_layers * spec.num_attention_heads * per_head * DType.parse(kv_dtype).bytes_per_element)


def moe_kv_table() -> Table:
    """KV cache per token of DeepSeek-V3 (latent and decompressed) against dense GQA models."""
    ds = get_model("deepseek-v3")
    entries: list[tuple[str, str, int]] = [
        ("DeepSeek-V3", "MLA latent (vLLM; transformers 5.23)", kv_cache_bytes_per_token(ds)),
        ("DeepSeek-V3", "MLA decompressed per head (transformers 4.x)", mla_decompressed_bytes_per_token(ds)),
    ]
    for model_id in ("llama-3.1-405b", "llama-3.1-70b", "mixtral-8x7b"):
        spec = get_model(model_id)
        entries.append((_name(model_id), f"GQA, {spec.num_kv_heads} KV heads x {spec.head_dim}",
                        kv_cache_bytes_per_token(spec)))
    rows = [(name, layout, _kib(per_token), _gib(per_token * 32768), _gib(per_token * 131072))
            for name, layout, per_token in entries]
    return Table(
        id="inference-moe-kv",
        caption=("KV cache per token and per 32K- and 128K-token sequence, bf16 (KiB = 2^10, GiB = 2^30 bytes). "
                 "The latent row is kv_cache_bytes_per_token (layers x (kv_lora_rank + qk_rope_head_dim) x 2 "
                 "bytes); the decompressed row is layers x heads x (qk_nope + qk_rope + v_head dims) x 2 bytes, "
                 "derived in calculators.doc_tables.inference.mla_decompressed_bytes_per_token. GQA rows: "
                 "2 x layers x KV heads x head_dim x 2 bytes."),
        columns=("model", "cache layout", "KiB per token", "GiB at 32K", "GiB at 128K"),
        align=("l", "l", "r", "r", "r"),
        rows=tuple(rows),
        assumptions=("batch 1", CATALOG),
    )


def moe_prefill_table() -> Table:
    """Prefill temporaries of Mixtral's grouped experts against its dense twin, Mistral 7B."""
    rows = []
    for model_id in ("mistral-7b-v0.3", "mixtral-8x7b"):
        spec = get_model(model_id)
        for context in (4096, 16384, 32768):
            est = inference_memory(spec, weights="bf16", kv_cache="bf16", batch=1, context=context)
            act = est.breakdown["activations_and_logits"]
            rows.append((_name(model_id), _count(context), _gib(est.breakdown["kv_cache"]), _gib(act),
                         f"{act / context / KIB:,.1f}", _gib(est.total_bytes)))
    return Table(
        id="inference-moe-prefill",
        caption=("Prefill of one prompt, bf16 weights and KV cache, batch 1, SDPA, derived by inference_memory "
                 "(GiB = 2^30 bytes). Both models have the same hidden size, attention and MLP width; Mixtral's "
                 "transient is larger because transformers' grouped experts gather every (token, expert) pair "
                 "and run them at once, holding gate/up outputs for top-2 pairs per token plus router logits."),
        columns=("model", "prompt tokens", "KV cache GiB", "activations and logits GiB", "KiB per prompt token",
                 "total GiB"),
        align=("l", "r", "r", "r", "r", "r"),
        rows=tuple(rows),
        assumptions=("balanced routing (how many tokens each expert gets depends on the router)",
                     _total_bytes_assumption(), CATALOG),
    )


TABLES: dict[str, TableFunction] = {
    "inference-key-numbers": key_numbers_table,
    "inference-kv-per-token": kv_per_token_table,
    "inference-prefill-breakdown": prefill_breakdown_table,
    "inference-max-context-batch": max_context_batch_table,
    "inference-quant-key-numbers": quant_key_numbers_table,
    "inference-quant-formats": quant_formats_table,
    "inference-quant-weights": quant_weights_table,
    "inference-quant-fit": quant_fit_table,
    "inference-quant-claims": quant_claims_table,
    "inference-moe-key-numbers": moe_key_numbers_table,
    "inference-moe-params": moe_params_table,
    "inference-moe-mixtral-split": mixtral_split_table,
    "inference-moe-kv": moe_kv_table,
    "inference-moe-prefill": moe_prefill_table,
}
