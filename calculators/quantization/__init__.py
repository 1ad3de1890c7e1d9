"""A checkpoint's quantisation as its ``config.json`` states it (``quantization_config``).

:mod:`calculators.quantization.config` holds the record (:class:`CheckpointQuantization`) and
reads the methods of transformers' quantizers, AutoAWQ, AutoGPTQ, bitsandbytes and NVIDIA
ModelOpt; :mod:`calculators.quantization.compressed_tensors` the ``compressed-tensors`` form
(llm-compressor). The bytes they imply are :mod:`calculators.memory.checkpoint_weights`.

>>> read_quantization_config({"quant_method": "hqq"})
Traceback (most recent call last):
...
calculators.errors.ConfigError: config.quantization_config.quant_method: got 'hqq'; expected one of mxfp4, fp8, awq, gptq, bitsandbytes, compressed-tensors, modelopt (other methods are not modelled)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from calculators.errors import ConfigError
from calculators.quantization.compressed_tensors import read_compressed_tensors
from calculators.quantization.config import (
    METHODS,
    READERS,
    CheckpointQuantization,
    QuantScheme,
    StorageLayout,
)

__all__ = ["METHODS", "CheckpointQuantization", "QuantScheme", "StorageLayout", "checkpoint_quantization",
           "read_quantization_config"]


def checkpoint_quantization(config: Any, *, model_type: str = "") -> CheckpointQuantization | None:
    """What a model's ``quantization_config`` (``None`` when absent) says, for its :class:`~calculators.model.ModelSpec`.

    A block this package cannot read does not stop the model being read: its record is
    :meth:`CheckpointQuantization.unreadable`, and sizing the weights as stored raises that error.

    >>> checkpoint_quantization({"quant_method": "hqq"}).check_readable()
    Traceback (most recent call last):
    ...
    calculators.errors.ConfigError: config.quantization_config.quant_method: got 'hqq'; expected one of mxfp4, fp8, awq, gptq, bitsandbytes, compressed-tensors, modelopt (other methods are not modelled); to size this checkpoint anyway, choose a weights format instead of auto
    """
    if config is None:
        return None
    try:
        return read_quantization_config(config, model_type=model_type)
    except ConfigError as error:
        return CheckpointQuantization.unreadable(error)


def read_quantization_config(config: Any, *, model_type: str = "") -> CheckpointQuantization:
    """The :class:`CheckpointQuantization` a ``quantization_config`` block states.

    Args:
        config: the value of ``quantization_config`` in ``config.json`` (a dict).
        model_type: the model's ``model_type`` (MXFP4 here is gpt-oss's expert format).

    Raises:
        ConfigError: not a dict, a method not in :data:`METHODS`, or a value of a method's
            key that changes the stored bytes and is not understood; the message names the key.
    """
    if not isinstance(config, Mapping):
        raise ConfigError("quantization_config", config, "a JSON object with a quant_method")
    method = config.get("quant_method")
    method = method.lower() if isinstance(method, str) else method
    if method not in METHODS:
        raise ConfigError("quantization_config.quant_method", config.get("quant_method"),
                          f"one of {', '.join(METHODS)} (other methods are not modelled)")
    if method == "compressed-tensors":
        return read_compressed_tensors(config)
    return READERS[method](config, model_type)
