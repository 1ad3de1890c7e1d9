"""Numeric formats and their storage size: the one table every byte count comes from.

>>> DType.BF16.bytes_per_element
2.0
>>> DType.NF4.bytes_per_element
0.5
>>> DType.parse("bfloat16") is DType.BF16
True
"""

from __future__ import annotations

from enum import Enum

from calculators.errors import UnknownNameError


class DType(str, Enum):
    """A storage format for weights, activations, gradients, optimizer state or KV cache."""

    FP32 = "fp32"
    BF16 = "bf16"
    FP16 = "fp16"
    FP8 = "fp8"
    INT8 = "int8"
    INT4 = "int4"
    NF4 = "nf4"

    @property
    def bytes_per_element(self) -> float:
        """Bytes one element occupies (4-bit formats are half a byte; scales are extra)."""
        return _BYTES[self]

    @property
    def is_float16(self) -> bool:
        """True for the two 2-byte floating formats (bf16, fp16)."""
        return self in (DType.BF16, DType.FP16)

    @classmethod
    def parse(cls, value: str | DType, field: str = "dtype") -> DType:
        """Return the DType named ``value``; accepts PyTorch spellings like ``bfloat16``."""
        if isinstance(value, DType):
            return value
        key = str(value).strip().lower().removeprefix("torch.")
        key = _ALIASES.get(key, key)
        for member in cls:
            if member.value == key:
                return member
        raise UnknownNameError(field, value, [member.value for member in cls])


_BYTES: dict[DType, float] = {
    DType.FP32: 4.0,
    DType.BF16: 2.0,
    DType.FP16: 2.0,
    DType.FP8: 1.0,
    DType.INT8: 1.0,
    DType.INT4: 0.5,
    DType.NF4: 0.5,
}

_ALIASES = {
    "float32": "fp32",
    "float": "fp32",
    "bfloat16": "bf16",
    "float16": "fp16",
    "half": "fp16",
    "float8": "fp8",
    "float8_e4m3fn": "fp8",
    "e4m3": "fp8",
}
