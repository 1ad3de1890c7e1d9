"""wall-clock days, GPU-hours and tokens/s of training (6·N·D, or 4·N·D for LoRA, at a utilisation fitted on published runs, with tensor, pipeline and data-parallel communication)

``mlhw train-time --model llama-3-8b --gpu h100-sxm --tokens 15e12 --gpus 1024 [--tp 4 --pp 2] [--fp8] [--json]``
"""

from __future__ import annotations

import argparse
from typing import Any

from calculators.catalog.custom_gpu import resolve_gpu_flag
from calculators.catalog.models import resolve_model
from calculators.errors import InputError
from calculators.memory.training_inputs import METHODS, PRECISIONS
from calculators.performance.scaling import CROSS_NODE_NIC, NICS_PER_NODE
from calculators.performance.training_time import MAX_TOKENS, training_time

COMMAND = "train-time"
#: Engine arguments whose flag is spelled differently.
FLAGS = {"tensor_parallel": "--tp", "pipeline_parallel": "--pp"}


def parse_tokens(text: str) -> int:
    """Accept ``2000000000000``, ``2e12`` or ``2T``/``500B``/``10M``."""
    value = str(text).strip()
    scale = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}.get(value[-1:].lower(), 1.0)
    number = value[:-1] if scale != 1.0 else value
    try:
        tokens = float(number) * scale
    except ValueError:
        raise InputError("tokens", text, f"a token count from 1 to {MAX_TOKENS:g} (e.g. 2e12 or 2T)") from None
    if not (1 <= tokens <= MAX_TOKENS) or tokens != tokens:
        raise InputError("tokens", text, f"a token count from 1 to {MAX_TOKENS:g} (e.g. 2e12 or 2T)")
    return int(round(tokens))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mlhw train-time``."""
    parser.add_argument("--model", required=True, help="catalog id or path to config.json")
    parser.add_argument("--gpu", required=True,
                        help="GPU id (see 'mlhw gpus'), custom:memory_gb=N,bandwidth_gbps=N,bf16_tflops=N,... or mac:GB")
    parser.add_argument("--tokens", required=True, help="training tokens: 2e12, 2T, 500B ...")
    parser.add_argument("--gpus", default="1", help="GPUs in the job")
    parser.add_argument("--mfu", default=None,
                        help="utilisation of the executed FLOPs in (0, 1]; default: fitted on published runs")
    parser.add_argument("--precision", default="bf16-mixed", help=f"one of {', '.join(PRECISIONS)}")
    parser.add_argument("--grad-checkpointing", action="store_true", help="full activation recomputation")
    parser.add_argument("--seq", default="2048", help="sequence length in tokens")
    parser.add_argument("--method", default="full", help=f"one of {', '.join(METHODS)} (lora/qlora: 4·N, frozen base)")
    parser.add_argument("--lora-rank", default="16", help="LoRA rank (lora/qlora only)")
    parser.add_argument("--batch", default="1", help="micro-batch per GPU, sequences")
    parser.add_argument("--grad-accumulation", default="1", help="micro-batches per optimizer step")
    parser.add_argument("--zero", default="0", help="ZeRO stage 0-3 of the data-parallel communication")
    parser.add_argument("--interconnect", default="auto",
                        help="link id (see the interconnect catalog) or 'auto' for the GPU's own")
    parser.add_argument("--tp", default="1", help="tensor-parallel GPUs per model replica")
    parser.add_argument("--pp", default="1", help="pipeline-parallel stages per model replica")
    parser.add_argument("--virtual-stages", default="1", help="interleaved pipeline chunks per GPU")
    parser.add_argument("--fp8", action="store_true", help="matmuls in FP8 (Transformer Engine)")
    parser.add_argument("--goodput", default=None,
                        help="steady-state / whole-run time in (0, 1]; default: fitted on published GPU-hours; "
                             "1 for a steady-state time")
    parser.add_argument("--nic", default=CROSS_NODE_NIC, help="network link between nodes (interconnect id)")
    parser.add_argument("--nics-per-node", default=str(NICS_PER_NODE), help="NICs per node")


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """Compute the training-time estimate; returns (JSON-ready dict, text)."""
    result = training_time(
        resolve_model(args.model), resolve_gpu_flag(args.gpu), tokens=parse_tokens(args.tokens), gpus=args.gpus, mfu=args.mfu,
        precision=args.precision, grad_checkpointing=args.grad_checkpointing, seq=args.seq, method=args.method,
        lora_rank=args.lora_rank, batch=args.batch, grad_accumulation=args.grad_accumulation, zero=args.zero,
        interconnect=args.interconnect, tensor_parallel=args.tp, pipeline_parallel=args.pp,
        virtual_stages=args.virtual_stages, fp8=args.fp8, goodput=args.goodput, nic=args.nic,
        nics_per_node=args.nics_per_node)
    return result.to_dict(), result.to_text()
