"""The ``fit`` calculator (``mlhw fit train|infer``): one job on the reader's GPUs first, then every GPU of the catalog.

The answer opens with the reader's GPU and count, the verdict and the margin, and the fewest
GPUs that hold the job (:mod:`calculators.fit.placement`); the table then gives each catalog
GPU at the same count: its verdict, margin, the fewest GPUs it needs ("2 (tight) · 3 (fits)")
and the largest batch and context that fit. Each GPU runs its own 16-bit format (bf16, else
fp16: the same bytes; :func:`~calculators.dtype_support.on_gpu`); one that cannot run the
job's formats is named.

>>> from calculators.jobs.registry import get_calculator
>>> answer = get_calculator("fit").answer({"model": "llama-3.1-70b", "gpu": "rtx-4090", "gpus": "2",
...                                         "weights": "int4", "context": "8192"})
>>> answer.report.headline.split(":")[0], answer.data["answer"]["gpus_needed_tight"], answer.data["answer"]["gpus_needed"]
('On 2x GeForce RTX 4090, tensor or pipeline parallel', 2, 3)
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from calculators.catalog.custom_gpu import CustomGPU
from calculators.catalog.gpus import GPU, all_gpus
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.columns import Column, gib_column
from calculators.dtype_support import UnsupportedFormatError, on_gpu, sixteen_bit
from calculators.errors import InputError
from calculators.fit import (
    INFERENCE_SPLIT,
    MAX_GPUS_SEARCHED,
    TRAINING_SEARCH,
    FitResult,
    fit_inference,
    fit_training,
    split_inference_estimate,
)
from calculators.inputs.fields import Field, choice_field, default_of, int_field
from calculators.inputs.shared import GPU_HELP, custom_gpu_fields, gpu_field, model_config_field, model_field
from calculators.jobs.advice import FitAdvice, inference_advice, training_advice
from calculators.jobs.answer import (
    VERDICT_CLASS,
    VERDICT_KEY,
    headline,
    limit_text,
    needed_text,
    stored_weights_first,
)
from calculators.jobs.calculator import Calculator
from calculators.jobs.html import memory_chart
from calculators.jobs.plan_links import plan_links
from calculators.jobs.memory_fields import (
    INFERENCE_GPUS_HELP,
    TRAINING_GPUS_HELP,
    allocator_field,
    attention_field,
    base_dtype_field,
    inference_fields,
    training_fields,
)
from calculators.jobs.report import Paragraph, Report, Shown
from calculators.jobs.values import NOT_SETTINGS, Values, engine_settings, gpu_from_values, model_spec
from calculators.memory import inference, training_inputs
from calculators.model import ModelSpec
from calculators.tables import Table
from calculators.units import gib, number, signed_gib

#: The two jobs the fit calculator sizes.
FIT_JOBS = ("inference", "training")
FIT_OWN_DEFAULTS = {"job": "picks the engine (fit_inference or fit_training), so no engine has it",
                    "gpu": "the GPU the answer opens with; the engine is run on every catalog GPU too"}


@dataclass(frozen=True)
class FitView:
    """One job on the reader's GPUs (``answer``) and on every catalog GPU at the same count (``rows``)."""

    spec: ModelSpec
    job: str
    gpus: int
    gpu: GPU
    answer: FitResult
    rows: tuple[tuple[GPU, FitResult], ...]
    refused: tuple[str, ...] = ()  # GPUs that cannot run the job's number formats, with the reason
    notes: tuple[str, ...] = ()  # how the reader's GPU runs the job (its 16-bit format)
    advice: FitAdvice | None = None  # single changes that make the job fit the reader's GPUs, the best that fits


@functools.cache
def fit_fields() -> tuple[Field, ...]:
    """The fit form: the model, the job, the GPU and its count, then each job's settings."""
    def default(name: str) -> Any:
        return default_of(training_inputs.training_setup, name)

    shared = ("batch", "attention", "allocator")
    when = {job: ("job", job) for job in FIT_JOBS}
    return (
        model_field(), model_config_field(),
        choice_field("job", "Job", choices=FIT_JOBS, default=FIT_JOBS[0]),
        gpu_field("The answer opens with this GPU; the table lists every GPU.", custom=True).option(
            f"{GPU_HELP}: the answer opens with it, the table lists every catalog GPU"),
        *custom_gpu_fields(),
        int_field("gpus", "GPUs", default=default("gpus"), maximum=MAX_GPUS_SEARCHED,
                  help=f"Inference: {INFERENCE_GPUS_HELP} Training: {TRAINING_GPUS_HELP}").option(
            f"inference: GPUs the job is split over evenly ({INFERENCE_SPLIT}); training: data-parallel GPUs"),
        int_field("batch", "Batch", default=default("batch"),
                  maximum=min(training_inputs.MAX_BATCH, inference.MAX_BATCH), unit="sequences").option(
            "inference: concurrent sequences; training: micro-batch per GPU (sequences)"),
        *(field for field in inference_fields(show_when=when["inference"]) if field.name not in shared),
        *(field for field in training_fields(show_when=when["training"]) if field.name not in shared),
        attention_field(training_inputs.ATTENTIONS, default("attention")),
        allocator_field(training_inputs.training_setup),
    )


def fit_job_fields(fields: Sequence[Field], job: str) -> tuple[Field, ...]:
    """The fields of the fit calculator's engine settings for ``job`` (``training``: what
    :func:`~calculators.fit.fit_training` takes besides the model and the GPU).

    >>> [field.name for field in fit_job_fields(fit_fields(), "inference")]
    ['gpus', 'batch', 'weights', 'kv_cache', 'context', 'new_tokens', 'images', 'attention', 'allocator']
    """
    return tuple(field for field in fields if field.name not in NOT_SETTINGS
                 and (field.show_when is None or field.show_when == ("job", job)))


def _compute_fit(values: Values) -> FitView:
    spec = model_spec(values)
    job = str(values["job"])
    settings = engine_settings(fit_job_fields((*fit_fields(), base_dtype_field(("job", "training"))), job), values)
    if job == "inference":  # weights "auto": the checkpoint's format, before each GPU's 16-bit swap
        settings = inference.with_stored_weights(spec, settings)
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
        rows.append((gpu, _for(by_memory[key], gpu)))
    chosen = gpu_from_values(values)
    mine = next((result for gpu, result in rows if gpu.id == chosen.id and not isinstance(chosen, CustomGPU)), None)
    notes: tuple[str, ...] = ()
    if mine is None:  # your own GPU (a row of its own), or a catalog GPU the job's formats refuse
        asked = settings if isinstance(chosen, CustomGPU) else on_gpu(chosen, settings)
        mine = fit(spec, chosen, **asked)  # a format it cannot run is refused here, naming the input
        rows.append((chosen, mine))
    if on_gpu(chosen, settings) != settings and not isinstance(chosen, CustomGPU):
        notes = (f"{chosen.name} has no bf16: it runs fp16, the same bytes (as in the table)",)
    if not rows:
        raise InputError("weights" if job == "inference" else "precision", settings.get("weights", "?"),
                         "a format some GPU runs: " + "; ".join(refused))
    asked = settings if isinstance(chosen, CustomGPU) else on_gpu(chosen, settings)
    if job == "training":
        advice = training_advice(spec, chosen, mine.verdict, settings=asked, estimate=mine.estimate)
    else:
        gpus = int(asked["gpus"])
        advice = inference_advice(spec, chosen, mine.verdict, gpus=gpus, estimate=mine.estimate,
                                  settings={key: value for key, value in asked.items() if key != "gpus"})
    return FitView(spec=spec, job=job, gpus=int(settings["gpus"]), gpu=chosen, answer=mine, rows=tuple(rows),
                   refused=tuple(refused), notes=notes, advice=advice)


def _for(result: FitResult, gpu: GPU) -> FitResult:
    """A result computed on a GPU of the same memory, named after ``gpu``."""
    placement = result.placement
    if placement is not None:
        placement = dataclasses.replace(placement, gpu_id=gpu.id, gpu_name=gpu.name)
    return dataclasses.replace(result, gpu_id=gpu.id, placement=placement)


def _catalog_sentence(view: FitView) -> str:
    """What the catalog table shows, in one sentence: how many GPUs the job fits at this count, the smallest."""
    fitting = [gpu for gpu, result in view.rows if result.fits]
    count = f"{number(view.gpus)} GPUs each" if view.gpus > 1 else "one GPU"
    if not fitting:
        return f"On {count}, it fits none of the {len(view.rows)} GPUs below: see the GPUs each needs."
    smallest = min(fitting, key=lambda gpu: (usable_memory_bytes(gpu), gpu.name))
    return (f"On {count}, it fits {len(fitting)} of the {len(view.rows)} GPUs below; the smallest is the "
            f"{smallest.name} ({gib(usable_memory_bytes(smallest))} GiB usable).")


def fit_table(view: FitView) -> Shown:
    """Every GPU at the reader's count, smallest memory first (see the module docstring)."""
    training = view.job == "training"
    scheme = TRAINING_SEARCH if training else INFERENCE_SPLIT
    count = f"{number(view.gpus)} GPUs" if view.gpus > 1 else "one GPU"
    on = f"On {count}"
    each = "each GPU's share" if view.gpus > 1 else "the job"
    length = "sequence" if training else "context"
    # Each unusual column is explained in its header's tooltip, and the caption says them all.
    verdict_note = f"the verdict of {each}"
    margin_note = "usable memory less the total, negative when it does not fit"
    needed_note = f"the fewest whose share is at most tight, then the fewest that fit ({scheme})"
    limit_note = (f"the largest that fit on {count} with the other settings as set, then in brackets the largest that "
                  f"is at most tight; none: not even one {'sequence' if training else 'prompt'} of this length fits")
    limit = Column("Max sequence (tokens)" if training else "Max context (tokens)",
                   lambda pair: limit_text(*pair), "r", note=limit_note)
    columns = (Column("GPU"), gib_column("Memory (GiB)"), Column(on, note=verdict_note), gib_column("Usable (GiB)"),
               Column("Margin (GiB)", signed_gib, "r", note=margin_note),
               Column(f"GPUs needed ({scheme})", note=needed_note),
               Column("Max batch", lambda pair: limit_text(*pair), "r", note=limit_note), limit)
    ordered = sorted(view.rows, key=lambda item: (item[0].memory_bytes, item[0].name))
    rows, classes = [], []
    for gpu, result in ordered:
        placed = result.placement
        rows.append((gpu.name, gpu.memory_bytes, result.verdict.verdict, result.verdict.usable_bytes,
                     result.verdict.margin_bytes, needed_text(placed) if placed else "-",
                     (result.max_batch, result.max_batch_tight), (result.max_context, result.max_context_tight)))
        classes.append(" ".join(c for c in (VERDICT_CLASS[result.verdict.verdict],
                                            "mlhw-chosen" if gpu.id == view.gpu.id else "") if c))
    caption = (f"Every GPU in the catalog, smallest memory first, on {count} of each (GiB = 2^30 bytes). "
               f"{on}: {verdict_note}; margin: {margin_note}. GPUs needed: {needed_note}. "
               f"Max batch and max {length}: {limit_note}")
    return Shown(Table.of(columns, rows, caption=caption), tuple(classes))


def fit_report(view: FitView) -> Report:
    """The reader's GPUs first, then every catalog GPU (see the module docstring)."""
    answer, placed = view.answer, view.answer.placement
    assert placed is not None
    estimate = answer.estimate
    share = split_inference_estimate(estimate, view.gpus) if view.job == "inference" else estimate
    total = (f"{gib(estimate.total_bytes)} GiB on one GPU" if view.gpus == 1 or view.job == "training" else
             f"{gib(estimate.total_bytes)} GiB in all, {gib(share.total_bytes)} GiB on each of {number(view.gpus)}")
    stored, notes = stored_weights_first(view.notes + answer.notes + estimate.notes + view.refused)
    blocks: list[Any] = [*stored, Paragraph(f"{view.spec.name}, {view.job}: {total}" + (
        f" with {placed.split}" if placed.split and view.job == "training" else "") + ".")]
    if view.advice is not None:
        blocks += view.advice.blocks()
    blocks += [memory_chart([*share.breakdown.items(), *share.overhead.items()],
                            capacity_bytes=usable_memory_bytes(view.gpu), capacity_label=f"{view.gpu.name} (usable)",
                            title=f"{view.spec.name}, {view.job}, one GPU's memory"),
               Paragraph(_catalog_sentence(view)), fit_table(view)]
    return Report(headline(placed), verdict=answer.verdict.verdict, blocks=tuple(blocks),
                  notes=notes,
                  assumptions=(*estimate.assumptions, VERDICT_KEY), warnings=view.spec.warnings)


def fit_data(view: FitView) -> dict[str, Any]:
    """``answer`` (the reader's GPUs), ``gpus`` (each catalog GPU's result at that count), ``refused``."""
    placed = view.answer.placement
    assert placed is not None
    advice = FitAdvice(view.answer.verdict.verdict) if view.advice is None else view.advice
    return {"answer": {**placed.to_dict(), "notes": list(view.notes), **advice.to_dict()},
            "gpus": [result.to_dict() for _, result in view.rows], "refused": list(view.refused)}


def calculators() -> list[Calculator]:
    """The fit calculator."""
    return [Calculator("fit", "Which GPUs does it fit?", fit_fields(), _compute_fit, fit_report, fit_data,
                       engines=(training_inputs.training_setup, inference.InferenceInputs, fit_training, fit_inference),
                       own_defaults=FIT_OWN_DEFAULTS, command="fit",
                       command_help="a job on your GPUs, then on every GPU: verdict, GPUs needed, max batch/context",
                       cli_fields=(base_dtype_field(show_when=("job", "training")),),
                       links=functools.partial(plan_links, "fit"))]
