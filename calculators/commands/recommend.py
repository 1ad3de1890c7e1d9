"""GPU configurations that fit a workload, with headroom, speed and cost, best first

``mlhw recommend --model llama-3-8b --job serve --context 8192 --batch 16 [--json]``
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators.catalog.custom_gpu import resolve_gpu_flag
from calculators.catalog.models import resolve_model
from calculators.commands.train_time import parse_tokens
from calculators.memory.inference import KV_DTYPES
from calculators.recommend import DEFAULT_KV_CACHE, DEFAULT_TOKENS, JOBS, OBJECTIVES, Workload, recommend

COMMAND = "recommend"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mlhw recommend``."""
    parser.add_argument("--model", required=True, help="catalog id or path to config.json")
    parser.add_argument("--job", default="serve", help=f"one of {', '.join(JOBS)}")
    parser.add_argument("--method", default=None,
                        help="serve: weights format (bf16, fp8, int8, int4, nf4, ...); finetune/train: full, lora, "
                             "qlora (default: bf16 / lora / full)")
    parser.add_argument("--kv-cache", default=DEFAULT_KV_CACHE,
                        help=f"serve: KV-cache dtype, one of {', '.join(KV_DTYPES)} (default {DEFAULT_KV_CACHE})")
    parser.add_argument("--context", default=None,
                        help="serve: tokens cached per sequence; finetune/train: sequence length")
    parser.add_argument("--batch", default="1", help="serve: concurrent sequences; training: micro-batch per GPU")
    parser.add_argument("--tokens", default=str(DEFAULT_TOKENS),
                        help="finetune/train only: training tokens: 1e9, 500M, 2T ... (a serving job does not use it)")
    parser.add_argument("--objective", default="cost",
                        help=f"what to rank by, one of {', '.join(OBJECTIVES)} (cost: USD per million tokens or per run)")
    parser.add_argument("--gpu", action="append", default=None, dest="gpu",
                        help="consider only this GPU (repeat for several): catalog id, "
                             "custom:memory_gb=N,bandwidth_gbps=N,bf16_tflops=N,... or mac:GB; default: the catalog")
    parser.add_argument("--target-tokens-per-s", default=None, help="required throughput, tokens/s")
    parser.add_argument("--budget-usd-per-hour", default=None, help="most the configuration may cost per hour")
    parser.add_argument("--mfu", default=None, help="training MFU in (0, 1]; default: per GPU class")
    parser.add_argument("--no-grad-checkpointing", action="store_true", help="training without recomputation")
    parser.add_argument("--include-apple", action="store_true", help="also list Apple silicon (one device)")


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the recommendation; returns (JSON-ready dict, text)."""
    result = recommend(Workload(
        model=resolve_model(args.model), job=args.job, method=args.method, kv_cache=args.kv_cache,
        context=args.context, batch=args.batch,
        tokens=parse_tokens(args.tokens), target_tokens_per_s=args.target_tokens_per_s,
        budget_usd_per_hour=args.budget_usd_per_hour, mfu=args.mfu,
        grad_checkpointing=not args.no_grad_checkpointing, include_apple=args.include_apple,
        objective=args.objective,
        gpus=None if not args.gpu else tuple(resolve_gpu_flag(text) for text in args.gpu)))
    return result.to_dict(), result.to_text()
