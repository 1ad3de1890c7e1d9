"""Catalog records (pending): GLM-4.5, GLM-4.5-Air and GLM-4.6 (``glm4_moe``).

Not registered: :mod:`calculators.model_config` does not read ``glm4_moe`` yet (dense first
layers, a shared expert, partial rotary, a stored multi-token-prediction layer).
"""

from __future__ import annotations

from calculators.catalog.model_record import (
    ATLAS_FEATURED,
    KVFIT_CONFIGS,
    KVFIT_COUNTS,
    MOE_JOURNAL,
    READ_ON_2026_MODELS,
    READ_ON_2026_MORE,
    ModelRecord,
    Published,
    config_source,
    hub_api_source,
    record,
)

_D = READ_ON_2026_MODELS

_GLM = {
    "model_type": "glm4_moe", "head_dim": 128, "num_attention_heads": 96, "num_key_value_heads": 8,
    "n_shared_experts": 1, "num_experts_per_tok": 8, "n_group": 1, "topk_group": 1, "norm_topk_prob": True,
    "attention_bias": True, "partial_rotary_factor": 0.5, "num_nextn_predict_layers": 1,
    "vocab_size": 151552, "tie_word_embeddings": False, "rms_norm_eps": 1e-05, "rope_theta": 1000000,
    "hidden_act": "silu", "torch_dtype": "bfloat16",
}
_GLM_355B = {
    **_GLM, "hidden_size": 5120, "num_hidden_layers": 92, "intermediate_size": 12288,
    "moe_intermediate_size": 1536, "n_routed_experts": 160, "first_k_dense_replace": 3,
    "routed_scaling_factor": 2.5, "use_qk_norm": True,
}
_GLM_NOTE = (
    "The first first_k_dense_replace layers have a dense MLP of width intermediate_size; every later layer "
    "has a sigmoid router (with an e_score_correction_bias per expert, stored, counted here as parameters), "
    "n_routed_experts experts of width moe_intermediate_size (8 per token) and one shared expert. q/k/v have "
    "biases; RoPE covers half of each head (partial_rotary_factor 0.5)."
)
_MTP_NOTE = (
    "The checkpoint stores one multi-token-prediction layer (num_nextn_predict_layers 1) after the last "
    "decoder layer, which transformers does not build: one MoE decoder layer + eh_proj (2 x hidden -> hidden) "
    "+ enorm, hnorm and shared_head.norm + its own copies of embed_tokens and shared_head.head. "
    "published_extra_elements is that layer; the tests re-derive it."
)


def _mtp_elements(*, hidden: int, moe_width: int, experts: int, vocab: int, qk_norm: bool) -> int:
    """Elements of one GLM-4.5 MTP layer (attention 96 x 128 q heads, 8 KV heads, biased q/k/v)."""
    q, kv = 96 * 128, 8 * 128
    attention = hidden * q + q + 2 * (hidden * kv + kv) + q * hidden + (2 * 128 if qk_norm else 0)
    moe = experts * 3 * hidden * moe_width + 3 * hidden * moe_width + experts * hidden + experts
    return attention + moe + 2 * hidden + 2 * hidden * hidden + 3 * hidden + 2 * vocab * hidden


GLM45_MTP = _mtp_elements(hidden=5120, moe_width=1536, experts=160, vocab=151552, qk_norm=True)
GLM45_AIR_MTP = _mtp_elements(hidden=4096, moe_width=1408, experts=128, vocab=151552, qk_norm=False)

RECORDS: tuple[ModelRecord, ...] = (
    record(
        "glm-4.5", "GLM-4.5", "zai-org/GLM-4.5", "glm",
        {**_GLM_355B, "max_position_embeddings": 131072},
        config_source("zai-org/GLM-4.5", KVFIT_CONFIGS + "; attention_bias, partial_rotary_factor, use_qk_norm, "
                      "routed_scaling_factor from a full GLM-4.5-architecture config (Glm4MoeForCausalLM, 92 layers) "
                      "in the tests of a public GitHub repository", as_of=_D),
        Published(
            358337791296,
            hub_api_source("zai-org/GLM-4.5", "main", via=KVFIT_COUNTS, as_of=_D), extra=GLM45_MTP),
        notes=(_GLM_NOTE, _MTP_NOTE,
               "Z.ai: 355B total, 32B active parameters (rounded)."),
    ),
    record(
        "glm-4.5-air", "GLM-4.5-Air", "zai-org/GLM-4.5-Air", "glm",
        {**_GLM, "hidden_size": 4096, "num_hidden_layers": 46, "intermediate_size": 10944,
         "moe_intermediate_size": 1408, "n_routed_experts": 128, "first_k_dense_replace": 1,
         "routed_scaling_factor": 1.0, "use_qk_norm": False, "max_position_embeddings": 131072},
        config_source("zai-org/GLM-4.5-Air", ATLAS_FEATURED.format("zai-org__GLM-4.5-Air.config.json")
                      + "; the other keys from a full Glm4MoeConfig dump of GLM-4.5-Air in a public GitHub "
                      "repository (ms-swift model notes)", as_of=_D),
        Published(
            110468824832,
            hub_api_source("zai-org/GLM-4.5-Air", "main", via=ATLAS_FEATURED.format("zai-org__GLM-4.5-Air.api.json"),
                           as_of=_D), extra=GLM45_AIR_MTP),
        notes=(_GLM_NOTE, _MTP_NOTE,
               "The hub splits the total into BF16 110,468,818,944 and F32 5,888: the F32 values are the "
               "45 MoE layers' and the MTP layer's e_score_correction_bias (46 x 128).",
               "No q/k norms (use_qk_norm false), unlike GLM-4.5. Z.ai: 106B total, 12B active (rounded)."),
    ),
    record(
        "glm-4.6", "GLM-4.6", "zai-org/GLM-4.6", "glm",
        {**_GLM_355B, "max_position_embeddings": 202752},
        config_source("zai-org/GLM-4.6", "a configuration manifest of zai-org/GLM-4.6 in a public GitHub "
                      "architecture write-up, and a full Glm4MoeForCausalLM config with the same values "
                      "(max_position_embeddings 202,752) in the tests of a public GitHub repository", as_of=_D),
        Published(
            356785898816,
            hub_api_source("zai-org/GLM-4.6", "main", via=MOE_JOURNAL, as_of=READ_ON_2026_MORE),
            extra=GLM45_MTP - 2 * 151552 * 5120),
        notes=(_GLM_NOTE, _MTP_NOTE,
               "GLM-4.6 keeps GLM-4.5's tensors and raises the context to 200K (max_position_embeddings 202,752).",
               "Its hub total (read on " + READ_ON_2026_MORE + ") is GLM-4.5's less 1,551,892,480 = 2 x 151,552 x "
               "5120: its MTP layer is stored without its own embedding and head copies, so published_extra_elements "
               "is GLM-4.5's MTP layer less those two matrices."),
    ),
)
