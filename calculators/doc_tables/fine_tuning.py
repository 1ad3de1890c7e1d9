"""Tables of the fine-tuning overview (docs/fine-tuning/index.md) and of its checks of the vendor tables and LoRA
rules of thumb (docs/fine-tuning/vendor-tables.md: fine-tuning-vendor-claims, fine-tuning-lora-ratio), with the
jobs both fine-tuning pages use.

The LoRA and QLoRA page's tables are in :mod:`calculators.doc_tables.fine_tuning_lora`.

Every cell comes from :func:`calculators.memory.training.training_memory`,
:func:`calculators.memory.lora.lora_parameters` or
:func:`calculators.memory.weights.weight_bytes`, except the vendor-claims table, a view of the
rules-of-thumb audit (:func:`calculators.claims.evaluated`).
"""

from __future__ import annotations

from typing import Any

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import READ_ON, get_model, model_name
from calculators.columns import Column, decimal_column, gib_column
from calculators.doc_tables.claims import AUDIT, selected_claims
from calculators.fit import fit_verdict
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import training_memory
from calculators.memory.weights import weight_bytes
from calculators.tables import Table, TableFunction, computed_by, declared_tables, table
from calculators.units import gib, number

#: Representative catalog models for each size class of the vendor's tables.
SIZE_CLASSES: tuple[tuple[str, str], ...] = (
    ("7-8B", "llama-3-8b"),
    ("13-14B", "qwen2.5-14b"),
    ("30-34B", "qwen2.5-32b"),
    ("70B", "llama-3-70b"),
)

#: The four methods compared, as training_memory settings.
METHODS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("full, bf16-mixed AdamW", {"method": "full", "precision": "bf16-mixed", "optimizer": "adamw"}),
    ("full, pure bf16 AdamW", {"method": "full", "precision": "bf16", "optimizer": "adamw"}),
    ("LoRA r16 all-linear, bf16 base", {"method": "lora", "precision": "bf16-mixed", "optimizer": "adamw",
                                        "lora_rank": 16, "lora_targets": "all-linear"}),
    ("QLoRA r16 all-linear, NF4 base", {"method": "qlora", "precision": "bf16-mixed", "optimizer": "adamw",
                                        "lora_rank": 16, "lora_targets": "all-linear"}),
)

#: The fixed job every table uses unless it says otherwise, and as the captions state it.
JOB: dict[str, Any] = {"batch": 1, "seq": 2048, "attention": "sdpa"}
JOB_TEXT = (f"batch {JOB['batch']} x seq {JOB['seq']}, {JOB['attention'].upper()} attention, one GPU, "
            "Hugging Face transformers training step (forward, backward, optimizer step)")

#: One GPU per memory class, to say where a job fits (the verdict of calculators.fit.fit_verdict,
#: as calculators.fit.fit_training decides).
GPU_CLASSES: tuple[str, ...] = ("rtx-4090", "l40s", "h100-sxm", "h200")

#: The audit's records of the vendor's fine-tuning VRAM ranges (VRLA Tech, one per table row:
#: calculators.claims.vendor_tables), shown on docs/fine-tuning/vendor-tables.md with the audit's own verdicts.
VENDOR_CLAIM_IDS: tuple[str, ...] = (
    "vrla-7b-qlora", "vrla-7b-lora", "vrla-7b-fp16", "vrla-7b-fp32",
    "vrla-13b-qlora", "vrla-13b-lora", "vrla-13b-fp16",
    "vrla-30-34b-qlora", "vrla-30-34b-lora", "vrla-30-34b-fp16",
    "vrla-70b-qlora", "vrla-70b-lora", "vrla-70b-fp16",
)


def estimate_job(model: str, settings: dict[str, Any], *, grad_checkpointing: bool, **extra: Any) -> MemoryEstimate:
    """:func:`training_memory` of a catalog model for :data:`JOB` with ``settings``."""
    return training_memory(get_model(model), **{**JOB, **settings, **extra, "grad_checkpointing": grad_checkpointing})


def fit_cell(estimate: MemoryEstimate, gpu: str) -> str:
    """'yes', 'tight' or 'no': the fit verdict of :func:`calculators.fit.fit_verdict` on one GPU."""
    return {"fits": "yes", "tight": "tight", "does not fit": "no"}[fit_verdict(estimate, get_gpu(gpu)).verdict]


def fits(estimate: MemoryEstimate, gpus: tuple[str, ...] = GPU_CLASSES) -> list[str]:
    """:func:`fit_cell` per GPU, under the :func:`fit_columns` of the same GPUs."""
    return [fit_cell(estimate, gpu) for gpu in gpus]


def fit_columns(gpus: tuple[str, ...] = GPU_CLASSES) -> list[Column]:
    """The fit columns, one per GPU, headed by its memory and name."""
    return [Column(f"fits {get_gpu(gpu).memory_gib:g} GiB ({get_gpu(gpu).name})") for gpu in gpus]


# ----------------------------------------------------------------------------- index page
@table("fine-tuning-key-numbers")
def key_numbers() -> Table:
    """3-5 headline figures of the fine-tuning page."""
    small = SIZE_CLASSES[0][1]
    large = SIZE_CLASSES[-1][1]
    mixed = estimate_job(small, METHODS[0][1], grad_checkpointing=False)
    pure = estimate_job(small, METHODS[1][1], grad_checkpointing=False)
    lora = estimate_job(small, METHODS[2][1], grad_checkpointing=True)
    qlora = estimate_job(large, METHODS[3][1], grad_checkpointing=True)
    rows = (
        (f"full fine-tuning, bf16-mixed AdamW ({model_name(small)}): peak per parameter",
         number(mixed.peak_allocated_bytes / mixed.parameters, 1), "bytes/parameter", training_memory),
        (f"full fine-tuning, pure bf16 AdamW ({model_name(small)}): peak per parameter",
         number(pure.peak_allocated_bytes / pure.parameters, 1), "bytes/parameter", training_memory),
        (f"LoRA r16 all-linear, {model_name(small)}, gradient checkpointing: total",
         gib(lora.total_bytes, grouped=False), "GiB", training_memory),
        (f"QLoRA r16 all-linear, {model_name(large)}, gradient checkpointing: total",
         gib(qlora.total_bytes, grouped=False), "GiB", training_memory),
        (f"{model_name(large)} base weights in NF4 (embeddings and head in bf16)",
         gib(weight_bytes(get_model(large), dtype="nf4"), grouped=False), "GiB", weight_bytes),
    )
    # A memory estimate states the runtime overhead last among its assumptions.
    return Table.key_numbers(
        rows, columns=("quantity", "value", "unit", "function"), dotted=True,
        caption=f"Derived by the calculators for {JOB_TEXT}; 'total' is total_bytes (peak allocated plus "
                "runtime overhead).",
        assumptions=(lora.overhead_assumption, f"model configs as read on {READ_ON}"))


@table("fine-tuning-by-size")
def by_size() -> Table:
    """Peak and total memory per model size x method x checkpointing, and the GPU classes that hold it."""
    rows = []
    for size, model in SIZE_CLASSES:
        for label, settings in METHODS:
            for checkpointing in (False, True):
                estimate = estimate_job(model, settings, grad_checkpointing=checkpointing)
                trainable = estimate.trainable_parameters
                rows.append((size, model_name(model), label, "on" if checkpointing else "off",
                             number(trainable / 1e9, 2) if settings["method"] == "full"
                             else f"{number(trainable / 1e6, 1)} M",
                             estimate.peak_allocated_bytes, estimate.total_bytes, estimate.peak_phase, *fits(estimate)))
    return Table.of(
        caption=(f"Memory of one training step on one GPU, derived by training_memory: {JOB_TEXT}. "
                 "peak = peak_allocated_bytes (what torch.cuda.max_memory_allocated() reports); "
                 f"total = total_bytes; the 'fits' columns are the fit verdict "
                 f"({computed_by(fit_verdict, dotted=True, code=False)}): 'yes' when "
                 "total_bytes plus its measured uncertainty fits the memory a process can allocate, 'tight' when "
                 "only total_bytes does. "
                 "Trainable parameters in billions (full) or millions (LoRA/QLoRA)."),
        columns=(Column("size"), Column("model"), Column("method"), Column("grad. ckpt"),
                 Column("trainable", align="r"), gib_column("peak GiB"), gib_column("total GiB"), Column("peak phase"),
                 *fit_columns()),
        rows=rows,
        assumptions=(
            "full bf16-mixed: fp32 weights, gradients and AdamW moments with bf16 autocast; pure bf16: all in bf16",
            "AdamW is torch.optim.AdamW with the foreach step (PyTorch's CUDA default)",
            "LoRA/QLoRA: rank 16 on q,k,v,o,gate,up,down, fp32 adapters (PEFT default), bf16 autocast",
            "QLoRA: NF4 with double quantisation for decoder linears; embeddings, head and norms bf16",
            estimate.overhead_assumption,
            f"model configs as read on {READ_ON}; GPU catalog as of {get_gpu('h100-sxm').source.as_of}",
        ),
    )


@table("fine-tuning-vendor-claims")
def vendor_claims() -> Table:
    """The vendor's fine-tuning VRAM ranges, with the verdicts of the rules-of-thumb audit."""
    return selected_claims(VENDOR_CLAIM_IDS, page="fine-tuning/vendor-tables.md",
        caption=(f"VRAM ranges of VRLA Tech's 2026 fine-tuning tables, as {AUDIT} records and judges them: our "
                 "figure is training_memory's total_bytes in GB (10^9 bytes, as the vendor prints) for the models "
                 "each row names, gradient checkpointing off and on, and the verdict names the cases inside the "
                 "range. The vendor states no batch, sequence length or optimizer."))


@table("fine-tuning-lora-ratio")
def lora_ratio() -> Table:
    """LoRA peak divided by the bf16 weights: the '2-3x the model' and 'model + 10-20 %' rules."""
    rows = []
    for size, model in SIZE_CLASSES:
        base = weight_bytes(get_model(model), dtype="bf16")
        for checkpointing in (False, True):
            estimate = estimate_job(model, METHODS[2][1], grad_checkpointing=checkpointing)
            rows.append((size, model_name(model), "on" if checkpointing else "off", base,
                         estimate.peak_allocated_bytes, estimate.peak_allocated_bytes / base))
    return Table.of(
        caption=(f"LoRA r16 all-linear on a bf16 base, {JOB_TEXT}: peak_allocated_bytes divided by the "
                 "bytes of the bf16 weights (weight_bytes). The rules of thumb say 2-3 (VRLA Tech) or 1.1-1.2 "
                 "(Lyceum); the ratio depends on batch x sequence and checkpointing, not on a fixed multiple."),
        columns=(Column("size"), Column("model"), Column("grad. ckpt"), gib_column("bf16 weights GiB"),
                 gib_column("LoRA peak GiB"), decimal_column("peak / weights", 2)),
        rows=rows,
        assumptions=(f"model configs as read on {READ_ON}",),
    )


TABLES: dict[str, TableFunction] = declared_tables(globals())
