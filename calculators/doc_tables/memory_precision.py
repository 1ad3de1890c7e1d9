"""Tables of the precision and optimizer page (docs/memory/precision-and-optimizers.md) and of its check of the
guides' rules (docs/memory/rules-of-thumb.md: memory-source-claims).

Bytes per parameter come from :func:`calculators.memory.optimizers.optimizer_bytes`, peaks
from :func:`calculators.memory.training.training_memory`; memory is in GiB (2^30 bytes).

>>> table = precision_optimizer_peaks()
>>> table.columns[:3]
('optimizer', 'fp32 GiB', 'bf16-mixed GiB')
"""

from __future__ import annotations

from calculators.catalog.models import get_model
from calculators.columns import Column, decimal_column
from calculators.doc_tables.claims import AUDIT, selected_claims
from calculators.doc_tables.memory import CATALOG, REFERENCE_MODEL, STEP, phase_cell, trainable_bytes_per_element
from calculators.memory.optimizers import OPTIMIZER_FORMULAS, OPTIMIZERS, optimizer_bytes
from calculators.memory.training import training_memory
from calculators.tables import Table, TableFunction, computed_by, declared_tables, table
from calculators.units import gib, number

PRECISION_GROUPS = (("fp32", "fp32"), ("bf16-mixed / fp16-mixed", "bf16-mixed"), ("bf16 / fp16", "bf16"))


def _adafactor_state_per_param(precision: str) -> float:
    spec = get_model(REFERENCE_MODEL)
    estimate = training_memory(spec, method="full", precision=precision, optimizer="adafactor", batch=1, seq=1)
    return estimate.breakdown["optimizer_states"] / spec.parameters


@table("memory-precision-key-numbers")
def key_numbers_precision() -> Table:
    """Key numbers of the precision and optimizer page."""
    spec = get_model(REFERENCE_MODEL)

    def per_param(**settings: object) -> str:
        estimate = training_memory(spec, method="full", batch=1, seq=512, **settings)
        return number(estimate.peak_allocated_bytes / spec.parameters, 1)

    bf16 = training_memory(spec, method="full", precision="bf16-mixed", batch=1, seq=2048)
    fp16 = training_memory(spec, method="full", precision="fp16-mixed", batch=1, seq=2048)
    rows = (
        ("fp32 master weights, foreach AdamW (bf16-mixed)", per_param(precision="bf16-mixed"), "bytes/param",
         training_memory),
        ("fp32 master weights, fused AdamW", per_param(precision="bf16-mixed", optimizer="adamw-fused"),
         "bytes/param", training_memory),
        ("fp32 master weights, 8-bit AdamW", per_param(precision="bf16-mixed", optimizer="adamw-8bit"),
         "bytes/param", training_memory),
        ("pure bf16 weights and states, foreach AdamW", per_param(precision="bf16"), "bytes/param", training_memory),
        (f"fp16-mixed minus bf16-mixed, {spec.name} b1 s2048",
         gib(fp16.peak_allocated_bytes - bf16.peak_allocated_bytes, grouped=False), "GiB", training_memory),
    )
    return Table.key_numbers(
        rows, columns=("quantity", "value", "unit", "function"), dotted=True, code=False,
        caption=(f"Peak allocated memory of full fine-tuning per parameter of {spec.name}, batch 1 x seq 512 "
                 "(activations small), by precision and optimizer; derived."),
        assumptions=(STEP, "SDPA attention, no gradient checkpointing", CATALOG))


@table("memory-bytes-per-param-grid")
def bytes_per_param_grid() -> Table:
    """Weights + gradients + optimizer state + step temporaries, per parameter, per precision and optimizer."""
    rows = []
    for label, precision in PRECISION_GROUPS:
        p = trainable_bytes_per_element(precision)
        for optimizer in OPTIMIZERS:
            opt = optimizer_bytes(optimizer=optimizer, param_bytes=p)
            state = _adafactor_state_per_param(precision) if optimizer == "adafactor" else opt.state_bytes_per_param
            total = p + p + state + opt.step_temp_bytes_per_param
            rows.append((label, optimizer, p, p, state, opt.step_temp_bytes_per_param, total))
    return Table.of(
        caption=("Bytes per trainable parameter during the optimizer step of full fine-tuning: weights + gradients "
                 "+ optimizer state + the step's temporaries. This is the optimizer phase only; the step's peak "
                 "may be in backward instead (activations, logits), and mixed precision adds 2 bytes per matmul "
                 "parameter of autocast copies in forward and backward."),
        columns=(Column("precision"), Column("optimizer"), decimal_column("weights", 2), decimal_column("gradients", 2),
                 decimal_column("optimizer state", 3), decimal_column("step temporaries", 2),
                 decimal_column("sum (bytes/param)", 2)),
        rows=rows,
        assumptions=(f"derived from {computed_by(optimizer_bytes, dotted=True, code=False)}",
                     f"Adafactor's factored state (a row and a column per matrix) is taken from {REFERENCE_MODEL}'s "
                     "shapes; it is a per-matrix, not a per-parameter, cost",
                     "8-bit moments: blocks of 256 values with one fp32 scale each",
                     "paged 8-bit AdamW counted on the GPU (it can page to host RAM under pressure)"),
    )


PRECISIONS_SHOWN = ("fp32", "bf16-mixed", "fp16-mixed", "bf16", "fp16")


@table("memory-precision-optimizer-peaks")
def precision_optimizer_peaks() -> Table:
    """Peak allocated memory of one model across precision x optimizer."""
    spec = get_model(REFERENCE_MODEL)
    rows = []
    for optimizer in OPTIMIZERS:
        peaks = [training_memory(spec, method="full", precision=precision, optimizer=optimizer, batch=1, seq=2048)
                 for precision in PRECISIONS_SHOWN]
        rows.append((optimizer, *peaks))
    return Table.of(
        caption=(f"Peak allocated memory (GiB) of full fine-tuning of {spec.name}, batch 1 x seq 2048, by optimizer "
                 "and precision. The letter is the phase of the peak: f forward, b backward, o optimizer step."),
        columns=(Column("optimizer"), *(Column(f"{p} GiB", phase_cell, "r") for p in PRECISIONS_SHOWN)),
        rows=rows,
        assumptions=(STEP, "SDPA attention, no gradient checkpointing", CATALOG),
    )


#: The audit's claim records of training memory as a multiple of the parameter count
#: (calculators.claims), shown on docs/memory/rules-of-thumb.md with the audit's own verdicts.
MEMORY_CLAIM_IDS: tuple[str, ...] = (
    "vrla-ws-fp32-4x", "vrla-ws-mixed-2x", "vrla-16x-fp32", "vrla-6-8x-mixed", "vrla-7b-fp32",
    "vrla-7b-full-fp16-60-80gb", "hfp-adam-8x-fp16", "lyceum-18-bytes-text",
)


@table("memory-source-claims")
def source_claims_table() -> Table:
    """The source guides' training-memory rules, with the verdicts of the rules-of-thumb audit."""
    return selected_claims(MEMORY_CLAIM_IDS, page="memory/rules-of-thumb.md",
        caption=(f"Training-memory rules of the source guides, as {AUDIT} records and judges them: our "
                 "figure from training_memory for the conditions each rule implies, with the narrower readings "
                 "(model states alone, weights alone) as separate cases, and the computed verdict."))


@table("memory-optimizer-formulas")
def optimizer_formulas_table() -> Table:
    """Table ``memory-optimizer-formulas``: the rule behind each optimizer's bytes per parameter."""
    rows = tuple((f"`{name}`", OPTIMIZERS[name].split(":")[0], state, temp)
                 for name, (state, temp) in OPTIMIZER_FORMULAS.items())
    return Table(
        caption=("Persistent state and step temporaries per trainable parameter, as "
                 f"{computed_by(optimizer_bytes, dotted=True, code=False)} computes them; p is the parameter's bytes "
                 "per element (4 for fp32 master weights, 2 for a pure 16-bit model). Formulas, not measurements."),
        columns=("optimizer", "implementation", "state per parameter", "step temporary per parameter"),
        align=("l", "l", "l", "l"),
        rows=rows,
    )


TABLES: dict[str, TableFunction] = declared_tables(globals())
