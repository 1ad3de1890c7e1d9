"""Widget ``embedding-memory`` and ``mlhw embed``: memory of an encoder's forward for embedding or reranking.

An encoder is served one replica per GPU (:mod:`calculators.fit_encoder`), so the answer is on one
GPU: the verdict and the margin first, then the largest batch and padded sequence that fit.

>>> calculator = calculators()[0]
>>> answer = calculator.answer({"model": "bge-m3", "batch": "32", "seq": "512"})
>>> "BGE-M3" in answer.html and "<svg" in answer.html and "GiB" in answer.html
True
>>> answer.report.headline.startswith("On 1x H100 SXM 80GB: fits")
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculators.catalog.encoder_models import all_encoder_records, resolve_encoder
from calculators.catalog.gpus import GPU
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.columns import Column
from calculators.config_input import load_config_text
from calculators.encoder import EncoderSpec, encoder_from_config
from calculators.errors import InputError
from calculators.fit import Placement
from calculators.fit_encoder import EncoderFit, fit_encoder
from calculators.inputs.fields import Field, choice_field, config_field, default_of, int_field
from calculators.inputs.shared import CUSTOM, ENGINE_GPU, GPU_HELP, custom_gpu_fields, gpu_field
from calculators.jobs.answer import VERDICT_KEY, headline, limit_text
from calculators.jobs.calculator import Calculator
from calculators.jobs.html import label, memory_chart
from calculators.jobs.memory import GIB_CELLS
from calculators.jobs.report import Paragraph, Report, Shown
from calculators.jobs.values import Values, engine_settings, gpu_from_values
from calculators.memory import encoder as memory
from calculators.memory.overhead import ALLOCATORS
from calculators.tables import Table
from calculators.units import gib

#: The encoder the form opens on.
DEFAULT_ENCODER = "bge-m3"
#: Why the form's model and GPU are not read from an engine.
OWN_DEFAULTS = {
    "model": f"the engine requires an encoder; the form opens on {DEFAULT_ENCODER}",
    "gpu": ENGINE_GPU,
}


@dataclass(frozen=True)
class EncoderView:
    """One encoder forward on one GPU."""

    spec: EncoderSpec
    fit: EncoderFit
    gpu: GPU

    @property
    def placement(self) -> Placement:
        """The forward on the reader's one GPU (an encoder is served one replica per GPU: no search)."""
        return Placement(self.gpu.id, self.gpu.name, 1, "", self.fit.verdict)


def _fields() -> tuple[Field, ...]:
    setup = memory.encoder_setup

    def default(name: str) -> Any:
        return default_of(setup, name)

    records = all_encoder_records()
    return (
        choice_field("model", "Encoder", default=DEFAULT_ENCODER, choices=[r.id for r in records] + [CUSTOM],
                     labels=[f"{r.name} ({r.task})" for r in records] + ["Custom: paste or upload a config.json"],
                     help="An embedding model, reranker or encoder backbone, or your own BERT, XLM-RoBERTa or "
                          "ModernBERT config.json.").option(
            "encoder catalog id (e.g. bge-m3, bge-reranker-v2-m3, modernbert-base) or path to its config.json",
            required=True),
        config_field("config", "config.json", show_when=("model", CUSTOM),
                     help="A Hugging Face config.json of model_type bert, roberta, xlm-roberta or modernbert."),
        gpu_field("The verdict is for this GPU.", custom=True).option(GPU_HELP, required=True),
        *custom_gpu_fields(),
        int_field("batch", "Batch", default=default("batch"), maximum=memory.MAX_BATCH,
                  unit="sequences per forward").option("sequences per forward pass"),
        int_field("seq", "Sequence length", default=default("seq"), maximum=memory.MAX_SEQ,
                  unit="tokens, padded to the longest").option("tokens per sequence after padding to the longest"),
        choice_field("weights", "Weights", choices=memory.WEIGHTS, default=default("weights"),
                     help="The activations follow the weights' format.").option(f"one of {', '.join(memory.WEIGHTS)}"),
        choice_field("attention", "Attention kernel", choices=memory.ATTENTIONS, default=default("attention"),
                     advanced=True, help="eager materialises the batch x heads x seq x seq scores.").option(
            f"one of {', '.join(memory.ATTENTIONS)}"),
        choice_field("allocator", "PyTorch allocator", choices=ALLOCATORS, default=default("allocator"),
                     advanced=True, help="expandable_segments removes the fragmentation reserve: modelled, not "
                                         "measured.").option(f"PyTorch caching allocator: one of {', '.join(ALLOCATORS)}"),
    )


def encoder_spec(values: Values) -> EncoderSpec:
    """The encoder chosen in ``values``: a catalog id (or, from the command line, a config.json's path), or the
    shapes of the pasted config."""
    if values["model"] == CUSTOM:
        text = str(values.get("config", ""))
        if not text.strip():
            raise InputError("config", "", "the text of a Hugging Face encoder config.json")
        return encoder_from_config(load_config_text(text))
    return resolve_encoder(str(values["model"]))


def _compute(values: Values) -> EncoderView:
    spec, gpu = encoder_spec(values), gpu_from_values(values)
    settings = engine_settings(_fields(), values)
    return EncoderView(spec=spec, fit=fit_encoder(spec, gpu, **settings), gpu=gpu)


def _echo(values: Values) -> str:
    """What was read from a pasted encoder config.json, said before the answer."""
    return f"Read from your config.json: {encoder_spec(values).describe()}."


def _report(view: EncoderView) -> Report:
    fit, estimate, gpu = view.fit, view.fit.estimate, view.gpu
    gist = (f"{view.spec.name} ({estimate.parameters:,} parameters loaded), one forward: needs "
            f"{gib(estimate.total_bytes)} GiB (peak allocated {gib(estimate.peak_allocated_bytes)} GiB; derived "
            f"from traced transformers forwards). Largest batch at this length: "
            f"{limit_text(fit.max_batch, fit.max_batch_tight)}; longest padded sequence at this batch: "
            f"{limit_text(fit.max_seq, fit.max_seq_tight)} tokens.")
    rows = [(label(name), value) for name, value in estimate.breakdown.items() if value]
    rows.append(("Peak allocated", estimate.peak_allocated_bytes))
    rows += [(label(name), value) for name, value in estimate.overhead.items()]
    rows.append(("Total on the GPU", estimate.total_bytes))
    table = Table.of((Column("Component"), GIB_CELLS), rows, caption="Memory of one encoder forward (GiB = 2^30 bytes)")
    placed = view.placement
    return Report(headline(placed), verdict=placed.verdict.verdict, blocks=(
        Paragraph(gist),
        memory_chart([*estimate.breakdown.items(), *estimate.overhead.items()], capacity_bytes=usable_memory_bytes(gpu),
                     capacity_label=f"{gpu.name} (usable)", title=f"{view.spec.name}, one forward", data=False),
        Shown(table)), notes=estimate.notes, assumptions=(*estimate.assumptions, VERDICT_KEY),
        warnings=estimate.warnings)


def _data(view: EncoderView) -> dict[str, Any]:
    """What ``mlhw embed --json`` printed before, then ``answer``: the verdict on the reader's GPU."""
    return {**view.fit.to_dict(), "answer": view.placement.to_dict()}


def calculators() -> list[Calculator]:
    """The ``embedding-memory`` widget, whose fields are also the options of ``mlhw embed``."""
    return [Calculator("embedding-memory", "Embedding and reranking memory", _fields(), _compute, _report, _data,
                       engines=(memory.encoder_setup, fit_encoder), own_defaults=OWN_DEFAULTS, command="embed",
                       command_help="memory of an encoder forward for embedding or reranking, with the fit verdict",
                       echo=_echo)]
