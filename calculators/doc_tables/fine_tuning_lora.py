"""Tables of the LoRA and QLoRA page (docs/fine-tuning/lora-and-qlora.md).

Every cell comes from :func:`calculators.memory.training.training_memory`,
:func:`calculators.memory.lora.lora_parameters` or
:func:`calculators.memory.weights.weight_bytes`, for the jobs of
:mod:`calculators.doc_tables.fine_tuning`.

>>> table = lora_rank_targets()
>>> table.id
'fine-tuning-lora-rank-targets'
"""

from __future__ import annotations

from collections.abc import Iterable

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import READ_ON, get_model, model_name
from calculators.columns import Column, decimal_column, gib_column
from calculators.doc_tables.fine_tuning import JOB_TEXT, METHODS, SIZE_CLASSES, estimate_job, fit_columns, fits
from calculators.dtypes import DType
from calculators.memory.lora import lora_parameters
from calculators.memory.training import training_memory
from calculators.memory.weights import quantized_bytes_per_element, weight_bytes
from calculators.tables import Table, TableFunction, declared_tables, table
from calculators.units import gib, number

LORA_MODEL = "llama-3-8b"
LORA_RANKS: tuple[int, ...] = (8, 16, 64, 256)
LORA_TARGET_SETS: tuple[tuple[str, str], ...] = (
    ("q,v", "q,v"),
    ("q,k,v,o", "q,k,v,o"),
    ("all-linear", "all-linear"),
)

#: Models of the QLoRA-by-size table, sorted by parameter count when rendered.
QLORA_MODELS: tuple[str, ...] = ("llama-3-8b", "qwen2.5-7b", "llama-2-13b", "qwen2.5-14b", "qwen2.5-32b",
                                 "yi-34b", "llama-3-70b", "qwen2.5-72b")


@table("fine-tuning-lora-key-numbers")
def lora_key_numbers() -> Table:
    """Headline figures of the LoRA/QLoRA page."""
    spec = get_model(LORA_MODEL)
    trainable = lora_parameters(spec, rank=16, targets="all-linear")
    lora = estimate_job(LORA_MODEL, METHODS[2][1], grad_checkpointing=False)
    rows = (
        (f"trainable parameters, r16 all-linear, {model_name(LORA_MODEL)}", number(trainable / 1e6, 1), "million",
         lora_parameters),
        ("trainable share of the model", number(100 * trainable / spec.parameters, 2), "%", lora_parameters),
        ("NF4 with double quantisation", number(8 * quantized_bytes_per_element(DType.NF4), 3), "bits/parameter",
         quantized_bytes_per_element),
        ("activations saved for backward, same LoRA job, no checkpointing",
         gib(lora.breakdown.get("activations", 0), grouped=False), "GiB", training_memory),
        ("fp32 adapters with their AdamW moments, same job",
         gib(trainable * 4 + lora.breakdown["optimizer_states"], grouped=False), "GiB", training_memory),
    )
    return Table.key_numbers(
        rows, columns=("quantity", "value", "unit", "function"), dotted=True,
        caption=f"Derived by the calculators for {model_name(LORA_MODEL)}, {JOB_TEXT}, bf16 base, bf16 autocast, "
                "AdamW.",
        assumptions=(f"model config as read on {READ_ON}",))


@table("fine-tuning-lora-rank-targets")
def lora_rank_targets() -> Table:
    """Trainable parameters and peak memory against LoRA rank and target set, for one model."""
    spec = get_model(LORA_MODEL)
    rows = []
    for rank in LORA_RANKS:
        for label, targets in LORA_TARGET_SETS:
            trainable = lora_parameters(spec, rank=rank, targets=targets)
            settings = {**METHODS[2][1], "lora_rank": rank, "lora_targets": targets}
            off = estimate_job(LORA_MODEL, settings, grad_checkpointing=False)
            on = estimate_job(LORA_MODEL, settings, grad_checkpointing=True)
            rows.append((rank, label, trainable, 100 * trainable / spec.parameters, off.peak_allocated_bytes,
                         on.peak_allocated_bytes))
    return Table.of(
        caption=(f"LoRA on {model_name(LORA_MODEL)} with a bf16 base and fp32 adapters, {JOB_TEXT}, "
                 "AdamW: trainable parameters (lora_parameters: rank x (in + out) per adapted linear) and "
                 "peak_allocated_bytes (training_memory) with gradient checkpointing off and on."),
        columns=(Column("rank", align="r"), Column("targets"), decimal_column("trainable (M)", unit=1e6),
                 decimal_column("% of model", 3), gib_column("peak GiB, ckpt off"), gib_column("peak GiB, ckpt on")),
        rows=rows,
        assumptions=("all-linear = q,k,v,o,gate,up,down", f"model config as read on {READ_ON}"),
    )


_BREAKDOWN_COLUMNS: tuple[tuple[str, str], ...] = (
    ("weights", "weights GiB"),
    ("optimizer_states", "AdamW moments GiB"),
    ("autocast_weight_copies", "autocast copies GiB"),
    ("activations", "activations GiB"),
    ("transient_at_peak", "transient (logits, loss) GiB"),
)


@table("fine-tuning-lora-breakdown")
def lora_breakdown() -> Table:
    """What is live at the LoRA and QLoRA peak: the frozen base and the activations, not the adapters."""
    rows = []
    for label, settings in METHODS[2:]:
        for checkpointing in (False, True):
            estimate = estimate_job(LORA_MODEL, settings, grad_checkpointing=checkpointing)
            parts = [estimate.breakdown.get(key, 0) for key, _ in _BREAKDOWN_COLUMNS]
            rows.append((label, "on" if checkpointing else "off", estimate.peak_phase, *parts,
                         estimate.peak_allocated_bytes))
    return Table.of(
        caption=(f"Breakdown of peak_allocated_bytes at the peak (training_memory's breakdown) for "
                 f"{model_name(LORA_MODEL)}, rank 16 on all linear layers, {JOB_TEXT}. 'weights' is the "
                 "frozen base plus the fp32 adapters; 'transient' is the transient_at_peak term: at this peak, "
                 "the start of backward, three fp32 logits-sized tensors (the log-softmax cross-entropy saved and "
                 "the two tensors of the loss gradient)."),
        columns=(Column("method"), Column("grad. ckpt"), Column("peak phase"),
                 *(gib_column(name) for _, name in _BREAKDOWN_COLUMNS), gib_column("peak GiB")),
        rows=rows,
        assumptions=(f"model config as read on {READ_ON}",),
    )


def _sorted_by_size(models: Iterable[str]) -> list[str]:
    return sorted(models, key=lambda model: (get_model(model).parameters, model))


@table("fine-tuning-qlora-by-size")
def qlora_by_size() -> Table:
    """QLoRA peak and total per model size, with the NF4 weights beside the bf16 ones."""
    rows = []
    for model in _sorted_by_size(QLORA_MODELS):
        spec = get_model(model)
        off = estimate_job(model, METHODS[3][1], grad_checkpointing=False)
        on = estimate_job(model, METHODS[3][1], grad_checkpointing=True)
        sixteen_bit = weight_bytes(spec, dtype="bf16", parameters=spec.parameters - spec.linear_parameters)
        rows.append((model_name(model), spec.parameters, weight_bytes(spec, dtype="bf16"),
                     weight_bytes(spec, dtype="nf4"), sixteen_bit, off.peak_allocated_bytes, on.peak_allocated_bytes,
                     on.total_bytes, *fits(on)))
    return Table.of(
        caption=(f"QLoRA (NF4 base with double quantisation, rank 16 on all linear layers, fp32 adapters, bf16 "
                 f"autocast, AdamW), {JOB_TEXT}. NF4 weights = weight_bytes(dtype='nf4'), of which the "
                 "'kept 16-bit' column is the embeddings, output head and norms; peak = peak_allocated_bytes; "
                 "total = total_bytes with checkpointing on, which decides the 'fits' columns."),
        columns=(Column("model"), decimal_column("parameters (B)", 2, unit=1e9),
                 *map(gib_column, ("bf16 weights GiB", "NF4 weights GiB", "kept 16-bit GiB", "peak GiB, ckpt off",
                                   "peak GiB, ckpt on", "total GiB, ckpt on")), *fit_columns()),
        rows=rows,
        # A memory estimate states the runtime overhead last among its assumptions.
        assumptions=(on.overhead_assumption,
                     f"model configs as read on {READ_ON}; GPU catalog as of {get_gpu('h100-sxm').source.as_of}"),
    )


@table("fine-tuning-qlora-optimizers")
def qlora_optimizers() -> Table:
    """QLoRA peak with AdamW, fused AdamW and paged 8-bit AdamW: the adapters' optimizer barely matters."""
    rows = []
    for model in (SIZE_CLASSES[0][1], SIZE_CLASSES[-1][1]):
        for optimizer in ("adamw", "adamw-fused", "paged-adamw-8bit"):
            estimate = estimate_job(model, {**METHODS[3][1], "optimizer": optimizer}, grad_checkpointing=True)
            rows.append((model_name(model), optimizer, estimate.breakdown["optimizer_states"],
                         estimate.peak_allocated_bytes))
    return Table.of(
        caption=(f"QLoRA r16 all-linear with gradient checkpointing, {JOB_TEXT}: optimizer state and "
                 "peak_allocated_bytes (training_memory) for three optimizers. The paged optimizer's state is "
                 "counted on the GPU (the calculators do not model paging to host RAM)."),
        columns=(Column("model"), Column("optimizer"), gib_column("optimizer state GiB", 3), gib_column("peak GiB", 3)),
        rows=rows,
        assumptions=(f"model configs as read on {READ_ON}",),
    )


TABLES: dict[str, TableFunction] = declared_tables(globals())
