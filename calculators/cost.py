"""Cost: local GPU versus cloud per used GPU-hour, break-even utilisation, $ per run and per token.

Definitions (USD, hours; one GPU unless ``gpus`` says otherwise):

* local cost per *used* GPU-hour = ``purchase / (years x 8760 x utilization)`` (straight-line
  depreciation spread over the hours the GPU actually works) ``+ power_kw x $/kWh``;
* cloud cost per GPU-hour = the on-demand price (you pay only for hours used);
* break-even utilisation = the utilisation at which the two are equal:
  ``purchase / (years x 8760 x (cloud - power_kw x $/kWh))``; above it, owning is cheaper;
* break-even GPU-hours = ``purchase / (cloud - power_kw x $/kWh)``: used hours after which
  the purchase has paid for itself.

Assumptions (stated in every result): power is the GPU's TDP while busy and nothing while
idle; host, cooling, networking, staff, resale value, financing and cloud storage/egress
are left out. They move the answer; add them to the prices you pass in.

Prices default to :mod:`calculators.catalog.prices` (edition ``EDITION``); every one can be
overridden.

>>> c = cost_comparison(gpu="rtx-4090", cloud_usd_per_gpu_hour=0.29, kwh_usd=0.15, utilization=0.5, years=3)
>>> round(c.local_usd_per_gpu_hour, 3), round(c.breakeven_utilization, 3)
(0.189, 0.273)
>>> round(training_run_cost_usd(gpu_hours=1000, usd_per_gpu_hour=2.0))
2000
>>> round(usd_per_million_tokens(tokens_per_s=1000, usd_per_hour=3.6), 2)
1.0

References:
    docs page "Local or cloud?".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculators.catalog import prices
from calculators.catalog.gpus import GPU, get_gpu
from calculators.errors import InputError
from calculators.units import SECONDS_PER_HOUR
from calculators.validate import finite_float, positive_int

HOURS_PER_YEAR = 8760
DEFAULT_UTILIZATION = 0.5
DEFAULT_YEARS = 3.0
MAX_USD = 1e9
MAX_USD_PER_HOUR = 1e5
MAX_GPU_HOURS = 1e10
MAX_TOKENS_PER_S = 1e9


def _optional(field: str, value: object, *, minimum: float, maximum: float) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return finite_float(field, value, minimum=minimum, maximum=maximum, allow_minimum=False)


@dataclass(frozen=True)
class CostComparison:
    """Local versus cloud cost of one GPU type, per used GPU-hour (USD), with the inputs used."""

    gpu: GPU
    gpus: int
    purchase_usd: float
    cloud_usd_per_gpu_hour: float
    kwh_usd: float
    power_watts: float
    utilization: float
    years: float
    price_sources: tuple[str, ...]
    assumptions: tuple[str, ...]

    @property
    def local_capital_usd_per_gpu_hour(self) -> float:
        """Depreciation per used GPU-hour: ``purchase / (years x 8760 x utilization)``."""
        return self.purchase_usd / (self.years * HOURS_PER_YEAR * self.utilization)

    @property
    def power_usd_per_gpu_hour(self) -> float:
        """Electricity per busy GPU-hour: ``power_watts / 1000 x kwh_usd``."""
        return self.power_watts / 1000 * self.kwh_usd

    @property
    def local_usd_per_gpu_hour(self) -> float:
        """Local cost per used GPU-hour (depreciation + power)."""
        return self.local_capital_usd_per_gpu_hour + self.power_usd_per_gpu_hour

    @property
    def breakeven_gpu_hours(self) -> float | None:
        """Used GPU-hours after which buying is cheaper; ``None`` if cloud costs less than the power alone."""
        margin = self.cloud_usd_per_gpu_hour - self.power_usd_per_gpu_hour
        return None if margin <= 0 else self.purchase_usd / margin

    @property
    def breakeven_utilization(self) -> float | None:
        """Utilisation (fraction of all hours in ``years``) above which buying is cheaper; may exceed 1."""
        hours = self.breakeven_gpu_hours
        return None if hours is None else hours / (self.years * HOURS_PER_YEAR)

    @property
    def cheaper(self) -> str:
        """``"local"`` or ``"cloud"`` at the given utilisation (ties go to cloud: no capital at risk)."""
        return "local" if self.local_usd_per_gpu_hour < self.cloud_usd_per_gpu_hour else "cloud"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields, derived values included."""
        return {"gpu": self.gpu.id, "gpus": self.gpus, "purchase_usd": self.purchase_usd,
                "cloud_usd_per_gpu_hour": self.cloud_usd_per_gpu_hour, "kwh_usd": self.kwh_usd,
                "power_watts": self.power_watts, "utilization": self.utilization, "years": self.years,
                "local_capital_usd_per_gpu_hour": self.local_capital_usd_per_gpu_hour,
                "power_usd_per_gpu_hour": self.power_usd_per_gpu_hour,
                "local_usd_per_gpu_hour": self.local_usd_per_gpu_hour,
                "breakeven_gpu_hours": self.breakeven_gpu_hours,
                "breakeven_utilization": self.breakeven_utilization, "cheaper": self.cheaper,
                "price_edition": prices.EDITION, "price_sources": list(self.price_sources),
                "assumptions": list(self.assumptions)}


def cost_comparison(*, gpu: str, gpus: int = 1, purchase_usd: float | None = None,
                    cloud_usd_per_gpu_hour: float | None = None, kwh_usd: float | None = None,
                    power_watts: float | None = None, utilization: float = DEFAULT_UTILIZATION,
                    years: float = DEFAULT_YEARS) -> CostComparison:
    """Local versus cloud cost per used GPU-hour, USD; ``None`` prices come from the catalog.

    Args:
        gpu: GPU id or name (:mod:`calculators.catalog.gpus`).
        gpus: GPUs bought or rented (per-GPU figures do not change; totals scale).
        purchase_usd: Price of one GPU, USD. Default: vendor launch MSRP; datacenter GPUs
            have none, so pass one (the catalog's quoted range is in the error message).
        cloud_usd_per_gpu_hour: On-demand USD per GPU-hour. Default: median of the
            edition's offers for this GPU.
        kwh_usd: Electricity, USD per kWh. Default: :func:`~calculators.catalog.prices.default_kwh_price`.
        power_watts: Power per busy GPU, watts. Default: the GPU's TDP.
        utilization: Fraction of all hours the GPU works over ``years`` (0 to 1].
        years: Depreciation period, years.

    Raises:
        InputError: An input is out of range, or the catalog has no default for a price
            that was not given (the message names the field to fill in).
    """
    card = get_gpu(gpu)
    count = positive_int("gpus", gpus, maximum=100_000)
    sources: list[str] = []
    purchase = _optional("purchase_usd", purchase_usd, minimum=0, maximum=MAX_USD)
    if purchase is None:
        purchase = prices.purchase_price_usd(card.id)
        if purchase is None:
            quote = prices.purchase_quote(card.id)
            hint = (f" (quoted ${quote.usd_low:,.0f}-{quote.usd_high:,.0f}: {quote.source.title})"
                    if quote else "")
            raise InputError("purchase_usd", purchase_usd,
                             f"a purchase price in USD: {card.name} has no list price in the catalog{hint}")
        sources.append(f"purchase: launch MSRP ({card.source_of('launch_price_usd').url})")
    else:
        sources.append("purchase: given")
    cloud = _optional("cloud_usd_per_gpu_hour", cloud_usd_per_gpu_hour, minimum=0, maximum=MAX_USD_PER_HOUR)
    if cloud is None:
        cloud = prices.median_cloud_usd_per_gpu_hour(card.id)
        if cloud is None:
            raise InputError("cloud_usd_per_gpu_hour", cloud_usd_per_gpu_hour,
                             f"an on-demand USD per GPU-hour: edition {prices.EDITION} has no offer for {card.name}")
        sources.append(f"cloud: median of {len(prices.offers_for(card.id))} on-demand offers, edition {prices.EDITION}")
    else:
        sources.append("cloud: given")
    kwh = _optional("kwh_usd", kwh_usd, minimum=0, maximum=100)
    if kwh is None:
        kwh = prices.default_kwh_price().usd_per_kwh
        sources.append(f"electricity: assumed {kwh:g} USD/kWh")
    else:
        sources.append("electricity: given")
    power = _optional("power_watts", power_watts, minimum=0, maximum=1e6)
    if power is None:
        if card.tdp_watts is None:
            raise InputError("power_watts", power_watts, f"a power draw in watts: {card.name} has no TDP in the catalog")
        power = float(card.tdp_watts)
    use = finite_float("utilization", utilization, minimum=0, maximum=1, allow_minimum=False)
    span = finite_float("years", years, minimum=0, maximum=50, allow_minimum=False)
    assumptions = (f"straight-line depreciation over {span:g} years, no resale value",
                   f"GPU busy {use:.0%} of all hours; power {power:g} W while busy, 0 W idle",
                   "host, cooling, networking, staff, storage and egress not included")
    return CostComparison(gpu=card, gpus=count, purchase_usd=purchase, cloud_usd_per_gpu_hour=cloud, kwh_usd=kwh,
                          power_watts=power, utilization=use, years=span, price_sources=tuple(sources),
                          assumptions=assumptions)


def training_run_cost_usd(*, gpu_hours: float, usd_per_gpu_hour: float) -> float:
    """Cost of a training run, USD: ``gpu_hours x usd_per_gpu_hour``.

    ``gpu_hours`` is GPUs x wall-clock hours; it comes from a training-time estimate (an
    estimate at a fitted or given utilisation) or a measured run.

    >>> training_run_cost_usd(gpu_hours=8 * 24, usd_per_gpu_hour=3.99)
    766.08
    """
    hours = finite_float("gpu_hours", gpu_hours, minimum=0, maximum=MAX_GPU_HOURS)
    price = finite_float("usd_per_gpu_hour", usd_per_gpu_hour, minimum=0, maximum=MAX_USD_PER_HOUR)
    return round(hours * price, 10)


def usd_per_million_tokens(*, tokens_per_s: float, usd_per_hour: float) -> float:
    """Serving cost per million generated tokens, USD: ``usd_per_hour / (tokens_per_s x 3600) x 1e6``.

    ``tokens_per_s`` is the aggregate rate of everything the priced hardware serves (all
    concurrent sequences), sustained; ``usd_per_hour`` prices that hardware (GPUs x price).

    >>> round(usd_per_million_tokens(tokens_per_s=2500, usd_per_hour=3.99), 3)
    0.443
    """
    rate = finite_float("tokens_per_s", tokens_per_s, minimum=0, maximum=MAX_TOKENS_PER_S, allow_minimum=False)
    price = finite_float("usd_per_hour", usd_per_hour, minimum=0, maximum=MAX_USD_PER_HOUR)
    return price / (rate * SECONDS_PER_HOUR) * 1e6
