"""QLoRA's dequantisation: bytes, passes, time and memory (calculators.memory.qlora_kernels and its users).

Expected values are counted from the libraries' code (the sources each kernel record cites), element
sizes being int32 4 bytes, int8 1, fp16/bf16 2 and a packed 4-bit weight half a byte.
"""

from __future__ import annotations

import pytest

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.errors import InputError
from calculators.memory.qlora_kernels import QLORA_WEIGHTS, get_qlora_kernel
from calculators.memory.training import training_memory
from calculators.memory.training_inputs import TrainingSetup
from calculators.performance.training_time import dequantisation_s, training_time

A100 = get_gpu("a100-80gb-sxm")
SPEC = get_model("llama-2-7b")


def test_autogptq_unpacking_moves_sixteen_and_a_half_bytes_per_weight() -> None:
    # QuantLinear.forward (qlinear_cuda_old.py), 4-bit path, per weight: right-shift of the packed int32
    # words (read 0.5, write an int32: 4), .to(int8) (4 + 1), bitwise_and in place (1 + 1),
    # weight - zeros (1 + 1), scales * (...) to fp16 (1 + 2).
    assert get_qlora_kernel("gptq-int4-g128").bytes_per_weight == pytest.approx(0.5 + 4 + 4 + 1 + 1 + 1 + 1 + 1 + 1 + 2)


def test_bitsandbytes_reads_the_stored_nf4_and_writes_sixteen_bits() -> None:
    # dequantize_4bit reads the 4-bit codes and the double-quantised block scales (QLoRA paper, section 3:
    # 4 + 8/64 + 32/(64 x 256) bits per weight) and writes one 16-bit value.
    stored = (4 + 8 / 64 + 32 / (64 * 256)) / 8
    assert get_qlora_kernel("nf4").bytes_per_weight == pytest.approx(stored + 2)


@pytest.mark.parametrize(("weights", "without", "with_recompute"), [("nf4", 2, 3), ("gptq-int4-g128", 1, 2)])
def test_passes_follow_what_the_backward_does(weights: str, without: int, with_recompute: int) -> None:
    # bitsandbytes' MatMul4Bit.backward dequantises again; AutoGPTQ's matmul is a plain torch.matmul whose
    # backward reads the 16-bit weight autograd saved. Recomputation repeats the forward's dequantisation.
    kernel = get_qlora_kernel(weights)
    assert (kernel.passes(grad_checkpointing=False), kernel.passes(grad_checkpointing=True)) == (without,
                                                                                                 with_recompute)
    assert kernel.keeps_sixteen_bit_weight == (weights == "gptq-int4-g128")


def _qlora(weights: str) -> TrainingSetup:
    return TrainingSetup.of(method="qlora", qlora_weights=weights, grad_checkpointing=True)


def test_dequantisation_time_is_bytes_over_bandwidth_and_ignores_tokens() -> None:
    seconds = dequantisation_s(SPEC, A100, _qlora("nf4"))
    expected = 3 * SPEC.linear_parameters * get_qlora_kernel("nf4").bytes_per_weight / A100.memory_bandwidth_bytes_per_s
    assert seconds == pytest.approx(expected)
    short = training_time(SPEC, A100, tokens=10**9, method="qlora", seq=512, check_memory=False)
    long = training_time(SPEC, A100, tokens=10**9, method="qlora", seq=8192, check_memory=False)
    # A fixed cost per micro-batch: the same 10^9 tokens in 16 times fewer micro-batches pay it 16 times less.
    lora_short = training_time(SPEC, A100, tokens=10**9, method="lora", seq=512, check_memory=False)
    lora_long = training_time(SPEC, A100, tokens=10**9, method="lora", seq=8192, check_memory=False)
    assert short.time_s / lora_short.time_s > long.time_s / lora_long.time_s


def test_gptq_costs_more_time_than_nf4_with_recomputation() -> None:
    nf4 = training_time(SPEC, A100, tokens=10**9, method="qlora", grad_checkpointing=True, check_memory=False)
    gptq = training_time(SPEC, A100, tokens=10**9, method="qlora", grad_checkpointing=True,
                         qlora_weights="gptq-int4-g128", check_memory=False)
    micro_batches = 10**9 / 2048
    extra = (dequantisation_s(SPEC, A100, _qlora("gptq-int4-g128"))
             - dequantisation_s(SPEC, A100, _qlora("nf4")))
    assert gptq.time_s - nf4.time_s == pytest.approx(micro_batches * extra / nf4.goodput, rel=1e-6)


def test_autogptq_keeps_every_layers_sixteen_bit_weights_without_recomputation() -> None:
    settings = {"method": "qlora", "precision": "bf16", "batch": 1, "seq": 1024}
    nf4 = training_memory(SPEC, **settings).peak_allocated_bytes
    gptq = training_memory(SPEC, **settings, qlora_weights="gptq-int4-g128").peak_allocated_bytes
    # A full 16-bit copy of the decoder's linear weights, live from their forward to their backward.
    assert gptq - nf4 >= 2 * SPEC.linear_parameters * 0.99
    ckpt_nf4 = training_memory(SPEC, **settings, grad_checkpointing=True).peak_allocated_bytes
    ckpt_gptq = training_memory(SPEC, **settings, grad_checkpointing=True,
                                qlora_weights="gptq-int4-g128").peak_allocated_bytes
    # Under recomputation only the layer being back-propagated holds its copy (plus the storage difference).
    one_layer = 2 * SPEC.linear_parameters / SPEC.num_layers
    assert one_layer * 0.9 <= ckpt_gptq - ckpt_nf4 <= one_layer * 1.2


def test_unknown_qlora_weights_name_the_field() -> None:
    with pytest.raises(InputError, match="qlora_weights"):
        training_time(SPEC, A100, tokens=10**9, method="qlora", qlora_weights="q4_k_m")
    with pytest.raises(InputError, match="qlora_weights"):
        training_memory(SPEC, method="qlora", qlora_weights="awq")
    assert QLORA_WEIGHTS[0] == "nf4"
