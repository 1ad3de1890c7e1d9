"""Weight formats by bits per weight: the 16-bit and 8-bit types, GGUF, GPTQ/AWQ, EXL2, NF4, MXFP4, NVFP4 and MLX's
affine formats.

A format is named by what a checkpoint file holds, and sized by its bits per weight
with every scale and zero point counted. Two scopes:

* ``"linear"``: only the ``nn.Linear`` weights of the decoder layers are quantised; the
  embedding, the output head, norms and biases stay 16-bit (bitsandbytes, GPTQ, AWQ,
  EXL2 and the fp8/int8 checkpoints do this).
* ``"all"``: the figure is the whole file's average over every tensor (GGUF: llama.cpp
  quantises the embeddings too and keeps the output tensor at a higher type, and its
  own table publishes the file average).

A third kind of format is the checkpoint's own (``"auto"``, :data:`AUTO`): the weights as the
model's ``quantization_config`` stores them, module by module (gpt-oss: MXFP4 experts and
bf16 elsewhere), bf16 when the config says nothing (:func:`stored_format`).

Bytes read per decoded token follow the format, so the same ids size memory
(:func:`calculators.memory.weights.weight_bytes`) and speed
(:func:`calculators.performance.forward_pass.weight_bytes_read`).

>>> weight_format("q4_k_m").bits_per_weight
4.8944
>>> round(weight_format("gptq-int4-g32").bits_per_weight, 3)  # 4 + (16-bit scale + 4-bit zero) / 32
4.625
>>> weight_format("exl2-4.65").bits_per_weight
4.65
>>> weight_format("mlx-q4").bits_per_weight  # 4 + (16-bit scale + 16-bit bias) / 64
4.5
>>> weight_format("q4_k_m").family.value  # what the kernels count as: a 4-bit weight-only format
'int4'

References:
    llama.cpp tools/quantize/README.md (bits/weight of each GGUF type on Llama-3.1-8B);
    ggml/src/ggml-common.h (block layouts); exllamav2 README (EXL2 bitrates); Dettmers et
    al. 2023 (NF4); OCP Microscaling Formats v1.0 (MXFP4); NVIDIA, "Introducing NVFP4"; docs
    page "Quantisation".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from calculators.catalog.sources import Source
from calculators.dtypes import DType
from calculators.errors import InputError
from calculators.catalog.quantization_formats import METHOD_SOURCES, NVFP4_BLOG, OCP_MX

if TYPE_CHECKING:  # imported where used: the model imports this package
    from calculators.quantization.config import CheckpointQuantization
    from calculators.model import ModelSpec

Scope = Literal["linear", "all"]

_READ = "2026-11-25"
QUANTIZE_README = Source(
    "llama.cpp, tools/quantize/README.md, 'Quantization' table for meta-llama/Llama-3.1-8B: bits/weight of each "
    "quant type over the whole GGUF file",
    "https://github.com/ggml-org/llama.cpp/blob/311c2c9f0ebd6e08f5b20e8827c654cebb7a41d6/tools/quantize/README.md",
    _READ, kind="measured")
GGML_COMMON = Source(
    "llama.cpp, ggml/src/ggml-common.h: block_q4_0 is one fp16 scale and 32 four-bit values (18 bytes per 32 "
    "weights); block_q8_0 one fp16 scale and 32 int8 values (34 bytes per 32 weights)",
    "https://github.com/ggml-org/llama.cpp/blob/master/ggml/src/ggml-common.h", _READ, kind="spec")
EXL2_README = Source(
    "turboderp/exllamav2 README, 'EXL2 quantization': mixes 2, 3, 4, 5, 6 and 8-bit levels to reach any average "
    "bitrate between 2 and 8 bits per weight",
    "https://github.com/turboderp/exllamav2/blob/01d01a14feb2a3dc40a9c3a9aafbf581984bab36/README.md", _READ)
GPTQ_LAYOUT = Source(
    "GPTQ/AWQ group quantisation (AutoGPTQ, AutoAWQ checkpoints): per group of g weights one fp16 scale and one "
    "packed 4-bit zero point", "https://arxiv.org/abs/2210.17323", "2022-10-31", kind="derived")
NF4_PAPER = Source(
    "Dettmers et al. 2023, QLoRA (arXiv:2305.14314), section 3: NF4 in 64-weight blocks, double quantisation: "
    "0.127 bits per parameter of constants", "https://arxiv.org/abs/2305.14314", "2023-05-23", kind="derived")
STORAGE = Source("IEEE 754 / OCP FP8 (E4M3) storage sizes: 32, 16 and 8 bits per value",
                 "https://www.opencompute.org/documents/ocp-8-bit-floating-point-specification-ofp8-revision-1-0-2023-12-01-pdf-1",
                 "2023-12-01")

#: The weights option that sizes a checkpoint as its ``quantization_config`` stores it (bf16 without one).
AUTO = "auto"
#: What a weights field accepts where no model is known: :data:`AUTO` is refused there, never read as bf16.
AUTO_NEEDS_MODEL = ("a format such as bf16, fp8, int4 or mxfp4 ('auto' needs a model to read its checkpoint format "
                    "from: give the model, or the format its checkpoint stores)")
MLX_AFFINE = Source(
    "ml-explore/mlx, python/mlx/nn/layers/quantized.py: nn.quantize replaces every Linear and Embedding layer; "
    "'affine' mode defaults to groups of 64 weights at 4 bits, each group with a scale and a bias "
    "(mx.quantize returns weight, scales, biases), stored in the model's 16-bit type",
    "https://github.com/ml-explore/mlx/blob/0154acf14b09e3c800f5bb4a63e762cc9b30975e/python/mlx/nn/layers/quantized.py",
    "2026-11-29", kind="spec")
#: Bit widths of the MLX affine checkpoints (mlx-community's 4-, 5-, 6- and 8-bit conversions).
MLX_BITS = (4, 5, 6, 8)

#: EXL2's stated range of average bits per weight.
EXL2_MIN_BITS, EXL2_MAX_BITS = 2.0, 8.0
#: Group sizes offered for GPTQ/AWQ int4.
GROUP_SIZES = (32, 64, 128)


@dataclass(frozen=True)
class WeightFormat:
    """A checkpoint's weight format: bits per weight (scales included) and where they apply.

    Attributes:
        id: the name the calculators take, e.g. ``"q4_k_m"``, ``"gptq-int4-g128"``, ``"exl2-4.0"``.
        family: the :class:`~calculators.dtypes.DType` the kernels work in: fp8 runs fp8
            matmuls; the 4- and 8-bit integer formats are weight-only (16-bit matmuls).
        bits_per_weight: storage bits per weight, scales and zero points included.
        scope: ``"linear"`` (decoder linear layers only) or ``"all"`` (file average).
        source: where the bits per weight come from.
        checkpoint: a checkpoint's own quantisation (:func:`stored_format`), sized module by
            module; ``bits_per_weight`` is then the average over its quantised weights.
    """

    id: str
    family: DType
    bits_per_weight: float
    scope: Scope
    source: Source
    checkpoint: CheckpointQuantization | None = None

    @property
    def bytes_per_weight(self) -> float:
        """Bytes per weight in its scope (``bits_per_weight / 8``)."""
        return self.bits_per_weight / 8.0

    @property
    def is_gguf(self) -> bool:
        """True for the llama.cpp GGUF types."""
        return self.id in GGUF_TYPES


def _gptq(group: int) -> float:
    return 4.0 + (16.0 + 4.0) / group


def _mlx(bits: int, group: int) -> WeightFormat:
    """MLX affine quantisation: ``bits`` per weight plus a 16-bit scale and a 16-bit bias per ``group`` weights,
    on every Linear and Embedding layer (:data:`MLX_AFFINE`); ``mlx-q4`` is the default group of 64."""
    name = f"mlx-q{bits}" if group == 64 else f"mlx-q{bits}-g{group}"
    return WeightFormat(name, DType.INT4 if bits <= 5 else DType.INT8, bits + 32.0 / group, "all", MLX_AFFINE)


GGUF_TYPES = ("q4_0", "q4_k_m", "q5_k_m", "q6_k", "q8_0")

_FORMATS: dict[str, WeightFormat] = {f.id: f for f in (
    WeightFormat("fp32", DType.FP32, 32.0, "all", STORAGE),
    WeightFormat("bf16", DType.BF16, 16.0, "all", STORAGE),
    WeightFormat("fp16", DType.FP16, 16.0, "all", STORAGE),
    WeightFormat("fp8", DType.FP8, 8.0, "linear", STORAGE),
    WeightFormat("int8", DType.INT8, 8.0, "linear", STORAGE),
    # The package's historical "int4" is GPTQ/AWQ with groups of 128.
    WeightFormat("int4", DType.INT4, _gptq(128), "linear", GPTQ_LAYOUT),
    WeightFormat("nf4", DType.NF4, 4.0 + 8.0 / 64 + 32.0 / (64 * 256), "linear", NF4_PAPER),
    # 4-bit floats with block scales; the kernels here dequantise them to 16 bits (weight-only).
    WeightFormat("mxfp4", DType.INT4, 4.0 + 8.0 / 32, "linear", OCP_MX),  # one E8M0 byte per 32 E2M1 values
    WeightFormat("nvfp4", DType.INT4, 4.0 + 8.0 / 16, "linear", NVFP4_BLOG),  # one FP8 byte per 16 (+ FP32/tensor)
    WeightFormat("q4_0", DType.INT4, 18 * 8 / 32, "all", GGML_COMMON),
    WeightFormat("q4_k_m", DType.INT4, 4.8944, "all", QUANTIZE_README),
    WeightFormat("q5_k_m", DType.INT4, 5.7036, "all", QUANTIZE_README),
    WeightFormat("q6_k", DType.INT8, 6.5633, "all", QUANTIZE_README),
    WeightFormat("q8_0", DType.INT8, 8.5008, "all", QUANTIZE_README),
    *(WeightFormat(f"gptq-int4-g{g}", DType.INT4, _gptq(g), "linear", GPTQ_LAYOUT) for g in GROUP_SIZES),
    *(WeightFormat(f"awq-int4-g{g}", DType.INT4, _gptq(g), "linear", GPTQ_LAYOUT) for g in GROUP_SIZES),
    *(_mlx(bits, group) for bits in MLX_BITS for group in (64, 32)),
)}

#: The format ids that are plain :class:`~calculators.dtypes.DType` names (sized by the DType table).
DTYPE_FORMATS = frozenset(kind.value for kind in DType)
#: EXL2 bitrates offered as choices (any value from 2 to 8 is accepted as ``exl2-<bits>``).
EXL2_CHOICES = ("exl2-2.5", "exl2-3.0", "exl2-4.0", "exl2-4.65", "exl2-5.0", "exl2-6.0", "exl2-8.0")
#: Every format id the calculators list (choices of the CLI help and the widgets).
FORMAT_IDS: tuple[str, ...] = (*_FORMATS, *EXL2_CHOICES)

_EXL2 = re.compile(r"exl2-(\d+(?:\.\d+)?)(?:bpw)?")


def weight_format(value: str | DType | WeightFormat, field: str = "weights", *, strict: bool = False) -> WeightFormat:
    """The :class:`WeightFormat` named ``value`` (a format id, a DType or its PyTorch spelling).

    ``strict``: a string must be a format id exactly as listed (or ``exl2-<bits>``): what
    user input is checked against, so ``"BF16 "`` is refused there as elsewhere.

    Raises:
        InputError: an unknown name, ``"auto"`` (which only a model resolves: :func:`resolve_weights`), or an
            EXL2 bitrate outside 2 to 8 bits per weight.

    >>> weight_format("bfloat16").id
    'bf16'
    >>> weight_format("auto")
    Traceback (most recent call last):
    ...
    calculators.errors.InputError: weights: got 'auto'; expected a format such as bf16, fp8, int4 or mxfp4 ('auto' needs a model to read its checkpoint format from: give the model, or the format its checkpoint stores)
    >>> weight_format("exl2-9")
    Traceback (most recent call last):
    ...
    calculators.errors.InputError: weights: got 'exl2-9'; expected an EXL2 bitrate from 2 to 8 bits per weight (e.g. exl2-4.0)
    """
    if isinstance(value, WeightFormat):
        return value
    if value == AUTO:  # only a model resolves it (resolve_weights), which this function is not given
        raise InputError(field, value, AUTO_NEEDS_MODEL)
    if isinstance(value, DType):
        return _FORMATS[value.value]
    key = str(value) if strict else str(value).strip().lower()
    if key in _FORMATS:
        return _FORMATS[key]
    match = _EXL2.fullmatch(key)
    if match:
        bits = float(match.group(1))
        if not EXL2_MIN_BITS <= bits <= EXL2_MAX_BITS:
            raise InputError(field, value, f"an EXL2 bitrate from {EXL2_MIN_BITS:g} to {EXL2_MAX_BITS:g} bits per "
                             "weight (e.g. exl2-4.0)")
        text = f"{bits:.2f}".rstrip("0")
        return WeightFormat(f"exl2-{text}0" if text.endswith(".") else f"exl2-{text}", DType.INT4, bits, "linear",
                            EXL2_README)
    try:
        if strict:
            raise InputError(field, value, "a format id")
        return _FORMATS[DType.parse(key, field).value]
    except InputError:
        raise InputError(field, value, f"one of {', '.join(FORMAT_IDS)} (or exl2-<bits> from 2 to 8)") from None


def stored_format(spec: ModelSpec, *, sixteen_bit: str = "bf16") -> WeightFormat:
    """The format of ``spec``'s weights as its checkpoint stores them: its ``quantization_config``, else 16-bit.

    Raises:
        ConfigError: the ``quantization_config`` is not one this package reads (naming its key).

    >>> from calculators.catalog.models import get_model
    >>> stored_format(get_model("llama-3-8b")).id
    'bf16'
    >>> form = stored_format(get_model("gpt-oss-20b"))
    >>> form.id, form.family.value, round(form.bits_per_weight, 2)  # MXFP4 experts: 4.25 bits with scales
    ('mxfp4', 'int4', 4.25)
    """
    quant = spec.quantization
    if quant is None:
        return _FORMATS[sixteen_bit]
    quant.check_readable()  # a quantization_config this package cannot read: refused, never read as bf16
    from calculators.memory.checkpoint_weights import checkpoint_bytes

    parts = checkpoint_bytes(spec, quant)
    bits = 8 * parts.quantized_bytes / parts.quantized_weights if parts.quantized_weights else 16.0
    ident = re.sub(r" \(.*?\)", "", quant.label.lower()).replace(" + ", "+").replace(" ", "-")
    return WeightFormat(ident, quant.family, bits, "linear", METHOD_SOURCES[quant.method], checkpoint=quant)


def resolve_weights(spec: ModelSpec, weights: str | DType | WeightFormat) -> str | DType | WeightFormat:
    """``weights``, with :data:`AUTO` replaced by :func:`stored_format` of ``spec`` (its id when not quantised).

    >>> from calculators.catalog.models import get_model
    >>> resolve_weights(get_model("llama-3-8b"), "auto"), resolve_weights(get_model("llama-3-8b"), "int4")
    ('bf16', 'int4')
    """
    if weights == AUTO:
        form = stored_format(spec)
        return form if form.checkpoint is not None else form.id
    return weights
