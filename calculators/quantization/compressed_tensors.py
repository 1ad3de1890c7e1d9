"""The ``compressed-tensors`` form of ``quantization_config`` (llm-compressor, vLLM): one or more schemes.

A compressed-tensors checkpoint lists ``config_groups``, each with the modules it
``targets`` (the class ``Linear`` or ``re:`` regexes) and how their ``weights`` are stored
(``num_bits``, ``type`` int or float, ``strategy`` tensor / channel / group / block /
tensor_group, ``group_size`` or ``block_structure``, ``symmetric``), plus ``ignore`` (the
modules left 16-bit) and the on-disk ``format`` (``pack-quantized`` packs int4 into int32
and adds the weight's shape; ``float-quantized`` stores FP8; ``nvfp4-pack-quantized`` pairs
of E2M1 with FP8 scales and an FP32 global scale). The scale shapes and dtypes are those
of compressed-tensors' ``initialize_qparams`` (:data:`~calculators.catalog.quantization_formats.COMPRESSED_TENSORS`).

>>> quant = read_compressed_tensors({"quant_method": "compressed-tensors", "format": "pack-quantized",
...     "ignore": ["lm_head"], "quantization_status": "compressed",
...     "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
...         "strategy": "group", "group_size": 128, "symmetric": True, "dynamic": False}}}})
>>> quant.label, quant.schemes[0].layout.linear_bytes(out_features=4096, in_features=4096)
('int4 g128', 8650768)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from calculators.dtypes import DType
from calculators.errors import ConfigError
from calculators.quantization.config import (
    MAX_GROUP,
    CheckpointQuantization,
    QuantScheme,
    StorageLayout,
    patterns,
)

#: On-disk formats read here (``format`` of the config or of a group).
FORMATS = ("pack-quantized", "float-quantized", "int-quantized", "naive-quantized", "nvfp4-pack-quantized",
           "mxfp4-pack-quantized")
STRATEGIES = ("tensor", "channel", "group", "block", "tensor_group")
#: Bytes of a scale stored in the named dtype (``scale_dtype``).
_SCALE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "float8_e4m3fn": 1, "uint8": 1, "float8_e8m0fnu": 1}


def _where(group: str, name: str) -> str:
    return f"quantization_config.config_groups.{group}.{name}"


def read_compressed_tensors(config: Mapping[str, Any]) -> CheckpointQuantization:
    """The :class:`~calculators.memory.checkpoint_quantization.CheckpointQuantization` of a compressed-tensors config.

    Raises:
        ConfigError: a checkpoint not stored compressed, sparsity or transforms, a format,
            strategy or bit width not read here, a group without targets; naming the key.
    """
    status = config.get("quantization_status", "compressed")
    if status != "compressed":
        raise ConfigError("quantization_config.quantization_status", status,
                          "'compressed' (a 'frozen' checkpoint stores 16-bit weights: set the weights format by hand)")
    for key in ("sparsity_config", "transform_config"):
        if config.get(key):
            raise ConfigError(f"quantization_config.{key}", config.get(key),
                              "null (sparse and transformed checkpoints are not modelled)")
    groups = config.get("config_groups")
    if not isinstance(groups, Mapping) or not groups:
        raise ConfigError("quantization_config.config_groups", groups, "a non-empty object of quantisation groups")
    top_format = config.get("format")
    read = (_scheme(str(name), group, top_format) for name, group in groups.items())
    schemes = tuple(scheme for scheme in read if scheme is not None)
    if not schemes:
        raise ConfigError("quantization_config.config_groups", groups, "at least one group that quantises weights")
    details = "; ".join(f"{s.label} on {', '.join(s.targets)}" for s in schemes) if len(schemes) > 1 else ""
    return CheckpointQuantization("compressed-tensors", schemes, patterns(config, "ignore"), "ignore",
                                  "compressed-tensors", f"({details})" if details else "")


def _scheme(name: str, group: Any, top_format: Any) -> QuantScheme | None:
    if not isinstance(group, Mapping):
        raise ConfigError(_where(name, ""), group, "an object with targets and weights")
    targets = group.get("targets")
    if not isinstance(targets, list) or not targets or not all(isinstance(t, str) and t for t in targets):
        raise ConfigError(_where(name, "targets"), targets, "a non-empty list of module names, 're:' regexes or Linear")
    for target in targets:
        if not target.startswith("re:") and target[:1].isupper() and target != "Linear":
            raise ConfigError(_where(name, "targets"), target, "Linear, a module name or a 're:' regex (other "
                              "module classes are not modelled)")
    weights = group.get("weights")
    if weights is None:
        return None  # activations or the KV cache only: the weights stay 16-bit
    if not isinstance(weights, Mapping):
        raise ConfigError(_where(name, "weights"), weights, "an object of quantisation arguments or null")
    fmt = group.get("format") or top_format
    if fmt not in FORMATS:
        raise ConfigError(_where(name, "format") if group.get("format") else "quantization_config.format", fmt,
                          f"one of {', '.join(FORMATS)}")
    bits = weights.get("num_bits")
    kind = weights.get("type", "int")
    if kind not in ("int", "float") or isinstance(bits, bool) or bits not in ((4, 8) if kind == "int" else (4, 8)):
        raise ConfigError(_where(name, "weights.num_bits"), bits, "4 or 8 (with type int or float)")
    if weights.get("dynamic") is True:
        raise ConfigError(_where(name, "weights.dynamic"), True, "false (weights are quantised ahead of time)")
    strategy = weights.get("strategy", "tensor")
    if strategy not in STRATEGIES:
        raise ConfigError(_where(name, "weights.strategy"), strategy, f"one of {', '.join(STRATEGIES)}")
    layout = _layout(name, weights, str(fmt), bits, kind, strategy, group.get("input_activations"))
    return QuantScheme(tuple(targets), layout, _family(bits, kind), _label(bits, kind, strategy, weights, str(fmt)))


def _layout(name: str, weights: Mapping[str, Any], fmt: str, bits: int, kind: str, strategy: str,
            inputs: Any) -> StorageLayout:
    group_size = block = None
    if strategy in ("group", "tensor_group"):
        group_size = weights.get("group_size")
        if isinstance(group_size, bool) or not isinstance(group_size, int) or not 1 <= group_size <= MAX_GROUP:
            raise ConfigError(_where(name, "weights.group_size"), group_size, f"an integer from 1 to {MAX_GROUP}")
    if strategy == "block":
        value = weights.get("block_structure")
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= MAX_GROUP for x in value)):
            raise ConfigError(_where(name, "weights.block_structure"), value, "[rows, columns], e.g. [128, 128]")
        block = (value[0], value[1])
    scale_bytes = _scale_bytes(name, weights, fmt)
    symmetric = weights.get("symmetric", True)
    if not isinstance(symmetric, bool):
        raise ConfigError(_where(name, "weights.symmetric"), symmetric, "true or false")
    # Zero points are stored only for asymmetric weights: packed at num_bits in pack-quantized, int8 otherwise.
    zero_bits = 0 if symmetric else (bits if fmt == "pack-quantized" else 8)
    tensor_bytes = 0
    if fmt == "pack-quantized":
        tensor_bytes += 2 * 8  # weight_shape: two int64
    if strategy == "tensor_group":
        tensor_bytes += 4  # weight_global_scale, FP32
    tensor_bytes += _input_bytes(name, inputs, scale_bytes)
    actorder = weights.get("actorder")
    if actorder not in (None, "group", "weight", "static", "dynamic", False):
        raise ConfigError(_where(name, "weights.actorder"), actorder, "null, group or weight")
    return StorageLayout(bits=bits, group=group_size, block=block, per_channel=strategy == "channel",
                         scale_bytes=scale_bytes, zero_bits=zero_bits, tensor_bytes=tensor_bytes,
                         input_bytes=4 if actorder == "group" else 0)


def _scale_bytes(name: str, weights: Mapping[str, Any], fmt: str) -> int:
    value = weights.get("scale_dtype")
    if value is None:
        # NVFP4's group scales are FP8 and MXFP4's E8M0 bytes; every other scale has the weight's 16-bit dtype.
        return 1 if fmt in ("nvfp4-pack-quantized", "mxfp4-pack-quantized") else 2
    text = str(value).removeprefix("torch.")
    if text not in _SCALE_BYTES:
        raise ConfigError(_where(name, "weights.scale_dtype"), value, f"one of {', '.join(_SCALE_BYTES)}")
    return _SCALE_BYTES[text]


def _input_bytes(name: str, inputs: Any, weight_scale_bytes: int) -> int:
    """Bytes per linear of a static input-activation scale (none for dynamic per-token activations)."""
    if inputs is None:
        return 0
    if not isinstance(inputs, Mapping):
        raise ConfigError(_where(name, "input_activations"), inputs, "an object of quantisation arguments or null")
    strategy = inputs.get("strategy", "tensor")
    dynamic = inputs.get("dynamic", False)
    if strategy == "tensor_group":
        return 4 if dynamic is not True else 0  # input_global_scale, FP32 (NVFP4 W4A4)
    if dynamic is True or dynamic == "local":
        return 0
    if strategy != "tensor":
        raise ConfigError(_where(name, "input_activations.strategy"), strategy,
                          "tensor for static input scales (or dynamic activations)")
    zero = 0 if inputs.get("symmetric", True) else 1
    return 2 + zero  # one input_scale in the weight's dtype (and an int8 zero point when asymmetric)


def _family(bits: int, kind: str) -> DType:
    if kind == "float":
        return DType.FP8 if bits == 8 else DType.INT4
    return DType.INT8 if bits == 8 else DType.INT4


def _label(bits: int, kind: str, strategy: str, weights: Mapping[str, Any], fmt: str) -> str:
    if fmt == "nvfp4-pack-quantized":
        return "NVFP4"
    if fmt == "mxfp4-pack-quantized":
        return "MXFP4"
    name = f"{'fp' if kind == 'float' else 'int'}{bits}"
    if strategy == "group":
        return f"{name} g{weights.get('group_size')}"
    if strategy == "block":
        rows, cols = weights.get("block_structure") or (0, 0)
        return f"{name} {rows}x{cols} blocks"
    return f"{name} per-{strategy}"
