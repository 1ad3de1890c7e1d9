"""The job planner (``mlhw plan``): one job, one answer: memory verdict, speed, time for the tokens asked, cost.

It composes the engine functions the detailed calculators call and computes nothing of its own
but sums and quotients of their results:

* the memory verdict on the reader's GPUs and its margin: the :class:`~calculators.fit.placement.Placement`
  the fit, speed and training-time calculators open with (:func:`~calculators.fit.inference_placement`
  of :func:`~calculators.performance.inference_speed.inference_speed`'s estimate; for training,
  :func:`~calculators.fit.training_placement` of :func:`~calculators.performance.training_time.training_time`'s
  memory settings); where it does not fit, the single changes that make it fit, as those calculators list them;
* speed: decode tokens/s and time to first token (inference), or tokens/s and the optimizer step (training);
* time for the tokens asked: ``tokens / output tokens/s`` of back-to-back static batches (inference), or
  ``training_time``'s wall clock (training); each with its measured error band;
* cost: GPU-hours times the local and the cloud price per GPU-hour of :func:`~calculators.cost.cost_comparison`
  (the catalog's launch price and median on-demand offer where not given); a side whose price the catalog
  lacks is "unknown", with the input to fill in.

The two questions of issue #27, each one form:

>>> from calculators.jobs.registry import get_calculator
>>> plan = get_calculator("plan")
>>> q1 = plan.answer({"model": "llama-3.1-70b", "gpu": "rtx-4090", "gpus": "2", "weights": "int4", "context": "8192"})
>>> q1.report.headline.split(";")[0]
'On 2x GeForce RTX 4090, tensor or pipeline parallel: tight, 1.6 GiB to spare of 23.6 GiB usable per GPU, inside the 1.7 GiB measured uncertainty'
>>> q2 = plan.answer({"model": "qwen2.5-7b", "gpu": "rtx-4090", "job": "qlora", "tokens": "1B",
...                   "grad_checkpointing": "true"})
>>> q2.data["answer"]["verdict"], q2.data["time"]["tokens"]
('fits', 1000000000)
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from calculators import cost
from calculators.catalog import prices
from calculators.catalog.custom_gpu import CustomGPU
from calculators.catalog.engines import get_engine
from calculators.catalog.gpus import GPU
from calculators.errors import InputError
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.fit import (
    Placement,
    inference_placement,
    split_inference_estimate,
    training_placement,
)
from calculators.jobs.advice import FitAdvice, inference_advice, training_advice
from calculators.jobs.answer import VERDICT_KEY, headline
from calculators.jobs.calculator import Calculator
from calculators.jobs.html import memory_chart
from calculators.jobs.plan_fields import PLAN_OWN_DEFAULTS, PLAN_TOKENS, job_method, plan_fields
from calculators.jobs.plan_links import plan_links
from calculators.jobs.report import Paragraph, Report
from calculators.jobs.speed import band_paragraphs, may_not_run, quantities
from calculators.jobs.values import Values, engine_settings, given, gpu_from_values, model_spec
from calculators.memory.result import MemoryEstimate
from calculators.model import ModelSpec
from calculators.performance import inference_speed as speed
from calculators.performance import training_time as train
from calculators.performance.error_bands import ErrorBand
from calculators.units import SECONDS_PER_DAY, SECONDS_PER_HOUR, number, token_text

#: Each job in the answer's words.
JOB_WORDS = {"inference": "inference", "full": "full fine-tuning", "lora": "LoRA fine-tuning",
             "qlora": "QLoRA fine-tuning", "pretrain": "pre-training (sized as full training)"}


@dataclass(frozen=True)
class Prices:
    """The price per GPU-hour of each side (``None``: unknown, with why) and what they assume."""

    local_usd_per_gpu_hour: float | None
    cloud_usd_per_gpu_hour: float | None
    unknown: tuple[str, ...] = ()  # why a side is unknown, naming the input to fill in
    sources: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlanView:
    """One job: the verdict on the reader's GPUs, the engine's speed, the time and the cost of the tokens."""

    spec: ModelSpec
    gpu: GPU
    job: str
    tokens: int
    placement: Placement
    advice: FitAdvice
    time_s: float  # wall clock for the tokens asked
    gpu_hours: float
    band: ErrorBand | None  # the measured error band of that time
    prices: Prices
    memory: MemoryEstimate  # one GPU's share of the job, as the fit calculator charts it
    inference: speed.InferenceSpeed | None = None
    training: train.TrainingTime | None = None

    @property
    def local_usd(self) -> float | None:
        """The run's cost on bought GPUs (USD), ``None`` where the price is unknown."""
        rate = self.prices.local_usd_per_gpu_hour
        return None if rate is None else cost.training_run_cost_usd(gpu_hours=self.gpu_hours, usd_per_gpu_hour=rate)

    @property
    def cloud_usd(self) -> float | None:
        """The run's cost on rented GPUs (USD), ``None`` where the price is unknown."""
        rate = self.prices.cloud_usd_per_gpu_hour
        return None if rate is None else cost.training_run_cost_usd(gpu_hours=self.gpu_hours, usd_per_gpu_hour=rate)


def _prices(gpu: GPU, settings: Mapping[str, Any]) -> Prices:
    """Each side's price per GPU-hour from :func:`~calculators.cost.cost_comparison` (catalog prices where not given);
    where the catalog lacks the purchase price, the cloud side still has the catalog's offer."""
    cloud_given = settings.get("cloud_usd_per_gpu_hour")
    if isinstance(gpu, CustomGPU):
        why = ["local: a purchase price of a catalog GPU (your own GPU has no catalog prices)"]
        if cloud_given is None:
            why.append("cloud: a price per GPU-hour under Cloud price (your own GPU has no catalog offers)")
        return Prices(None, cloud_given, unknown=tuple(why), sources=("cloud: given",) if cloud_given else ())
    try:
        given_prices: dict[str, Any] = {key: settings[key] for key in ("purchase_usd", "cloud_usd_per_gpu_hour",
                                                                      "utilization", "years")
                                        if settings.get(key) is not None}
        c = cost.cost_comparison(gpu=gpu.id, gpus=int(settings["gpus"]), **given_prices)
    except InputError as error:
        if error.field not in ("purchase_usd", "cloud_usd_per_gpu_hour", "power_watts"):
            raise
        cloud = cloud_given if cloud_given is not None else prices.median_cloud_usd_per_gpu_hour(gpu.id)
        if error.field == "cloud_usd_per_gpu_hour":  # the purchase price was known: the comparison needs both
            why = ["local: cost_comparison needs a cloud price too: enter one"]
        else:
            why = [f"local: {error.accepted}"]
        if cloud is None:
            why.append(f"cloud: an on-demand USD per GPU-hour: edition {prices.EDITION} has no offer for {gpu.name}")
        source = ("cloud: given" if cloud_given is not None else
                  f"cloud: median of {len(prices.offers_for(gpu.id))} on-demand offers, edition {prices.EDITION}")
        return Prices(None, cloud, unknown=tuple(why), sources=(source,) if cloud is not None else ())
    return Prices(c.local_usd_per_gpu_hour, c.cloud_usd_per_gpu_hour, sources=c.price_sources,
                  assumptions=c.assumptions)


def _compute_plan(values: Values) -> PlanView:
    spec, gpu = model_spec(values), gpu_from_values(values)
    settings = engine_settings(plan_fields(), values)
    job = str(values["job"])
    method = job_method(job=job)
    tokens = int(given(values, "tokens") or PLAN_TOKENS)
    gpus = int(settings["gpus"])
    costs = _prices(gpu, settings)
    if method is None:
        asked = {key: settings[key] for key in ("gpus", "weights", "kv_cache", "batch", "context", "engine")
                 if settings.get(key) is not None}
        result = speed.inference_speed(spec, gpu, new_tokens=int(settings["new_tokens"]), **asked)
        assert result.memory is not None
        placement = inference_placement(result.memory, gpu, gpus=result.gpus)
        # advised on the job the headline placed: the engine's settings, weights "auto" resolved against the model
        advice = inference_advice(spec, gpu, placement.verdict, gpus=result.gpus, best=False,
                                  speed={"engine": asked["engine"]} if "engine" in asked else None,
                                  settings=result.memory_settings, estimate=result.memory)
        time_s = tokens / result.output_tokens_per_s  # static batches of batch x new_tokens, back to back
        return PlanView(spec=spec, gpu=gpu, job=job, tokens=tokens, placement=placement, advice=advice,
                        time_s=time_s, gpu_hours=gpus * time_s / SECONDS_PER_HOUR, band=result.generation_band,
                        prices=costs, memory=split_inference_estimate(result.memory, result.gpus), inference=result)
    run = train.training_time(spec, gpu, tokens=tokens, gpus=gpus, seq=int(settings["context"]),
                              batch=int(settings["batch"]), method=method,
                              grad_checkpointing=bool(settings["grad_checkpointing"]),
                              zero=int(settings["zero"]))
    # the step train-time checked, with the changes it found and, where it does not fit, its placement (the fewest
    # GPUs, searched for those changes); placed here as fit places it where it fits
    step = run.memory_estimate
    assert step is not None  # one GPU, no tensor or pipeline parallel: memory is checked
    placement = run.memory_placement or training_placement(spec, gpu, estimate=step, **run.memory_settings)
    advice = training_advice(spec, gpu, placement.verdict, settings=run.memory_settings, best=False,
                             fit_changes=run.memory_changes)
    return PlanView(spec=spec, gpu=gpu, job=job, tokens=tokens, placement=placement, advice=advice,
                    time_s=run.time_s, gpu_hours=run.gpu_hours, band=run.error_band, prices=costs, memory=step,
                    training=run)


def _duration(seconds: float) -> str:
    """A wall-clock time in the unit that reads best: ``41.2 minutes``, ``3.5 hours``, ``12.1 days``."""
    if seconds < 2 * SECONDS_PER_HOUR:
        return f"{number(seconds / 60, 1)} minutes"
    if seconds < 48 * SECONDS_PER_HOUR:
        return f"{number(seconds / SECONDS_PER_HOUR, 1)} hours"
    return f"{number(seconds / SECONDS_PER_DAY, 1)} days"


def _usd(value: float | None) -> str:
    return "unknown" if value is None else f"${number(value, 2 if value < 100 else 0)}"


def _speed_sentence(view: PlanView) -> str:
    if view.inference is not None:
        r, first = view.inference, view.inference.first_step
        return (f"Speed with {get_engine(r.engine).name}: {number(first.tokens_per_s, 1)} tokens/s per sequence, "
                f"{number(first.aggregate_tokens_per_s, 1)} tokens/s for the batch of {number(r.batch)}; first token "
                f"after {number(r.time_to_first_token_s * 1000, 1)} ms; {number(r.output_tokens_per_s, 1)} output "
                f"tokens/s over whole requests of {number(r.new_tokens)} new tokens.")
    assert view.training is not None
    t = view.training
    step_s = t.global_batch_tokens / t.tokens_per_s
    return (f"Speed: {number(t.tokens_per_s)} tokens/s ({number(t.tokens_per_s_per_gpu)} per GPU) at utilisation "
            f"{t.utilisation:.3g}; one optimizer step of {number(t.global_batch_tokens)} tokens every "
            f"{number(step_s, 2)} s.")


def _time_sentence(view: PlanView) -> str:
    verb = "Generating" if view.inference is not None else "Training on"
    text = (f"{verb} {token_text(view.tokens)} tokens: {_duration(view.time_s)} of wall clock on "
            f"{number(view.placement.gpus)}x {view.gpu.name} ({number(view.gpu_hours, 1)} GPU-hours)")
    if view.band is not None:
        low, high = view.band.time_range(view.time_s)
        text += f"; 80 % of published figures of this kind would take {_duration(low)} to {_duration(high)}"
    return text + "."


def _cost_sentence(view: PlanView) -> str:
    p = view.prices
    parts = []
    for side, total, rate in (("cloud", view.cloud_usd, p.cloud_usd_per_gpu_hour),
                              ("local", view.local_usd, p.local_usd_per_gpu_hour)):
        if total is None or rate is None:
            parts.append(f"{side} unknown")
            continue
        band = ""
        if view.band is not None:
            low, high = view.band.time_range(total)  # cost is GPU-hours times a price: the time's band
            band = f", {_usd(low)} to {_usd(high)} in the band"
        parts.append(f"{side} {_usd(total)} at {_usd(rate)} per GPU-hour{band}")
    text = "Cost: " + "; ".join(parts) + "."
    if p.unknown:
        text += " Unknown: " + "; ".join(p.unknown) + "."
    return text


def plan_report(view: PlanView) -> Report:
    """The verdict first (and what would make it fit), then speed, time and cost, then the numbers."""
    blocks: list[Any] = []
    if may_not_run(view.placement.verdict):
        blocks.append(Paragraph(may_not_run(view.placement.verdict).replace("speeds", "speed, time and cost")))
    blocks += view.advice.blocks()
    blocks += [Paragraph(f"{view.spec.name}, {JOB_WORDS[view.job]}."), Paragraph(_speed_sentence(view)),
               Paragraph(_time_sentence(view)), Paragraph(_cost_sentence(view))]
    blocks += band_paragraphs(*_bands(view))
    share = view.memory
    blocks += [memory_chart([*share.breakdown.items(), *share.overhead.items()],
                            capacity_bytes=usable_memory_bytes(view.gpu), capacity_label=f"{view.gpu.name} (usable)",
                            title=f"{view.spec.name}, one GPU's memory"),
               quantities(_rows(view), caption="The plan's numbers")]
    result: Any = view.inference if view.inference is not None else view.training
    assumptions = (*result.assumptions, *view.prices.assumptions, VERDICT_KEY)
    notes = (*(result.notes if view.inference is not None else ()), *view.prices.sources)
    return Report(headline(view.placement), verdict=view.placement.verdict.verdict, blocks=tuple(blocks),
                  notes=tuple(dict.fromkeys(notes)), assumptions=tuple(dict.fromkeys(assumptions)),
                  warnings=view.spec.warnings)


def _bands(view: PlanView) -> list[tuple[ErrorBand | None, str]]:
    if view.inference is not None:
        r = view.inference
        return [(r.first_step.error_band, "decode step"), (r.prefill.error_band, "time to first token"),
                (r.generation_band, "generation time")]
    return [(view.band, "training time")]


def _rows(view: PlanView) -> list[tuple[str, str, str, str]]:
    rows: list[tuple[str, str, str, str]] = []
    if view.inference is not None:
        r = view.inference
        rows += [("Decode, per sequence", number(r.first_step.tokens_per_s, 1), "tokens/s", "estimate"),
                 ("Decode, whole batch", number(r.first_step.aggregate_tokens_per_s, 1), "tokens/s", "estimate"),
                 ("Time to first token", number(r.time_to_first_token_s * 1000, 1), "ms", "estimate"),
                 ("Output tokens/s over whole requests", number(r.output_tokens_per_s, 1), "tokens/s", "estimate")]
    else:
        t = view.training
        assert t is not None
        rows += [("Throughput, all GPUs", number(t.tokens_per_s), "tokens/s", "estimate"),
                 ("Optimizer step", number(t.global_batch_tokens / t.tokens_per_s, 2), "s", "estimate"),
                 ("Utilisation of the dense rate", f"{t.utilisation:.3g}", "", "fitted")]
    rows += [("Wall clock for the tokens asked", number(view.time_s / SECONDS_PER_HOUR, 2), "hours", "estimate"),
             ("GPU time", number(view.gpu_hours, 1), "GPU-hours", "estimate"),
             ("Cloud price", _usd(view.prices.cloud_usd_per_gpu_hour), "USD per GPU-hour", "catalog or given"),
             ("Cloud cost", _usd(view.cloud_usd), "USD", "estimate"),
             ("Local price (depreciation and power)", _usd(view.prices.local_usd_per_gpu_hour), "USD per GPU-hour",
              "derived"),
             ("Local cost", _usd(view.local_usd), "USD", "estimate")]
    return rows


def plan_data(view: PlanView) -> dict[str, Any]:
    """``answer`` (the placement and the advice), ``speed`` (the engine's result), ``time`` and ``cost``."""
    result: Any = view.inference if view.inference is not None else view.training
    low_high = None if view.band is None else list(view.band.time_range(view.time_s))
    return {"job": view.job, "answer": {**view.placement.to_dict(), **view.advice.to_dict()},
            "speed": result.to_dict(),
            "time": {"tokens": view.tokens, "time_s": view.time_s, "gpu_hours": view.gpu_hours,
                     "time_s_band": low_high},
            "cost": {"local_usd_per_gpu_hour": view.prices.local_usd_per_gpu_hour,
                     "cloud_usd_per_gpu_hour": view.prices.cloud_usd_per_gpu_hour,
                     "local_usd": view.local_usd, "cloud_usd": view.cloud_usd, "unknown": list(view.prices.unknown),
                     "price_edition": prices.EDITION, "price_sources": list(view.prices.sources)}}


def calculators() -> list[Calculator]:
    """The job planner."""
    return [Calculator("plan", "Plan a job: fit, speed, time and cost", plan_fields(), _compute_plan, plan_report,
                       plan_data, engines=(job_method, speed.inference_speed, speed.SpeedInputs, train.training_time,
                                           cost.cost_comparison),
                       own_defaults=PLAN_OWN_DEFAULTS, command="plan",
                       command_help="one job on your GPUs: the memory verdict, tokens/s, time for the tokens asked, "
                                    "and its local and cloud cost",
                       links=functools.partial(plan_links, "plan"))]
