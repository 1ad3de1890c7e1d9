"""Transformer shapes and exact parameter counts, read from a Hugging Face ``config.json``.

Every memory, speed and cost figure starts here: a :class:`ModelSpec` holds the shapes
that decide bytes (hidden size, layers, heads, KV heads, head_dim, MLP width, vocab,
biases, norms, sliding window, mixture-of-experts, multi-head latent attention) and
counts parameters from them exactly, the way the reference implementation in
``transformers`` lays out its tensors.

>>> spec = ModelSpec.from_config({
...     "model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
...     "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
...     "vocab_size": 128256, "tie_word_embeddings": False}, name="Llama-3-8B")
>>> spec.parameters  # the published count of Meta-Llama-3-8B
8030261248
>>> spec.kv_dim  # 8 KV heads x 128, not 32 x 128: grouped-query attention
1024
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calculators.errors import ConfigError, InputError

#: Architectures whose tensor layout this module knows exactly (``config.model_type``).
KNOWN_MODEL_TYPES = (
    "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe",
    "gemma", "gemma2", "phi3", "deepseek_v3",
)

_MAX_HIDDEN = 1 << 17  # 131072: ten times the widest published dense model
_MAX_LAYERS = 4096
_MAX_VOCAB = 1 << 24
_MAX_HEADS = 4096
_MAX_EXPERTS = 4096


@dataclass(frozen=True)
class MoESpec:
    """Mixture-of-experts layout of the MLP blocks.

    ``first_dense_layers`` leading layers (DeepSeek's ``first_k_dense_replace``) keep a
    dense MLP of ``ModelSpec.intermediate_size``; every other layer routes each token to
    ``experts_per_token`` of ``num_experts`` experts, plus ``num_shared_experts`` that
    every token passes through.
    """

    num_experts: int
    experts_per_token: int
    expert_intermediate_size: int
    num_shared_experts: int = 0
    shared_intermediate_size: int = 0
    first_dense_layers: int = 0
    router_bias_per_expert: int = 0  # DeepSeek-V3 keeps one correction bias per expert
    shared_expert_gate: bool = False  # Qwen2-MoE gates its shared expert with a 1-wide linear


@dataclass(frozen=True)
class MLASpec:
    """Multi-head latent attention (DeepSeek-V2/V3): low-rank Q and compressed KV."""

    q_lora_rank: int | None
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int


@dataclass(frozen=True)
class ModelSpec:
    """The shapes of a decoder-only transformer that decide its memory and compute.

    Counts are exact for the architectures in :data:`KNOWN_MODEL_TYPES`; a config of
    another ``model_type`` with Llama's keys is read as Llama-style and says so in
    :attr:`notes`.
    """

    name: str
    model_type: str
    hidden_size: int
    num_layers: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    tie_word_embeddings: bool = False
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    norms_per_layer: int = 2
    qk_norm: bool = False
    sliding_window: int | None = None  # attention window in tokens (mask), if any
    sliding_window_layers: int = 0  # layers whose KV cache is windowed to sliding_window
    moe: MoESpec | None = None
    mla: MLASpec | None = None
    max_position_embeddings: int | None = None
    attn_logit_softcapping: float | None = None
    final_logit_softcapping: float | None = None
    notes: tuple[str, ...] = field(default=(), compare=False)

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_config(cls, config: Mapping[str, Any] | str | Path, *, name: str | None = None) -> ModelSpec:
        """Read a Hugging Face ``config.json`` (a dict, a JSON string or a file path).

        Raises :class:`~calculators.errors.ConfigError` naming the key when a needed key
        is missing, has the wrong type or an absurd value.
        """
        data = _load_config(config)
        return _spec_from_dict(data, name=name)

    # ----------------------------------------------------------------- derived shapes
    @property
    def q_dim(self) -> int:
        """Width of the query projection output (heads x head_dim)."""
        return self.num_attention_heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        """Width of one of K or V per token (KV heads x head_dim)."""
        return self.num_kv_heads * self.head_dim

    @property
    def supports_sdpa(self) -> bool:
        """False when transformers runs eager attention regardless (Gemma 2's softcapping)."""
        return self.attn_logit_softcapping is None

    @property
    def fused_qkv(self) -> bool:
        """True when q, k, v come from one fused projection (Phi-3's ``qkv_proj``)."""
        return self.model_type == "phi3"

    @property
    def num_moe_layers(self) -> int:
        """Layers whose MLP is a mixture of experts (0 for a dense model)."""
        if self.moe is None:
            return 0
        return self.num_layers - self.moe.first_dense_layers

    @property
    def num_dense_layers(self) -> int:
        """Layers with a dense MLP of ``intermediate_size``."""
        return self.num_layers - self.num_moe_layers

    # ----------------------------------------------------------------- parameter counts
    @property
    def embedding_parameters(self) -> int:
        """Input embedding matrix: vocab x hidden."""
        return self.vocab_size * self.hidden_size

    @property
    def lm_head_parameters(self) -> int:
        """Output projection to the vocabulary; 0 when tied to the input embedding."""
        return 0 if self.tie_word_embeddings else self.vocab_size * self.hidden_size

    @property
    def attention_parameters_per_layer(self) -> int:
        """Parameters of one attention block (projections, biases, q/k norms)."""
        return sum(_linear_params(i, o, b) for i, o, b in self.attention_linears()) + self._attention_norm_params

    @property
    def _attention_norm_params(self) -> int:
        if self.mla is not None:
            q_norm = self.mla.q_lora_rank or 0
            return q_norm + self.mla.kv_lora_rank
        return 2 * self.head_dim if self.qk_norm else 0

    def attention_linears(self) -> list[tuple[int, int, bool]]:
        """``(in_features, out_features, has_bias)`` of each attention projection."""
        h = self.hidden_size
        if self.mla is not None:
            m = self.mla
            qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim
            heads = self.num_attention_heads
            if m.q_lora_rank is None:
                q = [(h, heads * qk_head, self.qkv_bias)]
            else:
                q = [(h, m.q_lora_rank, self.qkv_bias), (m.q_lora_rank, heads * qk_head, False)]
            kv = [
                (h, m.kv_lora_rank + m.qk_rope_head_dim, self.qkv_bias),
                (m.kv_lora_rank, heads * (m.qk_nope_head_dim + m.v_head_dim), False),
            ]
            return q + kv + [(heads * m.v_head_dim, h, self.o_bias)]
        return [
            (h, self.q_dim, self.qkv_bias),
            (h, self.kv_dim, self.qkv_bias),
            (h, self.kv_dim, self.qkv_bias),
            (self.q_dim, h, self.o_bias),
        ]

    def mlp_parameters(self, width: int) -> int:
        """Parameters of one gated MLP (gate, up, down) of the given intermediate width."""
        h = self.hidden_size
        bias = (2 * width + h) if self.mlp_bias else 0
        return 3 * h * width + bias

    @property
    def dense_mlp_parameters(self) -> int:
        """Parameters of one dense MLP block."""
        return self.mlp_parameters(self.intermediate_size)

    @property
    def moe_parameters_per_layer(self) -> int:
        """All parameters of one MoE block: router, every expert, shared experts."""
        if self.moe is None:
            return 0
        return self._moe_params(self.moe.num_experts)

    @property
    def moe_active_parameters_per_layer(self) -> int:
        """Parameters one token passes through in a MoE block (router, top-k, shared)."""
        if self.moe is None:
            return 0
        return self._moe_params(self.moe.experts_per_token)

    def _moe_params(self, experts: int) -> int:
        assert self.moe is not None
        m = self.moe
        router = self.hidden_size * m.num_experts + m.router_bias_per_expert * m.num_experts
        shared = self.mlp_parameters(m.shared_intermediate_size) * m.num_shared_experts if m.num_shared_experts else 0
        gate = self.hidden_size if m.shared_expert_gate else 0
        return router + experts * self.mlp_parameters(m.expert_intermediate_size) + shared + gate

    @property
    def norm_parameters_per_layer(self) -> int:
        """RMSNorm weights inside one decoder layer."""
        return self.norms_per_layer * self.hidden_size

    @property
    def parameters(self) -> int:
        """Exact total parameter count (every expert counted)."""
        return self._total(moe_block=self.moe_parameters_per_layer)

    @property
    def active_parameters(self) -> int:
        """Parameters used per token: total for a dense model, top-k experts for MoE."""
        return self._total(moe_block=self.moe_active_parameters_per_layer)

    def _total(self, *, moe_block: int) -> int:
        per_layer_common = self.attention_parameters_per_layer + self.norm_parameters_per_layer
        layers = (
            self.num_layers * per_layer_common
            + self.num_dense_layers * self.dense_mlp_parameters
            + self.num_moe_layers * moe_block
        )
        final_norm = self.hidden_size
        return self.embedding_parameters + layers + final_norm + self.lm_head_parameters

    @property
    def linear_parameters(self) -> int:
        """Parameters held in ``nn.Linear`` weights and biases inside the decoder layers."""
        return self.parameters - self.embedding_parameters - self.lm_head_parameters - (
            self.num_layers * (self.norm_parameters_per_layer + self._attention_norm_params) + self.hidden_size
        )

    def describe(self) -> str:
        """One line naming the model, its size and its attention layout."""
        attention = "MLA" if self.mla else ("MHA" if self.num_kv_heads == self.num_attention_heads else "GQA")
        moe = f", MoE {self.moe.num_experts}x top-{self.moe.experts_per_token}" if self.moe else ""
        return (
            f"{self.name}: {self.parameters / 1e9:.2f}B params, {self.num_layers} layers, "
            f"hidden {self.hidden_size}, {attention} {self.num_attention_heads}/{self.num_kv_heads} heads"
            f" x {self.head_dim}{moe}"
        )


def _linear_params(in_features: int, out_features: int, bias: bool) -> int:
    return in_features * out_features + (out_features if bias else 0)


# --------------------------------------------------------------------------- parsing
def _load_config(config: Mapping[str, Any] | str | Path) -> dict[str, Any]:
    if isinstance(config, Mapping):
        data: Any = dict(config)
    elif isinstance(config, (str, Path)):
        text = str(config)
        if isinstance(config, str) and text.lstrip().startswith(("{", "[")):
            source = text
        else:
            path = Path(config)
            if not path.is_file():
                raise InputError("config", text, "a path to an existing config.json file, or its JSON text")
            source = path.read_text(encoding="utf-8")
        try:
            data = json.loads(source)
        except json.JSONDecodeError as error:
            raise ConfigError("json", f"line {error.lineno} column {error.colno}: {error.msg}",
                              "valid JSON (a Hugging Face config.json)") from None
    else:
        raise InputError("config", type(config).__name__, "a dict, JSON text or a path to config.json")
    if not isinstance(data, dict):
        raise ConfigError("json", type(data).__name__, "a JSON object at the top level")
    # Multimodal and some newer configs nest the language model under text_config.
    text_config = data.get("text_config")
    if isinstance(text_config, dict) and "hidden_size" not in data:
        merged = {**text_config}
        merged.setdefault("model_type", text_config.get("model_type", data.get("model_type")))
        data = merged
    result: dict[str, Any] = data
    return result


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
    moe = _moe(data, model_type, layers, hidden)
    mla = _mla(data) if model_type == "deepseek_v3" else None
    max_positions = _opt_int(data, "max_position_embeddings", maximum=1 << 24)
    # Gemma 2 caps attention scores and logits with tanh (defaults of Gemma2Config).
    attn_cap = _opt_float(data, "attn_logit_softcapping", 50.0 if model_type == "gemma2" else None)
    final_cap = _opt_float(data, "final_logit_softcapping", 30.0 if model_type == "gemma2" else None)

    return ModelSpec(
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
    )


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


def _moe(data: Mapping[str, Any], model_type: str, layers: int, hidden: int) -> MoESpec | None:
    experts = data.get("num_local_experts", data.get("n_routed_experts", data.get("num_experts")))
    if not experts:
        return None
    key = "num_local_experts" if "num_local_experts" in data else (
        "n_routed_experts" if "n_routed_experts" in data else "num_experts")
    num_experts = _int(data, key, maximum=_MAX_EXPERTS)
    top_k = _int(data, "num_experts_per_tok", maximum=num_experts)
    if model_type == "mixtral":
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
