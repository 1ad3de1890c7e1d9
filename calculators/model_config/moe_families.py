"""Readers of the attention + MoE families of 2025: Llama 4, GLM-4.5/4.6, MiniMax-M2 and OLMoE.

* **Llama 4** (``llama4`` / ``llama4_text``; Scout 17B-16E, Maverick 17B-128E): the RoPE layers
  attend within chunks of ``attention_chunk_size`` tokens (their cache holds at most a chunk),
  every ``no_rope_layer_interval``-th layer is a global NoPE layer (``no_rope_layers`` lists
  them); q and k of the RoPE layers are L2-normalised without weights (``use_qk_norm``); the
  MoE layers (``moe_layers``, else every ``interleave_moe_layer_step``-th) hold
  ``num_local_experts`` experts and one shared expert, all ``intermediate_size`` wide, with a
  router without bias; the other layers a dense MLP ``intermediate_size_mlp`` wide.
* **GLM-4.5** (``glm4_moe``; GLM-4.5, GLM-4.5-Air, GLM-4.6): q/k/v biases without an o_proj
  bias (``attention_bias``), optional per-head q/k RMSNorms (``use_qk_norm``), partial rotary
  (no tensor changes), dense first ``first_k_dense_replace`` layers, then routed + shared
  experts with a sigmoid router and its correction bias; ``num_nextn_predict_layers``
  multi-token-prediction layers stored in the checkpoint, each with its own copy of the
  embedding and the output head (GLM-4.5's hub total, 358.34B, is the main model plus one
  such layer).
* **MiniMax-M2** (``minimax_m2``): q/k RMSNorms over all heads at once (``q_dim`` and
  ``kv_dim`` weights), 256 experts ``intermediate_size`` wide on every layer, a router with a
  correction bias, no shared expert, no biases; the multi-token-prediction modules its config names are
  not in the checkpoint.
* **OLMoE** (``olmoe``): q/k RMSNorms over all heads at once, 64 experts top-8 on every layer.

Parameter layouts follow transformers 5.23's ``modeling_llama4.py``, ``modeling_glm4_moe.py``,
``modeling_minimax_m2.py`` and ``modeling_olmoe.py``; absent keys take the defaults of their
configuration classes, with a note.

>>> spec = read_moe_family({"model_type": "olmoe", "hidden_size": 2048, "num_hidden_layers": 16,
...     "num_attention_heads": 16, "intermediate_size": 1024, "vocab_size": 50304, "num_experts": 64,
...     "num_experts_per_tok": 8}, "olmoe", [])
>>> spec.parameters  # OLMoE-1B-7B: 6.92B published
6919161856
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from calculators.errors import ConfigError
from calculators.model import ModelSpec, MoESpec
from calculators.model_config.common import build_layers, listed_attention_kinds, moe_mask, read_common
from calculators.model_config.keys import (
    MAX_EXPERTS,
    MAX_HIDDEN,
    MAX_LAYERS,
    MAX_TOKENS,
    MAX_WIDTH,
    read_bool,
    read_int,
    read_int_list,
    read_opt_int,
)
from calculators.model_config.layout import acknowledge, with_values

#: The families this module reads (``config.model_type``).
MODEL_TYPES = ("llama4", "llama4_text", "glm4_moe", "minimax_m2", "olmoe")

#: What each configuration class (transformers 5.23) sets when config.json leaves a key out.
DEFAULTS: dict[str, dict[str, Any]] = {
    "llama4": {"num_local_experts": 16, "num_experts_per_tok": 1, "interleave_moe_layer_step": 1,
               "intermediate_size_mlp": 16384, "attention_chunk_size": 8192, "no_rope_layer_interval": 4},
    "glm4_moe": {"n_routed_experts": 128, "num_experts_per_tok": 8, "moe_intermediate_size": 1408,
                 "n_shared_experts": 1, "first_k_dense_replace": 1},
    "minimax_m2": {"num_local_experts": 256, "num_experts_per_tok": 8, "head_dim": 128},
    "olmoe": {"num_experts": 64, "num_experts_per_tok": 8},
}


def read_moe_family(data: Mapping[str, Any], model_type: str, notes: list[str], *,
                    name: str | None = None) -> ModelSpec:
    """Read a config of one of :data:`MODEL_TYPES`."""
    family = "llama4" if model_type == "llama4_text" else model_type
    data = _with_defaults(data, family, notes)
    readers = {"llama4": _llama4, "glm4_moe": _glm4_moe, "minimax_m2": _minimax_m2, "olmoe": _olmoe}
    fields = readers[family](data, model_type)
    display = name or str(data.get("_name_or_path") or model_type)
    return ModelSpec(name=display, **fields, notes=tuple(notes))


def _with_defaults(data: Mapping[str, Any], family: str, notes: list[str]) -> Mapping[str, Any]:
    missing = {key: value for key, value in DEFAULTS[family].items() if key not in data}
    if family == "llama4" and (data.get("no_rope_layers") or "nope_layer_interval" in data):
        missing.pop("no_rope_layer_interval", None)
    if not missing:
        return data
    shown = ", ".join(f"{key}={value}" for key, value in missing.items())
    notes.append(f"config.json has no {', '.join(missing)}; used the defaults of transformers' {family} "
                 f"configuration class ({shown})")
    return with_values(data, missing)


def _experts(data: Mapping[str, Any], key: str) -> tuple[int, int]:
    """The routed-expert count (under ``key``) and ``num_experts_per_tok``."""
    num_experts = read_int(data, key, maximum=MAX_EXPERTS)
    return num_experts, read_int(data, "num_experts_per_tok", maximum=num_experts)


# ---------------------------------------------------------------------------------------------- Llama 4
def _llama4(data: Mapping[str, Any], model_type: str) -> dict[str, Any]:
    fields = read_common(data, model_type)
    layers = fields["num_layers"]
    expert_width = fields["intermediate_size"]
    num_experts, top_k = _experts(data, "num_local_experts")
    # Llama4TextConfig: moe_layers, when given (even empty), overrides interleave_moe_layer_step.
    if data.get("moe_layers") is not None:
        moe_layers = set(read_int_list(data, "moe_layers", maximum=layers - 1))
        acknowledge(data, "interleave_moe_layer_step")
        mlps = ["moe" if i in moe_layers else "dense" for i in range(layers)]
    else:
        mlps = moe_mask(layers, step=read_int(data, "interleave_moe_layer_step", maximum=layers))
    chunk = read_opt_int(data, "attention_chunk_size", maximum=MAX_TOKENS)
    rope = _llama4_rope_layers(data, layers)
    kinds = listed_attention_kinds(data, layers, allowed=("chunked_attention", "full_attention"))
    if kinds is None:
        # Llama4TextConfig: the RoPE layers attend in chunks, the NoPE layers globally.
        kinds = ["chunked_attention" if uses_rope else "full_attention" for uses_rope in rope]
    if chunk is None:
        kinds = ["full_attention"] * layers
    # The L2 norm of q and k on the RoPE layers (use_qk_norm) has no weights; the temperature tuning of the
    # NoPE layers (attn_temperature_tuning, floor_scale, attn_scale) and the router's jitter size no tensor.
    qk_l2_norm = read_bool(data, "use_qk_norm", True) and chunk is not None
    return {
        **fields,
        # The dense layers' MLP is intermediate_size_mlp wide; intermediate_size is the experts' width.
        "intermediate_size": read_int(data, "intermediate_size_mlp", maximum=MAX_WIDTH),
        "attention_chunk_size": chunk,
        "attention_output_kept": True,
        "qk_l2_norm": qk_l2_norm,
        "moe": MoESpec(num_experts, top_k, expert_width, num_shared_experts=1, shared_intermediate_size=expert_width,
                       every_expert_runs=True),
        "layers": build_layers(kinds, mlps),
    }


def _llama4_rope_layers(data: Mapping[str, Any], layers: int) -> list[bool]:
    """True for each layer that uses RoPE (``no_rope_layers[i] == 1``), False for the NoPE layers."""
    listed = data.get("no_rope_layers")
    if listed:
        flags = read_int_list(data, "no_rope_layers", maximum=1)
        if len(flags) < layers:
            raise ConfigError("no_rope_layers", f"a list of {len(flags)} items",
                              f"at least {layers} flags (1 = RoPE layer, 0 = NoPE layer)")
        acknowledge(data, "no_rope_layer_interval", "nope_layer_interval")
        return [flag == 1 for flag in flags[:layers]]
    key = "nope_layer_interval" if "nope_layer_interval" in data else "no_rope_layer_interval"
    interval = read_int(data, key, maximum=MAX_LAYERS)
    return [(i + 1) % interval != 0 for i in range(layers)]


# ---------------------------------------------------------------------------------------------- GLM-4.5
def _glm4_moe(data: Mapping[str, Any], model_type: str) -> dict[str, Any]:
    fields = read_common(data, model_type)
    layers = fields["num_layers"]
    num_experts, top_k = _experts(data, "n_routed_experts")
    width = read_int(data, "moe_intermediate_size", maximum=MAX_WIDTH)
    shared = read_int(data, "n_shared_experts", maximum=MAX_EXPERTS, minimum=0)
    first_dense = read_int(data, "first_k_dense_replace", maximum=layers, minimum=0)
    mtp = read_int(data, "num_nextn_predict_layers", maximum=MAX_LAYERS, default=0, minimum=0)
    return {
        **fields,
        "o_bias": False,  # Glm4MoeAttention: attention_bias adds q/k/v biases, o_proj never has one
        "partial_rotary": _partial_rotary(data, fields["head_dim"], default=0.5),
        "qk_norm": read_bool(data, "use_qk_norm", False),
        # Glm4MoeMoE: one shared MLP n_shared_experts x moe_intermediate_size wide; the router keeps a
        # correction bias per expert (a buffer the checkpoint stores) and computes its weights in fp32.
        "moe": MoESpec(num_experts, top_k, width, num_shared_experts=1 if shared else 0,
                       shared_intermediate_size=shared * width, first_dense_layers=first_dense,
                       router_bias_per_expert=1, fp32_routing_weights=True, fp32_router=True),
        "layers": build_layers(["full_attention"] * layers, moe_mask(layers, first_dense=first_dense)),
        "mtp_layers": mtp,
        "mtp_own_embeddings": bool(mtp),
    }


# ---------------------------------------------------------------------------------------------- MiniMax-M2
def _minimax_m2(data: Mapping[str, Any], model_type: str) -> dict[str, Any]:
    fields = read_common(data, model_type)
    layers = fields["num_layers"]
    num_experts, top_k = _experts(data, "num_local_experts")
    # MiniMaxM2Attention builds no biases and normalises q and k over all heads, whatever the config says:
    # a config asking otherwise describes tensors transformers would not load.
    _require(data, "attention_bias", False, "false (MiniMaxM2Attention has no biases)")
    _require(data, "use_qk_norm", True, "true (MiniMaxM2Attention always normalises q and k)")
    _require(data, "qk_norm_type", "per_layer", "'per_layer' (one RMSNorm over all heads of q and of k)")
    _require(data, "use_routing_bias", True, "true (the router's e_score_correction_bias)")
    if read_int(data, "shared_intermediate_size", maximum=MAX_WIDTH, default=0, minimum=0):
        raise ConfigError("shared_intermediate_size", data.get("shared_intermediate_size"),
                          "0 (MiniMaxM2SparseMoeBlock has no shared expert)")
    attention_types = data.get("attn_type_list")
    if attention_types is not None and (not isinstance(attention_types, list) or attention_types != [1] * layers):
        raise ConfigError("attn_type_list", attention_types, f"{layers} ones (softmax attention on every layer; "
                          "MiniMax-01's lightning-attention layers, 0, are not modelled)")
    kinds = listed_attention_kinds(data, layers, allowed=("full_attention",)) or ["full_attention"] * layers
    # MiniMax-M2's config names its multi-token-prediction modules (use_mtp, num_mtp_modules,
    # mtp_transformer_layers), but the published checkpoint's total (229B on model pages, 228.7B on a
    # model card of the same architecture) is the main model's 228.69B: it stores none, and transformers
    # builds none. rotary_dim (partial RoPE) sizes no tensor.
    acknowledge(data, "use_mtp", "num_mtp_modules", "mtp_transformer_layers", "rotary_dim")
    return {
        **fields,
        "head_dim": read_int(data, "head_dim", maximum=MAX_HIDDEN),
        "qkv_bias": False,
        "o_bias": False,
        "qk_norm": True,
        "qk_norm_scope": "width",
        "partial_rotary": _partial_rotary(data, read_int(data, "head_dim", maximum=MAX_HIDDEN), default=1.0),
        # MiniMaxM2TopKRouter takes a sigmoid of fp32 logits and hands the experts those fp32 weights.
        "moe": MoESpec(num_experts, top_k, fields["intermediate_size"], router_bias_per_expert=1,
                       fp32_routing_weights=True),
        "layers": build_layers(kinds, ["moe"] * layers),
    }


# ---------------------------------------------------------------------------------------------- OLMoE
def _olmoe(data: Mapping[str, Any], model_type: str) -> dict[str, Any]:
    fields = read_common(data, model_type)
    layers = fields["num_layers"]
    if fields["head_dim"] * fields["num_attention_heads"] != fields["hidden_size"]:
        # OlmoeAttention sizes q_norm hidden_size wide: any other head_dim does not run.
        raise ConfigError("head_dim", fields["head_dim"],
                          f"hidden_size / num_attention_heads ({fields['hidden_size'] // fields['num_attention_heads']}"
                          "), as OlmoeAttention's q_norm requires")
    num_experts, top_k = _experts(data, "num_experts")
    # clip_qkv clamps q, k and v in place: no tensor.
    return {
        **fields,
        "qk_norm": True,
        "qk_norm_scope": "width",
        "moe": MoESpec(num_experts, top_k, fields["intermediate_size"]),
        "layers": build_layers(["full_attention"] * layers, ["moe"] * layers),
    }


def _partial_rotary(data: Mapping[str, Any], head_dim: int, *, default: float) -> bool:
    """True when RoPE covers part of each head (``partial_rotary_factor`` < 1, or ``rotary_dim`` < head_dim,
    inside ``rope_parameters`` or at the top level): no tensor changes, but the rotated and plain parts are
    concatenated again, which changes what attention keeps."""
    rope = data.get("rope_parameters")
    factor = data.get("partial_rotary_factor")
    if isinstance(rope, dict) and "partial_rotary_factor" in rope:
        factor = rope["partial_rotary_factor"]
    rotary_dim = data.get("rotary_dim")
    if factor is None and isinstance(rotary_dim, (int, float)) and not isinstance(rotary_dim, bool) and head_dim:
        factor = rotary_dim / head_dim
    if factor is None:
        factor = default
    return isinstance(factor, (int, float)) and not isinstance(factor, bool) and 0 < factor < 1


def _require(data: Mapping[str, Any], key: str, expected: Any, accepted: str) -> None:
    """Refuse ``key`` unless it is absent, null or ``expected``."""
    value = data.get(key)
    if value is not None and value != expected:
        raise ConfigError(key, value, accepted)
