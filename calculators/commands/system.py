"""CPU cores, storage read rate and host RAM around the GPUs (system balance)

``mlhw system --samples-per-s 3000 --bytes-per-sample 110000 [--decode-ms 1.73] [--gpu h100-sxm --gpus 8] [--json]``
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators import system
from calculators.catalog.models import resolve_model
from calculators.units import GIB

COMMAND = "system"
#: Engine arguments whose flag is spelled differently.
FLAGS = {"decode_ms_per_sample": "--decode-ms", "dataset_cache_bytes": "--dataset-cache-gib",
         "offload_parameters": "--model", "dataset_cache_gib": "--dataset-cache-gib"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mlhw system`` (numbers stay strings; the calculator checks them)."""
    parser.add_argument("--samples-per-s", required=True, help="samples per second the GPUs consume (all GPUs)")
    parser.add_argument("--bytes-per-sample", required=True, help="stored bytes read per sample")
    parser.add_argument("--decode-ms", default=str(system.DEFAULT_DECODE_MS_PER_SAMPLE),
                        help="CPU ms per sample on one core, decode + augment (default: Pillow JPEG decode "
                             "only, measured, arXiv:2605.08731)")
    parser.add_argument("--core-efficiency", default="1.0", help="fraction of each core the loader gets (assumed)")
    parser.add_argument("--gpu", default="h100-sxm", help="GPU id (see 'mlhw gpus')")
    parser.add_argument("--gpus", default="1", help="GPUs in the machine")
    parser.add_argument("--host-ram-factor", default=str(system.DEFAULT_HOST_RAM_FACTOR),
                        help="rule: host RAM >= factor x total GPU memory")
    parser.add_argument("--dataset-cache-gib", default="0", help="dataset held in RAM, GiB")
    parser.add_argument("--batch-bytes", default="0", help="bytes of one decoded batch (sizes loader buffers)")
    parser.add_argument("--offload", default="none", help=f"one of {', '.join(system.OFFLOADS)} (DeepSpeed CPU offload)")
    parser.add_argument("--model", default=None, help="model whose states are offloaded (catalog id or config.json)")


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the system balance; returns (JSON-ready dict, text)."""
    from calculators.validate import finite_float

    cache_gib = finite_float("dataset_cache_gib", args.dataset_cache_gib, minimum=0, maximum=2**30)
    params = resolve_model(args.model).parameters if args.model else 0
    result = system.system_balance(
        samples_per_s=args.samples_per_s, bytes_per_sample=args.bytes_per_sample, decode_ms_per_sample=args.decode_ms,
        core_efficiency=args.core_efficiency, gpu=args.gpu, gpus=args.gpus, host_ram_factor=args.host_ram_factor,
        dataset_cache_bytes=int(cache_gib * GIB), batch_bytes=args.batch_bytes, offload=args.offload,
        offload_parameters=params)
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
