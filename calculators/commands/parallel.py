"""Communication time of a data-parallel step (DDP, ZeRO-1/2/3) over a link, against compute.

Its options are the fields of the ``interconnect`` calculator (:mod:`calculators.commands`).

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

from calculators.commands import command_settings
from calculators.inputs.model import resolve_model
from calculators.parallel.step import step_communication
from calculators.validate import finite_float

COMMAND = "parallel"
#: Microseconds per second: ``--latency-us`` feeds the engine's ``latency_s``.
US_PER_S = 1e6


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the step; returns (JSON-ready dict, text)."""
    settings = command_settings(args, COMMAND, besides=("model", "latency_us"))
    latency = None if args.latency_us is None else finite_float("latency_us", args.latency_us, minimum=0.0, maximum=1e6)
    result = step_communication(resolve_model(args.model), latency_s=None if latency is None else latency / US_PER_S,
                                **settings)
    return result.to_dict(), result.to_text()
