"""Catalog records: more Qwen3 sizes people run (1.7B, 4B, 14B, Coder, 2507) and Qwen2.5-Coder."""

from __future__ import annotations

from calculators.catalog.model_record import (
    AIC_CONFIGS,
    ATLAS_FEATURED,
    AUDIT_TABLE,
    KVFIT_CONFIGS,
    MOE_JOURNAL,
    READ_ON_2026_MODELS,
    READ_ON_2026_MORE,
    ModelRecord,
    Published,
    config_source,
    hub_api_source,
    keras_source,
    record,
)

_D = READ_ON_2026_MODELS
_SLIME = "the Megatron model arguments scripts/models/{} of github.com/zyzshishui/slime (a fork of THUDM/slime)"

_QWEN3 = {
    "model_type": "qwen3", "head_dim": 128, "vocab_size": 151936, "use_sliding_window": False,
    "attention_bias": False, "rms_norm_eps": 1e-06, "rope_theta": 1000000,
}
_QWEN3_NOTE = (
    "Qwen3 has no q/k/v biases and an RMSNorm over each query and key head (q_norm, k_norm: head_dim "
    "weights each); head_dim is 128 whatever hidden_size / heads is."
)
_SLIME_NOTE = (
    "The shape keys were read from Megatron arguments (num-layers, hidden-size, ffn-hidden-size, "
    "num-attention-heads, num-query-groups, kv-channels, vocab-size, qk-layernorm, and whether the head is "
    "untied), which map one to one onto config.json's keys; KerasHub's exact count of the port agrees. "
    "They give no context length, so max_position_embeddings is left out (unknown)."
)
_QWEN3_MOE = {**_QWEN3, "model_type": "qwen3_moe", "mlp_only_layers": [], "decoder_sparse_step": 1}
_QWEN25 = {"model_type": "qwen2", "use_sliding_window": False, "torch_dtype": "bfloat16"}
_CODER_NOTE = (
    "Qwen2.5-Coder keeps the Qwen2.5 architecture of the same size (Qwen2 q/k/v biases, no o_proj bias, "
    "vocab_size 151,936 padded); only the training data differs, so the tensors have the same shapes."
)

RECORDS: tuple[ModelRecord, ...] = (
    record(
        "qwen3-1.7b", "Qwen3 1.7B", "Qwen/Qwen3-1.7B", "qwen3",
        {**_QWEN3, "hidden_size": 2048, "num_hidden_layers": 28, "num_attention_heads": 16,
         "num_key_value_heads": 8, "intermediate_size": 6144, "tie_word_embeddings": True, "max_window_layers": 28,
         "max_position_embeddings": 40960},
        config_source("Qwen/Qwen3-1.7B", AIC_CONFIGS.format("Qwen--Qwen3-1.7B"), as_of=_D),
        Published(
            1720574976,
            keras_source("qwen3_1.7b_en", "qwen3", sibling_of="Qwen/Qwen3-1.7B", as_of=_D)),
        notes=(_QWEN3_NOTE,
               "The output head is tied. The hub's safetensors.total for the repository, 2,031,739,904 ("
               + AUDIT_TABLE + "), is this count plus a stored copy of the tied head (151,936 x 2048)."),
    ),
    record(
        "qwen3-4b", "Qwen3 4B", "Qwen/Qwen3-4B", "qwen3",
        {**_QWEN3, "hidden_size": 2560, "num_hidden_layers": 36, "num_attention_heads": 32,
         "num_key_value_heads": 8, "intermediate_size": 9728, "tie_word_embeddings": True},
        config_source("Qwen/Qwen3-4B", _SLIME.format("qwen3-4B.sh"), as_of=_D),
        Published(
            4022468096,
            keras_source("qwen3_4b_en", "qwen3", sibling_of="Qwen/Qwen3-4B", as_of=_D)),
        notes=(_QWEN3_NOTE, _SLIME_NOTE,
               "The output head is tied; the hub's safetensors.total for the repository is the same 4,022,468,096 "
               "(" + AUDIT_TABLE + "): unlike the 0.6B and 1.7B, the 4B checkpoint stores no copy of the head."),
    ),
    record(
        "qwen3-14b", "Qwen3 14B", "Qwen/Qwen3-14B", "qwen3",
        {**_QWEN3, "hidden_size": 5120, "num_hidden_layers": 40, "num_attention_heads": 40,
         "num_key_value_heads": 8, "intermediate_size": 17408, "tie_word_embeddings": False},
        config_source("Qwen/Qwen3-14B", _SLIME.format("qwen3-14B.sh"), as_of=_D),
        Published(
            14768307200,
            keras_source("qwen3_14b_en", "qwen3", sibling_of="Qwen/Qwen3-14B", as_of=_D)),
        notes=(_QWEN3_NOTE, _SLIME_NOTE),
    ),
    record(
        "qwen3-235b-a22b-instruct-2507", "Qwen3 235B-A22B Instruct 2507", "Qwen/Qwen3-235B-A22B-Instruct-2507",
        "qwen3",
        {**_QWEN3_MOE, "hidden_size": 4096, "num_hidden_layers": 94, "num_attention_heads": 64,
         "num_key_value_heads": 4, "intermediate_size": 12288, "moe_intermediate_size": 1536, "num_experts": 128,
         "num_experts_per_tok": 8, "max_position_embeddings": 262144, "tie_word_embeddings": False},
        config_source("Qwen/Qwen3-235B-A22B-Instruct-2507",
                      ATLAS_FEATURED.format("Qwen__Qwen3-235B-A22B-Instruct-2507.config.json")
                      + " (vocab_size, tie_word_embeddings: Qwen/Qwen3-235B-A22B's, " + KVFIT_CONFIGS + ")",
                      as_of=_D),
        Published(
            235093634560,
            hub_api_source("Qwen/Qwen3-235B-A22B-Instruct-2507", "main",
                           via=ATLAS_FEATURED.format("Qwen__Qwen3-235B-A22B-Instruct-2507.api.json"), as_of=_D)),
        notes=(_QWEN3_NOTE,
               "The July 2025 update of Qwen3-235B-A22B: same tensors (the hub total equals the original's), "
               "context raised to 262,144 tokens.",
               "The trimmed config copy omits vocab_size; 151,936 (the Qwen3 tokenizer's padded size) is the value "
               "of the original repository, and the hub total matches it exactly."),
    ),
    record(
        "qwen3-coder-480b-a35b", "Qwen3-Coder 480B-A35B Instruct", "Qwen/Qwen3-Coder-480B-A35B-Instruct", "qwen3",
        {**_QWEN3_MOE, "hidden_size": 6144, "num_hidden_layers": 62, "num_attention_heads": 96,
         "num_key_value_heads": 8, "intermediate_size": 8192, "moe_intermediate_size": 2560, "num_experts": 160,
         "num_experts_per_tok": 8, "max_position_embeddings": 262144, "max_window_layers": 62,
         "rope_theta": 10000000, "norm_topk_prob": True, "tie_word_embeddings": False},
        config_source("Qwen/Qwen3-Coder-480B-A35B-Instruct",
                      AIC_CONFIGS.format("Qwen--Qwen3-Coder-480B-A35B-Instruct"), as_of=_D),
        Published(
            480154875392,
            hub_api_source("Qwen/Qwen3-Coder-480B-A35B-Instruct", "main", via=MOE_JOURNAL, as_of=READ_ON_2026_MORE)),
        notes=(_QWEN3_NOTE,
               "Every layer is MoE: 160 experts of width 2560, 8 per token, no shared expert.",
               "Qwen's name gives 480B total and 35B activated (whole billions), which the tests also check; the "
               "exact figure is the hub total (read on " + READ_ON_2026_MORE + ")."),
    ),
    record(
        "qwen3-coder-30b-a3b", "Qwen3-Coder 30B-A3B Instruct", "Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3",
        {**{k: v for k, v in _QWEN3_MOE.items() if k != "rope_theta"}, "hidden_size": 2048,
         "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 4, "intermediate_size": 6144,
         "moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8, "tie_word_embeddings": False},
        config_source("Qwen/Qwen3-Coder-30B-A3B-Instruct",
                      "the shape keys of Qwen/Qwen3-30B-A3B (" + KVFIT_CONFIGS + "), whose backbone KerasHub "
                      "ports this model to with the same exact count", as_of=_D),
        Published(
            30532122624,
            keras_source("qwen3_coder_instruct_30b_a3b_en", "qwen3_moe", sibling_of="Qwen/Qwen3-Coder-30B-A3B-Instruct",
                         as_of=_D)),
        notes=(_QWEN3_NOTE,
               "Qwen3-Coder-30B-A3B is a code fine-tune of Qwen3-30B-A3B: same tensor shapes (KerasHub gives both "
               "30,532,122,624). Its context length (max_position_embeddings) and rope_theta were not read, so they "
               "are left out (unknown); neither changes a tensor shape."),
    ),
    # ---- Qwen2.5-Coder ----------------------------------------------------------------
    record(
        "qwen2.5-coder-0.5b", "Qwen2.5-Coder 0.5B", "Qwen/Qwen2.5-Coder-0.5B", "qwen2.5",
        {**_QWEN25, "hidden_size": 896, "num_hidden_layers": 24, "num_attention_heads": 14,
         "num_key_value_heads": 2, "intermediate_size": 4864, "vocab_size": 151936, "tie_word_embeddings": True,
         "rope_theta": 1000000.0, "rms_norm_eps": 1e-06},
        config_source("Qwen/Qwen2.5-Coder-0.5B", "Qwen/Qwen2.5-0.5B's shape keys (same architecture; "
                      "the catalog's qwen2.5-0.5b record)", as_of=_D),
        Published(
            494032768,
            keras_source("qwen2.5_coder_0.5b", "qwen", sibling_of="Qwen/Qwen2.5-Coder-0.5B", as_of=_D)),
        notes=(_CODER_NOTE,),
    ),
    record(
        "qwen2.5-coder-3b", "Qwen2.5-Coder 3B", "Qwen/Qwen2.5-Coder-3B", "qwen2.5",
        {**_QWEN25, "hidden_size": 2048, "num_hidden_layers": 36, "num_attention_heads": 16,
         "num_key_value_heads": 2, "intermediate_size": 11008, "vocab_size": 151936, "tie_word_embeddings": True,
         "rope_theta": 1000000.0, "rms_norm_eps": 1e-06},
        config_source("Qwen/Qwen2.5-Coder-3B", "Qwen/Qwen2.5-3B's shape keys (same architecture; "
                      "the catalog's qwen2.5-3b record)", as_of=_D),
        Published(
            3085938688,
            keras_source("qwen2.5_coder_3b", "qwen", sibling_of="Qwen/Qwen2.5-Coder-3B", as_of=_D)),
        notes=(_CODER_NOTE,),
    ),
    record(
        "qwen2.5-coder-32b", "Qwen2.5-Coder 32B", "Qwen/Qwen2.5-Coder-32B", "qwen2.5",
        {**_QWEN25, "hidden_size": 5120, "num_hidden_layers": 64, "num_attention_heads": 40,
         "num_key_value_heads": 8, "intermediate_size": 27648, "vocab_size": 152064, "tie_word_embeddings": False,
         "rope_theta": 1000000.0, "rms_norm_eps": 1e-05},
        config_source("Qwen/Qwen2.5-Coder-32B", "Qwen/Qwen2.5-32B's shape keys (same architecture; "
                      "the catalog's qwen2.5-32b record)", as_of=_D),
        Published(
            32763876352,
            keras_source("qwen2.5_coder_32b", "qwen", sibling_of="Qwen/Qwen2.5-Coder-32B", as_of=_D)),
        notes=(_CODER_NOTE, "KerasHub's 1.5B, 7B and 14B Coder presets give figures that match neither the hub "
               "nor the shapes (1,543,434,240; 6,993,420,288; a rounded 14,000,000,000): not used."),
    ),
)
