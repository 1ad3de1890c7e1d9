"""Tables of the "How accurate is the speed model?" page (docs/performance/accuracy.md) and of its pages on
engines and weight formats (docs/performance/accuracy-engines.md) and on every scored figure
(docs/performance/accuracy-figures.md).

Every number comes from :mod:`calculators.speed_accuracy` (leave-one-source-out scores of
the published figures in ``tests/data/published_speed``), the engine catalog
(:mod:`calculators.catalog.engines`) and the weight formats
(:mod:`calculators.memory.weight_formats`).

>>> speed_accuracy_engines_table().columns[0]
'engine'
"""

from __future__ import annotations

from collections import Counter

from calculators import speed_accuracy
from calculators.catalog.engines import COMPUTE_KEYS, POOLED, Fitted, all_engines
from calculators.columns import Column, decimal_column
from calculators.units import percent, signed_percent
from calculators.memory.weight_formats import FORMAT_IDS, weight_format
from calculators.speed_accuracy.data import CATEGORY_TITLES, load_figures
from calculators.tables import Table, TableFunction, declared_tables, table

DATASET = "tests/data/published_speed"
METHOD = ("leave-one-source-out: each figure is estimated with every fitted constant refitted without the "
          "figure's source (calculators.speed_accuracy.inference); errors on the speed axis, estimated speed / "
          "measured speed - 1 (for a time, measured / estimated - 1), so a positive error over-promises")
NAIVE = ("naive roofline: the generic engine, 0.8 of peak bandwidth, 0.6 of the dense tensor rate, no fixed costs "
         "(the speed model before engines were inputs)")


def _pct_columns(*names: str) -> tuple[Column, ...]:
    return tuple(Column(name, percent, "r") for name in names)


def _meets(item: dict[str, float]) -> str:
    if item["n"] < speed_accuracy.MIN_RECORDS:
        return "n < 10: no target"
    ok = item["median"] <= speed_accuracy.TARGET_MEDIAN and item["p90"] <= speed_accuracy.TARGET_P90
    return "yes" if ok else "no"


@table("speed-accuracy-summary")
def speed_accuracy_summary_table() -> Table:
    """Per category: count, median, 90th percentile and worst |error|, model and naive roofline."""
    rows = []
    for item in speed_accuracy.summary(speed_accuracy.all_scored()):
        rows.append((CATEGORY_TITLES.get(item["category"], item["category"]), item["n"], item["median"], item["p90"],
                     item["worst"], item["naive_median"], item["naive_p90"], item["naive_worst"], _meets(item)))
    return Table.of(
        caption=("How far the speed model is from published measurements, per category: the engine-aware model "
                 "cross-validated, and the naive roofline. Target (issue 14) for a category with ten or more "
                 f"figures: median |error| <= {percent(speed_accuracy.TARGET_MEDIAN)} and 90th percentile <= "
                 f"{percent(speed_accuracy.TARGET_P90)}."),
        columns=(Column("category"), Column("figures", align="r"),
                 *_pct_columns("median |error|", "90th pct", "worst", "naive median", "naive 90th pct", "naive worst"),
                 Column("meets target")),
        rows=rows,
        assumptions=(METHOD, NAIVE, f"figures: {DATASET}"))


@table("speed-accuracy-multi-source")
def speed_accuracy_multi_source_table() -> Table:
    """The summary restricted to figures whose engine has another source in the category."""
    rows = []
    for item in speed_accuracy.summary(speed_accuracy.multi_source(speed_accuracy.all_scored())):
        rows.append((CATEGORY_TITLES.get(item["category"], item["category"]), item["n"], item["median"], item["p90"],
                     item["worst"], item["naive_median"], item["naive_p90"], _meets(item)))
    return Table.of(
        caption=("The same scores for the figures whose engine has figures from at least two sources in the "
                 "category: the ones for which leaving the source out still leaves the engine's own figures to fit "
                 "on. A category missing here has no such figure yet (every engine in it is measured by one "
                 "document)."),
        columns=(Column("category"), Column("figures", align="r"),
                 *_pct_columns("median |error|", "90th pct", "worst", "naive median", "naive 90th pct"),
                 Column("meets target")),
        rows=rows, assumptions=(METHOD, NAIVE))


@table("speed-accuracy-by-engine")
def speed_accuracy_by_engine_table() -> Table:
    """Per category and engine: the same statistics, to show where the error comes from."""
    rows = []
    scored_rows = speed_accuracy.all_scored()
    sources: dict[tuple[str, str], set[str]] = {}
    for row in scored_rows:
        sources.setdefault((str(row["category"]), str(row["engine"])), set()).add(str(row["source_id"]))
    keyed = [{**row, "category": f"{row['category']}|{row['engine']}"} for row in scored_rows]
    for item in sorted(speed_accuracy.summary(keyed), key=lambda i: str(i["category"])):
        category, engine = str(item["category"]).split("|")
        rows.append((CATEGORY_TITLES.get(category, category), engine, item["n"], len(sources[(category, engine)]),
                     item["median"], item["p90"], item["naive_median"]))
    return Table.of(
        caption=("The cross-validated errors split by engine. An engine whose figures in a category all come from "
                 "one source is estimated there with the constants fitted on the other engines only (the pooled "
                 "fit): its error says how far that engine is from the others, not how well its own constants fit."),
        columns=(Column("category"), Column("engine"), Column("figures", align="r"), Column("sources", align="r"),
                 *_pct_columns("median |error|", "90th pct", "naive median")),
        rows=rows, assumptions=(METHOD, NAIVE))


@table("speed-accuracy-figures")
def speed_accuracy_figures_table() -> Table:
    """Every scored figure: measured, cross-validated estimate, naive roofline, error."""
    rows = []
    for row in sorted(speed_accuracy.all_scored(), key=lambda r: (str(r["category"]), str(r["figure_id"]))):
        rows.append((CATEGORY_TITLES.get(str(row["category"]), str(row["category"])), str(row["figure_id"]),
                     row["source_id"], row["engine"], row["measured"], row["estimated"], row["naive_roofline"],
                     row["unit"], row["error"], row["naive_error"]))
    return Table.of(
        caption=("Every scored published figure with the cross-validated estimate and the naive roofline's, in the "
                 "figure's unit; error as in the summary. Each figure's citation, hardware, model, weight format "
                 f"and stated settings are in {DATASET}/<category>.jsonl."),
        columns=(Column("category"), Column("figure"), Column("source"), Column("engine"),
                 *(Column(name, "{:,.4g}".format, "r") for name in ("measured", "estimated", "naive")), Column("unit"),
                 Column("error", signed_percent, "r"), Column("naive error", signed_percent, "r")),
        rows=rows, assumptions=(METHOD, NAIVE))


@table("speed-accuracy-sources")
def speed_accuracy_sources_table() -> Table:
    """The documents the figures are quoted from, with how many figures each gave."""
    figures = load_figures()
    counts = Counter(str(f["source_id"]) for f in figures)
    excluded = Counter(str(f["source_id"]) for f in figures if f.get("excluded"))
    first: dict[str, dict[str, object]] = {}
    for figure in figures:
        first.setdefault(str(figure["source_id"]), figure)
    rows = []
    for source, figure in sorted(first.items()):
        engines = sorted({str(f["engine"]) for f in figures if f["source_id"] == source})
        rows.append((source, figure["title"], figure["url"], ", ".join(engines), counts[source], excluded[source]))
    return Table.of(
        caption=("The documents the published figures are quoted from (read on the as-of date of each record); "
                 "'excluded' figures are kept in the dataset with the reason and not scored."),
        columns=(Column("source"), Column("document"), Column("address"), Column("engine"),
                 Column("figures", align="r"), Column("excluded", align="r")),
        rows=rows, assumptions=(f"figures: {DATASET}",))


def _fitted_cell(fitted: Fitted, *, seconds: bool = False) -> str:
    if fitted.value is None:
        return "pooled"
    value = f"{fitted.value * 1e6:,.1f} us" if seconds else f"{fitted.value:.3g}"
    return f"{value} ({len(fitted.fitted_on)})" if fitted.fitted_on else f"{value} (assumed)"


def _fitted_us(fitted: Fitted) -> str:
    return _fitted_cell(fitted, seconds=True)


def _launches_us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} us (measured)" if seconds else "none"


@table("speed-accuracy-engines")
def speed_accuracy_engines_table() -> Table:
    """The engine catalog: each fitted constant and how many figures it was fitted on."""
    rows = []
    for engine in (*all_engines(), POOLED):
        rows.append((engine.id, engine.bandwidth_efficiency, *(engine.compute_fitted(key) for key in COMPUTE_KEYS),
                     engine.moe_expert_efficiency, engine.step_overhead_s_per_layer, engine.sequence_overhead_s,
                     engine.request_overhead_s, engine.kv_reread_cost, engine.host_launch_s_per_layer,
                     engine.metal_step_s_per_layer))
    return Table.of(
        caption=("The engine catalog (calculators.catalog.engines): each constant with, in brackets, the number of "
                 f"published figures it was fitted on (their ids are in calculators/catalog/engine_fits.py); 'pooled': "
                 "the engine has no figure informing it and uses the fit over every engine's figures (last row). Fixed "
                 "costs in "
                 "microseconds: per decoder layer per forward pass, per sequence per forward pass, and per request; "
                 "CPU launches: per layer of a decode step on a CUDA GPU, for a build with no CUDA graphs (measured by "
                 "NVIDIA, not fitted: calculators.catalog.engine_kernels); Metal: the whole fixed cost per layer of a "
                 "decode step on an Apple GPU, in place of the fitted one (measured on a 1.1B model, not fitted)."),
        columns=(Column("engine"), Column("bandwidth", _fitted_cell, "r"),
                 *(Column(f"compute {key}", _fitted_cell, "r") for key in COMPUTE_KEYS),
                 Column("MoE experts", _fitted_cell, "r"), Column("per layer per step", _fitted_us, "r"),
                 Column("per sequence per step", _fitted_us, "r"), Column("per request", _fitted_us, "r"),
                 Column("KV re-read", _fitted_cell, "r"), Column("CPU launches per layer", _launches_us, "r"),
                 Column("Metal per layer", _launches_us, "r")),
        rows=rows,
        assumptions=("fit: robust least squares on log error (calculators.speed_accuracy.fit), every figure of "
                     f"{DATASET}; generic: assumed",))


@table("weight-formats")
def weight_formats_table() -> Table:
    """Bits per weight of every weight format, where they apply and where the figure comes from."""
    rows = []
    for fid in FORMAT_IDS:
        form = weight_format(fid)
        scope = "whole file (average)" if form.scope == "all" else "decoder linear layers; the rest 16-bit"
        rows.append((form.id, form.bits_per_weight, form.family.value, scope, form.source.title))
    return Table.of(
        caption=("Weight formats by bits per weight (scales and zero points included): what memory and speed "
                 "(bytes read per token) count for each format; family = what the kernels compute in."),
        columns=(Column("format"), decimal_column("bits per weight", 4), Column("family"), Column("applies to"),
                 Column("source")),
        rows=rows,
        assumptions=("GGUF bits per weight are llama.cpp's whole-file averages on Llama-3.1-8B (q4_0 from its block "
                     "layout); other models differ slightly with their embedding share",))


TABLES: dict[str, TableFunction] = declared_tables(globals())

