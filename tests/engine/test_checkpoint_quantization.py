"""Weights of quantised checkpoints, read from ``quantization_config`` and sized module by module.

Expected bytes are derived by hand in each test from the format definitions:

* MXFP4 (OCP Microscaling Formats v1.0): 32 E2M1 values (16 bytes) share one E8M0 byte;
  transformers' ``integrations/mxfp4.py`` stores gpt-oss experts as ``*_blocks`` and ``*_scales``
  along the input dimension and converts nothing else.
* NVFP4 (NVIDIA, "Introducing NVFP4"): 16 E2M1 values (8 bytes) share one FP8 E4M3 byte, plus
  FP32 scales per tensor (compressed-tensors: ``weight_global_scale`` and, with FP4 activations,
  ``input_global_scale``; ModelOpt: ``weight_scale_2`` and ``input_scale``).
* FP8 with block scales (transformers ``FP8Linear``): one byte per weight and one FP32
  ``weight_scale_inv`` per 128 x 128 block, ``ceil(out/128) x ceil(in/128)`` of them.
* AWQ GEMM (AutoAWQ ``WQLinear_GEMM``): 4 bits per weight, per group of 128 inputs an FP16
  scale and a 4-bit zero; GPTQ adds an int32 ``g_idx`` per input feature.
* bitsandbytes NF4 (``functional.quantize_4bit``): 4 bits per weight, blocks of 64 over the
  flattened tensor; double quantisation stores each absmax in one byte and one FP32 per 256
  blocks, plus code books of 16 and 256 FP32 per tensor.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from calculators.catalog.models import get_model
from calculators.cli import run
from calculators.errors import ConfigError
from calculators.quantization import read_quantization_config
from calculators.memory.checkpoint_weights import checkpoint_weight_bytes, linear_modules
from calculators.memory.inference import inference_memory
from calculators.memory.weight_formats import weight_format
from calculators.memory.weights import mxfp4_expert_weight_bytes, weight_bytes
from calculators.model_config import spec_from_config

#: openai/gpt-oss-20b config.json, quantization_config as published.
GPT_OSS_QUANT = {"modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                                            "model.embed_tokens", "lm_head"], "quant_method": "mxfp4"}
#: Qwen/Qwen2.5-7B-Instruct-AWQ-style AutoAWQ config (bits 4, groups of 128, GEMM, zero points).
AWQ_G128 = {"bits": 4, "group_size": 128, "modules_to_not_convert": None, "quant_method": "awq",
            "version": "gemm", "zero_point": True}
#: llama-3-8b's linear layers: per layer q, o (4096 x 4096), k, v (1024 x 4096), gate, up, down (14336 x 4096).
LLAMA3_8B_LINEARS = [(4096, 4096), (1024, 4096), (1024, 4096), (4096, 4096),
                     (14336, 4096), (14336, 4096), (4096, 14336)]
LLAMA3_8B_PARAMETERS = 8_030_261_248  # Meta's published count (catalog record)


#: openai/gpt-oss-20b's shapes (config.json).
_GPT_OSS_20B = {"model_type": "gpt_oss", "hidden_size": 2880, "intermediate_size": 2880, "num_attention_heads": 64,
                "num_key_value_heads": 8, "head_dim": 64, "num_experts_per_tok": 4, "vocab_size": 201088,
                "sliding_window": 128, "tie_word_embeddings": False, "num_hidden_layers": 24,
                "num_local_experts": 32, "layer_types": ["sliding_attention", "full_attention"] * 12}


def _llama_with(quant: dict[str, Any]) -> Any:
    config = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
              "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
              "tie_word_embeddings": False, "quantization_config": quant}
    return spec_from_config(config, name="llama-3-8b-quantised")


def test_gpt_oss_20b_as_published() -> None:
    """gpt-oss-20b: 24 layers x 32 experts; gate_up 5760 x 2880 and down 2880 x 2880 per expert.

    gate_up: 5760 x 2880 / 2 = 8,294,400 bytes of E2M1 + 5760 x 90 = 518,400 E8M0 scales;
    down: 2880 x 2880 / 2 = 4,147,200 + 2880 x 90 = 259,200. Per expert 13,219,200 bytes, 768
    experts: 10,152,345,600. The rest: 20,914,757,184 - 768 x 24,883,200 = 1,804,459,584 bf16
    parameters, 3,608,919,168 bytes. Total 13,761,264,768 bytes = 12.82 GiB (model card: 12.8 GiB).
    """
    spec = spec_from_config({**_GPT_OSS_20B, "quantization_config": GPT_OSS_QUANT})
    expected = 768 * 13_219_200 + (20_914_757_184 - 768 * 24_883_200) * 2
    assert expected == 13_761_264_768
    assert weight_bytes(spec, dtype="auto") == expected
    assert round(expected / 2**30, 1) == 12.8
    assert mxfp4_expert_weight_bytes(spec) == expected  # the earlier function is this case


def test_gpt_oss_120b_as_published() -> None:
    """gpt-oss-120b: 36 layers x 128 experts of the same shapes: 4608 x 13,219,200 bytes of experts and
    116,829,156,672 - 4608 x 24,883,200 = 2,167,371,072 bf16 parameters: 65,248,815,744 bytes, 60.8 GiB
    (model card)."""
    spec = get_model("gpt-oss-120b")
    expected = 4608 * 13_219_200 + (116_829_156_672 - 4608 * 24_883_200) * 2
    assert expected == 65_248_815_744
    assert weight_bytes(spec, dtype="auto") == expected
    assert round(expected / 2**30, 1) == 60.8


def test_deepseek_v3_fp8_block_scales_match_the_hub_dtype_totals() -> None:
    """DeepSeek-V3 (FP8 E4M3, weight_block_size [128, 128]); the hub counts F8_E4M3 680,571,043,840 and
    F32 weight_scale_inv 41,540,496 (catalog record), which include the MTP layer (one more MoE layer).

    Attention linears (hidden 7168, q_lora 1536, kv_lora 512, 128 heads of 128 + 64, v 128):
    q_a 1536 x 7168, q_b 24576 x 1536, kv_a 576 x 7168, kv_b 32768 x 512, o 7168 x 16384:
    187,105,280 weights, 12 x 56 + 192 x 12 + 5 x 56 + 256 x 4 + 56 x 128 = 11,448 blocks.
    Dense MLP (18432): 396,361,728 weights, 24,192 blocks; an expert (2048): 44,040,192, 2,688 blocks.
    Main model: 61 attention + 3 dense + 58 x 257 experts (256 routed + 1 shared);
    MTP: one attention + 257 experts (its eh_proj is BF16).
    """
    spec = get_model("deepseek-v3")
    fp8 = 61 * 187_105_280 + 3 * 396_361_728 + 58 * 257 * 44_040_192
    scales = 61 * 11_448 + 3 * 24_192 + 58 * 257 * 2_688
    mtp_fp8, mtp_scales = 187_105_280 + 257 * 44_040_192, 11_448 + 257 * 2_688
    assert fp8 + mtp_fp8 == 680_571_043_840 and scales + mtp_scales == 41_540_496
    assert weight_bytes(spec, dtype="auto") == fp8 + 4 * scales + 2 * (spec.parameters - fp8)


def test_awq_g128_on_llama() -> None:
    """Every decoder linear at 4 bits + (16-bit scale + 4-bit zero) per 128 inputs = 66.5 / 128 bytes per
    weight: 6,979,321,856 linear weights -> 3,625,975,808 bytes; the other 1,050,939,392 parameters bf16."""
    spec = _llama_with(AWQ_G128)
    linear = 32 * sum(o * i for o, i in LLAMA3_8B_LINEARS)
    assert linear == 6_979_321_856
    expected = linear * 66.5 / 128 + (LLAMA3_8B_PARAMETERS - linear) * 2
    assert weight_bytes(spec, dtype="auto") == expected == 5_727_854_592
    assert weight_bytes(spec, dtype="auto") == weight_bytes(get_model("llama-3-8b"), dtype="awq-int4-g128")


def test_modules_to_not_convert_keeps_them_16_bit() -> None:
    """AWQ with layer 0's attention and every down_proj kept: those weights cost 2 bytes, not 66.5 / 128."""
    spec = _llama_with({**AWQ_G128, "modules_to_not_convert": ["model.layers.0.self_attn", "down_proj"]})
    kept = (4096 * 4096 * 2 + 1024 * 4096 * 2) + 32 * 4096 * 14336
    linear = 32 * sum(o * i for o, i in LLAMA3_8B_LINEARS)
    expected = (linear - kept) * 66.5 / 128 + (LLAMA3_8B_PARAMETERS - linear + kept) * 2
    assert weight_bytes(spec, dtype="auto") == expected
    # "layers.1" reaches layer 1 but not 10-19 (transformers' module boundary): 1 layer kept, not 11.
    one = _llama_with({**AWQ_G128, "modules_to_not_convert": ["model.layers.1"]})
    layer = sum(o * i for o, i in LLAMA3_8B_LINEARS)
    assert weight_bytes(one, dtype="auto") == (linear - layer) * 66.5 / 128 + (
        LLAMA3_8B_PARAMETERS - linear + layer) * 2


def test_gptq_adds_g_idx_and_packed_zeros() -> None:
    """GPTQ 4-bit, groups of 128: per weight 4 bits + (16 + 4) / 128 bits, plus 4 bytes of g_idx per input."""
    spec = _llama_with({"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True})
    per_layer = sum(o * i * (4 + 20 / 128) / 8 + 4 * i for o, i in LLAMA3_8B_LINEARS)
    linear = 32 * sum(o * i for o, i in LLAMA3_8B_LINEARS)
    assert weight_bytes(spec, dtype="auto") == 32 * per_layer + (LLAMA3_8B_PARAMETERS - linear) * 2


def test_nvfp4_compressed_tensors_and_modelopt() -> None:
    """NVFP4 W4A4, lm_head ignored: per linear out x in / 2 + out x in / 16 FP8 scales + 8 bytes of FP32
    per-tensor scales (compressed-tensors: weight_global_scale and input_global_scale; ModelOpt:
    weight_scale_2 and input_scale)."""
    group = {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "float", "strategy": "tensor_group",
                                                "group_size": 16, "symmetric": True, "dynamic": False},
             "input_activations": {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16,
                                   "symmetric": True, "dynamic": "local"}}
    compressed = {"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized", "ignore": ["lm_head"],
                  "quantization_status": "compressed", "config_groups": {"group_0": group}}
    modelopt = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "ignore": ["lm_head"]}
    linear = 32 * sum(o * i for o, i in LLAMA3_8B_LINEARS)
    expected = linear / 2 + linear / 16 + 32 * 7 * 8 + (LLAMA3_8B_PARAMETERS - linear) * 2
    for quant in (compressed, modelopt):
        assert weight_bytes(_llama_with(quant), dtype="auto") == expected


def test_compressed_tensors_fp8_block_on_a_moe() -> None:
    """FP8 128 x 128 blocks with BF16 scales (compressed-tensors: scales in the weight's dtype), router and
    lm_head ignored, on Qwen3-30B-A3B: gate and up of an expert are 768 x 2048, ceil(768/128) x ceil(2048/128)
    = 96 blocks each, down 2048 x 768, 96 blocks."""
    group = {"targets": ["Linear"], "format": "float-quantized",
             "weights": {"num_bits": 8, "type": "float", "strategy": "block", "block_structure": [128, 128],
                         "symmetric": True, "dynamic": False},
             "input_activations": {"num_bits": 8, "type": "float", "strategy": "group", "group_size": 128,
                                   "dynamic": True}}
    quant = {"quant_method": "compressed-tensors", "ignore": ["lm_head", "re:.*mlp.gate$"],
             "config_groups": {"group_0": group}}
    base = get_model("qwen3-30b-a3b")
    spec = spec_from_config({**_QWEN3_30B, "quantization_config": quant})
    assert spec.parameters == base.parameters
    # Attention (hidden 2048, 32 q heads and 4 KV heads of 128): q 4096 x 2048, k and v 512 x 2048, o 2048 x 4096.
    attention = [(4096, 2048), (512, 2048), (512, 2048), (2048, 4096)]
    weights = 48 * (sum(o * i for o, i in attention) + 128 * 3 * 768 * 2048)
    blocks = 48 * (sum(math.ceil(o / 128) * math.ceil(i / 128) for o, i in attention) + 128 * 3 * 96)
    assert weight_bytes(spec, dtype="auto") == weights + 2 * blocks + 2 * (base.parameters - weights)


_QWEN3_30B = {"model_type": "qwen3_moe", "hidden_size": 2048, "intermediate_size": 6144, "moe_intermediate_size": 768,
              "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
              "num_experts": 128, "num_experts_per_tok": 8, "vocab_size": 151936, "tie_word_embeddings": False}


def test_bitsandbytes_nf4_double_quant() -> None:
    """NF4 with double quantisation: n / 2 + ceil(n / 64) bytes of absmax + 4 x ceil(ceil(n / 64) / 256) + 1088
    bytes of code books per linear of n weights; lm_head kept (transformers' default skip)."""
    spec = _llama_with({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4",
                        "bnb_4bit_use_double_quant": True, "bnb_4bit_compute_dtype": "bfloat16"})

    def stored(n: int) -> int:
        blocks = math.ceil(n / 64)
        return n // 2 + blocks + 4 * math.ceil(blocks / 256) + (16 + 256) * 4

    linear = 32 * sum(o * i for o, i in LLAMA3_8B_LINEARS)
    expected = 32 * sum(stored(o * i) for o, i in LLAMA3_8B_LINEARS) + (LLAMA3_8B_PARAMETERS - linear) * 2
    assert weight_bytes(spec, dtype="auto") == expected
    # About 4.127 bits per quantised weight: the QLoRA paper's 0.127 bits of constants (Dettmers et al. 2023).
    assert 4.126 < 8 * (expected - (LLAMA3_8B_PARAMETERS - linear) * 2) / linear < 4.128


def test_mxfp4_and_nvfp4_are_weight_formats() -> None:
    """4 + 8/32 and 4 + 8/16 bits per weight (one E8M0 byte per 32, one FP8 byte per 16)."""
    assert weight_format("mxfp4").bits_per_weight == 4.25
    assert weight_format("nvfp4").bits_per_weight == 4.5
    linear = 32 * sum(o * i for o, i in LLAMA3_8B_LINEARS)
    rest = (LLAMA3_8B_PARAMETERS - linear) * 2
    assert weight_bytes(get_model("llama-3-8b"), dtype="mxfp4") == linear * 4.25 / 8 + rest


def test_auto_is_bf16_without_a_quantization_config() -> None:
    for model in ("llama-3-8b", "mixtral-8x7b", "qwen3-30b-a3b"):
        spec = get_model(model)
        assert spec.quantization is None
        assert weight_bytes(spec, dtype="auto") == 2 * spec.parameters


def test_inference_defaults_to_the_stored_format_with_a_note() -> None:
    spec = get_model("gpt-oss-20b")
    stored = inference_memory(spec)
    assert stored.breakdown["weights"] == 13_761_264_768
    assert stored.notes[0].startswith("weights as the checkpoint stores them")
    assert "MXFP4 experts" in stored.notes[0] and "bf16 elsewhere" in stored.notes[0]
    explicit = inference_memory(spec, weights="bf16")
    assert explicit.breakdown["weights"] == 2 * spec.parameters
    assert not any(note.startswith("weights as the checkpoint") for note in explicit.notes)


def test_cli_reads_a_pasted_quantised_config(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**_GPT_OSS_20B, "quantization_config": GPT_OSS_QUANT}), encoding="utf-8")
    data, text = run(["infer", "--model", str(path)])
    # the verdict first, then which weights were sized (before any number)
    assert text.splitlines()[0].startswith("On 1x H100 SXM 80GB: ")
    assert text.splitlines()[1].startswith("Weights as the checkpoint stores them")
    assert data["breakdown"]["weights"] == 13_761_264_768
    data, text = run(["infer", "--model", str(path), "--weights", "bf16"])
    assert data["breakdown"]["weights"] == 2 * data["parameters"] and "as the checkpoint stores them" not in text


def test_every_linear_is_listed_once() -> None:
    """The module list covers exactly ModelSpec's linear weights (biases aside) plus the output head."""
    for model in ("llama-3-8b", "deepseek-v3", "gpt-oss-20b", "phi-3-mini-4k", "mixtral-8x7b", "qwen3-30b-a3b"):
        spec = get_model(model)
        listed = sum(module.weights for module in linear_modules(spec) if module.kind != "lm_head")
        biases = sum(o for _, o, bias in spec.attention_linears() if bias) * spec.num_layers
        if spec.moe and spec.moe.expert_bias:
            m = spec.moe
            biases += spec.num_moe_layers * m.num_experts * (2 * m.expert_intermediate_size + spec.hidden_size)
        router = spec.num_moe_layers * (spec.moe.num_experts * spec.hidden_size + (
            spec.moe.router_bias_per_expert * spec.moe.num_experts) + (
            spec.hidden_size if spec.moe.shared_expert_gate else 0)) if spec.moe else 0
        assert listed + biases + router == spec.linear_parameters, model


@pytest.mark.parametrize("quant, key", [
    ({"quant_method": "hqq"}, "quantization_config.quant_method"),
    ({"bits": 4}, "quantization_config.quant_method"),
    ("mxfp4", "quantization_config"),
    ({"quant_method": "gptq", "bits": 5, "group_size": 128}, "quantization_config.bits"),
    ({"quant_method": "gptq", "bits": "4"}, "quantization_config.bits"),
    ({**AWQ_G128, "group_size": 0}, "quantization_config.group_size"),
    ({**AWQ_G128, "version": "exllama"}, "quantization_config.version"),
    ({**AWQ_G128, "modules_to_not_convert": "lm_head"}, "quantization_config.modules_to_not_convert"),
    ({"quant_method": "fp8", "weight_block_size": [128]}, "quantization_config.weight_block_size"),
    ({"quant_method": "fp8", "dequantize": True}, "quantization_config.dequantize"),
    ({"quant_method": "fp8", "fmt": "e5m2"}, "quantization_config.fmt"),
    ({"quant_method": "bitsandbytes", "load_in_4bit": False}, "quantization_config.load_in_4bit"),
    ({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "int4"},
     "quantization_config.bnb_4bit_quant_type"),
    ({"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION"}, "quantization_config.quant_algo"),
    ({"quant_method": "mxfp4"}, "quantization_config.quant_method"),  # not gpt_oss
    ({"quant_method": "compressed-tensors", "config_groups": {}}, "quantization_config.config_groups"),
    ({"quant_method": "compressed-tensors", "quantization_status": "frozen", "config_groups": {"g": {}}},
     "quantization_config.quantization_status"),
    ({"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": {"g": {
        "targets": ["Linear"], "weights": {"num_bits": 4, "type": "int", "strategy": "tokenwise"}}}},
     "quantization_config.config_groups.g.weights.strategy"),
    ({"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": {"g": {
        "targets": ["Embedding"], "weights": {"num_bits": 4, "type": "int", "strategy": "channel"}}}},
     "quantization_config.config_groups.g.targets"),
    ({"quant_method": "compressed-tensors", "format": "marlin-24", "config_groups": {"g": {
        "targets": ["Linear"], "weights": {"num_bits": 4, "type": "int", "strategy": "channel"}}}},
     "quantization_config.format"),
])
def test_refusals_name_the_key(quant: Any, key: str) -> None:
    """The model is still read; sizing its weights as stored is refused naming the key, never read as bf16,
    and an explicit format sizes it."""
    with pytest.raises(ConfigError) as info:
        read_quantization_config(quant, model_type="llama")
    assert info.value.field == f"config.{key}"
    spec = _llama_with(quant)
    for sized in (lambda: weight_bytes(spec, dtype="auto"), lambda: inference_memory(spec)):
        with pytest.raises(ConfigError) as info:
            sized()
        assert info.value.field == f"config.{key}" and "instead of auto" in info.value.accepted
    assert weight_bytes(spec, dtype="bf16") == 2 * LLAMA3_8B_PARAMETERS


def test_bad_patterns_are_refused_when_sized() -> None:
    spec = _llama_with({**AWQ_G128, "modules_to_not_convert": ["model.layers.(0"]})
    with pytest.raises(ConfigError) as info:
        weight_bytes(spec, dtype="auto")
    assert info.value.field == "config.quantization_config.modules_to_not_convert"
    moe = spec_from_config({**_QWEN3_30B, "quantization_config": {**AWQ_G128, "modules_to_not_convert": [
        "model.layers.0.mlp.experts.0"]}})
    with pytest.raises(ConfigError, match="single experts"):
        checkpoint_weight_bytes(moe, moe.quantization)  # type: ignore[arg-type]
