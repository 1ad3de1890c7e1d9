"""Tables of the mixture-of-experts page (docs/inference/moe.md).

Total and active parameters come from :class:`calculators.model.ModelSpec`, weight bytes
from :func:`calculators.memory.weights.weight_bytes` and the KV cache from
:mod:`calculators.memory.inference`.

>>> "Mixtral 8x7B" in [row[0] for row in moe_params_table().rows]
True
"""

from __future__ import annotations

from calculators.catalog.models import all_models, get_model, model_name
from calculators.columns import Column, gib_column, number_column
from calculators.doc_tables.inference import CATALOG
from calculators.dtypes import DType
from calculators.memory.inference import inference_memory, kv_cache_bytes_per_token
from calculators.memory.weights import weight_bytes
from calculators.model import ModelSpec
from calculators.tables import Table, TableFunction, computed_by, declared_tables, table
from calculators.units import KIB, gib, number


@table("inference-moe-key-numbers")
def moe_key_numbers_table() -> Table:
    """Headline figures of the mixture-of-experts page."""
    mixtral, ds = get_model("mixtral-8x7b"), get_model("deepseek-v3")
    rows = (
        ("Mixtral 8x7B parameters, all experts", number(mixtral.parameters / 1e9, 2), "B", "`ModelSpec.parameters`"),
        ("Mixtral 8x7B parameters active per token (2 of 8 experts)", number(mixtral.active_parameters / 1e9, 2), "B",
         "`ModelSpec.active_parameters`"),
        ("Mixtral 8x7B weights, bf16", gib(weight_bytes(mixtral, dtype="bf16")), "GiB", weight_bytes),
        ("DeepSeek-V3 weights, fp8 linears (its released format)", gib(weight_bytes(ds, dtype="fp8")), "GiB",
         weight_bytes),
        ("DeepSeek-V3 KV cache per token, bf16 latent", number(kv_cache_bytes_per_token(ds) / KIB, 1), "KiB",
         kv_cache_bytes_per_token),
    )
    return Table.key_numbers(
        rows, caption="Key numbers for mixture-of-experts serving (derived; B = 10^9, GiB = 2^30 bytes, KiB = 2^10 bytes).",
        assumptions=(CATALOG,))


@table("inference-moe-params")
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
            spec.parameters, spec.active_parameters, spec.active_parameters - spec.embedding_parameters,
            spec.active_parameters / spec.parameters,
            *(weight_bytes(spec, dtype=fmt) for fmt in ("bf16", "fp8", "int4")),
        ))
    rows.sort(key=lambda r: str(r[0]).lower())
    return Table.of(
        caption=("Exact parameter counts from the configs (ModelSpec.parameters counts every expert; "
                 "ModelSpec.active_parameters counts what one token passes through: the input embedding, attention, "
                 "norms, routers, the top-k routed experts, any shared expert and the output head; the next column "
                 "leaves out the input embedding, which a token looks up rather than multiplies) and the weights' GiB (2^30 bytes) by weight_bytes. Memory "
                 "must hold every expert: the weight columns use the total."),
        columns=(Column("model"), Column("experts per MoE layer"), Column("MoE layers", align="r"),
                 *(number_column(name, 2, unit=1e9) for name in ("total params (B)", "active params (B)",
                                                                 "active without input embedding (B)")),
                 Column("active share", "{:.1%}".format, "r"),
                 *(gib_column(f"{fmt} GiB", 1, grouped=True) for fmt in ("bf16", "fp8", "int4"))),
        rows=rows,
        assumptions=("quantised formats apply to decoder linears (experts, routers, attention); embeddings, head "
                     "and norms stay bf16", "DeepSeek-V3 counted without its multi-token-prediction module",
                     CATALOG),
    )


@table("inference-moe-mixtral-split")
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
    return Table.of(
        caption=("Mixtral 8x7B's parameters by component (M = 10^6), counted from its config by ModelSpec. "
                 "Mixtral has Mistral 7B v0.1's shapes (hidden 4096, 32 layers, 8 KV heads, MLP width 14336) "
                 "with each MLP replaced by 8 experts of the same width; the last row multiplies the whole of "
                 "Mistral 7B, which copies the shared parts too."),
        columns=(Column("component"), number_column("total (M)", 1), number_column("active per token (M)", 1)),
        rows=((name, total / 1e6, active / 1e6) for name, total, active in rows),
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


@table("inference-moe-kv")
def moe_kv_table() -> Table:
    """KV cache per token of DeepSeek-V3 (latent and decompressed) against dense GQA models."""
    ds = get_model("deepseek-v3")
    entries: list[tuple[str, str, int]] = [
        ("DeepSeek-V3", "MLA latent (vLLM; transformers 5.23)", kv_cache_bytes_per_token(ds)),
        ("DeepSeek-V3", "MLA decompressed per head (transformers 4.x)", mla_decompressed_bytes_per_token(ds)),
    ]
    for model_id in ("llama-3.1-405b", "llama-3.1-70b", "mixtral-8x7b"):
        spec = get_model(model_id)
        entries.append((model_name(model_id), f"GQA, {spec.num_kv_heads} KV heads x {spec.head_dim}",
                        kv_cache_bytes_per_token(spec)))
    rows = [(name, layout, per_token, per_token * 32768, per_token * 131072) for name, layout, per_token in entries]
    return Table.of(
        caption=("KV cache per token and per 32K- and 128K-token sequence, bf16 (KiB = 2^10, GiB = 2^30 bytes). "
                 "The latent row is kv_cache_bytes_per_token (layers x (kv_lora_rank + qk_rope_head_dim) x 2 "
                 "bytes); the decompressed row is layers x heads x (qk_nope + qk_rope + v_head dims) x 2 bytes, "
                 f"derived in {computed_by(mla_decompressed_bytes_per_token, dotted=True, code=False)}. GQA rows: "
                 "2 x layers x KV heads x head_dim x 2 bytes."),
        columns=(Column("model"), Column("cache layout"), number_column("KiB per token", 1, unit=KIB),
                 gib_column("GiB at 32K", grouped=True), gib_column("GiB at 128K", grouped=True)),
        rows=rows,
        assumptions=("batch 1", CATALOG),
    )


@table("inference-moe-prefill")
def moe_prefill_table() -> Table:
    """Prefill temporaries of Mixtral's grouped experts against its dense twin, Mistral 7B."""
    rows = []
    for model_id in ("mistral-7b-v0.3", "mixtral-8x7b"):
        spec = get_model(model_id)
        for context in (4096, 16384, 32768):
            est = inference_memory(spec, weights="bf16", kv_cache="bf16", batch=1, context=context)
            act = est.breakdown["activations_and_logits"]
            rows.append((model_name(model_id), context, est.breakdown["kv_cache"], act, act / context, est.total_bytes))
    return Table.of(
        caption=("Prefill of one prompt, bf16 weights and KV cache, batch 1, SDPA, derived by inference_memory "
                 "(GiB = 2^30 bytes). Both models have the same hidden size, attention and MLP width; Mixtral's "
                 "transient is larger because transformers' grouped experts gather every (token, expert) pair "
                 "and run them at once, holding gate/up outputs for top-2 pairs per token plus router logits."),
        columns=(Column("model"), number_column("prompt tokens"), gib_column("KV cache GiB", grouped=True),
                 gib_column("activations and logits GiB", grouped=True), number_column("KiB per prompt token", 1, unit=KIB),
                 gib_column("total GiB", grouped=True)),
        rows=rows,
        # A memory estimate states the runtime overhead last among its assumptions.
        assumptions=("balanced routing (how many tokens each expert gets depends on the router)", est.overhead_assumption,
                     CATALOG),
    )


TABLES: dict[str, TableFunction] = declared_tables(globals())
