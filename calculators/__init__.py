"""Calculators behind the Sizing ML Hardware guide: memory, fit, speed, time, cost and what to buy.

Standard library only, so the same package runs in the browser under Pyodide. This module
is the public API: one entry function per subject, all re-exported from the modules that
define them (``tests/engine/test_public_api.py`` snapshots their signatures).

=========================  ==================================================================
subject                    entry points
=========================  ==================================================================
models                     :func:`get_model`, :func:`all_models`, :func:`spec_from_config`
GPUs                       :func:`get_gpu`, :func:`all_gpus`, :func:`resolve_gpu` (``custom:…``, ``mac:64``)
memory                     :func:`training_memory`, :func:`inference_memory`, :func:`kv_cache_bytes`
fit on a GPU               :func:`fit_training`, :func:`fit_inference`
speed                      :func:`inference_speed`
serving under load         :func:`serving_load` of a :class:`ServedModel` and a :class:`Load` (throughput, latency out)
training time              :func:`training_time`
multi-GPU communication    :func:`step_communication`
cost                       :func:`cost_comparison`
system (CPU, RAM, disk)    :func:`system_balance` of a :class:`HostJob`
what to buy or rent        :func:`recommend` with a :class:`Workload`
=========================  ==================================================================

>>> import calculators
>>> spec = calculators.get_model("qwen2.5-0.5b")
>>> spec.parameters
494032768
>>> estimate = calculators.training_memory(spec, method="full", precision="bf16-mixed", batch=1, seq=512)
>>> estimate.peak_phase in ("forward", "backward", "optimizer")
True
>>> calculators.fit_inference(spec, calculators.get_gpu("rtx-4090"), context=4096).verdict.verdict
'fits'
"""

from __future__ import annotations

from calculators.catalog.gpus import all_gpus, get_gpu
from calculators.catalog.models import all_models, get_model
from calculators.cost import cost_comparison
from calculators.errors import (
    CalculatorError,
    ConfigError,
    InputError,
    UnknownNameError,
)
from calculators.fit import fit_inference, fit_training
from calculators.inputs.gpu import resolve_gpu
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
from calculators.model_config import spec_from_config
from calculators.parallel.step import step_communication
from calculators.performance.inference_speed import inference_speed
from calculators.performance.serving_load import Load, ServedModel, serving_load
from calculators.performance.training_time import training_time
from calculators.recommend import Workload, recommend
from calculators.system import HostJob, system_balance
from calculators.version import __version__

__all__ = [
    "CalculatorError",
    "ConfigError",
    "HostJob",
    "InputError",
    "Load",
    "MemoryEstimate",
    "ModelSpec",
    "ServedModel",
    "UnknownNameError",
    "Workload",
    "__version__",
    "all_gpus",
    "all_models",
    "cost_comparison",
    "fit_inference",
    "fit_training",
    "get_gpu",
    "get_model",
    "inference_memory",
    "inference_speed",
    "kv_cache_bytes",
    "lora_parameters",
    "max_batch_for_memory",
    "max_context_for_memory",
    "recommend",
    "resolve_gpu",
    "serving_load",
    "spec_from_config",
    "step_communication",
    "system_balance",
    "training_memory",
    "training_time",
]
