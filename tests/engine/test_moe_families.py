"""The 2025 attention + MoE families: Llama 4, GLM-4.5, MiniMax-M2, OLMoE, DeepSeek-V3.2, Kimi K2, ERNIE 4.5, Hunyuan.

Expected parameter counts are written out from the tensors of transformers 5.23's modules
(``modeling_llama4.py``, ``modeling_glm4_moe.py``, ``modeling_minimax_m2.py``, ``modeling_olmoe.py``,
``modeling_deepseek_v32.py``, ``modeling_ernie4_5_moe.py``, ``modeling_hunyuan_v1_moe.py``) and, where
stated, equal what transformers 5.23 builds from the same values on the meta device
(``sum(p.numel() for p in model.parameters())`` plus the persistent buffers its checkpoint stores,
the routers' ``e_score_correction_bias``). Each flagship config names its source.
"""

from __future__ import annotations

from typing import Any

import pytest

from calculators.errors import ConfigError
from calculators.memory.inference import inference_memory, kv_cache_bytes, kv_cache_bytes_per_token
from calculators.model_config import FAMILIES, spec_from_config

# ------------------------------------------------------------------ flagship configs (real values)
# meta-llama/Llama-4-Scout-17B-16E config.json (text_config and the top level), as printed with its
# per-module parameter table (total 109,676,279,296 with the vision tower) in a public GitHub doc.
SCOUT_TEXT: dict[str, Any] = {
    "model_type": "llama4_text", "attention_bias": False, "attention_chunk_size": 8192, "attn_scale": 0.1,
    "attn_temperature_tuning": 4, "floor_scale": 8192, "for_llm_compressor": False, "head_dim": 128,
    "hidden_act": "silu", "hidden_size": 5120, "interleave_moe_layer_step": 1, "intermediate_size": 8192,
    "intermediate_size_mlp": 16384, "max_position_embeddings": 262144, "moe_layers": list(range(48)),
    "no_rope_layers": [1, 1, 1, 0] * 12, "num_attention_heads": 40, "num_experts_per_tok": 1,
    "num_hidden_layers": 48, "num_key_value_heads": 8, "num_local_experts": 16, "output_router_logits": False,
    "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "router_aux_loss_coef": 0.001, "router_jitter_noise": 0.0,
    "use_qk_norm": True, "vocab_size": 202048,
}
SCOUT: dict[str, Any] = {
    "architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4", "boi_token_index": 200080,
    "eoi_token_index": 200081, "image_token_index": 200092, "tie_word_embeddings": False, "text_config": SCOUT_TEXT,
    # vision_config as the catalog record of meta-llama/Llama-4-Scout-17B-16E has it
    "vision_config": {"model_type": "llama4_vision_model", "hidden_size": 1408, "image_size": 336,
                      "intermediate_size": 5632, "num_attention_heads": 16, "num_hidden_layers": 34, "num_channels": 3,
                      "patch_size": 14, "pixel_shuffle_ratio": 0.5, "projector_input_dim": 4096,
                      "projector_output_dim": 4096, "vision_output_dim": 4096, "multi_modal_projector_bias": False},
}
# Llama-4-Maverick-17B-128E's text_config: TensorRT-LLM's test copy (its comment: "reduced to 2 layers from
# 48"), with the 48 layers and the default NoPE interval restored.
MAVERICK_TEXT: dict[str, Any] = {
    **SCOUT_TEXT, "interleave_moe_layer_step": 2, "num_local_experts": 128, "use_qk_norm": False,
    "max_position_embeddings": 1048576, "no_rope_layers": [], "moe_layers": None,
}
# GLM-4.6 / GLM-4.7 (the 355B GLM-4.5 architecture): nvidia/GLM-4.7-NVFP4 config.json as transcribed in a
# public test; GLM-4.5 differs only in max_position_embeddings (131072).
GLM_355B: dict[str, Any] = {
    "architectures": ["Glm4MoeForCausalLM"], "attention_bias": True, "attention_dropout": 0.0,
    "eos_token_id": [151329, 151336, 151338], "first_k_dense_replace": 3, "head_dim": 128, "hidden_act": "silu",
    "hidden_size": 5120, "initializer_range": 0.02, "intermediate_size": 12288, "max_position_embeddings": 202752,
    "model_type": "glm4_moe", "moe_intermediate_size": 1536, "n_group": 1, "n_routed_experts": 160,
    "n_shared_experts": 1, "norm_topk_prob": True, "num_attention_heads": 96, "num_experts_per_tok": 8,
    "num_hidden_layers": 92, "num_key_value_heads": 8, "num_nextn_predict_layers": 1, "pad_token_id": 151329,
    "partial_rotary_factor": 0.5, "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 1000000,
    "routed_scaling_factor": 2.5, "tie_word_embeddings": False, "topk_group": 1, "use_cache": True,
    "use_qk_norm": True, "vocab_size": 151552,
}
# zai-org/GLM-4.5-Air: Glm4MoeConfig as ms-swift's docs print it.
GLM_AIR: dict[str, Any] = {
    **GLM_355B, "hidden_size": 4096, "intermediate_size": 10944, "moe_intermediate_size": 1408,
    "n_routed_experts": 128, "first_k_dense_replace": 1, "num_hidden_layers": 46, "use_qk_norm": False,
    "routed_scaling_factor": 1.0, "max_position_embeddings": 131072,
}
# MiniMaxAI/MiniMax-M2 config.json: the keys a public Ascend deployment guide prints (the whole file less its
# quantization_config), plus the transformers-format keys a public vLLM plugin's contract test adds.
MINIMAX_M2: dict[str, Any] = {
    "model_type": "minimax_m2", "architectures": ["MiniMaxM2ForCausalLM"], "hidden_act": "silu", "hidden_size": 3072,
    "intermediate_size": 1536, "num_hidden_layers": 62, "num_attention_heads": 48, "num_key_value_heads": 8,
    "head_dim": 128, "rotary_dim": 64, "num_local_experts": 256, "num_experts_per_tok": 8,
    "shared_intermediate_size": 0, "scoring_func": "sigmoid", "use_routing_bias": True, "output_router_logits": False,
    "use_qk_norm": True, "qk_norm_type": "per_layer", "max_position_embeddings": 196608, "vocab_size": 200064,
    "rms_norm_eps": 1e-6, "attention_dropout": 0.0, "router_jitter_noise": 0.0, "num_mtp_modules": 3,
    "mtp_transformer_layers": 1, "use_mtp": True, "attention_bias": False, "tie_word_embeddings": False,
    "attn_type_list": [1] * 62, "rope_parameters": {"rope_type": "default", "rope_theta": 5000000},
}
# allenai/OLMoE-1B-7B-0924 (OlmoeConfig's checkpoint; intermediate_size 1024 as in its config.json).
OLMOE: dict[str, Any] = {
    "model_type": "olmoe", "architectures": ["OlmoeForCausalLM"], "attention_bias": False, "clip_qkv": None,
    "hidden_act": "silu", "hidden_size": 2048, "intermediate_size": 1024, "max_position_embeddings": 4096,
    "num_attention_heads": 16, "num_experts": 64, "num_experts_per_tok": 8, "num_hidden_layers": 16,
    "num_key_value_heads": 16, "norm_topk_prob": False, "rms_norm_eps": 1e-05, "rope_theta": 10000.0,
    "router_aux_loss_coef": 0.01, "tie_word_embeddings": False, "vocab_size": 50304,
}
# deepseek-ai/DeepSeek-V3.2-Exp: DeepSeek-V3's values (the catalog record's) plus the indexer's, as public
# copies of its config.json give them (index_n_heads 64, index_head_dim 128, index_topk 2048).
DEEPSEEK_V32: dict[str, Any] = {
    "model_type": "deepseek_v32", "architectures": ["DeepseekV32ForCausalLM"], "hidden_size": 7168,
    "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128, "intermediate_size": 18432,
    "moe_intermediate_size": 2048, "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8,
    "first_k_dense_replace": 3, "moe_layer_freq": 1, "n_group": 8, "topk_group": 4, "routed_scaling_factor": 2.5,
    "scoring_func": "sigmoid", "topk_method": "noaux_tc", "norm_topk_prob": True, "num_nextn_predict_layers": 1,
    "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    "vocab_size": 129280, "max_position_embeddings": 163840, "rms_norm_eps": 1e-06, "attention_bias": False,
    "tie_word_embeddings": False, "index_topk": 2048, "index_n_heads": 64, "index_head_dim": 128,
}
# moonshotai/Kimi-K2-Instruct: model_type kimi_k2, DeepseekV3ForCausalLM (public copies of its config.json).
KIMI_K2: dict[str, Any] = {
    **{k: v for k, v in DEEPSEEK_V32.items() if not k.startswith("index_")}, "model_type": "kimi_k2",
    "architectures": ["DeepseekV3ForCausalLM"], "num_attention_heads": 64, "num_key_value_heads": 64,
    "n_routed_experts": 384, "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1,
    "num_nextn_predict_layers": 0, "vocab_size": 163840, "routed_scaling_factor": 2.827,
    "max_position_embeddings": 131072,
}
# baidu/ERNIE-4.5-21B-A3B-PT (Ernie4_5_MoeConfig's checkpoint) config.json, as FastDeploy's tests copy it.
ERNIE_21B: dict[str, Any] = {
    "model_type": "ernie4_5_moe", "architectures": ["Ernie4_5_MoeForCausalLM"], "bos_token_id": 1, "eos_token_id": 2,
    "hidden_act": "silu", "hidden_size": 2560, "intermediate_size": 12288, "max_position_embeddings": 131072,
    "num_attention_heads": 20, "num_key_value_heads": 4, "num_hidden_layers": 28, "pad_token_id": 0,
    "rms_norm_eps": 1e-05, "use_cache": False, "vocab_size": 103424, "rope_theta": 500000, "use_rmsnorm": True,
    "use_bias": False, "moe_num_experts": 64, "moe_num_shared_experts": 2, "moe_layer_start_index": 1,
    "moe_intermediate_size": 1536, "moe_capacity": [64, 64, 64], "moe_gate": "topk", "moe_k": 6,
    "moe_layer_interval": 1, "moe_use_aux_free": True, "num_nextn_predict_layers": 1,
    "multi_token_pred_lambda": 0.3, "tie_word_embeddings": True,
}
# ERNIE-4.5-300B-A47B: the layout of the config copied in Ascend MindIE's ERNIE MoE tests.
ERNIE_300B: dict[str, Any] = {
    **ERNIE_21B, "hidden_size": 8192, "intermediate_size": 28672, "num_attention_heads": 64, "num_key_value_heads": 8,
    "num_hidden_layers": 54, "moe_num_shared_experts": 0, "moe_layer_start_index": 3, "moe_layer_end_index": 53,
    "moe_intermediate_size": 3584, "moe_k": 8,
}
# tencent/Hunyuan-A13B-Instruct config.json as first published (model_type "hunyuan", remote code; a copy in
# a public GitHub mirror of the model repository), the keys that describe the language model.
HUNYUAN_A13B: dict[str, Any] = {
    "architectures": ["HunYuanMoEV1ForCausalLM"], "attention_bias": False, "attention_head_dim": 128,
    "cla_share_factor": 2, "dense_list": [4096, 0], "hidden_act": "silu", "hidden_size": 4096,
    "intermediate_size": 3072, "kv_lora_rank": None, "max_position_embeddings": 32768, "mlp_bias": False,
    "model_type": "hunyuan", "moe_drop_tokens": False, "moe_intermediate_size": [3072] * 32,
    "moe_layer_num_skipped": 0, "moe_random_routing_dropped_token": False, "moe_topk": [8] * 32, "n_group": None,
    "norm_topk_prob": True, "num_attention_heads": 32, "num_experts": 64, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "num_shared_expert": [1] * 32, "q_lora_rank": None, "rms_norm_eps": 1e-05,
    "rope_theta": 10000.0, "tie_word_embeddings": True, "use_cla": False, "use_mixed_mlp_moe": True,
    "use_mla": False, "use_qk_norm": True, "vit_path": None, "vocab_size": 128167,
}

FLAGSHIPS = {"llama4": SCOUT, "glm4_moe": GLM_355B, "minimax_m2": MINIMAX_M2, "olmoe": OLMOE,
             "deepseek_v32": DEEPSEEK_V32, "kimi_k2": KIMI_K2, "ernie4_5_moe": ERNIE_21B, "hunyuan": HUNYUAN_A13B}


def test_every_family_is_registered() -> None:
    for model_type in ("llama4", "llama4_text", "glm4_moe", "minimax_m2", "olmoe", "deepseek_v32", "kimi_k2",
                       "ernie4_5_moe", "ernie4_5", "hunyuan_v1_moe", "hunyuan", "hunyuan_v1_dense"):
        assert model_type in FAMILIES, model_type


@pytest.mark.parametrize("family", sorted(FLAGSHIPS))
def test_real_configs_parse_with_no_refusal_and_no_guess(family: str) -> None:
    spec = spec_from_config(FLAGSHIPS[family])
    # No guess and nothing left out: Llama 4's vision tower is counted too (model_config.vision_language).
    assert spec.warnings == ()
    assert (spec.vision is not None) == (family == "llama4")


# ------------------------------------------------------------------ parameters by hand
def test_llama4_scout_by_hand() -> None:
    # Per layer: attention q 5120 x 5120, k and v 5120 x 1024, o 5120 x 5120 (no qk-norm weights);
    # MoE 16 experts x 3 x 5120 x 8192 + one shared expert 3 x 5120 x 8192 + router 5120 x 16; two norms.
    attention = 2 * 5120 * 5120 + 2 * 5120 * 1024
    moe = 17 * 3 * 5120 * 8192 + 5120 * 16
    per_layer = attention + moe + 2 * 5120
    expected = 48 * per_layer + 2 * 202048 * 5120 + 5120
    spec = spec_from_config(SCOUT)
    # transformers 5.23 builds 107,769,861,120 for the text model, and 108,641,793,536 with the vision tower and
    # projector (871,932,416), the hub total kvfit records for the checkpoint.
    assert spec.parameters - spec.vision_parameters == expected == 107_769_861_120
    assert spec.vision_parameters == 871_932_416 and spec.parameters == 108_641_793_536
    # NoPE every fourth layer: 12 global layers, 36 chunked to 8192 tokens.
    assert (spec.count_layers(mixer="full_attention"), spec.count_layers(mixer="chunked_attention")) == (12, 36)
    assert [layer.attention for layer in spec.layers[:4]] == ["chunked_attention"] * 3 + ["full_attention"]
    assert round(spec.active_parameters / 1e9) == 17  # "17B active"


def test_llama4_maverick_interleaves_dense_and_moe_layers() -> None:
    spec = spec_from_config(MAVERICK_TEXT)
    # interleave_moe_layer_step 2: layers 1, 3, ..., 47 are MoE (128 experts + shared), the others dense
    # MLPs intermediate_size_mlp (16384) wide.
    assert [layer.mlp for layer in spec.layers[:4]] == ["dense", "moe", "dense", "moe"]
    attention = 2 * 5120 * 5120 + 2 * 5120 * 1024
    dense = attention + 3 * 5120 * 16384 + 2 * 5120
    moe = attention + 129 * 3 * 5120 * 8192 + 5120 * 128 + 2 * 5120
    assert spec.parameters == 24 * dense + 24 * moe + 2 * 202048 * 5120 + 5120 == 400_711_848_960  # transformers: same
    assert round(spec.parameters / 1e9) == 401 and round(spec.active_parameters / 1e9) == 17  # "400B", "17B active"


def test_glm_355b_by_hand_with_its_stored_mtp_layer() -> None:
    # Attention: q 5120 -> 12288 and k, v 5120 -> 1024 with biases, o 12288 -> 5120 without, q/k norms 2 x 128.
    attention = 5120 * 12288 + 12288 + 2 * (5120 * 1024 + 1024) + 12288 * 5120 + 2 * 128
    dense = 3 * 5120 * 12288
    # MoE: 160 experts + 1 shared, 3 x 5120 x 1536 each; router 160 x 5120 and its correction bias (160).
    moe = 161 * 3 * 5120 * 1536 + 160 * 5120 + 160
    norms = 2 * 5120
    main = 3 * (attention + dense + norms) + 89 * (attention + moe + norms) + 2 * 151552 * 5120 + 5120
    spec = spec_from_config(GLM_355B)
    assert spec.parameters == main == 352_797_829_024  # transformers 5.23: same (parameters + buffers)
    # One MTP layer: a MoE decoder layer, eh_proj 2 x 5120 x 5120, enorm, hnorm, shared_head.norm, and its own
    # embedding and head: 358,337,791,296, the hub's 358.34B.
    mtp = attention + moe + norms + 2 * 5120 * 5120 + 3 * 5120 + 2 * 151552 * 5120
    assert spec.stored_parameters == main + mtp == 358_337_791_296


def test_glm_air_without_qk_norm() -> None:
    spec = spec_from_config(GLM_AIR)
    assert not spec.qk_norm and spec.num_dense_layers == 1
    assert spec.parameters == 106_852_251_264  # transformers 5.23: same; GLM publishes 106B
    assert spec.stored_parameters == 110_468_824_832


def test_minimax_m2_by_hand() -> None:
    # q/k norms span every head: 48 x 128 = 6144 and 8 x 128 = 1024 weights.
    attention = 3072 * 6144 + 2 * 3072 * 1024 + 6144 * 3072 + 6144 + 1024
    moe = 256 * 3 * 3072 * 1536 + 256 * 3072 + 256  # experts, router, correction bias
    expected = 62 * (attention + moe + 2 * 3072) + 2 * 200064 * 3072 + 3072
    spec = spec_from_config(MINIMAX_M2)
    assert spec.parameters == expected == 228_689_764_864  # transformers: same; 229B on model pages (no MTP)
    assert spec.stored_parameters == spec.parameters


def test_olmoe_by_hand() -> None:
    attention = 4 * 2048 * 2048 + 2048 + 2048  # q, k, v, o and the full-width q/k norms
    moe = 64 * 3 * 2048 * 1024 + 64 * 2048
    spec = spec_from_config(OLMOE)
    assert spec.parameters == 16 * (attention + moe + 2 * 2048) + 2 * 50304 * 2048 + 2048 == 6_919_161_856
    assert round(spec.active_parameters / 1e9, 1) == 1.3  # "1B active" (1.3B in the OLMoE paper)


def test_deepseek_v32_adds_an_indexer_to_every_layer() -> None:
    # Indexer per layer: wq_b 1536 x 64 x 128, wk 7168 x 128, LayerNorm 2 x 128, weights_proj 7168 x 64.
    indexer = 1536 * 64 * 128 + 7168 * 128 + 2 * 128 + 7168 * 64
    spec = spec_from_config(DEEPSEEK_V32)
    # DeepSeek-V3's main model is 671,026,419,200 (the catalog's hub total less MTP and FP8 scales).
    assert spec.parameters == 671_026_419_200 + 61 * indexer == 671_877_944_064  # transformers 5.23: same
    # The stored MTP layer (13,463,426,304 in V3) has its indexer too: 685.36B, the hub's "685B".
    assert spec.stored_parameters == spec.parameters + 13_463_426_304 + indexer


def test_kimi_k2_is_read_as_deepseek_v3() -> None:
    spec = spec_from_config(KIMI_K2)
    mla = 7168 * 1536 + 1536 + 1536 * 64 * 192 + 7168 * 576 + 512 + 512 * 64 * 256 + 64 * 128 * 7168
    moe = 385 * 3 * 7168 * 2048 + 384 * 7168 + 384
    expected = (mla + 3 * 7168 * 18432 + 2 * 7168) + 60 * (mla + moe + 2 * 7168) + 2 * 163840 * 7168 + 7168
    assert spec.parameters == expected == 1_026_408_232_448  # transformers 5.23 (deepseek_v3): same; "1T"
    assert spec.model_type == "kimi_k2" and spec.mtp_layers == 0
    assert round(spec.active_parameters / 1e9) == 33  # Moonshot: 32B activated


def test_ernie_21b_by_hand() -> None:
    attention = 2 * 2560 * 2560 + 2 * 2560 * 512  # 20 heads and 4 KV heads of 128
    dense = 3 * 2560 * 12288
    # 64 experts + one shared MLP of 2 x 1536; router 64 x 2560 and its correction bias (a parameter).
    moe = 64 * 3 * 2560 * 1536 + 3 * 2560 * 3072 + 64 * 2560 + 64
    spec = spec_from_config(ERNIE_21B)
    expected = (attention + dense + 2 * 2560) + 27 * (attention + moe + 2 * 2560) + 103424 * 2560 + 2560
    assert spec.parameters == expected == 21_825_437_888  # transformers: same; hub 21.8B (no MTP layer stored)
    assert round(spec.active_parameters / 1e9) == 3


def test_ernie_300b_places_moe_from_start_to_end() -> None:
    spec = spec_from_config(ERNIE_300B)
    assert [layer.mlp for layer in spec.layers[:4]] == ["dense", "dense", "dense", "moe"]
    assert spec.num_moe_layers == 51
    assert spec.parameters == 298_636_913_856  # transformers 5.23: same; Baidu: 300B total, 47B active
    assert round(spec.active_parameters / 1e9) == 47


def test_hunyuan_a13b_by_hand() -> None:
    attention = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 2 * 128  # per-head query/key layernorms
    moe = 65 * 3 * 4096 * 3072 + 64 * 4096  # 64 experts + the shared MLP, router without bias
    spec = spec_from_config(HUNYUAN_A13B)
    assert spec.parameters == 32 * (attention + moe + 2 * 4096) + 128167 * 4096 + 4096 == 80_393_183_232
    assert round(spec.active_parameters / 1e9) == 13  # "80B total, 13B active"


# ------------------------------------------------------------------ variants: transformers 5.23 meta builds
_TINY = {"hidden_size": 256, "vocab_size": 1000}
VARIANTS: list[tuple[str, dict[str, Any], int]] = [
    ("llama4: step 3, NoPE every 2nd, biases, tied", {
        **SCOUT_TEXT, **_TINY, "head_dim": 32, "num_attention_heads": 8, "num_key_value_heads": 2,
        "num_hidden_layers": 6, "intermediate_size": 128, "intermediate_size_mlp": 384, "num_local_experts": 4,
        "num_experts_per_tok": 2, "moe_layers": None, "interleave_moe_layer_step": 3, "no_rope_layers": [],
        "no_rope_layer_interval": 2, "attention_bias": True, "tie_word_embeddings": True}, 3_410_944),
    ("llama4: moe_layers list, no_rope_layers list", {
        **SCOUT_TEXT, **_TINY, "head_dim": 32, "num_attention_heads": 8, "num_key_value_heads": 2,
        "num_hidden_layers": 4, "intermediate_size": 128, "intermediate_size_mlp": 384, "num_local_experts": 4,
        "moe_layers": [0, 3], "no_rope_layers": [1, 0, 1, 1]}, 2_744_576),
    ("glm4_moe: 2 shared experts, no biases, tied", {
        **GLM_355B, **_TINY, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 48,
        "intermediate_size": 512, "moe_intermediate_size": 64, "n_routed_experts": 8, "num_experts_per_tok": 2,
        "n_shared_experts": 2, "first_k_dense_replace": 2, "num_hidden_layers": 5, "attention_bias": False,
        "tie_word_embeddings": True, "pad_token_id": None}, 3_755_256),
    ("minimax_m2: head_dim 96, tied", {
        **MINIMAX_M2, **_TINY, "intermediate_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 96, "num_local_experts": 8, "num_experts_per_tok": 2,
        "attn_type_list": [1, 1, 1], "tie_word_embeddings": True}, 2_330_072),
    ("olmoe: GQA, biases, tied", {
        **OLMOE, **_TINY, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 8,
        "num_key_value_heads": 2, "num_experts": 4, "num_experts_per_tok": 2, "attention_bias": True,
        "tie_word_embeddings": True}, 982_144),
    ("deepseek_v32: small indexer, mlp_layer_types, layer_types", {
        **DEEPSEEK_V32, **_TINY, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 4,
        "intermediate_size": 512, "moe_intermediate_size": 64, "n_routed_experts": 8, "num_experts_per_tok": 2,
        "n_group": 1, "topk_group": 1, "first_k_dense_replace": 1, "q_lora_rank": 96, "kv_lora_rank": 32,
        "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 32, "index_n_heads": 4, "index_head_dim": 32,
        "index_topk": 8, "mlp_layer_types": ["dense", "sparse", "dense", "sparse"],
        "layer_types": ["indexed_attention"] * 4}, 2_661_392),
    ("ernie4_5_moe: biases, untied, interval 2, end 5", {
        **ERNIE_21B, **_TINY, "intermediate_size": 512, "num_attention_heads": 4, "num_key_value_heads": 2,
        "num_hidden_layers": 7, "moe_num_experts": 8, "moe_k": 2, "moe_intermediate_size": 64,
        "moe_layer_end_index": 5, "moe_layer_interval": 2, "use_bias": True, "tie_word_embeddings": False},
        4_958_720),
    ("ernie4_5_moe: biases, tied (the head keeps its bias)", {
        **ERNIE_21B, **_TINY, "intermediate_size": 512, "num_attention_heads": 4, "num_key_value_heads": 2,
        "num_hidden_layers": 3, "moe_num_experts": 8, "moe_k": 2, "moe_intermediate_size": 64, "use_bias": True},
        2_233_592),
    ("ernie4_5: biases, untied, default head_dim 128", {
        "model_type": "ernie4_5", **_TINY, "intermediate_size": 512, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "use_bias": True, "tie_word_embeddings": False},
        2_091_264),
    ("hunyuan_v1_moe: biases, untied, head_dim 48", {
        **HUNYUAN_A13B, **_TINY, "model_type": "hunyuan_v1_moe", "intermediate_size": 128,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 48, "num_hidden_layers": 2,
        "num_experts": 4, "moe_topk": 2, "moe_intermediate_size": 128, "num_shared_expert": 1,
        "attention_bias": True, "tie_word_embeddings": False}, 1_794_752),
    ("hunyuan_v1_dense: biases", {
        "model_type": "hunyuan_v1_dense", **_TINY, "num_hidden_layers": 2, "intermediate_size": 512,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 48, "attention_bias": True}, 1_596_096),
]


@pytest.mark.parametrize(("label", "config", "built"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_variants_match_transformers_meta_builds(label: str, config: dict[str, Any], built: int) -> None:
    # ``built``: what transformers 5.23 builds from these values on the meta device (parameters + buffers).
    assert spec_from_config(config).parameters == built, label


def test_ernie_experts_never_take_use_bias() -> None:
    plain = spec_from_config({**VARIANTS[7][1], "use_bias": False})
    biased = spec_from_config(VARIANTS[7][1])
    # use_bias adds q/k/v/o biases (2 x 256 + 2 x 128 per layer), MLP biases on the dense layer (2 x 512 +
    # 256) and on each shared MLP (2 x 128 + 256), and the head's bias (1000): none on the 8 routed experts.
    layer_attention = 256 + 128 + 128 + 256
    expected = 3 * layer_attention + (2 * 512 + 256) + 2 * (2 * 128 + 256) + 1000
    assert biased.parameters - plain.parameters == expected


# ------------------------------------------------------------------ KV cache per layer kind
@pytest.mark.parametrize("context", [8192, 131072])
def test_llama4_chunked_layers_hold_a_chunk(context: int) -> None:
    spec = spec_from_config(SCOUT)
    per_token_layer = 2 * 8 * 128 * 2  # K and V, 8 KV heads x 128, bf16
    # 12 NoPE layers hold the whole context; 36 RoPE layers at most one 8192-token chunk.
    expected = per_token_layer * (12 * context + 36 * min(context, 8192))
    assert kv_cache_bytes(spec, batch=1, context=context) == expected
    assert kv_cache_bytes_per_token(spec) == 48 * per_token_layer  # before any chunk
    if context == 131072:
        assert expected == 7_650_410_496  # 7.1 GiB where 48 full layers would hold 24 GiB


@pytest.mark.parametrize(("config", "per_token"), [
    (GLM_355B, 92 * 2 * 8 * 128 * 2),
    (MINIMAX_M2, 62 * 2 * 8 * 128 * 2),
    (OLMOE, 16 * 2 * 16 * 128 * 2),
    (ERNIE_21B, 28 * 2 * 4 * 128 * 2),
    (HUNYUAN_A13B, 32 * 2 * 8 * 128 * 2),
    (KIMI_K2, 61 * (512 + 64) * 2),  # MLA: the latent and the rotary key
    (DEEPSEEK_V32, 61 * ((512 + 64) * 2 + 128 * 2)),  # plus the indexer's 128-wide key
], ids=["glm-4.6", "minimax-m2", "olmoe", "ernie-21b", "hunyuan-a13b", "kimi-k2", "deepseek-v3.2"])
@pytest.mark.parametrize("context", [8192, 131072])
def test_full_attention_cache_grows_with_context(config: dict[str, Any], per_token: int, context: int) -> None:
    spec = spec_from_config(config)
    assert kv_cache_bytes_per_token(spec) == per_token
    assert kv_cache_bytes(spec, batch=2, context=context) == 2 * context * per_token


def test_deepseek_v32_fp8_index_keys_carry_a_scale() -> None:
    spec = spec_from_config(DEEPSEEK_V32)
    # FP8 cache: the latent and rotary key one byte each, the index key 128 bytes + one fp32 scale.
    assert kv_cache_bytes_per_token(spec, kv_dtype="fp8") == 61 * (512 + 64 + 128 + 4)
    estimate = inference_memory(spec, weights="fp8", kv_cache="fp8", batch=1, context=8192)
    assert any("indexer" in note and "132 bytes" in note for note in estimate.notes), estimate.notes


# ------------------------------------------------------------------ nothing guessed
def _refused(config: dict[str, Any], key: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        spec_from_config(config)
    assert info.value.field == f"config.{key}", str(info.value)
    return info.value


@pytest.mark.parametrize(("config", "key", "value"), [
    (SCOUT_TEXT, "linear_num_value_heads", 8),
    (GLM_355B, "mamba_d_state", 16),
    (MINIMAX_M2, "moe_latent_size", 64),
    (OLMOE, "kv_lora_rank", 64),
    (DEEPSEEK_V32, "index_share_for_mtp_iteration", True),
    (ERNIE_21B, "moe_num_attn_experts", 4),
    (HUNYUAN_A13B, "hybrid_override_pattern", "M*"),
])
def test_unread_layout_keys_are_refused_by_name(config: dict[str, Any], key: str, value: Any) -> None:
    error = _refused({**config, key: value}, key)
    assert "miscounted" in str(error)


@pytest.mark.parametrize(("config", "key", "value"), [
    (MINIMAX_M2, "attn_type_list", [0] + [1] * 61),  # MiniMax-01's lightning-attention layers
    (MINIMAX_M2, "shared_intermediate_size", 512),
    (MINIMAX_M2, "qk_norm_type", "per_head"),
    (HUNYUAN_A13B, "use_cla", True),  # Hunyuan-Large's cross-layer attention
    (HUNYUAN_A13B, "moe_topk", [8] * 31 + [2]),
    (HUNYUAN_A13B, "moe_layer_num_skipped", 2),
    (OLMOE, "head_dim", 64),
    (SCOUT_TEXT, "no_rope_layers", [1, 0]),
    (DEEPSEEK_V32, "layer_types", ["full_attention"] * 61),
    (DEEPSEEK_V32, "q_lora_rank", None),
])
def test_layouts_the_readers_do_not_model_are_refused(config: dict[str, Any], key: str, value: Any) -> None:
    _refused({**config, key: value}, key)


def test_a_missing_expert_key_takes_the_configuration_class_default_with_a_note() -> None:
    config = {k: v for k, v in GLM_AIR.items() if k != "n_routed_experts"}
    spec = spec_from_config(config)
    assert spec.moe is not None and spec.moe.num_experts == 128  # Glm4MoeConfig's default
    assert any("n_routed_experts" in note for note in spec.notes)


def test_hunyuan_widths_other_than_transformers_are_counted_as_vllm_reads_them_with_a_note() -> None:
    config = {**HUNYUAN_A13B, "moe_intermediate_size": [1536] * 32, "num_shared_expert": [2] * 32}
    spec = spec_from_config(config)
    assert spec.moe is not None
    assert (spec.moe.expert_intermediate_size, spec.moe.shared_intermediate_size) == (1536, 2 * 3072)
    assert any("vLLM" in note for note in spec.notes)
