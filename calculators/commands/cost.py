"""local versus cloud cost per GPU-hour, break-even utilisation, $ per run and per million tokens

``mlhw cost --gpu rtx-4090 [--purchase-usd 1599] [--cloud-usd-per-hour 0.29] [--kwh-usd 0.15]
[--utilization 0.5] [--years 3] [--gpu-hours 1000] [--tokens-per-s 1000] [--json]``
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators import cost
from calculators.catalog import prices
from calculators.commands import engine_option

COMMAND = "cost"
ENGINES = (cost.cost_comparison, cost.training_run_cost_usd, cost.usd_per_million_tokens)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mlhw cost`` (numbers stay strings; the calculator checks them)."""
    def option(flag: str, help: str, **options: Any) -> None:
        engine_option(parser, flag, cost.cost_comparison, help=help, **options)

    parser.add_argument("--gpu", required=True, help="GPU id (see 'mlhw gpus')")
    option("--purchase-usd", "price of one GPU; auto: launch MSRP, if any")
    option("--cloud-usd-per-hour", f"on-demand USD per GPU-hour; auto: median of the {prices.EDITION} catalog "
                                   "offers", name="cloud_usd_per_gpu_hour")
    option("--kwh-usd", f"electricity USD/kWh; auto: assumed {prices.default_kwh_price().usd_per_kwh:g}")
    option("--power-watts", "power per busy GPU; auto: TDP")
    option("--utilization", "fraction of all hours the local GPU works")
    option("--years", "depreciation period in years")
    # Optional extras: the engine functions require these (no default to read); omitted, their line is left out.
    parser.add_argument("--gpu-hours", default=None, help="GPU-hours of a training run to price")
    parser.add_argument("--tokens-per-s", default=None, help="aggregate tokens/s one GPU serves, to price per token")


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the comparison; returns (JSON-ready dict, text)."""
    c = cost.cost_comparison(gpu=args.gpu, purchase_usd=args.purchase_usd,
                             cloud_usd_per_gpu_hour=args.cloud_usd_per_gpu_hour, kwh_usd=args.kwh_usd,
                             power_watts=args.power_watts, utilization=args.utilization, years=args.years)
    data = c.to_dict()
    util = c.breakeven_utilization
    lines = [f"{c.gpu.name}: purchase ${c.purchase_usd:,.0f}, cloud ${c.cloud_usd_per_gpu_hour:.3f}/GPU-h, "
             f"{c.power_watts:g} W at ${c.kwh_usd:g}/kWh, {c.utilization:.0%} utilisation over {c.years:g} years",
             f"local per used GPU-hour  ${c.local_usd_per_gpu_hour:10.3f}  (depreciation "
             f"${c.local_capital_usd_per_gpu_hour:.3f} + power ${c.power_usd_per_gpu_hour:.3f})",
             f"cloud per GPU-hour       ${c.cloud_usd_per_gpu_hour:10.3f}",
             "break-even utilisation   " + ("never" if util is None else f"{util:10.1%}"),
             f"cheaper at {c.utilization:.0%}: {c.cheaper}"]
    if args.gpu_hours is not None:
        local = cost.training_run_cost_usd(gpu_hours=args.gpu_hours, usd_per_gpu_hour=c.local_usd_per_gpu_hour)
        cloud = cost.training_run_cost_usd(gpu_hours=args.gpu_hours, usd_per_gpu_hour=c.cloud_usd_per_gpu_hour)
        data["training_run_usd"] = {"local": local, "cloud": cloud}
        lines.append(f"training run             ${local:,.2f} local / ${cloud:,.2f} cloud")
    if args.tokens_per_s is not None:
        local = cost.usd_per_million_tokens(tokens_per_s=args.tokens_per_s, usd_per_hour=c.local_usd_per_gpu_hour)
        cloud = cost.usd_per_million_tokens(tokens_per_s=args.tokens_per_s, usd_per_hour=c.cloud_usd_per_gpu_hour)
        data["usd_per_million_tokens"] = {"local": local, "cloud": cloud}
        lines.append(f"per million tokens       ${local:,.4f} local / ${cloud:,.4f} cloud")
    return data, "\n".join(lines)
