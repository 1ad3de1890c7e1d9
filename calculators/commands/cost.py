"""local versus cloud cost per GPU-hour, break-even utilisation, $ per run and per million tokens

``mlhw cost --gpu rtx-4090 [--purchase-usd 1599] [--cloud-usd-per-hour 0.29] [--kwh-usd 0.15]
[--utilization 0.5] [--years 3] [--gpu-hours 1000] [--tokens-per-s 1000] [--json]``

Its options are the fields of the ``cost-breakeven`` calculator (:mod:`calculators.commands`).
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators import cost
from calculators.commands import command_settings

COMMAND = "cost"
#: Optional extras: the engine functions that price them require them; omitted, their line is left out.
EXTRAS = ("gpu_hours", "tokens_per_s")


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the comparison; returns (JSON-ready dict, text)."""
    c = cost.cost_comparison(**command_settings(args, COMMAND, besides=EXTRAS))
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
