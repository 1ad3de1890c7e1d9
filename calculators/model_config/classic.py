"""Readers of the attention + MLP families: Llama, Mistral, Mixtral, Qwen 2/3 (dense and MoE), Gemma 1-3, Phi-3,
DeepSeek-V3 and gpt-oss.

Each architecture spells its shapes differently: Qwen2 always has q/k/v biases, Gemma
ties embeddings and Gemma 2 caps logits, Mixtral's experts use ``intermediate_size`` while
DeepSeek-V3 and Qwen MoE use ``moe_intermediate_size``, and sliding windows apply to all,
alternate or upper layers. The rules are those of each family's configuration and
modeling files in ``transformers`` (5.x).

>>> spec = read_classic({"model_type": "qwen2", "hidden_size": 896, "num_hidden_layers": 24,
...     "num_attention_heads": 14, "num_key_value_heads": 2, "intermediate_size": 4864,
...     "vocab_size": 151936, "tie_word_embeddings": True}, "qwen2", [])
>>> spec.qkv_bias, spec.o_bias  # Qwen2 always has q/k/v biases, never an o_proj bias
(True, False)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from calculators.model import MLASpec, ModelSpec, MoESpec
from calculators.model_config.common import build_layers, listed_attention_kinds, moe_mask, read_aliased_int, \
    read_common, sliding_kinds
from calculators.model_config.keys import (
    MAX_EXPERTS,
    MAX_HIDDEN,
    MAX_LAYERS,
    MAX_TOKENS,
    MAX_WIDTH,
    read_bool,
    read_int,
    read_int_list,
    read_opt_float,
    read_opt_int,
)
from calculators.model_config.layout import with_values

#: The families this module reads (``config.model_type``).
MODEL_TYPES = ("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2",
               "phi3", "deepseek_v3", "gemma3_text", "gpt_oss")

#: What transformers' configuration classes (v5.x: MixtralConfig, Qwen2MoeConfig,
#: Qwen3MoeConfig, DeepseekV3Config) set when a MoE config.json leaves a key out. A config
#: missing its expert keys gets these, with a note; never a silent dense model.
MOE_DEFAULTS: dict[str, dict[str, int]] = {
    "mixtral": {"num_local_experts": 8, "num_experts_per_tok": 2},
    "qwen2_moe": {"num_experts": 60, "num_experts_per_tok": 4, "moe_intermediate_size": 1408,
                  "shared_expert_intermediate_size": 5632},
    "qwen3_moe": {"num_experts": 128, "num_experts_per_tok": 8, "moe_intermediate_size": 768},
    "deepseek_v3": {"n_routed_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 2048,
                    "n_shared_experts": 1, "first_k_dense_replace": 3,
                    # Multi-head latent attention (DeepseekV3Config's defaults too).
                    "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
                    "v_head_dim": 128},
}
#: The key naming the routed-expert count, per MoE architecture.
_EXPERT_KEY = {"mixtral": "num_local_experts", "qwen2_moe": "num_experts", "qwen3_moe": "num_experts",
               "deepseek_v3": "n_routed_experts", "gpt_oss": "num_local_experts"}
_QWEN = ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe")
_GEMMA = ("gemma", "gemma2", "gemma3_text")
#: Gemma 3 makes every sixth layer global when a config gives no ``layer_types``
#: (``Gemma3TextConfig.sliding_window_pattern``, default 6) and a 4096-token window by default.
_GEMMA3_DEFAULT_PATTERN = 6
_GEMMA3_DEFAULT_WINDOW = 4096


def read_classic(data: Mapping[str, Any], model_type: str, notes: list[str], *, name: str | None = None) -> ModelSpec:
    """Read a config of one of :data:`MODEL_TYPES` (or a Llama-style config of another ``model_type``).

    * ``gemma3_text``: four RMSNorms per layer, q/k RMSNorms (head_dim each), a tied output
      head, and a local:global pattern: layer ``i`` slides unless ``(i + 1) % pattern == 0``
      (5 local : 1 global for the default pattern 6), unless ``layer_types`` lists them.
    * ``gpt_oss``: biases on q/k/v/o (``attention_bias``, default true), one learned sink
      logit per head and layer, a router with a bias, experts with biases on gate_up and
      down; ``layer_types`` alternates sliding (128-token) and full attention.
    * Qwen MoE: a layer is dense when listed in ``mlp_only_layers`` or off the
      ``decoder_sparse_step``; DeepSeek-V3: the first ``first_k_dense_replace`` layers are
      dense, and ``num_nextn_predict_layers`` multi-token-prediction layers are stored.
    """
    data = _with_moe_defaults(data, model_type, notes)
    fields = read_common(data, model_type)
    layers = fields["num_layers"]
    if model_type in _GEMMA:
        fields["tie_word_embeddings"] = read_bool(data, "tie_word_embeddings", True)
    if model_type in ("qwen2", "qwen2_moe"):
        # Qwen2 always has q/k/v biases and no o_proj bias (modeling_qwen2.py).
        fields["qkv_bias"], fields["o_bias"] = True, False
    elif model_type == "phi3":
        fields["qkv_bias"] = fields["o_bias"] = False
    elif model_type == "gpt_oss":
        fields["qkv_bias"] = fields["o_bias"] = read_bool(data, "attention_bias", True)
    fields["norms_per_layer"] = 4 if model_type in ("gemma2", "gemma3_text") else 2
    fields["qk_norm"] = model_type in ("qwen3", "qwen3_moe", "gemma3_text")
    # Gemma 2 caps attention scores and logits with tanh (defaults of Gemma2Config).
    fields["attn_logit_softcapping"] = read_opt_float(data, "attn_logit_softcapping",
                                                      50.0 if model_type == "gemma2" else None)
    fields["final_logit_softcapping"] = read_opt_float(data, "final_logit_softcapping",
                                                       30.0 if model_type == "gemma2" else None)

    window, attention = _attention(data, model_type, layers)
    moe, mlps = _moe(data, model_type, layers, fields["hidden_size"])
    mla = _mla(data) if model_type == "deepseek_v3" else None
    mtp = read_int(data, "num_nextn_predict_layers", maximum=MAX_LAYERS, default=0, minimum=0) \
        if model_type == "deepseek_v3" else 0
    return ModelSpec(
        name=name or str(data.get("_name_or_path") or model_type),
        **fields,
        sliding_window=window,
        attention_sinks=model_type == "gpt_oss",
        moe=moe,
        mla=mla,
        layers=build_layers(attention, mlps),
        mtp_layers=mtp,
        mtp_own_embeddings=bool(mtp),
        notes=tuple(notes),
    )


def _attention(data: Mapping[str, Any], model_type: str, layers: int) -> tuple[int | None, list[str]]:
    """The sliding window (tokens, or None) and each layer's attention kind."""
    if model_type == "gemma3_text":
        window = read_opt_int(data, "sliding_window", maximum=MAX_TOKENS) if "sliding_window" in data \
            else _GEMMA3_DEFAULT_WINDOW
    else:
        window = read_opt_int(data, "sliding_window", maximum=MAX_TOKENS)
    listed = listed_attention_kinds(data, layers)
    if window is None:
        return None, ["full_attention"] * layers
    if listed is not None:
        kinds = listed
    elif model_type in _QWEN:
        if not read_bool(data, "use_sliding_window", False):
            return None, ["full_attention"] * layers
        # Qwen uses sliding attention only from layer max_window_layers upward.
        first = read_int(data, "max_window_layers", maximum=layers, default=layers, minimum=0)
        kinds = sliding_kinds(layers, range(first, layers))
    elif model_type == "gemma2":
        kinds = sliding_kinds(layers, range(0, layers, 2))  # layers 0, 2, 4, ... slide (configuration_gemma2.py)
    elif model_type == "gemma3_text":
        pattern = read_int(data, "sliding_window_pattern", maximum=MAX_LAYERS, default=_GEMMA3_DEFAULT_PATTERN)
        kinds = sliding_kinds(layers, [i for i in range(layers) if (i + 1) % pattern])
    else:
        # Mistral v0.1, Phi-3: a window and no layer_types means every layer slides
        # (transformers cache_utils.get_layer_types_and_kwargs).
        kinds = ["sliding_attention"] * layers
    if "sliding_attention" not in kinds:
        return None, kinds
    return window, kinds


def _with_moe_defaults(data: Mapping[str, Any], model_type: str, notes: list[str]) -> Mapping[str, Any]:
    """``data`` with the architecture's MoE defaults filled in where a key is absent (a note lists them)."""
    defaults = MOE_DEFAULTS.get(model_type)
    if defaults is None:
        return data
    # transformers 5 saves the expert count as num_local_experts: that is the count, not a missing key.
    spelled = {_EXPERT_KEY[model_type]} if "num_local_experts" in data else set()
    missing = {key: value for key, value in defaults.items() if key not in data and key not in spelled}
    if not missing:
        return data
    shown = ", ".join(f"{key}={value}" for key, value in missing.items())
    notes.append(f"config.json has no {', '.join(missing)}; used the {model_type} defaults of transformers' "
                 f"configuration class ({shown})")
    return with_values(data, missing)


def _moe(data: Mapping[str, Any], model_type: str, layers: int, hidden: int) -> tuple[MoESpec | None, list[str]]:
    """The experts' layout and each layer's MLP kind (``"moe"`` or ``"dense"``)."""
    key = _EXPERT_KEY.get(model_type)
    if key is None:
        return None, ["dense"] * layers
    # transformers 5 saves every expert count as num_local_experts (its attribute_map), older configs their own key.
    num_experts = read_aliased_int(data, tuple(dict.fromkeys((key, "num_local_experts"))), maximum=MAX_EXPERTS)
    top_k = read_int(data, "num_experts_per_tok", maximum=num_experts)
    if model_type in ("mixtral", "gpt_oss"):  # experts are intermediate_size wide, every layer
        spec = MoESpec(num_experts, top_k, read_int(data, "intermediate_size", maximum=MAX_WIDTH))
        if model_type == "gpt_oss":
            spec = MoESpec(num_experts, top_k, spec.expert_intermediate_size, router_bias_per_expert=1,
                           expert_bias=True)
        return spec, ["moe"] * layers
    width = read_int(data, "moe_intermediate_size", maximum=MAX_WIDTH)
    if model_type == "deepseek_v3":
        shared = read_int(data, "n_shared_experts", maximum=MAX_EXPERTS, default=0, minimum=0)
        first_dense = read_int(data, "first_k_dense_replace", maximum=layers, default=0, minimum=0)
        # DeepSeek's rule: a layer past the dense ones is MoE when its index is a multiple of moe_layer_freq.
        freq = read_int(data, "moe_layer_freq", maximum=layers, default=1)
        mlps = ["moe" if i >= first_dense and i % freq == 0 else "dense" for i in range(layers)]
        # DeepseekV3TopkRouter runs in fp32 and hands the experts fp32 weights (what activations keep).
        return MoESpec(num_experts, top_k, width, num_shared_experts=shared, shared_intermediate_size=width,
                       first_dense_layers=first_dense, router_bias_per_expert=1, fp32_routing_weights=True,
                       fp32_router=True), mlps
    # Qwen MoE: a layer is MoE unless listed in mlp_only_layers or off the decoder_sparse_step
    # (Qwen2MoeDecoderLayer / Qwen3MoeDecoderLayer).
    step = read_int(data, "decoder_sparse_step", maximum=layers, default=1)
    dense = read_int_list(data, "mlp_only_layers", maximum=layers - 1)
    mlps = moe_mask(layers, step=step, dense_layers=dense)
    if model_type == "qwen2_moe":
        shared_width = read_int(data, "shared_expert_intermediate_size", maximum=MAX_WIDTH, default=0, minimum=0)
        return MoESpec(num_experts, top_k, width, num_shared_experts=1 if shared_width else 0,
                       shared_intermediate_size=shared_width, shared_expert_gate=bool(shared_width)), mlps
    return MoESpec(num_experts, top_k, width), mlps


def _mla(data: Mapping[str, Any]) -> MLASpec:
    return MLASpec(
        q_lora_rank=read_opt_int(data, "q_lora_rank", maximum=MAX_HIDDEN),
        kv_lora_rank=read_int(data, "kv_lora_rank", maximum=MAX_HIDDEN),
        qk_nope_head_dim=read_int(data, "qk_nope_head_dim", maximum=MAX_HIDDEN),
        qk_rope_head_dim=read_int(data, "qk_rope_head_dim", maximum=MAX_HIDDEN),
        v_head_dim=read_int(data, "v_head_dim", maximum=MAX_HIDDEN),
    )

