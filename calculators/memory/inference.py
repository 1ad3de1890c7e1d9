"""Peak GPU memory of serving a batch: weights, KV cache, prefill activations, logits.

Inference keeps no activations for backward: memory is the weights, the KV cache
(which grows with batch x context) and the temporaries of the one layer being computed.
The prefill of a long prompt adds a per-token transient (the MLP intermediates of one
layer, or the S x S scores with eager attention); decoding adds little beyond the cache.
A Mamba or Gated DeltaNet layer's prefill temporaries are those of transformers' PyTorch
scans (:mod:`calculators.memory.state_mixers`, traced); the CUDA kernels keep fewer.

>>> from calculators.catalog.models import get_model
>>> spec = get_model("llama-3-8b")
>>> kv_cache_bytes(spec, batch=1, context=8192, kv_dtype="bf16") / 2**30  # GiB
1.0
>>> estimate = inference_memory(spec, weights="bf16", kv_cache="bf16", batch=1, context=8192)
>>> estimate.peak_phase
'prefill'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from calculators.errors import InputError
from calculators.dtypes import DType
from calculators.memory.kernels import layer_attention_path
from calculators.memory.moe_prefill import moe_prefill_bytes
from calculators.memory.overhead import (
    CUDA_WORKSPACE_BYTES,
    overhead_assumptions,
    uncertainty_above_total,
    runtime_overhead_bytes,
)
from calculators.memory.residual_augment import augmented_layer_bytes
from calculators.memory.result import MemoryEstimate
from calculators.memory.checkpoint_weights import stored_weights_note
from calculators.memory.state_mixers import hybrid_prefill_transient_bytes
from calculators.memory.weight_formats import AUTO, WeightFormat, resolve_weights
from calculators.memory.weights import weight_bytes
from calculators.model import ModelSpec
from calculators.model_vision import DEFAULT_IMAGE_SIDE_PX
from calculators.validate import model_spec, one_of, positive_int

# The request's record and its ranges live in their own module; they are re-exported here, where the
# faces and the engine have always imported them.
from calculators.memory.inference_request import (
    ATTENTIONS as ATTENTIONS,
    KV_DTYPES as KV_DTYPES,
    MAX_BATCH as MAX_BATCH,
    MAX_CONTEXT as MAX_CONTEXT,
    MAX_IMAGE_SIDE_PX as MAX_IMAGE_SIDE_PX,
    MAX_IMAGES as MAX_IMAGES,
    MAX_MEMORY_BYTES as MAX_MEMORY_BYTES,
    WEIGHT_DTYPES as WEIGHT_DTYPES,
    InferenceInputs as InferenceInputs,
    InferenceRequest as InferenceRequest,
)


def kv_cache_bytes_per_token(spec: ModelSpec, *, kv_dtype: str | DType = "bf16") -> int:
    """KV-cache bytes one token adds across the attention layers (before any window or chunk).

    Formula: ``2 (K and V) x attention layers x kv_heads x head_dim x bytes``. With
    multi-head latent attention (DeepSeek-V3) serving engines cache the compressed latent
    and the rotary key instead: ``layers x (kv_lora_rank + qk_rope_head_dim) x bytes``.
    DeepSeek-V3.2's indexer adds one ``index_head_dim`` key per token and layer: in the KV
    dtype (transformers), or with an FP8 cache in FP8 plus one fp32 scale per 128 values as
    DeepSeek's inference code, vLLM and SGLang keep it
    (:meth:`~calculators.model_layers.IndexerSpec.cache_bytes_per_token`).
    Layers without attention (Mamba, linear attention) add nothing per token: they keep a
    fixed state (:func:`recurrent_state_bytes`); nor do layers that read an earlier layer's K
    and V (Gemma 3n's last ``num_kv_shared_layers``): only ``ModelSpec.kv_cache_layers`` count.

    >>> from calculators.catalog.models import get_model
    >>> kv_cache_bytes_per_token(get_model("llama-2-7b"))  # MHA: 32 heads x 128
    524288
    >>> kv_cache_bytes_per_token(get_model("llama-3-8b"))  # GQA: 8 KV heads
    131072
    """
    spec = model_spec("spec", spec)
    return int(spec.kv_cache_layers * _kv_bytes_per_token_per_layer(spec, _kv_kind(kv_dtype)))


def _kv_kind(kv_dtype: str | DType) -> DType:
    return DType.parse(one_of("kv_dtype", kv_dtype.value if isinstance(kv_dtype, DType) else kv_dtype, KV_DTYPES),
                       "kv_dtype")


def _kv_bytes_per_token_per_layer(spec: ModelSpec, kind: DType) -> float:
    # A sparse-attention indexer (DeepSeek-V3.2) caches its own key per token beside the latent.
    indexer = spec.indexer.cache_bytes_per_token(kv_bytes=kind.bytes_per_element) if spec.indexer else 0
    if spec.mla is not None:
        return (spec.mla.kv_lora_rank + spec.mla.qk_rope_head_dim) * kind.bytes_per_element + indexer
    return 2 * spec.kv_dim * kind.bytes_per_element + indexer  # K and V are both cached


def kv_cache_bytes(spec: ModelSpec, *, batch: int, context: int, kv_dtype: str | DType = "bf16") -> int:
    """KV-cache bytes for ``batch`` sequences of ``context`` tokens.

    Formula: ``batch x sum over attention layers of tokens held x per-layer bytes``, where a
    full-attention layer holds ``context`` tokens, a sliding-window layer
    ``min(context, sliding_window)`` (those ``config.layer_types`` marks
    ``sliding_attention``: Gemma 2's local layers, Qwen with ``use_sliding_window``, or every
    layer of a config with a window and no ``layer_types``: Mistral 7B v0.1, Phi-3, as
    ``transformers``' cache does) and a chunked-attention layer (Llama 4)
    ``min(context, attention_chunk_size)``. Recurrent layers hold no KV:
    :func:`recurrent_state_bytes`; layers that share an earlier layer's K and V store none.
    """
    return kv_cache_bytes_at(spec, batch=batch, contexts=(context,), kv_dtype=kv_dtype)[0]


def kv_cache_bytes_at(spec: ModelSpec, *, batch: int, contexts: Sequence[int],
                      kv_dtype: str | DType = "bf16") -> list[int]:
    """:func:`kv_cache_bytes` at each of ``contexts``: the same checks and integers, with the bytes per token and
    layer found once (a decode is timed at up to 64 contexts: :func:`calculators.performance.roofline.decode_contexts`).

    >>> from calculators.catalog.models import get_model
    >>> spec = get_model("gpt-oss-20b")
    >>> kv_cache_bytes_at(spec, batch=2, contexts=[100, 1000]) == [kv_cache_bytes(spec, batch=2, context=c)
    ...                                                           for c in (100, 1000)]
    True
    """
    batch = positive_int("batch", batch, maximum=MAX_BATCH)
    contexts = [positive_int("context", context, maximum=MAX_CONTEXT) for context in contexts]  # >= 1, as every calculator
    per_token_layer = _kv_bytes_per_token_per_layer(model_spec("spec", spec), _kv_kind(kv_dtype))
    return [int(batch * per_token_layer * spec.attention_tokens_held(context, cached_only=True)) for context in contexts]


#: Bytes per element of the recurrent (SSM / delta-rule) state: transformers' torch scans
#: (``torch_chunk_gated_delta_rule``, ``mamba2_chunk_scan``) compute and return it in fp32, and
#: Nemotron-H's config asks serving engines for an fp32 state (``mamba_ssm_cache_dtype``).
RECURRENT_STATE_BYTES = 4


def recurrent_state_bytes(spec: ModelSpec, *, batch: int, activation_bytes: int = 2) -> int:
    """Bytes of the fixed per-sequence state of the linear-attention and Mamba layers (0 without).

    Formula: ``batch x sum over state layers of (conv channels x conv_kernel x activation bytes
    + recurrent state elements x 4)``: the causal convolution keeps its last ``conv_kernel``
    inputs in the activation dtype (transformers' ``LinearAttentionLayer``), the recurrent
    state is fp32 (:data:`RECURRENT_STATE_BYTES`). It does not grow with the context.

    >>> from calculators.model_config import spec_from_config
    >>> spec = spec_from_config({"model_type": "mamba2", "hidden_size": 64, "num_hidden_layers": 2,
    ...     "num_heads": 4, "head_dim": 32, "state_size": 16, "n_groups": 1, "vocab_size": 100})
    >>> recurrent_state_bytes(spec, batch=1)  # 2 x ((128 + 32) x 4 x 2 + 128 x 16 x 4)
    18944
    """
    batch = positive_int("batch", batch, maximum=MAX_BATCH)
    per_sequence = 0
    for mixer, state in (("linear_attention", spec.linear_attention), ("mamba", spec.mamba)):
        layers = spec.count_layers(mixer=mixer)
        if layers and state is not None:
            per_sequence += layers * (state.conv_state_elements * activation_bytes
                                      + state.recurrent_state_elements * RECURRENT_STATE_BYTES)
    return batch * per_sequence


def cache_bytes(spec: ModelSpec, *, batch: int, context: int, kv_dtype: str | DType = "bf16",
                activation_bytes: int = 2) -> int:
    """Everything generation keeps per sequence: the KV cache plus the recurrent layers' state, bytes."""
    return kv_cache_bytes(spec, batch=batch, context=context, kv_dtype=kv_dtype) + recurrent_state_bytes(
        spec, batch=batch, activation_bytes=activation_bytes)


def inference_memory(spec: ModelSpec, **settings: object) -> MemoryEstimate:
    """Peak memory of prefilling ``batch`` prompts of ``context`` tokens and decoding.

    Formula: ``peak = weights + max(KV(context) + prefill transient,
    KV(context + new_tokens) + one layer's cache copy + logits)``.

    Assumes a Hugging Face ``generate()``-style loop: the prompt is processed in one
    forward with logits only for the last position, the cache is a dynamic cache grown
    by concatenation.

    Args:
        spec: model shapes.
        **settings: the keywords of :class:`InferenceInputs` (weights, kv_cache,
            batch, context, new_tokens, attention).
    """
    spec = model_spec("spec", spec)
    setup = InferenceRequest.of(**with_stored_weights(spec, settings))
    return _estimate(spec, setup)


def inference_memory_of(spec: ModelSpec, request: InferenceRequest) -> MemoryEstimate:
    """:func:`inference_memory` of a checked :class:`InferenceRequest` (the record is trusted), bytes.

    >>> from calculators.catalog.models import get_model
    >>> spec = get_model("llama-3-8b")
    >>> request = InferenceRequest.of(batch=2, context=1024, new_tokens=64)
    >>> inference_memory_of(spec, request) == inference_memory(spec, batch=2, context=1024, new_tokens=64)
    True
    """
    return _estimate(spec, request)


def with_stored_weights(spec: ModelSpec, settings: Mapping[str, Any]) -> dict[str, Any]:
    """``settings`` with the weights ``"auto"`` (also when left out) resolved against ``spec``.

    >>> from calculators.catalog.models import get_model
    >>> with_stored_weights(get_model("llama-3-8b"), {"batch": 4})
    {'batch': 4, 'weights': 'bf16'}
    >>> with_stored_weights(get_model("gpt-oss-20b"), {"weights": "auto"})["weights"].id
    'mxfp4'
    """
    weights = settings.get("weights", AUTO)
    if not isinstance(weights, (str, WeightFormat)):
        return dict(settings)  # the setup's check names the bad value
    return {**settings, "weights": resolve_weights(spec, weights) if isinstance(weights, str) else weights}


def _estimate(spec: ModelSpec, setup: InferenceRequest) -> MemoryEstimate:
    weights = weight_bytes(spec, dtype=setup.format)
    act = 4 if setup.weights is DType.FP32 else 2
    text_context = setup.context
    image_tokens = image_prompt_tokens(spec, images=setup.images, image_side_px=setup.image_side_px)
    if image_tokens:
        # The images' tokens sit in the prompt beside the text: they take KV cache and prefill like text.
        setup = replace(setup, context=setup.context + image_tokens)
    tokens = setup.batch * setup.context
    # During prefill every layer holds the whole prompt's K/V: a sliding-window cache layer
    # keeps a view of the full tensor until the first decode step replaces it.
    cross = cross_attention_cache_bytes(spec, batch=setup.batch, images=setup.images, kv_dtype=setup.kv_cache,
                                        image_side_px=setup.image_side_px)
    kv_prefill = setup.batch * setup.context * kv_cache_bytes_per_token(spec, kv_dtype=setup.kv_cache) + cross
    kv_final = kv_cache_bytes(spec, batch=setup.batch, context=setup.total_context, kv_dtype=setup.kv_cache) + cross
    state = recurrent_state_bytes(spec, batch=setup.batch, activation_bytes=act)
    logits = setup.batch * spec.vocab_size * (act + 4)  # last position, then its fp32 copy

    transient = _prefill_transient_bytes(spec, setup, tokens, act)
    workspaces = CUDA_WORKSPACE_BYTES if setup.device == "cuda" else 0
    prefill = weights + kv_prefill + state + transient + logits + 8 * tokens + workspaces
    phases = {"prefill": prefill}
    if setup.new_tokens:
        one_layer_copy = kv_final // max(1, spec.kv_cache_layers) // 2  # torch.cat makes a new K (then V)
        decode = (weights + kv_final + state + one_layer_copy + logits + 8 * setup.batch * setup.total_context
                  + workspaces)
        phases["decode"] = decode
    if image_tokens:
        phases["vision"] = weights + vision_transient_bytes(spec, setup, act) + workspaces
    peak_phase = max(phases, key=lambda name: phases[name])
    peak = phases[peak_phase]
    kv_at_peak = {"prefill": kv_prefill, "decode": kv_final}.get(peak_phase, 0)
    state = state if peak_phase != "vision" else 0
    breakdown = {
        "weights": weights,
        "kv_cache": kv_at_peak,
        "activations_and_logits": peak - weights - kv_at_peak - state - workspaces,
    }
    if state:
        breakdown["recurrent_state"] = state
    if workspaces:
        breakdown["cuda_workspaces"] = workspaces
    block = _prefill_block_bytes(spec, setup, tokens, act)
    overhead = runtime_overhead_bytes(transient_block_bytes=block, prefill=True, allocator=setup.allocator)
    if setup.device != "cuda":
        overhead = {}
    notes = list(spec.notes)
    if setup.format.checkpoint is not None:
        notes.insert(0, stored_weights_note(spec, setup.format.checkpoint))
    if spec.mla is not None:
        notes.append("MLA KV cache counted as the compressed latent (as vLLM, SGLang and transformers 5 store it); "
                     "transformers re-expands one layer's cached sequence to per-head K and V at every step, "
                     "a temporary not modelled here")
    if spec.indexer is not None:
        per_token = spec.indexer.cache_bytes_per_token(kv_bytes=setup.kv_cache.bytes_per_element)
        notes.append(f"the sparse-attention indexer caches one {spec.indexer.head_dim}-wide key per token and layer "
                     f"({per_token} bytes with a {setup.kv_cache.value} cache, as transformers keeps it); vLLM and "
                     f"SGLang keep it in FP8 with an fp32 scale per 128 values "
                     f"({spec.indexer.cache_bytes_per_token(kv_bytes=1)} bytes) whatever the KV dtype")
    if state:
        beside = " beside their KV cache" if spec.state_layers < spec.state_mixer_layers else " instead of a KV cache"
        notes.append(f"{spec.state_mixer_layers} of {spec.num_layers} layers keep a fixed recurrent state{beside} "
                     "(conv state in the activation dtype, recurrent state in fp32): it does not grow with the "
                     "context; their prefill temporaries are those of transformers' PyTorch scans, an upper bound "
                     "with the CUDA kernels (mamba_ssm, causal-conv1d, flash-linear-attention) installed")
    if spec.max_position_embeddings is not None and setup.total_context > spec.max_position_embeddings:
        notes.append(f"context {setup.total_context} exceeds the model's max_position_embeddings "
                     f"{spec.max_position_embeddings}: quality is not guaranteed beyond it")
    if image_tokens:
        notes.append(f"{setup.images} image(s) per sequence of {setup.image_side_px} px become {image_tokens} prompt "
                     f"tokens beside {text_context} of text; the vision tower's forward over them is its own phase")
        notes.extend(spec.notes_for_vision())
    if setup.weights in (DType.INT4, DType.INT8, DType.FP8, DType.NF4):
        notes.append("quantised weights: dequantisation workspaces of the kernels are not counted")
    return MemoryEstimate(
        parameters=spec.parameters,
        trainable_parameters=0,
        active_parameters=spec.active_parameters,
        peak_allocated_bytes=int(peak),
        total_bytes=int(peak + sum(overhead.values())),
        peak_phase=peak_phase,
        breakdown=breakdown,
        phase_peaks={k: int(v) for k, v in phases.items()},
        assumptions=(
            f"weights {setup.format.id}, KV cache {setup.kv_cache.value}, batch {setup.batch}, "
            f"prompt {setup.context} tokens, {setup.new_tokens} new tokens, attention {setup.attention}",
            "one prefill forward over the whole prompt; logits kept for the last position only",
        ) + overhead_assumptions(setup.allocator),
        notes=tuple(notes),
        overhead=overhead,
        uncertainty_bytes=uncertainty_above_total(overhead, transient_block_bytes=block, prefill=True),
        transient_block_bytes=block,
        warnings=spec.warnings,
    )


def image_prompt_tokens(spec: ModelSpec, *, images: int, image_side_px: int = DEFAULT_IMAGE_SIDE_PX) -> int:
    """Prompt tokens ``images`` square images of ``image_side_px`` pixels become in one sequence (0 without images).

    Raises:
        InputError: images are asked of a model without a vision tower.

    >>> from calculators.model_config import spec_from_config
    >>> spec = spec_from_config({"model_type": "qwen2_5_vl", "hidden_size": 64, "num_hidden_layers": 1,
    ...     "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "vision_config": {
    ...     "depth": 1, "hidden_size": 32, "intermediate_size": 64, "out_hidden_size": 64}})
    >>> image_prompt_tokens(spec, images=2, image_side_px=1024)  # round(1024 / 28) = 37 per side
    2738
    """
    if not images:
        return 0
    if spec.vision is None:
        raise InputError("images", images, f"0: {spec.name} has no vision tower (a vision-language config.json "
                                           "holds a vision_config)")
    return images * spec.vision.tokens_per_image(image_side_px)


def cross_attention_cache_bytes(spec: ModelSpec, *, batch: int, images: int, kv_dtype: str | DType = "bf16",
                                image_side_px: int = DEFAULT_IMAGE_SIDE_PX) -> int:
    """K and V the cross-attention layers hold for the images (Llama 3.2 Vision; 0 for other models), bytes.

    Formula: ``batch x images x vision tokens per image x 2 x kv_dim x bytes x cross-attention layers``;
    computed once from the projected vision tokens, it does not grow with the text.
    """
    layers = spec.count_layers(mixer="cross_attention")
    if not layers or not images or spec.vision is None:
        return 0
    tokens = spec.vision.encoder_tokens_per_image(image_side_px)
    return int(batch * images * tokens * layers * _kv_bytes_per_token_per_layer(spec, _kv_kind(kv_dtype)))


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


def _prefill_block_bytes(spec: ModelSpec, setup: InferenceRequest, tokens: int, act: int) -> int:
    """The largest single temporary of the prefill: an MLP intermediate, or the fp32 scores."""
    width = spec.moe.expert_intermediate_size * spec.moe.experts_per_token if spec.moe else spec.intermediate_size
    path = layer_attention_path(spec, attention=setup.attention, compute_bytes=act, seq=setup.context,
                                device=setup.device)
    scores = 4 * setup.batch * spec.num_attention_heads * setup.context ** 2 if path.materialises_scores else 0
    bias = setup.batch * setup.context ** 2 * act if path.explicit_mask else 0  # SDPA's additive mask
    return max(tokens * width * act, scores, bias)


def _prefill_transient_bytes(spec: ModelSpec, setup: InferenceRequest, tokens: int, act: int) -> int:
    """Temporaries of the layer being computed during prefill, in bytes.

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
    path = layer_attention_path(spec, attention=setup.attention, compute_bytes=act, seq=s, device=setup.device)
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


def max_context_for_memory(spec: ModelSpec, *, memory_bytes: int, batch: int = 1, weights: str = AUTO,
                           kv_cache: str = "bf16", attention: str = "sdpa") -> int:
    """Largest prompt length that *fits* ``memory_bytes``: ``total_upper_bytes`` (the total plus its measured
    uncertainty) at most ``memory_bytes``, as :func:`calculators.fit.fit_verdict` decides (0 if none).

    Pass the memory a process can allocate (:func:`calculators.catalog.usable_memory.usable_memory_bytes`),
    not the marketed size.

    >>> from calculators.catalog.models import get_model
    >>> max_context_for_memory(get_model("llama-3-8b"), memory_bytes=24 * 2**30) > 16384
    True
    """
    memory_bytes = positive_int("memory_bytes", memory_bytes, maximum=MAX_MEMORY_BYTES)

    def fits(context: int) -> bool:
        estimate = inference_memory(spec, weights=weights, kv_cache=kv_cache, batch=batch, context=context,
                                    attention=attention)
        return estimate.total_upper_bytes <= memory_bytes

    return largest_fitting(fits, MAX_CONTEXT)


def max_batch_for_memory(spec: ModelSpec, *, memory_bytes: int, context: int, new_tokens: int = 0,
                         weights: str = AUTO, kv_cache: str = "bf16", attention: str = "sdpa") -> int:
    """Largest batch of ``context``-token prompts that *fits* ``memory_bytes`` (``total_upper_bytes``; 0 if none)."""
    memory_bytes = positive_int("memory_bytes", memory_bytes, maximum=MAX_MEMORY_BYTES)

    def fits(batch: int) -> bool:
        estimate = inference_memory(spec, weights=weights, kv_cache=kv_cache, batch=batch, context=context,
                                    new_tokens=new_tokens, attention=attention)
        return estimate.total_upper_bytes <= memory_bytes

    return largest_fitting(fits, MAX_BATCH)


def largest_fitting(fits: Callable[[int], bool], upper: int) -> int:
    """Largest n in [1, upper] with fits(n), assuming fits is monotone; 0 if fits(1) fails.

    >>> largest_fitting(lambda n: n <= 1000, 1 << 20)
    1000
    """
    if not fits(1):
        return 0
    low, high = 1, 1
    while high < upper and fits(min(upper, high * 2)):
        high = min(upper, high * 2)
        low = high
    if high == upper:
        return upper
    high = min(upper, high * 2)
    while high - low > 1:
        mid = (low + high) // 2
        if fits(mid):
            low = mid
        else:
            high = mid
    return low
