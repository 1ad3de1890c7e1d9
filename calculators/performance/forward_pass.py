"""Work of one forward pass at inference: weight bytes read from memory and FLOPs per token.

These are the two quantities the roofline of :mod:`calculators.performance.inference_speed`
divides by a GPU's bandwidth and rate: a decode step reads the weights its tokens touch
(all of a dense model; the routed experts of a mixture of experts) and does
``2 x matmul parameters`` FLOP per token plus attention over the cache; a prefill does
the same for every prompt token, with the causal attention pairs of the prompt.

>>> from calculators.catalog.models import get_model
>>> spec = get_model("llama-3-8b")
>>> weight_bytes_read(spec, dtype="bf16") == 2 * spec.parameters
True
"""

from __future__ import annotations

from calculators.dtypes import DType
from calculators.memory.inference import MAX_BATCH, MAX_CONTEXT
from calculators.memory.checkpoint_weights import checkpoint_bytes
from calculators.memory.weight_formats import DTYPE_FORMATS, WeightFormat, resolve_weights, weight_format
from calculators.memory.weights import (
    QUANT_OVERHEAD_BYTES_PER_ELEMENT,
    quantized_bytes_per_element,
    weight_bytes,
)
from calculators.model import ModelSpec
from calculators.model_flops import (
    causal_attended_pairs,
    lm_head_parameters,
    matmul_parameters,
)
from calculators.validate import nonnegative_int, positive_int


def _bytes_per_weight(form: WeightFormat, spec: ModelSpec) -> float:
    """Bytes per routed-expert weight in ``form`` (a checkpoint's own format: its experts' bytes as stored)."""
    if form.checkpoint is not None:
        parts = checkpoint_bytes(spec, form.checkpoint)
        return parts.expert_bytes / parts.expert_weights if parts.expert_weights else form.family.bytes_per_element
    if form.id not in DTYPE_FORMATS:
        return form.bytes_per_weight
    if form.family in QUANT_OVERHEAD_BYTES_PER_ELEMENT:
        return quantized_bytes_per_element(form.family)
    return form.family.bytes_per_element


def expert_bytes_read(spec: ModelSpec, *, dtype: str | DType | WeightFormat, tokens: int = 1) -> int:
    """Bytes of routed-expert weights one forward pass over ``tokens`` tokens reads (0 for a dense model).

    Formula: ``moe layers x experts x expert MLP parameters x bytes per weight x
    (1 - (1 - k / E) ** tokens)``: the expected share of experts some token is routed to
    (uniform, independent routing, assumed).

    >>> from calculators.catalog.models import get_model
    >>> expert_bytes_read(get_model("llama-3-8b"), dtype="bf16")
    0
    """
    form = weight_format(resolve_weights(spec, dtype) if isinstance(dtype, str) else dtype)
    tokens = positive_int("tokens", tokens, maximum=MAX_BATCH * MAX_CONTEXT)
    if spec.moe is None:
        return 0
    m = spec.moe
    every_expert = spec.num_moe_layers * m.num_experts * spec.mlp_parameters(m.expert_intermediate_size)
    touched = 1.0 - (1.0 - m.experts_per_token / m.num_experts) ** tokens
    return int(round(every_expert * _bytes_per_weight(form, spec) * touched))


def weight_bytes_read(spec: ModelSpec, *, dtype: str | DType | WeightFormat, tokens: int = 1) -> int:
    """Weight bytes one forward pass over ``tokens`` tokens reads from memory.

    Formula: dense model: all weights (:func:`~calculators.memory.weights.weight_bytes`).
    Mixture of experts: all weights minus the experts no token is routed to; with
    uniform, independent routing of ``k`` of ``E`` experts, a layer's experts are
    touched with probability ``1 - (1 - k / E) ** tokens`` (assumed). One token reads
    the active parameters; a large batch reads every expert.

    >>> from calculators.catalog.models import get_model
    >>> spec = get_model("mixtral-8x7b")
    >>> one = weight_bytes_read(spec, dtype="bf16", tokens=1)
    >>> round(one / 2 / spec.active_parameters, 3)  # two bytes per active parameter
    1.0
    >>> weight_bytes_read(spec, dtype="bf16", tokens=4096) == weight_bytes(spec, dtype="bf16")
    True
    """
    form = weight_format(resolve_weights(spec, dtype) if isinstance(dtype, str) else dtype)
    tokens = positive_int("tokens", tokens, maximum=MAX_BATCH * MAX_CONTEXT)
    total = weight_bytes(spec, dtype=form)
    if spec.moe is None:
        return total
    m = spec.moe
    every_expert = spec.num_moe_layers * m.num_experts * spec.mlp_parameters(m.expert_intermediate_size)
    touched = 1.0 - (1.0 - m.experts_per_token / m.num_experts) ** tokens
    return int(round(total - every_expert * _bytes_per_weight(form, spec) * (1.0 - touched)))


def decode_flops_per_token(spec: ModelSpec, *, context: int) -> float:
    """FLOP to generate one token with ``context`` tokens in the cache.

    Formula: ``2 x matmul parameters (active) + 4 x q_dim x sum over layers of
    min(context, window)`` (QK^T and attention-weighted V, 2 FLOP per multiply-add).

    >>> from calculators.catalog.models import get_model
    >>> spec = get_model("llama-3-8b")
    >>> decode_flops_per_token(spec, context=0) == 2 * (spec.parameters - spec.embedding_parameters)
    True
    """
    context = nonnegative_int("context", context, maximum=MAX_CONTEXT)
    matmuls = matmul_parameters(spec)  # checks the record, once: the attended tokens are the record's own count
    return 2.0 * matmuls + 4.0 * spec.q_dim * spec.attention_tokens_held(context)


def prefill_flops(spec: ModelSpec, *, prompt: int) -> float:
    """FLOP to prefill one prompt of ``prompt`` tokens (one sequence).

    Formula: ``2 x (matmul parameters - LM head) x prompt + 2 x LM head`` (logits for the
    last position only) ``+ 4 x q_dim x causal (query, key) pairs``.
    """
    prompt = positive_int("prompt", prompt, maximum=MAX_CONTEXT)
    body = matmul_parameters(spec) - lm_head_parameters(spec)
    attention = 4.0 * spec.q_dim * causal_attended_pairs(spec, tokens=prompt)
    return 2.0 * body * prompt + 2.0 * lm_head_parameters(spec) + attention
