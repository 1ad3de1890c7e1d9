"""Shared pieces of the claim records: source names, docs pages, and thin calls into the calculators.

Every number here comes from :mod:`calculators.memory`, :mod:`calculators.catalog` or the
other calculators; this module only fixes the settings a claim leaves open (the job:
batch 1 x 2048 tokens, SDPA attention) and converts units. Memory is compared in the
claim's unit: "GB" is 10^9 bytes (how the guides multiply parameters by bytes); a GPU's
"80 GB" is 80 GiB (see :mod:`calculators.catalog.gpus`).

>>> round(gb(training(MODEL_7B, method="full", precision="bf16-mixed").total_bytes))  # Llama 2 7B
136
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model, get_model_record
from calculators.claims.record import Case, Figure
from calculators.fit import fit_inference, fit_verdict
from calculators.memory.inference import inference_memory
from calculators.memory.optimizers import optimizer_bytes
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import training_memory
from calculators.memory.weights import weight_bytes
from calculators.units import GIB

GB = 10**9

# --- the five guides (file names in the sources folder) ------------------------------------
HFP = "hardware-for-ml-practitioners-2026.txt"
LYCEUM = "lyceum-gpu-selection-inference-vs-training-2026.txt"
PYTORCH = "pytorch-hardware-requirements-2025.txt"
VRLA_FT = "vrla-llm-finetuning-vram-2026.txt"
VRLA_WS = "vrla-ml-workstation-requirements-2026.txt"

#: File name -> (short label for tables, publisher and title).
SOURCES: dict[str, tuple[str, str]] = {
    HFP: ("Practitioners 2026", "Hardware for ML Practitioners (practitioner guide, April 2026)"),
    LYCEUM: ("Lyceum 2026", "Lyceum Technology, GPU Selection Guide: Inference vs. Training Workloads in 2026"),
    PYTORCH: ("PyTorch reqs 2025", "What are the hardware requirements for PyTorch? (2025-01-30)"),
    VRLA_FT: ("VRLA fine-tuning 2026", "VRLA Tech, How much VRAM do you need for LLM fine-tuning in 2026"),
    VRLA_WS: ("VRLA workstation 2026", "VRLA Tech, Machine learning workstation hardware requirements (April 2026)"),
}

# --- docs pages behind our figures (paths under docs/) -------------------------------------
PAGE_MEMORY = "memory/index.md"
PAGE_PRECISION = "memory/precision-and-optimizers.md"
PAGE_ACTIVATIONS = "memory/activations.md"
PAGE_VISION = "memory/vision.md"
PAGE_FINE_TUNING = "fine-tuning/index.md"
PAGE_LORA = "fine-tuning/lora-and-qlora.md"
PAGE_INFERENCE = "inference/index.md"
PAGE_QUANT = "inference/quantization.md"
PAGE_MOE = "inference/moe.md"
PAGE_HARDWARE = "hardware/index.md"
PAGE_MULTI_GPU = "multi-gpu/index.md"
PAGE_INTERCONNECT = "multi-gpu/interconnect.md"
PAGE_PERFORMANCE = "performance/index.md"
PAGE_TRAINING_TIME = "performance/training-time.md"
PAGE_SYSTEM = "system/index.md"
PAGE_COST = "cost/index.md"

# --- functions behind our figures (dotted names shown in the table) --------------------------
F_TRAIN = "calculators.memory.training.training_memory"
F_INFER = "calculators.memory.inference.inference_memory"
F_WEIGHTS = "calculators.memory.weights.weight_bytes"
F_GPU = "calculators.catalog.gpus.get_gpu"
F_MODEL = "calculators.model.ModelSpec.parameters"

#: The 7B model of the guides that say just "7B": Llama 2 7B (6.74B parameters).
MODEL_7B = "llama-2-7b"
#: The job every training figure uses unless a claim says otherwise.
JOB: dict[str, Any] = {"batch": 1, "seq": 2048, "attention": "sdpa"}
JOB_TEXT = "batch 1 x 2048 tokens, SDPA attention, one GPU"
#: Settings of the methods the guides name.
MIXED: dict[str, Any] = {"method": "full", "precision": "bf16-mixed", "optimizer": "adamw"}
PURE16: dict[str, Any] = {"method": "full", "precision": "bf16", "optimizer": "adamw"}
FP32: dict[str, Any] = {"method": "full", "precision": "fp32", "optimizer": "adamw"}
LORA: dict[str, Any] = {"method": "lora", "precision": "bf16-mixed", "optimizer": "adamw", "lora_rank": 16,
        "lora_targets": "all-linear"}
QLORA: dict[str, Any] = {"method": "qlora", "precision": "bf16-mixed", "optimizer": "adamw", "lora_rank": 16,
         "lora_targets": "all-linear"}
#: The two AdamW implementations of PyTorch: the default foreach step allocates a parameter-sized
#: temporary (``torch._foreach_sqrt`` of the second moments), the fused kernel does not.
FOREACH = "foreach AdamW (PyTorch's default)"
FUSED = "fused AdamW"


def adamw_variants(settings: dict[str, Any]) -> tuple[tuple[str, dict[str, Any]], ...]:
    """The recipe with each AdamW implementation: ``((FOREACH, settings), (FUSED, settings'))``."""
    return ((FOREACH, {**settings, "optimizer": "adamw"}), (FUSED, {**settings, "optimizer": "adamw-fused"}))


#: "FP16" full fine-tuning read both ways: PyTorch mixed precision (fp32 master weights) and pure 16-bit.
FP16_READINGS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("mixed precision (fp32 master weights)", MIXED), ("pure bf16 (16-bit weights, gradients, moments)", PURE16))


def gb(value: float) -> float:
    """Bytes to GB (10^9 bytes)."""
    return value / GB


def gib(value: float) -> float:
    """Bytes to GiB (2^30 bytes)."""
    return value / GIB


def name(model: str) -> str:
    """A catalog model's display name."""
    return get_model_record(model).name


def training(model: str, **settings: Any) -> MemoryEstimate:
    """:func:`calculators.memory.training.training_memory` with :data:`JOB` as defaults."""
    return training_memory(get_model(model), **{**JOB, **settings})


def inference(model: str, **settings: Any) -> MemoryEstimate:
    """:func:`calculators.memory.inference.inference_memory` (batch 1, 4096-token context by default)."""
    return inference_memory(get_model(model), **settings)


def ckpt(on: bool) -> str:
    """Label of a checkpointing setting."""
    return "ckpt on" if on else "ckpt off"


def training_cases(models: Iterable[str], settings: dict[str, Any], value: Callable[[MemoryEstimate, str], float],
                   *, checkpointing: Iterable[bool] = (False, True), prefix: str = "", condition: str = "",
                   **extra: Any) -> list[Case]:
    """One case per model and checkpointing setting; ``value(estimate, model)`` picks the number.

    ``condition`` names the recipe the cases stand for (the verdict names it when all its cases agree).
    """
    out = []
    for model in models:
        values = [(on, value(training(model, **settings, **extra, grad_checkpointing=on), model))
                  for on in checkpointing]
        if len(values) == 2 and math.isclose(values[0][1], values[1][1], rel_tol=1e-3):
            # The peak is the optimizer step, which checkpointing does not touch: one case, not two.
            out.append(Case(f"{prefix}{name(model)}, ckpt on or off", values[0][1], condition=condition))
            continue
        out += [Case(f"{prefix}{name(model)}, {ckpt(on)}", number, condition=condition) for on, number in values]
    return out


def variant_cases(models: Iterable[str], variants: Iterable[tuple[str, dict[str, Any]]],
                  value: Callable[[MemoryEstimate, str], float], *,
                  checkpointing: Iterable[bool] = (False, True), **extra: Any) -> list[Case]:
    """:func:`training_cases` for each ``(condition, settings)`` recipe, labelled and grouped by the recipe."""
    models = tuple(models)
    out: list[Case] = []
    for condition, settings in variants:
        out += training_cases(models, settings, value, checkpointing=checkpointing, prefix=f"{condition}, ",
                              condition=condition, **extra)
    return out


def reference(label: str, value: float) -> Case:
    """A case shown beside the readings for comparison (weights alone, model states alone); no verdict rests on it."""
    return Case(f"{label} (reference)", float(value), reading=False)


def total_gb(estimate: MemoryEstimate, _model: str = "") -> float:
    """total_bytes in GB."""
    return gb(estimate.total_bytes)


def total_gib(estimate: MemoryEstimate, _model: str = "") -> float:
    """total_bytes in GiB."""
    return gib(estimate.total_bytes)


def bytes_per_param(estimate: MemoryEstimate, _model: str = "") -> float:
    """total_bytes per parameter of the model."""
    return estimate.total_bytes / estimate.parameters


def model_state_bytes_per_param(settings: dict[str, Any]) -> float:
    """Weights + gradients + optimizer state per parameter of full fine-tuning (the ZeRO paper's "model states").

    Formula: ``2 x p + optimizer state(p)`` with ``p`` the bytes of a trainable weight: 4 for
    fp32 master weights (fp32, bf16-mixed, fp16-mixed), 2 for a pure 16-bit model.

    >>> model_state_bytes_per_param({"precision": "bf16-mixed", "optimizer": "adamw"})  # 4 + 4 + 8
    16.0
    """
    param = 2 if settings.get("precision") in ("bf16", "fp16") else 4
    state = optimizer_bytes(optimizer=str(settings.get("optimizer", "adamw")), param_bytes=param)
    return 2.0 * param + state.state_bytes_per_param


def weights16_bytes(model: str) -> int:
    """Bytes of a model's weights in a 16-bit format."""
    return weight_bytes(get_model(model), dtype="bf16")


def gpu_gib(gpu: str) -> float:
    """A catalog GPU's memory in GiB."""
    return get_gpu(gpu).memory_gib


def min_gpus(model: str, settings: dict[str, Any], *, gpu: str, grad_checkpointing: bool, limit: int = 64) -> int:
    """Fewest GPUs on which the job *fits* (:func:`calculators.fit.fit_verdict`), sharded with ZeRO-3 (FSDP full shard).

    One GPU runs without sharding. Raises ``ValueError`` past ``limit``.
    """
    card = get_gpu(gpu)
    for count in range(1, limit + 1):
        zero = 3 if count > 1 else 0
        estimate = training(model, **settings, gpus=count, zero=zero, grad_checkpointing=grad_checkpointing)
        if fit_verdict(estimate, card).fits:
            return count
    raise ValueError(f"{model} does not fit on {limit} x {gpu}")


def gpus_to_serve(model: str, *, gpu: str, **settings: Any) -> int:
    """Fewest GPUs on which an inference job *fits*, split evenly (tensor parallel), as ``fit_inference`` counts them."""
    needed = fit_inference(get_model(model), gpu, **settings).gpus_needed
    if needed is None:
        raise ValueError(f"{model} does not fit on {gpu} GPUs up to the search limit")
    return needed


def figure(cases: Iterable[tuple[str, float] | Case], unit: str, function: str, page: str, *,
           kind: str = "derived") -> Figure:
    """A :class:`~calculators.claims.record.Figure` from cases or ``(label, value)`` pairs."""
    made = tuple(case if isinstance(case, Case) else Case(case[0], float(case[1])) for case in cases)
    return Figure(cases=made, unit=unit, function=function, page=page, kind=kind)
