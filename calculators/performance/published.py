"""Published measurements the speed and training-time calculators are checked against.

Every record is a figure quoted from a named document, with that document's address and
the date it was read; nothing here is computed. The "Inference speed" and "Training
time" pages put our estimate next to each figure with the error.

>>> len(DECODE_THROUGHPUT) >= 8 and all(r.source is TRT_LLM for r in DECODE_THROUGHPUT)
True
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.catalog.sources import Source

READ_ON = "2026-11-21"

TRT_LLM = Source(
    "NVIDIA TensorRT-LLM, docs/source/performance.md: 'Peak Throughput' tables (v0.6.1, static batches, "
    "gptSessionBenchmark) and 'Low Latency' first-token tables (v0.5); 'LLaMA 7B/70B' are Llama 2 7B/70B",
    "https://github.com/NVIDIA/TensorRT-LLM/blob/138f96d45f90b9667426f7c47297d8c06bafac73/docs/source/performance.md",
    READ_ON, kind="measured")
NEMO = Source(
    "NVIDIA NeMo, docs/source/performance/performance_summary.md: pre-training on DGX-H100, FP8, NeMo 24.07",
    "https://github.com/NVIDIA/NeMo/blob/070a0bb168d405d653b9734c0017cf5078e77c0d/docs/source/performance/"
    "performance_summary.md", READ_ON, kind="measured")
LLAMA2_PAPER = Source(
    "Touvron et al. 2023, Llama 2: Open Foundation and Fine-Tuned Chat Models (arXiv:2307.09288), Table 1 "
    "(2.0T tokens, 4k context) and Table 2 (GPU hours on A100-80GB)", "https://arxiv.org/abs/2307.09288",
    "2023-07-19", kind="measured")
LLAMA3_CARD = Source(
    "Meta, Llama 3 model card (MODEL_CARD.md): 15T+ pre-training tokens, 8k context, GPU hours on H100-80GB",
    "https://github.com/meta-llama/llama3/blob/13e795f906b6b46c585f558854e2177f74e49525/MODEL_CARD.md",
    "2024-04-18", kind="measured")


@dataclass(frozen=True)
class DecodeThroughput:
    """A measured offline generation throughput: output tokens/s per GPU of a static batch."""

    model_id: str
    gpu_id: str
    weights: str
    kv_cache: str
    tensor_parallel: int
    batch: int
    input_tokens: int
    output_tokens: int
    output_tokens_per_s_per_gpu: float
    source: Source = TRT_LLM


@dataclass(frozen=True)
class FirstTokenLatency:
    """A measured time to first token at batch 1, seconds."""

    model_id: str
    gpu_id: str
    weights: str
    tensor_parallel: int
    input_tokens: int
    latency_s: float
    source: Source = TRT_LLM


@dataclass(frozen=True)
class TrainingThroughput:
    """A measured training throughput with the model FLOP rate its publisher computed from it."""

    model_id: str
    gpu_id: str
    seq: int
    tokens_per_s_per_gpu: float
    model_flop_per_s_per_gpu: float
    source: Source = NEMO


@dataclass(frozen=True)
class TrainingRun:
    """A published pre-training run: tokens, sequence length and GPU-hours."""

    model_id: str
    gpu_id: str
    tokens: int
    seq: int
    gpu_hours: float
    source: Source
    note: str = ""


# H100 rows are FP8 weights and FP8 KV cache (--enable_fp8 --fp8_kv_cache); A100 rows FP16.
DECODE_THROUGHPUT: tuple[DecodeThroughput, ...] = (
    DecodeThroughput("llama-2-7b", "h100-sxm", "fp8", "fp8", 1, 768, 128, 128, 19694),
    DecodeThroughput("llama-2-7b", "h100-sxm", "fp8", "fp8", 1, 112, 128, 2048, 6818),
    DecodeThroughput("llama-2-7b", "h100-sxm", "fp8", "fp8", 1, 80, 2048, 128, 2244),
    DecodeThroughput("llama-2-7b", "h100-sxm", "fp8", "fp8", 1, 48, 2048, 2048, 2740),
    DecodeThroughput("llama-2-70b", "h100-sxm", "fp8", "fp8", 2, 1024, 128, 128, 2657),
    DecodeThroughput("llama-2-70b", "h100-sxm", "fp8", "fp8", 2, 64, 2048, 2048, 547),
    DecodeThroughput("llama-2-7b", "a100-80gb-sxm", "fp16", "fp16", 1, 384, 128, 128, 5586),
    DecodeThroughput("llama-2-7b", "a100-80gb-sxm", "fp16", "fp16", 1, 60, 128, 2048, 1928),
    DecodeThroughput("llama-2-7b", "a100-80gb-sxm", "fp16", "fp16", 1, 52, 2048, 128, 591),
)

FIRST_TOKEN_LATENCY: tuple[FirstTokenLatency, ...] = (
    FirstTokenLatency("llama-2-7b", "h100-sxm", "fp8", 1, 128, 0.007),
    FirstTokenLatency("llama-2-7b", "h100-sxm", "fp8", 1, 2048, 0.036),
    FirstTokenLatency("llama-2-7b", "a100-80gb-sxm", "fp16", 1, 128, 0.016),
    FirstTokenLatency("llama-2-7b", "a100-80gb-sxm", "fp16", 1, 2048, 0.133),
    FirstTokenLatency("llama-2-70b", "a100-80gb-sxm", "fp16", 4, 2048, 0.377),
)

TRAINING_THROUGHPUT: tuple[TrainingThroughput, ...] = (
    TrainingThroughput("llama-2-7b", "h100-sxm", 4096, 16847, 776e12),
    TrainingThroughput("llama-2-70b", "h100-sxm", 4096, 1707, 759e12),
    TrainingThroughput("llama-3-8b", "h100-sxm", 8192, 12036, 697e12),
    TrainingThroughput("llama-3-70b", "h100-sxm", 8192, 1533, 738e12),
)

TRAINING_RUNS: tuple[TrainingRun, ...] = (
    TrainingRun("llama-2-7b", "a100-80gb-sxm", 2 * 10**12, 4096, 184320, LLAMA2_PAPER),
    TrainingRun("llama-2-13b", "a100-80gb-sxm", 2 * 10**12, 4096, 368640, LLAMA2_PAPER),
    TrainingRun("llama-2-70b", "a100-80gb-sxm", 2 * 10**12, 4096, 1720320, LLAMA2_PAPER),
    TrainingRun("llama-3-8b", "h100-sxm", 15 * 10**12, 8192, 1.3e6, LLAMA3_CARD,
                note="15T+ tokens: the published count is a lower bound, so is the implied MFU"),
    TrainingRun("llama-3-70b", "h100-sxm", 15 * 10**12, 8192, 6.4e6, LLAMA3_CARD,
                note="15T+ tokens: the published count is a lower bound, so is the implied MFU"),
)
