"""Peak GPU memory of serving a batch: weights, KV cache, prefill activations, logits.

Inference keeps no activations for backward: memory is the weights, the KV cache
(which grows with batch x context) and the temporaries of the one layer being computed.
The prefill of a long prompt adds a per-token transient (the MLP intermediates of one
layer, or the S x S scores with eager attention); decoding adds little beyond the cache.

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
from dataclasses import dataclass
from typing import Any

from calculators.errors import InputError
from calculators.dtypes import DType
from calculators.memory.kernels import DEVICES, layer_attention_path
from calculators.memory.overhead import (
    ALLOCATORS,
    CUDA_WORKSPACE_BYTES,
    overhead_assumptions,
    uncertainty_above_total,
    runtime_overhead_bytes,
)
from calculators.memory.result import MemoryEstimate
from calculators.memory.checkpoint_weights import stored_weights_note
from calculators.memory.weight_formats import AUTO, FORMAT_IDS, WeightFormat, resolve_weights, weight_format
from calculators.memory.weights import weight_bytes
from calculators.model import ModelSpec
from calculators.validate import model_spec, nonnegative_int, one_of, positive_int

#: Weight formats (:mod:`calculators.memory.weight_formats`): ``auto`` (as the checkpoint stores them), DType
#: names, GGUF, GPTQ/AWQ, EXL2 (any exl2-<bits>), MXFP4, NVFP4.
WEIGHT_DTYPES = (AUTO, *FORMAT_IDS)
KV_DTYPES = ("fp32", "bf16", "fp16", "fp8")
ATTENTIONS = ("sdpa", "flash", "eager")
MAX_CONTEXT = 1 << 24
MAX_BATCH = 1 << 16
MAX_MEMORY_BYTES = 1 << 50  # 1 PiB: far beyond any single accelerator


@dataclass(frozen=True)
class InferenceSetup:
    """Validated settings of one inference request (see :func:`inference_memory`)."""

    weights: DType
    kv_cache: DType
    batch: int
    context: int
    new_tokens: int
    attention: str
    device: str = "cuda"
    allocator: str = "default"
    weight_format: str = ""
    stored_format: WeightFormat | None = None  # a checkpoint's own quantisation (weights "auto")

    @property
    def format(self) -> WeightFormat:
        """The weights' format (bits per weight); ``weights`` is its DType family."""
        return self.stored_format or weight_format(self.weight_format or self.weights)

    @property
    def total_context(self) -> int:
        """Tokens the cache holds at the end: prompt plus generated tokens."""
        return self.context + self.new_tokens


def inference_setup(*, weights: str | WeightFormat = AUTO, kv_cache: str = "bf16", batch: int = 1,
                    context: int = 4096, new_tokens: int = 0, attention: str = "sdpa", device: str = "cuda",
                    allocator: str = "default") -> InferenceSetup:
    """Check every inference input; raises :class:`~calculators.errors.InputError`.

    ``weights`` is a format id of :data:`WEIGHT_DTYPES` or ``"auto"``: as the model's checkpoint
    stores them (its ``quantization_config``; bf16 without one), which the estimates resolve
    against the model before they check the rest (:func:`with_stored_weights`); a setup
    checked without a model knows no ``quantization_config``, so its ``"auto"`` is bf16.
    """
    attention = one_of("attention", attention, ATTENTIONS)
    form = weight_format("bf16" if weights == AUTO else weights, strict=True)
    prompt = positive_int("context", context, maximum=MAX_CONTEXT)
    # A prompt has at least 1 token, so at most MAX_CONTEXT - 1 new ones.
    new = nonnegative_int("new_tokens", new_tokens, maximum=MAX_CONTEXT - 1)
    if new > MAX_CONTEXT - prompt:
        raise InputError("new_tokens", new_tokens, f"an integer from 0 to {MAX_CONTEXT - prompt} (context + "
                         f"new_tokens at most {MAX_CONTEXT})")
    return InferenceSetup(
        weights=form.family,
        weight_format=form.id,
        stored_format=form if form.checkpoint is not None else None,
        kv_cache=DType.parse(one_of("kv_cache", kv_cache, KV_DTYPES), "kv_cache"),
        batch=positive_int("batch", batch, maximum=MAX_BATCH),
        context=prompt,
        new_tokens=new,
        attention="sdpa" if attention == "flash" else attention,
        device=one_of("device", device, DEVICES),
        allocator=one_of("allocator", allocator, ALLOCATORS),
    )


def kv_cache_bytes_per_token(spec: ModelSpec, *, kv_dtype: str | DType = "bf16") -> int:
    """KV-cache bytes one token adds across all layers (before any sliding window).

    Formula: ``2 (K and V) x layers x kv_heads x head_dim x bytes``. With multi-head
    latent attention (DeepSeek-V3) serving engines cache the compressed latent and the
    rotary key instead: ``layers x (kv_lora_rank + qk_rope_head_dim) x bytes``.

    >>> from calculators.catalog.models import get_model
    >>> kv_cache_bytes_per_token(get_model("llama-2-7b"))  # MHA: 32 heads x 128
    524288
    >>> kv_cache_bytes_per_token(get_model("llama-3-8b"))  # GQA: 8 KV heads
    131072
    """
    spec = model_spec("spec", spec)
    kind = DType.parse(one_of("kv_dtype", kv_dtype.value if isinstance(kv_dtype, DType) else kv_dtype,
                              KV_DTYPES), "kv_dtype")
    if spec.mla is not None:
        per_layer = (spec.mla.kv_lora_rank + spec.mla.qk_rope_head_dim) * kind.bytes_per_element
    else:
        per_layer = 2 * spec.kv_dim * kind.bytes_per_element  # K and V are both cached
    return int(spec.num_layers * per_layer)


def kv_cache_bytes(spec: ModelSpec, *, batch: int, context: int, kv_dtype: str | DType = "bf16") -> int:
    """KV-cache bytes for ``batch`` sequences of ``context`` tokens.

    Formula: ``batch x sum over layers of min(context, window) x per-layer bytes``;
    layers whose cache is windowed hold at most ``sliding_window`` tokens: those
    ``config.layer_types`` marks ``sliding_attention`` (Gemma 2's local layers, Qwen with
    ``use_sliding_window``), or every layer of a config with a window and no
    ``layer_types`` (Mistral 7B v0.1, Phi-3), as ``transformers``' cache does.
    """
    batch = positive_int("batch", batch, maximum=MAX_BATCH)
    context = positive_int("context", context, maximum=MAX_CONTEXT)  # >= 1, as every calculator
    per_token_all = kv_cache_bytes_per_token(spec, kv_dtype=kv_dtype)
    per_token_layer = per_token_all // spec.num_layers
    windowed = spec.sliding_window_layers if spec.sliding_window else 0
    full_layers = spec.num_layers - windowed
    tokens_windowed = min(context, spec.sliding_window or context)
    return batch * per_token_layer * (full_layers * context + windowed * tokens_windowed)


def inference_memory(spec: ModelSpec, **settings: object) -> MemoryEstimate:
    """Peak memory of prefilling ``batch`` prompts of ``context`` tokens and decoding.

    Formula: ``peak = weights + max(KV(context) + prefill transient,
    KV(context + new_tokens) + one layer's cache copy + logits)``.

    Assumes a Hugging Face ``generate()``-style loop: the prompt is processed in one
    forward with logits only for the last position, the cache is a dynamic cache grown
    by concatenation.

    Args:
        spec: model shapes.
        **settings: keyword arguments of :func:`inference_setup` (weights, kv_cache,
            batch, context, new_tokens, attention).
    """
    spec = model_spec("spec", spec)
    setup = inference_setup(**with_stored_weights(spec, settings))
    return _estimate(spec, setup)


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


def _estimate(spec: ModelSpec, setup: InferenceSetup) -> MemoryEstimate:
    weights = weight_bytes(spec, dtype=setup.format)
    act = 4 if setup.weights is DType.FP32 else 2
    tokens = setup.batch * setup.context
    # During prefill every layer holds the whole prompt's K/V: a sliding-window cache layer
    # keeps a view of the full tensor until the first decode step replaces it.
    kv_prefill = setup.batch * setup.context * kv_cache_bytes_per_token(spec, kv_dtype=setup.kv_cache)
    kv_final = kv_cache_bytes(spec, batch=setup.batch, context=setup.total_context, kv_dtype=setup.kv_cache)
    logits = setup.batch * spec.vocab_size * (act + 4)  # last position, then its fp32 copy

    transient = _prefill_transient_bytes(spec, setup, tokens, act)
    workspaces = CUDA_WORKSPACE_BYTES if setup.device == "cuda" else 0
    prefill = weights + kv_prefill + transient + logits + 8 * tokens + workspaces
    phases = {"prefill": prefill}
    if setup.new_tokens:
        one_layer_copy = kv_final // max(1, spec.num_layers) // 2  # torch.cat makes a new K (then V)
        decode = weights + kv_final + one_layer_copy + logits + 8 * setup.batch * setup.total_context + workspaces
        phases["decode"] = decode
    peak_phase = max(phases, key=lambda name: phases[name])
    peak = phases[peak_phase]
    kv_at_peak = kv_prefill if peak_phase == "prefill" else kv_final
    breakdown = {
        "weights": weights,
        "kv_cache": kv_at_peak,
        "activations_and_logits": peak - weights - kv_at_peak - workspaces,
    }
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
    if spec.max_position_embeddings is not None and setup.total_context > spec.max_position_embeddings:
        notes.append(f"context {setup.total_context} exceeds the model's max_position_embeddings "
                     f"{spec.max_position_embeddings}: quality is not guaranteed beyond it")
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
    )


def _prefill_block_bytes(spec: ModelSpec, setup: InferenceSetup, tokens: int, act: int) -> int:
    """The largest single temporary of the prefill: an MLP intermediate, or the fp32 scores."""
    width = spec.moe.expert_intermediate_size * spec.moe.experts_per_token if spec.moe else spec.intermediate_size
    path = layer_attention_path(spec, attention=setup.attention, compute_bytes=act, seq=setup.context,
                                device=setup.device)
    scores = 4 * setup.batch * spec.num_attention_heads * setup.context ** 2 if path.materialises_scores else 0
    bias = setup.batch * setup.context ** 2 * act if path.explicit_mask else 0  # SDPA's additive mask
    return max(tokens * width * act, scores, bias)


def _prefill_transient_bytes(spec: ModelSpec, setup: InferenceSetup, tokens: int, act: int) -> int:
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
    if spec.moe is not None:
        m = spec.moe
        # transformers' grouped_mm experts sort all tokens x top-k pairs by expert and run
        # them at once: gathered input (h), gate/up output (2 I), activation and product
        # (2 I); later the down output, its weighted copy and the un-permuted copy (3 h).
        pair = max(h + 4 * m.expert_intermediate_size, 4 * h)
        mlp = tokens * act * (streams + m.experts_per_token * pair)
        mlp += tokens * (act + 4) * m.num_experts  # router logits and their fp32 softmax
        mlp += tokens * m.experts_per_token * (4 + 8 + 3 * 8)  # weights, ids, sort indices
        mlp += tokens * act * 3 * m.shared_intermediate_size * m.num_shared_experts
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
    masks = 0
    if eager:
        # A materialised (batch, 1, seq, seq) mask in the activation dtype.
        masks = setup.batch * s * s * act
    elif path.explicit_mask:
        # From the window on SDPA needs a mask: transformers builds it boolean, (1, 1, seq, seq) broadcast
        # over the batch (stride 0), so it holds seq x seq bytes whatever the batch (measured on Gemma 3
        # and Mistral configs).
        masks = s * s
    rotary_tables = 2 * s * spec.head_dim * act  # cos and sin, shared by the batch
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
