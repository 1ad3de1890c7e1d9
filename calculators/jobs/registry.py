"""The named calculators: the memory calculators here, the others from their subjects' modules of :mod:`calculators.jobs`.

Each :class:`~calculators.jobs.calculator.Calculator` ties form fields (declared once,
with ranges and choices taken from the engine) to a compute function over checked values
and a renderer of its result. The build, the browser (through :mod:`calculators.widgets.api`),
the command line (:mod:`calculators.commands`) and the tests all go through :func:`get_calculator`.

>>> {'fit', 'inference-memory', 'kv-cache', 'training-memory'} <= set(calculator_names())
True
>>> calculator = get_calculator("kv-cache")
>>> values = calculator.values({"model": "llama-3-8b", "context": "8192"})
>>> values["context"], values["kv_dtype"]
(8192, 'bf16')
>>> "1.00" in calculator.render(calculator.compute(values))  # GiB of bf16 cache
True
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

from calculators.catalog.custom_gpu import CustomGPU
from calculators.catalog.gpus import GPU, all_gpus
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.dtype_support import UnsupportedFormatError, on_gpu, serving_notes, sixteen_bit, training_notes
from calculators.errors import InputError, UnknownNameError
from calculators.fit import FitResult, fit_inference, fit_training
from calculators.inputs.fields import Field, bool_field, choice_field, cli_field, default_of, int_field, text_field
from calculators.inputs.shared import (
    CUSTOM_GPU_NAMES,
    GPU_HELP,
    custom_gpu_fields,
    gpu_field,
    model_config_field,
    model_field,
)
from calculators.memory import inference, training, training_inputs
from calculators.memory.optimizers import OPTIMIZERS
from calculators.memory.overhead import ALLOCATORS
from calculators.memory.weights import weight_bytes
from calculators.jobs.calculator import Calculator
from calculators.jobs.values import NOT_SETTINGS, Values, engine_settings, gpu_from_values, model_spec
from calculators.jobs.memory_views import FitView, KVCacheView, MemoryView, fit_html, kv_cache_html, memory_html

#: Why a memory form's GPU is not an engine input (:attr:`Calculator.own_defaults`).
CHART_GPU = "the GPU the chart draws and whose formats are checked; memory does not depend on it"
#: Upper bound of ``grad_accumulation`` in :func:`~calculators.memory.training_inputs.training_setup`
#: (not exported there; a test checks the two agree).
MAX_GRAD_ACCUMULATION = 1 << 20


# --------------------------------------------------------------------------- training
def _allocator_field(setup: Callable[..., Any], show_when: tuple[str, str] | None = None) -> Field:
    return choice_field("allocator", "PyTorch allocator", choices=ALLOCATORS, default=default_of(setup, "allocator"),
                        advanced=True, show_when=show_when,
                        help="expandable_segments (PYTORCH_CUDA_ALLOC_CONF) removes the fragmentation reserve: "
                             "modelled, not measured.").option(
        f"PyTorch caching allocator: one of {', '.join(ALLOCATORS)}")


def _attention_field(attentions: tuple[str, ...], default: str) -> Field:
    return choice_field("attention", "Attention kernel", choices=attentions, default=default, advanced=True,
                        help="eager materialises the S x S attention scores.").option(f"one of {', '.join(attentions)}")


def _training_inputs(show_when: tuple[str, str] | None = None) -> tuple[Field, ...]:
    """The settings of a training step, as :func:`~calculators.memory.training_inputs.training_setup` takes them
    (the model and the GPU aside), each shown only when ``show_when`` holds."""
    setup = training_inputs.training_setup

    def default(name: str) -> Any:
        return default_of(setup, name)

    def one_of(choices: Sequence[str]) -> str:
        return f"one of {', '.join(choices)}"

    return (
        choice_field("method", "Method", choices=training_inputs.METHODS, default=default("method"),
                     show_when=show_when,
                     help="full: every weight trains; lora: adapters on a 16-bit base; qlora: on a 4-bit base."
                     ).option(one_of(training_inputs.METHODS)),
        choice_field("precision", "Precision", choices=training_inputs.PRECISIONS, default=default("precision"),
                     show_when=show_when, help="-mixed: fp32 master weights with 16-bit autocast."
                     ).option(one_of(training_inputs.PRECISIONS)),
        choice_field("optimizer", "Optimizer", choices=list(OPTIMIZERS), default=default("optimizer"),
                     show_when=show_when).option(one_of(list(OPTIMIZERS))),
        int_field("batch", "Micro-batch", default=default("batch"), maximum=training_inputs.MAX_BATCH,
                  unit="sequences per GPU", show_when=show_when).option("micro-batch per GPU (sequences)"),
        int_field("seq", "Sequence length", default=default("seq"), maximum=training_inputs.MAX_SEQ, unit="tokens",
                  show_when=show_when).option("sequence length in tokens"),
        bool_field("grad_checkpointing", "Gradient checkpointing", default=default("grad_checkpointing"),
                   show_when=show_when, help="Keep one tensor per layer and recompute the rest in backward."
                   ).option("recompute activations in backward"),
        _attention_field(training_inputs.ATTENTIONS, default("attention")),
        int_field("lora_rank", "LoRA rank", default=default("lora_rank"), maximum=training_inputs.MAX_RANK,
                  advanced=True, show_when=show_when, help="Used by lora and qlora only.").option("LoRA rank r"),
        text_field("lora_targets", "LoRA targets", default=",".join(default("lora_targets")), advanced=True,
                   show_when=show_when,
                   help="Comma-separated projections: " + ",".join(training_inputs.DEFAULT_LORA_TARGETS) + "."
                   ).option("comma-separated: q,k,v,o,gate,up,down"),
        int_field("grad_accumulation", "Gradient accumulation", default=default("grad_accumulation"),
                  maximum=MAX_GRAD_ACCUMULATION, unit="micro-batches per step", advanced=True, show_when=show_when
                  ).option("micro-batches per optimizer step"),
        int_field("gpus", "Data-parallel GPUs", default=default("gpus"), maximum=training_inputs.MAX_GPUS,
                  advanced=True, show_when=show_when).option("data-parallel GPUs"),
        choice_field("zero", "ZeRO stage", choices=training_inputs.ZERO_STAGES, default=default("zero"), advanced=True,
                     show_when=show_when,
                     help="0 is plain DDP; 1 shards optimizer state, 2 also gradients, 3 also weights."
                     ).option("ZeRO stage 0-3 (0 = plain DDP)"),
        _allocator_field(setup),
    )


def _base_dtype_field(show_when: tuple[str, str] | None = None) -> Field:
    """``--base-dtype``: the command line's override of the frozen base (see ``CLI_ONLY``)."""
    return cli_field("base_dtype", f"frozen base for lora/qlora: {', '.join(training_inputs.BASE_DTYPES)}; "
                                   "auto: bf16, nf4 for qlora", show_when=show_when)


def _training_fields() -> tuple[Field, ...]:
    return (model_field(), model_config_field(), gpu_field(custom=True), *custom_gpu_fields(), *_training_inputs())


def _compute_training(values: Values) -> MemoryView:
    spec = model_spec(values)
    estimate = training.training_memory(spec, **engine_settings(_training_inputs(), values))
    gpu = gpu_from_values(values)
    notes = _format_notes(lambda: training_notes(gpu, precision=str(values["precision"]), method=str(values["method"])))
    return MemoryView(spec=spec, job="training", estimate=dataclasses.replace(estimate, notes=estimate.notes + notes),
                      gpu=gpu)


def _format_notes(check: Callable[[], tuple[str, ...]]) -> tuple[str, ...]:
    """How the chosen GPU runs the job's formats; memory is the same on any GPU, so a format it lacks is a note."""
    try:
        return check()
    except UnsupportedFormatError as error:
        return (f"the chosen GPU cannot run this job: {error.accepted.split(' runs: ', 1)[-1]}",)


# --------------------------------------------------------------------------- inference
def _inference_fields(*, show_when: tuple[str, str] | None = None) -> tuple[Field, ...]:
    """The settings of prefill + decode, as :func:`~calculators.memory.inference.inference_setup` takes them."""
    setup = inference.inference_setup

    def default(name: str) -> Any:
        return default_of(setup, name)

    return (
        choice_field("weights", "Weights", choices=inference.WEIGHT_DTYPES, default=default("weights"),
                     show_when=show_when, help="Storage format of the weights (int4/int8/fp8: quantised linears)."
                     ).option(f"one of {', '.join(inference.WEIGHT_DTYPES)}"),
        choice_field("kv_cache", "KV cache", choices=inference.KV_DTYPES, default=default("kv_cache"),
                     show_when=show_when).option(f"one of {', '.join(inference.KV_DTYPES)}"),
        int_field("batch", "Batch", default=default("batch"), maximum=inference.MAX_BATCH,
                  unit="concurrent sequences", show_when=show_when).option("concurrent sequences"),
        int_field("context", "Prompt length", default=default("context"), maximum=inference.MAX_CONTEXT,
                  unit="tokens", show_when=show_when).option("prompt tokens per sequence"),
        int_field("new_tokens", "New tokens", default=default("new_tokens"), minimum=0,
                  maximum=inference.MAX_CONTEXT - 1, unit="tokens per sequence", show_when=show_when
                  ).option("generated tokens per sequence"),
        _attention_field(inference.ATTENTIONS, default("attention")),
        _allocator_field(setup),
    )


def _compute_inference(values: Values) -> MemoryView:
    spec = model_spec(values)
    estimate = inference.inference_memory(spec, **engine_settings(_inference_fields(), values))
    gpu = gpu_from_values(values)
    notes = _format_notes(lambda: serving_notes(gpu, weights=str(values["weights"]), kv_cache=str(values["kv_cache"])))
    return MemoryView(spec=spec, job="inference", estimate=dataclasses.replace(estimate, notes=estimate.notes + notes),
                      gpu=gpu)


# --------------------------------------------------------------------------- KV cache
def _kv_fields() -> tuple[Field, ...]:
    def default(name: str) -> Any:
        return default_of(inference.inference_setup, name)

    return (
        model_field(), model_config_field(), gpu_field(custom=True), *custom_gpu_fields(),
        choice_field("kv_dtype", "KV cache", choices=inference.KV_DTYPES,
                     default=default_of(inference.kv_cache_bytes, "kv_dtype")),
        int_field("batch", "Batch", default=default("batch"), maximum=inference.MAX_BATCH,
                  unit="concurrent sequences"),
        int_field("context", "Context", default=default("context"), maximum=inference.MAX_CONTEXT,
                  unit="tokens per sequence"),
        choice_field("weights", "Weights (for scale)", choices=inference.WEIGHT_DTYPES, default=default("weights"),
                     help="Drawn beside the cache so the chart shows what is left of the GPU."),
    )


def _compute_kv(values: Values) -> KVCacheView:
    spec = model_spec(values)
    kv_dtype, batch, context = str(values["kv_dtype"]), int(values["batch"]), int(values["context"])
    return KVCacheView(
        spec=spec, kv_dtype=kv_dtype, batch=batch, context=context,
        bytes_per_token=inference.kv_cache_bytes_per_token(spec, kv_dtype=kv_dtype),
        bytes_per_sequence=inference.kv_cache_bytes(spec, batch=1, context=context, kv_dtype=kv_dtype),
        total_bytes=inference.kv_cache_bytes(spec, batch=batch, context=context, kv_dtype=kv_dtype),
        weights_dtype=str(values["weights"]), weight_bytes=weight_bytes(spec, dtype=str(values["weights"])),
        gpu=gpu_from_values(values),
    )


# --------------------------------------------------------------------------- fit
#: The two jobs the fit calculator sizes.
FIT_JOBS = ("inference", "training")


def _fit_fields() -> tuple[Field, ...]:
    def default(name: str) -> Any:
        return default_of(training_inputs.training_setup, name)

    shared = ("batch", "attention", "allocator")
    when = {job: ("job", job) for job in FIT_JOBS}
    return (
        model_field(), model_config_field(),
        choice_field("job", "Job", choices=FIT_JOBS, default=FIT_JOBS[0]),
        gpu_field("Highlighted in the table and drawn on the chart.", custom=True).option(
            f"{GPU_HELP}; default: every GPU in the catalog"),
        *custom_gpu_fields(),
        int_field("batch", "Batch", default=default("batch"),
                  maximum=min(training_inputs.MAX_BATCH, inference.MAX_BATCH), unit="sequences").option(
            "inference: concurrent sequences; training: micro-batch per GPU (sequences)"),
        *(field for field in _inference_fields(show_when=when["inference"]) if field.name not in shared),
        *(field for field in _training_inputs(show_when=when["training"]) if field.name not in shared),
        _attention_field(training_inputs.ATTENTIONS, default("attention")),
        _allocator_field(training_inputs.training_setup),
    )


def fit_job_fields(fields: Sequence[Field], job: str) -> tuple[Field, ...]:
    """The fields of the fit calculator's engine settings for ``job`` (``training``: what
    :func:`~calculators.fit.fit_training` takes besides the model and the GPU).

    >>> [field.name for field in fit_job_fields(get_calculator("fit").fields, "inference")]
    ['batch', 'weights', 'kv_cache', 'context', 'new_tokens', 'attention', 'allocator']
    """
    return tuple(field for field in fields if field.name not in NOT_SETTINGS
                 and (field.show_when is None or field.show_when == ("job", job)))


def _compute_fit(values: Values) -> FitView:
    spec = model_spec(values)
    job = str(values["job"])
    settings = engine_settings(fit_job_fields(get_calculator("fit").fields, job), values)
    fit: Callable[..., FitResult] = fit_training if job == "training" else fit_inference
    # GPUs with the same usable memory and runtime give the same answer: compute once for each.
    # Each GPU runs its own 16-bit format (bf16, else fp16: same bytes); one that cannot run the job is named.
    by_memory: dict[tuple[int, bool, str], FitResult] = {}
    rows: list[tuple[GPU, FitResult]] = []
    refused: list[str] = []
    for gpu in all_gpus():
        key = (usable_memory_bytes(gpu), gpu.vendor == "Apple", sixteen_bit(gpu))
        if key not in by_memory:
            try:
                by_memory[key] = fit(spec, gpu, **on_gpu(gpu, settings))
            except UnsupportedFormatError as error:
                refused.append(f"{gpu.name} cannot run this job: {error.accepted}")
                continue
        result = by_memory[key]
        rows.append((gpu, dataclasses.replace(result, gpu_id=gpu.id)))
    chosen = gpu_from_values(values)
    if isinstance(chosen, CustomGPU):  # your own GPU is a row of its own, with the formats asked
        rows.append((chosen, fit(spec, chosen, **settings)))
    if not rows:
        raise InputError("weights" if job == "inference" else "precision", settings.get("weights", "?"),
                         "a format some GPU runs: " + "; ".join(refused))
    return FitView(spec=spec, job=job, rows=tuple(rows), gpu=chosen, refused=tuple(refused))


# --------------------------------------------------------------------------- registry
def _build() -> dict[str, Calculator]:
    calculators = [
        Calculator("training-memory", "Training memory", _training_fields(), _compute_training, memory_html,
                   engines=(training_inputs.training_setup,), own_defaults={"gpu": CHART_GPU}, command="train",
                   cli_fields=(_base_dtype_field(),)),
        Calculator("inference-memory", "Inference memory", (model_field(), model_config_field(), gpu_field(custom=True),
                                                             *custom_gpu_fields(),
                                                            *_inference_fields()), _compute_inference, memory_html,
                   engines=(inference.inference_setup,), own_defaults={"gpu": CHART_GPU}, command="infer"),
        Calculator("kv-cache", "KV cache", _kv_fields(), _compute_kv, kv_cache_html,
                   engines=(inference.inference_setup, inference.kv_cache_bytes), own_defaults={"gpu": CHART_GPU}),
        Calculator("fit", "Which GPUs does it fit?", _fit_fields(), _compute_fit, fit_html,
                   engines=(training_inputs.training_setup, inference.inference_setup, fit_training, fit_inference),
                   own_defaults={"job": "picks the engine (fit_inference or fit_training), so no engine has it",
                                 "gpu": "the GPU highlighted; the engine is run on every catalog GPU"},
                   command="fit", cli_fields=(_base_dtype_field(show_when=("job", "training")),)),
    ]
    # Calculators of other subjects: one module each, in this order (the registry's and the CLI's).
    from calculators.jobs import parallel, recommend, speed, system_cost, training_time, vision

    for module in (parallel, speed, training_time, recommend, system_cost, vision):
        calculators.extend(module.calculators())
    registry: dict[str, Calculator] = {}
    for calculator in calculators:
        if calculator.name in registry:
            raise ValueError(f"widget calculator {calculator.name!r} is defined twice")
        registry[calculator.name] = calculator
    return registry


@functools.cache
def _registry() -> dict[str, Calculator]:
    # Built on first use (importing the package does no work) and memoised: it is a
    # pure function of the engine's constants and catalogs.
    return _build()


def calculator_names() -> list[str]:
    """Names of every calculator, in registry order."""
    return list(_registry())


def get_calculator(name: str) -> Calculator:
    """The calculator called ``name``; raises :class:`UnknownNameError` (field ``calculator``)."""
    registry = _registry()
    if not isinstance(name, str) or name not in registry:
        raise UnknownNameError("calculator", str(name), list(registry))
    return registry[name]
