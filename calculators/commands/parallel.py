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
from calculators.catalog.training_frameworks import training_framework_ids
from calculators.commands import engine_option
from calculators.parallel.ring_link import GPUS_PER_NODE
from calculators.parallel.step import AUTO, COMM_DTYPES, step_communication
from calculators.validate import finite_float

COMMAND = "parallel"
ENGINES = (step_communication,)
#: Options in another unit than the engine keyword they feed: option -> (keyword, option units per keyword unit).
SCALED = {"latency_us": ("latency_s", 1e6)}
#: Engine arguments whose flag is spelled differently.
FLAGS = {"latency_s": "--latency-us"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mlhw parallel`` (numbers as text; the calculator checks them)."""
    def option(flag: str, help: str, **options: Any) -> None:
        engine_option(parser, flag, step_communication, help=help, **options)

    parser.add_argument("--model", required=True, help="catalog id (see 'mlhw models') or path to config.json")
    option("--gpu", "GPU id (see 'mlhw gpus'); sets compute and the default link")
    option("--gpus", "data-parallel GPUs")
    option("--zero", "ZeRO stage 0-3 (0 = DDP, 3 = FSDP full shard)")
    option("--interconnect", f"link: {AUTO} (the GPU's own within a node, the NICs across nodes above "
                             f"{GPUS_PER_NODE} GPUs, as train-time) or one of {', '.join(interconnect_ids())} "
                             "(every hop)")
    option("--nic", "network link between nodes (interconnect id; auto above one node only)")
    option("--nics-per-node", "NICs per node")
    option("--batch", "micro-batch per GPU (sequences)")
    option("--seq", "sequence length in tokens")
    option("--mfu", "fraction of the dense BF16 rate the step's FLOPs reach, in (0, 1]; auto: the utilisation "
                    "fitted on published runs for this GPU and micro-batch, the one train-time uses")
    option("--efficiency", "fraction of per-direction link bandwidth reached; auto: the link "
                           "model's value per link kind, fitted on published nccl-tests runs (the same as train-time "
                           "and speed)")
    keyword, scale = SCALED["latency_us"]
    option("--latency-us", "fixed cost per ring step, microseconds; auto: the link's measured value",
           keyword=keyword, scale=scale)
    option("--grad-dtype", f"reduced gradients: {', '.join(COMM_DTYPES)}")
    option("--param-dtype", f"gathered parameters: {', '.join(COMM_DTYPES)}")
    option("--no-overlap", "add all communication to compute", name="overlap", action="store_false")
    option("--grad-checkpointing", "full activation recomputation: one more forward per step, as in train-time",
           action="store_true")
    option("--framework", f"training framework: {', '.join(training_framework_ids())} (its fitted utilisation "
                          "factor, as train-time)")


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the step; returns (JSON-ready dict, text)."""
    scale = SCALED["latency_us"][1]
    latency = None if args.latency_us is None else finite_float("latency_us", args.latency_us, minimum=0.0, maximum=1e6)
    result = step_communication(
        resolve_model(args.model), gpu=args.gpu, gpus=args.gpus, zero=args.zero, interconnect=args.interconnect,
        batch=args.batch, seq=args.seq, mfu=args.mfu, efficiency=args.efficiency,
        grad_dtype=args.grad_dtype, param_dtype=args.param_dtype, overlap=args.overlap,
        grad_checkpointing=args.grad_checkpointing, nic=args.nic, nics_per_node=args.nics_per_node,
        latency_s=None if latency is None else latency / scale, framework=args.framework)
    return result.to_dict(), result.to_text()
