"""The kinds of layer a decoder stacks: token mixers, MLPs, and what each holds per sequence.

A 2025-26 decoder is rarely one layer repeated. Gemma 3 and gpt-oss interleave sliding-
window and full attention; Llama 4 adds chunked attention; Qwen3-Next replaces three of
every four attention layers by Gated DeltaNet (linear attention); Nemotron-H, Granite 4,
Jamba and Falcon-H1 mix Mamba state-space layers with a few attention layers; MoE models
keep their first layers dense. :class:`LayerSpec` names one layer's mixers and MLP, and a
:class:`~calculators.model.ModelSpec` holds one per layer, so every count (parameters,
FLOPs, cache) is a sum over the layers that have the part it counts.

What a layer keeps per generated sequence depends on its mixer:

* ``full_attention``: K and V of every token so far (grows with the context);
* ``sliding_attention`` / ``chunked_attention``: at most a window (or chunk) of tokens;
* ``linear_attention`` (Gated DeltaNet) and ``mamba``: a fixed state, whatever the
  context: the last ``conv_kernel`` inputs of the short causal convolution and the
  recurrent (SSM) state;
* ``cross_attention`` (Llama 3.2 Vision): K and V of the image's vision tokens, computed
  once per image, whatever the text context.

>>> gdn = LinearAttentionSpec(num_key_heads=16, num_value_heads=32, key_head_dim=128, value_head_dim=128,
...                           conv_kernel=4)
>>> gdn.parameters(hidden_size=2048)  # Qwen3-Next-80B-A3B's layer: transformers 5.23 builds 33,718,464
33718464
>>> gdn.recurrent_state_elements  # 32 value heads x 128 x 128, per sequence, whatever the context
524288

References:
    transformers 5.23 ``models/qwen3_next/modeling_qwen3_next.py`` (Qwen3NextGatedDeltaNet),
    ``models/nemotron_h/modeling_nemotron_h.py`` (NemotronHMamba2Mixer),
    ``models/jamba/modeling_jamba.py`` (JambaMambaMixer), ``cache_utils.py``
    (LinearAttentionLayer: the conv state keeps ``conv_kernel`` positions); Gu & Dao 2023
    (Mamba, arXiv:2312.00752); Dao & Gu 2024 (Mamba-2, arXiv:2405.21060); Yang et al. 2024
    (Gated DeltaNet, arXiv:2412.06464).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Token mixers a layer may have (transformers' ``layer_types`` vocabulary where it has one).
ATTENTION_MIXERS = ("full_attention", "sliding_attention", "chunked_attention")
STATE_MIXERS = ("linear_attention", "mamba")
#: Attention to the image's vision tokens instead of the text (Llama 3.2 Vision's cross-attention layers): its
#: K and V are computed once per image and held, whatever the text context.
CROSS_MIXERS = ("cross_attention",)
MIXERS = ATTENTION_MIXERS + STATE_MIXERS + CROSS_MIXERS
#: What follows the mixer: a dense MLP, a mixture of experts, or nothing (Mamba2, Nemotron-H's mixer-only blocks).
MLPS = ("dense", "moe", "none")


@dataclass(frozen=True)
class LayerSpec:
    """One decoder layer: its token mixer(s) and its MLP.

    Attributes:
        mixers: the layer's token mixers, each one of :data:`MIXERS`: usually one;
            two run in parallel in Falcon-H1 (attention and Mamba-2 side by side); none
            in a Nemotron-H MLP-only block.
        mlp: ``"dense"``, ``"moe"`` or ``"none"``.
        mlp_width: a dense MLP's intermediate width when it is not the model's
            ``intermediate_size`` (Llama 4's dense layers, Gemma 3n's per-layer widths).
        rope: False for a NoPE layer, whose attention applies no rotary embedding (SmolLM3's
            every fourth layer, the global layers of Command A and EXAONE 4.0 32B); its
            parameters and cache are those of any attention layer of its kind.
    """

    mixers: tuple[str, ...] = ("full_attention",)
    mlp: str = "dense"
    mlp_width: int | None = None
    rope: bool = True

    @property
    def attention(self) -> str | None:
        """The layer's attention kind, or ``None`` if it has no attention."""
        return next((m for m in self.mixers if m in ATTENTION_MIXERS), None)

    @property
    def has_state(self) -> bool:
        """True when the layer keeps a fixed-size recurrent state (linear attention or Mamba)."""
        return any(m in STATE_MIXERS for m in self.mixers)

    def describe(self) -> str:
        """Short text such as ``"mamba + moe"`` or ``"full_attention + dense"``."""
        mixers = " + ".join(self.mixers) or "no mixer"
        if not self.rope and self.attention is not None:
            mixers += " (NoPE)"
        return f"{mixers} + {self.mlp}" if self.mlp != "none" else mixers


@dataclass(frozen=True)
class LinearAttentionSpec:
    """Gated DeltaNet linear attention (Qwen3-Next): a fixed recurrent state per head.

    Tensors of one layer (transformers' ``Qwen3NextGatedDeltaNet``), with ``K = key heads x
    key_head_dim`` and ``V = value heads x value_head_dim``: ``in_proj_qkvz`` (hidden to
    ``2K + 2V``: q, k, v and the output gate z), ``in_proj_ba`` (hidden to 2 per value head:
    beta and the decay input), a depthwise causal conv over ``2K + V`` channels without bias,
    ``dt_bias`` and ``A_log`` (one per value head), a gated RMSNorm of ``value_head_dim`` and
    ``out_proj`` (V to hidden). All projections have no bias.
    """

    num_key_heads: int
    num_value_heads: int
    key_head_dim: int
    value_head_dim: int
    conv_kernel: int

    @property
    def key_dim(self) -> int:
        """Width of q (and of k): key heads x key_head_dim."""
        return self.num_key_heads * self.key_head_dim

    @property
    def value_dim(self) -> int:
        """Width of v (and of the output): value heads x value_head_dim."""
        return self.num_value_heads * self.value_head_dim

    @property
    def conv_channels(self) -> int:
        """Channels of the causal convolution: q, k and v (``2K + V``)."""
        return 2 * self.key_dim + self.value_dim

    def linear_parameters(self, *, hidden_size: int) -> int:
        """Weights of the layer's ``nn.Linear`` projections (in_proj_qkvz, in_proj_ba, out_proj)."""
        qkvz = hidden_size * (2 * self.key_dim + 2 * self.value_dim)
        ba = hidden_size * 2 * self.num_value_heads
        return qkvz + ba + self.value_dim * hidden_size

    def other_parameters(self) -> int:
        """The layer's other weights: the conv filter, dt_bias, A_log and the gated norm."""
        return self.conv_channels * self.conv_kernel + 2 * self.num_value_heads + self.value_head_dim

    def parameters(self, *, hidden_size: int) -> int:
        """All parameters of one Gated DeltaNet layer's mixer (count)."""
        return self.linear_parameters(hidden_size=hidden_size) + self.other_parameters()

    @property
    def conv_state_elements(self) -> int:
        """Elements of one sequence's conv state: ``conv_channels x conv_kernel``."""
        return self.conv_channels * self.conv_kernel

    @property
    def recurrent_state_elements(self) -> int:
        """Elements of one sequence's recurrent state: ``value heads x key_head_dim x value_head_dim``."""
        return self.num_value_heads * self.key_head_dim * self.value_head_dim


@dataclass(frozen=True)
class MambaSpec:
    """A Mamba selective state-space mixer: Mamba-1 (Jamba) or Mamba-2 (Nemotron-H, Granite 4, Falcon-H1).

    Mamba-2 (transformers' ``NemotronHMamba2Mixer``, ``Mamba2Mixer``): ``in_proj`` (hidden
    to ``2 D + 2 G N + H``: the gate z, x, B and C for G groups, dt per head), a depthwise
    conv over ``D + 2 G N`` channels, ``dt_bias``, ``A_log`` and ``D`` per head, a gated
    RMSNorm over D, ``out_proj`` (D to hidden); state ``H x head_dim x N = D x N``.

    Mamba-1 (``JambaMambaMixer``): ``in_proj`` (hidden to 2 D), a depthwise conv over D,
    ``x_proj`` (D to ``dt_rank + 2 N``, no bias), ``dt_proj`` (dt_rank to D, with bias),
    ``A_log`` (D x N), ``D`` (D), ``out_proj``; Jamba adds RMSNorms on dt, B and C. State
    ``D x N``.

    Attributes:
        version: 1 or 2.
        inner_size: D, the channels the scan runs over (``expand x hidden``, or heads x head_dim).
        state_size: N (``ssm_state_size`` / ``mamba_d_state``).
        conv_kernel: width of the causal convolution.
        num_heads: Mamba-2 heads (H); 0 for Mamba-1.
        n_groups: Mamba-2 groups sharing B and C (G).
        dt_rank: Mamba-1 rank of the time-step projection; 0 for Mamba-2.
        proj_bias: biases on in_proj and out_proj.
        conv_bias: a bias on the convolution.
        gated_norm: Mamba-2's gated RMSNorm over D before out_proj.
        dt_bc_norms: Jamba's RMSNorms on dt (dt_rank) and on B and C (N each).
        out_proj_bias: a bias on out_proj when it differs from in_proj's (Falcon-H1's
            ``projectors_bias``); ``None``: as ``proj_bias``.
        chunk_size: Mamba-2's scan chunk (``chunk_size`` / ``mamba_chunk_size``): no weight, but
            the PyTorch scan's temporaries grow with it (:mod:`calculators.memory.state_mixers`).
    """

    version: int
    inner_size: int
    state_size: int
    conv_kernel: int
    num_heads: int = 0
    n_groups: int = 1
    dt_rank: int = 0
    proj_bias: bool = False
    conv_bias: bool = True
    gated_norm: bool = True
    dt_bc_norms: bool = False
    out_proj_bias: bool | None = None
    chunk_size: int = 256

    @property
    def conv_channels(self) -> int:
        """Channels of the causal convolution: x (D), plus B and C for every group in Mamba-2."""
        if self.version == 1:
            return self.inner_size
        return self.inner_size + 2 * self.n_groups * self.state_size

    def linear_parameters(self, *, hidden_size: int) -> int:
        """Weights and biases of the mixer's ``nn.Linear`` projections."""
        d, n = self.inner_size, self.state_size
        out_bias = self.proj_bias if self.out_proj_bias is None else self.out_proj_bias
        out_proj = d * hidden_size + (hidden_size if out_bias else 0)
        if self.version == 1:
            in_proj = hidden_size * 2 * d + (2 * d if self.proj_bias else 0)
            x_proj = d * (self.dt_rank + 2 * n)
            dt_proj = self.dt_rank * d + d
            return in_proj + x_proj + dt_proj + out_proj
        width = d + self.conv_channels + self.num_heads
        in_proj = hidden_size * width + (width if self.proj_bias else 0)
        return in_proj + out_proj

    def linear_shapes(self, *, hidden_size: int) -> list[tuple[int, int]]:
        """``(in_features, out_features)`` of the mixer's ``nn.Linear`` projections, in module order."""
        d, n = self.inner_size, self.state_size
        if self.version == 1:  # in_proj, x_proj, dt_proj, out_proj
            return [(hidden_size, 2 * d), (d, self.dt_rank + 2 * n), (self.dt_rank, d), (d, hidden_size)]
        return [(hidden_size, d + self.conv_channels + self.num_heads), (d, hidden_size)]

    def other_parameters(self) -> int:
        """Conv filter (and bias), A_log, D, dt_bias and the norms: the weights that are not linears."""
        conv = self.conv_channels * self.conv_kernel + (self.conv_channels if self.conv_bias else 0)
        if self.version == 1:
            norms = self.dt_rank + 2 * self.state_size if self.dt_bc_norms else 0
            return conv + self.inner_size * self.state_size + self.inner_size + norms
        return conv + 3 * self.num_heads + (self.inner_size if self.gated_norm else 0)

    def parameters(self, *, hidden_size: int) -> int:
        """All parameters of one Mamba mixer (count)."""
        return self.linear_parameters(hidden_size=hidden_size) + self.other_parameters()

    @property
    def conv_state_elements(self) -> int:
        """Elements of one sequence's conv state: ``conv_channels x conv_kernel``."""
        return self.conv_channels * self.conv_kernel

    @property
    def recurrent_state_elements(self) -> int:
        """Elements of one sequence's SSM state: ``D x N`` (Mamba-2: heads x head_dim x N)."""
        return self.inner_size * self.state_size


@dataclass(frozen=True)
class IndexerSpec:
    """DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2): it picks the ``topk`` cached tokens each
    query attends to, and caches one small key per token beside the MLA latent.

    Tensors of one layer (transformers 5.23's ``DeepseekV32Indexer``): ``wq_b`` (the MLA query latent,
    ``q_lora_rank`` wide, to ``heads x head_dim``), ``wk`` (hidden to one ``head_dim`` key), a
    LayerNorm on that key (weight and bias), ``weights_proj`` (hidden to one weight per head); no biases.

    Cache per token and layer: one key of ``head_dim``. transformers' ``DynamicIndexedLayer`` keeps it in
    the model's dtype; DeepSeek's reference inference code, vLLM and SGLang keep it in FP8 (E4M3) with
    one fp32 scale per 128 values (``head_dim + 4 x head_dim / 128`` bytes: 132 for DeepSeek-V3.2).

    >>> indexer = IndexerSpec(num_heads=64, head_dim=128, topk=2048)
    >>> indexer.parameters(hidden_size=7168, q_lora_rank=1536)  # DeepSeek-V3.2's, per layer
    13959424
    >>> indexer.cache_bytes_per_token(kv_bytes=1), indexer.cache_bytes_per_token(kv_bytes=2)
    (132, 256)
    """

    num_heads: int
    head_dim: int
    topk: int

    #: Values sharing one fp32 scale in the FP8 index-key cache (DeepSeek's ``block_size`` 128).
    FP8_SCALE_BLOCK = 128

    def linear_parameters(self, *, hidden_size: int, q_lora_rank: int) -> int:
        """Weights of ``wq_b``, ``wk`` and ``weights_proj``."""
        return q_lora_rank * self.num_heads * self.head_dim + hidden_size * self.head_dim + hidden_size * self.num_heads

    def other_parameters(self) -> int:
        """The key's LayerNorm: a weight and a bias of ``head_dim`` each."""
        return 2 * self.head_dim

    def parameters(self, *, hidden_size: int, q_lora_rank: int) -> int:
        """All parameters of one layer's indexer (count)."""
        return self.linear_parameters(hidden_size=hidden_size, q_lora_rank=q_lora_rank) + self.other_parameters()

    def scoring_bytes(self, *, batch: int, queries: int, keys: int) -> int:
        """Peak bytes of transformers' indexer scoring ``queries`` against ``keys`` (no gradients kept).

        ``DeepseekV32Indexer`` casts q to fp32 and matmuls it with the fp32 keys, giving fp32 scores of
        ``batch x queries x heads x keys``, then takes their ReLU (a second such tensor). With more than one
        sequence, ``torch.matmul`` cannot fold the broadcast batch of the keys and first copies them once per
        query (``batch x queries x head_dim x keys`` fp32).

        Formula: ``max(4 B S (H D + [B > 1] D T + H T), 8 B S H T)``.
        """
        scores = 4 * batch * queries * self.num_heads * keys
        expanded = 4 * batch * queries * self.head_dim * keys if batch > 1 else 0
        return max(4 * batch * queries * self.num_heads * self.head_dim + expanded + scores, 2 * scores)

    def cache_bytes_per_token(self, *, kv_bytes: float) -> int:
        """Bytes one token's index key takes in one layer's cache.

        Formula: FP8 (``kv_bytes`` 1): ``head_dim + 4 x ceil(head_dim / 128)`` (the keys and their fp32
        scales); otherwise ``head_dim x kv_bytes``.
        """
        if kv_bytes == 1:
            return self.head_dim + 4 * -(-self.head_dim // self.FP8_SCALE_BLOCK)
        return int(self.head_dim * kv_bytes)
