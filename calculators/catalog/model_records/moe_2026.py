"""Catalog records (pending): Kimi K2, DeepSeek-V3.2 and MiniMax-M2.7, the large MoE models of 2025-26.

Not registered: ``kimi_k2``, ``deepseek_v32`` and ``minimax_m2`` are not read by
:mod:`calculators.model_config` yet (Kimi K2 is DeepSeek-V3-shaped under another model_type;
V3.2 adds a lightning indexer per layer; MiniMax-M2 has per-layer q/k norms over all heads
and partial rotary).
"""

from __future__ import annotations

from calculators.catalog.model_record import (
    AIC_CONFIGS,
    ATLAS_FEATURED,
    AUDIT_TABLE,
    KVFIT_COUNTS,
    READ_ON_2026_MODELS,
    ModelRecord,
    Published,
    config_source,
    hub_api_source,
    record,
)

_D = READ_ON_2026_MODELS
_FP8 = {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic", "weight_block_size": [128, 128]}

#: DeepSeek-V3.2's MTP layer: DeepSeek-V3's (13,463,426,304; see the deepseek-v3 record) plus the
#: lightning indexer every V3.2 layer has: wq_b 1536 -> 64 x 128, wk 7168 -> 128, k_norm (LayerNorm
#: weight and bias, 128 each) and weights_proj 7168 -> 64.
V32_INDEXER = 1536 * 64 * 128 + 7168 * 128 + 2 * 128 + 7168 * 64
V32_MTP = 13_463_426_304 + V32_INDEXER

RECORDS: tuple[ModelRecord, ...] = (
    record(
        "kimi-k2-instruct", "Kimi K2 Instruct", "moonshotai/Kimi-K2-Instruct", "kimi",
        {"model_type": "kimi_k2", "architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 7168,
         "num_hidden_layers": 61, "num_attention_heads": 64, "num_key_value_heads": 64,
         "intermediate_size": 18432, "moe_intermediate_size": 2048, "n_routed_experts": 384,
         "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 1, "moe_layer_freq": 1,
         "n_group": 1, "topk_group": 1, "routed_scaling_factor": 2.827, "scoring_func": "sigmoid",
         "topk_method": "noaux_tc", "norm_topk_prob": True, "num_nextn_predict_layers": 0, "q_lora_rank": 1536,
         "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
         "vocab_size": 163840, "max_position_embeddings": 131072, "rope_theta": 50000.0,
         "rope_scaling": {"type": "yarn", "factor": 32.0, "original_max_position_embeddings": 4096,
                          "beta_fast": 1.0, "beta_slow": 1.0, "mscale": 1.0, "mscale_all_dim": 1.0},
         "attention_bias": False, "rms_norm_eps": 1e-06, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
         "quantization_config": _FP8},
        config_source("moonshotai/Kimi-K2-Instruct", AIC_CONFIGS.format("moonshotai--Kimi-K2-Instruct"), as_of=_D),
        notes=("DeepSeek-V3's architecture (MLA, sigmoid-routed MoE with one shared expert) under model_type "
               "kimi_k2: 64 heads instead of 128, 384 routed experts instead of 256, one dense layer, no MTP layer.",
               "The hub total 1,026,408,235,864 (" + KVFIT_COUNTS + "; the same figure in " + AUDIT_TABLE + ") "
               "is 3,416 elements more than the model built by transformers (1,026,408,209,408) plus its 60 x 384 "
               "routers' e_score_correction_bias; those 3,416 (56 per layer) could not be identified, so no "
               "exact published count is recorded. The FP8 block scales are not in that total.",
               "Moonshot: 1T total, 32B activated parameters (rounded)."),
    ),
    record(
        "deepseek-v3.2", "DeepSeek-V3.2", "deepseek-ai/DeepSeek-V3.2", "deepseek",
        {"model_type": "deepseek_v32", "hidden_size": 7168, "num_hidden_layers": 61, "num_attention_heads": 128,
         "num_key_value_heads": 128, "intermediate_size": 18432, "moe_intermediate_size": 2048,
         "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
         "moe_layer_freq": 1, "n_group": 8, "topk_group": 4, "routed_scaling_factor": 2.5,
         "scoring_func": "sigmoid", "topk_method": "noaux_tc", "norm_topk_prob": True,
         "num_nextn_predict_layers": 1, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
         "qk_rope_head_dim": 64, "v_head_dim": 128, "index_head_dim": 128, "index_n_heads": 64, "index_topk": 2048,
         "vocab_size": 129280, "max_position_embeddings": 163840, "rope_theta": 10000,
         "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096,
                          "beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0},
         "attention_bias": False, "rms_norm_eps": 1e-06, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
         "quantization_config": {**_FP8, "scale_fmt": "ue8m0"}},
        config_source("deepseek-ai/DeepSeek-V3.2", AIC_CONFIGS.format("deepseek-ai--DeepSeek-V3.2")
                      + " (transformers 5.23.0's DeepseekV32Config defaults, documented as DeepSeek-V3.2-Exp's, "
                      "are the same)", as_of=_D),
        Published(
            685355329792,
            hub_api_source("deepseek-ai/DeepSeek-V3.2", "main",
                           via=ATLAS_FEATURED.format("deepseek-ai__DeepSeek-V3.2.api.json"), as_of=_D), extra=V32_MTP),
        notes=("DeepSeek-V3's tensors plus a lightning indexer in every layer (64 heads of 128 scoring past "
               "tokens; the attention then reads the top index_topk = 2048 tokens), whose own K cache of 128 "
               "values per token adds to the MLA latent cache.",
               "The hub total (BF16 3,946,184,704 + F8_E4M3 681,408,069,632 + F32 1,075,456) is the model with "
               "its routers' e_score_correction_bias plus the MTP layer (published_extra_elements = DeepSeek-V3's "
               "13,463,426,304 + one indexer, 13,959,424). The block scales (scale_fmt ue8m0, one byte per "
               "128 x 128 block) are not counted in it.",
               "DeepSeek-V3.2-Exp (deepseek-ai/DeepSeek-V3.2-Exp) is the same architecture."),
    ),
    record(
        "minimax-m2.7", "MiniMax-M2.7", "MiniMaxAI/MiniMax-M2.7", "minimax",
        {"model_type": "minimax_m2", "hidden_size": 3072, "num_hidden_layers": 62, "num_attention_heads": 48,
         "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 1536, "num_local_experts": 256,
         "num_experts_per_tok": 8, "shared_intermediate_size": 0, "vocab_size": 200064,
         "max_position_embeddings": 204800, "rope_theta": 5000000, "rotary_dim": 64, "use_qk_norm": True,
         "qk_norm_type": "per_layer", "use_routing_bias": True, "scoring_func": "sigmoid", "use_mtp": True,
         "num_mtp_modules": 3, "mtp_transformer_layers": 1, "attn_type_list": [1] * 62, "hidden_act": "silu",
         "rms_norm_eps": 1e-06, "tie_word_embeddings": False,
         "quantization_config": {"quant_method": "fp8", "fmt": "float8_e4m3fn", "activation_scheme": "dynamic",
                                 "weight_block_size": [128, 128],
                                 "modules_to_not_convert": ["gate", "e_score_correction_bias", "lm_head"]}},
        config_source("MiniMaxAI/MiniMax-M2.7", AIC_CONFIGS.format("MiniMaxAI--MiniMax-M2.7"), as_of=_D),
        Published(
            228689764864,
            hub_api_source("MiniMaxAI/MiniMax-M2.7", "main", via=AUDIT_TABLE, as_of=_D)),
        notes=("62 full-attention layers (attn_type_list all 1), each with RMSNorms over the whole q and k "
               "projections (qk_norm_type per_layer: 48 x 128 and 8 x 128 weights), RoPE on 64 of 128 dimensions "
               "(rotary_dim), and 256 experts of width 1536 (8 per token, sigmoid routing with a bias, no shared "
               "expert).",
               "The hub total is exactly the model plus its routers' e_score_correction_bias (62 x 256): the "
               "checkpoint stores no MTP modules (use_mtp is a training setting here) and the FP8 block scales "
               "are not counted in the total.",
               "MiniMax-M2 and M2.5 have the same architecture (M2.5's copy in aiconfigurator differs only in "
               "max_position_embeddings, 196,608). MiniMax: 230B total, 10B active (rounded)."),
    ),
)
