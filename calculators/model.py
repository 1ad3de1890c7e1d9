"""Transformer shapes and exact parameter counts, read from a Hugging Face ``config.json``.

Every memory, speed and cost figure starts here: a :class:`ModelSpec` holds the shapes
that decide bytes (hidden size, layers, heads, KV heads, head_dim, MLP width, vocab,
biases, norms, sliding window, mixture-of-experts, multi-head latent attention) and
counts parameters from them exactly, the way the reference implementation in
``transformers`` lays out its tensors. Reading and checking the ``config.json`` of
each model family lives in :mod:`calculators.model_config`.

>>> from calculators.model_config import spec_from_config
>>> spec = spec_from_config({
...     "model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
...     "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
...     "vocab_size": 128256, "tie_word_embeddings": False}, name="Llama-3-8B")
>>> spec.parameters  # the published count of Meta-Llama-3-8B
8030261248
>>> spec.kv_dim  # 8 KV heads x 128, not 32 x 128: grouped-query attention
1024
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the module imports nothing of this one at run time
    from calculators.quantization.config import CheckpointQuantization


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
    expert_bias: bool = False  # gpt-oss experts carry biases on gate_up (2 I) and down (hidden)


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
    attention_sinks: bool = False  # gpt-oss: one learned sink logit per attention head and layer
    moe: MoESpec | None = None
    mla: MLASpec | None = None
    max_position_embeddings: int | None = None
    attn_logit_softcapping: float | None = None
    final_logit_softcapping: float | None = None
    notes: tuple[str, ...] = field(default=(), compare=False)
    #: How the checkpoint stores its weights (``quantization_config``), ``None`` when it says nothing.
    quantization: CheckpointQuantization | None = field(default=None, compare=False)

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
        """False when transformers runs eager attention regardless (Gemma 2's softcapping, gpt-oss's sinks)."""
        return self.attn_logit_softcapping is None and not self.attention_sinks

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
        return (sum(_linear_params(i, o, b) for i, o, b in self.attention_linears()) + self._attention_norm_params
                + self.attention_sink_parameters_per_layer)

    @property
    def attention_sink_parameters_per_layer(self) -> int:
        """Learned attention-sink logits of one layer: one per query head (gpt-oss), else 0."""
        return self.num_attention_heads if self.attention_sinks else 0

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

    def mlp_parameters(self, width: int, *, bias: bool | None = None) -> int:
        """Parameters of one gated MLP (gate, up, down) of the given intermediate width.

        Formula: ``3 x hidden x width``, plus ``2 x width + hidden`` with biases.
        ``bias`` defaults to the model's ``mlp_bias``.
        """
        h = self.hidden_size
        has_bias = self.mlp_bias if bias is None else bias
        return 3 * h * width + ((2 * width + h) if has_bias else 0)

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
        expert = self.mlp_parameters(m.expert_intermediate_size, bias=m.expert_bias or self.mlp_bias)
        return router + experts * expert + shared + gate

    @property
    def norm_parameters_per_layer(self) -> int:
        """RMSNorm weights inside one decoder layer."""
        return self.norms_per_layer * self.hidden_size

    @cached_property
    def parameters(self) -> int:
        """Exact total parameter count (every expert counted; computed once per spec)."""
        return self._total(moe_block=self.moe_parameters_per_layer)

    @cached_property
    def active_parameters(self) -> int:
        """Parameters used per token: total for a dense model, top-k experts for MoE (computed once per spec)."""
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
            self.num_layers * (self.norm_parameters_per_layer + self._attention_norm_params
                               + self.attention_sink_parameters_per_layer) + self.hidden_size
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
