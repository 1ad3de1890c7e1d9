"""CPU cores, storage read rate and host RAM around the GPUs (system balance)

``mlhw system --samples-per-s 3000 --bytes-per-sample 110000 [--decode-ms 1.73] [--gpu h100-sxm --gpus 8] [--json]``
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators import system
from calculators.catalog.models import resolve_model
from calculators.commands import engine_option
from calculators.units import GIB
from calculators.validate import default_of, finite_float

COMMAND = "system"
ENGINES = (system.system_balance,)
#: Options in another unit than the engine keyword they feed: option -> (keyword, option units per keyword unit).
SCALED = {"dataset_cache_gib": ("dataset_cache_bytes", 1 / GIB)}
#: Engine arguments whose flag is spelled differently.
FLAGS = {"dataset_cache_bytes": "--dataset-cache-gib", "offload_parameters": "--model"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mlhw system`` (numbers stay strings; the calculator checks them)."""
    def option(flag: str, help: str, **options: Any) -> None:
        engine_option(parser, flag, system.system_balance, help=help, **options)

    parser.add_argument("--samples-per-s", required=True, help="samples per second the GPUs consume (all GPUs)")
    parser.add_argument("--bytes-per-sample", required=True, help="stored bytes read per sample")
    option("--decode-ms", "CPU ms per sample on one core, decode + augment; the default is Pillow JPEG decode "
                          "only, measured, arXiv:2605.08731", name="decode_ms_per_sample")
    option("--core-efficiency", "fraction of each core the loader gets (assumed)")
    option("--gpu", "GPU id (see 'mlhw gpus')")
    option("--gpus", "GPUs in the machine")
    option("--host-ram-factor", "rule: host RAM >= factor x total GPU memory")
    keyword, scale = SCALED["dataset_cache_gib"]
    option("--dataset-cache-gib", "dataset held in RAM, GiB", keyword=keyword, scale=scale)
    option("--batch-bytes", "bytes of one decoded batch (sizes loader buffers)")
    option("--offload", f"one of {', '.join(system.OFFLOADS)} (DeepSpeed CPU offload)")
    # The engine takes the offloaded parameter count (default 0: nothing offloaded); the command reads it off a model.
    parser.add_argument("--model", default=None, help="model whose states are offloaded (catalog id or config.json)")


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the system balance; returns (JSON-ready dict, text)."""
    scale = SCALED["dataset_cache_gib"][1]
    cache_gib = finite_float("dataset_cache_gib", args.dataset_cache_gib, minimum=0, maximum=2**30)
    nothing = default_of(system.system_balance, "offload_parameters")
    params = resolve_model(args.model).parameters if args.model else nothing
    result = system.system_balance(
        samples_per_s=args.samples_per_s, bytes_per_sample=args.bytes_per_sample,
        decode_ms_per_sample=args.decode_ms_per_sample, core_efficiency=args.core_efficiency, gpu=args.gpu,
        gpus=args.gpus, host_ram_factor=args.host_ram_factor, dataset_cache_bytes=int(cache_gib / scale),
        batch_bytes=args.batch_bytes, offload=args.offload, offload_parameters=params)
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
