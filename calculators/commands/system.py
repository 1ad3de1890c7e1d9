"""CPU cores, storage read rate and host RAM around the GPUs (system balance)

``mlhw system --samples-per-s 3000 --bytes-per-sample 110000 [--decode-ms 1.73] [--gpu h100-sxm --gpus 8] [--json]``

Its options are the fields of the ``system-balance`` calculator (:mod:`calculators.commands`).
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators import system
from calculators.commands import command_settings
from calculators.inputs.model import resolve_model
from calculators.units import GIB
from calculators.validate import default_of, finite_float

COMMAND = "system"
#: Engine arguments whose flag is spelled differently (no field feeds them by name).
FLAGS = {"offload_parameters": "--model"}


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the system balance; returns (JSON-ready dict, text)."""
    settings = command_settings(args, COMMAND, besides=("model", "dataset_cache_gib"))
    cache_gib = finite_float("dataset_cache_gib", args.dataset_cache_gib, minimum=0, maximum=2**30)
    nothing = default_of(system.system_balance, "offload_parameters")
    params = resolve_model(args.model).parameters if args.model else nothing
    result = system.system_balance(dataset_cache_bytes=int(cache_gib * GIB), offload_parameters=params, **settings)
    ram = result.host_ram
    lines = [f"{result.gpus} x {result.gpu.name}",
             f"storage read      {result.loader.read_bytes_per_s / 1e6:12,.1f} MB/s",
             f"CPU cores         {result.loader.cpu_cores:12d}   ({result.loader.cpu_cores_needed:.2f} cores of work)",
             f"host RAM          {ram.needed_bytes / GIB:12,.1f} GiB  (binding: {ram.binding}; rule "
             f"{ram.rule_bytes / GIB:,.1f} GiB, uses {sum(ram.breakdown.values()) / GIB:,.1f} GiB)"]
    for fit in result.storage:
        verdict = "enough" if fit.enough else f"needs {fit.devices_needed} in parallel"
        lines.append(f"  {fit.storage.name:<32} {fit.utilization:7.0%} of rated read  {verdict}")
    lines.append(result.ecc_note)
    return result.to_dict(), "\n".join(lines)
