"""throughput and per-user latency of a continuously batched server at a concurrency or a request rate (estimate)

``mlhw serve-load --model llama-3-8b --gpu h100-sxm --engine vllm --concurrency 32 [--json]``
``mlhw serve-load --model llama-3-8b --gpu h100-sxm --engine vllm --request-rate 10 [--json]``
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators.catalog.custom_gpu import resolve_gpu_flag
from calculators.catalog.models import resolve_model
from calculators.commands import engine_option
from calculators.commands.speed import add_server_options
from calculators.performance.serving_load import PREFILL_MODES, serving_load

COMMAND = "serve-load"
ENGINES = (serving_load,)
#: Engine arguments whose flag is spelled differently.
FLAGS = {"request_rate_per_s": "--request-rate"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mlhw serve-load`` (numbers stay strings; the calculator checks them)."""
    parser.add_argument("--model", required=True, help="catalog id or path to config.json")
    parser.add_argument("--gpu", required=True,
                        help="GPU id (see 'mlhw gpus'), custom:memory_gb=N,bandwidth_gbps=N,bf16_tflops=N,... or mac:GB")
    # One of the two loads is given; the other stays None (not "auto": the engine does not choose it).
    load = parser.add_mutually_exclusive_group(required=True)
    load.add_argument("--concurrency", default=None,
                      help="requests in flight, each user sending the next request when its answer ends (closed loop)")
    load.add_argument("--request-rate", dest="request_rate_per_s", default=None,
                      help="requests per second arriving at random (Poisson, open loop)")
    engine_option(parser, "--prompt-tokens", serving_load, help="prompt tokens per request")
    engine_option(parser, "--output-tokens", serving_load, help="generated tokens per request, at least 2")
    engine_option(parser, "--prefill", serving_load,
                  help=f"one of {', '.join(PREFILL_MODES)}: an arriving prompt's prefill as its own pass added "
                       "to the step, or inside the decode pass with the weights read once")
    add_server_options(parser, serving_load)


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the serving-load estimate; returns (JSON-ready dict, text)."""
    result = serving_load(
        resolve_model(args.model), resolve_gpu_flag(args.gpu), prompt_tokens=args.prompt_tokens,
        output_tokens=args.output_tokens, concurrency=args.concurrency, request_rate_per_s=args.request_rate_per_s,
        weights=args.weights, kv_cache=args.kv_cache, gpus=args.gpus, engine=args.engine,
        bandwidth_efficiency=args.bandwidth_efficiency, compute_efficiency=args.compute_efficiency,
        interconnect=args.interconnect, collective_efficiency=args.collective_efficiency, prefill=args.prefill)
    return result.to_dict(), result.to_text()
