"""wall-clock days, GPU-hours and tokens/s of training (6·N·D, or 4·N·D for LoRA, at a utilisation fitted on published runs, with tensor, pipeline and data-parallel communication)

``mlhw train-time --model llama-3-8b --gpu h100-sxm --tokens 15e12 --gpus 1024 [--tp 4 --pp 2] [--fp8] [--json]``

Its options are the fields of the ``training-time`` calculator (:mod:`calculators.commands`).
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators.commands import command_settings
from calculators.inputs.gpu import resolve_gpu
from calculators.inputs.model import resolve_model
from calculators.performance.training_time import MAX_TOKENS, training_time
from calculators.validate import token_count

COMMAND = "train-time"


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the training-time estimate; returns (JSON-ready dict, text)."""
    settings = command_settings(args, COMMAND)
    # Token counts are read as the form reads them: 2T, 500B, 1e12.
    settings["tokens"] = token_count("tokens", args.tokens, maximum=MAX_TOKENS)
    if args.global_batch_tokens is not None:
        settings["global_batch_tokens"] = token_count("global_batch_tokens", args.global_batch_tokens,
                                                      maximum=MAX_TOKENS)
    result = training_time(resolve_model(args.model), resolve_gpu(args.gpu, field="--gpu"), **settings)
    return result.to_dict(), result.to_text()
