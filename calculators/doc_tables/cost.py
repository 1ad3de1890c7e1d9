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
from calculators.tables import Table, TableFunction

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
WEEKS_PER_MONTH = 52 / 12


def _assumptions() -> tuple[str, ...]:
    return (f"utilisation {cost.DEFAULT_UTILIZATION:.0%}", f"{cost.DEFAULT_YEARS:g}-year straight-line depreciation",
            f"electricity {prices.default_kwh_price().usd_per_kwh:g} USD/kWh (assumed)", "power = TDP while busy",
            "host, cooling, staff and resale not included")


def cloud_offers() -> Table:
    """Every cloud offer of the edition, per GPU-hour."""
    rows = []
    for offer in sorted(prices.all_offers(), key=lambda o: (get_gpu(o.gpu_id).name, o.usd_per_gpu_hour, o.id)):
        rows.append((get_gpu(offer.gpu_id).name, offer.provider, offer.offering, str(offer.gpus),
                     f"{offer.usd_per_hour:,.2f}", f"{offer.usd_per_gpu_hour:,.2f}", offer.source.as_of))
    return Table(id="cost-cloud-offers",
                 columns=("GPU", "provider", "offering", "GPUs", "USD per instance-hour", "USD per GPU-hour",
                          "read on"),
                 align=("l", "l", "l", "r", "r", "r", "l"), rows=tuple(rows),
                 caption=f"Price catalog edition {prices.EDITION}: on-demand list prices, no commitment; USD per "
                         "GPU-hour derived (instance price / GPUs). Sources (provider page and the collector that "
                         "transcribed it) in calculators/catalog/prices.py.")


def breakeven() -> Table:
    """Local versus cloud for GPUs with a known purchase price (MSRP or the ends of a quoted range)."""
    rows = []
    for gpu_id, purchase, label in BREAKEVEN_CASES:
        c = cost.cost_comparison(gpu=gpu_id, purchase_usd=purchase)
        util = c.breakeven_utilization
        hours = c.breakeven_gpu_hours
        rows.append((c.gpu.name, f"{c.purchase_usd:,.0f}", label, f"{c.cloud_usd_per_gpu_hour:.2f}",
                     f"{c.power_watts:,.0f}", f"{c.local_usd_per_gpu_hour:.3f}",
                     "never" if util is None else f"{util:.0%}", "never" if hours is None else f"{hours:,.0f}"))
    return Table(id="cost-breakeven",
                 columns=("GPU", "purchase USD", "purchase price", "cloud USD/GPU-h (median)", "power W",
                          "local USD per used GPU-h", "break-even utilisation", "break-even GPU-hours"),
                 align=("l", "r", "l", "r", "r", "r", "r", "r"), rows=tuple(rows),
                 caption=f"cost_comparison with catalog edition {prices.EDITION}. Derived from the stated prices; "
                         "above the break-even utilisation buying is cheaper.", assumptions=_assumptions())


def electricity() -> Table:
    """Electricity records of the edition."""
    rows = tuple((e.region, e.sector, f"{e.usd_per_kwh * 100:.2f}", e.source.kind, e.source.as_of)
                 for e in prices.all_electricity())
    return Table(id="cost-electricity", columns=("region", "sector", "US cents per kWh", "kind", "as of"),
                 align=("l", "l", "r", "l", "l"), rows=rows,
                 caption="measured: EIA Electric Power Annual 2023 average revenue per kWh; assumed: the default "
                         "used when no tariff is given.")


def _exercise() -> tuple[float, float, float, float]:
    low_hours = EXERCISE_JOBS_PER_WEEK[0] * EXERCISE_HOURS_PER_JOB[0] * WEEKS_PER_MONTH
    high_hours = EXERCISE_JOBS_PER_WEEK[1] * EXERCISE_HOURS_PER_JOB[1] * WEEKS_PER_MONTH
    price = prices.median_cloud_usd_per_gpu_hour("a100-80gb-sxm")
    assert price is not None
    return low_hours, high_hours, low_hours * price, high_hours * price


def _range_verdict(values: list[float], low: float, high: float) -> str:
    inside = sum(low <= v <= high for v in values)
    above = sum(v > high for v in values)
    below = sum(v < low for v in values)
    if inside == len(values):
        return "consistent: every catalogued offer is inside the range"
    return f"partly: {inside} of {len(values)} offers inside, {above} above, {below} below"


def claims() -> Table:
    """Cost claims of the source guides against the catalog and calculators."""
    a100 = [o.usd_per_gpu_hour for o in prices.offers_for("a100-80gb-sxm") + prices.offers_for("a100-40gb-sxm")]
    h100 = [o.usd_per_gpu_hour for o in prices.offers_for("h100-sxm")]
    msrp_4090 = prices.purchase_price_usd("rtx-4090")
    low_h, high_h, low_usd, high_usd = _exercise()
    util_high = high_h / (365 / 12 * 24)
    c4090 = cost.cost_comparison(gpu="rtx-4090")
    be = c4090.breakeven_utilization
    rows = (
        ("A100 (cloud) costs $1-2 per hour", f"{min(a100):.2f}-{max(a100):.2f} USD/GPU-h over {len(a100)} offers",
         _range_verdict(a100, 1.0, 2.0)),
        ("H100 (cloud) costs $2-4 per hour", f"{min(h100):.2f}-{max(h100):.2f} USD/GPU-h over {len(h100)} offers",
         _range_verdict(h100, 2.0, 4.0)),
        ("RTX 4090: $1600 new", f"launch MSRP {msrp_4090:,.0f} USD",
         "consistent with the launch price" if msrp_4090 is not None and abs(msrp_4090 - 1600) <= 16
         else "differs from the launch price"),
        ("RTX 3090: $800 used", "no sourced used price in the catalog", "not checked"),
        ("Exercise: 2-3 jobs/week of 4-6 h on an A100",
         f"{low_h:,.0f}-{high_h:,.0f} GPU-h/month = {low_usd:,.0f}-{high_usd:,.0f} USD/month at the median A100 "
         "80GB price", "derived (cloud side of the exercise)"),
        ("Local is not justified for infrequent training",
         f"that usage is {util_high:.0%} utilisation at most; an RTX 4090 breaks even at "
         f"{'never' if be is None else f'{be:.0%}'} against its cloud price",
         "consistent: below break-even, renting is cheaper" if be is None or util_high < be
         else "contradicted: above break-even, buying is cheaper"),
    )
    return Table(id="cost-claims", columns=("claim (source guide)", "calculators", "verdict"), align=("l", "l", "l"),
                 rows=rows,
                 caption=f"Claims of hardware-for-ml-practitioners-2026 against price catalog edition "
                         f"{prices.EDITION} and cost_comparison; {WEEKS_PER_MONTH:.2f} weeks per month.",
                 assumptions=_assumptions())


def key_numbers() -> Table:
    """Key numbers of the cost page."""
    h100 = prices.median_cloud_usd_per_gpu_hour("h100-sxm")
    assert h100 is not None
    c = cost.cost_comparison(gpu="h100-sxm", purchase_usd=25000.0)
    c4090 = cost.cost_comparison(gpu="rtx-4090")
    be, be4090 = c.breakeven_utilization, c4090.breakeven_utilization
    per_token = cost.usd_per_million_tokens(tokens_per_s=1000, usd_per_hour=h100)
    rows = (
        ("Median on-demand H100 SXM 80GB", f"{h100:.2f} USD/GPU-h", "catalog median"),
        ("Break-even utilisation, H100 SXM bought at 25,000 USD", "never" if be is None else f"{be:.0%}", "derived"),
        ("Break-even utilisation, RTX 4090 at launch MSRP", "never" if be4090 is None else f"{be4090:.0%}", "derived"),
        ("Cloud H100 at 1,000 tokens/s aggregate", f"{per_token:.2f} USD per million tokens", "derived"),
    )
    return Table(id="cost-key-numbers", columns=("quantity", "value", "kind"), align=("l", "r", "l"), rows=rows,
                 caption=f"From cost_comparison and usd_per_million_tokens, price catalog edition {prices.EDITION}.",
                 assumptions=_assumptions())


TABLES: dict[str, TableFunction] = {
    "cost-key-numbers": key_numbers,
    "cost-cloud-offers": cloud_offers,
    "cost-breakeven": breakeven,
    "cost-electricity": electricity,
    "cost-claims": claims,
}
