"""decode tokens/s, time to first token and generation throughput (roofline estimate)

``mlhw speed --model llama-3-8b --gpu h100-sxm --engine vllm --batch 8 --context 4096 [--json]``

Its options are the fields of the ``inference-speed`` calculator (:mod:`calculators.commands`).
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators.commands import command_settings
from calculators.inputs.gpu import resolve_gpu
from calculators.inputs.model import resolve_model
from calculators.performance.inference_speed import inference_speed

COMMAND = "speed"


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the speed estimate; returns (JSON-ready dict, text)."""
    settings = command_settings(args, COMMAND)
    result = inference_speed(resolve_model(args.model), resolve_gpu(args.gpu, field="--gpu"), **settings)
    return result.to_dict(), result.to_text()
