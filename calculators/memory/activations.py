"""Bytes that autograd keeps for the backward pass, per token, per decoder layer.

This follows what PyTorch saves when it runs the Hugging Face ``transformers``
implementation of a Llama-style decoder layer, tensor by tensor (checked with
``torch.autograd.graph.saved_tensors_hooks`` and with the measurement harness):

* RMSNorm upcasts its input to fp32 and saves it (4 bytes x hidden) and a per-token
  ``rsqrt``; when its weight is trainable it also saves the normalised tensor.
* A trainable ``nn.Linear`` saves its input; a frozen one does not (autograd only saves
  what a gradient it must compute needs). Under autocast, every linear gets its own
  16-bit cast of an fp32 input (autocast caches casts of weights, not of activations).
* Flash/memory-efficient SDPA saves q, k, v (K/V at KV-head width: GQA-aware), its
  output and a per-head fp32 log-sum-exp; no S x S matrix. Eager attention repeats K
  and V to every query head and saves the fp32 softmax and its 16-bit copy:
  ``S x S`` per head.
* The gated MLP saves the gate output, the activation output and the up output; the
  product is saved only when ``down_proj`` needs its input.
* LoRA (PEFT) casts each adapted module's input to the adapter dtype (fp32) and saves
  that copy, plus the rank-r intermediate.
* A Mamba or Gated DeltaNet mixer keeps what transformers' PyTorch scan keeps
  (:mod:`calculators.memory.state_mixers`, traced); the CUDA kernels keep fewer.

>>> from calculators.model_config import spec_from_config
>>> spec = spec_from_config({"model_type": "llama", "hidden_size": 512,
...     "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2,
...     "intermediate_size": 1536, "vocab_size": 1000})
>>> layout = ActivationLayout(compute_bytes=2, residual_bytes=4, autocast=True,
...     trainable_base=True)
>>> saved_bytes_per_token_per_layer(spec, layout=layout, seq=64).total
28200
"""

from __future__ import annotations

from dataclasses import dataclass, field

from calculators.memory.kernels import layer_attention_path
from calculators.memory.state_mixers import state_mixer_saved_bytes
from calculators.model import ModelSpec
from calculators.model_layers import LayerSpec

#: Short LoRA target names and the module they adapt (q_proj, ..., down_proj). On models
#: with fused projections (Phi-3), "qkv" and "gate_up" name qkv_proj and gate_up_proj.
LORA_TARGETS = ("q", "k", "v", "o", "gate", "up", "down", "qkv", "gate_up")


@dataclass(frozen=True)
class ActivationLayout:
    """How a training step stores activations.

    Attributes:
        compute_bytes: bytes per element of matmul inputs/outputs (2 under autocast or
            a 16-bit model, 4 in fp32).
        residual_bytes: bytes per element of the residual stream, which follows the
            dtype of the (frozen or trainable) base weights: 4 for fp32 master weights
            with autocast, 2 for a bf16 model.
        autocast: True when ``torch.autocast`` casts each linear's input separately.
        trainable_base: True for full fine-tuning (base weights and norms trainable).
        lora_targets: LoRA-adapted modules (short names from :data:`LORA_TARGETS`).
        lora_rank: LoRA rank r.
        adapter_bytes: bytes per element of the LoRA adapter weights (PEFT keeps them in
            fp32 by default).
        attention: ``"sdpa"`` or ``"eager"``; which SDPA kernel runs follows from the dtype,
            the mask and the device (:func:`calculators.memory.kernels.layer_attention_path`).
        device: ``"cuda"`` or ``"cpu"`` (the kernels the fake-tensor traces ran).
    """

    compute_bytes: int
    residual_bytes: int
    autocast: bool
    trainable_base: bool
    lora_targets: frozenset[str] = field(default_factory=frozenset)
    lora_rank: int = 0
    adapter_bytes: int = 4
    attention: str = "sdpa"
    device: str = "cuda"


@dataclass(frozen=True)
class LayerActivations:
    """Saved bytes per token for one decoder layer, by part."""

    norms: int
    linear_inputs: int
    attention: int
    mlp: int
    lora: int

    @property
    def total(self) -> int:
        """All saved bytes per token in the layer."""
        return self.norms + self.linear_inputs + self.attention + self.mlp + self.lora


def _input_copies(*, consumers: int, layout: ActivationLayout, width: int) -> int:
    """Bytes per token saved as inputs of ``consumers`` trainable linears reading one tensor."""
    if consumers == 0:
        return 0
    if layout.autocast and layout.residual_bytes > layout.compute_bytes:
        return consumers * layout.compute_bytes * width  # one 16-bit cast per consumer
    return layout.residual_bytes * width  # one shared tensor


def _lora_input_bytes(*, targets: int, layout: ActivationLayout, width: int, source_bytes: int) -> int:
    """LoRA ``lora_A`` inputs: each adapted module saves its own cast of the input."""
    if targets == 0:
        return 0
    if layout.autocast:
        return targets * layout.compute_bytes * width
    if source_bytes == layout.adapter_bytes:
        return layout.adapter_bytes * width  # no cast needed: shared
    return targets * layout.adapter_bytes * width


def saved_bytes_per_token_per_layer(spec: ModelSpec, *, layout: ActivationLayout, seq: int,
                                    layer: LayerSpec | None = None) -> LayerActivations:
    """Bytes per token that one decoder layer keeps for backward.

    Formula (bf16 autocast, fp32 weights, full fine-tuning, SDPA, an attention + gated MLP
    layer): ``26 H + 4 q_dim + 4 kv_dim + 8 I + 4 heads + 8`` bytes per token. A layer
    without attention keeps no attention terms, a layer without MLP no MLP terms; a
    Mamba or linear-attention mixer keeps its own (:func:`state_mixer_bytes`).

    Args:
        spec: model shapes.
        layout: how the step stores activations.
        seq: sequence length in tokens (eager attention's scores grow with it).
        layer: which kind of layer (one of ``spec.layers``); by default an attention layer
            with the model's MLP (MoE when the model has experts).

    Returns:
        The per-token saved bytes of a middle layer of that kind, split into parts.
    """
    layer = layer or typical_layer(spec)
    has_attention = layer.attention is not None
    has_mlp = layer.mlp != "none"
    h, a, r = spec.hidden_size, layout.compute_bytes, layout.residual_bytes
    targets = layout.lora_targets
    rank = layout.lora_rank
    full = layout.trainable_base
    norm_out_bytes = r  # the norm multiplies by its weight in the residual dtype

    # Two RMSNorms per layer (four in Gemma 2: two more on the branch outputs). Llama's
    # norm casts back before the weight multiply (saves the cast); Gemma's multiplies
    # in fp32 (saves the fp32 normalised tensor).
    fp32_normalised = spec.model_type in ("gemma", "gemma2", "gemma3_text") or spec.norm_weight_fp32
    normalised = (4 if (r == 4 or fp32_normalised) else r) * h if full else 0
    # What a norm keeps of its input per element: the fp32 cast (RMSNorm), or Cohere's LayerNorm's
    # two fp32 copies of x - mean (one squared for the variance, one scaled; traced on Command R7B).
    centred = 8 if spec.norm_kind == "layer" else 4
    norms = spec.norms_per_layer * (centred * h + 4 + normalised)
    if spec.qk_norm and has_attention:
        # q_norm and k_norm (Qwen3, Gemma 3) normalise each head of q and k: they save the fp32
        # cast of their 16-bit input, one rsqrt per head, and, when their weight is trainable, the
        # normalised tensor (16-bit for Qwen3, fp32 for Gemma's norm).
        qk_normalised = (4 if fp32_normalised else a) if full else 0
        # A norm over the whole q (k) width (OLMo 2/3, OLMoE, MiniMax-M2) keeps one rsqrt per token, not per head.
        rsqrts = 2 if spec.qk_norm_scope == "width" else spec.num_attention_heads + spec.num_kv_heads
        norms += (spec.q_dim + spec.kv_dim) * (centred + qk_normalised) + 4 * rsqrts
    if spec.qk_l2_norm and layer.attention == "chunked_attention":
        # Llama 4's weightless L2 norm of q and k on its RoPE (chunked) layers: their fp32 cast and one
        # rsqrt per head.
        norms += 4 * (spec.q_dim + spec.kv_dim) + 4 * (spec.num_attention_heads + spec.num_kv_heads)

    qkv_consumers = (1 if spec.fused_qkv else 3) if has_attention else 0
    mlp_in_consumers = ((1 if spec.fused_qkv or not spec.mlp_gated else 2) if layer.mlp == "dense"
                        else 2 if layer.mlp == "moe" else 0)
    linear_inputs = 0
    if full and spec.block_layout == "parallel":
        # One norm output feeds attention and MLP (Cohere): its consumers share it (or each cast it).
        linear_inputs += _input_copies(consumers=qkv_consumers + mlp_in_consumers, layout=layout, width=h)
    elif full:
        linear_inputs += _input_copies(consumers=qkv_consumers, layout=layout, width=h)
        linear_inputs += _input_copies(consumers=mlp_in_consumers, layout=layout, width=h)

    attention = _attention_bytes(spec, layout=layout, seq=seq, o_needs_input=full,
                                 mixer=layer.attention) if has_attention else 0
    attention += state_mixer_bytes(spec, layout=layout, layer=layer, seq=seq)

    mlp = _mlp_bytes(spec, layout=layout, down_needs_input=full, layer=layer) if has_mlp else 0
    if spec.residual_dropout:
        # Seed-OSS drops out the attention and MLP outputs: each dropout keeps its mask for backward, a
        # noise tensor in the compute dtype on PyTorch's CPU path (traced: 2 x 2 bytes x hidden per layer),
        # one byte per element on CUDA (native_dropout's boolean mask).
        dropped = (1 if layout.device == "cuda" else a) * h
        attention += dropped if has_attention else 0
        mlp += dropped if has_mlp else 0

    lora = 0
    if targets:
        if spec.fused_qkv:  # one fused linear stands for q, k, v (and gate, up)
            qkv_targets = 1 if targets & {"q", "k", "v", "qkv"} else 0
            up_targets = 1 if targets & {"gate", "up", "gate_up"} else 0
        else:
            qkv_targets = len(targets & {"q", "k", "v"}) + (3 if "qkv" in targets - {"q", "k", "v"} else 0)
            up_targets = len(targets & {"gate", "up"}) + (2 if "gate_up" in targets - {"gate", "up"} else 0)
        qkv_targets = qkv_targets if has_attention else 0
        up_targets = up_targets if has_mlp else 0
        down_width = spec.moe.expert_intermediate_size if spec.moe and layer.mlp == "moe" else (
            layer.mlp_width or spec.intermediate_size)
        down_adapted = "down" in targets and has_mlp
        if spec.is_hybrid:
            # Per layer kind, as PEFT matches module names (calculators.memory.lora): the MLP's linears under
            # the model's names; in a MoE layer only a shared expert's (routed experts are 3-D parameters).
            shared = spec.moe.num_shared_experts if spec.moe and layer.mlp == "moe" else 0
            names = spec.mlp_linear_names if layer.mlp == "dense" or shared else ()
            wanted = targets | ({"gate", "up"} if "gate_up" in targets else set())
            up_targets = len({"gate", "up"} & wanted & set(names)) * max(1, shared)
            down_adapted = "down" in wanted and "down" in names
            if shared and spec.moe is not None:
                down_width = spec.moe.shared_intermediate_size
        lora += _lora_input_bytes(targets=qkv_targets, layout=layout, width=h, source_bytes=norm_out_bytes)
        lora += _lora_input_bytes(targets=up_targets, layout=layout, width=h, source_bytes=norm_out_bytes)
        if "o" in targets and has_attention:
            lora += _lora_input_bytes(targets=1, layout=layout, width=spec.q_dim, source_bytes=a)
        if down_adapted:
            lora += _lora_input_bytes(targets=1, layout=layout, width=down_width, source_bytes=a)
        rank_bytes = layout.compute_bytes if layout.autocast else layout.adapter_bytes
        modules = (qkv_targets + up_targets + len(targets & {"o"}) * has_attention + int(down_adapted))
        lora += modules * rank_bytes * rank
    return LayerActivations(norms=norms, linear_inputs=linear_inputs, attention=attention, mlp=mlp, lora=lora)


def saved_bytes_by_layer(spec: ModelSpec, *, layout: ActivationLayout, seq: int) -> list[int]:
    """Bytes per token each layer keeps for backward, in layer order (a hybrid model's layers differ).

    With a frozen base (LoRA) nothing upstream of the first adapted module needs a gradient, so
    autograd saves nothing there (traced on hybrid models whose first layers have no LoRA target):
    layers before the first one with an adapted linear keep 0; that layer keeps its MLP part when
    only its MLP is adapted, or all but its first norm's input and its state mixer's part (a Mamba
    branch beside the adapted attention, Falcon-H1) when its attention is.
    """
    per_kind = {kind: saved_bytes_per_token_per_layer(spec, layout=layout, seq=seq, layer=kind)
                for kind, _count in spec.layer_groups}
    saved = [per_kind[kind].total for kind in spec.layers]
    if layout.trainable_base:
        return saved
    targets = layout.lora_targets | ({"q", "k", "v"} if "qkv" in layout.lora_targets else set()) | (
        {"gate", "up"} if "gate_up" in layout.lora_targets else set())
    for index, kind in enumerate(spec.layers):
        shared = kind.mlp == "moe" and spec.moe is not None and spec.moe.num_shared_experts > 0
        mixer_adapted = kind.attention is not None and bool(targets & {"q", "k", "v", "o"})
        mlp_adapted = (kind.mlp == "dense" or shared) and bool(targets & set(spec.mlp_linear_names))
        if mixer_adapted:
            state = state_mixer_bytes(spec, layout=layout, layer=kind, seq=seq)
            saved[index] -= 4 * spec.hidden_size + 4 + state
            return saved
        if mlp_adapted:
            saved[index] = per_kind[kind].mlp + per_kind[kind].lora
            return saved
        saved[index] = 0
    return saved


def typical_layer(spec: ModelSpec) -> LayerSpec:
    """An attention layer with the model's MLP (MoE when the model has experts): the layer the docs tables show."""
    return LayerSpec(("full_attention",), "moe" if spec.moe else "dense")


def state_mixer_bytes(spec: ModelSpec, *, layout: ActivationLayout, layer: LayerSpec, seq: int = 2048) -> int:
    """Bytes per token a Mamba or Gated DeltaNet mixer keeps for backward (0 for other layers).

    Traced tensor by tensor on transformers' PyTorch path:
    :func:`calculators.memory.state_mixers.state_mixer_saved_bytes`.
    """
    return state_mixer_saved_bytes(spec, layer=layer, seq=seq, compute_bytes=layout.compute_bytes,
                                   autocast=layout.autocast, fp32_weights=layout.residual_bytes == 4,
                                   trainable=layout.trainable_base)


def _attention_bytes(spec: ModelSpec, *, layout: ActivationLayout, seq: int, o_needs_input: bool,
                     mixer: str | None = None) -> int:
    a = layout.compute_bytes
    heads = spec.num_attention_heads
    if spec.mla is not None:
        m = spec.mla
        q_dim = heads * (m.qk_nope_head_dim + m.qk_rope_head_dim)
        v_dim = heads * m.v_head_dim
        latent = (m.q_lora_rank or 0) + m.kv_lora_rank + m.qk_rope_head_dim
        # q, k (decompressed, per head), v and the low-rank intermediates ...
        saved = a * (2 * q_dim + v_dim + latent)
        if layout.attention == "eager" or not spec.supports_sdpa:
            # ... with eager attention the fp32 softmax and its cast (S per head) and the output's
            # contiguous copy for o_proj, as for any eager attention ...
            scores = 4 * heads * seq + (a * heads * seq if a != 4 else 0)
            return saved + scores + (a * v_dim if o_needs_input else 0)
        # ... with SDPA its output and a per-head fp32 log-sum-exp.
        return saved + a * v_dim + 4 * heads
    q_dim, kv_dim = spec.q_dim, spec.kv_dim
    path = layer_attention_path(spec, attention=layout.attention, compute_bytes=a, seq=seq, device=layout.device,
                                mixer=mixer)
    # Phi-3 slices q, k, v out of one fused output; SDPA's output then needs its own
    # contiguous copy for o_proj (measured), which o_proj saves.
    fused_extra = a * q_dim if (spec.fused_qkv and o_needs_input) else 0
    if spec.fused_qkv and not path.kv_repeated:
        # v is a view of the fused q|k|v output: the v the kernel saves keeps that whole buffer alive, q and k
        # parts included (saved-tensor hooks on Phi-3 and Phi-4-mini layers; K/V repeated for GQA are copies).
        fused_extra += a * (q_dim + kv_dim)
    if path.materialises_scores:
        # Eager attention, or SDPA's math backend (fp32 GQA on CUDA): the softmax is saved,
        # S x S per head, with K and V repeated to every query head.
        if spec.attention_sinks:
            # gpt-oss appends one sink logit per head and row and takes the softmax in the compute
            # dtype: autograd keeps only that softmax output, seq + 1 wide.
            scores = a * heads * (seq + 1)
        else:
            scores = 4 * heads * seq + (a * heads * seq if a != 4 else 0)  # fp32 softmax + its cast
        if spec.attn_logit_softcapping is not None:
            scores += a * heads * seq  # tanh(scores / cap) is saved for its backward
        out = a * q_dim if o_needs_input else 0  # transpose(1, 2).contiguous() copy for o_proj
        return a * 3 * q_dim + scores + out + fused_extra  # q, K and V repeated to every query head
    # Flash/efficient SDPA writes its output in (batch, seq, heads, dim) layout, so the
    # .contiguous() before o_proj is free and o_proj's saved input is that same tensor.
    # K and V are saved at KV-head width, or at query width when transformers repeated them.
    kv_saved = q_dim if path.kv_repeated else kv_dim
    mask = 0
    if path.explicit_mask:
        # SDPA turns transformers' boolean mask into an additive bias in the compute dtype at
        # every call, a (batch, 1, seq, seq) tensor, and each layer's kernel saves its own for
        # backward: seq x compute bytes per token (with or without autocast; traced on a
        # sliding-window config in bf16 and under bf16 autocast).
        mask = a * seq
    # A partial RoPE re-joins each head's rotated and plain parts with a concatenation (GLM-4.5, MiniMax-M2):
    # q reaches SDPA head-major, so does its output, and o_proj saves a contiguous copy of it (traced).
    rotary_extra = a * q_dim if (spec.partial_rotary and o_needs_input) else 0
    return a * (2 * q_dim + 2 * kv_saved) + 4 * heads + fused_extra + rotary_extra + mask


def _mlp_bytes(spec: ModelSpec, *, layout: ActivationLayout, down_needs_input: bool, layer: LayerSpec) -> int:
    a = layout.compute_bytes
    if layer.mlp == "dense" or spec.moe is None:
        width = layer.mlp_width or spec.intermediate_size
        if not spec.mlp_gated:
            # Nemotron-H's squared ReLU: relu() saves its output, which torch.square reuses; down_proj saves
            # the square when its weight is trainable (traced).
            return a * width * (1 + (1 if down_needs_input else 0))
        return a * width * (3 + (1 if down_needs_input else 0))
    m = spec.moe
    width = m.expert_intermediate_size
    h = spec.hidden_size
    trainable = down_needs_input
    shared = m.num_shared_experts * a * m.shared_intermediate_size * (3 + (1 if trainable else 0))
    router = 4 * m.num_experts + 8 * m.experts_per_token  # fp32 softmax (or sigmoid) output, top-k ids
    if trainable:
        # The router's input: without autocast it is the norm's output, already counted among the layer's
        # linear inputs (traced: OLMoE, MiniMax-M2); under autocast the router's own 16-bit cast. A router
        # run in fp32 (GLM-4.5, DeepSeek, ERNIE 4.5, Hunyuan) keeps an fp32 copy as well.
        router += 4 * h if m.fp32_router else 0
        router += a * h if layout.autocast else 0
    if m.every_expert_runs:
        # Llama4TextMoe repeats every token to each of the E experts, scales it by its router score (the
        # score column is kept) and runs one bmm per projection over all experts: each expert keeps its
        # gate/up output (2 I, for the SiLU) and the activation (I); trainable experts also keep the
        # repeated input and the scaled one (h each, for the multiply and the bmm) and the product (I).
        per_expert = a * (3 * width + ((2 * h + width) if trainable else 0)) + a
        return m.num_experts * per_expert + shared + router
    # transformers' grouped_mm experts: each token x top-k pair keeps its gate/up output
    # (2 I, one buffer), the activation output (I) and the down output (h, kept for the
    # routing-weight multiply); trainable experts also keep their gathered input (h) and
    # the product (I). Gather and un-permute indices are int64.
    per_visit = a * (3 * width + h + ((h + width) if trainable else 0)) + 2 * 8
    if spec.model_type == "gpt_oss":
        # gpt-oss's clamped SwiGLU, (clamp(up) + 1) x clamp(gate) x sigmoid(1.702 clamp(gate)), keeps the
        # clamped gate, the sigmoid, their product and up + 1 where SiLU keeps one output: 3 I more.
        per_visit += a * 3 * width
    return m.experts_per_token * per_visit + shared + router


def checkpoint_bytes_per_token_per_layer(*, layout: ActivationLayout, spec: ModelSpec) -> int:
    """Bytes per token kept per layer under gradient checkpointing: the layer's input.

    Formula: ``residual_bytes x hidden``.

    >>> from calculators.model_config import spec_from_config
    >>> spec = spec_from_config({"model_type": "llama", "hidden_size": 4096,
    ...     "num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 11008,
    ...     "vocab_size": 32000})
    >>> checkpoint_bytes_per_token_per_layer(layout=ActivationLayout(
    ...     compute_bytes=2, residual_bytes=2, autocast=False, trainable_base=True), spec=spec)
    8192
    """
    return layout.residual_bytes * spec.hidden_size
