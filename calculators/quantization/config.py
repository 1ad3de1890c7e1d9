"""How a quantised checkpoint stores its weights, read from ``config.json``'s ``quantization_config``.

A checkpoint quantised by one of the common toolchains says so in ``quantization_config``:
gpt-oss ships its experts in MXFP4, DeepSeek-V3 in FP8 with one scale per 128 x 128
block, AWQ and GPTQ checkpoints in 4 bits with a 16-bit scale and a packed zero point per
group, llm-compressor (``compressed-tensors``) and NVIDIA ModelOpt in FP8 or NVFP4,
bitsandbytes in NF4 or int8. :func:`calculators.quantization.read_quantization_config` turns that block into one
frozen :class:`CheckpointQuantization`: which modules are quantised, how each stored tensor
is laid out (bits per value, what each scale covers, the scale's bytes, zero points and
per-tensor extras), and which modules stay 16-bit (``modules_to_not_convert``, ``ignore``,
``exclude_modules``, ``llm_int8_skip_modules``). A method or value it does not know is
refused with :class:`~calculators.errors.ConfigError` naming the key: never read as bf16.

The bytes of a whole checkpoint are :func:`calculators.memory.checkpoint_weights.checkpoint_weight_bytes`;
the documents behind each layout are :mod:`calculators.catalog.quantization_formats`.

>>> from calculators.quantization import read_quantization_config
>>> quant = read_quantization_config({"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
...                                   "weight_block_size": [128, 128]}, model_type="deepseek_v3")
>>> quant.describe()
'FP8 (E4M3) with one FP32 scale per 128 x 128 block'
>>> quant.schemes[0].layout.linear_bytes(out_features=7168, in_features=2048)  # 1 byte each + 56 x 16 scales
14683648

References:
    OCP Microscaling Formats (MX) v1.0; NVIDIA, "Introducing NVFP4"; transformers 5.23
    ``integrations/mxfp4.py``, ``integrations/finegrained_fp8.py``, ``integrations/bitsandbytes.py``;
    AutoAWQ ``WQLinear_GEMM``; AutoGPTQ ``QuantLinear``; compressed-tensors ``lifecycle/initialize.py``;
    docs page "Quantisation".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from calculators.dtypes import DType
from calculators.errors import ConfigError

#: How a module name is matched by a pattern of a keep or target list: transformers'
#: ``should_convert_module`` (a regex from the start up to a module boundary, or a suffix),
#: compressed-tensors (``re:`` regexes with ``re.match``, otherwise the exact name or the
#: class ``Linear``), or ModelOpt (shell-style wildcards on the name or a parent module).
Dialect = Literal["transformers", "compressed-tensors", "modelopt"]

#: The quantisation methods read here (``quantization_config.quant_method``).
METHODS = ("mxfp4", "fp8", "awq", "gptq", "bitsandbytes", "compressed-tensors", "modelopt")
#: Largest group or block edge accepted (no toolchain uses more than 1024).
MAX_GROUP = 1 << 16


@dataclass(frozen=True)
class StorageLayout:
    """How one quantised linear weight of ``out x in`` is stored, counted in bytes.

    Attributes:
        bits: bits per stored weight value.
        group: values per scale: along the input dimension of each row, or over the flattened
            tensor when ``flat``; ``None`` when not grouped.
        block: ``(rows, columns)`` covered by one scale (2-D block scales), or ``None``.
        per_channel: one scale per output row (when neither ``group`` nor ``block``).
        scale_bytes: bytes per scale (E8M0 and FP8: 1; FP16/BF16: 2; FP32: 4).
        zero_bits: bits per zero point, one per scale (0: symmetric, none stored).
        tensor_bytes: bytes per quantised tensor besides (global and input scales, shapes, code books).
        input_bytes: bytes per input feature (GPTQ's ``g_idx``).
        flat: groups run over the flattened tensor (bitsandbytes) rather than along each row.
        nested: ``(scales per second-level scale, bytes)`` of double quantisation, or ``None``.
    """

    bits: int
    scale_bytes: int
    group: int | None = None
    block: tuple[int, int] | None = None
    per_channel: bool = False
    zero_bits: int = 0
    tensor_bytes: int = 0
    input_bytes: int = 0
    flat: bool = False
    nested: tuple[int, int] | None = None

    def scales(self, *, out_features: int, in_features: int) -> int:
        """Number of scales of one ``out x in`` weight."""
        if self.block is not None:
            return math.ceil(out_features / self.block[0]) * math.ceil(in_features / self.block[1])
        if self.group is not None:
            if self.flat:
                return math.ceil(out_features * in_features / self.group)
            return out_features * math.ceil(in_features / self.group)
        return out_features if self.per_channel else 1

    def linear_bytes(self, *, out_features: int, in_features: int) -> int:
        """Bytes of one stored ``out x in`` weight: values, scales, zero points and extras.

        Formula: ``ceil(out x in x bits / 8) + scales x scale_bytes + ceil(scales x zero_bits / 8)
        + nested scales + tensor_bytes + in x input_bytes``.

        >>> StorageLayout(bits=4, group=32, scale_bytes=1).linear_bytes(out_features=5760, in_features=2880)
        8812800
        """
        scales = self.scales(out_features=out_features, in_features=in_features)
        nested = math.ceil(scales / self.nested[0]) * self.nested[1] if self.nested else 0
        return (math.ceil(out_features * in_features * self.bits / 8) + scales * self.scale_bytes
                + math.ceil(scales * self.zero_bits / 8) + nested + self.tensor_bytes + in_features * self.input_bytes)

    def bits_per_weight(self, *, out_features: int, in_features: int) -> float:
        """Average bits per weight of one ``out x in`` weight, everything stored included."""
        return 8 * self.linear_bytes(out_features=out_features, in_features=in_features) / (out_features * in_features)


@dataclass(frozen=True)
class QuantScheme:
    """One quantisation scheme of a checkpoint: which modules it applies to and how they are stored.

    Attributes:
        targets: patterns (in the checkpoint's :data:`Dialect`) naming the modules; ``"Linear"``
            is every linear of the decoder and the output head, ``"experts"`` the routed experts.
        layout: how each quantised weight is stored.
        family: the format the kernels see (FP8 runs FP8 matmuls; the 4- and 8-bit integer and
            FP4 formats are weight-only here, dequantised to 16 bits).
        label: the format's name as the reader knows it, e.g. ``"MXFP4"``, ``"AWQ int4 g128"``.
    """

    targets: tuple[str, ...]
    layout: StorageLayout
    family: DType
    label: str


@dataclass(frozen=True)
class CheckpointQuantization:
    """A checkpoint's quantisation as its ``quantization_config`` states it (see :func:`read_quantization_config`).

    Attributes:
        method: ``quant_method`` as written (one of :data:`METHODS`).
        schemes: the quantisation schemes, first match wins.
        keep: patterns of modules kept in 16 bits (the config's list and the library's defaults).
        keep_key: the config key the list came from, for messages.
        dialect: how patterns match module names.
        detail: the layout in words, e.g. ``"one FP32 scale per 128 x 128 block"``.
        refused: ``(key, value, accepted)`` of a ``quantization_config`` this package cannot read
            (:meth:`unreadable`): the model is still read, and sizing its weights as stored is
            refused with that error (:meth:`check_readable`), while an explicit format works.
    """

    method: str
    schemes: tuple[QuantScheme, ...]
    keep: tuple[str, ...]
    keep_key: str
    dialect: Dialect
    detail: str
    refused: tuple[str, Any, str] | None = field(default=None, compare=False)  # the value may be unhashable

    @classmethod
    def unreadable(cls, error: ConfigError) -> CheckpointQuantization:
        """The record of a ``quantization_config`` that ``error`` refused."""
        return cls("", (), (), "", "transformers", "", refused=(error.field.removeprefix("config."), error.value,
                                                               error.accepted))

    def check_readable(self) -> None:
        """Raise the refusal of an unreadable ``quantization_config`` (nothing for a readable one).

        Raises:
            ConfigError: naming the key, with how to size the checkpoint anyway.
        """
        if self.refused is not None:
            key, value, accepted = self.refused
            raise ConfigError(key, value, f"{accepted}; to size this checkpoint anyway, choose a weights format "
                              "instead of auto")

    @property
    def family(self) -> DType:
        """The kernels' format of the widest scheme (FP8 before the 8-bit integers before 4 bits)."""
        order = (DType.FP8, DType.INT8, DType.NF4, DType.INT4)
        return min((scheme.family for scheme in self.schemes), key=order.index, default=DType.BF16)

    @property
    def label(self) -> str:
        """The formats' names, e.g. ``"MXFP4"`` or ``"FP8 + NVFP4"``."""
        return " + ".join(dict.fromkeys(scheme.label for scheme in self.schemes))

    def describe(self) -> str:
        """The storage in one phrase, e.g. ``"MXFP4 (32 E2M1 values + one E8M0 scale)"``."""
        return f"{self.label} {self.detail}".strip()


# --------------------------------------------------------------------------- checked reads
def _key(name: str) -> str:
    return f"quantization_config.{name}"


def _int(config: Mapping[str, Any], name: str, *, allowed: tuple[int, ...] | None = None,
         default: int | None = None, minimum: int = 1, maximum: int = MAX_GROUP) -> int:
    value = config.get(name, default)
    accepted = f"one of {', '.join(map(str, allowed))}" if allowed else f"an integer from {minimum} to {maximum}"
    if isinstance(value, bool) or not isinstance(value, int) or (allowed and value not in allowed) or (
            not allowed and not minimum <= value <= maximum):
        raise ConfigError(_key(name), value, accepted)
    return value


def _bool(config: Mapping[str, Any], name: str, default: bool) -> bool:
    value = config.get(name, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ConfigError(_key(name), value, "true or false")
    return value


def _choice(config: Mapping[str, Any], name: str, choices: tuple[Any, ...], default: Any = None,
            why: str = "") -> Any:
    value = config.get(name, default)
    if isinstance(value, str):
        value = value.lower()
    if value not in choices:
        shown = ", ".join("null" if c is None else str(c) for c in choices)
        raise ConfigError(_key(name), config.get(name, default), f"one of {shown}{why}")
    return value


def patterns(config: Mapping[str, Any], name: str) -> tuple[str, ...]:
    """A list of module-name patterns (``modules_to_not_convert``, ``ignore``...), checked; () when absent."""
    value = config.get(name)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise ConfigError(_key(name), value, "a list of module names or patterns, or null")
    return tuple(item.strip() for item in value)


# --------------------------------------------------------------------------- the methods
def _mxfp4(config: Mapping[str, Any], model_type: str) -> CheckpointQuantization:
    if model_type and model_type != "gpt_oss":
        raise ConfigError(_key("quant_method"), "mxfp4", "a gpt_oss checkpoint: transformers' MXFP4 quantizer "
                          f"converts only gpt-oss experts (model_type is {model_type!r})")
    if _bool(config, "dequantize", False):
        raise ConfigError(_key("dequantize"), True, "false (a checkpoint dequantised at load runs in 16 bits: set "
                          "the weights format to bf16)")
    layout = StorageLayout(bits=4, group=32, scale_bytes=1)  # E2M1 values, one E8M0 byte per 32 (OCP MX)
    return CheckpointQuantization("mxfp4", (QuantScheme(("experts",), layout, DType.INT4, "MXFP4"),),
                                  patterns(config, "modules_to_not_convert"), "modules_to_not_convert",
                                  "transformers", "experts (32 E2M1 values + one E8M0 scale)")


def _fp8(config: Mapping[str, Any], model_type: str) -> CheckpointQuantization:
    # transformers' FineGrainedFP8Config does not read "fmt": checkpoints write it for their readers,
    # DeepSeek-V3 as "e4m3", MiniMax-M2 as torch's dtype name "float8_e4m3fn"; both are E4M3 weights.
    _choice(config, "fmt", ("e4m3", "float8_e4m3fn", None), why=" (FP8 E4M3 weights)")
    if _bool(config, "dequantize", False):
        raise ConfigError(_key("dequantize"), True, "false (a checkpoint dequantised at load runs in 16 bits: set "
                          "the weights format to bf16)")
    static = _choice(config, "activation_scheme", ("dynamic", "static"), default="dynamic") == "static"
    scale_fmt = _choice(config, "scale_fmt", ("float", "ue8m0", None))
    scale_bytes = 1 if scale_fmt == "ue8m0" else 4
    block_value = config.get("weight_block_size")
    block: tuple[int, int] | None = None
    if block_value is not None:
        if (not isinstance(block_value, list) or len(block_value) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= MAX_GROUP
                           for x in block_value)):
            raise ConfigError(_key("weight_block_size"), block_value, "[rows, columns] of one scale, e.g. [128, 128]")
        block = (block_value[0], block_value[1])
    layout = StorageLayout(bits=8, block=block, scale_bytes=scale_bytes, tensor_bytes=4 if static else 0)
    scale = "UE8M0" if scale_bytes == 1 else "FP32"
    detail = (f"with one {scale} scale per {block[0]} x {block[1]} block" if block
              else f"with one {scale} scale per tensor")
    keep = patterns(config, "modules_to_not_convert")
    if config.get("modules_to_not_convert") is None:
        keep = ("lm_head",)  # transformers' default skip: the output embedding
    return CheckpointQuantization("fp8", (QuantScheme(("Linear",), layout, DType.FP8, "FP8 (E4M3)"),), keep,
                                  "modules_to_not_convert", "transformers", detail)


def _awq(config: Mapping[str, Any], model_type: str) -> CheckpointQuantization:
    bits = _int(config, "bits", allowed=(4,), default=config.get("w_bit", 4))
    group = _int(config, "group_size", default=config.get("q_group_size", 128))
    _choice(config, "version", ("gemm", "gemv", None), default="gemm",
            why=" (the GEMM and GEMV layouts store the same bytes)")
    zero = _bool(config, "zero_point", True)
    layout = StorageLayout(bits=bits, group=group, scale_bytes=2, zero_bits=bits if zero else 0)
    # AutoAWQ quantises the linears of the decoder layers only: the output head stays 16-bit.
    keep = ("lm_head", *patterns(config, "modules_to_not_convert"))
    scheme = QuantScheme(("Linear",), layout, DType.INT4, f"AWQ int{bits} g{group}")
    zeros = " and a 4-bit zero" if zero else ""
    return CheckpointQuantization("awq", (scheme,), keep, "modules_to_not_convert", "transformers",
                                  f"(an FP16 scale{zeros} per {group} inputs)")


def _gptq(config: Mapping[str, Any], model_type: str) -> CheckpointQuantization:
    bits = _int(config, "bits", allowed=(2, 3, 4, 8))
    group_value = config.get("group_size", 128)
    group = None if group_value == -1 else _int(config, "group_size", default=128)
    _choice(config, "checkpoint_format", ("gptq", "gptq_v2", None), why=" (the AutoGPTQ layout)")
    if config.get("modules_in_block_to_quantize"):
        raise ConfigError(_key("modules_in_block_to_quantize"), config.get("modules_in_block_to_quantize"),
                          "null (a subset of each block's linears is not modelled)")
    # One group per group_size inputs, or one per column (group_size -1): scales fp16, zeros packed, g_idx int32.
    layout = StorageLayout(bits=bits, group=group, per_channel=group is None, scale_bytes=2, zero_bits=bits,
                           input_bytes=4)
    keep = () if _bool(config, "lm_head", False) else ("lm_head",)
    label = f"GPTQ int{bits} " + (f"g{group}" if group else "per-channel")
    return CheckpointQuantization("gptq", (QuantScheme(("Linear",), layout, DType.INT4 if bits <= 4 else DType.INT8,
                                                       label),),
                                  keep + patterns(config, "modules_to_not_convert"), "modules_to_not_convert",
                                  "transformers", f"(an FP16 scale and a {bits}-bit zero per {group or 'row'} inputs, int32 g_idx)")


def _bitsandbytes(config: Mapping[str, Any], model_type: str) -> CheckpointQuantization:
    four, eight = _bool(config, "load_in_4bit", False), _bool(config, "load_in_8bit", False)
    if four == eight:
        raise ConfigError(_key("load_in_4bit"), config.get("load_in_4bit"),
                          "true with load_in_8bit false, or false with load_in_8bit true")
    keep = patterns(config, "llm_int8_skip_modules")
    if config.get("llm_int8_skip_modules") is None:
        keep = ("lm_head",)  # transformers' default skip: the output embedding
    if eight:
        layout = StorageLayout(bits=8, per_channel=True, scale_bytes=4)  # int8 rows, one FP32 SCB each
        scheme = QuantScheme(("Linear",), layout, DType.INT8, "int8 (LLM.int8)")
        return CheckpointQuantization("bitsandbytes", (scheme,), keep, "llm_int8_skip_modules", "transformers",
                                      "(one FP32 scale per row)")
    kind = _choice(config, "bnb_4bit_quant_type", ("nf4", "fp4"), default="fp4")
    _choice(config, "bnb_4bit_quant_storage", ("uint8", "bfloat16", "float16", "float32", None),
            why=" (packing into another storage type keeps the bytes)")
    double = _bool(config, "bnb_4bit_use_double_quant", False)
    if double:  # one-byte absmax per 64 values, an FP32 absmax per 256 of them; code books of 16 and 256 FP32
        layout = StorageLayout(bits=4, group=64, flat=True, scale_bytes=1, nested=(256, 4), tensor_bytes=(16 + 256) * 4)
    else:
        layout = StorageLayout(bits=4, group=64, flat=True, scale_bytes=4, tensor_bytes=16 * 4)
    scheme = QuantScheme(("Linear",), layout, DType.NF4, kind.upper())
    return CheckpointQuantization("bitsandbytes", (scheme,), keep, "llm_int8_skip_modules", "transformers",
                                  "(blocks of 64, " + ("double-quantised absmax)" if double else "FP32 absmax)"))


def _modelopt(config: Mapping[str, Any], model_type: str) -> CheckpointQuantization:
    algo = config.get("quant_algo")
    algo = algo.upper() if isinstance(algo, str) else algo
    if algo == "FP8":  # FP8 weight, FP32 weight_scale and input_scale scalars
        layout = StorageLayout(bits=8, scale_bytes=4, tensor_bytes=4)
        scheme = QuantScheme(("Linear",), layout, DType.FP8, "FP8 (E4M3)")
        detail = "with one FP32 scale per tensor"
    elif algo == "NVFP4":  # E2M1 pairs, FP8 scale per 16, FP32 weight_scale_2 and input_scale
        _int(config, "group_size", allowed=(16,), default=16)
        layout = StorageLayout(bits=4, group=16, scale_bytes=1, tensor_bytes=8)
        scheme = QuantScheme(("Linear",), layout, DType.INT4, "NVFP4")
        detail = "(16 E2M1 values + one FP8 scale, FP32 scales per tensor)"
    else:
        raise ConfigError(_key("quant_algo"), config.get("quant_algo"), "FP8 or NVFP4 (mixed-precision and other "
                          "ModelOpt algorithms are not modelled)")
    key = "ignore" if "ignore" in config else "exclude_modules"
    # ModelOpt's default configuration leaves the output head and the routers unquantised.
    keep = ("*lm_head*", *patterns(config, key))
    return CheckpointQuantization("modelopt", (scheme,), keep, key, "modelopt", detail)


#: ``quant_method`` -> its reader (compressed-tensors: :mod:`calculators.quantization.compressed_tensors`).
READERS = {"mxfp4": _mxfp4, "fp8": _fp8, "awq": _awq, "gptq": _gptq, "bitsandbytes": _bitsandbytes,
           "modelopt": _modelopt}
