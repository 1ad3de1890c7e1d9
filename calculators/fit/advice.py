"""What would make a job fit: single changes, each with the verdict it then gets (#27 item 4).

Each change is tried alone, every other setting as given, against the one verdict on the
reader's GPUs (:func:`~calculators.fit.placement.share_verdict` for inference,
:func:`~calculators.fit.verdict.fit_verdict` of the per-GPU training step). Only changes whose
verdict is *fits* are listed (a tight job is not promised), each as a :class:`FitChange`: what
changed (the engine's own keywords, so a face or :mod:`calculators.performance.fit_cost` can rerun the
changed job), the GPUs it then runs on, and its verdict there (the new margin).

* Inference (:func:`inference_fit_advice`): smaller weights (int8, or fp8 where the GPU multiplies
  in it, then int4), an fp8 KV cache, one sequence instead of a batch, the longest prompt that
  fits, and the fewest GPUs whose shares fit. Offloading layers to the CPU is not offered: the inference
  memory model keeps every weight on the GPUs.
* Training (:func:`training_fit_advice`): gradient checkpointing, micro-batch 1 with gradient
  accumulation (the same tokens per optimizer step), an 8-bit AdamW, ZeRO-3 over the GPUs already
  in the job, LoRA, QLoRA, the longest sequence that fits, and the fewest GPUs (powers of two,
  data parallel with ZeRO-3, as :func:`~calculators.fit.placement.training_placement` searches).
  CPU offload of the optimizer state is not offered: the training memory model
  (:func:`~calculators.memory.training.training_memory`) has no offload, so its GPU memory
  would be a guess (:mod:`calculators.system` sizes only the host RAM an offload needs).

What a change costs in quality is not judged here (a 4-bit checkpoint loses some accuracy, a
shorter prompt holds less text); its cost in speed is :mod:`calculators.performance.fit_cost`'s.

>>> from calculators.catalog.gpus import get_gpu
>>> from calculators.catalog.models import get_model
>>> for change in inference_fit_advice(get_model("llama-3.1-70b"), get_gpu("h100-sxm"), context=8192):
...     print(f"{change.label}: {change.verdict.verdict}, {change.verdict.margin_bytes / 2**30:.1f} GiB to spare")
int8 weights: fits, 5.6 GiB to spare
fp8 weights: fits, 5.6 GiB to spare
int4 weights: fits, 36.2 GiB to spare
2 GPUs, tensor or pipeline parallel: fits, 9.9 GiB to spare
>>> [change.label for change in training_fit_advice(get_model("llama-3-8b"), get_gpu("h100-sxm"), batch=4)]
['QLoRA (4-bit NF4 base)', '4 GPUs, data parallel with ZeRO-3 and gradient checkpointing']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.dtype_support import runs_natively
from calculators.fit.placement import (
    INFERENCE_SPLIT,
    SEARCH_ZERO,
    TRAINING_SEARCH,
    Placement,
    inference_placement,
    share_verdict,
    training_placement,
)
from calculators.fit.verdict import MAX_GPUS_SEARCHED, FitVerdict, fit_verdict
from calculators.memory.inference import MAX_CONTEXT, inference_memory, largest_fitting, with_stored_weights
from calculators.memory.lora import has_lora_targets
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import training_memory
from calculators.memory.training_inputs import MAX_SEQ
from calculators.memory.weight_formats import weight_format
from calculators.model import ModelSpec
from calculators.validate import GPU_RECORD, instance_of, positive_int

#: The weight formats tried, largest first, where each saves at least a bit per weight on the job's own.
SMALLER_WEIGHTS = ("int8", "fp8", "int4")
#: The optimizer an "8-bit optimizer" change picks (bitsandbytes AdamW8bit: :mod:`calculators.memory.optimizers`).
EIGHT_BIT_OPTIMIZER = "adamw-8bit"
#: Optimizers whose state is already 8-bit or smaller, or that keep no moments worth shrinking.
SMALL_STATE_OPTIMIZERS = ("adamw-8bit", "paged-adamw-8bit", "sgd", "adafactor")
#: Why CPU offload is not among the training changes (said wherever the list is explained).
NO_OFFLOAD = ("CPU offload of the optimizer state is not listed: the training memory model has no offload, so the "
              "GPU memory it leaves would be a guess")


@dataclass(frozen=True)
class FitChange:
    """One single change that makes a job fit, and the verdict it then gets.

    Attributes:
        label: the change in words (``"int4 weights"``, ``"gradient checkpointing"``).
        change: the engine keywords changed, with their new values (``{"weights": "int4"}``); ``gpus`` is
            among them where the change adds GPUs (a training step's ``zero`` too).
        gpus: the GPUs the changed job runs on.
        verdict: its per-GPU verdict there (``fits``); ``verdict.margin_bytes`` is the new margin.
    """

    label: str
    change: Mapping[str, Any] = field(hash=False)
    gpus: int
    verdict: FitVerdict

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: the change, its GPUs, its verdict and margin (bytes)."""
        return {"change": self.label, "settings": {key: str(value) if not isinstance(value, (int, float, bool))
                                                   else value for key, value in self.change.items()},
                "gpus": self.gpus, **self.verdict.to_dict()}


def inference_fit_advice(spec: ModelSpec, gpu: GPU, *, gpus: int = 1, estimate: MemoryEstimate | None = None,
                         **settings: Any) -> tuple[FitChange, ...]:
    """Single changes that make an inference job (settings as
    :func:`~calculators.memory.inference.inference_memory`) *fit* on ``gpus`` GPUs of ``gpu``, each with
    its verdict there; empty when the job fits already (see the module docstring). ``estimate``: the job's
    :func:`~calculators.memory.inference.inference_memory` for ``settings`` (the whole batch), when the caller
    has it already (its settings are then not checked again).
    """
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    gpus = positive_int("gpus", gpus, maximum=MAX_GPUS_SEARCHED)
    settings = with_stored_weights(spec, settings)

    def verdict(**change: Any) -> FitVerdict:
        return share_verdict(inference_memory(spec, **{**settings, **change}), record, gpus=gpus)

    job = inference_memory(spec, **settings) if estimate is None else estimate  # verdict() and the GPU search
    if share_verdict(job, record, gpus=gpus).fits:
        return ()
    bits = weight_format(settings["weights"]).bits_per_weight
    changes: list[tuple[str, dict[str, Any]]] = []
    for form in SMALLER_WEIGHTS:
        if weight_format(form).bits_per_weight <= bits - 1 and (form != "fp8" or runs_natively(record, "fp8")):
            changes.append((f"{form} weights", {"weights": form}))
    if str(settings.get("kv_cache", "bf16")) in ("bf16", "fp16", "fp32") and runs_natively(record, "fp8"):
        changes.append(("fp8 KV cache", {"kv_cache": "fp8"}))
    batch = int(settings.get("batch", 1))
    if batch > 1:
        changes.append(("one sequence instead of a batch", {"batch": 1}))
    advice = [FitChange(label, change, gpus, found) for label, change in changes if (found := verdict(**change)).fits]
    context = int(settings.get("context", 4096))
    room = MAX_CONTEXT - int(settings.get("new_tokens", 0))
    longest = largest_fitting(lambda n: verdict(context=n).fits, min(context - 1, room)) if context > 1 else 0
    if longest:
        advice.append(FitChange(f"a prompt of {longest:,} tokens", {"context": longest}, gpus,
                                verdict(context=longest)))
    placed = inference_placement(job, record, gpus=gpus)
    if placed.fewest_fits is not None and placed.fewest_fits_verdict is not None and placed.fewest_fits > gpus:
        advice.append(FitChange(f"{placed.fewest_fits} GPUs, {INFERENCE_SPLIT}", {"gpus": placed.fewest_fits},
                                placed.fewest_fits, placed.fewest_fits_verdict))
    return tuple(advice)


def training_fit_advice(spec: ModelSpec, gpu: GPU, *, estimate: MemoryEstimate | None = None,
                        placement: Placement | None = None, **settings: Any) -> tuple[FitChange, ...]:
    """Single changes that make a training step (settings as :func:`~calculators.memory.training.training_memory`,
    ``gpus`` and ``zero`` included) *fit* each of its GPUs of ``gpu``, each with its verdict there; empty when the
    step fits already (see the module docstring).

    The micro-batch change keeps the tokens per optimizer step (``batch x grad_accumulation``
    micro-batches of one sequence). More GPUs: the fewest that :func:`~calculators.fit.placement.training_placement`
    finds (powers of two, ZeRO-3), else the fewest with gradient checkpointing too (ZeRO-3 shards the model
    states only; activations stay per GPU). LoRA and QLoRA only where the model has a projection LoRA adapts
    (not a pure Mamba). ``estimate``: the step's :func:`~calculators.memory.training.training_memory` for
    ``settings``, when the caller has it already (its settings are then not checked again). ``placement``: the
    step's :func:`~calculators.fit.placement.training_placement` for ``settings``, when the caller has it already
    (the fewest GPUs are then not searched again).
    """
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)

    def verdict(**change: Any) -> FitVerdict:
        return fit_verdict(training_memory(spec, **{**settings, **change}), record)

    given = training_memory(spec, **settings) if estimate is None else estimate
    if fit_verdict(given, record).fits:
        return ()
    batch = int(settings.get("batch", 1))
    accumulation = int(settings.get("grad_accumulation", 1))
    gpus = int(settings.get("gpus", 1))
    method = str(settings.get("method", "full"))
    changes: list[tuple[str, dict[str, Any]]] = []
    if not settings.get("grad_checkpointing"):
        changes.append(("gradient checkpointing", {"grad_checkpointing": True}))
    if batch > 1:
        changes.append((f"micro-batch 1 with gradient accumulation {batch * accumulation}",
                        {"batch": 1, "grad_accumulation": batch * accumulation}))
    if str(settings.get("optimizer", "adamw")) not in SMALL_STATE_OPTIMIZERS:
        changes.append(("8-bit AdamW (bitsandbytes)", {"optimizer": EIGHT_BIT_OPTIMIZER}))
    if gpus > 1 and int(settings.get("zero", 0)) < SEARCH_ZERO:
        changes.append((f"ZeRO-3 over the {gpus} GPUs", {"zero": SEARCH_ZERO}))
    adaptable = has_lora_targets(spec)  # a pure state-space model (Mamba) has no projection LoRA adapts
    if method == "full" and adaptable:
        changes.append(("LoRA instead of full fine-tuning", {"method": "lora", "base_dtype": None}))
    if method != "qlora" and adaptable:
        changes.append(("QLoRA (4-bit NF4 base)", {"method": "qlora", "base_dtype": None}))
    advice = [FitChange(label, change, gpus, found) for label, change in changes if (found := verdict(**change)).fits]
    seq = int(settings.get("seq", 2048))
    longest = largest_fitting(lambda n: verdict(seq=n).fits, min(seq - 1, MAX_SEQ)) if seq > 1 else 0
    if longest:
        advice.append(FitChange(f"sequences of {longest:,} tokens", {"seq": longest}, gpus, verdict(seq=longest)))
    advice.extend(_more_gpus(spec, record, settings, given, placement))
    return tuple(advice)


def _more_gpus(spec: ModelSpec, record: GPU, settings: dict[str, Any], estimate: MemoryEstimate,
               placement: Placement | None) -> list[FitChange]:
    """The fewest GPUs (above the job's) that hold a training step with ZeRO-3; with checkpointing too where
    ZeRO-3 alone does not. ``estimate``: the step's memory as given; ``placement``: its placement, if known."""
    gpus = int(settings.get("gpus", 1))
    placed = placement if placement is not None else training_placement(spec, record, estimate=estimate, **settings)
    if placed.fewest_fits is not None and placed.fewest_fits_verdict is not None and placed.fewest_fits > gpus:
        change = {"gpus": placed.fewest_fits, "zero": SEARCH_ZERO}
        return [FitChange(f"{placed.fewest_fits} GPUs, {TRAINING_SEARCH}", change, placed.fewest_fits,
                          placed.fewest_fits_verdict)]
    if settings.get("grad_checkpointing"):
        return []
    count = max(2, gpus * 2)
    while count <= MAX_GPUS_SEARCHED:
        change = {"gpus": count, "zero": SEARCH_ZERO, "grad_checkpointing": True}
        found = fit_verdict(training_memory(spec, **{**settings, **change}), record)
        if found.fits:
            return [FitChange(f"{count} GPUs, {TRAINING_SEARCH} and gradient checkpointing", change, count, found)]
        count *= 2
    return []
