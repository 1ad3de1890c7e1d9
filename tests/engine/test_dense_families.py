"""The dense families of 2025-26 (SmolLM3, OLMo 2/3, Cohere 1/2, EXAONE 4.0, Seed-OSS, Phi-4 on phi3): counts,
layer kinds, KV cache and refusals.

Expected parameter counts are written out from the tensors of transformers 5.23's modules
(``modeling_smollm3.py``, ``modeling_olmo2.py``, ``modeling_olmo3.py``, ``modeling_cohere.py``,
``modeling_cohere2.py``, ``modeling_exaone4.py``, ``modeling_seed_oss.py``, ``modeling_phi3.py``) and, where
stated, equal what transformers 5.23 builds from the same config on the meta device
(``sum(p.numel() for p in AutoModelForCausalLM.from_config(...).parameters())``). Each flagship's config
values name their source next to them.
"""

from __future__ import annotations

from typing import Any

import pytest

from calculators.errors import ConfigError
from calculators.memory.activations import ActivationLayout, saved_bytes_per_token_per_layer
from calculators.memory.inference import kv_cache_bytes, kv_cache_bytes_per_token
from calculators.model_config import REFUSED_MODEL_TYPES, spec_from_config

# ------------------------------------------------------------------ flagship configs and their sources
# SmolLM3-3B: SmolLM3Config's defaults (its docstring names HuggingFaceTB/SmolLM3-3B: hidden 2048, 36 layers,
# 16 heads, 4 KV heads, MLP 11008, vocab 128256, tied embeddings); NoPE every fourth layer ("NoPE with 3:1
# ratio", model card), 64k context and rope_theta 5e6 (hf.co/blog/smollm3). Published: 3.08B.
SMOLLM3_3B: dict[str, Any] = {
    "model_type": "smollm3", "hidden_size": 2048, "intermediate_size": 11008, "num_hidden_layers": 36,
    "num_attention_heads": 16, "num_key_value_heads": 4, "vocab_size": 128256, "max_position_embeddings": 65536,
    "no_rope_layers": [1, 1, 1, 0] * 9, "no_rope_layer_interval": 4, "use_sliding_window": False,
    "sliding_window": None, "attention_bias": False, "mlp_bias": False, "rope_theta": 5000000.0,
}
# OLMo-2-1124-13B: its config.json (copy in github.com/mauer4/Attention-From-Scratch,
# weights/allenai/OLMo-2-1124-13B/config.json); its model.safetensors.index.json gives total_size
# 54,864,793,600 bytes of fp32 weights: 13,716,198,400 parameters.
OLMO2_13B: dict[str, Any] = {
    "model_type": "olmo2", "hidden_size": 5120, "intermediate_size": 13824, "num_hidden_layers": 40,
    "num_attention_heads": 40, "num_key_value_heads": 40, "vocab_size": 100352, "max_position_embeddings": 4096,
    "attention_bias": False, "rms_norm_eps": 1e-06, "rope_theta": 500000, "tie_word_embeddings": False,
}
# OLMo 3 7B: Olmo3Config's defaults (docstring names allenai/Olmo-3-7B-Instruct: hidden 4096, 32 layers, 32
# heads, MLP 11008, a 4096-token window on three layers of four), the dolma2 tokenizer's 100,278 tokens.
OLMO3_7B: dict[str, Any] = {
    "model_type": "olmo3", "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 100278, "max_position_embeddings": 65536,
    "sliding_window": 4096, "layer_types": (["sliding_attention"] * 3 + ["full_attention"]) * 8,
    "tie_word_embeddings": False,
}
# Command A (CohereLabs/c4ai-command-a-03-2025, 111B) and Command R7B (c4ai-command-r7b-12-2024, 8B):
# Cohere2Config's layout (three sliding layers of 4096 tokens with RoPE, a fourth global NoPE layer:
# transformers docs/source/en/model_doc/cohere2.md), tied embeddings, vocab 256000.
COMMAND_A: dict[str, Any] = {
    "model_type": "cohere2", "hidden_size": 12288, "intermediate_size": 36864, "num_hidden_layers": 64,
    "num_attention_heads": 96, "num_key_value_heads": 8, "vocab_size": 256000, "sliding_window": 4096,
    "sliding_window_pattern": 4, "logit_scale": 0.25, "max_position_embeddings": 131072,
}
COMMAND_R7B: dict[str, Any] = {
    "model_type": "cohere2", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 256000, "sliding_window": 4096,
    "sliding_window_pattern": 4, "logit_scale": 0.25, "max_position_embeddings": 132096,
}
# EXAONE-4.0-32B: hidden 5120, 40 heads, 8 KV heads of 128, MLP 27392, vocab 102400, 131072 positions, untied
# (the config TensorRT-LLM's tests/unittest/_torch/modeling/test_modeling_exaone4.py copies); 64 layers,
# local:global 3:1 with a 4K window and no RoPE on global layers (arXiv:2507.11407, section 2).
EXAONE4_32B: dict[str, Any] = {
    "model_type": "exaone4", "hidden_size": 5120, "intermediate_size": 27392, "num_hidden_layers": 64,
    "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 102400,
    "max_position_embeddings": 131072, "sliding_window": 4096, "sliding_window_pattern": "LLLG",
    "layer_types": (["sliding_attention"] * 3 + ["full_attention"]) * 16, "tie_word_embeddings": False,
}
# EXAONE-4.0-1.2B: 30 layers, hidden 2048, 32 heads, 8 KV heads of 64, MLP 4096, tied, global attention only
# (arXiv:2507.11407); transformers needs layer_types when there is no window (Exaone4Config divides by a zero
# pattern otherwise), this reader reads no window as all full attention either way.
EXAONE4_1_2B: dict[str, Any] = {
    "model_type": "exaone4", "hidden_size": 2048, "intermediate_size": 4096, "num_hidden_layers": 30,
    "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 102400,
    "max_position_embeddings": 65536, "sliding_window": None, "layer_types": ["full_attention"] * 30,
    "tie_word_embeddings": True,
}
# Seed-OSS-36B: 64 layers, 80 / 8 / 8 q/k/v heads of 128, hidden 5120, 512K context (README of
# github.com/ByteDance-Seed/seed-oss); MLP 27648 and vocab 155136 as SeedOssConfig's defaults.
SEED_OSS_36B: dict[str, Any] = {
    "model_type": "seed_oss", "hidden_size": 5120, "intermediate_size": 27648, "num_hidden_layers": 64,
    "num_attention_heads": 80, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 155136,
    "max_position_embeddings": 524288, "attention_bias": True, "attention_out_bias": False, "mlp_bias": False,
    "tie_word_embeddings": False, "attention_dropout": 0.1, "residual_dropout": 0.1,
}
# Phi-4-mini-instruct (model_type phi3): hidden 3072, 32 layers, 24 heads, 8 KV heads, MLP 8192, vocab 200064
# ("a vocabulary size of up to 200064 tokens", model card), tied embeddings, partial_rotary_factor 0.75, 128K
# context. Published: 3.8B (executorch examples/models/phi_4_mini/README.md).
PHI4_MINI: dict[str, Any] = {
    "model_type": "phi3", "hidden_size": 3072, "intermediate_size": 8192, "num_hidden_layers": 32,
    "num_attention_heads": 24, "num_key_value_heads": 8, "vocab_size": 200064, "max_position_embeddings": 131072,
    "original_max_position_embeddings": 4096, "partial_rotary_factor": 0.75, "sliding_window": 262144,
    "tie_word_embeddings": True,
}


# ------------------------------------------------------------------ counts by hand
def test_smollm3_3b_by_hand() -> None:
    # q 2048 x 2048 + k, v 2 x 2048 x 512 + o 2048 x 2048 = 10,485,760; MLP 3 x 2048 x 11008 = 67,633,152;
    # 2 RMSNorms 4096: 78,123,008 per layer x 36; embeddings 128256 x 2048 (tied); final norm 2048.
    spec = spec_from_config(SMOLLM3_3B)
    assert spec.parameters == 36 * (10_485_760 + 67_633_152 + 4096) + 128256 * 2048 + 2048 == 3_075_098_624
    assert round(spec.parameters / 1e9, 2) == 3.08
    assert spec.tie_word_embeddings  # SmolLM3Config ties by default; config.json leaves the key out


def test_olmo2_13b_by_hand_equals_the_checkpoint() -> None:
    # Post-norm: no input norm, a norm after attention and after the MLP (2 x 5120); q_norm and k_norm over the
    # whole width (2 x 40 x 128); q, k, v, o 4 x 5120^2 = 104,857,600; MLP 3 x 5120 x 13824 = 212,336,640.
    spec = spec_from_config(OLMO2_13B)
    per_layer = 104_857_600 + 2 * 5120 + 212_336_640 + 2 * 5120
    assert spec.parameters == 40 * per_layer + 2 * 100352 * 5120 + 5120 == 13_716_198_400
    assert spec.parameters * 4 == 54_864_793_600  # the fp32 checkpoint's total_size
    assert spec.block_layout == "post_norm" and spec.qk_norm_scope == "width"


def test_olmo3_7b_by_hand() -> None:
    # OLMo 2's layer (post-norm, whole-width q/k norms 2 x 4096) with OLMo 3's windows, which add no tensor:
    # q, k, v, o 4 x 4096^2 + MLP 3 x 4096 x 11008 + q/k norms 8192 + 2 norms 8192 = 202,391,552 per layer.
    spec = spec_from_config(OLMO3_7B)
    assert spec.parameters == 32 * 202_391_552 + 2 * 100278 * 4096 + 4096 == 7_298_011_136
    assert (spec.attention_layers, spec.sliding_window_layers) == (32, 24)


def test_command_r7b_by_hand() -> None:
    # Parallel block with ONE LayerNorm (weight only) per layer: q 4096^2 + k, v 2 x 4096 x 1024 + o 4096^2
    # + MLP 3 x 4096 x 14336 + norm 4096 = 218,107,904 x 32; tied embeddings 256000 x 4096; final norm 4096.
    spec = spec_from_config(COMMAND_R7B)
    per_layer = 2 * 16_777_216 + 2 * 4_194_304 + 176_160_768 + 4096
    assert spec.parameters == 32 * per_layer + 256000 * 4096 + 4096 == 8_028_033_024
    assert (spec.norms_per_layer, spec.block_layout, spec.logit_scale) == (1, "parallel", 0.25)


def test_exaone4_32b_by_hand() -> None:
    # Post-norm, q/k RMSNorms per head (2 x 128), no biases: q 26,214,400 + k, v 10,485,760 + o 26,214,400
    # + MLP 3 x 5120 x 27392 = 420,741,120 + norms 2 x 5120: 483,666,176 per layer x 64; untied 2 x 102400 x 5120.
    spec = spec_from_config(EXAONE4_32B)
    per_layer = 26_214_400 + 10_485_760 + 26_214_400 + 256 + 420_741_120 + 10_240
    assert spec.parameters == 64 * per_layer + 2 * 102400 * 5120 + 5120 == 32_003_216_384
    assert round(spec.parameters / 1e9) == 32


def test_seed_oss_36b_by_hand() -> None:
    # q 5120 x 10240 + bias, k and v 5120 x 1024 + bias each, o 10240 x 5120 without bias (attention_out_bias
    # false), MLP 3 x 5120 x 27648, 2 norms: 540,039,168 per layer x 64; untied 2 x 155136 x 5120.
    spec = spec_from_config(SEED_OSS_36B)
    per_layer = 52_439_040 + 2 * 5_243_904 + 52_428_800 + 424_673_280 + 10_240
    assert spec.parameters == 64 * per_layer + 2 * 155136 * 5120 + 5120 == 36_151_104_512
    assert (spec.qkv_bias, spec.o_bias) == (True, False) and round(spec.parameters / 1e9) == 36


def test_phi4_mini_by_hand() -> None:
    # Fused qkv 3072 x (3072 + 2 x 1024), o 3072^2, fused gate_up 3072 x 16384, down 8192 x 3072, 2 norms;
    # tied embeddings 200064 x 3072. partial_rotary_factor changes no tensor.
    spec = spec_from_config(PHI4_MINI)
    per_layer = 15_728_640 + 9_437_184 + 50_331_648 + 25_165_824 + 6144
    assert spec.parameters == 32 * per_layer + 200064 * 3072 + 3072 == 3_836_021_760
    assert spec.fused_qkv and round(spec.parameters / 1e9, 1) == 3.8


# transformers 5.23 builds these counts from the same values on the meta device; the variants switch on every
# option each reader has (biases, ties, windows, patterns, q/k norms, head_dim overrides).
_VARIANTS: dict[str, tuple[dict[str, Any], int]] = {
    "smollm3 untied, biases, sliding NoPE layers": ({
        "model_type": "smollm3", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 6,
        "num_attention_heads": 8, "num_key_value_heads": 2, "vocab_size": 1000, "no_rope_layer_interval": 3,
        "use_sliding_window": True, "sliding_window": 64, "attention_bias": True, "mlp_bias": True,
        "tie_word_embeddings": False}, 3_869_184),
    "olmo2 7b": ({**OLMO2_13B, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
                  "num_attention_heads": 32, "num_key_value_heads": 32}, 7_298_617_344),
    "olmo2 32b (GQA)": ({**OLMO2_13B, "intermediate_size": 27648, "num_hidden_layers": 64,
                         "num_key_value_heads": 8}, 32_234_279_936),
    "olmo2 biases, tied, head_dim, mlp_bias ignored": ({
        "model_type": "olmo2", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 3,
        "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 48, "vocab_size": 1000,
        "tie_word_embeddings": True, "attention_bias": True, "mlp_bias": True}, 2_178_656),
    "olmo3 7b": (OLMO3_7B, 7_298_011_136),
    "olmo3 32b": ({**OLMO3_7B, "hidden_size": 5120, "intermediate_size": 27648, "num_hidden_layers": 64,
                   "num_attention_heads": 40, "num_key_value_heads": 8,
                   "layer_types": (["sliding_attention"] * 3 + ["full_attention"]) * 16}, 32_233_522_176),
    "olmo3 default pattern, biases, tied": ({
        "model_type": "olmo3", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 5,
        "num_attention_heads": 8, "num_key_value_heads": 4, "vocab_size": 1000, "attention_bias": True,
        "tie_word_embeddings": True}, 3_213_696),
    "command a": (COMMAND_A, 111_057_580_032),
    "cohere2 biases, untied, layer_types": ({
        "model_type": "cohere2", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 6,
        "num_attention_heads": 8, "num_key_value_heads": 2, "vocab_size": 1000, "attention_bias": True,
        "tie_word_embeddings": False, "layer_types": ["sliding_attention", "full_attention"] * 3}, 3_859_968),
    "command r (cohere)": ({
        "model_type": "cohere", "hidden_size": 8192, "intermediate_size": 22528, "num_hidden_layers": 40,
        "num_attention_heads": 64, "num_key_value_heads": 64, "vocab_size": 256000, "logit_scale": 0.0625,
        "use_qk_norm": False}, 34_980_831_232),
    "command r+ (cohere, per-head q/k LayerNorms)": ({
        "model_type": "cohere", "hidden_size": 12288, "intermediate_size": 33792, "num_hidden_layers": 64,
        "num_attention_heads": 96, "num_key_value_heads": 8, "vocab_size": 256000, "logit_scale": 0.8333,
        "use_qk_norm": True}, 103_810_674_688),
    "exaone4 1.2b (tied, no window)": (EXAONE4_1_2B, 1_279_391_488),
    "exaone4 integer pattern, attention_bias ignored": ({
        "model_type": "exaone4", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 6,
        "num_attention_heads": 8, "num_key_value_heads": 2, "vocab_size": 1000, "sliding_window": 64,
        "sliding_window_pattern": 3, "attention_bias": True, "tie_word_embeddings": True}, 3_602_048),
    "seed_oss o bias only, mlp bias, tied": ({
        "model_type": "seed_oss", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2,
        "num_attention_heads": 8, "num_key_value_heads": 2, "vocab_size": 1000, "attention_bias": False,
        "attention_out_bias": True, "mlp_bias": True, "tie_word_embeddings": True}, 2_357_504),
    "phi-4 14b (phi3, untied)": ({
        "model_type": "phi3", "hidden_size": 5120, "intermediate_size": 17920, "num_hidden_layers": 40,
        "num_attention_heads": 40, "num_key_value_heads": 10, "vocab_size": 100352,
        "max_position_embeddings": 16384, "tie_word_embeddings": False}, 14_659_507_200),
}


@pytest.mark.parametrize("name", list(_VARIANTS))
def test_counts_equal_transformers_meta_builds(name: str) -> None:
    config, built = _VARIANTS[name]
    assert spec_from_config(config).parameters == built


# ------------------------------------------------------------------ layer kinds
def test_smollm3_nope_layers_from_the_list_and_from_the_interval() -> None:
    listed = spec_from_config(SMOLLM3_3B)
    assert [i for i, layer in enumerate(listed.layers) if not layer.rope] == list(range(3, 36, 4))
    derived = spec_from_config({k: v for k, v in SMOLLM3_3B.items() if k != "no_rope_layers"}
                               | {"no_rope_layer_interval": 3, "num_hidden_layers": 6})
    assert [layer.rope for layer in derived.layers] == [True, True, False, True, True, False]
    # With use_sliding_window the NoPE layers slide (SmolLM3Config.__post_init__).
    sliding = spec_from_config({**SMOLLM3_3B, "use_sliding_window": True, "sliding_window": 4096,
                                "layer_types": None})
    assert sliding.sliding_window == 4096
    assert [layer.attention for layer in sliding.layers[:4]] == ["full_attention"] * 3 + ["sliding_attention"]


def test_cohere2_full_layers_are_nope_and_head_dim_follows_hidden() -> None:
    spec = spec_from_config({**COMMAND_A, "head_dim": 64})
    assert spec.head_dim == 12288 // 96 == 128
    assert any("head_dim 64" in note for note in spec.notes)
    kinds = [(layer.attention, layer.rope) for layer in spec.layers[:4]]
    assert kinds == [("sliding_attention", True)] * 3 + [("full_attention", False)]
    assert spec.count_layers(mixer="sliding_attention") == 48


def test_exaone4_string_pattern_and_no_window() -> None:
    pattern = spec_from_config({k: v for k, v in EXAONE4_32B.items() if k != "layer_types"})
    listed = spec_from_config(EXAONE4_32B)
    assert pattern.layers == listed.layers and listed.count_layers(mixer="full_attention") == 16
    assert not listed.layers[3].rope and listed.layers[0].rope  # no RoPE on the global layers
    small = spec_from_config(EXAONE4_1_2B)
    assert small.sliding_window is None and all(layer.rope for layer in small.layers)
    assert spec_from_config({**EXAONE4_1_2B, "layer_types": None}).layers == small.layers
    default = spec_from_config({**EXAONE4_32B, "layer_types": None, "sliding_window_pattern": None})
    assert default.layers == listed.layers  # Exaone4Config's default pattern is 4
    with pytest.raises(ConfigError, match="sliding_window_pattern"):
        spec_from_config({**EXAONE4_32B, "layer_types": None, "sliding_window_pattern": "LLXG"})


def test_seed_oss_defaults_are_its_configuration_class() -> None:
    # SeedOssConfig: attention_bias true, attention_out_bias false, head_dim 128 (not 5120 / 80 = 64), 10 %
    # dropout on the attention probabilities and on both residual branches.
    bare = {k: v for k, v in SEED_OSS_36B.items() if k not in (
        "attention_bias", "attention_out_bias", "head_dim", "attention_dropout", "residual_dropout")}
    spec = spec_from_config(bare)
    assert (spec.qkv_bias, spec.o_bias, spec.head_dim) == (True, False, 128)
    assert (spec.attention_dropout, spec.residual_dropout) == (0.1, 0.1)
    assert any("attention_dropout 0.1" in note for note in spec.notes)
    with pytest.raises(ConfigError, match="residual_dropout"):
        spec_from_config({**SEED_OSS_36B, "residual_dropout": 1.5})


# ------------------------------------------------------------------ activations, traced per layer
# Each expected value is derived term by term below and equals the bytes per token one layer kept for backward
# in a fake-tensor trace of transformers 5.23 on PyTorch's CPU kernels: scripts/measure_memory.py --model-config
# with the preset's values at 4 and at 6 layers, batch 1 x 1024 tokens, (after_forward - before_forward) / 2 /
# 1024, less the autocast weight copies under bf16-mixed.
_BF16 = ActivationLayout(compute_bytes=2, residual_bytes=2, autocast=False, trainable_base=True, device="cpu")
_MIXED = ActivationLayout(compute_bytes=2, residual_bytes=4, autocast=True, trainable_base=True, device="cpu")


def test_post_norm_layer_keeps_fp32_normalised_tensors_olmo2_7b() -> None:
    # h = q_dim = kv_dim = 4096. Two post-norms that multiply their weight in fp32: fp32 input, rsqrt, fp32
    # normalised (2 x (8h + 4)); q_norm and k_norm over the whole width, the same per element plus one rsqrt
    # per token each (8 x 8192 + 8); q/k/v's input and the MLP's input in bf16 (2 x 2h); SDPA's q, k, v,
    # output and log-sum-exp (2 x 16384 + 4 x 32); gate, activation, up, product (4 x 2 x 11008).
    spec = spec_from_config({**OLMO2_13B, "hidden_size": 4096, "intermediate_size": 11008,
                             "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32})
    expected = 2 * (8 * 4096 + 4) + (8 * 8192 + 8) + 4 * 4096 + (2 * 16384 + 128) + 8 * 11008
    assert saved_bytes_per_token_per_layer(spec, layout=_BF16, seq=1024).total == expected == 268_432


def test_parallel_block_layer_norm_command_r7b() -> None:
    # One LayerNorm: two fp32 copies of x - mean, rsqrt, fp32 normalised (12h + 4); under autocast each of
    # q, k, v, gate and up casts the shared norm output for itself (5 x 2h); SDPA (2 x (2 x 4096 + 2 x 1024)
    # + 4 x 32); the MLP (8 x 14336).
    spec = spec_from_config(COMMAND_R7B)
    expected = (12 * 4096 + 4) + 5 * 2 * 4096 + (2 * (8192 + 2048) + 128) + 8 * 14336
    assert saved_bytes_per_token_per_layer(spec, layout=_MIXED, seq=1024).total == expected == 225_412


def test_fused_qkv_buffer_kept_whole_by_its_v_view_phi4_mini() -> None:
    # Norms 2 x (4h + 4 + 2h); the two inputs 2 x 2h; SDPA 2 x (2 x 3072 + 2 x 1024) + 4 x 24; o_proj's
    # contiguous copy 2 x 3072; the rest of the fused q|k|v buffer that v's view keeps, 2 x (3072 + 1024);
    # fused gate_up output, activation, up half, product 4 x 2 x 8192.
    spec = spec_from_config(PHI4_MINI)
    expected = 2 * (6 * 3072 + 4) + 4 * 3072 + (2 * 8192 + 96) + 2 * 3072 + 2 * 4096 + 8 * 8192
    assert saved_bytes_per_token_per_layer(spec, layout=_BF16, seq=1024).total == expected == 145_512


def test_residual_dropout_keeps_its_masks_seed_oss() -> None:
    # The traces differ by 2 dropouts x 2 bytes x 5120 per token and layer with residual_dropout 0.1 or 0
    # (368,968 and 348,488 bytes); on CUDA native_dropout keeps a one-byte mask instead.
    spec = spec_from_config({**SEED_OSS_36B, "attention_dropout": 0.0})
    without = spec_from_config({**SEED_OSS_36B, "attention_dropout": 0.0, "residual_dropout": 0.0})
    assert saved_bytes_per_token_per_layer(spec, layout=_BF16, seq=1024).total == 368_968
    assert saved_bytes_per_token_per_layer(without, layout=_BF16, seq=1024).total == 348_488
    cuda = ActivationLayout(compute_bytes=2, residual_bytes=2, autocast=False, trainable_base=True)
    assert (saved_bytes_per_token_per_layer(spec, layout=cuda, seq=1024).total
            - saved_bytes_per_token_per_layer(without, layout=cuda, seq=1024).total) == 2 * 5120


# ------------------------------------------------------------------ KV cache per layer kind, 8k and 128k
# bf16 K and V per token and layer: 2 x KV heads x head_dim x 2 bytes; a full layer holds every token, a
# sliding layer min(context, window).
@pytest.mark.parametrize(("config", "per_layer_token", "full", "sliding", "window"), [
    (SMOLLM3_3B, 2 * 4 * 128 * 2, 36, 0, None),
    (OLMO2_13B, 2 * 40 * 128 * 2, 40, 0, None),
    (OLMO3_7B, 2 * 32 * 128 * 2, 8, 24, 4096),
    (COMMAND_A, 2 * 8 * 128 * 2, 16, 48, 4096),
    (EXAONE4_32B, 2 * 8 * 128 * 2, 16, 48, 4096),
    (SEED_OSS_36B, 2 * 8 * 128 * 2, 64, 0, None),
    (PHI4_MINI, 2 * 8 * 128 * 2, 0, 32, 262144),  # a window longer than the context: every token is held
])
@pytest.mark.parametrize("context", [8192, 131072])
def test_kv_cache_by_layer_kind(config: dict[str, Any], per_layer_token: int, full: int, sliding: int,
                                window: int | None, context: int) -> None:
    held = full * context + sliding * min(context, window or context)
    assert kv_cache_bytes(spec_from_config(config), batch=1, context=context, kv_dtype="bf16") \
        == per_layer_token * held
    assert kv_cache_bytes_per_token(spec_from_config(config)) == per_layer_token * (full + sliding)


def test_command_a_cache_at_128k_is_a_quarter_of_a_full_attention_model() -> None:
    # 16 global layers hold 131,072 tokens, 48 local layers 4096: 4096 x (2,097,152 + 196,608) bytes = 8.75 GiB,
    # where 64 full layers would hold 32 GiB.
    spec = spec_from_config(COMMAND_A)
    assert kv_cache_bytes(spec, batch=1, context=131072) == 9_395_240_960
    assert kv_cache_bytes_per_token(spec) * 131072 == 32 * 2**30


# ------------------------------------------------------------------ nothing guessed
@pytest.mark.parametrize("config", [SMOLLM3_3B, OLMO2_13B, OLMO3_7B, COMMAND_A, EXAONE4_32B, SEED_OSS_36B])
@pytest.mark.parametrize(("key", "value"), [("num_experts", 8), ("attention_chunk_size", 8192),
                                            ("hybrid_override_pattern", "M*")])
def test_an_unmodelled_layout_key_is_refused_by_name(config: dict[str, Any], key: str, value: Any) -> None:
    with pytest.raises(ConfigError) as info:
        spec_from_config({**config, key: value})
    assert info.value.field == f"config.{key}" and config["model_type"] in str(info.value)


def test_gemma3n_is_refused_by_name_with_the_reason() -> None:
    # google/gemma-3n-E4B's layout (Gemma3nTextConfig's defaults, whose docstring names that checkpoint).
    text = {"model_type": "gemma3n_text", "hidden_size": 2048, "num_hidden_layers": 35, "num_attention_heads": 8,
            "num_key_value_heads": 2, "head_dim": 256, "intermediate_size": [16384] * 35, "vocab_size": 262400,
            "hidden_size_per_layer_input": 256, "num_kv_shared_layers": 15, "laurel_rank": 64}
    for config in (text, {"model_type": "gemma3n", "text_config": text, "vision_config": {"hidden_size": 2048}}):
        with pytest.raises(ConfigError) as info:
            spec_from_config(config)
        assert info.value.field == "config.model_type" and "Gemma 3n is not modelled" in str(info.value)
    assert "AltUp" in REFUSED_MODEL_TYPES["gemma3n"]
