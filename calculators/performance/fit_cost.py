"""What each change that makes a job fit costs in speed, by the guide's own speed engines (#27 item 4).

A change of :mod:`calculators.fit.advice` is rerun through the engine that times the job, with
every other setting as given, and compared with the job as set:

* inference: the decode tokens/s of the whole batch at the prompt's length
  (:func:`~calculators.performance.inference_speed.decode_step`; more GPUs are timed in tensor
  parallel, with their all-reduces);
* training: the tokens/s of all the job's GPUs at steady state
  (:func:`~calculators.performance.training_time.training_time`: checkpointing's extra forward,
  LoRA's frozen base, QLoRA's dequantisation, the host time of smaller micro-batches, more GPUs'
  communication).

``ratio`` is the changed job's modelled speed over the job's as set. A job that does not fit
runs at no speed, so its answer states the changed job's own modelled speed instead
(:func:`cost_text`); the ratio stays in the data. A change the engine does not time (an 8-bit
optimizer: the training-time engine has no optimizer step) has no speed, and says why.

>>> from calculators.catalog.gpus import get_gpu
>>> from calculators.catalog.models import get_model
>>> from calculators.fit.advice import inference_fit_advice
>>> spec, gpu = get_model("llama-3.1-70b"), get_gpu("h100-sxm")
>>> advice = inference_fit_advice(spec, gpu, context=8192)
>>> for change, cost in inference_costs(spec, gpu, advice, context=8192):
...     print(f"{change.label}: {cost.ratio:.2f}x")
int8 weights: 1.91x
fp8 weights: 1.91x
int4 weights: 3.39x
2 GPUs, tensor or pipeline parallel: 1.93x
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.errors import InputError
from calculators.fit.advice import FitChange
from calculators.fit.verdict import DOES_NOT_FIT
from calculators.model import ModelSpec
from calculators.performance.inference_speed import decode_step
from calculators.performance.speed_setup import SpeedInputs
from calculators.performance.training_time import training_time
from calculators.units import number
from calculators.validate import parameters_of

#: What each job's speed is, as the answers name it.
INFERENCE_METRIC = "decode tokens/s of the batch"
TRAINING_METRIC = "training tokens/s of all GPUs"
#: What a face says once where the job as set does not fit (each change then states its own modelled speed).
NO_RATIO = "the job as set does not fit, so each change states its own modelled speed, not a ratio"
#: Tokens of the training run timed for a ratio: tokens/s at steady state does not depend on them.
TIMED_TOKENS = 10**9
#: The speed calculators as a reader knows them (their titles), named where a change is not timed.
INFERENCE_CALCULATOR = "inference speed"
TRAINING_CALCULATOR = "training time"
#: Settings a change may set to ``None`` (the engine's choice) that the speed engines do not take: a LoRA base.
_UNTIMED_NONE = ("base_dtype",)


@dataclass(frozen=True)
class SpeedCost:
    """The modelled speed of a changed job and of the job as set.

    Attributes:
        metric: what the speeds are (:data:`INFERENCE_METRIC`, :data:`TRAINING_METRIC`).
        changed: the changed job's modelled speed (``None``: not timed, see ``reason``).
        original: the job as set, timed as if it ran (``None``: not timed).
        reason: why a speed is missing (``""`` when both are there).
    """

    metric: str
    changed: float | None
    original: float | None
    reason: str = ""

    @property
    def ratio(self) -> float | None:
        """The changed job's speed over the job's as set (``None`` where either is missing)."""
        if self.changed is None or not self.original:
            return None
        return self.changed / self.original

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (tokens/s)."""
        return {"metric": self.metric, "changed_tokens_per_s": self.changed, "original_tokens_per_s": self.original,
                "speed_ratio": self.ratio, "speed_reason": self.reason}


def cost_text(cost: SpeedCost, *, original_verdict: str) -> str:
    """The speed cost in words: ``0.51x the decode tokens/s of the batch`` where the job as set runs (fits or is
    tight); where it does not fit, the changed job's own speed: ``41.0 decode tokens/s of the batch (modelled)``
    (a face says once that the job as set has no speed to compare with: :data:`NO_RATIO`).

    >>> cost_text(SpeedCost(INFERENCE_METRIC, 41.0, 80.0), original_verdict="tight")
    '0.51x the decode tokens/s of the batch'
    >>> cost_text(SpeedCost(INFERENCE_METRIC, 41.0, 80.0), original_verdict="does not fit")
    '41.0 decode tokens/s of the batch (modelled)'
    """
    if cost.changed is None:
        return f"speed not modelled: {cost.reason}"
    if original_verdict == DOES_NOT_FIT or cost.ratio is None:
        return f"{number(cost.changed, 1)} {cost.metric} (modelled)"
    return f"{cost.ratio:.2f}x the {cost.metric}"


def untimed_reason(calculator: str, settings: Sequence[str]) -> str:
    """Why a change is not timed, for a reader: the speed calculator by its title and the settings it does not
    model, in words.

    >>> untimed_reason(TRAINING_CALCULATOR, ["optimizer"])
    'the training time calculator does not model the optimizer setting'
    >>> untimed_reason(INFERENCE_CALCULATOR, ["attention", "images", "kv_offload"])
    'the inference speed calculator does not model the attention, images and kv offload settings'
    """
    words = [setting.replace("_", " ") for setting in settings]
    listed = words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
    return f"the {calculator} calculator does not model the {listed} setting{'s' if len(words) > 1 else ''}"


def _timed(engine: Callable[..., Any], calculator: str, settings: Mapping[str, Any],
           change: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """The keywords of ``engine`` (the ``calculator``'s) among ``settings`` updated by ``change``, and why the
    change is not timed (``""``: it is)."""
    accepted = parameters_of(engine)
    untimed = [key for key, value in change.items()
               if key not in accepted and not (value is None and key in _UNTIMED_NONE)]
    if untimed:
        return {}, untimed_reason(calculator, untimed)
    merged = {**settings, **change}
    return {key: value for key, value in merged.items() if key in accepted}, ""


def _speeds(metric: str, advice: Sequence[FitChange], settings: Mapping[str, Any],
            engine: Callable[..., Any], calculator: str, speed: Callable[[dict[str, Any]], float]) -> tuple[
        tuple[FitChange, SpeedCost], ...]:
    """Each change's :class:`SpeedCost`: ``speed`` of the changed and of the original settings (``engine``'s
    keywords, ``calculator`` its title)."""
    def timed(change: Mapping[str, Any]) -> tuple[float | None, str]:
        kept, reason = _timed(engine, calculator, settings, change)
        if reason:
            return None, reason
        try:
            return speed(kept), ""
        except InputError as error:  # a GPU without a rate for the format, a count the engine refuses
            return None, f"{error.field}: {error.accepted}"

    original, why = timed({})
    costs = []
    for change in advice:
        changed, reason = timed(change.change)
        costs.append((change, SpeedCost(metric, changed, original, reason or why)))
    return tuple(costs)


def inference_costs(spec: ModelSpec, gpu: GPU, advice: Sequence[FitChange], *, gpus: int = 1,
                    **settings: Any) -> tuple[tuple[FitChange, SpeedCost], ...]:
    """Each change of an inference job (settings as :func:`~calculators.memory.inference.inference_memory`, plus
    any of :class:`~calculators.performance.speed_setup.SpeedInputs`': ``engine``...) with its speed cost
    (see the module docstring)."""
    return _speeds(INFERENCE_METRIC, advice, {**settings, "gpus": gpus}, SpeedInputs, INFERENCE_CALCULATOR,
                   lambda kept: decode_step(spec, gpu, **kept).aggregate_tokens_per_s)


def training_costs(spec: ModelSpec, gpu: GPU, advice: Sequence[FitChange], **settings: Any) -> tuple[
        tuple[FitChange, SpeedCost], ...]:
    """Each change of a training step (settings as :func:`~calculators.memory.training.training_memory`, plus any
    of :func:`~calculators.performance.training_time.training_time`'s: ``mfu``...) with its speed cost: the
    steady-state tokens/s of all its GPUs (see the module docstring).

    >>> from calculators.catalog.gpus import get_gpu
    >>> from calculators.catalog.models import get_model
    >>> from calculators.fit.advice import training_fit_advice
    >>> spec, gpu = get_model("llama-3-8b"), get_gpu("h100-sxm")
    >>> for change, cost in training_costs(spec, gpu, training_fit_advice(spec, gpu, batch=4), batch=4):
    ...     print(change.label, cost.ratio is not None)
    QLoRA (4-bit NF4 base) True
    4 GPUs, data parallel with ZeRO-3 and gradient checkpointing True
    """
    return _speeds(TRAINING_METRIC, advice, settings, training_time, TRAINING_CALCULATOR,
                   lambda kept: training_time(spec, gpu, **{**kept, "tokens": TIMED_TOKENS, "goodput": 1,
                                                            "check_memory": False}).tokens_per_s)
