"""The reverse question: on these GPUs, which models fit, for inference and for LoRA/QLoRA fine-tuning (#27 item 4).

For each catalog model, with the one verdict of :mod:`calculators.fit` on the reader's GPU count:

* **inference** at a prompt of ``context`` tokens and a batch of ``batch`` (no new tokens): the best
  weights format that fits (:func:`~calculators.fit.best.weights_by_quality`: bf16 > fp8 > int8 > int4, fp8
  only where the GPU multiplies in it; a checkpoint stored quantised in its own format first, then only the
  smaller ones), split evenly over the GPUs (tensor or pipeline parallel) as
  :func:`~calculators.fit.fit_inference` splits it; where none fits, the verdict of the smallest;
* **LoRA** and **QLoRA** fine-tuning of sequences of ``seq`` tokens, one per micro-batch, with gradient
  checkpointing unless turned off, on the GPUs data parallel with ZeRO-3 (FSDP full shard) above one GPU,
  as :func:`~calculators.fit.fit_training` judges it; ``None`` for a model LoRA cannot adapt (a pure Mamba).

Each verdict is the one ``fit`` gives for the same job (``tests/engine/test_fit_advice.py`` checks it), so a
reader can open any row in the fit calculator. All 123 models take about 0.4 s in CPython: the searches of
``fit`` (GPUs needed, largest batch and context) are not run, and the estimates, which do not depend on the
GPU, are kept per model and job, so another GPU or count costs only the verdicts.

>>> from calculators.catalog.gpus import get_gpu
>>> rows = models_for_gpu(get_gpu("rtx-4090"), context=8192)
>>> row = next(row for row in rows if row.model_id == "llama-3-8b")
>>> row.weights, row.inference.verdict, row.qlora is not None and row.qlora.verdict
('bf16', 'fits', 'fits')
>>> row = next(row for row in rows if row.model_id == "gpt-oss-20b")  # MXFP4 experts: nothing smaller is tried
>>> row.weights, row.weights_name, row.inference.verdict
('', 'mxfp4 as stored', 'does not fit')
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.catalog.models import all_models
from calculators.fit.best import weights_by_quality, weights_name
from calculators.fit.placement import SEARCH_ZERO, share_verdict
from calculators.fit.verdict import MAX_GPUS_SEARCHED, FitVerdict, fit_verdict
from calculators.memory.inference import MAX_BATCH, MAX_CONTEXT, inference_memory
from calculators.memory.lora import has_lora_targets
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import training_memory
from calculators.memory.training_inputs import MAX_SEQ
from calculators.model import ModelSpec
from calculators.validate import GPU_RECORD, flag, instance_of, positive_int


@dataclass(frozen=True)
class ModelFit:
    """One catalog model on the reader's GPUs.

    Attributes:
        model_id, name: the catalog model.
        parameters: its parameter count (the table's order).
        weights: the best weights format whose inference fits, as the ``weights`` keyword (``"auto"``: the
            checkpoint's own format; ``""``: none fits).
        weights_name: how the format of ``inference`` reads (``"mxfp4 as stored"``; the smallest tried where none
            fits).
        inference: the verdict with ``weights`` (the smallest format's where none fits).
        lora, qlora: the fine-tuning verdicts (``None``: the model has no projection LoRA adapts).
    """

    model_id: str
    name: str
    parameters: int
    weights: str
    weights_name: str
    inference: FitVerdict
    lora: FitVerdict | None
    qlora: FitVerdict | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (bytes)."""
        def verdict(found: FitVerdict | None) -> dict[str, Any] | None:
            return None if found is None else {"verdict": found.verdict, "margin_bytes": found.margin_bytes}

        return {"model": self.model_id, "name": self.name, "parameters": self.parameters,
                "inference_weights": self.weights or None, "inference_weights_name": self.weights_name,
                "inference": verdict(self.inference),
                "lora": verdict(self.lora), "qlora": verdict(self.qlora)}


@functools.cache
def _catalog() -> dict[str, ModelSpec]:
    """Every catalog model's shapes by id, parsed once (a widget asks again with each input it changes)."""
    return {item.id: item.spec() for item in all_models()}


def training_job(*, seq: int, gpus: int, grad_checkpointing: bool) -> dict[str, Any]:
    """The :func:`~calculators.memory.training.training_memory` settings of the reverse question's fine-tuning
    (without the method): one sequence per micro-batch, ZeRO-3 above one GPU."""
    return {"seq": seq, "batch": 1, "grad_checkpointing": grad_checkpointing, "gpus": gpus,
            "zero": SEARCH_ZERO if gpus > 1 else 0}


@functools.lru_cache(maxsize=2048)
def _inference_estimate(model_id: str, form: str, context: int, batch: int) -> MemoryEstimate:
    """A catalog model's inference estimate: it does not depend on the GPU, so a widget that changes only the GPU
    or the count reuses it."""
    return inference_memory(_catalog()[model_id], weights=form, context=context, batch=batch)


@functools.lru_cache(maxsize=2048)
def _training_estimate(model_id: str, method: str, seq: int, gpus: int, grad_checkpointing: bool) -> MemoryEstimate:
    """A catalog model's fine-tuning estimate per GPU (see :func:`_inference_estimate`)."""
    job = training_job(seq=seq, gpus=gpus, grad_checkpointing=grad_checkpointing)
    return training_memory(_catalog()[model_id], method=method, **job)


def model_fit(gpu: GPU, *, model_id: str, gpus: int = 1, context: int = 8192, batch: int = 1,
              seq: int = 2048, grad_checkpointing: bool = True) -> ModelFit:
    """One catalog model's row of :func:`models_for_gpu` (arguments checked there)."""
    spec = _catalog()[model_id]
    best, found, form = "", None, ""
    for form in weights_by_quality(spec, gpu):
        found = share_verdict(_inference_estimate(model_id, form, context, batch), gpu, gpus=gpus)
        if found.fits:
            best = form
            break
    assert found is not None
    lora = qlora = None
    if has_lora_targets(spec):
        lora = fit_verdict(_training_estimate(model_id, "lora", seq, gpus, grad_checkpointing), gpu)
        qlora = fit_verdict(_training_estimate(model_id, "qlora", seq, gpus, grad_checkpointing), gpu)
    return ModelFit(model_id=model_id, name=spec.name, parameters=spec.parameters, weights=best,
                    weights_name=weights_name(spec, form), inference=found, lora=lora, qlora=qlora)


def models_for_gpu(gpu: GPU, *, gpus: int = 1, context: int = 8192, batch: int = 1, seq: int = 2048,
                   grad_checkpointing: bool = True) -> tuple[ModelFit, ...]:
    """Every catalog model on ``gpus`` GPUs of ``gpu``, smallest first (see the module docstring).

    Args:
        gpu: a GPU record (:func:`calculators.inputs.gpu.resolve_gpu` reads an id).
        gpus: the reader's GPU count.
        context, batch: the inference job's prompt (tokens) and concurrent sequences.
        seq: the fine-tuning job's sequence length (tokens).
        grad_checkpointing: the fine-tuning job recomputes activations (the usual setting for LoRA on one GPU).
    """
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    gpus = positive_int("gpus", gpus, maximum=MAX_GPUS_SEARCHED)
    context = positive_int("context", context, maximum=MAX_CONTEXT)
    batch = positive_int("batch", batch, maximum=MAX_BATCH)
    seq = positive_int("seq", seq, maximum=MAX_SEQ)
    checkpointing = flag("grad_checkpointing", grad_checkpointing)
    rows = [model_fit(record, model_id=model_id, gpus=gpus, context=context, batch=batch, seq=seq,
                      grad_checkpointing=checkpointing) for model_id in _catalog()]
    return tuple(sorted(rows, key=lambda row: (row.parameters, row.name)))
