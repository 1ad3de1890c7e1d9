"""What would make it fit, and the best that fits, as every face shows them (#27 item 4).

Each answer with a memory verdict (``fit``, ``training-memory``, ``inference-memory``, ``inference-speed``,
``training-time``) builds one :class:`FitAdvice` here: the single changes that make the job fit
(:mod:`calculators.fit.advice`), each with its new margin and its cost in speed
(:mod:`calculators.performance.fit_cost`), and the best that fits the reader's GPUs
(:mod:`calculators.fit.best`). The faces draw :meth:`FitAdvice.blocks` and put
:meth:`FitAdvice.to_dict` in their data, so they say the same.

>>> from calculators.catalog.gpus import get_gpu
>>> from calculators.catalog.models import get_model
>>> from calculators.fit import share_verdict
>>> from calculators.memory.inference import inference_memory
>>> spec, gpu = get_model("llama-3.1-70b"), get_gpu("h100-sxm")
>>> verdict = share_verdict(inference_memory(spec, context=8192), gpu)
>>> advice = inference_advice(spec, gpu, verdict, gpus=1, settings={"context": 8192})
>>> advice.lines[2]
'int4 weights: 36.2 GiB to spare, 63.1 decode tokens/s of the batch (modelled)'
>>> advice.best_line
'Best that fits on 1x H100 SXM 80GB: longest prompt none; largest batch none; best weights fp8 (5.6 GiB to spare).'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.fit.advice import NO_OFFLOAD, FitChange, inference_fit_advice, training_fit_advice
from calculators.fit.best import BestFit, best_inference_fit, best_training_fit
from calculators.performance.fit_cost import NO_RATIO, SpeedCost, cost_text, inference_costs, training_costs
from calculators.fit.verdict import DOES_NOT_FIT, FITS, FitVerdict
from calculators.jobs.report import Paragraph
from calculators.memory.result import MemoryEstimate
from calculators.model import ModelSpec
from calculators.units import gib_nonzero, number

#: How the changes are introduced in every face.
CHANGES_START = "Single changes that make it fit: "


@dataclass(frozen=True)
class FitAdvice:
    """The changes that make a job fit (with their speed costs) and the best that fits, for one answer.

    Attributes:
        verdict: the job's verdict as set (``fits``: no changes are searched).
        changes: each change with its speed cost, in :mod:`calculators.fit.advice`'s order.
        best: the best that fits (empty where not searched).
        where: the reader's GPUs in words (``1x H100 SXM 80GB``).
        each: margins are per GPU (several GPUs).
        training: a training job (the list says why CPU offload is absent).
    """

    verdict: str
    changes: tuple[tuple[FitChange, SpeedCost], ...] = ()
    best: tuple[BestFit, ...] = ()
    where: str = ""
    each: bool = False
    training: bool = False

    @property
    def lines(self) -> tuple[str, ...]:
        """Each change in words: its label, new margin and speed cost."""
        return tuple(f"{change.label}: {gib_nonzero(change.verdict.margin_bytes)} GiB to spare"
                     f"{' each' if change.gpus > 1 or self.each else ''}, "
                     f"{cost_text(cost, original_verdict=self.verdict)}" for change, cost in self.changes)

    @property
    def best_line(self) -> str:
        """The best that fits in one sentence (``""``: not searched)."""
        if not self.best:
            return ""
        parts = []
        for best in self.best:
            if best.verdict is None:
                parts.append(f"{best.what} none")
                continue
            value = number(best.value) if isinstance(best.value, int) else best.value
            parts.append(f"{best.what} {value} ({gib_nonzero(best.verdict.margin_bytes)} GiB to spare"
                         f"{' each' if self.each else ''})")
        return f"Best that fits on {self.where}: " + "; ".join(parts) + "."

    def blocks(self) -> list[Paragraph]:
        """The paragraphs an answer shows: the changes (when it does not fit), then the best that fits."""
        blocks = []
        if self.verdict != FITS:
            if self.lines:
                said = [NO_RATIO] if self.verdict == DOES_NOT_FIT else []
                said += [NO_OFFLOAD] if self.training else []
                tail = "".join(f" {text[0].upper()}{text[1:]}." for text in said)
                blocks.append(Paragraph(CHANGES_START + "; ".join(self.lines) + "." + tail))
            else:
                blocks.append(Paragraph("No single change listed here makes it fit on these GPUs."))
        if self.best_line:
            blocks.append(Paragraph(self.best_line))
        return blocks

    def to_dict(self) -> dict[str, Any]:
        """``advice`` (the changes in words), ``changes`` (each with its settings, margin and speeds), ``best``."""
        return {"advice": list(self.lines),
                "changes": [{**change.to_dict(), **cost.to_dict()} for change, cost in self.changes],
                "best": [best.to_dict() for best in self.best]}


def _where(gpu: GPU, gpus: int) -> str:
    return f"{number(gpus)}x {gpu.name}"


def inference_advice(spec: ModelSpec, gpu: GPU, verdict: FitVerdict, *, gpus: int, settings: Mapping[str, Any],
                     speed: Mapping[str, Any] | None = None, best: bool = True,
                     estimate: MemoryEstimate | None = None) -> FitAdvice:
    """The advice for an inference job (``settings`` as :func:`~calculators.memory.inference.inference_memory`;
    ``speed``: the speed face's own settings, an engine...) whose verdict on ``gpus`` GPUs is ``verdict``.
    ``estimate``: the job's :func:`~calculators.memory.inference.inference_memory` for ``settings`` (the whole
    batch), when the face has it already (the advice then does not compute it again)."""
    changes: tuple[tuple[FitChange, SpeedCost], ...] = ()
    if not verdict.fits:
        advice = inference_fit_advice(spec, gpu, gpus=gpus, estimate=estimate, **settings)
        changes = inference_costs(spec, gpu, advice, gpus=gpus, **{**settings, **(speed or {})})
    found = best_inference_fit(spec, gpu, gpus=gpus, **settings) if best else ()
    return FitAdvice(verdict.verdict, changes, found, _where(gpu, gpus), each=gpus > 1)


def training_advice(spec: ModelSpec, gpu: GPU, verdict: FitVerdict, *, settings: Mapping[str, Any],
                    timing: Mapping[str, Any] | None = None, best: bool = True,
                    estimate: MemoryEstimate | None = None,
                    fit_changes: Sequence[FitChange] | None = None) -> FitAdvice:
    """The advice for a training step (``settings`` as :func:`~calculators.memory.training.training_memory`;
    ``timing``: the training-time face's own settings, a given utilisation...) whose per-GPU verdict is
    ``verdict``. ``estimate``: the step's :func:`~calculators.memory.training.training_memory` for ``settings``,
    when the face has it already (the advice then does not compute it again). ``fit_changes``: the changes
    :func:`~calculators.fit.advice.training_fit_advice` found for ``settings``, when the face has them already
    (the training-time engine's ``memory_changes``; the advice then does not search them again)."""
    changes: tuple[tuple[FitChange, SpeedCost], ...] = ()
    if not verdict.fits:
        advice = training_fit_advice(spec, gpu, estimate=estimate, **settings) if fit_changes is None else fit_changes
        changes = training_costs(spec, gpu, advice, **{**settings, **(timing or {})})
    found = best_training_fit(spec, gpu, **settings) if best else ()
    gpus = int(settings.get("gpus", 1))
    return FitAdvice(verdict.verdict, changes, found, _where(gpu, gpus), each=gpus > 1, training=True)
