"""wall-clock days, GPU-hours and tokens/s of training (6·N·D, or 4·N·D for LoRA, at a utilisation fitted on published runs, with tensor, pipeline and data-parallel communication)

``mlhw train-time --model llama-3-8b --gpu h100-sxm --tokens 15e12 --gpus 1024 [--tp 4 --pp 2] [--fp8] [--json]``
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators.catalog.custom_gpu import resolve_gpu_flag
from calculators.catalog.models import resolve_model
from calculators.catalog.training_frameworks import training_framework_ids
from calculators.commands import engine_option
from calculators.memory.qlora_kernels import QLORA_WEIGHTS
from calculators.memory.training_inputs import ATTENTIONS, METHODS, PRECISIONS
from calculators.performance.training_time import MAX_TOKENS, training_time
from calculators.validate import token_count

COMMAND = "train-time"
ENGINES = (training_time,)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mlhw train-time``."""
    def option(flag: str, help: str, **options: Any) -> None:
        engine_option(parser, flag, training_time, help=help, **options)

    parser.add_argument("--model", required=True, help="catalog id or path to config.json")
    parser.add_argument("--gpu", required=True,
                        help="GPU id (see 'mlhw gpus'), custom:memory_gb=N,bandwidth_gbps=N,bf16_tflops=N,... or mac:GB")
    parser.add_argument("--tokens", required=True, help="training tokens: 2e12, 2T, 500B, 10M, 5k ...")
    option("--gpus", "GPUs in the job")
    option("--mfu", "utilisation of the executed FLOPs in (0, 1]; auto: fitted on published runs")
    option("--precision", f"one of {', '.join(PRECISIONS)}")
    option("--grad-checkpointing", "full activation recomputation", action="store_true")
    option("--seq", "sequence length in tokens")
    option("--method", f"one of {', '.join(METHODS)} (lora/qlora: 4·N, frozen base)")
    option("--lora-rank", "LoRA rank (lora/qlora only)")
    option("--batch", "micro-batch per GPU, sequences")
    option("--grad-accumulation", "micro-batches per optimizer step per replica; by default one, so the global batch "
                                  "is GPUs / (tp x pp) x batch x seq tokens, stated in the output")
    option("--global-batch-tokens", "tokens per optimizer step over the job (4M, 16M ...): sets the accumulation, "
                                    "so each step's gradient communication is amortised as in pre-training (Llama 2: "
                                    "4M; Llama 3: 4M-16M); auto: the one above")
    option("--zero", "ZeRO stage 0-3 of the data-parallel communication")
    option("--interconnect", "link id (see the interconnect catalog) or 'auto' for the GPU's own")
    option("--tp", "tensor-parallel GPUs per model replica", name="tensor_parallel")
    option("--pp", "pipeline-parallel stages per model replica", name="pipeline_parallel")
    option("--virtual-stages", "interleaved pipeline chunks per GPU")
    option("--fp8", "matmuls in FP8 (Transformer Engine)", action="store_true")
    option("--goodput", "steady-state / whole-run time in (0, 1]; auto: fitted on published GPU-hours; "
                        "1 for a steady-state time")
    option("--nic", "network link between nodes (interconnect id)")
    option("--nics-per-node", "NICs per node")
    option("--framework", f"training framework: {', '.join(training_framework_ids())} (megatron: Megatron-Core + "
                          "Transformer Engine, as NeMo and Megatron-Bridge; pytorch: FSDP-family frameworks)")
    option("--qlora-weights", f"QLoRA base format: {', '.join(QLORA_WEIGHTS)} (nf4: bitsandbytes; gptq-int4-g128: a "
                              "GPTQ checkpoint through AutoGPTQ, which dequantises in PyTorch operations and keeps "
                              "the 16-bit weights for the backward)", choices=QLORA_WEIGHTS)
    option("--attention", f"attention kernel: {', '.join(ATTENTIONS)} (sdpa and flash: a fused kernel; eager: the "
                          "score matrix written and read, as transformers without FlashAttention)", choices=ATTENTIONS)


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the training-time estimate; returns (JSON-ready dict, text)."""
    tokens = token_count("tokens", args.tokens, maximum=MAX_TOKENS)
    result = training_time(
        resolve_model(args.model), resolve_gpu_flag(args.gpu), tokens=tokens, gpus=args.gpus, mfu=args.mfu,
        precision=args.precision, grad_checkpointing=args.grad_checkpointing, seq=args.seq, method=args.method,
        lora_rank=args.lora_rank, batch=args.batch, grad_accumulation=args.grad_accumulation,
        global_batch_tokens=None if args.global_batch_tokens is None
        else token_count("global_batch_tokens", args.global_batch_tokens, maximum=MAX_TOKENS), zero=args.zero,
        interconnect=args.interconnect, tensor_parallel=args.tensor_parallel, pipeline_parallel=args.pipeline_parallel,
        virtual_stages=args.virtual_stages, fp8=args.fp8, goodput=args.goodput, nic=args.nic,
        nics_per_node=args.nics_per_node, framework=args.framework, attention=args.attention,
        qlora_weights=args.qlora_weights)
    return result.to_dict(), result.to_text()
