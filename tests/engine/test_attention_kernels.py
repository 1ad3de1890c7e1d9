"""The attention products of a training step timed at their fused kernel's own efficiency.

Expected values: the kernel FLOPs are flash-attention's benchmark count (``benchmarks/benchmark_flash_attention.py``:
forward ``4 x seq^2 x heads x head_dim``, halved when causal, backward 2.5 x forward); the efficiencies are read from
the FlashAttention-2 and FlashAttention-3 papers (calculators.catalog.attention_kernels); the H100 SXM's dense BF16
rate, 989.4 TFLOP/s, is NVIDIA's datasheet figure.
"""

from __future__ import annotations

import pytest

from calculators.catalog import attention_kernels as ak
from calculators.catalog.models import get_model
from calculators.errors import InputError, UnknownNameError
from calculators.performance.training_time import training_time

H100_BF16 = 989.4e12


def test_causal_kernel_flops_are_seven_twelfths_of_the_counted_attention() -> None:
    seq, heads, head_dim = 4096, 32, 128
    forward = 4 * seq * seq * heads * head_dim / 2  # causal: the masked half skipped
    kernel = forward + 2.5 * forward  # the backward recomputes the scores
    counted = 12 * heads * head_dim * seq * seq  # 12 x q_dim x seq per token, over seq tokens
    assert ak.CAUSAL_KERNEL_FLOPS_SHARE == pytest.approx(kernel / counted)


def test_efficiencies_follow_the_papers_and_a_missing_architecture_gets_the_lowest() -> None:
    assert ak.attention_efficiency("flash-attention-2", "9.0") == 0.35  # FA3 paper: "only 35% utilization" (H100)
    assert ak.attention_efficiency("flash-attention-2", "8.0") > ak.attention_efficiency("triton-flash", "8.0")
    assert ak.attention_efficiency("flash-attention-2", "10.0") == 0.35  # no figure (Blackwell): the lowest
    assert ak.attention_efficiency("flash-attention-2", None) == 0.35  # a custom GPU stating none
    assert ak.get_attention_kernel("auto", framework="megatron").id == "cudnn-fused"
    assert ak.get_attention_kernel("auto").id == "flash-attention-2"
    with pytest.raises(UnknownNameError, match="attention_kernel"):
        ak.get_attention_kernel("xformers")


def test_a_slower_kernel_adds_exactly_its_attention_time() -> None:
    # Llama 3.1 8B on one H100, one 8,192-token sequence, utilisation given: only the attention term differs.
    spec = get_model("llama-3.1-8b")
    run = {"tokens": 8192, "seq": 8192, "batch": 1, "goodput": 1, "mfu": 0.5, "check_memory": False}
    fa2 = training_time(spec, "h100-sxm", **run)
    triton = training_time(spec, "h100-sxm", attention_kernel="triton-flash", **run)
    kernel_flops = 12 * 32 * 4096 * 8192 * 8192 * 7 / 12  # layers 32, q_dim 4096
    assert triton.time_s - fa2.time_s == pytest.approx(kernel_flops / H100_BF16 * (1 / 0.18 - 1 / 0.35), rel=1e-9)
    assert any("FlashAttention-2" in line and "0.35" in line for line in fa2.assumptions)


def test_eager_attention_has_no_kernel_term_and_an_unknown_kernel_is_refused() -> None:
    spec = get_model("llama-3.1-8b")
    run = {"tokens": 2048, "seq": 2048, "goodput": 1, "mfu": 0.5, "check_memory": False, "attention": "eager"}
    eager = training_time(spec, "a100-80gb-sxm", **run)
    assert not any("attention products in" in line for line in eager.assumptions)
    with pytest.raises((InputError, UnknownNameError), match="attention_kernel"):
        training_time(spec, "a100-80gb-sxm", attention_kernel="xformers", **run)
