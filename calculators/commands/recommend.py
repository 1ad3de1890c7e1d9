"""GPU configurations that fit a workload, with headroom, speed and cost, best first

``mlhw recommend --model llama-3-8b --job serve --context 8192 --batch 16 [--engine vllm] [--json]``
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators.catalog.custom_gpu import resolve_gpu_flag
from calculators.catalog.engines import engine_ids
from calculators.catalog.models import resolve_model
from calculators.commands import engine_option
from calculators.memory.inference import KV_DTYPES
from calculators.performance.training_time import MAX_TOKENS
from calculators.recommend import DEFAULT_CONTEXT, DEFAULT_METHOD, JOBS, OBJECTIVES, Workload, recommend
from calculators.validate import token_count

COMMAND = "recommend"
ENGINES = (Workload,)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mlhw recommend``."""
    def option(flag: str, help: str, **options: Any) -> None:
        engine_option(parser, flag, Workload, help=help, **options)

    parser.add_argument("--model", required=True, help="catalog id or path to config.json")
    option("--job", f"one of {', '.join(JOBS)}")
    option("--method", "serve: weights format (bf16, fp8, int8, int4, nf4, ...); finetune/train: full, lora, qlora; "
                       f"auto: {' / '.join(DEFAULT_METHOD.values())}")
    option("--kv-cache", f"serve: KV-cache dtype, one of {', '.join(KV_DTYPES)}")
    option("--engine", f"serve: inference engine whose fitted efficiencies and fixed costs time the decode step, as "
                       f"in 'mlhw speed': one of {', '.join(engine_ids())}")
    option("--context", "serve: tokens cached per sequence; finetune/train: sequence length; "
                          f"auto: {' / '.join(map(str, DEFAULT_CONTEXT.values()))}")
    option("--batch", "serve: concurrent sequences; training: micro-batch per GPU")
    option("--tokens", "finetune/train only: training tokens: 1e9, 500M, 2T ... (a serving job does not use it)")
    option("--objective", f"what to rank by, one of {', '.join(OBJECTIVES)} (cost: USD per million tokens or per run)")
    option("--gpu", "consider only this GPU (repeat for several): catalog id, "
                    "custom:memory_gb=N,bandwidth_gbps=N,bf16_tflops=N,... or mac:GB; default: the catalog",
           name="gpus", action="append")
    option("--target-tokens-per-s", "required throughput, tokens/s; auto: no target")
    option("--budget-usd-per-hour", "most the configuration may cost per hour; auto: no budget")
    option("--mfu", "training MFU in (0, 1]; auto: per GPU class")
    option("--no-grad-checkpointing", "training without recomputation", name="grad_checkpointing",
           action="store_false")
    option("--include-apple", "also list Apple silicon (one device)", action="store_true")


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the recommendation; returns (JSON-ready dict, text)."""
    result = recommend(Workload(
        model=resolve_model(args.model), job=args.job, method=args.method, kv_cache=args.kv_cache, engine=args.engine,
        context=args.context, batch=args.batch,
        tokens=token_count("tokens", args.tokens, maximum=MAX_TOKENS), target_tokens_per_s=args.target_tokens_per_s,
        budget_usd_per_hour=args.budget_usd_per_hour, mfu=args.mfu,
        grad_checkpointing=args.grad_checkpointing, include_apple=args.include_apple,
        objective=args.objective,
        gpus=None if not args.gpus else tuple(resolve_gpu_flag(text) for text in args.gpus)))
    return result.to_dict(), result.to_text()
