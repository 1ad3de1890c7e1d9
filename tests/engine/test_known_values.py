"""Figures published outside this package, or derived by hand in the test, checked against it.

Each expected value names its origin: a paper and section, a vendor or hub figure, or a
derivation written out next to it. None is read back from the code under test.
"""

from __future__ import annotations

import pytest

from calculators import get_model, inference_memory, kv_cache_bytes, lora_parameters, training_memory
from calculators.dtypes import DType
from calculators.memory.inference import kv_cache_bytes_per_token
from calculators.memory.weights import quantized_bytes_per_element
from calculators.model_config import spec_from_config

GIB = 2**30

# Meta-Llama-2-7b-hf: 6,738,415,616 parameters. The Hugging Face safetensors index gives
# total_size 13,476,839,424 bytes = 2 x 6,738,415,616 fp16 weights + 32 layers x 64 x 4
# bytes of rotary inv_freq buffers (public tutorials' PEFT print_trainable_parameters()
# output for this model shows the same "all params: 6,738,415,616").
LLAMA2_7B_PARAMS = 6_738_415_616

# Meta-Llama-3-8B: 8,030,261,248 parameters (Hugging Face model API, safetensors.total).
LLAMA3_8B_PARAMS = 8_030_261_248


# ------------------------------------------------------------------ KV cache
def test_kv_cache_per_token_opt_13b_pagedattention() -> None:
    # Kwon et al. 2023, "Efficient Memory Management for Large Language Model Serving with
    # PagedAttention", section 3: for OPT-13B "the KV cache of a single token demands 800 KB
    # of space, calculated as 2 (key and value vectors) x 5120 (hidden state size) x 40
    # (number of layers) x 2 (bytes per FP16)" = 819,200 bytes.
    # OPT-13B's shapes written as a Llama-style config (MHA: 40 KV heads x 128 = 5120).
    spec = spec_from_config({
        "model_type": "llama", "hidden_size": 5120, "num_hidden_layers": 40, "num_attention_heads": 40,
        "num_key_value_heads": 40, "intermediate_size": 20480, "vocab_size": 50272,
    })
    expected = 2 * 5120 * 40 * 2
    assert expected == 819_200
    assert kv_cache_bytes_per_token(spec, kv_dtype="fp16") == expected
    assert kv_cache_bytes(spec, batch=1, context=1, kv_dtype="fp16") == expected


def test_kv_cache_llama2_7b_4096_tokens_is_2_gib() -> None:
    # 2 (K, V) x 32 layers x 4096 tokens x 4096 (32 KV heads x 128) x 2 bytes (bf16)
    # = 2^1 x 2^5 x 2^12 x 2^12 x 2^1 = 2^31 bytes = 2 GiB.
    expected = 2 * 32 * 4096 * 4096 * 2
    assert expected == 2 * GIB
    assert kv_cache_bytes(get_model("llama-2-7b"), batch=1, context=4096, kv_dtype="bf16") == expected


def test_gqa_kv_heads_not_attention_heads() -> None:
    # Llama 3 8B: 8 KV heads x 128 (config.json num_key_value_heads 8), so per token
    # 2 x 32 layers x 1024 x 2 bytes = 131,072 bytes: a quarter of the 32-head figure.
    assert kv_cache_bytes_per_token(get_model("llama-3-8b"), kv_dtype="bf16") == 2 * 32 * 8 * 128 * 2


def test_sliding_window_caps_kv_cache_mistral_v01() -> None:
    # Mistral 7B v0.1 (Jiang et al. 2023, section 2, "Rolling Buffer Cache"): with
    # W = 4096 the cache holds at most W tokens per layer; transformers' DynamicCache does
    # the same for a config with a window and no layer_types, and the measured Phi-3 record
    # (tests/data/measurements/phi-3-mini_infer_bf16_kv-bf16_b1_ctx4096_new16_sdpa.json)
    # ends decoding with exactly its 2047-token window cached. At 8192 tokens:
    # 2 x 32 layers x 4096 tokens x 1024 (8 KV heads x 128) x 2 bytes = 512 MiB.
    spec = get_model("mistral-7b-v0.1")
    assert kv_cache_bytes(spec, batch=1, context=8192, kv_dtype="bf16") == 2 * 32 * 4096 * 1024 * 2
    assert kv_cache_bytes(spec, batch=1, context=2048, kv_dtype="bf16") == 2 * 32 * 2048 * 1024 * 2

def test_gemma2_9b_kv_cache_half_local() -> None:
    # Gemma 2 9B (config.json: 42 layers, 8 KV heads x head_dim 256, sliding_window 4096);
    # Gemma Team 2024, "Gemma 2", section 2: local sliding-window and global attention
    # alternate. At 8192 tokens, bf16: 21 global layers hold 8192 tokens, 21 local hold 4096:
    # 2 x 2048 x 2 bytes x (21 x 8192 + 21 x 4096).
    expected = 2 * (8 * 256) * 2 * (21 * 8192 + 21 * 4096)
    assert kv_cache_bytes(get_model("gemma-2-9b"), batch=1, context=8192, kv_dtype="bf16") == expected


# ------------------------------------------------------------------ weights
def test_nf4_double_quant_bits_per_parameter() -> None:
    # Dettmers et al. 2023, "QLoRA", section 3 "Double Quantization": blocksize 64 with fp32
    # absmax costs 32/64 = 0.5 bits per parameter; double quantisation (8-bit absmax, one
    # fp32 constant per 256 blocks) costs 8/64 + 32/(64 x 256) = 0.127 bits. NF4 = 4.127.
    bits = quantized_bytes_per_element(DType.NF4) * 8
    assert bits == pytest.approx(4 + 8 / 64 + 32 / (64 * 256))
    assert round(bits, 3) == 4.127


def test_llama3_8b_bf16_weights() -> None:
    # 2 bytes x 8,030,261,248 parameters.
    estimate = inference_memory(get_model("llama-3-8b"), weights="bf16", batch=1, context=16)
    assert estimate.breakdown["weights"] == 2 * LLAMA3_8B_PARAMS


# ------------------------------------------------------------------ optimizer state
def test_fused_adamw_mixed_precision_is_16_bytes_per_param() -> None:
    # Full fine-tuning, bf16 autocast over fp32 master weights, fused AdamW. During the
    # step: fp32 weights 4 + fp32 gradients 4 + exp_avg 4 + exp_avg_sq 4 = 16 bytes per
    # parameter. Rajbhandari et al. 2020, "ZeRO", section 3.1, count the same 16 bytes
    # for mixed-precision Adam (split 2 + 2 + 12: fp16 weights and grads, fp32 copy and
    # moments); batch 1 x 16 tokens keeps activations negligible. On CUDA the peak also
    # holds the cuBLAS workspaces: 64 MiB, measured on an H100
    # (tests/data/measurements_cuda/h100-sxm: base_allocated minus the weights).
    estimate = training_memory(get_model("llama-2-7b"), method="full", precision="bf16-mixed",
                               optimizer="adamw-fused", batch=1, seq=16)
    assert estimate.parameters == LLAMA2_7B_PARAMS
    assert estimate.phase_peaks["optimizer"] == 16 * LLAMA2_7B_PARAMS + 64 * 2**20


def test_foreach_adamw_adds_a_parameter_sized_temporary() -> None:
    # PyTorch torch/optim/adamw.py, _multi_tensor_adamw (the default foreach path on CUDA):
    # exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs) allocates one fp32 tensor
    # per parameter, so the step holds 16 + 4 = 20 bytes per parameter.
    estimate = training_memory(get_model("llama-2-7b"), method="full", precision="bf16-mixed",
                               optimizer="adamw", batch=1, seq=16)
    assert estimate.phase_peaks["optimizer"] == 20 * LLAMA2_7B_PARAMS + 64 * 2**20  # + cuBLAS workspaces
    assert estimate.peak_allocated_bytes == 20 * LLAMA2_7B_PARAMS + 64 * 2**20
    assert estimate.peak_phase == "optimizer"
    on_cpu = training_memory(get_model("llama-2-7b"), method="full", precision="bf16-mixed",
                             optimizer="adamw", batch=1, seq=16, device="cpu")
    assert on_cpu.peak_allocated_bytes == 20 * LLAMA2_7B_PARAMS  # no CUDA workspaces on CPU


# ------------------------------------------------------------------ QLoRA 65B on one 48 GB GPU
LLAMA_65B = {
    # LLaMA-65B (Touvron et al. 2023, "LLaMA", Table 2: dim 8192, 64 heads, 80 layers;
    # the Hugging Face conversion's config.json: intermediate_size 22016, vocab 32000, untied).
    "model_type": "llama", "hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64,
    "intermediate_size": 22016, "vocab_size": 32000, "tie_word_embeddings": False,
}


def test_qlora_65b_fits_one_48gb_gpu() -> None:
    # Dettmers et al. 2023, "QLoRA", abstract: QLoRA "reduce[s] memory usage enough to
    # finetune a 65B parameter model on a single 48GB GPU"; section 4/5 setup: NF4 with
    # double quantisation, LoRA r=64 on all linear layers, paged AdamW, gradient
    # checkpointing. 48 GB read strictly as decimal (48e9 bytes, 44.7 GiB).
    spec = spec_from_config(LLAMA_65B)
    estimate = training_memory(spec, method="qlora", lora_rank=64, lora_targets="all-linear",
                               optimizer="paged-adamw-8bit", grad_checkpointing=True, batch=1, seq=512)
    assert estimate.total_bytes <= 48 * 10**9
    assert estimate.total_bytes <= 48 * GIB


def test_full_finetune_65b_does_not_fit_48gb() -> None:
    # bf16-mixed full fine-tuning needs >= 16 bytes per parameter for weights, gradients and
    # Adam state alone: 16 x 65e9 ~ 1 TB.
    spec = spec_from_config(LLAMA_65B)
    estimate = training_memory(spec, method="full", precision="bf16-mixed", grad_checkpointing=True,
                               batch=1, seq=512)
    assert estimate.total_bytes > 48 * GIB
    assert estimate.peak_allocated_bytes >= 16 * 65 * 10**9


# ------------------------------------------------------------------ LoRA parameter counts
def test_lora_r8_qv_llama2_7b() -> None:
    # Derivation: 32 layers x 2 modules (q_proj, v_proj) x r=8 x (4096 in + 4096 out)
    # = 4,194,304. Public tutorials show PEFT printing "trainable params: 4,194,304 || all
    # params: 6,742,609,920" (= 6,738,415,616 + 4,194,304) for Llama-2-7b with r=8 on
    # q_proj, v_proj; the figure is not in PEFT's own README, so the derivation is the source.
    expected = 32 * 2 * 8 * (4096 + 4096)
    assert expected == 4_194_304
    spec = get_model("llama-2-7b")
    assert lora_parameters(spec, rank=8, targets=["q", "v"]) == expected
    estimate = training_memory(spec, method="lora", lora_rank=8, lora_targets=["q_proj", "v_proj"], seq=16)
    assert estimate.trainable_parameters == expected


def test_lora_gqa_k_uses_kv_width() -> None:
    # Llama 3 8B, r=16 on q and v: k/v project 4096 -> 1024 (8 KV heads x 128), so
    # 32 x 16 x ((4096 + 4096) + (4096 + 1024)) = 6,815,744.
    expected = 32 * 16 * ((4096 + 4096) + (4096 + 1024))
    assert lora_parameters(get_model("llama-3-8b"), rank=16, targets=["q", "v"]) == expected


def test_lora_all_linear_llama2_7b() -> None:
    # r=8 on all seven linears of each of 32 layers: attention 4 x (4096 + 4096), MLP
    # gate/up (4096 + 11008) and down (11008 + 4096):
    # 32 x 8 x (4 x 8192 + 3 x 15104) = 19,988,480.
    expected = 32 * 8 * (4 * 8192 + 3 * 15104)
    assert lora_parameters(get_model("llama-2-7b"), rank=8,
                           targets=["q", "k", "v", "o", "gate", "up", "down"]) == expected
