"""Catalog records (pending): fully open dense models, SmolLM3 and OLMo 2.

Not registered: :mod:`calculators.model_config` does not read ``smollm3`` (NoPE every fourth
layer) or ``olmo2`` (post-norm layers with q/k RMSNorms over all heads) yet.
"""

from __future__ import annotations

from calculators.catalog.model_record import (
    AUDIT_TABLE,
    READ_ON_2026_MODELS,
    TRANSFORMERS_DEFAULTS,
    ModelRecord,
    Published,
    config_source,
    hub_api_source,
    record,
)

_D = READ_ON_2026_MODELS

RECORDS: tuple[ModelRecord, ...] = (
    record(
        "smollm3-3b", "SmolLM3 3B", "HuggingFaceTB/SmolLM3-3B", "smollm",
        {"model_type": "smollm3", "hidden_size": 2048, "num_hidden_layers": 36, "num_attention_heads": 16,
         "num_key_value_heads": 4, "intermediate_size": 11008, "vocab_size": 128256,
         "max_position_embeddings": 32768, "no_rope_layers": [1, 1, 1, 0] * 9, "no_rope_layer_interval": 4,
         "attention_bias": False, "mlp_bias": False, "use_sliding_window": False, "rms_norm_eps": 1e-06,
         "rope_theta": 2000000.0, "tie_word_embeddings": True},
        config_source("HuggingFaceTB/SmolLM3-3B", TRANSFORMERS_DEFAULTS.format("SmolLM3Config", "smollm3")
                      + ", documented as this checkpoint's; the exact hub total confirms the shapes", as_of=_D),
        Published(
            3075098624,
            hub_api_source("HuggingFaceTB/SmolLM3-3B", "main", via=AUDIT_TABLE, as_of=_D)),
        notes=("A Llama-style decoder (GQA 16 query / 4 KV heads, tied head) whose every fourth layer drops RoPE "
               "(no_rope_layers: 1 = RoPE, 0 = NoPE); the KV cache is the same for both kinds.",
               "KerasHub's smollm3_3b_en preset lists 3,075,100,928, 2,304 more than the hub (not used)."),
    ),
    record(
        "olmo-2-7b", "OLMo 2 7B", "allenai/OLMo-2-1124-7B", "olmo",
        {"model_type": "olmo2", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 32, "intermediate_size": 11008, "vocab_size": 100352,
         "attention_bias": False, "tie_word_embeddings": False},
        config_source("allenai/OLMo-2-1124-7B", TRANSFORMERS_DEFAULTS.format("Olmo2Config", "olmo2")
                      + ", documented as this checkpoint's, except vocab_size: 100,352 (the dolma2 tokenizer's "
                      "padded size), the value with which the shapes give the hub total exactly", as_of=_D),
        Published(
            7298617344,
            hub_api_source("allenai/OLMo-2-1124-7B-Instruct", "main", via=AUDIT_TABLE,
                           sibling_of="allenai/OLMo-2-1124-7B", as_of=_D)),
        notes=("OLMo 2 normalises after attention and after the MLP (post-norm) and applies RMSNorm over the "
               "whole q and k projections (4096 weights each); no biases, untied head, full multi-head "
               "attention (32 KV heads).",
               "vocab_size is derived, not read: the defaults' 50,304 gives 6,888,624,128, and the published "
               "7,298,617,344 is 2 x 50,048 x 4096 more, i.e. 100,352 rows for embedding and head.",
               "rms_norm_eps is not read (it changes no shape)."),
    ),
)
