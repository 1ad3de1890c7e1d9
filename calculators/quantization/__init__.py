"""A checkpoint's quantisation as its ``config.json`` states it (``quantization_config``).

:mod:`calculators.quantization.config` holds the record (:class:`CheckpointQuantization`) and
reads the methods of transformers' quantizers, AutoAWQ, AutoGPTQ, bitsandbytes and NVIDIA
ModelOpt; :mod:`calculators.quantization.compressed_tensors` the ``compressed-tensors`` form
(llm-compressor). The bytes they imply are :mod:`calculators.memory.checkpoint_weights`.

>>> read_quantization_config({"quant_method": "hqq"})
Traceback (most recent call last):
...
calculators.errors.ConfigError: config.quantization_config.quant_method: got 'hqq'; expected one of mxfp4, fp8, awq, gptq, bitsandbytes, compressed-tensors, modelopt (other methods are not modelled: set the weights format by hand)
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

__all__ = ["METHODS", "CheckpointQuantization", "QuantScheme", "StorageLayout", "read_quantization_config"]


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
                          f"one of {', '.join(METHODS)} (other methods are not modelled: set the weights format "
                          "by hand)")
    if method == "compressed-tensors":
        return read_compressed_tensors(config)
    return READERS[method](config, model_type)
