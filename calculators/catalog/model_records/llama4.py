"""Catalog records (pending): Llama 4 Scout and Maverick, the whole multimodal checkpoint.

Not registered: :mod:`calculators.model_config` does not read ``llama4`` yet (MoE every
``interleave_moe_layer_step`` layers with a shared expert, chunked attention with NoPE
layers, a vision tower). See ``PENDING_FAMILIES_RECORDS``.
"""

from __future__ import annotations

from calculators.catalog.model_record import (
    AIC_CONFIGS,
    AUDIT_TABLE,
    KVFIT_CONFIGS,
    KVFIT_COUNTS,
    MMEVAL,
    READ_ON_2026_MODELS,
    READ_ON_2026_MORE,
    ModelRecord,
    Published,
    config_source,
    hub_api_source,
    record,
)

_D = READ_ON_2026_MODELS

#: vision_config of both checkpoints (MetaCLIP-style ViT, 34 layers of 1408, 336-pixel tiles).
_VISION = {
    "model_type": "llama4_vision_model", "hidden_size": 1408, "image_size": 336, "intermediate_size": 5632,
    "num_attention_heads": 16, "num_hidden_layers": 34, "num_channels": 3, "patch_size": 14,
    "pixel_shuffle_ratio": 0.5, "projector_input_dim": 4096, "projector_output_dim": 4096,
    "vision_output_dim": 4096, "multi_modal_projector_bias": False, "norm_eps": 1e-05, "rope_theta": 10000,
    "hidden_act": "gelu", "vision_feature_layer": -1, "vision_feature_select_strategy": "default",
}
_VISION_SOURCE = ("vision_config: a Llama4Config dump of meta-llama/Llama-4-Scout-17B-16E (with a per-module "
                  "parameter table) in a public notes repository, the same values NVIDIA TensorRT-LLM's Llama 4 "
                  "tests copy")
_TEXT_SHARED = {
    "model_type": "llama4_text", "hidden_size": 5120, "num_hidden_layers": 48, "num_attention_heads": 40,
    "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
    "vocab_size": 202048, "attention_chunk_size": 8192, "attention_bias": False, "num_experts_per_tok": 1,
    "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "hidden_act": "silu",
}
_LLAMA4_NOTE = (
    "Each MoE layer has a router, num_local_experts routed experts of width intermediate_size (1 per token) "
    "and one shared expert of the same width; the other layers have a dense MLP of width intermediate_size_mlp. "
    "Three layers in four use RoPE with chunked attention (attention_chunk_size 8192 tokens); every fourth is "
    "a NoPE layer with global attention (no_rope_layers: 1 = RoPE, 0 = NoPE)."
)
_VISION_NOTE = (
    "The published total is the whole Llama4ForConditionalGeneration checkpoint: the language model plus a "
    "34-layer ViT of width 1408 with its pixel-shuffle adapter and a 4096 x 5120 projector; the vision part is "
    "871,932,416 elements (tests/data/model_counts_transformers.json has the split)."
)

RECORDS: tuple[ModelRecord, ...] = (
    record(
        "llama-4-scout-17b-16e", "Llama 4 Scout 17B-16E Instruct", "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        "llama4",
        {"model_type": "llama4", "tie_word_embeddings": False,
         "text_config": {**_TEXT_SHARED, "num_local_experts": 16, "interleave_moe_layer_step": 1,
                         "use_qk_norm": True, "max_position_embeddings": 10485760,
                         "no_rope_layers": [1, 1, 1, 0] * 12,
                         "rope_scaling": {"factor": 16.0, "high_freq_factor": 1.0, "low_freq_factor": 1.0,
                                          "original_max_position_embeddings": 8192, "rope_type": "llama3"}},
         "vision_config": _VISION},
        config_source("meta-llama/Llama-4-Scout-17B-16E-Instruct",
                      "text_config: " + AIC_CONFIGS.format("meta-llama--Llama-4-Scout-17B-16E-Instruct")
                      + " and no_rope_layers from " + KVFIT_CONFIGS + "; " + _VISION_SOURCE, as_of=_D),
        Published(
            108641793536,
            hub_api_source("unsloth/Llama-4-Scout-17B-16E-Instruct", "main", via=KVFIT_COUNTS,
                           sibling_of="meta-llama/Llama-4-Scout-17B-16E-Instruct", as_of=_D)),
        notes=(_LLAMA4_NOTE, _VISION_NOTE,
               "Every one of the 48 layers is MoE (interleave_moe_layer_step 1): 16 experts + 1 shared.",
               "The same 108,641,793,536 is recorded for meta-llama/Llama-4-Scout-17B-16E-Instruct itself in "
               + AUDIT_TABLE + ".",
               "Meta: 17B active, 109B total parameters (rounded)."),
    ),
    record(
        "llama-4-maverick-17b-128e", "Llama 4 Maverick 17B-128E Instruct",
        "meta-llama/Llama-4-Maverick-17B-128E-Instruct", "llama4",
        {"model_type": "llama4", "tie_word_embeddings": False,
         "text_config": {**_TEXT_SHARED, "num_local_experts": 128, "interleave_moe_layer_step": 2,
                         "use_qk_norm": False, "max_position_embeddings": 1048576, "rope_scaling": None},
         "vision_config": _VISION},
        config_source("meta-llama/Llama-4-Maverick-17B-128E-Instruct",
                      "text_config: " + AIC_CONFIGS.format("meta-llama--Llama-4-Maverick-17B-128E-Instruct")
                      + "; " + _VISION_SOURCE + " (Maverick ships the same vision encoder)", as_of=_D),
        Published(
            401583781376,
            hub_api_source("meta-llama/Llama-4-Maverick-17B-128E-Instruct", "main", via=MMEVAL,
                           as_of=READ_ON_2026_MORE)),
        notes=(_LLAMA4_NOTE, _VISION_NOTE,
               "MoE on every second layer (interleave_moe_layer_step 2: layers 1, 3, ..., 47), 128 experts + 1 shared;"
               " the other 24 layers are dense with width 16,384.",
               "The copy read does not list no_rope_layers; transformers then makes every fourth layer NoPE, "
               "as in Scout.",
               "The hub total (read on " + READ_ON_2026_MORE + ") equals what transformers 5.23 builds; Meta gives "
               "17B active and 400B total (rounded), which the tests also check."),
    ),
)
