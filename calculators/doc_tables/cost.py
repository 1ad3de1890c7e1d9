"""Tables of the "Local or cloud?" page (docs/cost/index.md).

Prices come from :mod:`calculators.catalog.prices` (edition ``EDITION``), costs from
:mod:`calculators.cost`.

>>> TABLES["cost-cloud-offers"]().columns[:3]
('GPU', 'provider', 'offering')
"""

from __future__ import annotations

from calculators import cost
from calculators.catalog import prices
from calculators.catalog.gpus import get_gpu
from calculators.columns import Column, decimal_column, number_column
from calculators.doc_tables.claims import AUDIT, selected_claims
from calculators.tables import Table, TableFunction, declared_tables, table
from calculators.units import number

#: (GPU id, purchase price or None for the catalog default, label of the price) rows of the break-even table.
BREAKEVEN_CASES: tuple[tuple[str, float | None, str], ...] = (
    ("rtx-3090", None, "launch MSRP"),
    ("rtx-4090", None, "launch MSRP"),
    ("h100-sxm", 25000.0, "quote, low end"),
    ("h100-sxm", 40000.0, "quote, high end"),
)
#: The exercise in hardware-for-ml-practitioners-2026: 2-3 jobs a week of 4-6 hours on an A100.
EXERCISE_JOBS_PER_WEEK = (2, 3)
EXERCISE_HOURS_PER_JOB = (4, 6)
EXERCISE_GPU = "a100-80gb-sxm"
WEEKS_PER_MONTH = 52 / 12


def _assumptions() -> tuple[str, ...]:
    return (f"utilisation {cost.DEFAULT_UTILIZATION:.0%}", f"{cost.DEFAULT_YEARS:g}-year straight-line depreciation",
            f"electricity {prices.default_kwh_price().usd_per_kwh:g} USD/kWh (assumed)", "power = TDP while busy",
            "host, cooling, staff and resale not included")


@table("cost-cloud-offers")
def cloud_offers() -> Table:
    """Every cloud offer of the edition, per GPU-hour."""
    offers = sorted(prices.all_offers(), key=lambda o: (get_gpu(o.gpu_id).name, o.usd_per_gpu_hour, o.id))
    rows = ((get_gpu(o.gpu_id).name, o.provider, o.offering, o.gpus, o.usd_per_hour, o.usd_per_gpu_hour, o.source.as_of)
            for o in offers)
    return Table.of(columns=(Column("GPU"), Column("provider"), Column("offering"), Column("GPUs", align="r"),
                             number_column("USD per instance-hour", 2), number_column("USD per GPU-hour", 2),
                             Column("read on")),
                    rows=rows,
                    caption=f"Price catalog edition {prices.EDITION}: on-demand list prices, no commitment; USD per "
                            "GPU-hour derived (instance price / GPUs). Sources (provider page and the collector that "
                            "transcribed it) in calculators/catalog/prices.py.")


@table("cost-breakeven")
def breakeven() -> Table:
    """Local versus cloud for GPUs with a known purchase price (MSRP or the ends of a quoted range)."""
    rows = []
    for gpu_id, purchase, label in BREAKEVEN_CASES:
        c = cost.cost_comparison(gpu=gpu_id, purchase_usd=purchase)
        rows.append((c.gpu.name, c.purchase_usd, label, c.cloud_usd_per_gpu_hour, c.power_watts,
                     c.local_usd_per_gpu_hour, c.breakeven_utilization, c.breakeven_gpu_hours))
    return Table.of(columns=(Column("GPU"), number_column("purchase USD"), Column("purchase price"),
                             decimal_column("cloud USD/GPU-h (median)", 2), number_column("power W"),
                             decimal_column("local USD per used GPU-h", 3),
                             Column("break-even utilisation", _never, "r"),
                             number_column("break-even GPU-hours", missing="never")),
                    rows=rows,
                    caption=f"cost_comparison with catalog edition {prices.EDITION}. Derived from the stated prices; "
                            "above the break-even utilisation buying is cheaper.", assumptions=_assumptions())


def _never(utilisation: float | None) -> str:
    """A break-even utilisation as a whole percentage, or 'never' when renting is always cheaper."""
    return "never" if utilisation is None else f"{utilisation:.0%}"


@table("cost-electricity")
def electricity() -> Table:
    """Electricity records of the edition."""
    rows = ((e.region, e.sector, e.usd_per_kwh * 100, e.source.kind, e.source.as_of) for e in prices.all_electricity())
    return Table.of(columns=(Column("region"), Column("sector"), decimal_column("US cents per kWh", 2), Column("kind"),
                             Column("as of")),
                    rows=rows,
                    caption="measured: EIA Electric Power Annual 2023 average revenue per kWh; assumed: the default "
                            "used when no tariff is given.")


def _exercise() -> tuple[float, float, float, float]:
    low_hours = EXERCISE_JOBS_PER_WEEK[0] * EXERCISE_HOURS_PER_JOB[0] * WEEKS_PER_MONTH
    high_hours = EXERCISE_JOBS_PER_WEEK[1] * EXERCISE_HOURS_PER_JOB[1] * WEEKS_PER_MONTH
    price = prices.median_cloud_usd_per_gpu_hour(EXERCISE_GPU)
    assert price is not None
    return low_hours, high_hours, low_hours * price, high_hours * price


#: The audit's records of the practitioners' guide's price table (calculators.claims), shown on
#: this page with the audit's own verdicts.
COST_CLAIM_IDS: tuple[str, ...] = (
    "hfp-table-a100-price", "hfp-table-h100-price", "hfp-table-rtx-4090-price", "hfp-table-rtx-3090-price",
)


@table("cost-claims")
def claims() -> Table:
    """The source guides' GPU prices, with the verdicts of the rules-of-thumb audit."""
    return selected_claims(COST_CLAIM_IDS, page="cost/index.md",
        caption=(f"GPU prices of the source guides, as {AUDIT} records and judges them: our figure from price "
                 f"catalog edition {prices.EDITION} (median and cheapest on-demand offer, or the launch price), and "
                 "the computed verdict."))


@table("cost-exercise")
def exercise() -> Table:
    """The guide's buy-or-rent exercise worked with the catalog: hours, cloud cost, utilisation; no verdict."""
    low_h, high_h, low_usd, high_usd = _exercise()
    hours_per_month = cost.HOURS_PER_YEAR / 12  # the year cost_comparison depreciates over
    c4090 = cost.cost_comparison(gpu="rtx-4090")
    breakeven = _never(c4090.breakeven_utilization)
    a100 = get_gpu(EXERCISE_GPU).name
    rows = (
        ("training time per month", number(low_h), number(high_h), "GPU-hours", "derived"),
        (f"cloud cost per month at the median {a100} price", number(low_usd), number(high_usd), "USD",
         "derived from catalog prices"),
        ("utilisation of one local GPU doing the same work", f"{low_h / hours_per_month:.0%}",
         f"{high_h / hours_per_month:.0%}", "of the month", "derived"),
        (f"break-even utilisation of a {c4090.gpu.name} against its cloud price", breakeven, breakeven,
         "of the month", "derived (cost_comparison)"),
    )
    return Table.key_numbers(
        rows, columns=("quantity", "low end", "high end", "unit", "kind"), figures=2, assumptions=_assumptions(),
        caption=("The buy-or-rent exercise of hardware-for-ml-practitioners-2026 (a researcher who \"runs 2-3 training "
                 "jobs per week, each taking 4-6 hours on an A100\"), worked with price catalog edition "
                 f"{prices.EDITION} and cost_comparison: figures only, no verdict (the exercise asks a question; it "
                 "claims nothing). Below the break-even utilisation, renting is cheaper. "
                 f"{WEEKS_PER_MONTH:.2f} weeks and {hours_per_month:,.0f} hours per month."))


@table("cost-key-numbers")
def key_numbers() -> Table:
    """Key numbers of the cost page."""
    h100 = prices.median_cloud_usd_per_gpu_hour("h100-sxm")
    assert h100 is not None
    c = cost.cost_comparison(gpu="h100-sxm", purchase_usd=25000.0)
    c4090 = cost.cost_comparison(gpu="rtx-4090")
    per_token = cost.usd_per_million_tokens(tokens_per_s=1000, usd_per_hour=h100)
    rows = (
        ("Median on-demand H100 SXM 80GB", f"{number(h100, 2)} USD/GPU-h", "catalog median"),
        ("Break-even utilisation, H100 SXM bought at 25,000 USD", _never(c.breakeven_utilization), "derived"),
        ("Break-even utilisation, RTX 4090 at launch MSRP", _never(c4090.breakeven_utilization), "derived"),
        ("Cloud H100 at 1,000 tokens/s aggregate", f"{number(per_token, 2)} USD per million tokens", "derived"),
    )
    return Table.key_numbers(
        rows, columns=("quantity", "value", "kind"), assumptions=_assumptions(),
        caption=f"From cost_comparison and usd_per_million_tokens, price catalog edition {prices.EDITION}.")


TABLES: dict[str, TableFunction] = declared_tables(globals())
