"""Bytes of model weights in a given storage format, quantised formats included.

Quantised formats (NF4, int4, int8, fp8) apply to the ``nn.Linear`` weights inside the
decoder layers; the embedding, the output head, norms and biases stay 16-bit, as
bitsandbytes, GPTQ and AWQ do by default.

>>> from calculators.model import ModelSpec
>>> spec = ModelSpec.from_config({"model_type": "llama", "hidden_size": 4096,
...     "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
...     "intermediate_size": 14336, "vocab_size": 128256})
>>> round(weight_bytes(spec, dtype="bf16") / 2**30, 2)
14.96
>>> round(weight_bytes(spec, dtype="nf4") / 2**30, 2)  # embeddings and head stay bf16
5.31
"""

from __future__ import annotations

from calculators.dtypes import DType
from calculators.model import ModelSpec

#: Extra bytes per quantised element for scales and zero points.
#: NF4: 64-value blocks, absmax double-quantised to 8 bits with one fp32 per 256 blocks
#: (QLoRA paper, Dettmers et al. 2023, section 3: 0.127 bits per parameter).
#: int4: GPTQ/AWQ groups of 128 with an fp16 scale and a 4-bit zero point.
QUANT_OVERHEAD_BYTES_PER_ELEMENT: dict[DType, float] = {
    DType.NF4: 1.0 / 64 + 4.0 / (64 * 256),
    DType.INT4: (2.0 + 0.5) / 128,
    DType.INT8: 0.0,
    DType.FP8: 0.0,
}


def quantized_bytes_per_element(dtype: DType) -> float:
    """Bytes per quantised element including scales (e.g. NF4 about 0.516).

    >>> round(quantized_bytes_per_element(DType.NF4) * 8, 3)  # bits per parameter
    4.127
    """
    return dtype.bytes_per_element + QUANT_OVERHEAD_BYTES_PER_ELEMENT.get(dtype, 0.0)


def weight_bytes(spec: ModelSpec, *, dtype: str | DType, high_precision: DType = DType.BF16,
                 parameters: int | None = None) -> int:
    """Bytes of all weights when stored in ``dtype``.

    Formula: 16/32-bit: ``parameters x bytes``; quantised:
    ``linear x bytes_q + (parameters - linear) x bytes_16``.

    Args:
        spec: model shapes.
        dtype: storage format of the weights.
        high_precision: format of the tensors a quantised checkpoint keeps unquantised.
        parameters: count to size (defaults to all of ``spec.parameters``).
    """
    kind = DType.parse(dtype, "weights")
    total = spec.parameters if parameters is None else parameters
    if kind in QUANT_OVERHEAD_BYTES_PER_ELEMENT:
        # Of any count, the embeddings, head and norms stay 16-bit; only the rest is linear.
        unquantized = spec.parameters - spec.linear_parameters
        linear = max(0, total - unquantized)
        return int(round(linear * quantized_bytes_per_element(kind)
                         + (total - linear) * high_precision.bytes_per_element))
    return int(round(total * kind.bytes_per_element))
