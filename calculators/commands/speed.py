"""decode tokens/s, time to first token and generation throughput (roofline estimate)

``mlhw speed --model llama-3-8b --gpu h100-sxm --batch 8 --context 4096 [--json]``
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators.catalog.custom_gpu import resolve_gpu_flag
from calculators.catalog.models import resolve_model
from calculators.memory.inference import KV_DTYPES, WEIGHT_DTYPES
from calculators.performance.inference_speed import (
    DEFAULT_BANDWIDTH_EFFICIENCY,
    DEFAULT_COMPUTE_EFFICIENCY,
    inference_speed,
)

COMMAND = "speed"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mlhw speed`` (numbers stay strings; the calculator checks them)."""
    parser.add_argument("--model", required=True, help="catalog id or path to config.json")
    parser.add_argument("--gpu", required=True,
                        help="GPU id (see 'mlhw gpus'), custom:memory_gb=N,bandwidth_gbps=N,bf16_tflops=N,... or mac:GB")
    parser.add_argument("--weights", default="bf16", help=f"one of {', '.join(WEIGHT_DTYPES)}")
    parser.add_argument("--kv-cache", default="bf16", help=f"one of {', '.join(KV_DTYPES)}")
    parser.add_argument("--batch", default="1", help="concurrent sequences")
    parser.add_argument("--context", default="4096", help="prompt tokens per sequence")
    parser.add_argument("--new-tokens", default="256", help="generated tokens per sequence")
    parser.add_argument("--gpus", default="1", help="GPUs in tensor parallel")
    parser.add_argument("--bandwidth-efficiency", default=str(DEFAULT_BANDWIDTH_EFFICIENCY),
                        help="fraction of peak memory bandwidth achieved (assumed)")
    parser.add_argument("--compute-efficiency", default=str(DEFAULT_COMPUTE_EFFICIENCY),
                        help="fraction of the dense tensor rate achieved (assumed)")
    parser.add_argument("--interconnect", default="auto",
                        help="tensor-parallel link id (see the interconnect catalog) or 'auto' for the GPU's own")
    parser.add_argument("--collective-efficiency", default=None,
                        help="fraction of the link's per-direction bandwidth the all-reduces reach "
                             "(default: derived per link kind from published nccl-tests runs)")


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the speed estimate; returns (JSON-ready dict, text)."""
    result = inference_speed(
        resolve_model(args.model), resolve_gpu_flag(args.gpu), weights=args.weights, kv_cache=args.kv_cache, batch=args.batch,
        context=args.context, new_tokens=args.new_tokens, gpus=args.gpus,
        bandwidth_efficiency=args.bandwidth_efficiency, compute_efficiency=args.compute_efficiency,
        interconnect=args.interconnect, collective_efficiency=args.collective_efficiency)
    return result.to_dict(), result.to_text()
