"""FLOP counts of a transformer per token: matmul parameters, attention, and a trained token.

Counts are matrix multiply-adds at 2 FLOP each. Parameters count once per token
(forward ``2 N``, training ``6 N``) except the input embedding, which is a table lookup
with no multiplies (Kaplan et al. 2020 also exclude it); a tied embedding counts once,
as the output head. Attention adds the two products with the cached keys and values:
``2 x 2 x q_dim`` FLOP per layer per attended token in the forward pass.

Training: forward ``2 N``, backward ``4 N`` (half input gradients, half weight gradients,
Kaplan et al. 2020 section 2.1); LoRA/QLoRA skip the base's weight gradients (``4 N + 6
N_adapter``, Hu et al. 2021 section 4); attention adds ``4 x q_dim`` per layer per attended
token in the forward pass and twice that in the backward pass; full recomputation adds one
forward, a selective policy the part of it that it recomputes (:func:`selective_recompute_flops`).
The derivation is in :mod:`calculators.performance.training_time`.

These are model arithmetic, below the engine's layers, so the data-parallel step
(:mod:`calculators.parallel.step`) and the training time
(:mod:`calculators.performance.training_time`) count one number of FLOPs per token.

>>> from calculators.catalog.models import get_model
>>> spec = get_model("llama-2-7b")
>>> matmul_parameters(spec)  # 6.74B minus the 131M-entry embedding table
6607343616
>>> attended_tokens(spec, context=4096) == 32 * 4096
True
>>> round(training_flops_per_token(spec, seq=4096) / 1e9, 2)  # GFLOP
46.09
"""

from __future__ import annotations

from typing import Any

from calculators.errors import InputError
from calculators.catalog.sources import Source
from calculators.memory.lora import lora_parameters
from calculators.memory.training_inputs import DEFAULT_LORA_TARGETS, MAX_SEQ, METHODS
from calculators.model import ModelSpec
from calculators.validate import flag, model_spec, one_of, positive_int


def matmul_parameters(spec: ModelSpec, *, active: bool = True) -> int:
    """Parameters that take part in a matrix multiply for one token (count).

    Formula: ``(active or total) parameters - embedding table`` (kept when tied: it is
    then the output head). Norm weights stay in: they are under 0.01 % of a model.

    Args:
        spec: model shapes.
        active: count only the experts a token is routed to (mixture of experts).
    """
    spec = model_spec("spec", spec)
    count = spec.active_parameters if active else spec.parameters
    if not spec.tie_word_embeddings:
        count -= spec.embedding_parameters
    return count


def lm_head_parameters(spec: ModelSpec) -> int:
    """Parameters of the output projection to the vocabulary (tied or not), count."""
    spec = model_spec("spec", spec)
    return spec.vocab_size * spec.hidden_size


def _windows(spec: ModelSpec) -> list[int | None]:
    """Attention window of each attention layer in tokens (``None`` = the whole context); layers without
    attention (Mamba, linear attention) attend to nothing."""
    windowed = spec.sliding_window_layers
    full = spec.attention_layers - windowed - _chunked_layers(spec)
    return [spec.sliding_window] * windowed + [None] * full


def _chunked_layers(spec: ModelSpec) -> int:
    return spec.count_layers(mixer="chunked_attention") if spec.attention_chunk_size else 0


def attended_tokens(spec: ModelSpec, *, context: int) -> int:
    """Cached tokens one new token attends to, summed over the attention layers (layer-tokens).

    Formula: ``sum over attention layers of min(context, window)``; layers without a window
    see the whole context, a chunked layer (Llama 4) at most its chunk.
    """
    return model_spec("spec", spec).attention_tokens_held(context)


def causal_attended_pairs(spec: ModelSpec, *, tokens: int) -> int:
    """(query, key) pairs a causal prompt of ``tokens`` computes, summed over the attention layers.

    Formula per layer: ``sum_{t=1..S} min(t, window)`` = ``S (S + 1) / 2`` without a window;
    a chunked layer (Llama 4) attends within its chunk of C: ``(S // C) C (C + 1) / 2 + r (r + 1) / 2``
    with ``r = S mod C``.

    >>> from calculators.catalog.models import get_model
    >>> causal_attended_pairs(get_model("llama-3-8b"), tokens=4) == 32 * (1 + 2 + 3 + 4)
    True
    """
    spec = model_spec("spec", spec)
    total = 0
    for window in _windows(spec):
        if window is None or tokens <= window:
            total += tokens * (tokens + 1) // 2
        else:
            total += window * (window + 1) // 2 + (tokens - window) * window
    if chunk := spec.attention_chunk_size:
        whole, rest = divmod(tokens, chunk)
        total += _chunked_layers(spec) * (whole * chunk * (chunk + 1) // 2 + rest * (rest + 1) // 2)
    return total


def adapter_parameters(spec: ModelSpec, *, method: str, lora_rank: int = 16,
                       lora_targets: Any = DEFAULT_LORA_TARGETS) -> int:
    """Trainable adapter parameters of a LoRA/QLoRA run (0 for full training), count."""
    if one_of("method", method, METHODS) == "full":
        return 0
    return lora_parameters(spec, rank=lora_rank, targets=lora_targets)


def forward_flops_per_token(spec: ModelSpec, *, seq: int, adapter: int = 0) -> float:
    """FLOP of one forward pass per token: ``2 x (matmul parameters + adapters) + 4 x q_dim x attended``."""
    seq = positive_int("seq", seq, maximum=MAX_SEQ)
    return 2.0 * (matmul_parameters(spec) + adapter) + 4.0 * spec.q_dim * attended_tokens(spec, context=seq)


def training_flops_per_token(spec: ModelSpec, *, seq: int, grad_checkpointing: bool = False, method: str = "full",
                             lora_rank: int = 16, lora_targets: Any = DEFAULT_LORA_TARGETS,
                             selective_recompute: str = "none") -> float:
    """FLOP per trained token: model FLOPs, or executed FLOPs with recomputation.

    Formula: full: ``6 x N + 12 x q_dim x attended`` (``N`` = matmul parameters, active
    for a mixture of experts; attended = sum over layers of min(seq, window)); LoRA and
    QLoRA: ``4 x N + 6 x N_adapter + 12 x q_dim x attended`` (module docstring). Full
    activation recomputation adds one forward (:func:`forward_flops_per_token`); a selective
    policy adds what it recomputes (:func:`selective_recompute_flops`).

    >>> from calculators.catalog.models import get_model
    >>> spec = get_model("llama-2-7b")
    >>> round(training_flops_per_token(spec, seq=4096) / 1e9, 2)  # GFLOP
    46.09
    >>> round(training_flops_per_token(spec, seq=4096, method="lora") / 1e9, 2)  # rank 16, all linears
    33.11
    """
    seq = positive_int("seq", seq, maximum=MAX_SEQ)
    checkpointing = flag("grad_checkpointing", grad_checkpointing)
    adapter = adapter_parameters(spec, method=method, lora_rank=lora_rank, lora_targets=lora_targets)
    attention = 12.0 * spec.q_dim * attended_tokens(spec, context=seq)
    if one_of("method", method, METHODS) == "full":
        model = 6.0 * matmul_parameters(spec) + attention
    else:
        model = 4.0 * matmul_parameters(spec) + 6.0 * adapter + attention
    if checkpointing:
        if selective_recompute != "none":
            raise InputError("selective_recompute", selective_recompute,
                             "'none' with full activation recomputation (it already recomputes every layer)")
        return model + forward_flops_per_token(spec, seq=seq, adapter=adapter)
    return model + sum(selective_recompute_flops(spec, seq=seq, policy=selective_recompute, method=method))


def linear_flops_share(spec: ModelSpec, *, seq: int, grad_checkpointing: bool = False, method: str = "full",
                       lora_rank: int = 16, lora_targets: Any = DEFAULT_LORA_TARGETS,
                       selective_recompute: str = "none") -> float:
    """Share of the executed FLOPs per trained token that are linear layers' matmuls, in (0, 1].

    Formula: ``1 - attention / executed``, attention = ``12 x q_dim x attended`` (plus ``4 x q_dim
    x attended`` for the recomputed forward, or the part a selective policy recomputes): what FP8
    training speeds up, the score and value products with the keys and values staying 16-bit
    (:mod:`calculators.catalog.utilisation`).

    >>> from calculators.catalog.models import get_model
    >>> round(linear_flops_share(get_model("llama-3.1-8b"), seq=8192), 2)
    0.78
    >>> round(linear_flops_share(get_model("llama-3.1-70b"), seq=8192), 2)
    0.87
    """
    executed = training_flops_per_token(spec, seq=seq, grad_checkpointing=grad_checkpointing, method=method,
                                        lora_rank=lora_rank, lora_targets=lora_targets,
                                        selective_recompute=selective_recompute)
    attended = attended_tokens(spec, context=positive_int("seq", seq, maximum=MAX_SEQ))
    attention = (16.0 if flag("grad_checkpointing", grad_checkpointing) else 12.0) * spec.q_dim * attended
    attention += selective_recompute_flops(spec, seq=seq, policy=selective_recompute, method=method)[1]
    return max(1e-9, 1.0 - attention / executed)


#: Selective activation recomputation policies whose recomputed FLOPs are counted (torchtitan's
#: ``activation_checkpoint.selective_ac_option``): ``"every-other-matmul"`` is its op policy, ``"every-other-layer"``
#: its layer policy with frequency 2. Other selective policies (Megatron-Core's, which recomputes the attention
#: core, fused away by FlashAttention) count as ``"none"``.
SELECTIVE_RECOMPUTES: tuple[str, ...] = ("none", "every-other-matmul", "every-other-layer")


def selective_recompute_flops(spec: ModelSpec, *, seq: int, policy: str, method: str = "full") -> tuple[float, float]:
    """FLOP per token that a selective recomputation policy runs again in the backward: (linear, attention).

    Formula: ``"every-other-matmul"`` (torchtitan's op policy saves the output of every compute op but
    every second ``aten.mm`` of a transformer block, counted in forward order q, k, v, o, then gate, up,
    down (or up, down): k, o and the MLP's second matmul are recomputed): ``2 x layers x hidden x (kv_dim
    + q_dim + intermediate)`` linear, no attention (the attention kernel's output is saved);
    ``"every-other-layer"`` (its layer policy, frequency 2: every second block checkpointed whole):
    ``floor(layers / 2) / layers`` of the blocks' forward, linear (the output head excluded) and attention.
    Dense transformer blocks with full training only (a mixture of experts' grouped matmuls and LoRA's adapter
    matmuls change the count: refused).

    >>> from calculators.catalog.models import get_model
    >>> spec = get_model("llama-2-13b")
    >>> linear, attention = selective_recompute_flops(spec, seq=4096, policy="every-other-matmul")
    >>> linear == 2 * 40 * 5120 * (5120 + 5120 + 13824), attention
    (True, 0.0)

    References:
        torchtitan ``torchtitan/distributed/activation_checkpoint.py`` (``_custom_policy``: "Saves output of
        all compute ops, except every second mm"; the layer policy checkpoints every ``ac_freq``-th block);
        torchtitan's performance page (https://github.com/pytorch/torchtitan/blob/main/docs/performance.md): Llama 2
        13B on 64 A100s, 2,162 tokens/s per GPU without recomputation,
        1,904 with the op policy, 1,914 with the layer policy.
    """
    policy = one_of("selective_recompute", policy, SELECTIVE_RECOMPUTES)
    if policy == "none":
        return 0.0, 0.0
    spec = model_spec("spec", spec)
    if spec.moe is not None or one_of("method", method, METHODS) != "full":
        raise InputError("selective_recompute", policy, "'none' for a mixture of experts or LoRA/QLoRA (the count "
                         "covers the matmuls of dense blocks in full training)")
    layers = spec.num_layers
    if policy == "every-other-matmul":
        return 2.0 * layers * spec.hidden_size * (spec.kv_dim + spec.q_dim + spec.intermediate_size), 0.0
    share = (layers // 2) / layers
    blocks = matmul_parameters(spec) - lm_head_parameters(spec)
    return share * 2.0 * blocks, share * 4.0 * spec.q_dim * attended_tokens(spec, context=seq)
# ----------------------------------------------------------------- unfused elementwise traffic per FLOP
#: Bytes per token per layer the unfused forward moves beyond the fused one, per unit of ``(h, q + kv, I)``:
#: RMSNorm twice (cast to FP32 6, square 8, mean 4, scale 8, cast back 6, weight 4: 36 h each, against 4 h for
#: one fused kernel), the two residual additions (fused into their neighbours: 6 h each unfused, counted in
#: the 64 h), the rotary embedding (multiply, rotate by slice, negate and concatenate, multiply, add: about
#: 20 per query and key element against 4 fused) and SwiGLU (SiLU 4, product 6: 10 I against 6 I fused).
UNFUSED_FORWARD_BYTES: tuple[float, float, float] = (64.0, 16.0, 4.0)
#: The same for the backward: each elementwise operation reads the incoming gradient and what it saved and
#: writes one gradient (about twice the forward's bytes), plus the sums of the residual stream's two gradients.
UNFUSED_BACKWARD_BYTES: tuple[float, float, float] = (128.0, 32.0, 8.0)
UNFUSED_SOURCE = Source(
    "Hugging Face transformers v4.36.0, src/transformers/models/llama/modeling_llama.py: LlamaRMSNorm.forward "
    "(to(float32), pow(2), mean, rsqrt, multiply, to(input dtype), weight), apply_rotary_pos_emb (q * cos + "
    "rotate_half(q) * sin), LlamaMLP (act_fn(gate_proj(x)) * up_proj(x)); against Megatron-Core's fused kernels",
    "https://github.com/huggingface/transformers/blob/v4.36.0/src/transformers/models/llama/modeling_llama.py",
    "2026-11-29", kind="derived")
#: Training frameworks (:mod:`calculators.catalog.training_frameworks`) whose layers are fused kernels whatever
#: the run's settings: Megatron-Core's transformer layer on Transformer Engine.
FUSED_FRAMEWORKS: tuple[str, ...] = ("megatron",)


def runs_unfused(framework: str, *, fused_kernels: bool = False) -> bool:
    """Whether a run's elementwise operations are separate kernels: a PyTorch-family framework whose run does not
    fuse them (``fused_kernels``: ``torch.compile``, or layers built on fused kernels such as Transformer Engine's);
    Megatron-Core's layers are fused whatever the settings.

    >>> runs_unfused("megatron"), runs_unfused("pytorch", fused_kernels=True), runs_unfused("pytorch")
    (False, False, True)
    """
    return framework not in FUSED_FRAMEWORKS and not flag("fused_kernels", fused_kernels)


def _mlp_width(spec: ModelSpec) -> int:
    """The MLP width a token's activation passes through: the dense MLP's, or its routed and shared experts'."""
    moe = spec.moe
    if moe is None:
        return spec.intermediate_size
    return moe.experts_per_token * moe.expert_intermediate_size + moe.num_shared_experts * moe.shared_intermediate_size


def unfused_bytes_per_flop(spec: ModelSpec, *, seq: int, grad_checkpointing: bool = False, method: str = "full",
                           lora_rank: int = 16, lora_targets: Any = DEFAULT_LORA_TARGETS,
                           selective_recompute: str = "none") -> float:
    """Bytes a training step's unfused elementwise kernels move beyond fused ones, per executed FLOP.

    Around a layer's compute-bound matmuls sit byte-bound elementwise operations (RMSNorm, the rotary embedding,
    the SwiGLU activation, the residual additions). Eager PyTorch modules (transformers, torchtitan and torchtune
    without ``torch.compile``, PEFT) run each as its own kernel that reads its inputs and writes its output:
    transformers' ``LlamaRMSNorm.forward`` alone is six kernels over the hidden vector, four in FP32
    (:data:`UNFUSED_SOURCE`). Fused kernels (Megatron-Core on Transformer Engine; Inductor under
    ``torch.compile``; layers that are single kernels already, as llm-foundry's MPT) read and write each group
    once. The difference enters the utilisation's byte-bound term (:class:`calculators.catalog.utilisation.Features`)
    beside the fitted bytes per FLOP of a fused step. Derived, not fitted; against the published compile pairs
    (torchtitan Llama 3.1 8B on H100, 1.16 times as fast compiled; torchtune Llama 3.2 3B on A100, 1.27) it gives
    1.12 and 1.10 with the fitted utilisation (compilation also removes kernel launches, not counted).

    Formula: ``layers x (passes x forward + backward) / executed FLOPs per token``, with
    ``forward = 64 h + 16 (q + kv) + 4 I`` and ``backward = 128 h + 32 (q + kv) + 8 I`` bytes per token
    (:data:`UNFUSED_FORWARD_BYTES`, :data:`UNFUSED_BACKWARD_BYTES`), one forward pass, two with full
    recomputation, ``1 + floor(layers / 2) / layers`` with torchtitan's every-other-layer policy (its op policy
    recomputes matmuls only: one); the executed FLOPs are :func:`calculators.model_flops.training_flops_per_token`'s
    for the same run (method, adapters, recomputation, selective policy, sequence).
    """
    spec = model_spec("spec", spec)
    passes = 2.0 if flag("grad_checkpointing", grad_checkpointing) else 1.0
    if one_of("selective_recompute", selective_recompute, SELECTIVE_RECOMPUTES) == "every-other-layer":
        passes += (spec.num_layers // 2) / spec.num_layers
    widths = (spec.hidden_size, spec.q_dim + spec.kv_dim, _mlp_width(spec))
    per_layer = sum((passes * fwd + bwd) * width
                    for fwd, bwd, width in zip(UNFUSED_FORWARD_BYTES, UNFUSED_BACKWARD_BYTES, widths, strict=True))
    executed = training_flops_per_token(spec, seq=seq, grad_checkpointing=grad_checkpointing, method=method,
                                        lora_rank=lora_rank, lora_targets=lora_targets,
                                        selective_recompute=selective_recompute)
    return spec.num_layers * per_layer / executed
