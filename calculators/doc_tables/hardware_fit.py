"""Tables of what fits one GPU (docs/hardware/catalog.md), the memory a process can use
(docs/hardware/index.md), and the source guides' GPU claims checked (docs/hardware/compute.md).

Fits are the verdicts of :func:`calculators.fit.fit_inference` and :func:`calculators.fit.fit_training`
on the ``total_bytes`` basis, taken from :func:`calculators.fit.inference_verdict` and
:func:`calculators.fit.training_verdict` (the same estimate and verdict, without the searches
for the largest batch and context that the table does not show); GPU figures from
:mod:`calculators.catalog.gpus`.

>>> fit_cell("fits", "does not fit")
'infer'
>>> fit_cell("fits", "tight")
'infer, QLoRA (tight)'
"""

from __future__ import annotations

from calculators.catalog.gpus import GPU, all_gpus
from calculators.catalog.models import all_models
from calculators.catalog.usable_memory import usable_memory_bytes, usable_memory_record
from calculators.columns import Column, gib_column, number_column
from calculators.doc_tables.claims import AUDIT, selected_claims
from calculators.doc_tables.hardware import catalog_as_of, ordered_gpus
from calculators.dtype_support import on_gpu
from calculators.fit import DOES_NOT_FIT, FITS, fit_inference, fit_training, inference_verdict, training_verdict
from calculators.memory.lora import has_lora_targets
from calculators.memory.overhead import overhead_assumptions
from calculators.tables import Table, TableFunction, computed_by, declared_tables, table
from calculators.units import gib

#: The two jobs of the fit table, passed unchanged to inference_verdict / training_verdict.
INFERENCE_SETTINGS: dict[str, object] = {"weights": "bf16", "kv_cache": "bf16", "batch": 1, "context": 8192}
QLORA_SETTINGS: dict[str, object] = {"method": "qlora", "precision": "bf16-mixed", "batch": 1, "seq": 2048,
                                     "grad_checkpointing": True}


def capacities() -> list[GPU]:
    """One GPU per marketed memory size, smallest first: the one a process gets the least memory on.

    GPUs of one marketed size differ in usable memory (ECC, driver reserve); the column is
    decided on the smallest, so a fit shown there holds for every GPU of that size.
    """
    chosen: dict[int, GPU] = {}
    for gpu in sorted(all_gpus(), key=lambda g: (g.memory_bytes, usable_memory_bytes(g), g.name)):
        chosen.setdefault(gpu.memory_bytes, gpu)
    return list(chosen.values())


def fit_cell(inference: str, qlora: str) -> str:
    """The cell text of the fit table from the two verdicts (``fits``, ``tight``, ``does not fit``)."""
    if inference == qlora == FITS:
        return "both"
    parts = [name + ("" if verdict == FITS else " (tight)")
             for name, verdict in (("infer", inference), ("QLoRA", qlora)) if verdict != DOES_NOT_FIT]
    return ", ".join(parts) or "—"


@table("hardware-fit")
def fit_matrix() -> Table:
    """Which catalog models' inference and QLoRA fine-tuning fit one GPU of each memory size."""
    caps = capacities()
    rows = []
    for record in sorted(all_models(), key=lambda r: (r.spec().parameters, r.name)):
        spec = record.spec()
        infer = [inference_verdict(spec, gpu, **on_gpu(gpu, INFERENCE_SETTINGS)) for gpu in caps]
        positions = spec.max_position_embeddings
        if not has_lora_targets(spec):
            # A pure state-space model (Mamba) has none of the projections LoRA adapts here: no QLoRA figure.
            rows.append((record.name, spec.parameters / 1e9, positions, infer[0][0].total_bytes, None,
                         *(fit_cell(i.verdict, DOES_NOT_FIT) for _, i in infer)))
            continue
        qlora = [training_verdict(spec, gpu, **on_gpu(gpu, QLORA_SETTINGS)) for gpu in caps]
        rows.append((
            record.name, spec.parameters / 1e9, positions, infer[0][0].total_bytes, qlora[0][0].total_bytes,
            *(fit_cell(i.verdict, q.verdict) for (_, i), (_, q) in zip(infer, qlora, strict=True)),
        ))
    legend = "; ".join(
        f"{gib(cap.memory_bytes, 0)} GiB: " + ", ".join(g.name for g in ordered_gpus() if g.memory_bytes == cap.memory_bytes)
        + f" (decided on the {cap.name}: {gib(usable_memory_bytes(cap))} GiB usable)"
        for cap in caps)
    return Table.of(
        caption=(
            f"Does the job fit one GPU? The verdicts of {computed_by(fit_inference, dotted=True, code=False)} and "
            f"{computed_by(fit_training, code=False)}: "
            "total_bytes plus its measured uncertainty against the memory a process can allocate. 'infer': "
            "inference fits; 'QLoRA': QLoRA fine-tuning fits; 'both'; '(tight)': only inside the measured "
            "uncertainty, a risk; '—': neither; QLoRA 'n/a': a pure state-space model (Mamba), whose projections "
            "the calculators do not adapt with LoRA. GPUs by marketed memory: " + legend + ". The Apple column uses "
            "the share of unified memory macOS lets the GPU wire by default, with no CUDA context. "
            "'config context' is max_position_embeddings from the model's config.json; where it is below the "
            "8192-token prompt, the inference figure is memory arithmetic for a prompt longer than the model "
            "was trained on (the calculators do not refuse it)."),
        columns=(Column("model"), number_column("params B", 1), number_column("config context", missing="unknown"),
                 gib_column("infer GiB", 1, grouped=True), gib_column("QLoRA GiB", 1, grouped=True, missing="n/a"),
                 *(Column(f"{gib(c.memory_bytes, 0)} GiB", align="c") for c in caps)),
        rows=rows,
        assumptions=(
            "inference: bf16 weights, bf16 KV cache, batch 1, 8192-token prompt, no new tokens, SDPA attention",
            "QLoRA: nf4 base, bf16-mixed, AdamW on the adapters, rank 16 on all linear projections, batch 1, "
            "seq 2048, gradient checkpointing",
            "a GPU without BF16 (compute capability below 8.0) runs fp16 and fp16-mixed instead: the same bytes",
            *overhead_assumptions(),
        ),
    )


#: The audit's claim records about choosing a GPU, shown on the hardware page with the
#: audit's own verdicts (calculators.claims), so the site states one verdict per claim.
HARDWARE_CLAIM_IDS: tuple[str, ...] = (
    "lyceum-h100-3.35tbs", "lyceum-nvlink-900", "hfp-rtx-3090-24gb", "hfp-4090-2x-3090",
    "hfp-table-rtx-4090-price", "hfp-table-rtx-3090-price", "hfp-7b-inference-24gb", "hfp-a100-80gb-5b",
    "hfp-macbook-36gb-30b", "vrla-ws-pro6000-96gb", "vrla-ws-4000-ai-tops", "vrla-ws-mixed-2-8x-throughput",
)


@table("hardware-claims")
def claims() -> Table:
    """The source guides' GPU claims, with the verdicts of the rules-of-thumb audit."""
    return selected_claims(HARDWARE_CLAIM_IDS, page="hardware/compute.md",
        caption=(f"GPU claims of the source guides, as {AUDIT} records and judges them: our figure from the GPU "
                 f"catalog (as of {catalog_as_of()}) or the fit calculators, and the computed verdict."))


@table("hardware-usable-memory")
def usable_memory_table() -> Table:
    """Marketed memory next to what one process can allocate, per catalog GPU, with each figure's source."""
    rows = []
    for gpu in sorted(all_gpus(), key=lambda g: (g.memory_bytes, g.name)):
        record = usable_memory_record(gpu)
        usable = record.usable_bytes
        title = record.source.title if record.source.kind == "derived" else record.source.title.split(":")[0]
        rows.append((gpu.name, gpu.memory_bytes, usable, gpu.memory_bytes - usable, record.source.kind, record.note,
                     f"[{title}]({record.source.url})" if record.source.url.startswith("http") else
                     f"{title} ({record.source.url})"))
    return Table.of(
        caption=("Marketed memory and the memory one process can allocate (torch.cuda.mem_get_info() total; for "
                 "Apple silicon the GPU's default working set of unified memory). Fit verdicts use the second. "
                 "GiB = 2^30 bytes."),
        columns=(Column("GPU"), gib_column("marketed GiB", 0, grouped=True), gib_column("usable GiB", grouped=True),
                 gib_column("difference GiB", grouped=True), Column("kind"), Column("note"), Column("source")),
        rows=rows,
        assumptions=("usable memory: calculators.catalog.usable_memory; 'derived' rows state their rule in the "
                     "source", "the CUDA context (measured 785 MiB on an H100) comes out of the usable memory"),
    )


TABLES: dict[str, TableFunction] = declared_tables(globals())
