"""The speed calculators: ``inference-speed`` (``mlhw speed``) and ``serving-load`` (``mlhw serve-load``).

Both open with the reader's GPU and count, the memory verdict and the margin
(:func:`calculators.jobs.answer.headline`), then the speed; each chart marks the points whose
memory does not fit (or is tight), with the one verdict of :mod:`calculators.fit`.

>>> from calculators.jobs.registry import get_calculator
>>> answer = get_calculator("inference-speed").answer({"model": "llama-3.1-70b", "gpu": "rtx-4090", "gpus": "2",
...                                                     "weights": "int4", "context": "8192"})
>>> answer.data["verdict"], answer.data["answer"]["gpus_needed"]
('tight', 3)
>>> "Requests in flight that fit" in get_calculator("serving-load").run({"concurrency": "16"})
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from calculators.catalog.engines import engine_ids, get_engine
from calculators.catalog.gpus import GPU
from calculators.catalog.interconnects import interconnect_ids
from calculators.columns import Column, number_column
from calculators.fit import MAX_GPUS_SEARCHED, FitVerdict, Placement, inference_placement, share_verdict
from calculators.inputs.fields import Field, choice_field, default_of, float_field, int_field
from calculators.inputs.shared import ENGINE_GPU, model_and_gpu_fields
from calculators.jobs.advice import FitAdvice, inference_advice
from calculators.jobs.answer import VERDICT_KEY, headline
from calculators.jobs.calculator import Calculator
from calculators.jobs.html import Bar, color, labelled_bars_svg
from calculators.jobs.report import Chart, Paragraph, Report, Shown
from calculators.jobs.values import Values, engine_settings, gpu_from_values, model_spec
from calculators.memory import inference
from calculators.model import ModelSpec
from calculators.parallel.step import AUTO
from calculators.performance import inference_speed as speed
from calculators.performance.served import Load, ServedInputs, ServedModel
from calculators.performance import serving_load as load
from calculators.performance import serving_result
from calculators.performance.error_bands import ErrorBand
from calculators.performance.steps import DecodeStep
from calculators.tables import Table
from calculators.units import gib, number

#: Batch sizes the speed chart always draws (plus the one chosen).
CHART_BATCHES = (1, 4, 16, 64, 256)
#: The columns of a result's table of quantities: each row formats its value with :mod:`calculators.units`.
QUANTITY_COLUMNS = (Column("quantity"), Column("value", align="r"), Column("unit"), Column("kind"))


def quantities(rows: list[tuple[str, str, str, str]], caption: str = "") -> Shown:
    """A table of quantities, one a row: name, value (formatted by :mod:`calculators.units`), unit, kind."""
    return Shown(Table.of(QUANTITY_COLUMNS, rows, caption=caption))


def marked(verdict: FitVerdict) -> str:
    """What a chart says after a point whose memory does not fit ("" when it fits)."""
    return "" if verdict.fits else verdict.verdict


def band_paragraphs(*bands: tuple[ErrorBand | None, str]) -> list[Paragraph]:
    """One sentence per measured error band (:mod:`calculators.performance.error_bands`) of a speed or time, by the
    quantity it is about; none where no band is attached (too few published figures of that kind)."""
    return [Paragraph(f"{text[0].upper()}{text[1:]}.") for text in
            (band.text(quantity) for band, quantity in bands if band is not None)]


def may_not_run(verdict: FitVerdict) -> str:
    """The sentence under a headline whose job does not fit: what the speeds below mean ("" when it fits)."""
    if verdict.fits:
        return ""
    return ("The speeds below are for a job that " + ("may not run (tight: inside the measured uncertainty)."
                                                       if verdict.verdict == "tight" else "cannot run as set up."))


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


def _gpus_field(engine: Callable[..., Any]) -> Field:
    """The GPUs of a served model, in tensor parallel, shown beside the GPU."""
    return int_field("gpus", "GPUs", default=default_of(engine, "gpus"), maximum=MAX_GPUS_SEARCHED,
                     unit="tensor parallel",
                     help="Split by tensor parallelism: each GPU reads its share of the weights and KV cache; "
                          "two all-reduces per layer over the link below.").option("GPUs in tensor parallel")


def _server_fields(engine: Callable[..., Any]) -> tuple[Field, ...]:
    """How well a served model uses its GPUs, read from ``engine``'s signature."""
    return (
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
    """One inference-speed estimate on the reader's GPUs, and the same settings over a range of batch sizes."""

    spec: ModelSpec
    gpu: GPU
    result: speed.InferenceSpeed
    placement: Placement
    by_batch: tuple[tuple[int, DecodeStep, FitVerdict], ...]
    advice: FitAdvice = FitAdvice("fits")  # single changes that make the job's memory fit: margins, speed costs


@functools.cache
def _speed_fields() -> tuple[Field, ...]:
    return (
        *model_and_gpu_fields(), _gpus_field(speed.SpeedInputs),
        *_served_fields(speed.SpeedInputs, help="Efficiencies and fixed costs fitted on the engine's published runs; "
                                                "generic: 0.8 of bandwidth, 0.6 of the tensor rate, no fixed costs."),
        int_field("batch", "Batch", default=default_of(speed.SpeedInputs, "batch"), maximum=inference.MAX_BATCH,
                  unit="concurrent sequences").option("concurrent sequences"),
        int_field("context", "Prompt length", default=default_of(speed.SpeedInputs, "context"),
                  maximum=inference.MAX_CONTEXT, unit="tokens").option("prompt tokens per sequence"),
        int_field("new_tokens", "New tokens", default=default_of(speed.inference_speed, "new_tokens"), minimum=0,
                  maximum=inference.MAX_CONTEXT, unit="tokens per sequence").option("generated tokens per sequence"),
        *_server_fields(speed.SpeedInputs),
    )


def _compute_speed(values: Values) -> SpeedView:
    spec, gpu = model_spec(values), gpu_from_values(values)
    settings = engine_settings(_speed_fields(), values)
    new_tokens = settings.pop("new_tokens")
    result = speed.inference_speed(spec, gpu, new_tokens=new_tokens, **settings)
    # The engine's own settings (weights "auto" resolved against the model) size the chart, the advice and the
    # efficiencies shown: settings rebuilt from the form values would not know the checkpoint's format.
    setup, memory_settings = result.setup, result.memory_settings
    assert result.memory is not None and setup is not None
    placement = inference_placement(result.memory, gpu, gpus=result.gpus)
    batches = sorted(set(CHART_BATCHES) | {result.batch})
    steps = []
    for batch in batches:
        step = speed.decode_step(spec, gpu, **{**settings, "weights": setup.format, "batch": batch})
        memory = result.memory if batch == result.batch else inference.inference_memory(
            spec, **{**memory_settings, "batch": batch})
        steps.append((batch, step, share_verdict(memory, gpu, gpus=result.gpus)))
    speed_only = {key: value for key, value in settings.items()
                  if key not in ("weights", "kv_cache", "batch", "context", "gpus")}
    advice = inference_advice(spec, gpu, placement.verdict, gpus=result.gpus, best=False, speed=speed_only,
                              settings=memory_settings, estimate=result.memory)
    return SpeedView(spec=spec, gpu=gpu, result=result, placement=placement, by_batch=tuple(steps), advice=advice)


def _rate(value: float) -> str:
    return number(value, 1)


#: Colour of each limiting term in the speed chart.
BOUND_COLOURS = {"memory": 0, "compute": 1, "communication": 3, "fixed cost": 2}


def speed_report(view: SpeedView) -> Report:
    """The verdict on the reader's GPUs, the speeds, tokens/s by batch (chart; batches that do not fit marked),
    the numbers and the assumptions."""
    r, first = view.result, view.result.first_step
    summary = (f"{r.model} on {r.gpus} x {r.gpu} with {get_engine(r.engine).name}: "
               f"{_rate(first.tokens_per_s)} tokens/s per sequence and "
               f"{_rate(first.aggregate_tokens_per_s)} tokens/s for the batch of {r.batch} "
               f"({first.bound}-bound); first token after {number(r.time_to_first_token_s * 1000, 1)} ms.")
    bars = [Bar(f"batch {b}", s.aggregate_tokens_per_s, f"{_rate(s.aggregate_tokens_per_s)} tokens/s ({s.bound})",
                BOUND_COLOURS[s.bound], highlight=b == r.batch, marked=marked(v)) for b, s, v in view.by_batch]
    legend = '<ul class="mlhw-legend">' + "".join(
        f'<li><span class="mlhw-swatch" style="background:{color(index)}"></span>{name}-bound</li>'
        for name, index in BOUND_COLOURS.items()) + (
        '<li><span class="mlhw-swatch mlhw-swatch-marked"></span>faint: the batch does not fit (or is tight)</li>'
        "</ul>")
    data = Table.of((number_column("batch"), number_column("tokens/s, whole batch", 1),
                     number_column("tokens/s per sequence", 1), Column("limited by"), Column("memory")),
                    [(b, s.aggregate_tokens_per_s, s.tokens_per_s, s.bound, v.verdict) for b, s, v in view.by_batch],
                    caption=f"Chart data: decode tokens/s by batch at {r.context:,} tokens on {r.gpus} x {r.gpu}")
    chart = Chart(labelled_bars_svg(bars, title="Aggregate decode tokens/s by batch size (by limiting term; "
                                                "faint: does not fit)"), data, legend)
    rows = [
        ("Decode, per sequence", _rate(first.tokens_per_s), "tokens/s", "estimate"),
        ("Decode, whole batch", _rate(first.aggregate_tokens_per_s), "tokens/s", "estimate"),
        ("Decode, whole batch at 100 % of peaks", _rate(first.max_aggregate_tokens_per_s), "tokens/s", "upper bound"),
        (f"Decode per sequence at {r.last_step.context:,} tokens", _rate(r.last_step.tokens_per_s), "tokens/s",
         "estimate"),
        ("Time to first token (fixed cost per request + prefill of the batch)",
         number(r.time_to_first_token_s * 1000, 1), "ms", "estimate"),
        ("Output tokens/s over the whole generation", _rate(r.output_tokens_per_s), "tokens/s", "estimate"),
        ("Tensor-parallel all-reduces per decode step", number(first.communication_time_s * 1000, 2), "ms",
         "estimate"),
        ("Bytes read per decode step", gib(first.bytes_read), "GiB", "derived"),
        ("Memory per GPU (total_bytes)", gib(r.memory_total_bytes), "GiB", r.verdict),
    ]
    blocks: list[Any] = [Paragraph(summary)]
    if may_not_run(view.placement.verdict):
        blocks.append(Paragraph(may_not_run(view.placement.verdict)))
    blocks += view.advice.blocks()
    blocks += band_paragraphs((first.error_band, "decode step"), (r.prefill.error_band, "time to first token"),
                              (r.generation_band if r.new_tokens else None, "generation time"))
    blocks += [chart, quantities(rows)]
    return Report(headline(view.placement), verdict=view.placement.verdict.verdict, blocks=tuple(blocks),
                  notes=r.notes, assumptions=(*r.assumptions, VERDICT_KEY), warnings=view.spec.warnings)


def speed_data(view: SpeedView) -> dict[str, Any]:
    """What ``mlhw speed --json`` always printed, then ``answer`` (the placement) and ``by_batch`` (the chart)."""
    return {**view.result.to_dict(), "answer": {**view.placement.to_dict(), **view.advice.to_dict()},
            "by_batch": [{"batch": b, "decode_tokens_per_s": s.aggregate_tokens_per_s,
                          "decode_tokens_per_s_per_sequence": s.tokens_per_s, "bound": s.bound, "verdict": v.verdict,
                          "margin_bytes": v.margin_bytes} for b, s, v in view.by_batch]}


def speed_used(view: SpeedView) -> Mapping[str, str]:
    """The efficiencies the engine used where the form left them to it (its own setup: the ones that timed the
    answer, for the weights it resolved)."""
    setup = view.result.setup
    assert setup is not None
    kind = "assumed" if view.result.engine == "generic" else "fitted"
    collective = ("derived per link kind from published nccl-tests runs" if view.result.gpus > 1
                  else "not used: one GPU")
    return {"bandwidth_efficiency": f"{setup.bandwidth_efficiency:.3g} ({kind})",
            "compute_efficiency": f"{setup.compute_efficiency:.3g} ({kind})", "collective_efficiency": collective}


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
    """One serving-load answer on the reader's GPUs and the same server over a range of concurrencies."""

    spec: ModelSpec
    result: serving_result.ServingLoad
    placement: Placement
    by_concurrency: tuple[tuple[int, serving_result.ServingLoad], ...]


@functools.cache
def _serving_fields() -> tuple[Field, ...]:
    return (
        *model_and_gpu_fields(), _gpus_field(ServedInputs),
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
        int_field("prompt_tokens", "Prompt length", default=default_of(Load, "prompt_tokens"),
                  maximum=inference.MAX_CONTEXT, unit="tokens").option("prompt tokens per request"),
        int_field("output_tokens", "Output length", default=default_of(Load, "output_tokens"),
                  minimum=2, maximum=inference.MAX_CONTEXT, unit="tokens").option(
            "generated tokens per request, at least 2"),
        *_served_fields(ServedInputs, help="Efficiencies and fixed costs fitted on the engine's published runs."),
        *_server_fields(ServedInputs),
        choice_field("prefill", "Prefill of arriving prompts", choices=load.PREFILL_MODES,
                     default=default_of(Load, "prefill"), advanced=True,
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
    concurrency = settings.pop("concurrency")
    concurrency = None if concurrency is None else int(concurrency) or None  # 0 or left out: set by the rate
    lengths = {name: settings.pop(name) for name in ("prompt_tokens", "output_tokens", "prefill")}
    served = ServedModel.of(model=spec, gpu=gpu, **settings)
    result = load.serving_load(served, Load.of(concurrency=concurrency, request_rate_per_s=rate, **lengths))
    assert result.memory is not None
    placement = inference_placement(result.memory, gpu, gpus=result.gpus)
    shown = sorted(c for c in set(CHART_CONCURRENCIES) | ({concurrency} if concurrency else set())
                   if c <= max(result.max_concurrency, 1))
    curve = tuple((c, load.serving_load(served, Load.of(concurrency=c, **lengths))) for c in shown)
    return ServingView(spec=spec, result=result, placement=placement, by_concurrency=curve)


def serving_report(view: ServingView) -> Report:
    """The verdict of the requests in flight on the reader's GPUs, the summary, output tokens/s by concurrency
    (chart; only concurrencies that fit), the numbers and the assumptions."""
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
                   f"{number((r.time_to_first_token_s or 0.0) * 1000)} ms ({r.verdict} in memory).")
    blocks: list[Any] = [Paragraph(summary)]
    if r.status == serving_result.OK and may_not_run(view.placement.verdict):
        blocks.append(Paragraph(may_not_run(view.placement.verdict).replace("speeds", "rates")))
    if r.status == serving_result.OK:
        blocks += band_paragraphs((r.throughput_band, "inter-token latency"), (r.first_token_band, "time to first token"))
    if view.by_concurrency:
        bars = [Bar(f"{c} users", s.output_tokens_per_s or 0.0,
                    f"{_rate(s.output_tokens_per_s or 0.0)} tokens/s, {_rate(s.decode_tokens_per_s_per_user or 0.0)}"
                    " per user", 0, highlight=c == r.concurrency, marked="" if s.verdict == "fits" else s.verdict)
                for c, s in view.by_concurrency]
        data = Table.of((number_column("users"), number_column("output tokens/s", 1),
                         number_column("tokens/s per user", 1), Column("memory")),
                        [(c, s.output_tokens_per_s or 0.0, s.decode_tokens_per_s_per_user or 0.0, s.verdict)
                         for c, s in view.by_concurrency],
                        caption="Chart data: output tokens/s by concurrent users (up to the most that fit)")
        blocks.append(Chart(labelled_bars_svg(bars, title="Output tokens/s by concurrent users (up to the most "
                                                          "that fit)"), data))
    rows = [("Requests in flight that fit", f"{r.max_concurrency:,}", "requests", "estimate"),
            ("Highest sustainable rate of random (Poisson) arrivals", rate, "", "estimate")]
    if r.status == serving_result.OK:
        rows = [
            ("Output tokens/s, all users", _rate(r.output_tokens_per_s or 0.0), "tokens/s", "estimate"),
            ("Tokens/s per user", _rate(r.decode_tokens_per_s_per_user or 0.0), "tokens/s", "estimate"),
            ("Inter-token latency", number((r.inter_token_latency_s or 0.0) * 1000, 1), "ms", "estimate"),
            ("Time to first token", number((r.time_to_first_token_s or 0.0) * 1000, 1), "ms", "estimate"),
            *[(f"{name}, {tail}", "unknown" if value is None else number(value * 1000, 1), "ms", "estimate")
              for name, tail, value in (("Time to first token", "p90", r.time_to_first_token_p90_s),
                                        ("Time to first token", "p99", r.time_to_first_token_p99_s),
                                        ("Inter-token latency", "p90", r.inter_token_latency_p90_s),
                                        ("Inter-token latency", "p99", r.inter_token_latency_p99_s))],
            ("End-to-end latency", number(r.end_to_end_latency_s or 0.0, 2), "s", "estimate"),
            ("Decode batch (mean)", number(r.decode_batch or 0.0, 1), "sequences", "estimate"),
            ("Completed requests", number(r.requests_per_s or 0.0, 3), "requests/s", "estimate"),
            *rows,
        ]
    rows.append(("Memory per GPU (total_bytes)", gib(r.memory_total_bytes), "GiB", r.verdict))
    blocks.append(quantities(rows))
    return Report(headline(view.placement), verdict=view.placement.verdict.verdict, blocks=tuple(blocks),
                  notes=r.notes, assumptions=(*r.assumptions, VERDICT_KEY), warnings=view.spec.warnings)


def serving_data(view: ServingView) -> dict[str, Any]:
    """What ``mlhw serve-load --json`` always printed, then ``answer`` and ``by_concurrency`` (the chart)."""
    return {**view.result.to_dict(), "answer": view.placement.to_dict(),
            "by_concurrency": [{"concurrency": c, "output_tokens_per_s": s.output_tokens_per_s,
                                "decode_tokens_per_s_per_user": s.decode_tokens_per_s_per_user, "verdict": s.verdict}
                               for c, s in view.by_concurrency]}


def calculators() -> list[Calculator]:
    """The inference calculators of this section (training time: :mod:`.training_time`)."""
    return [
        Calculator("inference-speed", "Inference speed", _speed_fields(), _compute_speed, speed_report, speed_data,
                   used=speed_used, engines=(speed.inference_speed, speed.SpeedInputs),
                   own_defaults={"gpu": ENGINE_GPU}, command="speed",
                   command_help="decode tokens/s, time to first token and generation throughput (roofline estimate)"),
        Calculator("serving-load", "Serving under load", _serving_fields(), _compute_serving, serving_report,
                   serving_data, engines=(ServedInputs, Load), own_defaults=SERVING_OWN_DEFAULTS,
                   command="serve-load",
                   command_help="throughput and per-user latency of a continuously batched server at a concurrency "
                                "or a request rate (estimate)"),
    ]
