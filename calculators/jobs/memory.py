"""The memory calculators: ``training-memory`` (``mlhw train``), ``inference-memory`` (``mlhw infer``), ``kv-cache``.

Each opens with the reader's GPU and count, the verdict and the margin
(:func:`calculators.jobs.answer.headline`), then the job's memory on each GPU, drawn against the
memory a process can allocate there, and its breakdown. A training step on several GPUs is
estimated per GPU by the engine (data parallel, sharded by its ZeRO stage); an inference job on
several GPUs is split evenly (:func:`calculators.fit.placement.split_inference_estimate`).

>>> from calculators.jobs.registry import get_calculator
>>> answer = get_calculator("inference-memory").answer({"model": "llama-3.1-70b", "gpu": "rtx-4090", "gpus": "2",
...                                                       "weights": "int4", "context": "8192"})
>>> answer.report.headline.split(";")[0]
'On 2x GeForce RTX 4090, tensor or pipeline parallel: tight, 1.6 GiB to spare of 23.6 GiB usable per GPU, inside the 1.7 GiB measured uncertainty'
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.columns import Column
from calculators.dtype_support import UnsupportedFormatError, serving_notes, training_notes
from calculators.fit import Placement, fit_inference, inference_placement, split_inference_estimate, training_placement
from calculators.inputs.fields import Field, choice_field, default_of, int_field
from calculators.inputs.shared import custom_gpu_fields, gpu_field, model_config_field, model_field
from calculators.jobs.advice import FitAdvice, inference_advice, training_advice
from calculators.jobs.answer import VERDICT_CLASS, VERDICT_KEY, headline, stored_weights_first
from calculators.jobs.calculator import Calculator
from calculators.jobs.html import label, memory_chart
from calculators.jobs.memory_fields import (
    base_dtype_field,
    inference_fields,
    inference_gpus_field,
    training_fields,
    training_gpus_field,
)
from calculators.jobs.report import Paragraph, Report, Shown
from calculators.jobs.text import table_text
from calculators.jobs.values import Values, engine_settings, gpu_from_values, model_spec
from calculators.memory import inference, training, training_inputs
from calculators.memory.result import MemoryEstimate
from calculators.memory.weight_formats import weight_format
from calculators.memory.weights import weight_bytes
from calculators.model import ModelSpec
from calculators.tables import Table
from calculators.units import gib, gib_nonzero

#: The training-memory form opens on a job that fits (#27): Llama 3 8B fully fine-tuned does not fit one
#: 80 GB GPU, so the form opens on one 8-GPU node sharding it with ZeRO-3 (the engine's defaults: 1 GPU, ZeRO-0).
TRAINING_GPUS, TRAINING_ZERO = 8, "3"
TRAINING_OWN_DEFAULTS = {
    "gpu": "the engine takes no GPU: memory does not depend on it; the form opens on DEFAULT_GPU, against which "
           "the verdict is given",
    "gpus": "the form opens on a job that fits: one 8-GPU node (TRAINING_GPUS) sharding the full fine-tune",
    "zero": "the form opens on a job that fits: ZeRO-3 (TRAINING_ZERO) over the node's GPUs",
}
#: Why an inference form's GPU is not read from an engine.
INFERENCE_OWN_DEFAULTS = {
    "gpu": "the engine takes no GPU: memory does not depend on it; the form opens on DEFAULT_GPU, against which "
           "the verdict is given",
}


@dataclass(frozen=True)
class MemoryView:
    """A memory estimate on the reader's GPUs.

    Attributes:
        estimate: the engine's estimate (training: one GPU's step; inference: the whole job).
        share: one GPU's part of it (the estimate itself for training or on one GPU).
        placement: the verdict on the reader's count and the fewest GPUs that hold the job.
        notes: how the GPU runs the job's number formats.
        advice: the single changes that make the job fit, with their new margins and speed costs, and the best
            that fits (:class:`~calculators.jobs.advice.FitAdvice`).
    """

    spec: ModelSpec
    job: str
    estimate: MemoryEstimate
    share: MemoryEstimate
    gpu: GPU
    placement: Placement
    notes: tuple[str, ...] = ()
    advice: FitAdvice | None = None


def format_notes(check: Callable[[], tuple[str, ...]]) -> tuple[str, ...]:
    """How the chosen GPU runs the job's formats; memory is the same on any GPU, so a format it lacks is a note."""
    try:
        return check()
    except UnsupportedFormatError as error:
        return (f"the chosen GPU cannot run this job: {error.accepted.split(' runs: ', 1)[-1]}",)


# --------------------------------------------------------------------------- training
@functools.cache
def _training_fields() -> tuple[Field, ...]:
    return (model_field(), model_config_field(), gpu_field("The verdict is for this GPU.", custom=True),
            *custom_gpu_fields(), training_gpus_field(TRAINING_GPUS),
            *(dataclasses.replace(field, default=TRAINING_ZERO) if field.name == "zero" else field
              for field in training_fields()))


def _compute_training(values: Values) -> MemoryView:
    spec, gpu = model_spec(values), gpu_from_values(values)
    settings = engine_settings((*_training_fields(), base_dtype_field()), values)
    estimate = training.training_memory(spec, **settings)
    placement = training_placement(spec, gpu, estimate=estimate, **settings)
    notes = format_notes(lambda: training_notes(gpu, precision=str(settings["precision"]),
                                                method=str(settings["method"])))
    advice = training_advice(spec, gpu, placement.verdict, settings=settings, estimate=estimate)
    return MemoryView(spec=spec, job="training", estimate=estimate, share=estimate, gpu=gpu, placement=placement,
                      notes=notes, advice=advice)


# --------------------------------------------------------------------------- inference
@functools.cache
def _inference_form() -> tuple[Field, ...]:
    return (model_field(), model_config_field(), gpu_field("The verdict is for this GPU.", custom=True),
            *custom_gpu_fields(), inference_gpus_field(), *inference_fields())


def _compute_inference(values: Values) -> MemoryView:
    spec, gpu = model_spec(values), gpu_from_values(values)
    settings = engine_settings(_inference_form(), values)
    gpus = int(settings.pop("gpus"))
    settings = inference.with_stored_weights(spec, settings)  # weights "auto": as the checkpoint stores them
    estimate = inference.inference_memory(spec, **settings)
    placement = inference_placement(estimate, gpu, gpus=gpus)
    form = weight_format(settings["weights"])  # a GGUF, GPTQ or MXFP4 format runs in its family's kernels
    notes = format_notes(lambda: serving_notes(gpu, weights=form.family, kv_cache=str(settings["kv_cache"]),
                                               weights_label=form.id))
    advice = inference_advice(spec, gpu, placement.verdict, gpus=gpus, settings=settings, estimate=estimate)
    return MemoryView(spec=spec, job="inference", estimate=estimate, share=split_inference_estimate(estimate, gpus),
                      gpu=gpu, placement=placement, notes=notes, advice=advice)


# --------------------------------------------------------------------------- the views
#: A column of bytes as GiB that never shows a small nonzero amount as 0.00.
GIB_CELLS = Column("GiB (2^30 bytes)", lambda value: gib_nonzero(value, 2), "r")


def estimate_rows(estimate: MemoryEstimate) -> tuple[list[tuple[str, int]], list[str]]:
    """An estimate's breakdown as rows (name, bytes): the components, the allocated peak, the runtime overhead and
    the total, with the web face's class of each row."""
    rows: list[tuple[str, int]] = []
    classes: list[str] = []
    for name, value in estimate.breakdown.items():
        if value:
            rows.append((label(name), value))
            classes.append("")
    rows.append((f"Peak allocated ({estimate.peak_phase} phase)", estimate.peak_allocated_bytes))
    classes.append("mlhw-subtotal")
    for name, value in estimate.overhead.items():
        rows.append((label(name), value))
        classes.append("")
    rows.append(("Total on each GPU", estimate.total_bytes))
    classes.append("mlhw-total")
    return rows, classes


def estimate_text(estimate: MemoryEstimate) -> str:
    """An estimate's breakdown as text, in GiB: what ``mlhw train`` and ``mlhw infer`` print under their verdict.

    >>> from calculators.catalog.models import get_model
    >>> print(estimate_text(inference.inference_memory(get_model("llama-3-8b"), context=8192)))
    Component                         GiB (2^30 bytes)
    Weights                                      14.96
    KV cache                                      1.00
    Activations and logits                        0.91
    cuBLAS workspaces (measured)                  0.06
    Peak allocated (prefill phase)               16.93
    CUDA context (measured)                       0.77
    Allocator reserve (measured fit)              0.56
    Total on each GPU                            18.26
    """
    rows, _ = estimate_rows(estimate)
    return table_text(Table.of((Column("Component"), GIB_CELLS), rows, caption=""))


def breakdown_table(view: MemoryView) -> Shown:
    """The per-GPU breakdown, the totals, the uncertainty, the usable memory and the margin."""
    share, verdict = view.share, view.placement.verdict
    rows, classes = estimate_rows(share)
    rows += [("Measured uncertainty above the total (up to)", verdict.uncertainty_bytes),
             (f"{view.gpu.name}: memory a process can allocate", verdict.usable_bytes),
             (f"{'Headroom' if verdict.margin_bytes >= 0 else 'Shortfall'} ({verdict.verdict})",
              abs(verdict.margin_bytes))]
    classes += ["", "", VERDICT_CLASS[verdict.verdict]]
    per = f"Memory per GPU, {view.job}" + (f", one of {view.placement.gpus} GPUs" if view.placement.gpus > 1 else "")
    return Shown(Table.of((Column("Component"), GIB_CELLS), rows, caption=per), tuple(classes))


def memory_report(view: MemoryView) -> Report:
    """The answer of a memory calculator (see the module docstring)."""
    share = view.share
    gist = (f"{view.spec.name}, {view.job}: {gib(share.total_bytes)} GiB on each GPU (peak allocated "
            f"{gib(share.peak_allocated_bytes)} GiB, in the {share.peak_phase} phase).")
    stored, notes = stored_weights_first(view.estimate.notes + view.notes)
    blocks: list[Any] = [*stored, Paragraph(gist)]
    if view.advice is not None:
        blocks += view.advice.blocks()
    blocks += [memory_chart([*share.breakdown.items(), *share.overhead.items()],
                            capacity_bytes=usable_memory_bytes(view.gpu), capacity_label=f"{view.gpu.name} (usable)",
                            title=f"{view.spec.name}, {view.job}, one GPU's memory", data=False),
               breakdown_table(view)]
    return Report(headline(view.placement), verdict=view.placement.verdict.verdict, blocks=tuple(blocks),
                  notes=notes, assumptions=(*share.assumptions, VERDICT_KEY),
                  warnings=view.spec.warnings)


def placement_data(view: MemoryView) -> dict[str, Any]:
    """The ``answer`` of a memory calculator's data: the placement, the format notes and the advice."""
    advice = FitAdvice(view.placement.verdict.verdict) if view.advice is None else view.advice
    return {**view.placement.to_dict(), "notes": list(view.notes), **advice.to_dict()}


def memory_data(view: MemoryView) -> dict[str, Any]:
    """The engine's estimate as ``mlhw train``/``infer --json`` always printed it, then ``answer`` (and
    ``per_gpu`` where an inference job is split)."""
    data = {**view.estimate.to_dict(), "answer": placement_data(view)}
    if view.share is not view.estimate:
        data["per_gpu"] = view.share.to_dict()
    return data


# --------------------------------------------------------------------------- KV cache
@dataclass(frozen=True)
class KVCacheView:
    """KV-cache size of a batch of sequences, with the weights beside it for scale."""

    spec: ModelSpec
    kv_dtype: str
    batch: int
    context: int
    bytes_per_token: int
    bytes_per_sequence: int
    total_bytes: int
    weights_dtype: str
    weight_bytes: int
    gpu: GPU


@functools.cache
def _kv_fields() -> tuple[Field, ...]:
    def default(name: str) -> Any:
        return default_of(inference.InferenceInputs, name)

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


def kv_cache_report(view: KVCacheView) -> Report:
    """Summary, stacked bar (weights + KV cache) against the GPU, and the KV-cache table; no verdict."""
    needed = view.weight_bytes + view.total_bytes
    usable = usable_memory_bytes(view.gpu)
    summary = (f"{view.spec.name} caches {view.bytes_per_token:,} bytes per token ({view.kv_dtype}, "
               f"{view.spec.num_layers} layers); {view.batch:,} x {view.context:,} tokens hold "
               f"{gib(view.total_bytes)} GiB of KV cache, {gib(needed)} GiB with the {view.weights_dtype} "
               f"weights: {needed / usable:.0%} of the {gib(usable)} GiB a process can allocate on the "
               f"{view.gpu.name}.")
    rows = [("KV cache per token, all layers", view.bytes_per_token, "bytes"),
            (f"KV cache per sequence of {view.context:,} tokens", view.bytes_per_sequence, "GiB"),
            (f"KV cache for {view.batch:,} sequences", view.total_bytes, "GiB"),
            (f"Weights ({view.weights_dtype})", view.weight_bytes, "GiB"),
            ("Weights and KV cache", needed, "GiB"),
            (f"{view.gpu.name}: memory a process can allocate", usable, "GiB")]
    value = Column("Value", lambda cell: f"{cell[0]:,}" if cell[1] == "bytes" else gib(cell[0]), "r")
    table = Table.of((Column("Quantity"), value, Column("Unit")),
                     [(name, (amount, unit), unit) for name, amount, unit in rows], caption="KV cache (GiB = 2^30 bytes)")
    return Report(summary, blocks=(
        Paragraph("Not a fit verdict: activations, the CUDA context and the allocator's reserve are not included "
                  "(the inference-memory and fit calculators count them)."),
        memory_chart([("weights", view.weight_bytes), ("kv_cache", view.total_bytes)], capacity_bytes=usable,
                     capacity_label=f"{view.gpu.name} (usable)", title=f"{view.spec.name}, weights and KV cache",
                     data=False),
        Shown(table, ("", "", "mlhw-subtotal", "", "mlhw-total", ""))), notes=view.spec.notes,
        warnings=view.spec.warnings)


def kv_cache_data(view: KVCacheView) -> dict[str, Any]:
    """The KV cache's numbers (bytes)."""
    return {"model": view.spec.name, "kv_dtype": view.kv_dtype, "batch": view.batch, "context": view.context,
            "bytes_per_token": view.bytes_per_token, "bytes_per_sequence": view.bytes_per_sequence,
            "total_bytes": view.total_bytes, "weights": view.weights_dtype, "weight_bytes": view.weight_bytes,
            "gpu": view.gpu.id, "usable_bytes": usable_memory_bytes(view.gpu)}


def calculators() -> list[Calculator]:
    """The memory calculators."""
    return [
        Calculator("training-memory", "Training memory", _training_fields(), _compute_training, memory_report,
                   memory_data, engines=(training_inputs.training_setup, training_placement),
                   own_defaults=TRAINING_OWN_DEFAULTS,
                   command="train", command_help="peak memory of one training step on your GPUs, and its verdict",
                   cli_fields=(base_dtype_field(),)),
        Calculator("inference-memory", "Inference memory", _inference_form(), _compute_inference, memory_report,
                   memory_data, engines=(inference.InferenceInputs, fit_inference),
                   own_defaults=INFERENCE_OWN_DEFAULTS, command="infer",
                   command_help="peak memory of prefill + decode on your GPUs, and its verdict"),
        Calculator("kv-cache", "KV cache", _kv_fields(), _compute_kv, kv_cache_report, kv_cache_data,
                   engines=(inference.InferenceInputs, inference.kv_cache_bytes),
                   own_defaults={"gpu": "the GPU the chart draws; the KV cache does not depend on it"}),
    ]


