"""Transformer shapes and exact parameter counts, read from a Hugging Face ``config.json``.

Every memory, speed and cost figure starts here: a :class:`ModelSpec` holds the shapes
that decide bytes (hidden size, layers, heads, KV heads, head_dim, MLP width, vocab,
biases, norms, sliding window, mixture-of-experts, multi-head latent attention) and
counts parameters from them exactly, the way the reference implementation in
``transformers`` lays out its tensors. The fields, the layer kinds and the widths are
declared in :mod:`calculators.model_shapes` (its names are re-exported here); the counts
are this module's. Reading and checking the ``config.json`` of each model family lives in
:mod:`calculators.model_config`.

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

from dataclasses import dataclass
from functools import cached_property

from calculators.model_layers import LayerSpec, LinearAttentionSpec, MambaSpec
from calculators.model_shapes import BLOCK_LAYOUTS, QK_NORM_SCOPES, MLASpec, ModelShapes, MoESpec

__all__ = ["BLOCK_LAYOUTS", "QK_NORM_SCOPES", "MLASpec", "ModelSpec", "MoESpec"]


@dataclass(frozen=True)
class ModelSpec(ModelShapes):
    """The shapes of a decoder-only model that decide its memory and compute, layer by layer.

    The attention geometry (heads, KV heads, head_dim, MLA), the MLP widths and the mixers'
    shapes (:class:`~calculators.model_layers.LinearAttentionSpec`,
    :class:`~calculators.model_layers.MambaSpec`) are the model's; :attr:`layers` says which
    of them each layer has (:class:`~calculators.model_layers.LayerSpec`), so a hybrid model
    (Qwen3-Next, Nemotron-H, Jamba) counts attention only in its attention layers. Counts are
    exact for the architectures :mod:`calculators.model_config` reads; a config of another
    ``model_type`` with Llama's keys is read as Llama-style and says so in :attr:`warnings`.

    The fields, their checks, the layer kinds and the derived widths are declared by
    :class:`~calculators.model_shapes.ModelShapes`; this record adds the parameter counts.
    """

    # ----------------------------------------------------------------- parameter counts
    @property
    def embedding_parameters(self) -> int:
        """Input embedding matrix: vocab (or its own row count) x hidden."""
        return (self.embedding_rows or self.vocab_size) * self.hidden_size

    @property
    def lm_head_parameters(self) -> int:
        """Output projection to the vocabulary; 0 when tied to the input embedding (its bias, if any, is not tied)."""
        weight = 0 if self.tie_word_embeddings else self.vocab_size * self.hidden_size
        return weight + (self.vocab_size if self.lm_head_bias else 0)

    @property
    def attention_parameters_per_layer(self) -> int:
        """Parameters of one attention block (projections, biases, q/k norms, a sparse-attention indexer)."""
        return (sum(_linear_params(i, o, b) for i, o, b in self.attention_linears()) + self._attention_norm_params
                + self.attention_sink_parameters_per_layer + self._indexer_linear_params)

    @property
    def _indexer_linear_params(self) -> int:
        if self.indexer is None:
            return 0
        return self.indexer.linear_parameters(hidden_size=self.hidden_size,
                                              q_lora_rank=(self.mla.q_lora_rank or 0) if self.mla else 0)

    @property
    def attention_sink_parameters_per_layer(self) -> int:
        """Learned attention-sink logits of one layer: one per query head (gpt-oss), else 0."""
        return self.num_attention_heads if self.attention_sinks else 0

    @property
    def _attention_norm_params(self) -> int:
        indexer = self.indexer.other_parameters() if self.indexer is not None else 0
        if self.mla is not None:
            q_norm = self.mla.q_lora_rank or 0
            return q_norm + self.mla.kv_lora_rank + indexer
        if not self.qk_norm:
            return indexer
        return indexer + (2 * self.head_dim if self.qk_norm_scope == "head" else self.q_dim + self.kv_dim)

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
        q_out = 2 * self.q_dim if self.attention_output_gate else self.q_dim
        return [
            (h, q_out, self.qkv_bias),
            (h, self.kv_dim, self.qkv_bias),
            (h, self.kv_dim, self.qkv_bias),
            (self.q_dim, h, self.o_bias),
        ]

    def mlp_parameters(self, width: int, *, bias: bool | None = None) -> int:
        """Parameters of one gated MLP (gate, up, down) of the given intermediate width.

        Formula: ``3 x hidden x width``, plus ``2 x width + hidden`` with biases; an ungated
        MLP (up and down only) ``2 x hidden x width``, plus ``width + hidden``.
        ``bias`` defaults to the model's ``mlp_bias``.
        """
        h = self.hidden_size
        has_bias = self.mlp_bias if bias is None else bias
        if not self.mlp_gated:
            return 2 * h * width + ((width + h) if has_bias else 0)
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
        expert = self.mlp_parameters(m.expert_intermediate_size,
                                     bias=m.expert_bias or (self.mlp_bias and not m.unbiased_experts))
        return router + experts * expert + shared + gate

    @property
    def norm_parameters_per_layer(self) -> int:
        """RMSNorm weights inside one decoder layer."""
        return self.norms_per_layer * self.hidden_size

    @cached_property
    def parameters(self) -> int:
        """Exact total parameter count (every expert counted, the vision tower too; computed once per spec)."""
        return self._total(moe_block=self.moe_parameters_per_layer) + self.vision_parameters

    @cached_property
    def active_parameters(self) -> int:
        """Parameters used per generated token: total for a dense model, top-k experts for MoE; a vision
        tower runs once per image, not per token; of a per-layer embedding table (Gemma 3n) a token reads one
        row, so the table is left out (computed once per spec)."""
        return self._total(moe_block=self.moe_active_parameters_per_layer) - self.per_layer_table_parameters

    @property
    def per_layer_table_parameters(self) -> int:
        """The per-layer embedding table (Gemma 3n's ``embed_tokens_per_layer``), 0 without one."""
        extras = self.residual_augment
        return extras.table_parameters(layers=self.num_layers) if extras is not None else 0

    def notes_for_vision(self) -> tuple[str, ...]:
        """What an answer with images should say about the tower (empty for a text-only model)."""
        if self.vision is None:
            return ()
        return (f"vision tower ({self.vision.family}, {self.vision.num_layers} layers of width "
                f"{self.vision.hidden_size}) and projector: {self.vision.parameters:,} parameters, counted in the "
                "weights; they run once per image, not per generated token",)

    @property
    def vision_parameters(self) -> int:
        """Parameters of the vision tower and projector, and of any other encoder tower (0 for a text-only model)."""
        towers = sum(tower.parameters for tower in self.towers)
        return (self.vision.parameters if self.vision is not None else 0) + towers

    def _total(self, *, moe_block: int) -> int:
        layers = sum(n * self._layer_parameters(layer, moe_block=moe_block) for layer, n in self.layer_groups)
        final_norm = self.hidden_size
        extras = self.residual_augment
        outside = extras.model_parameters(hidden_size=self.hidden_size, layers=self.num_layers) if extras else 0
        return self.embedding_parameters + layers + final_norm + self.lm_head_parameters + outside

    def _layer_parameters(self, layer: LayerSpec, *, moe_block: int) -> int:
        """Parameters of one layer of kind ``layer``: its mixers, its MLP, its norms (and AltUp, LAuReL...)."""
        extras = self.residual_augment.layer_parameters(hidden_size=self.hidden_size) if self.residual_augment else 0
        return (self.mixer_parameters(layer) + self._mlp_block_parameters(layer, moe_block=moe_block)
                + self.norm_parameters_per_layer + extras)

    @property
    def shared_kv_saved_parameters(self) -> int:
        """What a ``kv_shared`` layer's attention does without: k and v projections (and their biases), k norm."""
        bias = 2 * self.kv_dim if self.qkv_bias else 0
        k_norm = self.head_dim if self.qk_norm and self.qk_norm_scope == "head" else 0
        return 2 * self.hidden_size * self.kv_dim + bias + k_norm

    def mlp_block_parameters(self, layer: LayerSpec, *, active: bool = False) -> int:
        """Parameters of the MLP of one layer of kind ``layer`` (every expert, or the active ones)."""
        moe_block = self.moe_active_parameters_per_layer if active else self.moe_parameters_per_layer
        return self._mlp_block_parameters(layer, moe_block=moe_block)

    def state_mixer_linears(self) -> list[tuple[tuple[int, int], int]]:
        """``((in_features, out_features), count)`` of the Mamba and linear-attention projections, all layers."""
        h = self.hidden_size
        shapes: list[tuple[tuple[int, int], int]] = []
        if self.mamba is not None and (count := self.count_layers(mixer="mamba")):
            shapes += [(shape, count) for shape in self.mamba.linear_shapes(hidden_size=h)]
        if self.linear_attention is not None and (count := self.count_layers(mixer="linear_attention")):
            g = self.linear_attention
            shapes += [((h, 2 * g.key_dim + 2 * g.value_dim), count), ((h, 2 * g.num_value_heads), count),
                       ((g.value_dim, h), count)]
        return shapes

    def mixer_parameters(self, layer: LayerSpec) -> int:
        """Parameters of the token mixers of one layer of kind ``layer`` (attention, Mamba, linear attention)."""
        h = self.hidden_size
        total = self.attention_parameters_per_layer if layer.attention is not None else 0
        if layer.kv_shared and layer.attention is not None:
            total -= self.shared_kv_saved_parameters
        if "linear_attention" in layer.mixers:
            total += self._linear_attention.parameters(hidden_size=h)
        if "mamba" in layer.mixers:
            total += self._mamba.parameters(hidden_size=h)
        if "cross_attention" in layer.mixers:
            total += self.cross_attention_parameters_per_layer
        return total

    @property
    def cross_attention_parameters_per_layer(self) -> int:
        """One cross-attention block (Llama 3.2 Vision): q, k, v, o, q/k RMSNorms of head_dim and two tanh gates."""
        return sum(_linear_params(i, o, b) for i, o, b in self.attention_linears()) + 2 * self.head_dim + 2

    def _mlp_block_parameters(self, layer: LayerSpec, *, moe_block: int) -> int:
        if layer.mlp == "moe":
            return moe_block
        if layer.mlp == "dense":
            return self.mlp_parameters(layer.mlp_width or self.intermediate_size)
        return 0

    def _non_linear_layer_parameters(self, layer: LayerSpec) -> int:
        """Weights of one layer that are not ``nn.Linear``: norms, q/k norms, sinks, conv filters, SSM scalars."""
        total = self.norm_parameters_per_layer
        if self.residual_augment is not None:
            total += self.residual_augment.layer_other_parameters(hidden_size=self.hidden_size)
        if layer.attention is not None:
            total += self._attention_norm_params + self.attention_sink_parameters_per_layer
            if layer.kv_shared and self.qk_norm and self.qk_norm_scope == "head":
                total -= self.head_dim  # no k norm
        if "linear_attention" in layer.mixers:
            total += self._linear_attention.other_parameters()
        if "mamba" in layer.mixers:
            total += self._mamba.other_parameters()
        if "cross_attention" in layer.mixers:
            total += 2 * self.head_dim + 2
        return total

    @property
    def _linear_attention(self) -> LinearAttentionSpec:
        if self.linear_attention is None:
            raise ValueError(f"{self.name}: a linear_attention layer without a LinearAttentionSpec")
        return self.linear_attention

    @property
    def _mamba(self) -> MambaSpec:
        if self.mamba is None:
            raise ValueError(f"{self.name}: a mamba layer without a MambaSpec")
        return self.mamba

    @property
    def linear_parameters(self) -> int:
        """Parameters held in ``nn.Linear`` weights and biases inside the decoder layers (and, with per-layer inputs
        and AltUp, the projections beside them)."""
        outside = self.per_layer_table_parameters + (
            self.residual_augment.per_layer_input_width if self.residual_augment else 0)
        return self.parameters - self.vision_parameters - self.embedding_parameters - self.lm_head_parameters - (
            sum(n * self._non_linear_layer_parameters(layer) for layer, n in self.layer_groups) + self.hidden_size
        ) - outside

    @cached_property
    def mtp_parameters(self) -> int:
        """Parameters of the multi-token-prediction layers the checkpoint stores (0 without).

        Formula per layer (DeepSeek-V3's layout, which GLM-4.5 and others reuse): one decoder
        layer of the model's last kind, two RMSNorms and a ``2 hidden -> hidden`` projection
        that join the token embedding with the previous hidden state, the shared head's
        RMSNorm; plus a copy of the embedding and the output head where the checkpoint
        stores them per layer (:attr:`mtp_own_embeddings`). A forward pass of the model does
        not run them (transformers does not build them; serving engines load them only for
        speculative decoding).
        """
        if not self.mtp_layers:
            return 0
        h = self.hidden_size
        layer = self._layer_parameters(self.layers[-1], moe_block=self.moe_parameters_per_layer)
        joins = 3 * h + 2 * h * h
        copies = self.embedding_parameters + self.vocab_size * h if self.mtp_own_embeddings else 0
        return self.mtp_layers * (layer + joins + copies)

    @property
    def stored_parameters(self) -> int:
        """Parameters a checkpoint stores: :attr:`parameters` plus the multi-token-prediction layers."""
        return self.parameters + self.mtp_parameters

    def describe(self) -> str:
        """One line naming the model, its size and its attention layout."""
        attention = "MLA" if self.mla else ("MHA" if self.num_kv_heads == self.num_attention_heads else "GQA")
        moe = f", MoE {self.moe.num_experts}x top-{self.moe.experts_per_token}" if self.moe else ""
        hybrid = ""
        if self.is_hybrid:
            kinds = ", ".join(f"{n} {layer.describe()}" for layer, n in self.layer_groups)
            hybrid = f"; layers: {kinds}"
        return (
            f"{self.name}: {self.parameters / 1e9:.2f}B params, {self.num_layers} layers, "
            f"hidden {self.hidden_size}, {attention} {self.num_attention_heads}/{self.num_kv_heads} heads"
            f" x {self.head_dim}{moe}{hybrid}"
        )


def _linear_params(in_features: int, out_features: int, bias: bool) -> int:
    return in_features * out_features + (out_features if bias else 0)
