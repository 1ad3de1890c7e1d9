"""The kernels llama.cpp and eager transformers run between their matmuls (calculators.performance.unfused).

Expected values are hand arithmetic from the engines' code (calculators/catalog/engine_kernels.py) and the
GeForce whitepapers, not from the code under test.
"""

from __future__ import annotations

import pytest

from calculators.catalog.engines import engine_at_version, get_engine
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.performance.inference_speed import SpeedSetup, prefill
from calculators.performance.unfused import (
    activation_traffic_bytes,
    dequantised_bytes,
    expert_gemm_rate_flop_per_s,
    gemm_rate_flop_per_s,
    score_elements,
)
from calculators.dtypes import DType
from calculators.memory.weight_formats import weight_format


def test_fp16_accumulate_rate_is_the_whitepapers() -> None:
    # GA102 whitepaper: RTX 3090 FP16 tensor with FP16 accumulate 142 dense; Ada: RTX 4090 330.3 dense.
    llama = SpeedSetup.of(engine="llama.cpp", weights="fp16")
    assert gemm_rate_flop_per_s(get_gpu("rtx-3090"), dtype=DType.BF16, setup=llama, tokens=512) == 142e12
    assert gemm_rate_flop_per_s(get_gpu("rtx-4090"), dtype=DType.BF16, setup=llama, tokens=512) == 330.3e12
    # A data-centre GPU has one rate; an engine accumulating in FP32 never gets the faster one.
    assert gemm_rate_flop_per_s(get_gpu("a100-80gb-sxm"), dtype=DType.BF16, setup=llama, tokens=512) == 312e12
    vllm = SpeedSetup.of(engine="vllm", weights="fp16")
    assert gemm_rate_flop_per_s(get_gpu("rtx-4090"), dtype=DType.BF16, setup=vllm, tokens=512) == 165.2e12


def test_score_elements_count_every_key_of_each_micro_batch() -> None:
    # Llama 3 8B: 32 layers x 32 heads. pp4096 in 512-token micro-batches: chunk i (1..8) attends 512 i keys.
    spec = get_model("llama-3-8b")
    chunks = sum(512 * 512 * i for i in range(1, 9))
    assert score_elements(spec, batch=1, prompt=4096, chunk=512) == 32 * 32 * chunks
    # The whole prompt at once (eager transformers): a full square per layer and head.
    assert score_elements(spec, batch=4, prompt=512) == 4 * 32 * 32 * 512 * 512


def test_activation_bytes_per_token_follow_the_graph_counts() -> None:
    # Llama 2 13B (no grouped-query attention): h = q = kv = 5120, I = 13824, 40 layers; eager:
    # 84 h + 24 q + 20 k + 10 I bytes per layer; repeat_kv returns its input when every head has its own KV head.
    spec = get_model("llama-2-13b")
    per_layer = 84 * 5120 + 24 * 5120 + 20 * 5120 + 10 * 13824
    h100 = get_gpu("h100-sxm")
    eager = SpeedSetup.of(engine="transformers", weights="bf16")
    assert activation_traffic_bytes(spec, setup=eager, gpu=h100, tokens=3) == 3 * 40 * per_layer
    # Llama 3 8B (8 KV heads for 32): repeat_kv copies K and V, 4 (q + kv) more: h = q = 4096, kv = 1024, I = 14336.
    eight = get_model("llama-3-8b")
    grouped = 84 * 4096 + 24 * 4096 + 20 * 1024 + 10 * 14336 + 4 * (4096 + 1024)
    assert activation_traffic_bytes(eight, setup=eager, gpu=h100, tokens=1) == 32 * grouped
    assert activation_traffic_bytes(spec, setup=SpeedSetup.of(engine="vllm", weights="bf16"), gpu=h100, tokens=3) == 0
    # llama.cpp: 56 h + 16 q + 20 kv + 20 I on Metal; on CUDA + 42 h + 18 q + 12 kv + 18 I (cuBLAS conversions).
    llama = SpeedSetup.of(engine="llama.cpp", weights="fp16")
    metal = 56 * 4096 + 16 * 4096 + 20 * 1024 + 20 * 14336
    cuda = metal + 42 * 4096 + 18 * 4096 + 12 * 1024 + 18 * 14336
    assert activation_traffic_bytes(eight, setup=llama, gpu=get_gpu("m3-max"), tokens=2) == 2 * 32 * metal
    assert activation_traffic_bytes(eight, setup=llama, gpu=get_gpu("rtx-3090"), tokens=2) == 2 * 32 * cuda


def test_dequantisation_only_on_cuda_before_mid_2024_above_32_tokens() -> None:
    spec, form = get_model("llama-3-8b"), weight_format("q4_0")  # q4_0: 18 bytes per 32 weights
    old = SpeedSetup.of(engine=engine_at_version("llama.cpp", "2024-05"), weights="q4_0")
    body = 32 * (4096 * (4096 + 2 * 1024 + 4096) + 3 * 4096 * 14336)  # Q, K, V, O and the MLP of 32 layers
    # 8 micro-batches, each reading q4_0 (18/32 byte per weight) and writing FP16 (2); the catalog's matmul count
    # differs from this hand count of the projections by 0.004 %
    expected = 8 * body * (18 / 32 + 2)
    moved = dequantised_bytes(spec, form=form, setup=old, gpu=get_gpu("rtx-4090"), tokens=4096)
    assert abs(moved / expected - 1) < 1e-4
    assert dequantised_bytes(spec, form=form, setup=old, gpu=get_gpu("rtx-4090"), tokens=32) == 0  # MMQ up to 32 tokens
    assert dequantised_bytes(spec, form=form, setup=old, gpu=get_gpu("m3-ultra"), tokens=4096) == 0  # Metal: no cuBLAS
    now = SpeedSetup.of(engine="llama.cpp", weights="q4_0")
    assert dequantised_bytes(spec, form=form, setup=now, gpu=get_gpu("rtx-4090"), tokens=4096) == 0


def test_flash_attention_removes_the_score_traffic() -> None:
    spec, gpu = get_model("llama-3-8b"), get_gpu("rtx-4090")
    unfused = prefill(spec, gpu, engine="llama.cpp", weights="fp16", context=4096)
    fused = prefill(spec, gpu, engine="llama.cpp-fa", weights="fp16", context=4096)
    # 24 bytes per score on CUDA (16 + 8 of conversions) over the 4090's 1,008 GB/s at llama.cpp's bandwidth efficiency
    scores_s = 24 * score_elements(spec, batch=1, prompt=4096, chunk=512) / 1008e9
    efficiency = get_engine("llama.cpp").value("bandwidth_efficiency")
    assert abs((unfused.time_s - fused.time_s) - scores_s / efficiency) < 1e-9


def test_fp8_mixture_of_experts_before_v0_10_runs_its_experts_at_the_16_bit_rate() -> None:
    # TensorRT-LLM v0.9.0's MoE grouped GEMM takes 16-bit activations only, and dispatches Hopper to its Sm80 kernels
    # (TENSORRT_LLM_MOE_GEMM_SOURCE), whose mma.sync reaches about 2/3 of Hopper's tensor peak (FlashAttention-3,
    # arXiv:2407.08608, section 2.2). H100 SXM datasheet: 989.4 TFLOPS BF16 dense, 1,978.9 FP8 dense; L40S datasheet:
    # 362.05 BF16 dense. Mixtral 8x7B: 32 layers, top-2 of 8 experts, each 3 x 4096 x 14336 weights, so
    # 2 x 32 x 2 x 3 x 4096 x 14336 FLOP per token in its routed experts.
    spec, gpu = get_model("mixtral-8x7b"), get_gpu("h100-sxm")
    old = SpeedSetup.of(engine="tensorrt-llm-0.9", weights="fp8")
    assert expert_gemm_rate_flop_per_s(gpu, dtype=DType.FP8, setup=old, tokens=2048) == pytest.approx(989.4e12 * 2 / 3)
    # On Ada the Sm80 kernels are native: the 16-bit rate.
    assert expert_gemm_rate_flop_per_s(get_gpu("l40s"), dtype=DType.FP8, setup=old, tokens=2048) == 362.05e12
    now = SpeedSetup.of(engine="tensorrt-llm", weights="fp8")
    assert expert_gemm_rate_flop_per_s(gpu, dtype=DType.FP8, setup=now, tokens=2048) is None
    # A 16-bit build on Hopper runs the same Sm80 kernels (2/3 of the 16-bit rate); on Ampere and Ada it is unchanged.
    sixteen = SpeedSetup.of(engine="tensorrt-llm-0.9", weights="bf16")
    assert expert_gemm_rate_flop_per_s(gpu, dtype=DType.BF16, setup=sixteen, tokens=2048) == pytest.approx(
        989.4e12 * 2 / 3)
    assert expert_gemm_rate_flop_per_s(get_gpu("a100-80gb-sxm"), dtype=DType.BF16, setup=sixteen, tokens=2048) is None
    # A dense FP8 model is the same in both releases.
    dense = get_model("llama-2-7b")
    assert (prefill(dense, gpu, engine="tensorrt-llm-0.9", weights="fp8", context=2048).compute_time_s
            == prefill(dense, gpu, engine="tensorrt-llm", weights="fp8", context=2048).compute_time_s)
    # The prompt's expert FLOPs take 1 / (989.4 x 2/3) - 1 / 1978.9 seconds per PFLOP longer, at the engine's efficiency.
    experts = 2048 * 2 * 32 * 2 * 3 * 4096 * 14336
    extra = experts * (1.5 / 989.4e12 - 1 / 1978.9e12) / old.compute_efficiency / 2  # two GPUs
    slow = prefill(spec, gpu, engine="tensorrt-llm-0.9", weights="fp8", context=2048, gpus=2)
    fast = prefill(spec, gpu, engine="tensorrt-llm", weights="fp8", context=2048, gpus=2)
    assert slow.compute_time_s - fast.compute_time_s == pytest.approx(extra, rel=1e-3)
