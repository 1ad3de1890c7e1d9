"""Bytes generation keeps per sequence: the KV cache of the attention layers and the fixed state of the
recurrent ones (Mamba, linear attention), and the images' K and V of cross-attention layers.

:func:`~calculators.memory.inference.inference_memory` adds these to the weights and the temporaries of a pass
(:mod:`calculators.memory.prefill`); the speed model reads the same bytes per decode step.

>>> from calculators.catalog.models import get_model
>>> kv_cache_bytes(get_model("llama-3-8b"), batch=1, context=8192, kv_dtype="bf16") / 2**30  # GiB
1.0
"""

from __future__ import annotations

from collections.abc import Sequence

from calculators.dtypes import DType
from calculators.memory.inference_request import KV_DTYPES, MAX_BATCH, MAX_CONTEXT, InferenceRequest
from calculators.model import ModelSpec
from calculators.model_vision import DEFAULT_IMAGE_SIDE_PX
from calculators.validate import model_spec, one_of, positive_int


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


def kv_cache_shards(spec: ModelSpec) -> int:
    """The most GPUs a tensor-parallel split divides the KV cache over: its KV heads (1 for an MLA latent).

    Serving engines split attention by heads. With more GPUs than KV heads each GPU keeps a copy of one
    (vLLM's ``QKVParallelLinear``: ``num_kv_head_replicas = tp_size / total_num_kv_heads`` when the tensor-parallel
    size reaches the KV heads), and multi-head latent attention caches one latent per token that cannot be split by
    heads, so every GPU holds all of it (SGLang's data-parallel attention guide: DeepSeek's MLA "only has one KV
    head"; tensor parallelism on 8 GPUs duplicates the KV cache on all of them). One GPU of ``n`` in tensor
    parallel holds ``cache / min(n, kv_cache_shards)``; a pipeline-parallel split holds ``cache / n``.

    >>> from calculators.catalog.models import get_model
    >>> kv_cache_shards(get_model("llama-3-8b")), kv_cache_shards(get_model("deepseek-v3"))
    (8, 1)

    Sources: vllm/model_executor/layers/linear.py (QKVParallelLinear); https://docs.sglang.io/docs/advanced_features/
    dp_dpa_smg_guide ("The Problem with Tensor Parallelism for MLA Models").
    """
    return _cache_shards(model_spec("spec", spec))


def _cache_shards(spec: ModelSpec) -> int:
    """:func:`kv_cache_shards` of a checked spec."""
    return 1 if spec.mla is not None else max(1, spec.num_kv_heads)


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
    return _recurrent_state_bytes(spec, batch=positive_int("batch", batch, maximum=MAX_BATCH),
                                  activation_bytes=activation_bytes)


def _recurrent_state_bytes(spec: ModelSpec, *, batch: int, activation_bytes: int) -> int:
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


def cross_attention_cache_bytes(spec: ModelSpec, *, batch: int, images: int, kv_dtype: str | DType = "bf16",
                                image_side_px: int = DEFAULT_IMAGE_SIDE_PX) -> int:
    """K and V the cross-attention layers hold for the images (Llama 3.2 Vision; 0 for other models), bytes.

    Formula: ``batch x images x vision tokens per image x 2 x kv_dim x bytes x cross-attention layers``;
    computed once from the projected vision tokens, it does not grow with the text.
    """
    layers = spec.count_layers(mixer="cross_attention")
    if not layers or not images or spec.vision is None:
        return 0
    return _cross_attention_cache_bytes(spec, batch=batch, images=images, kind=_kv_kind(kv_dtype),
                                        image_side_px=image_side_px)


def _cross_attention_cache_bytes(spec: ModelSpec, *, batch: int, images: int, kind: DType, image_side_px: int) -> int:
    layers = spec.count_layers(mixer="cross_attention")
    if not layers or not images or spec.vision is None:
        return 0
    tokens = spec.vision.encoder_tokens_per_image(image_side_px)
    return int(batch * images * tokens * layers * _kv_bytes_per_token_per_layer(spec, kind))


# --------------------------------------------------------------------------- of a checked request
# The memory estimate of a request (:func:`~calculators.memory.inference.inference_memory_of`) asks these for
# a record whose batch, KV dtype and lengths InferenceRequest.of has checked: they do not check them again (a
# fit's search builds hundreds of estimates). The functions above are the public entries, and check.
def kv_cache_bytes_per_token_of(spec: ModelSpec, request: InferenceRequest) -> int:
    """:func:`kv_cache_bytes_per_token` in the checked ``request``'s KV dtype (record and request trusted).

    >>> from calculators.catalog.models import get_model
    >>> kv_cache_bytes_per_token_of(get_model("llama-3-8b"), InferenceRequest.of(weights="bf16", kv_cache="fp8"))
    65536
    """
    return int(spec.kv_cache_layers * _kv_bytes_per_token_per_layer(spec, request.kv_cache))


def kv_cache_bytes_of(spec: ModelSpec, request: InferenceRequest, *, context: int) -> int:
    """:func:`kv_cache_bytes` of the checked ``request``'s batch and KV dtype at ``context`` tokens, which the caller
    keeps within 1 to ``MAX_CONTEXT`` (record and request trusted)."""
    per_token_layer = _kv_bytes_per_token_per_layer(spec, request.kv_cache)
    return int(request.batch * per_token_layer * spec.attention_tokens_held(context, cached_only=True))


def recurrent_state_bytes_of(spec: ModelSpec, request: InferenceRequest, *, activation_bytes: int) -> int:
    """:func:`recurrent_state_bytes` of the checked ``request``'s batch (record and request trusted)."""
    return _recurrent_state_bytes(spec, batch=request.batch, activation_bytes=activation_bytes)


def cross_attention_cache_bytes_of(spec: ModelSpec, request: InferenceRequest) -> int:
    """:func:`cross_attention_cache_bytes` of the checked ``request``'s batch, images and KV dtype (trusted)."""
    return _cross_attention_cache_bytes(spec, batch=request.batch, images=request.images, kind=request.kv_cache,
                                        image_side_px=request.image_side_px)
