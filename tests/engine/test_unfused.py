"""The kernels llama.cpp and eager transformers run between their matmuls (calculators.performance.unfused).

Expected values are hand arithmetic from the engines' code (calculators/catalog/engine_kernels.py) and the
GeForce whitepapers, not from the code under test.
"""

from __future__ import annotations

from calculators.catalog.engines import engine_at_version, get_engine
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.performance.inference_speed import SpeedSetup, prefill
from calculators.performance.unfused import (
    activation_traffic_bytes,
    dequantised_bytes,
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
