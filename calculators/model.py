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

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the module imports nothing of this one at run time
    from calculators.quantization.config import CheckpointQuantization

from calculators.model_layers import IndexerSpec, LayerSpec, LinearAttentionSpec, MambaSpec
from calculators.model_vision import VisionEncoderSpec

#: Where a decoder layer's norms sit (:attr:`ModelSpec.block_layout`).
BLOCK_LAYOUTS = ("pre_norm", "post_norm", "parallel")
#: What q_norm and k_norm normalise over and weigh (:attr:`ModelSpec.qk_norm_scope`).
QK_NORM_SCOPES = ("head", "width", "head_weights")


@dataclass(frozen=True)
class MoESpec:
    """Mixture-of-experts layout of the MLP blocks.

Which layers are MoE is :attr:`ModelSpec.layers`' business (``LayerSpec.mlp``);
    ``first_dense_layers`` records DeepSeek's ``first_k_dense_replace`` as the config gave
    it. A MoE layer routes each token to ``experts_per_token`` of ``num_experts`` experts,
    plus ``num_shared_experts`` that every token passes through.
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
    unbiased_experts: bool = False  # ERNIE 4.5: routed experts have no biases even where use_bias gives other MLPs one
    every_expert_runs: bool = False  # Llama 4 in transformers: each token runs through every routed expert
    fp32_routing_weights: bool = False  # the router hands the experts fp32 weights (GLM-4.5, MiniMax-M2, Hunyuan...)
    shared_expert_first: bool = False  # the shared expert runs before the routed ones (ERNIE 4.5, Hunyuan)
    fp32_router: bool = False  # the router's linear runs on an fp32 copy of its input (GLM-4.5, DeepSeek, ERNIE...)


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
    """The shapes of a decoder-only model that decide its memory and compute, layer by layer.

    The attention geometry (heads, KV heads, head_dim, MLA), the MLP widths and the mixers'
    shapes (:class:`~calculators.model_layers.LinearAttentionSpec`,
    :class:`~calculators.model_layers.MambaSpec`) are the model's; :attr:`layers` says which
    of them each layer has (:class:`~calculators.model_layers.LayerSpec`), so a hybrid model
    (Qwen3-Next, Nemotron-H, Jamba) counts attention only in its attention layers. Counts are
    exact for the architectures :mod:`calculators.model_config` reads; a config of another
    ``model_type`` with Llama's keys is read as Llama-style and says so in :attr:`warnings`.
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
    mlp_gated: bool = True  # gate, up and down; False: up and down only (Nemotron-H's squared-ReLU MLP)
    norms_per_layer: int = 2
    qk_norm: bool = False
    attention_output_gate: bool = False  # Qwen3-Next: q_proj also emits a sigmoid gate (2 x heads x head_dim)
    sliding_window: int | None = None  # window of the sliding_attention layers, tokens
    attention_chunk_size: int | None = None  # chunk of the chunked_attention layers (Llama 4), tokens
    attention_sinks: bool = False  # gpt-oss: one learned sink logit per attention head and layer
    moe: MoESpec | None = None
    mla: MLASpec | None = None
    linear_attention: LinearAttentionSpec | None = None
    mamba: MambaSpec | None = None
    layers: tuple[LayerSpec, ...] = ()  # one per layer; () = every layer full attention (dense or MoE MLP)
    mtp_layers: int = 0  # multi-token-prediction layers the checkpoint stores but a forward pass does not run
    mtp_own_embeddings: bool = False  # each MTP layer stores its own embedding and output head (DeepSeek-V3)
    vision: VisionEncoderSpec | None = None  # a vision-language checkpoint's vision tower and projector
    embedding_rows: int | None = None  # rows of the input embedding when not vocab_size (Llama 3.2 Vision: + 8)
    max_position_embeddings: int | None = None
    attn_logit_softcapping: float | None = None
    final_logit_softcapping: float | None = None
    notes: tuple[str, ...] = field(default=(), compare=False)
    warnings: tuple[str, ...] = field(default=(), compare=False)  # what the reader must see first
    # LoRA short names ("gate", "up", "down") that match the dense / shared-expert MLP's linears; None: those
    # of a gated (gate, up, down) or ungated (up, down) MLP. Granite 4 names them input_linear and
    # output_linear, which no default target matches: ().
    mlp_lora_names: tuple[str, ...] | None = None
    # Mamba / Mamba2 blocks add their mixer's output to an fp32 copy of the residual (residual_in_fp32):
    # the residual stream is fp32 from the first block on, whatever the weights' dtype.
    residual_in_fp32: bool = False
    # The forward returns fp32 logits (lm_head(...).float(): Mamba, Mamba2, Nemotron-H), so the 16-bit ones
    # are a temporary rather than kept beside their fp32 copy until the loss.
    fp32_logits: bool = False
    lm_head_bias: bool = False  # the output head has a bias (ERNIE 4.5 MoE with use_bias), tied or not
    indexer: IndexerSpec | None = None  # DeepSeek-V3.2's lightning indexer beside MLA
    attention_output_kept: bool = False  # the layer keeps attention's output alive through its MLP (Llama 4)
    qk_l2_norm: bool = False  # q and k L2-normalised without weights on the chunked (RoPE) layers (Llama 4)
    partial_rotary: bool = False  # RoPE on part of each head, re-joined by concatenation (GLM-4.5, MiniMax-M2)
    # What q_norm / k_norm normalise and weigh (QK_NORM_SCOPES): "head", each head with one head_dim weight
    # shared by the heads (Qwen3, Gemma 3, EXAONE 4); "width", the whole q and k width with a weight per
    # channel (OLMo 2/3); "head_weights", each head with its own head_dim weight (Cohere's use_qk_norm)
    qk_norm_scope: str = "head"
    norm_weight_fp32: bool = False  # the norms multiply their weight in fp32 before casting back (OLMo 2/3, Cohere)
    norm_kind: str = "rms"  # "layer": LayerNorm with a weight and no bias (Cohere), which centres before scaling
    attention_dropout: float = 0.0  # dropout on the attention probabilities in training (Seed-OSS: 0.1)
    residual_dropout: float = 0.0  # dropout on the attention and MLP outputs in training (Seed-OSS: 0.1)
    # Where the layer's norms sit: "pre_norm" (Llama: before attention and MLP), "post_norm" (OLMo 2/3,
    # EXAONE 4: on the attention and MLP outputs, before each residual add), "parallel" (Cohere: one norm
    # feeds attention and MLP side by side, both added to the residual)
    block_layout: str = "pre_norm"
    # Cohere multiplies the logits by it; the scaled logits replace the unscaled ones (a scalar multiply saves
    # nothing for backward), so no tensor is added at the loss's peak (traced on Command R7B)
    logit_scale: float | None = None
    #: How the checkpoint stores its weights (``quantization_config``), ``None`` when it says nothing.
    quantization: CheckpointQuantization | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not self.layers:
            first_dense = self.moe.first_dense_layers if self.moe else self.num_layers
            uniform = tuple(LayerSpec(("full_attention",), "dense" if i < first_dense else "moe")
                            for i in range(self.num_layers))
            object.__setattr__(self, "layers", uniform)
        if len(self.layers) != self.num_layers:
            raise ValueError(f"{self.name}: {len(self.layers)} layer specs for {self.num_layers} layers")
        if self.qk_norm_scope not in QK_NORM_SCOPES:
            raise ValueError(f"{self.name}: qk_norm_scope {self.qk_norm_scope!r} is not one of {QK_NORM_SCOPES}")
        if self.norm_kind not in ("rms", "layer"):
            raise ValueError(f"{self.name}: norm_kind {self.norm_kind!r} is not 'rms' or 'layer'")
        if self.block_layout not in BLOCK_LAYOUTS:
            raise ValueError(f"{self.name}: block_layout {self.block_layout!r} is not one of {BLOCK_LAYOUTS}")

    # ----------------------------------------------------------------- layers
    @cached_property
    def layer_groups(self) -> tuple[tuple[LayerSpec, int], ...]:
        """Each distinct layer kind with how many layers have it, in order of first appearance."""
        return tuple(Counter(self.layers).items())

    def count_layers(self, *, mixer: str | None = None, mlp: str | None = None) -> int:
        """Layers that have ``mixer`` (one of ``LayerSpec.mixers``) and/or the MLP kind ``mlp``."""
        return sum(n for layer, n in self.layer_groups
                   if (mixer is None or mixer in layer.mixers) and (mlp is None or layer.mlp == mlp))

    @property
    def attention_layers(self) -> int:
        """Layers with an attention mixer (full, sliding or chunked)."""
        return sum(n for layer, n in self.layer_groups if layer.attention is not None)

    @property
    def sliding_window_layers(self) -> int:
        """Layers whose attention (and KV cache) is windowed to :attr:`sliding_window` tokens."""
        return self.count_layers(mixer="sliding_attention") if self.sliding_window else 0

    @property
    def state_layers(self) -> int:
        """Layers that keep a fixed recurrent state instead of a KV cache (linear attention, Mamba)."""
        return sum(n for layer, n in self.layer_groups if layer.has_state and layer.attention is None)

    def attention_tokens_held(self, context: int) -> int:
        """Tokens the attention layers hold (or attend to) for one sequence of ``context`` tokens, summed over layers.

        Formula: ``full x context + windowed x min(context, sliding_window) + chunked x
        min(context, attention_chunk_size)``; layers without attention hold none.

        >>> from calculators.catalog.models import get_model
        >>> get_model("gpt-oss-20b").attention_tokens_held(1000)  # 12 full layers + 12 windowed to 128
        13536
        """
        windowed = self.sliding_window_layers
        chunked = self.count_layers(mixer="chunked_attention") if self.attention_chunk_size else 0
        held = (self.attention_layers - windowed - chunked) * context
        if windowed and self.sliding_window:
            held += windowed * min(context, self.sliding_window)
        if chunked and self.attention_chunk_size:
            held += chunked * min(context, self.attention_chunk_size)
        return held

    @property
    def state_mixer_layers(self) -> int:
        """Layers with a Mamba or linear-attention mixer, alone or beside attention (Falcon-H1)."""
        return sum(n for layer, n in self.layer_groups if layer.has_state)

    @property
    def is_hybrid(self) -> bool:
        """True when some layer is not a plain attention layer: no attention, or a state mixer beside it (Falcon-H1)."""
        return self.attention_layers != self.num_layers or self.state_mixer_layers > 0

    # ----------------------------------------------------------------- derived shapes
    @property
    def mlp_linear_names(self) -> tuple[str, ...]:
        """LoRA short names of the dense / shared-expert MLP's linears (what PEFT's ``target_modules`` can match)."""
        if self.mlp_lora_names is not None:
            return self.mlp_lora_names
        return ("gate", "up", "down") if self.mlp_gated else ("up", "down")

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
        return self.count_layers(mlp="moe")

    @property
    def num_dense_layers(self) -> int:
        """Layers with a dense MLP."""
        return self.count_layers(mlp="dense")

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
        tower runs once per image, not per token (computed once per spec)."""
        return self._total(moe_block=self.moe_active_parameters_per_layer)

    def notes_for_vision(self) -> tuple[str, ...]:
        """What an answer with images should say about the tower (empty for a text-only model)."""
        if self.vision is None:
            return ()
        return (f"vision tower ({self.vision.family}, {self.vision.num_layers} layers of width "
                f"{self.vision.hidden_size}) and projector: {self.vision.parameters:,} parameters, counted in the "
                "weights; they run once per image, not per generated token",)

    @property
    def vision_parameters(self) -> int:
        """Parameters of the vision tower and projector (0 for a text-only model)."""
        return self.vision.parameters if self.vision is not None else 0

    def _total(self, *, moe_block: int) -> int:
        layers = sum(n * self._layer_parameters(layer, moe_block=moe_block) for layer, n in self.layer_groups)
        final_norm = self.hidden_size
        return self.embedding_parameters + layers + final_norm + self.lm_head_parameters

    def _layer_parameters(self, layer: LayerSpec, *, moe_block: int) -> int:
        """Parameters of one layer of kind ``layer``: its mixers, its MLP and its norms."""
        return (self.mixer_parameters(layer) + self._mlp_block_parameters(layer, moe_block=moe_block)
                + self.norm_parameters_per_layer)

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
        if layer.attention is not None:
            total += self._attention_norm_params + self.attention_sink_parameters_per_layer
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
        """Parameters held in ``nn.Linear`` weights and biases inside the decoder layers."""
        return self.parameters - self.vision_parameters - self.embedding_parameters - self.lm_head_parameters - (
            sum(n * self._non_linear_layer_parameters(layer) for layer, n in self.layer_groups) + self.hidden_size
        )

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
