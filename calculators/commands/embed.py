"""memory of an encoder forward for embedding or reranking, with the fit verdict on a GPU

``mlhw embed --model bge-m3 --gpu l4 --batch 32 --seq 512 [--json]``

Its options are the fields of the ``embedding-memory`` calculator (:mod:`calculators.commands`).
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators.inputs.gpu import resolve_gpu
from calculators.catalog.encoder_models import resolve_encoder
from calculators.commands import command_settings
from calculators.fit_encoder import fit_encoder

COMMAND = "embed"


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the encoder's memory and its fit; returns (JSON-ready dict, text)."""
    result = fit_encoder(resolve_encoder(args.model), resolve_gpu(args.gpu, field="--gpu"), **command_settings(args, COMMAND))
    return result.to_dict(), result.to_text()
