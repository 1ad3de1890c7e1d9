"""GPU configurations that fit a workload, with headroom, speed and cost, best first

``mlhw recommend --model llama-3-8b --job serve --context 8192 --batch 16 [--engine vllm] [--json]``

Its options are the fields of the ``recommend`` calculator (:mod:`calculators.commands`).
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators.commands import command_settings
from calculators.inputs.gpu import resolve_gpu
from calculators.inputs.model import resolve_model
from calculators.performance.training_time import MAX_TOKENS
from calculators.recommend import Workload, recommend
from calculators.validate import token_count

COMMAND = "recommend"


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the recommendation; returns (JSON-ready dict, text)."""
    settings = command_settings(args, COMMAND, besides=("model", "tokens", "gpus"))
    result = recommend(Workload(
        model=resolve_model(args.model), tokens=token_count("tokens", args.tokens, maximum=MAX_TOKENS),
        gpus=None if not args.gpus else tuple(resolve_gpu(text, field="--gpu") for text in args.gpus), **settings))
    return result.to_dict(), result.to_text()
