"""Catalog records: Mistral 7B, Mixtral 8x7B, Mistral Nemo and Mistral Small 3.x."""

from __future__ import annotations

from calculators.catalog.model_record import (
    ATLAS,
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

_MISTRAL_SMALL = {
    "model_type": "mistral", "hidden_size": 5120, "num_hidden_layers": 40, "num_attention_heads": 32,
    "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 32768, "vocab_size": 131072,
    "max_position_embeddings": 131072, "rope_theta": 1000000000.0, "sliding_window": None,
    "rms_norm_eps": 1e-05, "tie_word_embeddings": False,
}
_TRT_FIXTURE = ("the mistral_small_3_1_24b_config fixture of NVIDIA TensorRT-LLM's Mistral 3 modeling tests "
                "(a copy of the config.json with the text model cut to 4 layers, 'from the original 40')")
_PIXTRAL_NOTE = (
    "The config.json is a multimodal Mistral3ForConditionalGeneration one; the values here are its "
    "text_config. The checkpoint also holds a Pixtral vision encoder (24 layers, width 1024, gated MLP 4096, "
    "14-pixel patches, no biases) and a projector (RMSNorm 1024, a 2 x 2 patch merger 4096 -> 1024, "
    "1024 -> 5120 and 5120 -> 5120 without biases): 438,958,080 elements in all, published_extra_elements, "
    "which the tests re-derive."
)

RECORDS: tuple[ModelRecord, ...] = (
    # ---- Mistral / Mixtral -------------------------------------------------------------
    record(
        "mistral-7b-v0.1", "Mistral 7B v0.1", "mistralai/Mistral-7B-v0.1", "mistral",
        {"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000,
         "max_position_embeddings": 32768, "rope_theta": 10000.0, "sliding_window": 4096,
         "rms_norm_eps": 1e-05, "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
        config_source("mistralai/Mistral-7B-v0.1", ATLAS.format("mistral-7b-v0.1.config.json") + " and other copies"),
        Published(
            7241732096,
            keras_source("mistral_7b_en", "mistral", sibling_of="mistralai/Mistral-7B-v0.1")),
        notes=("Every layer uses a 4096-token sliding window, so the KV cache stops growing at 4096 tokens.",
               "The hub API gives the same total, 7,241,732,096, for mistralai/Mistral-7B-Instruct-v0.1 "
               "(" + ATLAS.format("mistral-7b-v0.1.api.json") + ")."),
    ),
    record(
        "mistral-7b-v0.3", "Mistral 7B v0.3", "mistralai/Mistral-7B-v0.3", "mistral",
        {"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32768,
         "max_position_embeddings": 32768, "rope_theta": 1000000.0, "sliding_window": None,
         "rms_norm_eps": 1e-05, "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
        config_source("mistralai/Mistral-7B-v0.3"),
        Published(
            7248023552,
            keras_source("mistral_0.3_7b_en", "mistral", sibling_of="mistralai/Mistral-7B-v0.3")),
        notes=("v0.3 extends the vocabulary to 32,768 and drops the sliding window (full attention).",
               "KerasHub's mistral_0.3_instruct_7b_en preset lists the same 7,248,023,552 for the "
               "Instruct checkpoint."),
    ),
    record(
        "mixtral-8x7b", "Mixtral 8x7B", "mistralai/Mixtral-8x7B-v0.1", "mistral",
        {"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000,
         "num_local_experts": 8, "num_experts_per_tok": 2, "max_position_embeddings": 32768,
         "rope_theta": 1000000.0, "sliding_window": None, "rms_norm_eps": 1e-05,
         "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
        config_source("mistralai/Mixtral-8x7B-v0.1", ATLAS.format("mixtral-8x7b.config.json") + " and other copies"),
        Published(
            46702792704,
            hub_api_source("mistralai/Mixtral-8x7B-Instruct-v0.1", "main", via=ATLAS.format("mixtral-8x7b.api.json"),
                           sibling_of="mistralai/Mixtral-8x7B-v0.1")),
        notes=("Each token passes through 2 of the 8 experts; Mistral AI describes the active size only "
               "as about 13B, so no exact active count is published.",
               "KerasHub's mixtral_8_7b_en preset gives the same 46,702,792,704."),
    ),
    # ---- Mistral Nemo and Mistral Small 3.x ------------------------------------------------
    record(
        "mistral-nemo-12b", "Mistral Nemo 12B", "mistralai/Mistral-Nemo-Instruct-2407", "mistral",
        {"model_type": "mistral", "hidden_size": 5120, "num_hidden_layers": 40, "num_attention_heads": 32,
         "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 14336, "vocab_size": 131072,
         "max_position_embeddings": 131072, "tie_word_embeddings": False},
        config_source("mistralai/Mistral-Nemo-Instruct-2407", KVFIT_CONFIGS, as_of=READ_ON_2025_MODELS),
        Published(
            12247782400,
            hub_api_source("mistralai/Mistral-Nemo-Instruct-2407", "main", via=KVFIT_COUNTS,
                           as_of=READ_ON_2025_MODELS)),
        notes=("head_dim 128 x 32 heads = 4096 is narrower than hidden_size 5120: q_proj is 5120 -> 4096.",
               "Full attention on every layer (no sliding window); 131,072-token vocabulary (Tekken tokenizer)."),
    ),
    record(
        "mistral-small-3.1-24b", "Mistral Small 3.1 24B", "mistralai/Mistral-Small-3.1-24B-Base-2503", "mistral",
        _MISTRAL_SMALL,
        config_source("mistralai/Mistral-Small-3.1-24B-Base-2503", _TRT_FIXTURE, as_of=READ_ON_2025_MODELS),
        Published(
            24011361280,
            hub_api_source("mistralai/Mistral-Small-3.2-24B-Instruct-2506", "main", via=KVFIT_COUNTS,
                           sibling_of="mistralai/Mistral-Small-3.1-24B-Base-2503", as_of=READ_ON_2025_MODELS),
            extra=438958080),
        notes=(_PIXTRAL_NOTE,
               "The published figure is Mistral Small 3.2's hub total: 3.2 is a fine-tune of 3.1 with the "
               "same config (text and vision); no exact count read from the 3.1 repositories was found."),
    ),
    record(
        "mistral-small-3.2-24b", "Mistral Small 3.2 24B", "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
        "mistral",
        _MISTRAL_SMALL,
        config_source("mistralai/Mistral-Small-3.2-24B-Instruct-2506", KVFIT_CONFIGS + " and " + _TRT_FIXTURE,
                      as_of=READ_ON_2025_MODELS),
        Published(
            24011361280,
            hub_api_source("mistralai/Mistral-Small-3.2-24B-Instruct-2506", "main", via=KVFIT_COUNTS,
                           as_of=READ_ON_2025_MODELS), extra=438958080),
        notes=(_PIXTRAL_NOTE, "Mistral publishes 3.2 only as an instruction-tuned checkpoint."),
    ),
)
