"""Catalog records: Phi-3-mini and Phi-4."""

from __future__ import annotations

from calculators.catalog.model_record import (
    KVFIT_CONFIGS,
    KVFIT_COUNTS,
    READ_ON_2025_MODELS,
    ModelRecord,
    Published,
    config_source,
    hub_api_source,
    keras_source,
    record,
)

RECORDS: tuple[ModelRecord, ...] = (
    # ---- Phi-3 -----------------------------------------------------------------------------
    record(
        "phi-3-mini-4k", "Phi-3-mini-4k-instruct", "microsoft/Phi-3-mini-4k-instruct", "phi",
        {"model_type": "phi3", "hidden_size": 3072, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 32, "intermediate_size": 8192, "vocab_size": 32064,
         "max_position_embeddings": 4096, "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
         "sliding_window": 2047, "rms_norm_eps": 1e-05, "attention_bias": False,
         "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
        config_source("microsoft/Phi-3-mini-4k-instruct", "copies of its shape keys in public GitHub repositories"),
        Published(
            3821079552,
            keras_source("phi3_mini_4k_instruct_en", "phi3", sibling_of="microsoft/Phi-3-mini-4k-instruct")),
        notes=("Phi-3 fuses q/k/v into one qkv_proj and gate/up into one gate_up_proj; the element "
               "count is the same as separate projections.",
               "Microsoft publishes only an instruction-tuned checkpoint of this model."),
    ),
    # ---- Phi-4 -------------------------------------------------------------------------------
    record(
        "phi-4", "Phi-4", "microsoft/phi-4", "phi",
        {"model_type": "phi3", "hidden_size": 5120, "num_hidden_layers": 40, "num_attention_heads": 40,
         "num_key_value_heads": 10, "intermediate_size": 17920, "vocab_size": 100352,
         "max_position_embeddings": 16384, "tie_word_embeddings": False},
        config_source("microsoft/phi-4", KVFIT_CONFIGS, as_of=READ_ON_2025_MODELS),
        Published(
            14659507200,
            hub_api_source("microsoft/phi-4", "main", via=KVFIT_COUNTS, as_of=READ_ON_2025_MODELS)),
        notes=("A phi3-architecture model (fused qkv_proj and gate_up_proj) with grouped-query attention: "
               "40 query heads share 10 KV heads of 128.",
               "GGUF conversions report the same general.parameter_count, 14,659,507,200."),
    ),
)
