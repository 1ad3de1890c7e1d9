"""throughput and per-user latency of a continuously batched server at a concurrency or a request rate (estimate)

``mlhw serve-load --model llama-3-8b --gpu h100-sxm --engine vllm --concurrency 32 [--json]``
``mlhw serve-load --model llama-3-8b --gpu h100-sxm --engine vllm --request-rate 10 [--json]``

Its options are the fields of the ``serving-load`` calculator (:mod:`calculators.commands`); one of
the two loads is given, the other stays ``None`` (not ``auto``: the engine does not choose it).
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators.commands import command_settings
from calculators.inputs.gpu import resolve_gpu
from calculators.inputs.model import resolve_model
from calculators.performance.serving_load import serving_load

COMMAND = "serve-load"


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the serving-load estimate; returns (JSON-ready dict, text)."""
    settings = command_settings(args, COMMAND)
    result = serving_load(resolve_model(args.model), resolve_gpu(args.gpu, field="--gpu"), **settings)
    return result.to_dict(), result.to_text()
