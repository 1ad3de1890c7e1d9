"""Widget ``vision-training``: training memory of a ResNet or ViT image classifier at a resolution.

>>> calculator = calculators()[0]
>>> answer = calculator.answer({"network": "vit-b-16", "batch": "64"})
>>> "ViT-B/16" in answer.html and "<svg" in answer.html and "GiB" in answer.html
True
>>> answer.report.headline.startswith("On 1x H100 SXM 80GB: fits")
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from calculators.catalog.gpus import GPU, all_gpus, get_gpu
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.catalog.vision_models import VisionModel, all_vision_models, get_vision_model, vision_model_ids
from calculators.config_input import load_config_text
from calculators.errors import InputError
from calculators.inputs.fields import Field, Value, choice_field, config_field, default_of, int_field
from calculators.inputs.shared import DEFAULT_GPU
from calculators.memory.optimizers import OPTIMIZERS
from calculators.memory.result import MemoryEstimate
from calculators.memory.vision import (
    MAX_BATCH,
    MAX_RESOLUTION,
    PRECISIONS,
    vision_model_from_config,
    vision_training_memory,
)
from calculators.columns import Column
from calculators.fit import Placement, fit_verdict
from calculators.jobs.answer import VERDICT_KEY, headline
from calculators.jobs.calculator import Calculator
from calculators.jobs.html import label, memory_chart
from calculators.jobs.memory import GIB_CELLS
from calculators.jobs.report import Paragraph, Report, Shown
from calculators.tables import Table
from calculators.units import gib

#: ``network`` value that reads the shapes from the pasted config.json.
CUSTOM = "custom"


@dataclass(frozen=True)
class VisionView:
    """A vision training estimate drawn against one GPU."""

    model: VisionModel
    resolution: int
    batch: int
    estimate: MemoryEstimate
    gpu: GPU


#: Inputs whose default is not read from :func:`~calculators.memory.vision.vision_training_memory`, and why.
OWN_DEFAULTS = {
    "network": "the engine requires a network; the form opens on ResNet-50",
    "gpu": "the GPU the chart draws; memory does not depend on it",
    "resolution": "the engine's None is the network's training size; the form shows it as a number (224 for "
                  "every catalog network)",
    "optimizer": "the engine's None is the network's recipe (SGD for ResNets, AdamW for ViTs); the choices are "
                 "the optimizers, so the form opens on SGD, the opening ResNet's",
}


def _fields() -> tuple[Field, ...]:
    def default(name: str) -> Any:
        return default_of(vision_training_memory, name)

    gpus = all_gpus()
    return (
        choice_field("network", "Network", default="resnet-50", choices=[*vision_model_ids(), CUSTOM],
                     labels=[*(m.name for m in all_vision_models()), "Custom: paste or upload a config.json"]),
        config_field("config", "config.json", show_when=("network", CUSTOM),
                     help="A Hugging Face ViT or ResNet config.json."),
        choice_field("gpu", "GPU", default=DEFAULT_GPU, choices=[g.id for g in gpus],
                     labels=[f"{g.name} ({g.memory_gib:g} GiB)" for g in gpus],
                     help="The chart draws this GPU's memory as a dashed line."),
        int_field("batch", "Batch", default=default("batch"), maximum=MAX_BATCH, unit="images per GPU"),
        int_field("resolution", "Resolution", default=224, minimum=32, maximum=MAX_RESOLUTION,
                  unit="pixels (square)", help="ViT needs a multiple of its patch size."),
        choice_field("precision", "Precision", choices=PRECISIONS, default=default("precision"),
                     help="-mixed: fp32 weights with 16-bit autocast."),
        choice_field("optimizer", "Optimizer", choices=list(OPTIMIZERS), default="sgd", labels=list(OPTIMIZERS),
                     help="torchvision's recipes: SGD with momentum for ResNets, AdamW for ViTs."),
    )


def _compute(values: Mapping[str, Value]) -> VisionView:
    name = str(values["network"]).strip().lower()
    if name == CUSTOM:
        text = str(values.get("config", ""))
        if not text.strip():
            raise InputError("config", "", "the text of a Hugging Face ViT or ResNet config.json")
        model = vision_model_from_config(load_config_text(text))
    else:
        model = get_vision_model(name)
    resolution = values["resolution"]
    estimate = vision_training_memory(model, batch=int(values["batch"]), resolution=resolution,  # type: ignore[arg-type]
                                      precision=str(values["precision"]), optimizer=str(values["optimizer"]))
    return VisionView(model=model, resolution=int(float(resolution)), batch=int(values["batch"]), estimate=estimate,
                      gpu=get_gpu(str(values["gpu"])))


def _report(view: VisionView) -> Report:
    estimate, gpu = view.estimate, view.gpu
    placed = Placement(gpu.id, gpu.name, 1, "", fit_verdict(estimate, gpu))
    summary = (f"{view.model.name} ({estimate.parameters:,} parameters), batch {view.batch} at {view.resolution} px: "
               f"needs {gib(estimate.total_bytes)} GiB (peak allocated {gib(estimate.peak_allocated_bytes)} GiB in "
               f"the {estimate.peak_phase} phase; derived, not measured).")
    rows = [(label(name), value) for name, value in estimate.breakdown.items() if value]
    rows.append((f"Peak allocated ({estimate.peak_phase} phase)", estimate.peak_allocated_bytes))
    rows += [(label(name), value) for name, value in estimate.overhead.items()]
    rows.append(("Total on the GPU", estimate.total_bytes))
    table = Table.of((Column("Component"), GIB_CELLS), rows, caption="Memory of one training step (GiB = 2^30 bytes)")
    return Report(headline(placed), verdict=placed.verdict.verdict, blocks=(
        Paragraph(summary),
        memory_chart([*estimate.breakdown.items(), *estimate.overhead.items()], capacity_bytes=usable_memory_bytes(gpu),
                     capacity_label=f"{gpu.name} (usable)", title=f"{view.model.name}, training", data=False),
        Shown(table)), notes=estimate.notes, assumptions=(*estimate.assumptions, VERDICT_KEY))


def _data(view: VisionView) -> dict[str, Any]:
    """The estimate and its verdict on the chosen GPU."""
    placed = Placement(view.gpu.id, view.gpu.name, 1, "", fit_verdict(view.estimate, view.gpu))
    return {"network": view.model.name, "batch": view.batch, "resolution": view.resolution,
            **view.estimate.to_dict(), "answer": placed.to_dict()}


def calculators() -> list[Calculator]:
    """The ``vision-training`` widget."""
    return [Calculator("vision-training", "Image-classifier training memory", _fields(), _compute, _report, _data,
                       engines=(vision_training_memory,), own_defaults=OWN_DEFAULTS)]
