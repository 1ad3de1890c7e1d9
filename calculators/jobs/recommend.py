"""Widget of the "recommended configurations" page: ``recommend``.

>>> from calculators.jobs.registry import get_calculator
>>> html = get_calculator("recommend").run({"model": "llama-3-8b", "job": "serve", "context": "8192"})
>>> "<svg" in html and "USD per million tokens" in html
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from calculators.catalog import prices
from calculators.catalog.engines import engine_ids, get_engine
from calculators.catalog.gpus import all_gpus
from calculators.inputs.fields import (
    Field,
    Value,
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
from calculators.units import GIB
from calculators.validate import token_count
from calculators.jobs.calculator import Calculator
from calculators.jobs.values import model_spec
from calculators.jobs.html import bars_svg, notes_html, paragraph, table_html

Values = Mapping[str, Value]
#: Rows shown in the widget's table and chart.
SHOWN = 12
MAX_WIDGET_BATCH = 4096
MAX_WIDGET_TOKENS = 1e13


@dataclass(frozen=True)
class RecommendView:
    """A recommendation and the GPU to highlight."""

    result: Recommendation
    gpu: str


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
                     show_when=("job", "finetune")).option(
            "serve: weights format (bf16, fp8, int8, int4, nf4, ...); finetune/train: full, lora, qlora; "
            f"auto: {' / '.join(DEFAULT_METHOD.values())}"),
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
    method = str(values["weights"]) if job == "serve" else str(values["method"]) if job == "finetune" else "full"
    target = float(values["target_tokens_per_s"]) or None
    budget = float(values["budget_usd_per_hour"]) or None
    tokens = token_count("tokens", values["tokens"], maximum=MAX_WIDGET_TOKENS)  # a hidden input keeps its text
    kv_cache = str(values["kv_cache"]) if job == "serve" else DEFAULT_KV_CACHE
    engine = str(values["engine"]) if job == "serve" else default_of(Workload, "engine")
    result = recommend(Workload(model=model_spec(values), job=job, method=method, context=int(values["context"]),
                                batch=int(values["batch"]), kv_cache=kv_cache, tokens=tokens, engine=engine,
                                target_tokens_per_s=target, budget_usd_per_hour=budget,
                                objective=str(values["objective"]), mfu=float(values["mfu"]) or None,
                                grad_checkpointing=bool(values["grad_checkpointing"]),
                                include_apple=bool(values["include_apple"])))
    return RecommendView(result=result, gpu=str(values["gpu"]))


def _cells(row: Configuration, rank: str, serve: bool) -> list[str]:
    cells = [rank, "yes" if row.meets_targets else "no", row.label, f"{row.headroom_bytes / GIB:,.1f}",
             "unknown" if row.tokens_per_s is None else f"{row.tokens_per_s:,.0f}"]
    if not serve:
        cells.append("unknown" if row.days is None else f"{row.days:,.2f}")
    return cells + ["unknown" if row.usd_per_hour is None else f"{row.usd_per_hour:,.2f}",
                    "unknown" if row.sort_cost is None else f"{row.sort_cost:,.2f}", row.price_basis, row.why]


def _html(view: RecommendView) -> str:
    r = view.result
    serve = r.job == "serve"
    unit = "USD per million tokens" if serve else "USD per run"
    shown = r.rows[:SHOWN]
    header = ["#", "meets targets", "GPUs", "headroom per GPU (GiB)", "tokens/s (estimate)"]
    header += [] if serve else ["days (estimate)"]
    header += ["USD per hour", unit, "price", "why"]
    rows, classes = [], []
    for number, row in enumerate(shown, start=1):
        rows.append(_cells(row, str(number), serve))
        classes.append("mlhw-highlight" if row.gpu_id == view.gpu else "")
    for row in r.tight_rows[:SHOWN]:
        rows.append(_cells(row, "tight", serve))
        classes.append("mlhw-tight")
    bars = [(f"{row.count} x {row.gpu_name}", row.sort_cost) for row in shown if row.sort_cost is not None]
    chart = bars_svg([(name, float(value)) for name, value in bars], unit=unit,
                     title=f"Cost of the ranked configurations ({unit}; one colour: the bars differ only in length)") \
        if bars else ""
    meeting = sum(1 for row in r.rows if row.meets_targets)
    summary = (f"{r.job} {r.model} ({r.settings_text}), context {r.context}, batch {r.batch}: {len(r.rows)} "
               f"configurations of 1, 2, 4 or 8 GPUs fit with margin, {meeting} meet the targets; "
               f"{len(r.tight_rows)} are tight (a risk: listed after, marked 'tight', not ranked). "
               f"{r.objective_text}")
    if r.rows:
        best = r.rows[0]
        summary += f" First: {best.label}. {best.why}"
    notes = list(r.skipped)
    if r.unpriced:
        notes.append(f"No price in edition {r.price_edition} (cost unknown, sorted last): {', '.join(r.unpriced)}")
    numeric = [True, False, False] + [True] * (len(header) - 5) + [False, False]
    return (paragraph(summary) + chart
            + table_html(header, rows, numeric=numeric, row_classes=classes)
            + notes_html(r.assumptions, notes))


def calculators() -> list[Calculator]:
    """The calculator of this module."""
    return [Calculator("recommend", "Recommended GPU configurations", _fields(), _compute, _html, engines=(Workload,),
                       own_defaults=OWN_DEFAULTS, command="recommend",
                       cli_fields=(cli_field("gpus", "consider only this GPU (repeat for several): catalog id, "
                                                     "custom:memory_gb=N,bandwidth_gbps=N,bf16_tflops=N,... or mac:GB; "
                                                     "default: the catalog", flag="--gpu", repeat=True),))]
