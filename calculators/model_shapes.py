"""The shapes a model's ``config.json`` gives, layer by layer, and what follows from them without counting.

:class:`ModelShapes` holds the fields of :class:`calculators.model.ModelSpec` (hidden size, layers,
heads, KV heads, head_dim, MLP width, vocab, biases, norms, windows, mixture-of-experts,
multi-head latent attention, the mixers of each layer) with their checks, the layer kinds
(which layers attend, keep a KV cache or a recurrent state) and the widths derived from
them; :class:`~calculators.model.ModelSpec` adds the exact parameter counts. Build a
``ModelSpec`` (:mod:`calculators.model_config` reads one from a config), not this record.

>>> from calculators.catalog.models import get_model
>>> spec = get_model("gpt-oss-20b")
>>> isinstance(spec, ModelShapes), spec.attention_layers, spec.sliding_window_layers
(True, 24, 12)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the module imports nothing of this one at run time
    from calculators.quantization.config import CheckpointQuantization

from calculators.model_layers import IndexerSpec, LayerSpec, LinearAttentionSpec, MambaSpec
from calculators.model_residual import ResidualAugmentSpec
from calculators.model_towers import EncoderTowerSpec
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
class ModelShapes:
    """The fields of a :class:`~calculators.model.ModelSpec`, their checks, its layer kinds and derived widths.

    Every field is the model's as its config gives it (see :class:`~calculators.model.ModelSpec`);
    the properties here count layers and widths, never parameters.
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
    #: AltUp streams, LAuReL and per-layer inputs around the residual stream (Gemma 3n), ``None`` without.
    residual_augment: ResidualAugmentSpec | None = None
    #: Encoder towers that are not ViTs (Gemma 3n's MobileNet-v5 and audio conformer), counted in the weights.
    towers: tuple[EncoderTowerSpec, ...] = ()

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
    def kv_cache_layers(self) -> int:
        """Attention layers that store a KV cache: all but those that read an earlier layer's (``kv_shared``)."""
        return sum(n for layer, n in self.layer_groups if layer.attention is not None and not layer.kv_shared)

    @property
    def state_layers(self) -> int:
        """Layers that keep a fixed recurrent state instead of a KV cache (linear attention, Mamba)."""
        return sum(n for layer, n in self.layer_groups if layer.has_state and layer.attention is None)

    def attention_tokens_held(self, context: int, *, cached_only: bool = False) -> int:
        """Tokens the attention layers hold (or attend to) for one sequence of ``context`` tokens, summed over layers.

        Formula: ``full x context + windowed x min(context, sliding_window) + chunked x
        min(context, attention_chunk_size)``; layers without attention hold none. With
        ``cached_only``, layers that read another layer's KV (``kv_shared``) are left out: they
        attend to the tokens but store none.

        >>> from calculators.catalog.models import get_model
        >>> get_model("gpt-oss-20b").attention_tokens_held(1000)  # 12 full layers + 12 windowed to 128
        13536
        """
        kinds = [(layer, n) for layer, n in self.layer_groups
                 if layer.attention is not None and not (cached_only and layer.kv_shared)]
        windowed = sum(n for layer, n in kinds if layer.attention == "sliding_attention") if self.sliding_window else 0
        chunked = sum(n for layer, n in kinds if layer.attention == "chunked_attention") \
            if self.attention_chunk_size else 0
        held = (sum(n for _layer, n in kinds) - windowed - chunked) * context
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
