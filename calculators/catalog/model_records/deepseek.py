"""Catalog records: DeepSeek-V3 and DeepSeek-R1: multi-head latent attention and a MoE with a shared expert."""

from __future__ import annotations

from calculators.catalog.model_record import (
    ATLAS,
    READ_ON_2025_MODELS,
    ModelRecord,
    Published,
    config_source,
    hub_api_source,
    record,
)

_DEEPSEEK_V3_CONFIG = {
    "model_type": "deepseek_v3", "hidden_size": 7168, "num_hidden_layers": 61,
    "num_attention_heads": 128, "num_key_value_heads": 128, "intermediate_size": 18432,
    "moe_intermediate_size": 2048, "n_routed_experts": 256, "n_shared_experts": 1,
    "num_experts_per_tok": 8, "first_k_dense_replace": 3, "moe_layer_freq": 1,
    "n_group": 8, "topk_group": 4, "routed_scaling_factor": 2.5, "scoring_func": "sigmoid",
    "topk_method": "noaux_tc", "norm_topk_prob": True, "num_nextn_predict_layers": 1,
    "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
    "v_head_dim": 128, "vocab_size": 129280, "max_position_embeddings": 163840,
    "rope_theta": 10000.0,
    "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096,
                     "beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0},
    "rms_norm_eps": 1e-06, "attention_bias": False, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                            "weight_block_size": [128, 128]},
}
_DEEPSEEK_EXTRA_NOTE = (
    "The hub total (BF16 3,918,786,560 + F8_E4M3 680,571,043,840 + F32 41,555,600) counts every "
    "stored element. Two parts are not the 671B main model that ModelSpec counts: "
    "(1) the multi-token-prediction module (num_nextn_predict_layers = 1), 13,463,426,304 elements "
    "= one MoE decoder layer 11,507,286,272 + eh_proj 2 x 7168 x 7168 + enorm, hnorm and "
    "shared_head.norm 3 x 7168 + its own copies of embed_tokens and shared_head.head 2 x 129,280 x 7168; "
    "(2) 41,540,496 FP32 weight_scale_inv values, one per 128 x 128 block of every FP8 linear "
    "(the other 15,104 F32 values are the routers' e_score_correction_bias, which are parameters)."
)

RECORDS: tuple[ModelRecord, ...] = (
    # ---- DeepSeek-V3 ---------------------------------------------------------------------
    record(
        "deepseek-v3", "DeepSeek-V3", "deepseek-ai/DeepSeek-V3", "deepseek",
        _DEEPSEEK_V3_CONFIG,
        config_source("deepseek-ai/DeepSeek-V3", ATLAS.format("deepseek-v3.config.json") + " and other copies"),
        Published(
            684531386000,
            hub_api_source("deepseek-ai/DeepSeek-V3", "main", via=ATLAS.format("deepseek-v3.api.json")),
            extra=13463426304 + 41540496),
        notes=(
            _DEEPSEEK_EXTRA_NOTE,
            "DeepSeek describes the release as 671B main-model weights plus a 14B MTP module, about 685B in all.",
            "Weights ship in FP8 (E4M3) with FP32 block scales, so bytes are not 2 x parameters: the "
            "safetensors total_size cannot be halved to a count.",
            "About 37B parameters are active per token (DeepSeek's rounded figure; no exact count is published).",
        ),
    ),
    record(
        "deepseek-r1", "DeepSeek-R1", "deepseek-ai/DeepSeek-R1", "deepseek",
        _DEEPSEEK_V3_CONFIG,
        config_source("deepseek-ai/DeepSeek-R1", "DeepSeek-V3's values (R1 is trained from DeepSeek-V3-Base; "
                      "the hub reports the same element count per dtype for both checkpoints)",
                      as_of=READ_ON_2025_MODELS),
        Published(
            684531386000,
            hub_api_source("deepseek-ai/DeepSeek-R1", "56d4cbbb4d29f4355bab4b9a39ccb717a14ad5ad",
                           via=("the example hub response (safetensors BF16 3,918,786,560, F8_E4M3 680,571,043,840, "
                                "F32 41,555,600) in the huggingface/get-model command documentation of "
                                "github.com/bqw1013/WebSculpt"),
                           as_of=READ_ON_2025_MODELS), extra=13463426304 + 41540496),
        notes=(
            "DeepSeek-R1 is a reinforcement-learning fine-tune of DeepSeek-V3-Base: the same tensors, "
            "the same MTP module and FP8 block scales, the same hub total element for element.",
            _DEEPSEEK_EXTRA_NOTE,
            "DeepSeek gives 671B total and 37B activated parameters for R1 as for V3 (rounded).",
            "Reasoning traces make long outputs the norm: size the KV cache for prompt plus thousands of "
            "generated tokens.",
        ),
    ),
)
