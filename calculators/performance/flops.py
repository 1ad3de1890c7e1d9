"""FLOP counts of a transformer per token, and the dense rate a GPU runs them at.

Counts are matrix multiply-adds at 2 FLOP each. Parameters count once per token
(forward ``2 N``, training ``6 N``) except the input embedding, which is a table lookup
with no multiplies (Kaplan et al. 2020 also exclude it); a tied embedding counts once,
as the output head. Attention adds the two products with the cached keys and values:
``2 x 2 x q_dim`` FLOP per layer per attended token in the forward pass.

>>> from calculators.catalog.models import get_model
>>> spec = get_model("llama-2-7b")
>>> matmul_parameters(spec)  # 6.74B minus the 131M-entry embedding table
6607343616
>>> attended_tokens(spec, context=4096) == 32 * 4096
True
"""

from __future__ import annotations

from calculators.catalog.gpus import GPU
from calculators.dtypes import DType
from calculators.model import ModelSpec
from calculators.validate import model_spec


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
    """Attention window of each layer in tokens (``None`` = the whole context)."""
    windowed = spec.sliding_window_layers if spec.sliding_window else 0
    return [spec.sliding_window] * windowed + [None] * (spec.num_layers - windowed)


def attended_tokens(spec: ModelSpec, *, context: int) -> int:
    """Cached tokens one new token attends to, summed over layers (layer-tokens).

    Formula: ``sum over layers of min(context, window)``; layers without a window see
    the whole context.
    """
    spec = model_spec("spec", spec)
    return sum(context if w is None else min(context, w) for w in _windows(spec))


def causal_attended_pairs(spec: ModelSpec, *, tokens: int) -> int:
    """(query, key) pairs a causal prompt of ``tokens`` computes, summed over layers.

    Formula per layer: ``sum_{t=1..S} min(t, window)`` = ``S (S + 1) / 2`` without a window.

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
    return total


def compute_rate_flop_per_s(gpu: GPU, dtype: DType) -> float | None:
    """Dense tensor rate a GPU runs matrix multiplies at for a format, FLOP/s (``None`` = unknown).

    fp32 uses the non-tensor FP32 rate; fp8 the FP8 tensor rate where the GPU has one;
    every other format (bf16, fp16, and weight-only int8/int4/nf4, which are
    dequantised to 16 bits before the multiply) the BF16 rate, else the FP16 one.

    >>> from calculators.catalog.gpus import get_gpu
    >>> compute_rate_flop_per_s(get_gpu("h100-sxm"), DType.FP8) / 1e12
    1978.9
    >>> compute_rate_flop_per_s(get_gpu("t4"), DType.BF16) / 1e12  # no BF16: FP16 rate
    65.0
    """
    if dtype is DType.FP32:
        return gpu.fp32_flop_per_s
    if dtype is DType.FP8 and gpu.fp8_dense_flop_per_s:
        return gpu.fp8_dense_flop_per_s
    return gpu.bf16_dense_flop_per_s or gpu.fp16_dense_flop_per_s
