"""Numbers in the prose of the Cost page: docs/cost/index.md.

The worked example (an H100 SXM bought at 30,000 USD, busy 30 % of the time, 12-cent
tariff) is computed with :func:`calculators.cost.cost_comparison` and the inputs its
``pycon`` block uses; price facts are read from the price catalog edition.

>>> cost_h100_quote_low().text
'25,000 USD'
"""

from __future__ import annotations

from collections import defaultdict

from calculators.catalog.gpus import get_gpu
from calculators.catalog.prices import EDITION, all_offers, purchase_quote
from calculators.cost import DEFAULT_YEARS, CostComparison, cost_comparison
from calculators.inline_values import Value, ValueFunction, bound, declared_values, quantity, value

#: Inputs of the worked example on docs/cost/index.md (stated in its text and code).
EXAMPLE_GPU, EXAMPLE_PURCHASE_USD, EXAMPLE_KWH_USD, EXAMPLE_UTILIZATION = "h100-sxm", 30000, 0.12, 0.3
_EXAMPLE = ((f"purchase {EXAMPLE_PURCHASE_USD:,} USD over {DEFAULT_YEARS:g} years, {EXAMPLE_KWH_USD:g} USD per kWh at TDP, "
            f"utilisation {EXAMPLE_UTILIZATION:g} (inputs of the example); cloud: median on-demand price of "
            f"catalog edition {EDITION}"),)


def _example() -> CostComparison:
    return cost_comparison(gpu=EXAMPLE_GPU, purchase_usd=EXAMPLE_PURCHASE_USD, kwh_usd=EXAMPLE_KWH_USD,
                           utilization=EXAMPLE_UTILIZATION)


@value("cost-offer-spread")
def cost_offer_spread(value_id: str) -> Value:
    """Largest ratio of the dearest to the cheapest offer for one GPU in the price catalog."""
    prices: dict[str, list[float]] = defaultdict(list)
    for offer in all_offers():
        prices[offer.gpu_id].append(offer.usd_per_gpu_hour)
    ratios = {gpu: max(p) / min(p) for gpu, p in prices.items() if len(p) > 1}
    gpu = max(ratios, key=lambda g: ratios[g])
    return quantity(value_id, ratios[gpu], digits=1, unit="", kind="derived",
                    description=f"Dearest over cheapest on-demand USD per GPU-hour for one GPU, largest over the GPUs "
                                f"of price edition {EDITION} with several offers ({get_gpu(gpu).name}).")


def h100_quote(value_id: str, *, end: str) -> Value:
    """One end of the quoted H100 SXM purchase-price range of the price catalog, USD (spec)."""
    quote = purchase_quote("h100-sxm")
    if quote is None:
        raise ValueError("the price catalog has no H100 SXM purchase quote")
    return quantity(value_id, quote.usd_low if end == "low" else quote.usd_high, digits=0, unit="USD", kind="spec",
                    description=f"The {end} end of the quoted H100 SXM unit price range ({quote.source.title}).")


@value("cost-h100-quote-low")
def cost_h100_quote_low(value_id: str) -> Value:
    """Low end of the quoted H100 SXM price range, USD (spec)."""
    return h100_quote(value_id, end="low")


@value("cost-example-breakeven")
def cost_example_breakeven(value_id: str) -> Value:
    """Break-even utilisation of the worked example, percent."""
    breakeven = _example().breakeven_utilization
    if breakeven is None:
        raise ValueError("the worked example has no break-even point")
    return quantity(value_id, breakeven, digits=1, unit="%", kind="derived", assumptions=_EXAMPLE,
                    description="Utilisation at which owning the worked example's H100 SXM costs the same per used "
                                "GPU-hour as renting it.")


@value("cost-example-local")
def cost_example_local(value_id: str) -> Value:
    """Local cost per used GPU-hour of the worked example, USD."""
    return quantity(value_id, _example().local_usd_per_gpu_hour, digits=2, unit="USD", kind="derived",
                    description="Depreciation plus power per used GPU-hour of the worked example's H100 SXM.",
                    assumptions=_EXAMPLE)


@value("cost-example-cloud")
def cost_example_cloud(value_id: str) -> Value:
    """Cloud cost per GPU-hour of the worked example (median on-demand price), USD."""
    return quantity(value_id, _example().cloud_usd_per_gpu_hour, digits=2, unit="USD", kind="derived",
                    description=f"Median on-demand USD per GPU-hour of the H100 SXM offers in edition {EDITION}.",
                    assumptions=_EXAMPLE)


VALUES: dict[str, ValueFunction] = declared_values(globals(), {"cost-h100-quote-high": bound(h100_quote, end="high")})
