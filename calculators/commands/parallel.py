"""Communication time of a data-parallel step (DDP, ZeRO-1/2/3) over a link, against compute.

>>> from calculators.cli import main
>>> main(["parallel", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--gpus", "8", "--zero", "3",
...       "--interconnect", "pcie4"])  # doctest: +ELLIPSIS
Llama 3 8B on 8 x H100 SXM 80GB, ZeRO 3, over PCI Express 4.0 x16 (32 GB/s per direction)
...
0
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators.catalog.interconnects import interconnect_ids
from calculators.catalog.models import resolve_model
from calculators.parallel.step import AUTO, COMM_DTYPES, DEFAULT_MFU, step_communication
from calculators.validate import finite_float

COMMAND = "parallel"
#: Engine arguments whose flag is spelled differently.
FLAGS = {"latency_s": "--latency-us"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mlhw parallel`` (numbers as text; the calculator checks them)."""
    parser.add_argument("--model", required=True, help="catalog id (see 'mlhw models') or path to config.json")
    parser.add_argument("--gpu", default="h100-sxm", help="GPU id (see 'mlhw gpus'); sets compute and the default link")
    parser.add_argument("--gpus", default="8", help="data-parallel GPUs")
    parser.add_argument("--zero", default="0", help="ZeRO stage 0-3 (0 = DDP, 3 = FSDP full shard)")
    parser.add_argument("--interconnect", default=AUTO,
                        help=f"link: {AUTO} (the GPU's own) or one of {', '.join(interconnect_ids())}")
    parser.add_argument("--batch", default="1", help="micro-batch per GPU (sequences)")
    parser.add_argument("--seq", default="4096", help="sequence length in tokens")
    parser.add_argument("--mfu", default=str(DEFAULT_MFU), help=f"model FLOP utilisation (assumed; default {DEFAULT_MFU})")
    parser.add_argument("--efficiency", default=AUTO,
                        help="fraction of per-direction link bandwidth reached, or 'auto': the link model's value per "
                             "link kind, fitted on published nccl-tests runs (the same as train-time and speed)")
    parser.add_argument("--latency-us", default=AUTO,
                        help="fixed cost per ring step, microseconds, or 'auto' (the link's measured value)")
    parser.add_argument("--grad-dtype", default="fp32", help=f"reduced gradients: {', '.join(COMM_DTYPES)}")
    parser.add_argument("--param-dtype", default="bf16", help=f"gathered parameters: {', '.join(COMM_DTYPES)}")
    parser.add_argument("--no-overlap", action="store_true", help="add all communication to compute")


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the step; returns (JSON-ready dict, text)."""
    auto_latency = str(args.latency_us).strip().lower() == AUTO
    latency_us = None if auto_latency else finite_float("latency_us", args.latency_us, minimum=0.0, maximum=1e6)
    efficiency = None if str(args.efficiency).strip().lower() == AUTO else args.efficiency
    result = step_communication(
        resolve_model(args.model), gpu=args.gpu, gpus=args.gpus, zero=args.zero, interconnect=args.interconnect,
        batch=args.batch, seq=args.seq, mfu=args.mfu, efficiency=efficiency,
        latency_s=None if latency_us is None else latency_us / 1e6,
        grad_dtype=args.grad_dtype, param_dtype=args.param_dtype, overlap=not args.no_overlap)
    return result.to_dict(), result.to_text()
