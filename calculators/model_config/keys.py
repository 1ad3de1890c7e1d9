"""Checked reads of one ``config.json`` key: each raises :class:`~calculators.errors.ConfigError` naming the key.

>>> read_int({"hidden_size": 4096.0}, "hidden_size", maximum=MAX_HIDDEN)  # an integral float is an integer
4096
>>> read_int({"hidden_size": -1}, "hidden_size", maximum=MAX_HIDDEN)
Traceback (most recent call last):
...
calculators.errors.ConfigError: config.hidden_size: got -1; expected an integer from 1 to 131072
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from calculators.errors import ConfigError

MAX_HIDDEN = 1 << 17  # 131072: ten times the widest published dense model
MAX_LAYERS = 4096
MAX_VOCAB = 1 << 24
MAX_HEADS = 4096
MAX_EXPERTS = 4096
MAX_WIDTH = MAX_HIDDEN * 16  # an MLP or scan width
MAX_TOKENS = 1 << 24  # a window, chunk or position count


def read_int(data: Mapping[str, Any], key: str, *, maximum: int, default: int | None = None,
             minimum: int = 1) -> int:
    """``data[key]`` as an integer in ``[minimum, maximum]`` (``default`` when absent)."""
    value = data.get(key, default)
    if value is None:
        raise ConfigError(key, None, f"an integer from {minimum} to {maximum} (key missing)")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or isinstance(value, float) and (
        not math.isfinite(value) or value != int(value)
    ):
        raise ConfigError(key, value, f"an integer from {minimum} to {maximum}")
    if not minimum <= int(value) <= maximum:
        raise ConfigError(key, value, f"an integer from {minimum} to {maximum}")
    return int(value)


def read_opt_int(data: Mapping[str, Any], key: str, *, maximum: int) -> int | None:
    """``data[key]`` as a positive integer, or ``None`` when absent or null."""
    if data.get(key) is None:
        return None
    return read_int(data, key, maximum=maximum)


def read_opt_float(data: Mapping[str, Any], key: str, default: float | None) -> float | None:
    """``data[key]`` as a positive finite number, ``default`` when absent, ``None`` when null."""
    value = data.get(key, default) if key in data else default
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigError(key, value, "a positive number or null")
    return float(value)


def read_bool(data: Mapping[str, Any], key: str, default: bool) -> bool:
    """``data[key]`` as a boolean (``default`` when absent or null)."""
    value = data.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ConfigError(key, value, "true or false")
    return value


def read_str_list(data: Mapping[str, Any], key: str, *, allowed: tuple[str, ...], length: int | None = None,
                  maximum: int = MAX_LAYERS) -> list[str]:
    """``data[key]`` as a list of strings each in ``allowed`` (and of ``length`` items when given)."""
    value = data.get(key)
    expected = f"a list of {length if length is not None else 'up to ' + str(maximum)} strings, each one of: " \
               f"{', '.join(allowed)}"
    if not isinstance(value, (list, tuple)) or not value or len(value) > maximum:
        raise ConfigError(key, value, expected)
    if length is not None and len(value) != length:
        raise ConfigError(key, f"a list of {len(value)} items", expected)
    unknown = sorted({str(item) for item in value if item not in allowed})
    if unknown:
        raise ConfigError(key, ", ".join(unknown)[:200], expected)
    return [str(item) for item in value]


def read_int_list(data: Mapping[str, Any], key: str, *, maximum: int, minimum: int = 0) -> list[int]:
    """``data[key]`` as a list of integers in ``[minimum, maximum]`` (``[]`` when absent or null)."""
    value = data.get(key)
    if value is None:
        return []
    expected = f"a list of integers from {minimum} to {maximum}"
    if not isinstance(value, (list, tuple)) or len(value) > MAX_LAYERS:
        raise ConfigError(key, value, expected)
    items = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int) or not minimum <= item <= maximum:
            raise ConfigError(key, value, expected)
        items.append(item)
    return items
