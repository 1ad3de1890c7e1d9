"""Calculators behind the Sizing ML Hardware guide: GPU memory for training and inference.

Standard library only, so the same package runs in the browser under Pyodide.

>>> import calculators
>>> spec = calculators.get_model("qwen2.5-0.5b")
>>> spec.parameters
494032768
>>> estimate = calculators.training_memory(spec, method="full", precision="bf16-mixed", batch=1, seq=512)
>>> estimate.peak_phase in ("forward", "backward", "optimizer")
True
"""

from __future__ import annotations

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.errors import CalculatorError, ConfigError, InputError, UnknownNameError
from calculators.fit import fit_inference, fit_training
from calculators.memory.inference import (
    inference_memory,
    kv_cache_bytes,
    max_batch_for_memory,
    max_context_for_memory,
)
from calculators.memory.lora import lora_parameters
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import training_memory
from calculators.model import ModelSpec

__version__ = "0.1.0"

__all__ = [
    "CalculatorError",
    "ConfigError",
    "InputError",
    "MemoryEstimate",
    "ModelSpec",
    "UnknownNameError",
    "fit_inference",
    "fit_training",
    "get_gpu",
    "get_model",
    "inference_memory",
    "kv_cache_bytes",
    "lora_parameters",
    "max_batch_for_memory",
    "max_context_for_memory",
    "training_memory",
    "__version__",
]
