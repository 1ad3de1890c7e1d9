"""Widgets of the Performance section's inference pages: ``inference-speed`` and ``serving-load``.

>>> from calculators.jobs.registry import get_calculator
>>> html = get_calculator("inference-speed").run({"batch": "4"})
>>> "tokens/s" in html and "<svg" in html
True
>>> "Requests in flight that fit" in get_calculator("serving-load").run({"concurrency": "16"})
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from calculators.catalog.engines import engine_ids, get_engine
from calculators.catalog.interconnects import interconnect_ids
from calculators.inputs.fields import Field, choice_field, default_of, float_field, int_field
from calculators.inputs.shared import ENGINE_GPU, model_and_gpu_fields
from calculators.memory import inference, training_inputs
from calculators.parallel.step import AUTO
from calculators.performance import inference_speed as speed
from calculators.performance import serving_load as load
from calculators.performance import serving_result
from calculators.performance.steps import DecodeStep
from calculators.units import gib
from calculators.jobs.calculator import Calculator
from calculators.jobs.values import Values, engine_settings, gpu_from_values, model_spec
from calculators.jobs.html import Bar, color, labelled_bars_svg, notes_html, paragraph, table_html

#: Batch sizes the speed chart always draws (plus the one chosen).
CHART_BATCHES = (1, 4, 16, 64, 256)


def _served_fields(engine: Callable[..., Any], *, help: str) -> tuple[Field, ...]:
    """The engine and formats of a served model, read from ``engine``'s signature (speed and serving load)."""
    return (
        choice_field("engine", "Engine", choices=engine_ids(), default=default_of(engine, "engine"),
                     labels=tuple(get_engine(e).name for e in engine_ids()), help=help).option(
            f"inference engine whose fitted efficiencies and fixed costs to use: one of {', '.join(engine_ids())}; "
            "generic: 0.8 of bandwidth, 0.6 of the tensor rate, no fixed costs"),
        choice_field("weights", "Weights", choices=inference.WEIGHT_DTYPES, default=default_of(engine, "weights"),
                     help="Bytes read per token follow the format's bits per weight; the 4- and 8-bit "
                          "integer formats are weight-only (16-bit matmuls).").option(
            f"weight format: one of {', '.join(inference.WEIGHT_DTYPES)}, or exl2-<bits> from 2 to 8"),
        choice_field("kv_cache", "KV cache", choices=inference.KV_DTYPES, default=default_of(engine, "kv_cache")
                     ).option(f"one of {', '.join(inference.KV_DTYPES)}"),
    )


def _server_fields(engine: Callable[..., Any]) -> tuple[Field, ...]:
    """The GPUs of a served model and how well it uses them, read from ``engine``'s signature."""
    return (
        int_field("gpus", "Tensor-parallel GPUs", default=default_of(engine, "gpus"),
                  maximum=training_inputs.MAX_GPUS, advanced=True).option("GPUs in tensor parallel"),
        float_field("bandwidth_efficiency", "Bandwidth efficiency", default=0.0, minimum=0.0, maximum=1.0,
                    advanced=True, none_label="The engine's fitted value",
                    help="Fraction of peak memory bandwidth a decode step reaches.").option(
            "fraction of peak memory bandwidth achieved; auto: the engine's fitted value"),
        float_field("compute_efficiency", "Compute efficiency", default=0.0, minimum=0.0, maximum=1.0,
                    advanced=True, none_label="The engine's fitted value",
                    help="Fraction of the dense tensor rate the matrix multiplies reach.").option(
            "fraction of the dense tensor rate achieved; auto: the engine's fitted value"),
        choice_field("interconnect", "Tensor-parallel link", choices=(AUTO, *interconnect_ids()),
                     default=default_of(engine, "interconnect"), advanced=True,
                     help="auto: the GPU's own (NVLink where it has it, else PCIe). Sets the all-reduce time.").option(
            "tensor-parallel link id (see the interconnect catalog) or 'auto' for the GPU's own"),
        float_field("collective_efficiency", "Collective efficiency", default=0.0, minimum=0.0,
                    maximum=1.0, advanced=True, none_label="Derived per link kind",
                    help="Fraction of the link's per-direction bandwidth the all-reduces reach; derived per link "
                         "kind from published nccl-tests runs.").option(
            "fraction of the link's per-direction bandwidth the all-reduces reach; "
            "auto: derived per link kind from published nccl-tests runs"),
    )


# --------------------------------------------------------------------------- inference speed
@dataclass(frozen=True)
class SpeedView:
    """One inference-speed estimate and the same settings over a range of batch sizes."""

    result: speed.InferenceSpeed
    by_batch: tuple[tuple[int, DecodeStep], ...]




@functools.cache
def _speed_fields() -> tuple[Field, ...]:
    return (
        *model_and_gpu_fields(),
        *_served_fields(speed.speed_setup, help="Efficiencies and fixed costs fitted on the engine's published runs; "
                                                "generic: 0.8 of bandwidth, 0.6 of the tensor rate, no fixed costs."),
        int_field("batch", "Batch", default=default_of(speed.speed_setup, "batch"), maximum=inference.MAX_BATCH,
                  unit="concurrent sequences").option("concurrent sequences"),
        int_field("context", "Prompt length", default=default_of(speed.speed_setup, "context"),
                  maximum=inference.MAX_CONTEXT, unit="tokens").option("prompt tokens per sequence"),
        int_field("new_tokens", "New tokens", default=default_of(speed.inference_speed, "new_tokens"), minimum=0,
                  maximum=inference.MAX_CONTEXT, unit="tokens per sequence").option("generated tokens per sequence"),
        *_server_fields(speed.speed_setup),
    )


def _compute_speed(values: Values) -> SpeedView:
    spec, gpu = model_spec(values), gpu_from_values(values)
    settings = engine_settings(_speed_fields(), values)
    result = speed.inference_speed(spec, gpu, new_tokens=settings.pop("new_tokens"), **settings)
    batches = sorted(set(CHART_BATCHES) | {result.batch})
    steps = tuple((b, speed.decode_step(spec, gpu, **{**settings, "batch": b})) for b in batches)
    return SpeedView(result=result, by_batch=steps)


def _rate(value: float) -> str:
    return f"{value:,.1f}"


def speed_html(view: SpeedView) -> str:
    """Summary, aggregate tokens/s by batch (chart), the numbers (table) and assumptions."""
    r = view.result
    first = r.first_step
    summary = (f"{r.model} on {r.gpus} x {r.gpu} with {get_engine(r.engine).name}: "
               f"{_rate(first.tokens_per_s)} tokens/s per sequence and "
               f"{_rate(first.aggregate_tokens_per_s)} tokens/s for the batch of {r.batch} "
               f"({first.bound}-bound); first token after {r.time_to_first_token_s * 1000:,.1f} ms.")
    colours = {"memory": 0, "compute": 1, "communication": 3, "fixed cost": 2}
    bars = [Bar(f"batch {b}", s.aggregate_tokens_per_s,
                 f"{_rate(s.aggregate_tokens_per_s)} tokens/s ({s.bound})", colours[s.bound],
                 highlight=b == r.batch) for b, s in view.by_batch]
    chart = labelled_bars_svg(bars, title="Aggregate decode tokens/s by batch size (by limiting term)")
    legend = '<ul class="mlhw-legend">' + "".join(
        f'<li><span class="mlhw-swatch" style="background:{color(index)}"></span>{name}-bound</li>'
        for name, index in colours.items()) + "</ul>"
    rows = [
        ["Decode, per sequence", _rate(first.tokens_per_s), "tokens/s", "estimate"],
        ["Decode, whole batch", _rate(first.aggregate_tokens_per_s), "tokens/s", "estimate"],
        ["Decode, whole batch at 100 % of peaks", _rate(first.max_aggregate_tokens_per_s), "tokens/s", "upper bound"],
        [f"Decode per sequence at {r.last_step.context:,} tokens", _rate(r.last_step.tokens_per_s), "tokens/s",
         "estimate"],
        ["Time to first token (fixed cost per request + prefill of the batch)", f"{r.time_to_first_token_s * 1000:,.1f}",
         "ms", "estimate"],
        ["Output tokens/s over the whole generation", _rate(r.output_tokens_per_s), "tokens/s", "estimate"],
        ["Tensor-parallel all-reduces per decode step", f"{first.communication_time_s * 1000:,.2f}", "ms",
         "estimate"],
        ["Bytes read per decode step", gib(first.bytes_read), "GiB", "derived"],
        ["Memory per GPU (total_bytes)", gib(r.memory_total_bytes), "GiB",
         "fits" if r.fits else f"does not fit {gib(r.memory_capacity_bytes)} GiB"],
    ]
    table = table_html(["quantity", "value", "unit", "kind"], rows, numeric=[False, True, False, False])
    return paragraph(summary) + chart + legend + table + notes_html(r.assumptions, r.notes)


# --------------------------------------------------------------------------- serving under load
#: Concurrencies the serving chart always draws (plus the one chosen), up to the most that fit.
CHART_CONCURRENCIES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
#: The serving form opens on a closed loop of this many users (the engine takes no default load).
SERVING_CONCURRENCY = 16
SERVING_OWN_DEFAULTS = {
    "gpu": ENGINE_GPU,
    "concurrency": "the engine needs a concurrency or a request rate and has no default; the form opens on "
                   "SERVING_CONCURRENCY users",
}


@dataclass(frozen=True)
class ServingView:
    """One serving-load answer and the same server over a range of concurrencies."""

    result: serving_result.ServingLoad
    by_concurrency: tuple[tuple[int, serving_result.ServingLoad], ...]


@functools.cache
def _serving_fields() -> tuple[Field, ...]:
    return (
        *model_and_gpu_fields(),
        int_field("concurrency", "Concurrent users", default=SERVING_CONCURRENCY, minimum=0,
                  maximum=load.MAX_CONCURRENCY,
                  help="Requests in flight: each user sends the next request when the answer ends (closed loop). "
                       "0: set by the request rate instead.").option(
            "requests in flight, each user sending the next request when its answer ends (closed loop)",
            either="load"),
        float_field("request_rate_per_s", "Request rate", default=0.0, minimum=0.0, maximum=load.MAX_REQUEST_RATE_PER_S,
                     unit="requests/s", none_label="Set by concurrent users",
                     help="Requests arriving at random (Poisson, open loop). Give this or the users, not both.").option(
            "requests per second arriving at random (Poisson, open loop)", flag="--request-rate", either="load"),
        int_field("prompt_tokens", "Prompt length", default=default_of(load.serving_load, "prompt_tokens"),
                  maximum=inference.MAX_CONTEXT, unit="tokens").option("prompt tokens per request"),
        int_field("output_tokens", "Output length", default=default_of(load.serving_load, "output_tokens"),
                  minimum=2, maximum=inference.MAX_CONTEXT, unit="tokens").option(
            "generated tokens per request, at least 2"),
        *_served_fields(load.serving_load, help="Efficiencies and fixed costs fitted on the engine's published runs."),
        *_server_fields(load.serving_load),
        choice_field("prefill", "Prefill of arriving prompts", choices=load.PREFILL_MODES,
                     default=default_of(load.serving_load, "prefill"), advanced=True,
                     labels=tuple({"separate": "A pass of its own per prompt",
                                   "fused": "Inside the decode pass (lower bound)"}[m] for m in load.PREFILL_MODES),
                     help="separate: each prompt's prefill is its own pass added to the step; fused: inside the "
                          "decode pass, the weights read once (a lower bound on the step).").option(
            f"one of {', '.join(load.PREFILL_MODES)}: an arriving prompt's prefill as its own pass added to the step, "
            "or inside the decode pass with the weights read once"),
    )


def _compute_serving(values: Values) -> ServingView:
    spec, gpu = model_spec(values), gpu_from_values(values)
    settings = engine_settings(_serving_fields(), values)
    rate = settings.pop("request_rate_per_s")
    concurrency = int(settings.pop("concurrency")) or None  # 0: set by the request rate
    result = load.serving_load(spec, gpu, concurrency=concurrency, request_rate_per_s=rate, **settings)
    shown = sorted(c for c in set(CHART_CONCURRENCIES) | ({concurrency} if concurrency else set())
                   if c <= max(result.max_concurrency, 1))
    curve = tuple((c, load.serving_load(spec, gpu, concurrency=c, **settings)) for c in shown)
    return ServingView(result=result, by_concurrency=curve)


def serving_html(view: ServingView) -> str:
    """Summary, output tokens/s by concurrency (chart), the numbers (table) and assumptions."""
    r = view.result
    where = f"{r.model} on {r.gpus} x {r.gpu} with {get_engine(r.engine).name}"
    load_text = (f"{r.concurrency} concurrent users" if r.concurrency is not None
                 else f"{r.request_rate_per_s:,.3g} requests/s")
    rate = "unknown" if r.max_request_rate_per_s is None else f"{r.max_request_rate_per_s:,.3g} requests/s"
    if r.status == serving_result.DOES_NOT_FIT_STATUS:
        summary = (f"{where}: does not fit at {load_text}: the weights and KV caches exceed the GPU's usable "
                   f"memory; at most {r.max_concurrency} requests in flight fit.")
    elif r.status == serving_result.SATURATED:
        summary = (f"{where}: saturated at {load_text}, above the highest sustainable rate of {rate}: "
                   "the queue grows without bound.")
    else:
        summary = (f"{where} at {load_text}: {_rate(r.output_tokens_per_s or 0.0)} output tokens/s in all, "
                   f"{_rate(r.decode_tokens_per_s_per_user or 0.0)} tokens/s per user, first token after "
                   f"{(r.time_to_first_token_s or 0.0) * 1000:,.0f} ms ({r.verdict} in memory).")
    bars = [Bar(f"{c} users", s.output_tokens_per_s or 0.0,
                 f"{_rate(s.output_tokens_per_s or 0.0)} tokens/s, {_rate(s.decode_tokens_per_s_per_user or 0.0)}"
                 " per user", 0, highlight=c == r.concurrency) for c, s in view.by_concurrency]
    title = "Output tokens/s by concurrent users (up to the most that fit)"
    chart = labelled_bars_svg(bars, title=title) if bars else ""
    rows = [["Requests in flight that fit", f"{r.max_concurrency:,}", "requests", "estimate"],
            ["Highest sustainable rate of random (Poisson) arrivals", rate, "", "estimate"]]
    if r.status == serving_result.OK:
        rows = [
            ["Output tokens/s, all users", _rate(r.output_tokens_per_s or 0.0), "tokens/s", "estimate"],
            ["Tokens/s per user", _rate(r.decode_tokens_per_s_per_user or 0.0), "tokens/s", "estimate"],
            ["Inter-token latency", f"{(r.inter_token_latency_s or 0.0) * 1000:,.1f}", "ms", "estimate"],
            ["Time to first token", f"{(r.time_to_first_token_s or 0.0) * 1000:,.1f}", "ms", "estimate"],
            ["End-to-end latency", f"{r.end_to_end_latency_s or 0.0:,.2f}", "s", "estimate"],
            ["Decode batch (mean)", f"{r.decode_batch or 0.0:,.1f}", "sequences", "estimate"],
            ["Completed requests", f"{r.requests_per_s or 0.0:,.3f}", "requests/s", "estimate"],
            *rows,
        ]
    rows.append(["Memory per GPU (total_bytes)", gib(r.memory_total_bytes), "GiB", r.verdict])
    table = table_html(["quantity", "value", "unit", "kind"], rows, numeric=[False, True, False, False])
    return paragraph(summary) + chart + table + notes_html(r.assumptions, r.notes)


def calculators() -> list[Calculator]:
    """The inference calculators of this section (training time: :mod:`.performance_training`)."""
    return [
        Calculator("inference-speed", "Inference speed", _speed_fields(), _compute_speed, speed_html,
                   engines=(speed.inference_speed, speed.speed_setup), own_defaults={"gpu": ENGINE_GPU},
                   command="speed"),
        Calculator("serving-load", "Serving under load", _serving_fields(), _compute_serving, serving_html,
                   engines=(load.serving_load,), own_defaults=SERVING_OWN_DEFAULTS, command="serve-load"),
    ]
