"""Tables of the fine-tuning pages (docs/fine-tuning/index.md, docs/fine-tuning/lora-and-qlora.md).

Every cell comes from :func:`calculators.memory.training.training_memory`,
:func:`calculators.memory.training.lora_parameters` or
:func:`calculators.memory.weights.weight_bytes`; the only typed-in numbers are the
vendor's ranges in :data:`VENDOR_CLAIMS_GB`, quoted so the page can compare them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import READ_ON, get_model, get_model_record
from calculators.dtypes import DType
from calculators.memory.overhead import overhead_assumptions
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import lora_parameters, training_memory
from calculators.memory.weights import quantized_bytes_per_element, weight_bytes
from calculators.tables import Table, TableFunction

GIB = 2**30
GB = 10**9

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

#: The fixed job every table uses unless it says otherwise.
JOB: dict[str, Any] = {"batch": 1, "seq": 2048, "attention": "sdpa"}

#: One GPU per memory class, to say where a job fits (criterion: total_bytes <= memory_bytes,
#: as calculators.fit.fit_training decides).
GPU_CLASSES: tuple[str, ...] = ("rtx-4090", "l40s", "h100-sxm", "h200")

#: The vendor's ranges in GB, quoted verbatim from VRLA Tech, "How much VRAM do you need for
#: LLM fine-tuning in 2026", tables "Exact VRAM requirements by model size and fine-tuning
#: approach" (https://vrlatech.com/how-much-vram-do-you-need-for-llm-fine-tuning-in-2026,
#: accessed 2026-11-21). Key: (size class, method label of the vendor) -> (low, high) in GB.
VENDOR_CLAIMS_GB: tuple[tuple[str, str, tuple[int, int]], ...] = (
    ("7-8B", "QLoRA (4-bit base)", (8, 12)),
    ("7-8B", "LoRA (FP16 base)", (14, 20)),
    ("7-8B", "Full fine-tuning (FP16)", (60, 80)),
    ("7-8B", "Full fine-tuning (FP32)", (112, 140)),
    ("13-14B", "QLoRA (4-bit base)", (12, 18)),
    ("13-14B", "LoRA (FP16 base)", (26, 36)),
    ("13-14B", "Full fine-tuning (FP16)", (100, 130)),
    ("30-34B", "QLoRA (4-bit base)", (20, 32)),
    ("30-34B", "LoRA (FP16 base)", (60, 80)),
    ("30-34B", "Full fine-tuning (FP16)", (240, 280)),
    ("70B", "QLoRA (4-bit base)", (48, 80)),
    ("70B", "LoRA (FP16 base)", (140, 180)),
    ("70B", "Full fine-tuning (FP16)", (560, 640)),
)

#: How each vendor row maps onto training_memory settings (FP16 and BF16 have the same bytes;
#: the calculators' pure-16-bit and fp32 full fine-tuning keep AdamW moments in the weights' dtype).
_VENDOR_SETTINGS: dict[str, dict[str, Any]] = {
    "QLoRA (4-bit base)": dict(METHODS[3][1]),
    "LoRA (FP16 base)": dict(METHODS[2][1]),
    "Full fine-tuning (FP16)": dict(METHODS[1][1]),
    "Full fine-tuning (FP32)": {"method": "full", "precision": "fp32", "optimizer": "adamw"},
}

_OVERHEAD = overhead_assumptions()[0]


def _gib(value: float, digits: int = 2) -> str:
    return f"{value / GIB:.{digits}f}"


def _gb(value: float) -> str:
    return f"{value / GB:.1f}"


def _millions(value: int) -> str:
    return f"{value / 1e6:.1f}"


def _billions(value: int) -> str:
    return f"{value / 1e9:.2f}"


def _estimate(model: str, settings: dict[str, Any], *, grad_checkpointing: bool, **extra: Any) -> MemoryEstimate:
    return training_memory(get_model(model), **{**JOB, **settings, **extra, "grad_checkpointing": grad_checkpointing})


def _model_name(model: str) -> str:
    return get_model_record(model).name


def _fits(estimate: MemoryEstimate) -> list[str]:
    return ["yes" if estimate.total_bytes <= get_gpu(gpu).memory_bytes else "no" for gpu in GPU_CLASSES]


def _gpu_headers() -> list[str]:
    return [f"fits {get_gpu(gpu).memory_gib:g} GiB ({get_gpu(gpu).name})" for gpu in GPU_CLASSES]


def _job_caption() -> str:
    return (f"batch {JOB['batch']} x seq {JOB['seq']}, {JOB['attention'].upper()} attention, one GPU, "
            "Hugging Face transformers training step (forward, backward, optimizer step)")


# ----------------------------------------------------------------------------- index page
def key_numbers() -> Table:
    """3-5 headline figures of the fine-tuning page."""
    small = SIZE_CLASSES[0][1]
    large = SIZE_CLASSES[-1][1]
    mixed = _estimate(small, METHODS[0][1], grad_checkpointing=False)
    pure = _estimate(small, METHODS[1][1], grad_checkpointing=False)
    lora = _estimate(small, METHODS[2][1], grad_checkpointing=True)
    qlora = _estimate(large, METHODS[3][1], grad_checkpointing=True)
    rows = (
        (f"full fine-tuning, bf16-mixed AdamW ({_model_name(small)}): peak per parameter",
         f"{mixed.peak_allocated_bytes / mixed.parameters:.1f}", "bytes/parameter",
         "`calculators.memory.training.training_memory`"),
        (f"full fine-tuning, pure bf16 AdamW ({_model_name(small)}): peak per parameter",
         f"{pure.peak_allocated_bytes / pure.parameters:.1f}", "bytes/parameter",
         "`calculators.memory.training.training_memory`"),
        (f"LoRA r16 all-linear, {_model_name(small)}, gradient checkpointing: total",
         _gib(lora.total_bytes), "GiB", "`calculators.memory.training.training_memory`"),
        (f"QLoRA r16 all-linear, {_model_name(large)}, gradient checkpointing: total",
         _gib(qlora.total_bytes), "GiB", "`calculators.memory.training.training_memory`"),
        (f"{_model_name(large)} base weights in NF4 (embeddings and head in bf16)",
         _gib(weight_bytes(get_model(large), dtype="nf4")), "GiB", "`calculators.memory.weights.weight_bytes`"),
    )
    return Table(
        id="fine-tuning-key-numbers",
        caption=f"Derived by the calculators for {_job_caption()}; 'total' is total_bytes (peak allocated plus "
                "runtime overhead).",
        columns=("quantity", "value", "unit", "function"),
        align=("l", "r", "l", "l"),
        rows=rows,
        assumptions=(_OVERHEAD, f"model configs as read on {READ_ON}"),
    )


def by_size() -> Table:
    """Peak and total memory per model size x method x checkpointing, and the GPU classes that hold it."""
    rows = []
    for size, model in SIZE_CLASSES:
        for label, settings in METHODS:
            for checkpointing in (False, True):
                estimate = _estimate(model, settings, grad_checkpointing=checkpointing)
                rows.append((size, _model_name(model), label, "on" if checkpointing else "off",
                             _billions(estimate.trainable_parameters) if settings["method"] == "full"
                             else f"{_millions(estimate.trainable_parameters)} M",
                             _gib(estimate.peak_allocated_bytes), _gib(estimate.total_bytes),
                             estimate.peak_phase, *_fits(estimate)))
    return Table(
        id="fine-tuning-by-size",
        caption=(f"Memory of one training step on one GPU, derived by training_memory: {_job_caption()}. "
                 "peak = peak_allocated_bytes (what torch.cuda.max_memory_allocated() reports); "
                 "total = total_bytes, which decides the 'fits' columns (total_bytes <= the GPU's memory). "
                 "Trainable parameters in billions (full) or millions (LoRA/QLoRA)."),
        columns=("size", "model", "method", "grad. ckpt", "trainable", "peak GiB", "total GiB", "peak phase",
                 *_gpu_headers()),
        align=("l", "l", "l", "l", "r", "r", "r", "l", "l", "l", "l", "l"),
        rows=tuple(rows),
        assumptions=(
            "full bf16-mixed: fp32 weights, gradients and AdamW moments with bf16 autocast; pure bf16: all in bf16",
            "AdamW is torch.optim.AdamW with the foreach step (PyTorch's CUDA default)",
            "LoRA/QLoRA: rank 16 on q,k,v,o,gate,up,down, fp32 adapters (PEFT default), bf16 autocast",
            "QLoRA: NF4 with double quantisation for decoder linears; embeddings, head and norms bf16",
            _OVERHEAD,
            f"model configs as read on {READ_ON}; GPU catalog as of {get_gpu('h100-sxm').source.as_of}",
        ),
    )


def _verdict(low: float, high: float, claim: tuple[int, int]) -> str:
    lo, hi = claim[0] * GB, claim[1] * GB
    if low >= lo and high <= hi:
        return "inside the claim"
    if low > hi:
        return "above the claim"
    if high < lo:
        return "below the claim"
    return "overlaps the claim"


def vendor_claims() -> Table:
    """The vendor's fine-tuning ranges next to the calculators' figures, in GB (10^9 bytes) like the claim."""
    models = dict(SIZE_CLASSES)
    rows = []
    for size, method, claim in VENDOR_CLAIMS_GB:
        model = models[size]
        settings = _VENDOR_SETTINGS[method]
        with_ckpt = _estimate(model, settings, grad_checkpointing=True)
        without = _estimate(model, settings, grad_checkpointing=False)
        low = min(with_ckpt.peak_allocated_bytes, without.peak_allocated_bytes)
        high = max(with_ckpt.total_bytes, without.total_bytes)
        rows.append((size, _model_name(model), method, f"{claim[0]}-{claim[1]}",
                     _gb(with_ckpt.peak_allocated_bytes), _gb(without.peak_allocated_bytes),
                     _gb(high), _verdict(low, high, claim)))
    return Table(
        id="fine-tuning-vendor-claims",
        caption=(f"The vendor column is quoted from VRLA Tech's 2026 fine-tuning VRAM tables (GB as printed; the "
                 f"vendor states no batch, sequence length or optimizer). The other columns are derived by "
                 f"training_memory for {_job_caption()}, in GB = 10^9 bytes to match the claim: peak_allocated_bytes "
                 "with and without gradient checkpointing, and the larger total_bytes. The verdict compares the "
                 "calculators' span (smallest peak to largest total) with the vendor's range."),
        columns=("size", "model", "vendor's method", "vendor GB (quoted)", "peak GB, ckpt on", "peak GB, ckpt off",
                 "largest total GB", "calculators vs claim"),
        align=("l", "l", "l", "r", "r", "r", "r", "l"),
        rows=tuple(rows),
        assumptions=(
            "'FP16' full fine-tuning is computed as pure bf16 (same bytes: 16-bit weights, gradients and "
            "AdamW moments); 'FP32' as fp32 weights with fp32 AdamW",
            "LoRA and QLoRA as in table fine-tuning-by-size (rank 16, all linear layers, fp32 adapters)",
            _OVERHEAD,
        ),
    )


def lora_ratio() -> Table:
    """LoRA peak divided by the bf16 weights: the '2-3x the model' and 'model + 10-20 %' rules."""
    rows = []
    for size, model in SIZE_CLASSES:
        base = weight_bytes(get_model(model), dtype="bf16")
        for checkpointing in (False, True):
            estimate = _estimate(model, METHODS[2][1], grad_checkpointing=checkpointing)
            rows.append((size, _model_name(model), "on" if checkpointing else "off", _gib(base),
                         _gib(estimate.peak_allocated_bytes), f"{estimate.peak_allocated_bytes / base:.2f}"))
    return Table(
        id="fine-tuning-lora-ratio",
        caption=(f"LoRA r16 all-linear on a bf16 base, {_job_caption()}: peak_allocated_bytes divided by the "
                 "bytes of the bf16 weights (weight_bytes). The rules of thumb say 2-3 (VRLA Tech) or 1.1-1.2 "
                 "(Lyceum); the ratio depends on batch x sequence and checkpointing, not on a fixed multiple."),
        columns=("size", "model", "grad. ckpt", "bf16 weights GiB", "LoRA peak GiB", "peak / weights"),
        align=("l", "l", "l", "r", "r", "r"),
        rows=tuple(rows),
        assumptions=(f"model configs as read on {READ_ON}",),
    )


# ----------------------------------------------------------------------------- LoRA/QLoRA page
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


def lora_key_numbers() -> Table:
    """Headline figures of the LoRA/QLoRA page."""
    spec = get_model(LORA_MODEL)
    trainable = lora_parameters(spec, rank=16, targets="all-linear")
    lora = _estimate(LORA_MODEL, METHODS[2][1], grad_checkpointing=False)
    rows = (
        (f"trainable parameters, r16 all-linear, {_model_name(LORA_MODEL)}", f"{_millions(trainable)}",
         "million", "`calculators.memory.training.lora_parameters`"),
        ("trainable share of the model", f"{100 * trainable / spec.parameters:.2f}", "%",
         "`calculators.memory.training.lora_parameters`"),
        ("NF4 with double quantisation", f"{8 * quantized_bytes_per_element(DType.NF4):.3f}", "bits/parameter",
         "`calculators.memory.weights.quantized_bytes_per_element`"),
        ("activations saved for backward, same LoRA job, no checkpointing",
         _gib(lora.breakdown.get("activations", 0)), "GiB", "`calculators.memory.training.training_memory`"),
        ("fp32 adapters with their AdamW moments, same job",
         _gib(trainable * 4 + lora.breakdown["optimizer_states"]), "GiB",
         "`calculators.memory.training.training_memory`"),
    )
    return Table(
        id="fine-tuning-lora-key-numbers",
        caption=f"Derived by the calculators for {_model_name(LORA_MODEL)}, {_job_caption()}, bf16 base, "
                "bf16 autocast, AdamW.",
        columns=("quantity", "value", "unit", "function"),
        align=("l", "r", "l", "l"),
        rows=rows,
        assumptions=(f"model config as read on {READ_ON}",),
    )


def lora_rank_targets() -> Table:
    """Trainable parameters and peak memory against LoRA rank and target set, for one model."""
    spec = get_model(LORA_MODEL)
    rows = []
    for rank in LORA_RANKS:
        for label, targets in LORA_TARGET_SETS:
            trainable = lora_parameters(spec, rank=rank, targets=targets)
            settings = {**METHODS[2][1], "lora_rank": rank, "lora_targets": targets}
            off = _estimate(LORA_MODEL, settings, grad_checkpointing=False)
            on = _estimate(LORA_MODEL, settings, grad_checkpointing=True)
            rows.append((str(rank), label, _millions(trainable), f"{100 * trainable / spec.parameters:.3f}",
                         _gib(off.peak_allocated_bytes), _gib(on.peak_allocated_bytes)))
    return Table(
        id="fine-tuning-lora-rank-targets",
        caption=(f"LoRA on {_model_name(LORA_MODEL)} with a bf16 base and fp32 adapters, {_job_caption()}, "
                 "AdamW: trainable parameters (lora_parameters: rank x (in + out) per adapted linear) and "
                 "peak_allocated_bytes (training_memory) with gradient checkpointing off and on."),
        columns=("rank", "targets", "trainable (M)", "% of model", "peak GiB, ckpt off", "peak GiB, ckpt on"),
        align=("r", "l", "r", "r", "r", "r"),
        rows=tuple(rows),
        assumptions=("all-linear = q,k,v,o,gate,up,down", f"model config as read on {READ_ON}"),
    )


_BREAKDOWN_COLUMNS: tuple[tuple[str, str], ...] = (
    ("weights", "weights GiB"),
    ("optimizer_states", "AdamW moments GiB"),
    ("autocast_weight_copies", "autocast copies GiB"),
    ("activations", "activations GiB"),
    ("transient_at_peak", "transient (logits, loss) GiB"),
)


def lora_breakdown() -> Table:
    """What is live at the LoRA and QLoRA peak: the frozen base and the activations, not the adapters."""
    rows = []
    for label, settings in METHODS[2:]:
        for checkpointing in (False, True):
            estimate = _estimate(LORA_MODEL, settings, grad_checkpointing=checkpointing)
            parts = [_gib(estimate.breakdown.get(key, 0)) for key, _ in _BREAKDOWN_COLUMNS]
            rows.append((label, "on" if checkpointing else "off", estimate.peak_phase, *parts,
                         _gib(estimate.peak_allocated_bytes)))
    return Table(
        id="fine-tuning-lora-breakdown",
        caption=(f"Breakdown of peak_allocated_bytes at the peak (training_memory's breakdown) for "
                 f"{_model_name(LORA_MODEL)}, rank 16 on all linear layers, {_job_caption()}. 'weights' is the "
                 "frozen base plus the fp32 adapters; 'transient' is the transient_at_peak term: at this peak, "
                 "the start of backward, three fp32 logits-sized tensors (the log-softmax cross-entropy saved and "
                 "the two tensors of the loss gradient)."),
        columns=("method", "grad. ckpt", "peak phase", *(name for _, name in _BREAKDOWN_COLUMNS), "peak GiB"),
        align=("l", "l", "l", "r", "r", "r", "r", "r", "r"),
        rows=tuple(rows),
        assumptions=(f"model config as read on {READ_ON}",),
    )


def _sorted_by_size(models: Iterable[str]) -> list[str]:
    return sorted(models, key=lambda model: (get_model(model).parameters, model))


def qlora_by_size() -> Table:
    """QLoRA peak and total per model size, with the NF4 weights beside the bf16 ones."""
    rows = []
    for model in _sorted_by_size(QLORA_MODELS):
        spec = get_model(model)
        off = _estimate(model, METHODS[3][1], grad_checkpointing=False)
        on = _estimate(model, METHODS[3][1], grad_checkpointing=True)
        sixteen_bit = weight_bytes(spec, dtype="bf16", parameters=spec.parameters - spec.linear_parameters)
        rows.append((_model_name(model), _billions(spec.parameters), _gib(weight_bytes(spec, dtype="bf16")),
                     _gib(weight_bytes(spec, dtype="nf4")), _gib(sixteen_bit),
                     _gib(off.peak_allocated_bytes), _gib(on.peak_allocated_bytes), _gib(on.total_bytes),
                     *_fits(on)))
    return Table(
        id="fine-tuning-qlora-by-size",
        caption=(f"QLoRA (NF4 base with double quantisation, rank 16 on all linear layers, fp32 adapters, bf16 "
                 f"autocast, AdamW), {_job_caption()}. NF4 weights = weight_bytes(dtype='nf4'), of which the "
                 "'kept 16-bit' column is the embeddings, output head and norms; peak = peak_allocated_bytes; "
                 "total = total_bytes with checkpointing on, which decides the 'fits' columns."),
        columns=("model", "parameters (B)", "bf16 weights GiB", "NF4 weights GiB", "kept 16-bit GiB",
                 "peak GiB, ckpt off", "peak GiB, ckpt on", "total GiB, ckpt on", *_gpu_headers()),
        align=("l", "r", "r", "r", "r", "r", "r", "r", "l", "l", "l", "l"),
        rows=tuple(rows),
        assumptions=(_OVERHEAD,
                     f"model configs as read on {READ_ON}; GPU catalog as of {get_gpu('h100-sxm').source.as_of}"),
    )


def qlora_optimizers() -> Table:
    """QLoRA peak with AdamW, fused AdamW and paged 8-bit AdamW: the adapters' optimizer barely matters."""
    rows = []
    for model in (SIZE_CLASSES[0][1], SIZE_CLASSES[-1][1]):
        for optimizer in ("adamw", "adamw-fused", "paged-adamw-8bit"):
            estimate = _estimate(model, {**METHODS[3][1], "optimizer": optimizer}, grad_checkpointing=True)
            rows.append((_model_name(model), optimizer, _gib(estimate.breakdown["optimizer_states"], 3),
                         _gib(estimate.peak_allocated_bytes, 3)))
    return Table(
        id="fine-tuning-qlora-optimizers",
        caption=(f"QLoRA r16 all-linear with gradient checkpointing, {_job_caption()}: optimizer state and "
                 "peak_allocated_bytes (training_memory) for three optimizers. The paged optimizer's state is "
                 "counted on the GPU (the calculators do not model paging to host RAM)."),
        columns=("model", "optimizer", "optimizer state GiB", "peak GiB"),
        align=("l", "l", "r", "r"),
        rows=tuple(rows),
        assumptions=(f"model configs as read on {READ_ON}",),
    )


TABLES: dict[str, TableFunction] = {
    "fine-tuning-key-numbers": key_numbers,
    "fine-tuning-by-size": by_size,
    "fine-tuning-vendor-claims": vendor_claims,
    "fine-tuning-lora-ratio": lora_ratio,
    "fine-tuning-lora-key-numbers": lora_key_numbers,
    "fine-tuning-lora-rank-targets": lora_rank_targets,
    "fine-tuning-lora-breakdown": lora_breakdown,
    "fine-tuning-qlora-by-size": qlora_by_size,
    "fine-tuning-qlora-optimizers": qlora_optimizers,
}
