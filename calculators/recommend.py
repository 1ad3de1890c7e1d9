"""Recommended GPU configurations for a workload: what fits, how fast, at what cost, sorted.

For each catalog GPU and each GPU count in :data:`GPU_COUNTS`, the workload's memory is
estimated per GPU (serving: :func:`~calculators.performance.inference_speed.inference_speed`,
whose per-GPU figure is ``total_bytes`` of
:func:`~calculators.memory.inference.inference_memory` split evenly over tensor-parallel
GPUs, the KV cache over its KV heads at most (:func:`~calculators.fit.placement.split_inference_estimate`); training and fine-tuning: ``total_bytes`` of
:func:`~calculators.memory.training.training_memory` with ZeRO-3 sharding when the count
is above 1). Each configuration gets the one fit verdict of :func:`calculators.fit.verdict_for`
against the memory a process can allocate (``usable_memory_bytes``): *fits* (the total plus
its measured uncertainty fits), *tight* (only the total fits: listed, flagged, ranked after
every configuration that fits) or *does not fit* (dropped). Each kept configuration has:

* headroom: usable GPU memory minus per-GPU ``total_bytes`` (bytes);
* speed (an estimate at assumed efficiencies, never a measurement): serving, the
  aggregate decode tokens/s of the batch with ``context`` tokens cached per sequence
  (the decode step of :mod:`calculators.performance.inference_speed` with the workload's
  ``engine``, the one ``speed --engine`` uses); training, the cluster
  tokens/s and wall-clock days for ``tokens`` at the fitted utilisation (or the given ``mfu``)
  (:func:`~calculators.performance.training_time.training_time`);
* cost: USD per hour of the configuration from :func:`~calculators.catalog.prices.configuration_price`
  (edition :data:`~calculators.catalog.prices.EDITION`): the median of instances with exactly
  that many GPUs where the edition has one (``price_basis`` ``"offer"``), else ``count x`` the
  median per-GPU-hour, marked a *per-GPU assumption* (nobody may rent eight RTX 3090s in one
  machine at that rate), else unknown; then USD per million generated tokens
  (:func:`~calculators.cost.usd_per_million_tokens`) or USD per training run
  (:func:`~calculators.cost.training_run_cost_usd`);
* whether it meets the throughput target and the hourly budget (``None`` = unknown);
* ``why``: one sentence saying why it stands where it does.

A GPU that cannot run the job's number formats (fp8 weights on Ampere, bf16 on Volta or
Turing: :mod:`calculators.dtype_support`) is skipped with the reason.

Only configurations that *fit* are ranked (``rows``); *tight* ones are listed apart
(``tight_rows``), never ranked. The order follows the workload's ``objective``, stated in
:attr:`Recommendation.objective_text`:

* ``"cost"``: USD per million tokens (serving) or per run (training), cheapest first, unknown
  last; each row says whether its price is an offer of that size or a per-GPU assumption;
* ``"latency"``: serving, the per-sequence decode rate (fastest first); training, the days;
* ``"fewest-gpus"``: the GPU count, then cost.

Configurations that meet every stated target come first under each objective.

>>> from calculators.catalog.models import get_model
>>> plan = recommend(Workload(model=get_model("llama-3-8b"), job="serve", context=8192, batch=8))
>>> best = plan.rows[0]
>>> best.gpu_id, best.count, best.price_basis
('rtx-3090', 2, 'per-GPU assumption')
>>> all(row.verdict == "fits" for row in plan.rows), all(row.verdict == "tight" for row in plan.tight_rows)
(True, True)

References:
    docs page "Which GPUs should I buy or rent for my workload?" (docs/recommend/index.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from calculators import cost
from calculators.catalog import prices
from calculators.catalog.custom_gpu import CustomGPU
from calculators.catalog.engines import DEFAULT_ENGINE, get_engine
from calculators.catalog.gpus import GPU, all_gpus
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.dtype_support import UnsupportedFormatError, serving_notes, training_notes
from calculators.dtypes import DType
from calculators.errors import InputError
from calculators.fit import (
    DOES_NOT_FIT,
    FITS,
    TIGHT,
    FitVerdict,
    fit_verdict,
    footprint_on,
    split_inference_footprint,
    verdict_for,
)
from calculators.inputs.gpu import resolve_gpu
from calculators.inputs.model import resolve_model
from calculators.memory.checkpoint_weights import STORED_NOTE_START
from calculators.memory.inference import KV_DTYPES, MAX_CONTEXT, WEIGHT_DTYPES, inference_memory
from calculators.memory.inference import MAX_BATCH as MAX_SERVE_BATCH
from calculators.memory.training import training_memory
from calculators.memory.training_inputs import MAX_BATCH as MAX_TRAIN_BATCH
from calculators.memory.training_inputs import MAX_SEQ, METHODS
from calculators.memory.weight_formats import resolve_weights, weight_format
from calculators.parallel.tensor import tensor_parallel_link
from calculators.performance import inference_speed as speed
from calculators.performance.flops import compute_rate_flop_per_s
from calculators.performance.speed_setup import SpeedSetup
from calculators.performance.training_time import MAX_TOKENS, default_mfu, training_time
from calculators.recommend_result import Configuration, Recommendation, objective_sentence, sort_key, why_sentence
from calculators.units import gib, gib_nonzero
from calculators.validate import finite_float, flag, one_of, positive_int

# The workload, its defaults and ranges are a subject of their own; re-exported here, where callers import them.
from calculators.recommend_inputs import (
    APPLE_REASON as APPLE_REASON,
    DEFAULT_CONTEXT as DEFAULT_CONTEXT,
    DEFAULT_KV_CACHE as DEFAULT_KV_CACHE,
    DEFAULT_METHOD as DEFAULT_METHOD,
    DEFAULT_TOKENS as DEFAULT_TOKENS,
    GPU_COUNTS as GPU_COUNTS,
    JOBS as JOBS,
    MAX_BUDGET_USD_PER_HOUR as MAX_BUDGET_USD_PER_HOUR,
    MAX_CANDIDATES as MAX_CANDIDATES,
    MAX_TOKENS_PER_S as MAX_TOKENS_PER_S,
    OBJECTIVES as OBJECTIVES,
    Workload as Workload,
)

__all__ = ["Configuration", "Recommendation", "Workload", "objective_sentence", "recommend"]


def _optional_float(field: str, value: object, *, maximum: float) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return finite_float(field, value, minimum=0.0, maximum=maximum, allow_minimum=False)


def _check(target: float | None, value: float | None, *, at_most: bool = False) -> bool | None:
    if target is None:
        return True
    if value is None:
        return None
    return value <= target if at_most else value >= target


def _price(gpu: GPU, count: int) -> prices.ConfigurationPrice:
    if isinstance(gpu, CustomGPU):
        return prices.ConfigurationPrice(None, prices.UNKNOWN)
    return prices.configuration_price(gpu.id, count)


@dataclass(frozen=True)
class _Speed:
    """What a configuration's speed estimate gave: aggregate tokens/s, days and GPU-hours of a run, tokens/s of
    one sequence (each ``None`` when unknown or not asked)."""

    rate: float | None = None
    days: float | None = None
    hours: float | None = None
    per_sequence: float | None = None


@dataclass(frozen=True)
class _Targets:
    """The checked job and the targets a configuration is held to (``None``: no target)."""

    job: str
    tokens_per_s: float | None
    usd_per_hour: float | None


def _row(gpu: GPU, count: int, *, verdict: FitVerdict, speed: _Speed, targets: _Targets,
         notes: tuple[str, ...]) -> Configuration:
    rate, days, hours, per_sequence = speed.rate, speed.days, speed.hours, speed.per_sequence
    target, budget = targets.tokens_per_s, targets.usd_per_hour
    quote = _price(gpu, count)
    per_gpu = None if quote.usd_per_hour is None else quote.usd_per_hour / count
    per_mtok = per_run = None
    if per_gpu is not None and rate is not None and rate > 0:
        if targets.job == "serve":
            per_mtok = cost.usd_per_million_tokens(tokens_per_s=rate, usd_per_hour=count * per_gpu)
        elif hours is not None:
            per_run = cost.training_run_cost_usd(gpu_hours=hours, usd_per_gpu_hour=per_gpu)
    if verdict.verdict == TIGHT:
        notes = (f"tight: {gib_nonzero(verdict.margin_bytes)} GiB to spare of {gib(verdict.usable_bytes, 1)} GiB "
                 f"usable, inside the {gib(verdict.uncertainty_bytes, 1)} GiB measured uncertainty",) + notes
    if quote.basis == prices.PER_GPU_ASSUMPTION:
        notes += (f"price is a per-GPU assumption: no {count}-GPU instance of {gpu.name} in edition "
                  f"{prices.EDITION}, so {count} x the median per-GPU-hour of its offers",)
    return Configuration(gpu_id=gpu.id, gpu_name=gpu.name, count=count, memory_per_gpu_bytes=verdict.total_bytes,
                         capacity_bytes=verdict.usable_bytes, verdict=verdict.verdict,
                         uncertainty_bytes=verdict.uncertainty_bytes,
                         tokens_per_s=rate, days=days, usd_per_gpu_hour=per_gpu,
                         usd_per_million_tokens=per_mtok, usd_per_run=per_run,
                         meets_throughput=_check(target, rate),
                         meets_budget=_check(budget, None if per_gpu is None else count * per_gpu, at_most=True),
                         notes=notes, price_basis=quote.basis, tokens_per_s_per_sequence=per_sequence)


def _candidates(w: Workload, apple: bool) -> tuple[list[GPU], list[str]]:
    if w.gpus is None:
        return [g for g in all_gpus() if apple or g.vendor != "Apple"], ([] if apple else [APPLE_REASON])
    if isinstance(w.gpus, str | GPU) or not isinstance(w.gpus, tuple | list):
        raise InputError("gpus", w.gpus, "a tuple of GPU ids or custom:/mac: descriptions")
    if not 1 <= len(w.gpus) <= MAX_CANDIDATES:
        raise InputError("gpus", len(w.gpus), f"1 to {MAX_CANDIDATES} GPUs")
    return [resolve_gpu(g, field="gpus") for g in w.gpus], []


def recommend(workload: Workload) -> Recommendation:
    """Every GPU configuration (1, 2, 4 or 8 GPUs) that fits ``workload``, ranked by its objective.

    Formula: verdict of per-GPU ``total_bytes`` (and its uncertainty) against usable GPU
    memory; speed and cost as the module docstring says; configurations that *fit* ranked
    by the objective, *tight* ones apart.

    Raises:
        InputError: a workload field out of range, naming it (``job``, ``method``, ``kv_cache``,
            ``context``, ``batch``, ``tokens``, ``target_tokens_per_s``, ``budget_usd_per_hour``, ``mfu``,
            ``objective``, ``gpus``, ``engine``).

    >>> from calculators.catalog.models import get_model
    >>> recommend(Workload(model="llama-3-8b", job="cook"))
    Traceback (most recent call last):
    ...
    calculators.errors.UnknownNameError: job: got 'cook'; expected one of: serve, finetune, train
    """
    if not isinstance(workload, Workload):
        raise InputError("workload", workload, "a Workload(model=..., job=...)")
    w = workload
    spec = resolve_model(w.model)
    job = one_of("job", w.job, JOBS)
    method = w.method if w.method is not None else DEFAULT_METHOD[job]
    method = one_of("method", method, WEIGHT_DTYPES if job == "serve" else METHODS)
    if job == "train" and method != "full":
        raise InputError("method", method, "full for job 'train' (use job 'finetune' for lora or qlora)")
    weights = resolve_weights(spec, method) if job == "serve" else method  # "auto": as the checkpoint stores them
    if job == "serve":
        method = weight_format(weights).id
    context_max = MAX_CONTEXT if job == "serve" else MAX_SEQ
    context = positive_int("context", w.context if w.context is not None else DEFAULT_CONTEXT[job],
                           maximum=context_max)
    batch = positive_int("batch", w.batch, maximum=MAX_SERVE_BATCH if job == "serve" else MAX_TRAIN_BATCH)
    tokens_checked = positive_int("tokens", w.tokens, maximum=MAX_TOKENS)  # checked for every job
    tokens = tokens_checked if job != "serve" else None
    kv_dtype = one_of("kv_cache", w.kv_cache, KV_DTYPES)  # checked for every job, used when serving
    kv_cache = kv_dtype if job == "serve" else None
    target = _optional_float("target_tokens_per_s", w.target_tokens_per_s, maximum=MAX_TOKENS_PER_S)
    budget = _optional_float("budget_usd_per_hour", w.budget_usd_per_hour, maximum=MAX_BUDGET_USD_PER_HOUR)
    checkpointing = flag("grad_checkpointing", w.grad_checkpointing)
    apple = flag("include_apple", w.include_apple)
    mfu = _optional_float("mfu", w.mfu, maximum=1.0)
    objective = one_of("objective", w.objective, OBJECTIVES)
    # The engine is checked for every job; serving uses its efficiencies for this weights format (resolved above
    # against the model: a setup without one would refuse "auto").
    setup = SpeedSetup.of(engine=w.engine, weights=weights) if job == "serve" else None
    engine = setup.engine if setup is not None else get_engine(w.engine).id
    candidates, skipped = _candidates(w, apple)
    targets = _Targets(job=job, tokens_per_s=target, usd_per_hour=budget)

    serve_estimate = inference_memory(spec, weights=weights, kv_cache=kv_cache or DEFAULT_KV_CACHE, batch=batch,
                                      context=context) if job == "serve" else None
    rows: list[Configuration] = []
    unpriced: list[str] = []
    for gpu in candidates:
        try:
            formats = (serving_notes(gpu, weights=weight_format(weights).family, kv_cache=kv_dtype,
                                     weights_label=method) if job == "serve"
                       else training_notes(gpu, method=method))
        except UnsupportedFormatError as error:
            skipped.append(f"{gpu.name}: cannot run this job: {error.accepted.split(' runs: ', 1)[-1]}")
            continue
        # A Mac is one device; a custom GPU's link between cards is unknown, so it is sized at one GPU.
        counts = (1,) if gpu.vendor == "Apple" or isinstance(gpu, CustomGPU) else GPU_COUNTS
        if _price(gpu, 1).usd_per_hour is None:
            unpriced.append(gpu.name)
        for count in counts:
            if serve_estimate is not None:
                total, uncertainty = (split_inference_footprint(serve_estimate, count) if count > 1
                                      else footprint_on(serve_estimate, gpu))
                verdict = verdict_for(total, uncertainty, usable_memory_bytes(gpu))
                if verdict.verdict == DOES_NOT_FIT:
                    continue
                notes = formats
                try:
                    step = speed.decode_step(spec, gpu, engine=engine, weights=weights,
                                             kv_cache=kv_cache or DEFAULT_KV_CACHE, batch=batch, context=context,
                                             gpus=count)
                except InputError as error:  # a Mac given without its bandwidth
                    rows.append(_row(gpu, count, verdict=verdict, speed=_Speed(), targets=targets,
                                     notes=notes + (f"speed unknown: {error}",)))
                    continue
                if compute_rate_flop_per_s(gpu, DType.BF16) is None:
                    notes += (f"{gpu.name} has no published dense rate: memory time only (a bound)",)
                if count > 1:
                    link = tensor_parallel_link(gpu, gpus=count)
                    notes += (f"tensor parallel over {link.name}: all-reduces add "
                              f"{step.communication_time_s * 1e3:,.2f} ms to each {step.time_s * 1e3:,.2f} ms "
                              "decode step",)
                rows.append(_row(gpu, count, verdict=verdict, targets=targets, notes=notes,
                                 speed=_Speed(rate=step.aggregate_tokens_per_s, per_sequence=step.tokens_per_s)))
                continue
            estimate = training_memory(spec, method=method, batch=batch, seq=context,
                                       grad_checkpointing=checkpointing, gpus=count, zero=3 if count > 1 else 0)
            verdict = fit_verdict(estimate, gpu)
            if verdict.verdict == DOES_NOT_FIT:
                continue
            notes = formats
            rate = days = hours = None
            if compute_rate_flop_per_s(gpu, DType.BF16) is None:
                notes += (f"{gpu.name} has no published dense BF16 rate: training speed unknown",)
            else:
                run = training_time(spec, gpu, tokens=tokens or 1, gpus=count, mfu=mfu, seq=context,
                                    grad_checkpointing=checkpointing, method=method, batch=batch,
                                    zero=3 if count > 1 else 0)
                rate, days, hours = run.tokens_per_s, run.days, run.gpu_hours
                if count > 1:
                    notes += (f"ZeRO-3 over {run.scaling.link_name}: scaling efficiency "
                              f"{run.scaling_efficiency:.0%}",)
            rows.append(_row(gpu, count, verdict=verdict, speed=_Speed(rate=rate, days=days, hours=hours),
                             targets=targets, notes=notes))
    stored = tuple(note for note in (serve_estimate.notes if serve_estimate else ()) if note.startswith(STORED_NOTE_START))
    key = sort_key(objective, job)
    ranked = sorted((r for r in rows if r.verdict == FITS), key=key)
    tight = sorted((r for r in rows if r.verdict == TIGHT), key=key)
    first = ranked[0] if ranked else None
    ranked = [replace(r, why=why_sentence(r, None if r is first else first, objective, job)) for r in ranked]
    tight = [replace(r, why="Not ranked (tight): " + why_sentence(r, None, objective, job).split(": ", 1)[1]) for r in tight]
    return Recommendation(model=spec.name, job=job, method=method, context=context, batch=batch, tokens=tokens,
                          target_tokens_per_s=target, budget_usd_per_hour=budget, rows=tuple(ranked),
                          tight_rows=tuple(tight), objective=objective, engine=engine if job == "serve" else None,
                          skipped=tuple(skipped), unpriced=tuple(unpriced), kv_cache=kv_cache,
                          assumptions=stored + _assumptions(job, method, mfu, checkpointing, tokens, kv_cache, setup))


def _assumptions(job: str, method: str, mfu: float | None, checkpointing: bool, tokens: int | None,
                 kv_cache: str | None, setup: SpeedSetup | None) -> tuple[str, ...]:
    common = (f"GPU counts tried: {', '.join(str(c) for c in GPU_COUNTS)} (one node)",
              f"price: on-demand cloud prices of catalog edition {prices.EDITION} (for buying, see the cost page): "
              "the median of instances with exactly that many GPUs where there is one, else the GPU count x the "
              "median per-GPU-hour, marked a per-GPU assumption; unknown where the edition has no offer",
              "a configuration meets the targets only if every stated target is known to be met")
    if setup is not None:  # serving
        return common + (
            f"fit: total_bytes of inference_memory (weights, KV cache in {kv_cache} at the full context, "
            "activations, runtime overhead) split evenly over tensor-parallel GPUs, the KV cache over its KV heads "
            "at most (an MLA latent held whole by every GPU), against the memory a process "
            "can allocate; tight configurations (inside the measured uncertainty) are listed after those that fit",
            f"speed: aggregate decode tokens/s at the full context (the slowest step), the decode_step of 'speed' "
            f"with engine {setup.engine}: roofline with bandwidth efficiency {setup.bandwidth_efficiency:.3g} and "
            f"compute efficiency {setup.compute_efficiency:.3g} "
            f"({'assumed' if setup.engine == DEFAULT_ENGINE else 'fitted on published runs'})"
            + (f", {setup.step_overhead_s_per_layer * 1e6:,.1f} us fixed cost per layer per step"
               if setup.step_overhead_s_per_layer else "")
            + ", plus tensor-parallel all-reduces (2 per layer) over each GPU's own link: NVLink where it has one, "
            "else PCIe (calculators.parallel.tensor); prefill time not counted",
            "USD per million tokens: generated tokens at that sustained aggregate rate (static batch, always full)",
        )
    mfu_text = (f"utilisation {mfu:g} (given)" if mfu is not None else
                f"the utilisation (the MFU without recomputation) fitted on published runs "
                f"(calculators.performance.utilisation: "
                f"H100 {default_mfu_value('h100-sxm'):.2f}, A100 {default_mfu_value('a100-80gb-sxm'):.2f} at a large "
                "micro-batch; GPUs without published runs take the lowest)")
    return common + (
        f"fit: total_bytes of training_memory, method {method}, ZeRO-3 sharding over the GPUs when more than one, "
        f"activation checkpointing {'on' if checkpointing else 'off'}, against the memory a process can allocate; "
        "tight configurations (inside the measured uncertainty) are listed after those that fit",
        f"speed: 6·N·D plus attention at {mfu_text}; {tokens:,} training tokens",
        "LoRA/QLoRA: frozen base weights skip their weight-gradient matmuls, 4·N plus 6 x adapter parameters per "
        "token (training_flops_per_token)" if method != "full"
        else "full training: optimizer AdamW (training_memory default)",
        "multi-GPU: ZeRO-3 collectives over each GPU's own link (NVLink where it has one, else PCIe); the part "
        "compute cannot hide lowers the scaling efficiency (calculators.performance.scaling)",
    )


def default_mfu_value(gpu_id: str) -> float:
    """The fitted steady-state utilisation of one catalog GPU (a number, for captions)."""
    from calculators.catalog.gpus import get_gpu

    return default_mfu(get_gpu(gpu_id))[0]
