"""Widget ``embedding-memory`` (and ``mlhw embed``): memory of an encoder's forward for embedding or reranking.

>>> from calculators.widgets.registry import get_calculator
>>> html = get_calculator("embedding-memory").run({"model": "bge-m3", "batch": "32", "seq": "512"})
>>> "BGE-M3" in html and "<svg" in html and "GiB" in html
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculators.catalog.encoder_models import all_encoder_records, get_encoder
from calculators.catalog.gpus import GPU
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.config_input import load_config_text
from calculators.encoder import EncoderSpec, encoder_from_config
from calculators.errors import InputError
from calculators.fit_encoder import EncoderFit, fit_encoder
from calculators.memory import encoder as memory
from calculators.memory.overhead import ALLOCATORS
from calculators.units import gib
from calculators.widgets.calculator import Calculator
from calculators.inputs.fields import Field, choice_field, config_field, default_of, int_field
from calculators.inputs.shared import CUSTOM, ENGINE_GPU, GPU_HELP, custom_gpu_fields, gpu_field
from calculators.widgets.inputs import Values, gpu_from_values
from calculators.widgets.registry import engine_settings, get_calculator
from calculators.widgets.render import chart_html, label, notes_html, paragraph, table_html

#: The encoder the form opens on.
DEFAULT_ENCODER = "bge-m3"
#: Why the form's model and GPU are not read from an engine.
OWN_DEFAULTS = {
    "model": f"the engine requires an encoder; the form opens on {DEFAULT_ENCODER}",
    "gpu": ENGINE_GPU,
}


@dataclass(frozen=True)
class EncoderView:
    """One encoder forward drawn against one GPU."""

    spec: EncoderSpec
    fit: EncoderFit
    gpu: GPU


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
    """The encoder chosen in ``values``: a catalog entry, or the shapes of the pasted config."""
    if values["model"] == CUSTOM:
        text = str(values.get("config", ""))
        if not text.strip():
            raise InputError("config", "", "the text of a Hugging Face encoder config.json")
        return encoder_from_config(load_config_text(text))
    return get_encoder(str(values["model"]))


def _compute(values: Values) -> EncoderView:
    spec, gpu = encoder_spec(values), gpu_from_values(values)
    settings = engine_settings(get_calculator("embedding-memory").fields, values)
    return EncoderView(spec=spec, fit=fit_encoder(spec, gpu, **settings), gpu=gpu)


def _echo(values: Values) -> str:
    """What was read from a pasted encoder config.json, above the result."""
    return paragraph(f"Read from your config.json: {encoder_spec(values).describe()}.", css="mlhw-echo")


def _render(view: EncoderView) -> str:
    fit, estimate, gpu = view.fit, view.fit.estimate, view.gpu
    summary = (f"{view.spec.name} ({estimate.parameters:,} parameters loaded), one forward: needs "
               f"{gib(estimate.total_bytes)} GiB (peak allocated {gib(estimate.peak_allocated_bytes)} GiB; derived "
               f"from traced transformers forwards). On the {gpu.name} it "
               f"{fit.verdict.summary().replace('fits:', 'fits,', 1)}. Largest batch at this length: "
               f"{fit.max_batch:,}; longest padded sequence at this batch: {fit.max_seq:,} tokens.")
    rows = [[label(name), gib(value)] for name, value in estimate.breakdown.items() if value]
    rows.append(["Peak allocated", gib(estimate.peak_allocated_bytes)])
    rows += [[label(name), gib(value)] for name, value in estimate.overhead.items()]
    rows.append(["Total on the GPU", gib(estimate.total_bytes)])
    segments = [*estimate.breakdown.items(), *estimate.overhead.items()]
    return "".join([
        paragraph(summary),
        chart_html(segments, capacity_bytes=usable_memory_bytes(gpu), capacity_label=f"{gpu.name} (usable)",
                   title=f"{view.spec.name}, one forward"),
        table_html(["Component", "GiB (2^30 bytes)"], rows, numeric=[False, True],
                   caption="Memory of one encoder forward (GiB = 2^30 bytes)"),
        notes_html(estimate.assumptions, estimate.notes),
    ])


def calculators() -> list[Calculator]:
    """The ``embedding-memory`` widget, whose fields are also the options of ``mlhw embed``."""
    return [Calculator("embedding-memory", "Embedding and reranking memory", _fields(), _compute, _render,
                       engines=(memory.encoder_setup, fit_encoder), own_defaults=OWN_DEFAULTS, command="embed",
                       echo=_echo)]
