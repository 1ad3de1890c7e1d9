"""The ``recommend`` calculator (``mlhw recommend``): the GPU configurations that fit a workload, ranked.

The answer opens with what ranks first under the stated objective (cheapest, fastest or fewest
GPUs); the table lists the ranked configurations in that order, then the tight ones.

>>> from calculators.jobs.registry import get_calculator
>>> answer = get_calculator("recommend").answer({"model": "llama-3-8b", "job": "serve", "context": "8192"})
>>> answer.report.headline.startswith("Cheapest that fits: ")
True
>>> costs = [row["usd_per_million_tokens"] for row in answer.data["configurations"]]
>>> known = [cost for cost in costs if cost is not None]  # unpriced GPUs last
>>> known == sorted(known) and costs[len(known):] == [None] * (len(costs) - len(known))
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculators.catalog import prices
from calculators.catalog.engines import engine_ids, get_engine
from calculators.catalog.gpus import all_gpus
from calculators.inputs.fields import (
    Field,
    bool_field,
    choice_field,
    cli_field,
    default_of,
    float_field,
    int_field,
    tokens_field,
)
from calculators.inputs.shared import model_config_field, model_field
from calculators.memory.inference import KV_DTYPES, MAX_CONTEXT, WEIGHT_DTYPES
from calculators.memory.training_inputs import METHODS
from calculators.recommend import (
    DEFAULT_CONTEXT,
    DEFAULT_KV_CACHE,
    DEFAULT_METHOD,
    JOBS,
    MAX_BUDGET_USD_PER_HOUR,
    MAX_TOKENS_PER_S,
    OBJECTIVES,
    Configuration,
    Recommendation,
    Workload,
    recommend,
)
from calculators.columns import Column, gib_column, number_column
from calculators.performance.training_time import MAX_TOKENS
from calculators.jobs.calculator import Calculator
from calculators.jobs.html import bars_svg
from calculators.jobs.report import Chart, Paragraph, Report, Shown
from calculators.jobs.text import report_text
from calculators.jobs.values import Values, given, gpus_named, model_spec
from calculators.tables import Table
from calculators.units import number
from calculators.validate import token_count

#: Rows shown in the widget's table and chart.
SHOWN = 12
MAX_WIDGET_BATCH = 4096
MAX_WIDGET_TOKENS = MAX_TOKENS  # the engine's range, on both faces


@dataclass(frozen=True)
class RecommendView:
    """A recommendation and the GPU to highlight."""

    result: Recommendation
    gpu: str
    warnings: tuple[str, ...] = ()  # the model's (ModelSpec.warnings): what the reader must see first


#: Inputs whose default is not read from :class:`~calculators.recommend.Workload`, and why.
OWN_DEFAULTS = {
    "weights": "Workload.method when serving: opens on DEFAULT_METHOD['serve'], what the engine's None means there",
    "method": "Workload.method when fine-tuning: opens on DEFAULT_METHOD['finetune'], what None means there",
    "context": "opens on DEFAULT_CONTEXT['serve'], what the engine's None means for the opening job",
    "batch": "opens on OPENING_BATCH concurrent sequences, a small serving load; the engine's default is 1",
    "gpu": "only highlights that GPU's rows; the engine ranks every GPU",
}
#: The batch the form opens on (see :data:`OWN_DEFAULTS`).
OPENING_BATCH = 8


def _fields() -> tuple[Field, ...]:
    def default(name: str) -> Any:
        return default_of(Workload, name)

    gpus = all_gpus()
    return (
        model_field(), model_config_field(),
        choice_field("job", "Job", default=default("job"), choices=JOBS,
                     labels=["Serve (inference)", "Fine-tune", "Train (full)"]).option(f"one of {', '.join(JOBS)}"),
        choice_field("weights", "Weights format", default=DEFAULT_METHOD["serve"], choices=WEIGHT_DTYPES,
                     show_when=("job", "serve")),
        choice_field("kv_cache", "KV cache", default=default("kv_cache"), choices=KV_DTYPES, show_when=("job", "serve"),
                     help="fp8 halves the cache and the bytes each decode step reads from it.").option(
            f"serve: KV-cache dtype, one of {', '.join(KV_DTYPES)}"),
        choice_field("engine", "Engine", default=default("engine"), choices=engine_ids(),
                     labels=tuple(get_engine(e).name for e in engine_ids()), show_when=("job", "serve"),
                     help="Efficiencies and fixed costs fitted on the engine's published runs, as on the speed "
                          "calculator; generic: 0.8 of bandwidth, 0.6 of the tensor rate, no fixed costs.").option(
            "serve: inference engine whose fitted efficiencies and fixed costs time the decode step, as in "
            f"'mlhw speed': one of {', '.join(engine_ids())}"),
        choice_field("method", "Fine-tuning method", default=DEFAULT_METHOD["finetune"], choices=METHODS,
                     show_when=("job", "finetune")),
        int_field("context", "Context / sequence length", default=DEFAULT_CONTEXT["serve"], maximum=MAX_CONTEXT,
                  unit="tokens", help="Serving: tokens cached per sequence. Training: sequence length.").option(
            "serve: tokens cached per sequence; finetune/train: sequence length; "
            f"auto: {' / '.join(map(str, DEFAULT_CONTEXT.values()))}"),
        int_field("batch", "Batch", default=OPENING_BATCH, maximum=MAX_WIDGET_BATCH, unit="sequences",
                  help="Serving: concurrent sequences. Training: micro-batch per GPU.").option(
            "serve: concurrent sequences; training: micro-batch per GPU"),
        tokens_field("tokens", "Training tokens", default=default("tokens"), maximum=MAX_WIDGET_TOKENS,
                     help="Tokens of the run: 2T, 500B, 1e9.", show_when=("job", "finetune|train")).option(
            "finetune/train only: training tokens: 1e9, 500M, 2T ... (a serving job does not use it)"),
        choice_field("objective", "Rank by", default=default("objective"), choices=OBJECTIVES,
                     labels=["Cost (per million tokens, or per run)", "Latency (tokens/s per user, or days)",
                             "Fewest GPUs"],
                     help="Only configurations that fit with margin are ranked; tight ones are listed after.").option(
            f"what to rank by, one of {', '.join(OBJECTIVES)} (cost: USD per million tokens or per run)"),
        float_field("target_tokens_per_s", "Throughput target", minimum=0, default=0, maximum=MAX_TOKENS_PER_S,
                    unit="tokens/s", none_label="No target",
                    help="Serving: aggregate decode; training: whole cluster.").option(
            "required throughput, tokens/s; auto: no target"),
        float_field("budget_usd_per_hour", "Budget", minimum=0, default=0, maximum=MAX_BUDGET_USD_PER_HOUR,
                    unit="USD per hour", none_label="No budget",
                    help=f"Cloud on-demand, catalog edition {prices.EDITION}.").option(
            "most the configuration may cost per hour; auto: no budget"),
        choice_field("gpu", "Highlight GPU", default="h100-sxm", choices=[g.id for g in gpus],
                     labels=[f"{g.name} ({g.memory_gib:g} GiB)" for g in gpus],
                     help="Rows of this GPU are marked in the table."),
        float_field("mfu", "Training utilisation", minimum=0, default=0, maximum=1, show_when=("job", "finetune|train"),
                    none_label="Per GPU class", advanced=True,
                    help="Fraction of the dense rate a training step's FLOPs reach.").option(
            "training MFU in (0, 1]; auto: per GPU class"),
        bool_field("grad_checkpointing", "Gradient checkpointing", default=default("grad_checkpointing"),
                   show_when=("job", "finetune|train"), advanced=True,
                   help="Training: recompute activations in backward (less memory, one more forward).").option(
            "training without recomputation", flag="--no-grad-checkpointing"),
        bool_field("include_apple", "Include Apple silicon", default=default("include_apple"), advanced=True,
                   help="Also rank Apple silicon (one device).").option("also list Apple silicon (one device)"),
    )


def _compute(values: Values) -> RecommendView:
    job = str(values["job"])
    if "weights" in values:  # the form splits the method by job, and shows the serving inputs only when serving
        method: str | None = (str(values["weights"]) if job == "serve" else str(values["method"])
                              if job == "finetune" else "full")
        kv_cache = str(values["kv_cache"]) if job == "serve" else DEFAULT_KV_CACHE
        engine = str(values["engine"]) if job == "serve" else default_of(Workload, "engine")
    else:  # the command line's one --method takes either; auto: the job's default
        method, kv_cache, engine = given(values, "method"), str(values["kv_cache"]), str(values["engine"])
    tokens = given(values, "tokens")
    gpus = given(values, "gpus")
    context = given(values, "context")
    spec = model_spec(values)
    result = recommend(Workload(
        model=spec, job=job, method=method, context=None if context is None else int(context),
        batch=int(values["batch"]), kv_cache=kv_cache, engine=engine,
        tokens=default_of(Workload, "tokens") if tokens is None else token_count("tokens", tokens,
                                                                                maximum=MAX_WIDGET_TOKENS),
        target_tokens_per_s=float(values["target_tokens_per_s"]) or None,
        budget_usd_per_hour=float(values["budget_usd_per_hour"]) or None, objective=str(values["objective"]),
        mfu=float(values["mfu"]) or None, grad_checkpointing=bool(values["grad_checkpointing"]),
        include_apple=bool(values["include_apple"]),
        gpus=gpus_named(gpus) if gpus else None))
    return RecommendView(result=result, gpu=str(values.get("gpu", "")), warnings=spec.warnings)


#: What each objective ranks first, in the headline.
FIRST = {"cost": "Cheapest", "latency": "Fastest", "fewest-gpus": "Fewest GPUs"}


def _headline(r: Recommendation) -> str:
    """The short answer: what ranks first under the stated objective, and why."""
    if not r.rows:
        return ("No configuration of 1, 2, 4 or 8 GPUs fits with margin" + (
            f"; {len(r.tight_rows)} are tight (listed below, a risk)." if r.tight_rows else "."))
    best = r.rows[0]
    unit = "USD per million tokens" if r.job == "serve" else "USD per run"
    cost = "cost unknown" if best.sort_cost is None else f"{number(best.sort_cost, 2)} {unit}"
    basis = {prices.OFFER: "priced from an offer of that size",
             prices.PER_GPU_ASSUMPTION: "priced as a per-GPU assumption"}.get(best.price_basis, "no price")
    if r.objective == "latency":
        speed = (f"{number(best.tokens_per_s_per_sequence or 0)} tokens/s per user" if r.job == "serve"
                 else f"{number(best.days or 0, 2)} days")
        return f"{FIRST[r.objective]} that fits: {best.label}, {speed} ({cost})."
    return f"{FIRST[r.objective]} that fits: {best.label}, {cost} ({basis})."


def _report(view: RecommendView) -> Report:
    r = view.result
    serve = r.job == "serve"
    unit = "USD per million tokens" if serve else "USD per run"
    shown = r.rows[:SHOWN]
    unknown = "unknown"
    columns = [Column("#", align="r"), Column("meets targets"), Column("GPUs"),
               gib_column("headroom per GPU (GiB)", 1), number_column("tokens/s (estimate)", missing=unknown)]
    columns += [] if serve else [number_column("days (estimate)", 2, missing=unknown)]
    columns += [number_column("USD per hour", 2, missing=unknown), number_column(unit, 2, missing=unknown),
                Column("price"), Column("why")]

    def cells(row: Configuration, rank: str) -> tuple[Any, ...]:
        return (rank, "yes" if row.meets_targets else "no", row.label, row.headroom_bytes, row.tokens_per_s,
                *(() if serve else (row.days,)), row.usd_per_hour, row.sort_cost, row.price_basis, row.why)

    rows = [cells(row, str(rank)) for rank, row in enumerate(shown, start=1)]
    classes = ["mlhw-highlight" if row.gpu_id == view.gpu else "" for row in shown]
    rows += [cells(row, "tight") for row in r.tight_rows[:SHOWN]]
    classes += ["mlhw-tight"] * len(r.tight_rows[:SHOWN])
    more = len(r.rows) - len(shown)
    caption = (f"The first {len(shown)} of {len(r.rows)} ranked configurations" if more else
               f"The {len(r.rows)} ranked configurations") + (
        ", then the tight ones (inside the measured uncertainty: a risk, not ranked)" if r.tight_rows else "") + (
        f"; {more} more in the JSON (mlhw recommend --json)" if more else "")
    meeting = sum(1 for row in r.rows if row.meets_targets)
    summary = (f"{r.job} {r.model} ({r.settings_text}), context {r.context}, batch {r.batch}: {len(r.rows)} "
               f"configurations of 1, 2, 4 or 8 GPUs fit with margin, {meeting} meet the targets; "
               f"{len(r.tight_rows)} are tight. {r.objective_text}")
    blocks: list[Any] = [Paragraph(summary)]
    bars = [(row.label, float(row.sort_cost)) for row in shown if row.sort_cost is not None]
    if bars:
        title = f"Cost of the ranked configurations ({unit}; one colour: the bars differ only in length)"
        blocks.append(Chart(bars_svg(bars, unit=unit, title=title),
                            Table.of((Column("GPUs"), number_column(unit, 2)), bars, caption=f"Chart data: {title}")))
    blocks.append(Shown(Table.of(columns, rows, caption=caption), tuple(classes)))
    notes = list(r.skipped)
    if r.unpriced:
        notes.append(f"No price in edition {r.price_edition} (cost unknown, sorted last): {', '.join(r.unpriced)}")
    return Report(_headline(r), blocks=tuple(blocks), notes=tuple(notes), assumptions=r.assumptions,
                  warnings=view.warnings)


def recommendation_text(plan: Recommendation) -> str:
    """A recommendation as ``mlhw recommend`` prints it: the headline, the ranked configurations, the assumptions.

    >>> from calculators.catalog.models import get_model
    >>> print(recommendation_text(recommend(Workload(model=get_model("llama-3-8b"), job="serve")))[:30])
    Cheapest that fits: 1 x GeForc
    """
    return report_text(_report(RecommendView(result=plan, gpu="")))


def calculators() -> list[Calculator]:
    """The calculator of this module."""
    return [Calculator("recommend", "Recommended GPU configurations", _fields(), _compute, _report,
                       lambda view: view.result.to_dict(), engines=(Workload,), own_defaults=OWN_DEFAULTS,
                       command="recommend", command_help="GPU configurations that fit a workload, with headroom, "
                                                         "speed and cost, ranked by the objective you choose",
                       cli_fields=(cli_field("method", "serve: weights format (bf16, fp8, int8, int4, nf4, ...); "
                                                       "finetune/train: full, lora, qlora; "
                                                       f"auto: {' / '.join(DEFAULT_METHOD.values())}"),
                                   cli_field("gpus", "consider only this GPU (repeat for several): catalog id, "
                                                     "custom:memory_gb=N,bandwidth_gbps=N,bf16_tflops=N,... or mac:GB; "
                                                     "default: the catalog", flag="--gpu", repeat=True),))]
