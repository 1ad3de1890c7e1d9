"""The ``models-for`` calculator (``mlhw models-for``): pick GPUs, see which catalog models fit (#27 item 4).

The answer opens with the count that fits on the reader's GPUs ("On 1x GeForce RTX 4090: 80 of 123
models fit for inference at 8,192 tokens ..."), then every catalog model, smallest first: the best
weights format whose inference fits and its margin, and the LoRA and QLoRA fine-tuning verdicts
(:func:`calculators.fit.reverse.models_for_gpu`; each is the verdict ``fit`` gives for that job).

>>> from calculators.jobs.registry import get_calculator
>>> answer = get_calculator("models-for").answer({"gpu": "rtx-4090", "context": "8192"})
>>> answer.report.headline.startswith("On 1x GeForce RTX 4090: ")
True
>>> row = next(row for row in answer.data["models"] if row["model"] == "llama-3-8b")
>>> row["inference_weights"], row["inference"]["verdict"]
('bf16', 'fits')
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.columns import Column, number_column
from calculators.fit import FitVerdict
from calculators.fit.best import WEIGHTS_BY_QUALITY
from calculators.memory.weight_formats import AUTO
from calculators.fit.reverse import ModelFit, models_for_gpu
from calculators.inputs.fields import Field, bool_field, default_of, int_field
from calculators.inputs.shared import custom_gpu_fields, gpu_field
from calculators.jobs.answer import VERDICT_CLASS, VERDICT_KEY
from calculators.jobs.calculator import Calculator
from calculators.jobs.report import Paragraph, Report, Shown
from calculators.jobs.values import Values, engine_settings, gpu_from_values
from calculators.memory import inference
from calculators.memory.training_inputs import MAX_SEQ
from calculators.fit.verdict import MAX_GPUS_SEARCHED
from calculators.tables import Table
from calculators.units import number, signed_gib

OWN_DEFAULTS = {"gpu": "the GPU whose models are listed; the engine takes a GPU record and has no default"}


@dataclass(frozen=True)
class ModelsView:
    """Every catalog model on the reader's GPUs."""

    gpu: GPU
    gpus: int
    context: int
    batch: int
    seq: int
    grad_checkpointing: bool
    rows: tuple[ModelFit, ...]


@functools.cache
def _fields() -> tuple[Field, ...]:
    def default(name: str) -> Any:
        return default_of(models_for_gpu, name)

    return (
        gpu_field("Every catalog model is sized on this GPU.", custom=True).option(
            "GPU id (see 'mlhw gpus'), custom:memory_gb=N,... or mac:GB"),
        *custom_gpu_fields(),
        int_field("gpus", "GPUs", default=default("gpus"), maximum=MAX_GPUS_SEARCHED,
                  help="Inference splits each model evenly over them (tensor or pipeline parallel); fine-tuning "
                       "shards it with ZeRO-3 above one GPU.").option(
            "GPUs: inference split evenly (tensor or pipeline parallel); fine-tuning data parallel with ZeRO-3"),
        int_field("context", "Inference context", default=default("context"), maximum=inference.MAX_CONTEXT,
                  unit="tokens").option("inference prompt length in tokens"),
        int_field("batch", "Inference batch", default=default("batch"), maximum=inference.MAX_BATCH,
                  unit="sequences").option("inference: concurrent sequences"),
        int_field("seq", "Fine-tuning sequence", default=default("seq"), maximum=MAX_SEQ,
                  unit="tokens").option("LoRA/QLoRA sequence length in tokens (one sequence per micro-batch)"),
        bool_field("grad_checkpointing", "Gradient checkpointing (fine-tuning)",
                   default=default("grad_checkpointing"),
                   help="Full activation recomputation, the usual setting for LoRA on one GPU.").option(
            "fine-tuning recomputes activations (turn off with --no-grad-checkpointing)",
            flag="--no-grad-checkpointing"),
    )


def _compute(values: Values) -> ModelsView:
    gpu = gpu_from_values(values)
    settings = engine_settings(_fields(), values)
    rows = models_for_gpu(gpu, **settings)
    return ModelsView(gpu=gpu, gpus=int(settings["gpus"]), context=int(settings["context"]),
                      batch=int(settings["batch"]), seq=int(settings["seq"]),
                      grad_checkpointing=bool(settings["grad_checkpointing"]), rows=rows)


def _count(rows: tuple[ModelFit, ...], pick: str) -> int:
    found = (getattr(row, pick) for row in rows)
    return sum(1 for verdict in found if verdict is not None and verdict.fits)


def _cell(verdict: FitVerdict | None) -> str:
    """A verdict and its margin: ``fits, +6.4``; ``-`` where the job does not apply."""
    return "-" if verdict is None else f"{verdict.verdict}, {signed_gib(verdict.margin_bytes)}"


def _report(view: ModelsView) -> Report:
    rows = view.rows
    where = f"On {number(view.gpus)}x {view.gpu.name}"
    batch = f", batch {number(view.batch)}" if view.batch > 1 else ""
    headline = (f"{where}: {_count(rows, 'inference')} of {len(rows)} models fit for inference at "
                f"{number(view.context)} tokens{batch} (each with the best weights format that fits), "
                f"{_count(rows, 'lora')} for LoRA and {_count(rows, 'qlora')} for QLoRA fine-tuning of "
                f"{number(view.seq)}-token sequences.")
    by_format = {("as stored" if form == AUTO else form): sum(1 for row in rows if row.weights == form)
                 for form in (AUTO, *WEIGHTS_BY_QUALITY)}
    gist = "Inference, best format that fits: " + ", ".join(
        f"{form} {count}" for form, count in by_format.items() if count) + (
        f"; none {sum(1 for row in rows if not row.weights)}." if any(not row.weights for row in rows) else ".")
    each = " per GPU" if view.gpus > 1 else ""
    table = Table.of(
        (Column("Model"), number_column("Parameters (B)", 1, unit=1e9), Column("Inference: best weights"),
         Column(f"Inference verdict, margin (GiB{each})"), Column(f"LoRA, margin (GiB{each})"),
         Column(f"QLoRA, margin (GiB{each})")),
        [(row.name, row.parameters, row.weights_name if row.weights else f"none ({row.weights_name} shown)",
          _cell(row.inference), _cell(row.lora),
          _cell(row.qlora)) for row in rows],
        caption=(f"Every catalog model, smallest first, on {number(view.gpus)}x {view.gpu.name} (GiB = 2^30 bytes). "
                 f"Inference: a prompt of {number(view.context)} tokens{batch}, no new tokens, the best weights "
                 "format that fits (bf16 > fp8 > int8 > int4; fp8 only where the GPU multiplies in it; a checkpoint stored "
                 "quantised in its own format first, then only smaller formats), split "
                 "evenly over the GPUs. LoRA and QLoRA: one sequence of "
                 f"{number(view.seq)} tokens per micro-batch, rank 16 on every projection, "
                 + ("gradient checkpointing" if view.grad_checkpointing else "no gradient checkpointing")
                 + (", data parallel with ZeRO-3" if view.gpus > 1 else "") + "; -: the model has no projection "
                 "LoRA adapts. Margin: usable memory less the total, negative when it does not fit"))
    classes = tuple(VERDICT_CLASS[row.inference.verdict] for row in rows)
    return Report(headline, blocks=(Paragraph(gist), Shown(table, classes)),
                  notes=("Open a model in the fit calculator for the GPUs it needs, its largest batch and context, "
                         "and the single changes that make it fit.",),
                  assumptions=(VERDICT_KEY,))


def _data(view: ModelsView) -> dict[str, Any]:
    """The GPUs, the jobs and each model's row (bytes)."""
    return {"gpu": view.gpu.id, "gpus": view.gpus, "context": view.context, "batch": view.batch, "seq": view.seq,
            "grad_checkpointing": view.grad_checkpointing,
            "fit_counts": {job: _count(view.rows, job) for job in ("inference", "lora", "qlora")},
            "models": [row.to_dict() for row in view.rows]}


def calculators() -> list[Calculator]:
    """The reverse calculator."""
    return [Calculator("models-for", "Which models fit these GPUs?", _fields(), _compute, _report, _data,
                       engines=(models_for_gpu,), own_defaults=OWN_DEFAULTS, command="models-for",
                       command_help="your GPUs: which catalog models fit for inference and LoRA/QLoRA fine-tuning")]
