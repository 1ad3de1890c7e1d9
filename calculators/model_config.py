"""Read a Hugging Face ``config.json`` into a :class:`~calculators.model.ModelSpec`, family by family.

Each architecture spells its shapes differently: Qwen2 always has q/k/v biases, Gemma
ties embeddings and Gemma 2 caps logits, Mixtral's experts use ``intermediate_size``
while DeepSeek-V3 and Qwen MoE use ``moe_intermediate_size``, and sliding windows apply
to all, alternate or upper layers. This module knows those rules
(:data:`KNOWN_MODEL_TYPES`) and checks every key it reads, raising
:class:`~calculators.errors.ConfigError` naming the key.

>>> spec = spec_from_config({"model_type": "qwen2", "hidden_size": 896, "num_hidden_layers": 24,
...     "num_attention_heads": 14, "num_key_value_heads": 2, "intermediate_size": 4864,
...     "vocab_size": 151936, "tie_word_embeddings": True})
>>> spec.qkv_bias, spec.o_bias  # Qwen2 always has q/k/v biases, never an o_proj bias
(True, False)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from calculators.config_input import load_config_json
from calculators.encoder import decoder_refusal
from calculators.errors import ConfigError
from calculators.quantization import checkpoint_quantization
from calculators.model import MLASpec, ModelSpec, MoESpec

#: Architectures whose tensor layout this module knows exactly (``config.model_type``).
KNOWN_MODEL_TYPES = (
    "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe",
    "gemma", "gemma2", "phi3", "deepseek_v3",
    *("gemma3_text", "gpt_oss"),  # read by _newer_families (2025 architectures)
)

#: Encoder-only and encoder-decoder families (``config.model_type``): refused, not guessed. Their
#: layers differ from a decoder's in every term the memory model counts (a two-matrix MLP with
#: biases, LayerNorm, learned position and token-type embeddings, bidirectional attention, a
#: masked-LM or classification head), so a Llama-style reading would miscount them.
ENCODER_MODEL_TYPES = (
    "bert", "roberta", "xlm-roberta", "distilbert", "albert", "electra", "deberta", "deberta-v2", "modernbert",
    "mpnet", "t5", "mt5", "bart",
)

_MAX_HIDDEN = 1 << 17  # 131072: ten times the widest published dense model
_MAX_LAYERS = 4096
_MAX_VOCAB = 1 << 24
_MAX_HEADS = 4096
_MAX_EXPERTS = 4096




def spec_from_config(config: Mapping[str, Any] | str | bytes | Path, *, name: str | None = None) -> ModelSpec:
    """Parse a ``config.json`` (a dict, JSON text, its bytes or a file path) into a :class:`ModelSpec`.

    The input limits (1 MiB, UTF-8, nesting, integer length) are those of
    :mod:`calculators.config_input`.

    Same as :func:`~calculators.model_config.spec_from_config`.
    """
    return _spec_from_dict(_load_config(config), name=name)


def _load_config(config: Mapping[str, Any] | str | bytes | Path) -> dict[str, Any]:
    # Size, encoding, nesting and integer limits: calculators.config_input.
    data = load_config_json(config)
    # Multimodal and some newer configs nest the language model under text_config.
    text_config = data.get("text_config")
    if isinstance(text_config, dict) and "hidden_size" not in data:
        merged = {**text_config}
        merged.setdefault("model_type", text_config.get("model_type", data.get("model_type")))
        data = merged
    return data


def _int(data: Mapping[str, Any], key: str, *, maximum: int, default: int | None = None,
         minimum: int = 1) -> int:
    value = data.get(key, default)
    if value is None:
        raise ConfigError(key, None, f"an integer from {minimum} to {maximum} (key missing)")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or isinstance(value, float) and (
        not math.isfinite(value) or value != int(value)
    ):
        raise ConfigError(key, value, f"an integer from {minimum} to {maximum}")
    if not minimum <= int(value) <= maximum:
        raise ConfigError(key, value, f"an integer from {minimum} to {maximum}")
    return int(value)


def _opt_int(data: Mapping[str, Any], key: str, *, maximum: int) -> int | None:
    if data.get(key) is None:
        return None
    return _int(data, key, maximum=maximum)


def _opt_float(data: Mapping[str, Any], key: str, default: float | None) -> float | None:
    value = data.get(key, default) if key in data else default
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigError(key, value, "a positive number or null")
    return float(value)


def _bool(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ConfigError(key, value, "true or false")
    return value


def _spec_from_dict(data: Mapping[str, Any], *, name: str | None) -> ModelSpec:
    notes: list[str] = []
    model_type = data.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        raise ConfigError("model_type", model_type, f"a string such as one of: {', '.join(KNOWN_MODEL_TYPES)}")
    if model_type in ENCODER_MODEL_TYPES:
        raise ConfigError("model_type", model_type, decoder_refusal(model_type))
    if model_type not in KNOWN_MODEL_TYPES:
        missing = [k for k in ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
                               "vocab_size") if k not in data]
        if missing:
            raise ConfigError("model_type", model_type,
                              f"one of: {', '.join(KNOWN_MODEL_TYPES)}, or a Llama-style config "
                              f"(missing {', '.join(missing)})")
        notes.append(f"model_type {model_type!r} is not one this guide knows exactly; "
                     "treated as Llama-style (gated MLP, RMSNorm, no biases unless the config says so)")

    hidden = _int(data, "hidden_size", maximum=_MAX_HIDDEN)
    layers = _int(data, "num_hidden_layers", maximum=_MAX_LAYERS)
    heads = _int(data, "num_attention_heads", maximum=_MAX_HEADS)
    kv_heads = _int(data, "num_key_value_heads", maximum=_MAX_HEADS, default=heads)
    if heads % kv_heads:
        raise ConfigError("num_key_value_heads", kv_heads,
                          f"a divisor of num_attention_heads ({heads})")
    head_dim = _opt_int(data, "head_dim", maximum=_MAX_HIDDEN)
    if head_dim is None:
        if hidden % heads:
            raise ConfigError("head_dim", None,
                              f"set explicitly, since hidden_size {hidden} is not a multiple of "
                              f"num_attention_heads {heads}")
        head_dim = hidden // heads
    vocab = _int(data, "vocab_size", maximum=_MAX_VOCAB)
    intermediate = _int(data, "intermediate_size", maximum=_MAX_HIDDEN * 16,
                        default=data.get("moe_intermediate_size"))

    tie_default = model_type in ("gemma", "gemma2")
    tie = _bool(data, "tie_word_embeddings", tie_default)
    qkv_bias = _bool(data, "attention_bias", False)
    o_bias = qkv_bias
    mlp_bias = _bool(data, "mlp_bias", False)
    if model_type in ("qwen2", "qwen2_moe"):
        # Qwen2 always has q/k/v biases and no o_proj bias (modeling_qwen2.py).
        qkv_bias, o_bias = True, False
    elif model_type == "phi3":
        qkv_bias = o_bias = False
    norms_per_layer = 4 if model_type == "gemma2" else 2
    qk_norm = model_type in ("qwen3", "qwen3_moe")

    sliding_window, sliding_layers = _sliding_window(data, model_type, layers)
    data = _with_moe_defaults(data, model_type, notes)
    moe = _moe(data, model_type, layers, hidden)
    mla = _mla(data) if model_type == "deepseek_v3" else None
    max_positions = _opt_int(data, "max_position_embeddings", maximum=1 << 24)
    # Gemma 2 caps attention scores and logits with tanh (defaults of Gemma2Config).
    attn_cap = _opt_float(data, "attn_logit_softcapping", 50.0 if model_type == "gemma2" else None)
    final_cap = _opt_float(data, "final_logit_softcapping", 30.0 if model_type == "gemma2" else None)

    spec = ModelSpec(
        name=name or str(data.get("_name_or_path") or model_type),
        model_type=model_type,
        hidden_size=hidden,
        num_layers=layers,
        num_attention_heads=heads,
        num_kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate_size=intermediate,
        vocab_size=vocab,
        tie_word_embeddings=tie,
        qkv_bias=qkv_bias,
        o_bias=o_bias,
        mlp_bias=mlp_bias,
        norms_per_layer=norms_per_layer,
        qk_norm=qk_norm,
        sliding_window=sliding_window,
        sliding_window_layers=sliding_layers,
        moe=moe,
        mla=mla,
        max_position_embeddings=max_positions,
        attn_logit_softcapping=attn_cap,
        final_logit_softcapping=final_cap,
        notes=tuple(notes),
        quantization=checkpoint_quantization(data.get("quantization_config"), model_type=model_type),
    )
    return _newer_families(spec, data)


def _sliding_window(data: Mapping[str, Any], model_type: str, layers: int) -> tuple[int | None, int]:
    window = _opt_int(data, "sliding_window", maximum=1 << 24)
    if window is None:
        return None, 0
    layer_types = data.get("layer_types")
    if isinstance(layer_types, list) and layer_types:
        count = sum(1 for t in layer_types if t == "sliding_attention")
        return (window, count) if count else (None, 0)
    if model_type in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe"):
        if not data.get("use_sliding_window", False):
            return None, 0
        # Qwen uses sliding attention only from layer max_window_layers upward.
        first = _int(data, "max_window_layers", maximum=layers, default=layers, minimum=0)
        return window, max(0, layers - first)
    if model_type == "gemma2":
        return window, (layers + 1) // 2  # layers 0, 2, 4, ... slide (configuration_gemma2.py)
    # Mistral v0.1, Phi-3: a window and no layer_types means every layer slides
    # (transformers cache_utils.get_layer_types_and_kwargs).
    return window, layers


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
               "deepseek_v3": "n_routed_experts"}


def _with_moe_defaults(data: Mapping[str, Any], model_type: str, notes: list[str]) -> Mapping[str, Any]:
    """``data`` with the architecture's MoE defaults filled in where a key is absent (a note lists them)."""
    defaults = MOE_DEFAULTS.get(model_type)
    if defaults is None:
        return data
    missing = {key: value for key, value in defaults.items() if key not in data}
    if not missing:
        return data
    shown = ", ".join(f"{key}={value}" for key, value in missing.items())
    notes.append(f"config.json has no {', '.join(missing)}; used the {model_type} defaults of transformers' "
                 f"configuration class ({shown})")
    return {**data, **missing}


def _moe(data: Mapping[str, Any], model_type: str, layers: int, hidden: int) -> MoESpec | None:
    if model_type in _EXPERT_KEY:
        key = _EXPERT_KEY[model_type]
    elif any(data.get(k) for k in ("num_local_experts", "n_routed_experts", "num_experts")):
        # Another architecture with an expert count (0 or null there means dense).
        key = next(k for k in ("num_local_experts", "n_routed_experts", "num_experts") if data.get(k))
    else:
        return None
    num_experts = _int(data, key, maximum=_MAX_EXPERTS)
    top_k = _int(data, "num_experts_per_tok", maximum=num_experts)
    if model_type in ("mixtral", "gpt_oss"):  # experts are intermediate_size wide
        return MoESpec(num_experts, top_k, _int(data, "intermediate_size", maximum=_MAX_HIDDEN * 16))
    width = _int(data, "moe_intermediate_size", maximum=_MAX_HIDDEN * 16)
    if model_type == "deepseek_v3":
        shared = _int(data, "n_shared_experts", maximum=_MAX_EXPERTS, default=0, minimum=0)
        first_dense = _int(data, "first_k_dense_replace", maximum=layers, default=0, minimum=0)
        return MoESpec(num_experts, top_k, width, num_shared_experts=shared, shared_intermediate_size=width,
                       first_dense_layers=first_dense, router_bias_per_expert=1)
    if model_type == "qwen2_moe":
        shared_width = _int(data, "shared_expert_intermediate_size", maximum=_MAX_HIDDEN * 16, default=0, minimum=0)
        return MoESpec(num_experts, top_k, width, num_shared_experts=1 if shared_width else 0,
                       shared_intermediate_size=shared_width, shared_expert_gate=bool(shared_width))
    return MoESpec(num_experts, top_k, width)


def _mla(data: Mapping[str, Any]) -> MLASpec:
    return MLASpec(
        q_lora_rank=_opt_int(data, "q_lora_rank", maximum=_MAX_HIDDEN),
        kv_lora_rank=_int(data, "kv_lora_rank", maximum=_MAX_HIDDEN),
        qk_nope_head_dim=_int(data, "qk_nope_head_dim", maximum=_MAX_HIDDEN),
        qk_rope_head_dim=_int(data, "qk_rope_head_dim", maximum=_MAX_HIDDEN),
        v_head_dim=_int(data, "v_head_dim", maximum=_MAX_HIDDEN),
    )


# --------------------------------------------------------------------------- 2025 architectures
#: Gemma 3 makes every sixth layer global when a config gives no ``layer_types``
#: (``Gemma3TextConfig.sliding_window_pattern``, default 6) and a 4096-token window by default.
_GEMMA3_DEFAULT_PATTERN = 6
_GEMMA3_DEFAULT_WINDOW = 4096


def _newer_families(spec: ModelSpec, data: Mapping[str, Any]) -> ModelSpec:
    """Apply the layout rules of Gemma 3, gpt-oss and Qwen3-MoE to a parsed spec.

    * ``gemma3_text``: four RMSNorms per layer, q/k RMSNorms (head_dim each), a tied output
      head, and a local:global pattern: layer ``i`` slides unless ``(i + 1) % pattern == 0``
      (5 local : 1 global for the default pattern 6), unless ``layer_types`` lists them.
    * ``gpt_oss``: biases on q/k/v/o (``attention_bias``, default true), one learned sink
      logit per head and layer, a router with a bias, experts with biases on gate_up and
      down; ``layer_types`` alternates sliding (128-token) and full attention.
    * ``qwen3_moe``: every layer is MoE; dense layers among them (``mlp_only_layers``,
      ``decoder_sparse_step`` > 1) are not modelled and are refused rather than miscounted.
    """
    if spec.model_type == "gemma3_text":
        window = _opt_int(data, "sliding_window", maximum=1 << 24) if "sliding_window" in data \
            else _GEMMA3_DEFAULT_WINDOW
        layer_types = data.get("layer_types")
        if isinstance(layer_types, list) and layer_types:
            sliding = sum(1 for t in layer_types if t == "sliding_attention")
        else:
            pattern = _int(data, "sliding_window_pattern", maximum=_MAX_LAYERS, default=_GEMMA3_DEFAULT_PATTERN)
            sliding = sum(1 for i in range(spec.num_layers) if (i + 1) % pattern)
        return replace(spec, tie_word_embeddings=_bool(data, "tie_word_embeddings", True), norms_per_layer=4,
                       qk_norm=True, sliding_window=window if sliding else None,
                       sliding_window_layers=sliding if window else 0)
    if spec.model_type == "gpt_oss":
        if spec.moe is None:
            raise ConfigError("num_local_experts", data.get("num_local_experts"), "an integer of at least 1")
        bias = _bool(data, "attention_bias", True)
        return replace(spec, qkv_bias=bias, o_bias=bias, attention_sinks=True,
                       moe=replace(spec.moe, router_bias_per_expert=1, expert_bias=True))
    if spec.model_type == "qwen3_moe":
        if data.get("mlp_only_layers"):
            raise ConfigError("mlp_only_layers", data.get("mlp_only_layers"),
                              "an empty list (dense layers among MoE layers are not modelled)")
        _int(data, "decoder_sparse_step", maximum=1, default=1)
    return spec
