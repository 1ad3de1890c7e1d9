"""Bytes of model weights in a given storage format, quantised formats included.

Quantised formats (NF4, int4, int8, fp8, MXFP4, NVFP4) apply to the ``nn.Linear`` weights
inside the decoder layers; the embedding, the output head, norms and biases stay 16-bit, as
bitsandbytes, GPTQ and AWQ do by default. ``"auto"`` sizes the weights as the checkpoint's
``quantization_config`` stores them, module by module
(:mod:`calculators.memory.checkpoint_weights`), and as bf16 when the config has none.

>>> from calculators.model_config import spec_from_config
>>> spec = spec_from_config({"model_type": "llama", "hidden_size": 4096,
...     "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
...     "intermediate_size": 14336, "vocab_size": 128256})
>>> round(weight_bytes(spec, dtype="bf16") / 2**30, 2)
14.96
>>> round(weight_bytes(spec, dtype="nf4") / 2**30, 2)  # embeddings and head stay bf16
5.31
"""

from __future__ import annotations

from calculators.dtypes import DType
from calculators.quantization.config import CheckpointQuantization, QuantScheme, StorageLayout
from calculators.memory.checkpoint_weights import checkpoint_bytes, checkpoint_weight_bytes
from calculators.memory.weight_formats import DTYPE_FORMATS, WeightFormat, resolve_weights, weight_format
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


def weight_bytes(spec: ModelSpec, *, dtype: str | DType | WeightFormat, high_precision: DType = DType.BF16,
                 parameters: int | None = None) -> int:
    """Bytes of all weights when stored in ``dtype`` (a DType or a weight-format id).

    Formula: 16/32-bit: ``parameters x bytes``; quantised:
    ``linear x bytes_q + (parameters - linear) x bytes_16``; a format whose bits per
    weight are a whole-file average (GGUF, :mod:`calculators.memory.weight_formats`):
    ``parameters x bits / 8``; the checkpoint's own quantisation (``"auto"`` on a model
    with a ``quantization_config``): each module as stored
    (:func:`~calculators.memory.checkpoint_weights.checkpoint_weight_bytes`).

    Args:
        spec: model shapes.
        dtype: storage format of the weights: a :class:`~calculators.dtypes.DType` name,
            a format id such as ``"q4_k_m"``, ``"gptq-int4-g32"``, ``"mxfp4"`` or ``"exl2-4.0"``,
            or ``"auto"``: as the checkpoint stores them.
        high_precision: format of the tensors a quantised checkpoint keeps unquantised.
        parameters: count to size (defaults to all of ``spec.parameters``).

    >>> from calculators.catalog.models import get_model
    >>> round(weight_bytes(get_model("llama-3.1-8b"), dtype="q4_k_m") / 2**30, 2)  # llama.cpp's table: 4.58 GiB
    4.58
    """
    form = weight_format(resolve_weights(spec, dtype) if isinstance(dtype, str) else dtype)
    kind = form.family
    total = spec.parameters if parameters is None else parameters
    if form.checkpoint is not None:
        if parameters is None:
            return checkpoint_weight_bytes(spec, form.checkpoint, high_precision=high_precision)
        # Of any count, what the checkpoint keeps 16-bit is counted first; the rest is quantised on average.
        parts = checkpoint_bytes(spec, form.checkpoint, high_precision)
        linear = max(0, total - (spec.parameters - parts.quantized_weights))
        return int(round(linear * form.bytes_per_weight + (total - linear) * high_precision.bytes_per_element))
    if form.id not in DTYPE_FORMATS:
        if form.scope == "all":  # a whole-file average (GGUF)
            return int(round(total * form.bytes_per_weight))
        unquantized = spec.parameters - spec.linear_parameters
        linear = max(0, total - unquantized)
        return int(round(linear * form.bytes_per_weight + (total - linear) * high_precision.bytes_per_element))
    if kind in QUANT_OVERHEAD_BYTES_PER_ELEMENT:
        # Of any count, the embeddings, head and norms stay 16-bit; only the rest is linear.
        unquantized = spec.parameters - spec.linear_parameters
        linear = max(0, total - unquantized)
        return int(round(linear * quantized_bytes_per_element(kind)
                         + (total - linear) * high_precision.bytes_per_element))
    return int(round(total * kind.bytes_per_element))


#: MXFP4 (OCP Microscaling): 32 four-bit E2M1 values share one 8-bit E8M0 scale, 4.25 bits each.
MXFP4_BYTES_PER_ELEMENT = (32 * 0.5 + 1) / 32
#: gpt-oss's ``quantization_config``: MXFP4 experts (transformers converts only those).
MXFP4_EXPERTS = CheckpointQuantization(
    "mxfp4", (QuantScheme(("experts",), StorageLayout(bits=4, group=32, scale_bytes=1), DType.INT4, "MXFP4"),), (),
    "modules_to_not_convert", "transformers", "experts (32 E2M1 values + one E8M0 scale)")


def mxfp4_expert_weight_bytes(spec: ModelSpec, *, high_precision: DType = DType.BF16) -> int:
    """Bytes of a MoE checkpoint whose expert matrices are MXFP4 and every other tensor 16-bit.

    Formula: ``expert_matrices x 17/32 + (parameters - expert_matrices) x 2``, where
    ``expert_matrices = moe_layers x experts x 3 x hidden x expert_width`` (gate, up,
    down; their biases, the router, attention, norms and embeddings stay 16-bit). This is
    how OpenAI publishes gpt-oss: the checkpoint sizing of
    :func:`~calculators.memory.checkpoint_weights.checkpoint_weight_bytes` with gpt-oss's
    ``quantization_config`` (:data:`MXFP4_EXPERTS`).

    Args:
        spec: a mixture-of-experts model.
        high_precision: format of every tensor that is not an expert matrix.

    Raises:
        InputError: the model has no experts.

    >>> from calculators.catalog.models import get_model
    >>> round(mxfp4_expert_weight_bytes(get_model("gpt-oss-20b")) / 2**30, 1)  # model card: 12.8 GiB
    12.8
    """
    if spec.moe is None:
        from calculators.errors import InputError

        raise InputError("model", spec.name, "a mixture-of-experts model (MXFP4 here applies to expert weights)")
    return checkpoint_weight_bytes(spec, MXFP4_EXPERTS, high_precision=high_precision)
