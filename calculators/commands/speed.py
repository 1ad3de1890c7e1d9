"""decode tokens/s, time to first token and generation throughput (roofline estimate)

``mlhw speed --model llama-3-8b --gpu h100-sxm --engine vllm --batch 8 --context 4096 [--json]``
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from calculators.catalog.custom_gpu import resolve_gpu_flag
from calculators.catalog.engines import engine_ids
from calculators.catalog.models import resolve_model
from calculators.commands import engine_option
from calculators.memory.inference import KV_DTYPES, WEIGHT_DTYPES
from calculators.performance.inference_speed import inference_speed, speed_setup

COMMAND = "speed"
ENGINES = (inference_speed, speed_setup)


def add_server_options(parser: argparse.ArgumentParser, engine: Callable[..., Any]) -> None:
    """The options of a served model that ``speed`` and ``serve-load`` share, read from ``engine``'s signature."""
    engine_option(parser, "--engine", engine,
                  help=f"inference engine whose fitted efficiencies and fixed costs to use: one of "
                       f"{', '.join(engine_ids())}; generic: 0.8 of bandwidth, 0.6 of the tensor rate, no fixed costs")
    engine_option(parser, "--weights", engine,
                  help=f"weight format: one of {', '.join(WEIGHT_DTYPES)}, or exl2-<bits> from 2 to 8")
    engine_option(parser, "--kv-cache", engine, help=f"one of {', '.join(KV_DTYPES)}")
    engine_option(parser, "--gpus", engine, help="GPUs in tensor parallel")
    engine_option(parser, "--bandwidth-efficiency", engine,
                  help="fraction of peak memory bandwidth achieved; auto: the engine's fitted value")
    engine_option(parser, "--compute-efficiency", engine,
                  help="fraction of the dense tensor rate achieved; auto: the engine's fitted value")
    engine_option(parser, "--interconnect", engine,
                  help="tensor-parallel link id (see the interconnect catalog) or 'auto' for the GPU's own")
    engine_option(parser, "--collective-efficiency", engine,
                  help="fraction of the link's per-direction bandwidth the all-reduces reach; "
                       "auto: derived per link kind from published nccl-tests runs")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mlhw speed`` (numbers stay strings; the calculator checks them)."""
    parser.add_argument("--model", required=True, help="catalog id or path to config.json")
    parser.add_argument("--gpu", required=True,
                        help="GPU id (see 'mlhw gpus'), custom:memory_gb=N,bandwidth_gbps=N,bf16_tflops=N,... or mac:GB")
    engine_option(parser, "--batch", speed_setup, help="concurrent sequences")
    engine_option(parser, "--context", speed_setup, help="prompt tokens per sequence")
    engine_option(parser, "--new-tokens", inference_speed, help="generated tokens per sequence")
    add_server_options(parser, speed_setup)


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the speed estimate; returns (JSON-ready dict, text)."""
    result = inference_speed(
        resolve_model(args.model), resolve_gpu_flag(args.gpu), engine=args.engine, weights=args.weights,
        kv_cache=args.kv_cache, batch=args.batch, context=args.context, new_tokens=args.new_tokens, gpus=args.gpus,
        bandwidth_efficiency=args.bandwidth_efficiency, compute_efficiency=args.compute_efficiency,
        interconnect=args.interconnect, collective_efficiency=args.collective_efficiency)
    return result.to_dict(), result.to_text()
