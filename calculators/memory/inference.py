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

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from calculators.errors import InputError
from calculators.dtypes import DType
from calculators.memory.overhead import (
    CUDA_WORKSPACE_BYTES,
    overhead_assumptions,
    uncertainty_above_total,
    runtime_overhead_bytes,
)
from calculators.memory.result import MemoryEstimate
from calculators.memory.checkpoint_weights import stored_weights_note
from calculators.memory.weight_formats import AUTO, WeightFormat, resolve_weights
from calculators.memory.weights import weight_bytes
from calculators.model import ModelSpec
from calculators.model_vision import DEFAULT_IMAGE_SIDE_PX
from calculators.validate import model_spec, positive_int

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
# So are the cache (per token, per batch, the recurrent state) and the prefill's temporaries, each a subject of its own.
from calculators.memory.kv_cache import (
    RECURRENT_STATE_BYTES as RECURRENT_STATE_BYTES,
    cache_bytes as cache_bytes,
    cross_attention_cache_bytes as cross_attention_cache_bytes,
    kv_cache_bytes as kv_cache_bytes,
    kv_cache_bytes_at as kv_cache_bytes_at,
    kv_cache_bytes_per_token as kv_cache_bytes_per_token,
    _cache_shards,
    recurrent_state_bytes as recurrent_state_bytes,
    cross_attention_cache_bytes_of,
    kv_cache_bytes_of,
    kv_cache_bytes_per_token_of,
    recurrent_state_bytes_of,
)
from calculators.memory.prefill import (
    _prefill_block_bytes,
    _prefill_transient_bytes,
    prefill_attention_path,
    vision_transient_bytes as vision_transient_bytes,
)


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
    >>> request = InferenceRequest.of(weights="bf16", batch=2, context=1024, new_tokens=64)  # as llama-3-8b stores them
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
    # The request is checked (InferenceRequest.of): its cache is computed without checking it again; only the
    # images' tokens can take the context past the range the request kept it in.
    cross = cross_attention_cache_bytes_of(spec, setup)
    kv_prefill = setup.batch * setup.context * kv_cache_bytes_per_token_of(spec, setup) + cross
    if image_tokens:
        positive_int("context", setup.total_context, maximum=MAX_CONTEXT)
    kv_final = kv_cache_bytes_of(spec, setup, context=setup.total_context) + cross
    state = recurrent_state_bytes_of(spec, setup, activation_bytes=act)
    logits = setup.batch * spec.vocab_size * (act + 4)  # last position, then its fp32 copy

    path = prefill_attention_path(spec, setup, act)  # one reading of the attention path for both prefill figures
    transient = _prefill_transient_bytes(spec, setup, tokens, act, path)
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
    block = _prefill_block_bytes(spec, setup, tokens, act, path)
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
        cache_shards=_cache_shards(spec),
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
