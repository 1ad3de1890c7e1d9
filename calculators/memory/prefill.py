"""Temporaries of a forward pass over a prompt, bytes: the layer being computed during prefill (its MLP
intermediates, attention's q, K, V, scores and masks, the rotary tables) and the vision tower's encoding of
the images.

:func:`~calculators.memory.inference.inference_memory` adds them to the weights and the cache
(:mod:`calculators.memory.kv_cache`) in its prefill and vision phases.
"""

from __future__ import annotations

from calculators.memory.inference_request import InferenceRequest
from calculators.memory.kernels import AttentionPath, layer_attention_path
from calculators.memory.moe_prefill import moe_prefill_bytes
from calculators.memory.residual_augment import augmented_layer_bytes
from calculators.memory.state_mixers import hybrid_prefill_transient_bytes
from calculators.model import ModelSpec


def vision_transient_bytes(spec: ModelSpec, setup: InferenceRequest, act: int) -> int:
    """Bytes live while the vision tower encodes every image of the batch at once (one encoder layer's working set).

    Formula per encoder token: ``act x (6 hidden + 3 intermediate)`` (gated MLP; 2 for a plain one):
    the layer's input and residual, the norm output, q, k and v, the attention output, and the
    MLP's intermediates; with SDPA no token-by-token score matrix. Derived, not traced.
    """
    tower = spec.vision
    if tower is None or not setup.images:
        return 0
    tokens = setup.batch * setup.images * tower.encoder_tokens_per_image(setup.image_side_px)
    mlp = (3 if tower.mlp_gated else 2) * tower.intermediate_size
    merged = setup.batch * setup.images * tower.tokens_per_image(setup.image_side_px) * spec.hidden_size
    return act * (tokens * (6 * tower.hidden_size + mlp) + merged)


def prefill_attention_path(spec: ModelSpec, setup: InferenceRequest, act: int) -> AttentionPath:
    """How the prefill's attention runs (backend, scores, mask) for the request's prompt, in ``act``-byte activations."""
    return layer_attention_path(spec, attention=setup.attention, compute_bytes=act, seq=setup.context,
                                device=setup.device)


def _prefill_block_bytes(spec: ModelSpec, setup: InferenceRequest, tokens: int, act: int, path: AttentionPath) -> int:
    """The largest single temporary of the prefill: an MLP intermediate, or the fp32 scores (``path``:
    :func:`prefill_attention_path`)."""
    width = spec.moe.expert_intermediate_size * spec.moe.experts_per_token if spec.moe else spec.intermediate_size
    scores = 4 * setup.batch * spec.num_attention_heads * setup.context ** 2 if path.materialises_scores else 0
    bias = setup.batch * setup.context ** 2 * act if path.explicit_mask else 0  # SDPA's additive mask
    return max(tokens * width * act, scores, bias)


def _prefill_transient_bytes(spec: ModelSpec, setup: InferenceRequest, tokens: int, act: int,
                             path: AttentionPath) -> int:
    """Temporaries of the layer being computed during prefill, in bytes (``path``: :func:`prefill_attention_path`).

    Live while one layer runs: the embedding output (the model's forward keeps a
    reference for the whole pass), the layer's input (the caller's reference), the
    residual after attention, the norm output, and in the MLP the activation output,
    the up output and their product; plus the rotary cos/sin tables (seq x head_dim)
    and any attention mask.
    """
    h = spec.hidden_size
    streams = 4 * h  # embedding output, layer input, residual, norm output
    if spec.model_type in ("gemma", "gemma2", "gemma3_text"):
        streams += h  # Gemma scales the embedding output into a new tensor
    if spec.attention_output_kept:
        streams += h  # Llama4TextDecoderLayer's attention_states stays referenced until the layer returns
    if spec.moe is not None:
        mlp = tokens * act * streams + moe_prefill_bytes(spec, tokens=tokens, act=act)
    else:
        # Phi-3's fused gate_up output (2 I) stays alive while its halves are used.
        intermediates = 4 if spec.fused_qkv else 3
        mlp = tokens * act * (streams + intermediates * spec.intermediate_size)
    # In attention: q, k, v and the rotary temporaries of q (q*cos, rotate_half(q), its product).
    attention = tokens * act * (streams + 4 * spec.q_dim + 2 * spec.kv_dim)
    s = setup.context
    eager = path.materialises_scores
    if not eager:
        # During the SDPA call the rotary temporaries are gone: q, K and V (repeated to every
        # query head when transformers passes a mask), the output, and with a mask the additive
        # bias SDPA makes from it (torch.where(mask, 0, -inf): (batch, 1, seq, seq), not broadcast).
        kv_width = spec.q_dim if path.kv_repeated else spec.kv_dim
        call = tokens * act * (streams + 2 * spec.q_dim + 2 * kv_width)
        if path.explicit_mask:
            call += setup.batch * s * s * act
        attention = max(attention, call)
    else:
        # softmax(scores, dtype=float32) first casts the scores to fp32, then writes an
        # fp32 result: input, cast and output are alive together.
        per_score = act + (4 if act != 4 else 0) + 4
        if spec.attention_sinks:
            # gpt-oss's eager attention (sinks) stays in the activation dtype; at its peak the masked
            # scores, the max-shifted [scores, sink] logits and their softmax are alive together.
            per_score = 3 * act
        attention += setup.batch * spec.num_attention_heads * s * s * per_score
    if spec.indexer is not None:
        # DeepSeek-V3.2's indexer scores the prompt (no gradients) after the MLA projections, before attention.
        scoring = spec.indexer.scoring_bytes(batch=setup.batch, queries=s, keys=s)
        attention = max(attention, tokens * act * (streams + 4 * spec.q_dim + 2 * spec.kv_dim) + scoring)
    masks = 0
    if eager:
        # A materialised (batch, 1, seq, seq) mask in the activation dtype.
        masks = setup.batch * s * s * act
    elif path.explicit_mask:
        # From the window on SDPA needs a mask: transformers builds it boolean, (1, 1, seq, seq) broadcast
        # over the batch (stride 0), so it holds seq x seq bytes whatever the batch (measured on Gemma 3
        # and Mistral configs).
        masks = s * s
    if spec.indexer is not None:
        # The top-k selection becomes a (batch, seq, seq) boolean mask, folded into a per-sequence copy
        # of the attention mask (in the compute dtype for eager attention, boolean for SDPA).
        masks += setup.batch * s * s * (1 + (act if eager else 1))
    rotary_tables = 2 * s * spec.head_dim * act  # cos and sin, shared by the batch
    if spec.residual_augment is not None:
        # AltUp's hidden streams and the per-layer inputs stay live through the pass (Gemma 3n); its model computes
        # the rotary tables of the local and of the global layers up front.
        return int(augmented_layer_bytes(spec, tokens=tokens, act=act) + masks + 2 * rotary_tables)
    if spec.is_hybrid:
        return hybrid_prefill_transient_bytes(spec, batch=setup.batch, seq=s, act=act, attention=attention, mlp=mlp,
                                              masks_and_tables=masks + rotary_tables)
    return int(max(mlp, attention) + masks + rotary_tables)
