"""Catalog records: Gemma 2 and Gemma 3 (the language model of the multimodal checkpoints)."""

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

_GEMMA2_SHARED = {
    "model_type": "gemma2", "vocab_size": 256000, "max_position_embeddings": 8192, "rope_theta": 10000.0,
    "sliding_window": 4096, "attention_bias": False, "attn_logit_softcapping": 50.0,
    "final_logit_softcapping": 30.0, "rms_norm_eps": 1e-06, "hidden_activation": "gelu_pytorch_tanh",
}

_GEMMA2_NOTE = (
    "Gemma 2 alternates sliding-window (4096) and global attention layer by layer, ties the "
    "output head to the embedding, and has four RMSNorms per layer."
)

_GEMMA3_SHARED = {
    "model_type": "gemma3_text", "attention_bias": False, "attn_logit_softcapping": None,
    "final_logit_softcapping": None, "hidden_activation": "gelu_pytorch_tanh", "query_pre_attn_scalar": 256,
    "sliding_window_pattern": 6, "rms_norm_eps": 1e-06, "tie_word_embeddings": True,
}
_GEMMA3_NOTE = (
    "Gemma 3 makes five of every six layers local (sliding window) and the sixth global "
    "(sliding_window_pattern 6: layer i is global when (i + 1) % 6 == 0), has four RMSNorms per layer "
    "plus q/k RMSNorms (head_dim each), no logit soft-capping, and ties the output head to the embedding."
)
_GEMMA3_MM_NOTE = (
    "The config.json is a multimodal Gemma3ForConditionalGeneration one; the values here are its "
    "text_config (the language model, whose shapes transformers' Gemma3TextConfig defaults fill where "
    "the file names few keys). The checkpoint also holds a SigLIP vision encoder (27 layers, width 1152, "
    "MLP 4304, 896-pixel images in 14-pixel patches) and a projector (an RMSNorm of 1152 and a "
    "1152 x hidden matrix): published_extra_elements is their arithmetic, which the tests re-derive."
)
_GEMMA3_VOCAB_NOTE = (
    "vocab_size 262,208 = the tokenizer's 262,144 + 64 image tokens; KerasHub's text-only preset counts "
    "262,144 rows, 64 x hidden fewer than this record."
)
_SIGLIP_896 = 416866032  # SigLIP So400m/14 at 896 pixels, without head (arithmetic in the tests)

RECORDS: tuple[ModelRecord, ...] = (
    # ---- Gemma 2 -------------------------------------------------------------------------
    record(
        "gemma-2-2b", "Gemma 2 2B", "google/gemma-2-2b", "gemma",
        {**_GEMMA2_SHARED, "hidden_size": 2304, "num_hidden_layers": 26, "num_attention_heads": 8,
         "num_key_value_heads": 4, "head_dim": 256, "intermediate_size": 9216, "query_pre_attn_scalar": 256,
         "torch_dtype": "float32"},
        config_source("google/gemma-2-2b", "a verbatim copy in a public GitHub repository (Girafboy/pytorchKQI)"),
        Published(
            2614341888,
            keras_source("gemma2_2b_en", "gemma", sibling_of="google/gemma-2-2b")),
        notes=(_GEMMA2_NOTE,),
    ),
    record(
        "gemma-2-9b", "Gemma 2 9B", "google/gemma-2-9b", "gemma",
        {**_GEMMA2_SHARED, "hidden_size": 3584, "num_hidden_layers": 42, "num_attention_heads": 16,
         "num_key_value_heads": 8, "head_dim": 256, "intermediate_size": 14336, "query_pre_attn_scalar": 256,
         "torch_dtype": "float32"},
        config_source("google/gemma-2-9b", "a verbatim copy in a public GitHub repository (Girafboy/pytorchKQI)"),
        Published(
            9241705984,
            keras_source("gemma2_9b_en", "gemma", sibling_of="google/gemma-2-9b")),
        notes=(_GEMMA2_NOTE, "head_dim 256 x 16 heads = 4096 is wider than hidden_size 3584."),
    ),
    record(
        "gemma-2-27b", "Gemma 2 27B", "google/gemma-2-27b", "gemma",
        {**_GEMMA2_SHARED, "hidden_size": 4608, "num_hidden_layers": 46, "num_attention_heads": 32,
         "num_key_value_heads": 16, "head_dim": 128, "intermediate_size": 36864, "query_pre_attn_scalar": 144},
        config_source("google/gemma-2-27b", "copies of its shape keys in public GitHub repositories"),
        Published(
            27227128320,
            keras_source("gemma2_27b_en", "gemma", sibling_of="google/gemma-2-27b")),
        notes=(_GEMMA2_NOTE,),
    ),
    # ---- Gemma 3 -------------------------------------------------------------------------
    record(
        "gemma-3-1b", "Gemma 3 1B", "google/gemma-3-1b-pt", "gemma",
        {**_GEMMA3_SHARED, "hidden_size": 1152, "num_hidden_layers": 26, "num_attention_heads": 4,
         "num_key_value_heads": 1, "head_dim": 256, "intermediate_size": 6912, "vocab_size": 262144,
         "sliding_window": 512, "max_position_embeddings": 32768},
        config_source("google/gemma-3-1b-pt", "copies of its shape keys in public GitHub repositories "
                      "(those of google/gemma-3-1b-it, the same shapes)", as_of=READ_ON_2025_MODELS),
        Published(
            999885952,
            keras_source("gemma3_1b", "gemma3", sibling_of="google/gemma-3-1b-pt", as_of=READ_ON_2025_MODELS)),
        notes=(_GEMMA3_NOTE, "Text-only; a 512-token window on its 22 local layers, 4 global layers.",
               "The hub API gives the same 999,885,952 for google/gemma-3-1b-it."),
    ),
    record(
        "gemma-3-4b", "Gemma 3 4B", "google/gemma-3-4b-it", "gemma",
        {**_GEMMA3_SHARED, "hidden_size": 2560, "num_hidden_layers": 34, "num_attention_heads": 8,
         "num_key_value_heads": 4, "head_dim": 256, "intermediate_size": 10240, "vocab_size": 262208,
         "sliding_window": 1024, "max_position_embeddings": 131072},
        config_source("google/gemma-3-4b-it", KVFIT_CONFIGS, as_of=READ_ON_2025_MODELS),
        Published(
            4300079472,
            hub_api_source("unsloth/gemma-3-4b-it", "main", via=KVFIT_COUNTS, sibling_of="google/gemma-3-4b-it",
                           as_of=READ_ON_2025_MODELS), extra=_SIGLIP_896 + 1152 + 1152 * 2560),
        notes=(_GEMMA3_NOTE, _GEMMA3_MM_NOTE, _GEMMA3_VOCAB_NOTE),
    ),
    record(
        "gemma-3-12b", "Gemma 3 12B", "google/gemma-3-12b-it", "gemma",
        {**_GEMMA3_SHARED, "hidden_size": 3840, "num_hidden_layers": 48, "num_attention_heads": 16,
         "num_key_value_heads": 8, "head_dim": 256, "intermediate_size": 15360, "vocab_size": 262208,
         "sliding_window": 1024, "max_position_embeddings": 131072},
        config_source("google/gemma-3-12b-it", KVFIT_CONFIGS, as_of=READ_ON_2025_MODELS),
        Published(
            12187325040,
            hub_api_source("unsloth/gemma-3-12b-it", "main", via=KVFIT_COUNTS, sibling_of="google/gemma-3-12b-it",
                           as_of=READ_ON_2025_MODELS), extra=_SIGLIP_896 + 1152 + 1152 * 3840),
        notes=(_GEMMA3_NOTE, _GEMMA3_MM_NOTE, _GEMMA3_VOCAB_NOTE),
    ),
    record(
        "gemma-3-27b", "Gemma 3 27B", "google/gemma-3-27b-it", "gemma",
        {**_GEMMA3_SHARED, "hidden_size": 5376, "num_hidden_layers": 62, "num_attention_heads": 32,
         "num_key_value_heads": 16, "head_dim": 128, "intermediate_size": 21504, "vocab_size": 262208,
         "sliding_window": 1024, "max_position_embeddings": 131072, "query_pre_attn_scalar": 168},
        config_source("google/gemma-3-27b-it", KVFIT_CONFIGS, as_of=READ_ON_2025_MODELS),
        Published(
            27432406640,
            hub_api_source("unsloth/gemma-3-27b-it", "main", via=KVFIT_COUNTS, sibling_of="google/gemma-3-27b-it",
                           as_of=READ_ON_2025_MODELS), extra=_SIGLIP_896 + 1152 + 1152 * 5376),
        notes=(_GEMMA3_NOTE, _GEMMA3_MM_NOTE, _GEMMA3_VOCAB_NOTE,
               "KerasHub's medgemma_instruct_27b preset (a Gemma 3 27B fine-tune) lists the same 27,432,406,640."),
    ),
)
