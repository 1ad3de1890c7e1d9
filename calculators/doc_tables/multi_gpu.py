"""Tables of the multi-GPU page (docs/multi-gpu/index.md), of its page on which GPUs hold a sharded job
(docs/multi-gpu/sharded-fit.md: multi-gpu-zero-total, multi-gpu-breakdown, multi-gpu-70b-on-8) and of the GPU links
on docs/multi-gpu/links.md (multi-gpu-interconnect).

Per-GPU memory comes from :func:`calculators.memory.training.training_memory` with
``gpus`` and ``zero``; interconnect figures come only from the GPU catalog's fields
(:mod:`calculators.catalog.gpus`). Nothing here models communication time.
"""

from __future__ import annotations

from typing import Any

from calculators.catalog.gpus import all_gpus, get_gpu
from calculators.catalog.models import READ_ON, get_model, model_name
from calculators.columns import Column, gb_column, gib_column
from calculators.doc_tables.fine_tuning import fit_columns, fits
from calculators.fit import fit_training, fit_verdict
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import training_memory
from calculators.tables import Table, TableFunction, computed_by, declared_tables, table
from calculators.units import gb, gib

#: The two models of the ZeRO tables: a 7-8B and a 70B.
MODELS: tuple[str, ...] = ("llama-3-8b", "llama-3-70b")
GPU_COUNTS: tuple[int, ...] = (1, 2, 4, 8)
STAGES: tuple[int, ...] = (0, 1, 2, 3)
#: Full fine-tuning as most multi-GPU recipes run it: fp32 master weights, bf16 autocast, AdamW.
JOB: dict[str, Any] = {"method": "full", "precision": "bf16-mixed", "optimizer": "adamw", "batch": 1, "seq": 2048,
                       "attention": "sdpa"}
#: The GPU the fit questions are asked against.
FIT_GPU = "h100-sxm"

_STAGE_NAMES = {
    0: "0 (DDP)",
    1: "1 (optimizer states)",
    2: "2 (+ gradients)",
    3: "3 (+ weights; FSDP full shard)",
}
#: The job (:data:`JOB`) as the captions state it.
_JOB_TEXT = (f"full fine-tuning, {JOB['precision']} (fp32 master weights, bf16 autocast), AdamW (foreach), "
             f"micro-batch {JOB['batch']} x seq {JOB['seq']} per GPU, {JOB['attention'].upper()} attention")


def _estimate(model: str, *, gpus: int, zero: int, grad_checkpointing: bool) -> MemoryEstimate:
    return training_memory(get_model(model), **JOB, gpus=gpus, zero=zero, grad_checkpointing=grad_checkpointing)


@table("multi-gpu-key-numbers")
def key_numbers() -> Table:
    """Headline figures of the multi-GPU page."""
    small, large = MODELS
    single = _estimate(small, gpus=1, zero=0, grad_checkpointing=False)
    ddp = _estimate(small, gpus=8, zero=0, grad_checkpointing=False)
    zero3 = _estimate(small, gpus=8, zero=3, grad_checkpointing=False)
    needed = fit_training(get_model(large), FIT_GPU, **JOB, grad_checkpointing=True).gpus_needed
    h100 = get_gpu(FIT_GPU)
    rows = (
        (f"{model_name(small)}, 1 GPU: peak", gib(single.peak_allocated_bytes, grouped=False), "GiB", training_memory),
        (f"{model_name(small)}, 8 GPUs, DDP (ZeRO 0): peak per GPU", gib(ddp.peak_allocated_bytes, grouped=False),
         "GiB", training_memory),
        (f"{model_name(small)}, 8 GPUs, ZeRO-3: peak per GPU", gib(zero3.peak_allocated_bytes, grouped=False), "GiB",
         training_memory),
        (f"{model_name(large)}, gradient checkpointing: {h100.name} GPUs needed under ZeRO-3 (powers of two)",
         "none up to 1024" if needed is None else str(needed), "GPUs", fit_training),
        (f"{h100.name} {h100.interconnect}: GPU-to-GPU bandwidth, both directions summed",
         gb(h100.nvlink_bandwidth_bytes_per_s or 0, 0, grouped=False), "GB/s", get_gpu),
    )
    # A memory estimate states the runtime overhead last among its assumptions.
    return Table.key_numbers(
        rows, columns=("quantity", "value", "unit", "function"), dotted=True,
        caption=f"Derived by the calculators for {_JOB_TEXT}, except the last row, a datasheet figure from the "
                "GPU catalog. 'GPUs needed' compares total_bytes with the GPU's memory, as fit_training does.",
        assumptions=(single.overhead_assumption,
                     f"model configs as read on {READ_ON}; GPU catalog as of {h100.source.as_of}"))


@table("multi-gpu-zero-peak")
def zero_peak() -> Table:
    """Per-GPU peak of full fine-tuning across ZeRO stages and GPU counts, checkpointing off and on."""
    rows = []
    for model in MODELS:
        for checkpointing in (False, True):
            for stage in STAGES:
                peaks = [_estimate(model, gpus=n, zero=stage, grad_checkpointing=checkpointing).peak_allocated_bytes
                         for n in GPU_COUNTS]
                rows.append((model_name(model), "on" if checkpointing else "off", _STAGE_NAMES[stage], *peaks))
    return Table.of(
        caption=(f"peak_allocated_bytes per GPU (GiB) derived by training_memory(gpus=N, zero=stage) for "
                 f"{_JOB_TEXT}. One GPU has nothing to shard, so the 1-GPU column is the same for every "
                 "stage. Derived, not measured: no multi-GPU run has been recorded yet."),
        columns=(Column("model"), Column("grad. ckpt"), Column("ZeRO stage"),
                 *(gib_column(f"{n} GPU{'s' if n > 1 else ''} GiB", 1) for n in GPU_COUNTS)),
        rows=rows,
        assumptions=("stage 0 is DDP with gradient buckets a full gradient copy in size "
                     "(gradient_as_bucket_view=False)",
                     "stage 3 holds two gathered layers (the current one and the prefetched next) in bf16",
                     f"model configs as read on {READ_ON}"),
    )


@table("multi-gpu-zero-total")
def zero_total() -> Table:
    """Per-GPU total_bytes with checkpointing, against the GPU classes of the catalog."""
    classes = ("l40s", "h100-sxm", "h200", "b200")
    rows = []
    for model in MODELS:
        for stage in STAGES:
            for n in GPU_COUNTS[1:]:
                estimate = _estimate(model, gpus=n, zero=stage, grad_checkpointing=True)
                rows.append((model_name(model), _STAGE_NAMES[stage], n, estimate.total_bytes, estimate.peak_phase,
                             *fits(estimate, classes)))
    return Table.of(
        caption=(f"total_bytes per GPU (peak allocated plus runtime overhead) with gradient checkpointing, derived "
                 f"by training_memory(gpus=N, zero=stage) for {_JOB_TEXT}; a GPU class: 'yes' when "
                 "total_bytes plus its measured uncertainty fits the memory a process can allocate, 'tight' when "
                 f"only total_bytes does, 'no' otherwise ({computed_by(fit_verdict, dotted=True, code=False)})."),
        columns=(Column("model"), Column("ZeRO stage"), Column("GPUs", align="r"), gib_column("total GiB per GPU", 1),
                 Column("peak phase"), *fit_columns(classes)),
        rows=rows,
        assumptions=(estimate.overhead_assumption, f"GPU catalog as of {get_gpu(FIT_GPU).source.as_of}"),
    )


@table("multi-gpu-70b-on-8")
def seventy_on_eight() -> Table:
    """The 70B model fully fine-tuned on 8 GPUs under ZeRO-3: precision x checkpointing against GPU classes."""
    model, n = MODELS[1], 8
    classes = ("h100-sxm", "rtx-pro-6000-blackwell", "h200", "b200")
    rows = []
    for precision in ("bf16-mixed", "bf16"):
        for checkpointing in (False, True):
            estimate = training_memory(get_model(model), **{**JOB, "precision": precision}, gpus=n, zero=3,
                                       grad_checkpointing=checkpointing)
            rows.append((precision, "on" if checkpointing else "off", estimate.peak_allocated_bytes,
                         estimate.total_bytes, estimate.peak_phase, *fits(estimate, classes)))
    return Table.of(
        caption=(f"{model_name(model)}, full fine-tuning with AdamW (foreach) on {n} GPUs under ZeRO-3, micro-batch "
                 f"{JOB['batch']} x seq {JOB['seq']} per GPU, derived by training_memory: bf16-mixed keeps fp32 "
                 "weights, gradients and moments; bf16 keeps them all in bf16. peak = peak_allocated_bytes, "
                 f"total = total_bytes per GPU; 'fits' is {computed_by(fit_verdict, dotted=True, code=False)}: 'yes', "
                 "'tight' (inside the measured uncertainty) or 'no'."),
        columns=(Column("precision"), Column("grad. ckpt"), gib_column("peak GiB per GPU", 1),
                 gib_column("total GiB per GPU", 1), Column("peak phase"), *fit_columns(classes)),
        rows=rows,
        assumptions=(estimate.overhead_assumption, f"GPU catalog as of {get_gpu(FIT_GPU).source.as_of}"),
    )


_TERMS: tuple[tuple[str, str], ...] = (
    ("weights", "weights"),
    ("gradients", "gradients"),
    ("optimizer_states", "AdamW moments"),
    ("optimizer_step_temporaries", "step temporary"),
    ("ddp_gradient_buckets", "DDP buckets"),
    ("autocast_weight_copies", "bf16 copies / gathered layers"),
    ("activations", "activations"),
    ("transient_at_peak", "transient"),
)


@table("multi-gpu-breakdown")
def breakdown() -> Table:
    """What each GPU holds at its peak, stage by stage, for the 8B model on 8 GPUs."""
    model, n = MODELS[0], 8
    rows = []
    for stage in STAGES:
        estimate = _estimate(model, gpus=n, zero=stage, grad_checkpointing=False)
        terms = [estimate.breakdown.get(key) for key, _ in _TERMS]
        rows.append((_STAGE_NAMES[stage], estimate.peak_phase, *terms, estimate.peak_allocated_bytes))
    return Table.of(
        caption=(f"Per-GPU breakdown of peak_allocated_bytes at the peak phase (training_memory's breakdown), "
                 f"{model_name(model)} on {n} GPUs, {_JOB_TEXT}, no gradient checkpointing, in GiB. A term "
                 "absent from the peak phase is '-': at an optimizer-step peak no activations are alive; at a "
                 "backward peak the gradients being formed are inside 'transient'."),
        columns=(Column("ZeRO stage"), Column("peak phase"), *(gib_column(f"{name} GiB") for _, name in _TERMS),
                 gib_column("peak GiB")),
        rows=rows,
        assumptions=(f"model config as read on {READ_ON}",),
    )


@table("multi-gpu-interconnect")
def interconnect() -> Table:
    """GPU-to-GPU link and host PCIe link of every catalog GPU that has a PCIe host link."""
    rows = []
    gpus = [gpu for gpu in all_gpus() if gpu.pcie_generation is not None]
    gpus.sort(key=lambda gpu: (-(gpu.nvlink_bandwidth_bytes_per_s or 0.0), gpu.name))
    for gpu in gpus:
        link = gpu.nvlink_bandwidth_bytes_per_s
        rows.append((gpu.name, gpu.interconnect or "none or unknown", link, None if link is None else link / 2,
                     f"Gen{gpu.pcie_generation} x{gpu.pcie_lanes}"))
    return Table.of(
        caption=("GPU-to-GPU links from the GPU catalog (nvlink_bandwidth_bytes_per_s, a datasheet figure quoted "
                 "by vendors as the bidirectional total per GPU; for the MI300X the Infinity Fabric aggregate). "
                 "'Per direction' is that total halved (derived). The catalog records the PCIe host link's "
                 "generation and lanes but no PCIe bandwidth. Rows sorted by link bandwidth, then name."),
        columns=(Column("GPU"), Column("GPU-to-GPU link"), gb_column("both directions GB/s", 1, grouped=False),
                 gb_column("per direction GB/s", 2, grouped=False), Column("host link")),
        rows=rows,
        assumptions=(f"GPU catalog as of {get_gpu(FIT_GPU).source.as_of}",),
    )


TABLES: dict[str, TableFunction] = declared_tables(globals())
