"""Catalog records: vision-language checkpoints, counted whole (language model + vision tower + projector).

Qwen2.5-VL and Qwen3-VL (dense and MoE), Llama 3.2 Vision, Mistral Small 3.1 with its
Pixtral encoder, and Gemma 3 with its SigLIP encoder, each as the checkpoint's config.json
nests it (``text_config`` and ``vision_config``, or Qwen2.5-VL's top-level language model);
:mod:`calculators.model_config.vision_language` reads the tower and the projector.
"""

from __future__ import annotations

from typing import Any

from calculators.catalog.model_record import (
    AIC_CONFIGS,
    MMEVAL,
    READ_ON_2026_MORE,
    KVFIT_CONFIGS,
    KVFIT_COUNTS,
    READ_ON_2026_MODELS,
    TRANSFORMERS_DEFAULTS,
    ModelRecord,
    Published,
    config_source,
    hub_api_source,
    record,
)
from calculators.catalog.model_records.gemma import _GEMMA3_SHARED
from calculators.catalog.model_records.mistral import _MISTRAL_SMALL

_D = READ_ON_2026_MODELS

_QWEN3_VL_NOTE = (
    "Qwen3-VL: a Qwen3 language model (q/k norms, head_dim 128; MoE variants route 128 experts, 8 per token) "
    "and a ViT of vision_config.depth blocks with learned position embeddings (num_position_embeddings), "
    "16-pixel patches over 2 frames, a 2 x 2 patch merger into the language width, and DeepStack mergers that "
    "feed the features of three vision blocks (deepstack_visual_indexes) into the first language layers."
)
_SMALL_VIT = {"depth": 24, "hidden_size": 1024, "intermediate_size": 4096, "deepstack_visual_indexes": [5, 11, 17]}
_LARGE_VIT = {"depth": 27, "hidden_size": 1152, "intermediate_size": 4304, "deepstack_visual_indexes": [8, 16, 24]}


def _qwen3_vl(size: str, text: dict[str, Any], vit: dict[str, Any], published: int, *, tie: bool) -> ModelRecord:
    repo = f"Qwen/Qwen3-VL-{size}-Instruct"
    moe = "num_experts" in text
    text_config = {
        "model_type": "qwen3_vl_moe_text" if moe else "qwen3_vl_text", "head_dim": 128, "vocab_size": 151936,
        "max_position_embeddings": 262144, "rope_theta": 5000000, "attention_bias": False, "rms_norm_eps": 1e-06,
        **({"decoder_sparse_step": 1, "mlp_only_layers": [], "norm_topk_prob": True} if moe else {}),
        **text,
    }
    vision_config = {
        "model_type": "qwen3_vl", "num_heads": 16, "num_position_embeddings": 2304, "patch_size": 16,
        "spatial_merge_size": 2, "temporal_patch_size": 2, "out_hidden_size": text["hidden_size"], **vit,
    }
    return record(
        f"qwen3-vl-{size.lower()}", f"Qwen3-VL {size} Instruct", repo, "qwen3",
        {"model_type": "qwen3_vl_moe" if moe else "qwen3_vl", "tie_word_embeddings": tie,
         "text_config": text_config, "vision_config": vision_config},
        config_source(repo, AIC_CONFIGS.format(f"Qwen--Qwen3-VL-{size}-Instruct"), as_of=_D),
        Published(
            published,
            hub_api_source(repo, "main", via=MMEVAL, as_of=READ_ON_2026_MORE)),
        notes=(_QWEN3_VL_NOTE,
               "The hub total (read on " + READ_ON_2026_MORE + ") equals what transformers 5.23 builds from these "
               "values; tests/data/model_counts_transformers.json splits it into language model and vision tower."),
    )


_SIGLIP = {"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304,
           "num_hidden_layers": 27, "num_attention_heads": 16, "image_size": 896, "patch_size": 14,
           "vision_use_head": False}
_GEMMA3_VL_NOTE = (
    "The whole Gemma3ForConditionalGeneration checkpoint: the text_config language model, a SigLIP So400m "
    "encoder (27 layers of 1152, 896-pixel images in 14-pixel patches, no pooling head) and a projector "
    "(RMSNorm 1152 and a 1152 x hidden matrix) that pools each image to mm_tokens_per_image = 256 tokens."
)


def _gemma3_vl(size: str, text: dict[str, Any], published: int, query_scalar: int = 256) -> ModelRecord:
    repo = f"google/gemma-3-{size}-pt"
    return record(
        f"gemma-3-{size}-vision", f"Gemma 3 {size.upper()} with vision", repo, "gemma",
        {"model_type": "gemma3", "mm_tokens_per_image": 256,
         "text_config": {**_GEMMA3_SHARED, "vocab_size": 262208, "sliding_window": 1024,
                         "max_position_embeddings": 131072, "query_pre_attn_scalar": query_scalar, **text},
         "vision_config": _SIGLIP},
        config_source(repo, "text_config: " + KVFIT_CONFIGS + " (of the -it repository, the same shapes); "
                      "vision_config: the SigLIP values of transformers 5.23.0's Gemma3Config defaults, which "
                      "the exact hub total confirms", as_of=_D),
        Published(
            published,
            hub_api_source(f"unsloth/gemma-3-{size}-it", "main", via=KVFIT_COUNTS, sibling_of=repo, as_of=_D)),
        notes=(_GEMMA3_VL_NOTE,
               "The catalog's gemma-3-" + size + " record is the same checkpoint read as its language model "
               "alone (the vision elements are its published_extra_elements)."),
    )


RECORDS: tuple[ModelRecord, ...] = (
    _qwen3_vl("2B", {"hidden_size": 2048, "num_hidden_layers": 28, "num_attention_heads": 16,
                     "num_key_value_heads": 8, "intermediate_size": 6144, "tie_word_embeddings": True},
              _SMALL_VIT, 2127532032, tie=True),
    _qwen3_vl("4B", {"hidden_size": 2560, "num_hidden_layers": 36, "num_attention_heads": 32,
                     "num_key_value_heads": 8, "intermediate_size": 9728, "tie_word_embeddings": True},
              _SMALL_VIT, 4437815808, tie=True),
    _qwen3_vl("8B", {"hidden_size": 4096, "num_hidden_layers": 36, "num_attention_heads": 32,
                     "num_key_value_heads": 8, "intermediate_size": 12288}, _LARGE_VIT, 8767123696, tie=False),
    _qwen3_vl("32B", {"hidden_size": 5120, "num_hidden_layers": 64, "num_attention_heads": 64,
                      "num_key_value_heads": 8, "intermediate_size": 25600}, _LARGE_VIT, 33357390064, tie=False),
    _qwen3_vl("30B-A3B", {"hidden_size": 2048, "num_hidden_layers": 48, "num_attention_heads": 32,
                          "num_key_value_heads": 4, "intermediate_size": 6144, "moe_intermediate_size": 768,
                          "num_experts": 128, "num_experts_per_tok": 8}, _LARGE_VIT, 31070754032, tie=False),
    _qwen3_vl("235B-A22B", {"hidden_size": 4096, "num_hidden_layers": 94, "num_attention_heads": 64,
                            "num_key_value_heads": 4, "intermediate_size": 12288, "moe_intermediate_size": 1536,
                            "num_experts": 128, "num_experts_per_tok": 8}, _LARGE_VIT, 235670022896, tie=False),
    record(
        "mistral-small-3.1-24b-vision", "Mistral Small 3.1 24B Instruct with vision",
        "mistralai/Mistral-Small-3.1-24B-Instruct-2503", "mistral",
        {"model_type": "mistral3", "tie_word_embeddings": False, "spatial_merge_size": 2, "multimodal_projector_bias": False,
         "projector_hidden_act": "gelu", "vision_feature_layer": -1,
         "text_config": _MISTRAL_SMALL,
         "vision_config": {"model_type": "pixtral", "hidden_size": 1024, "intermediate_size": 4096,
                           "num_hidden_layers": 24, "num_attention_heads": 16, "head_dim": 64,
                           "image_size": 1540, "patch_size": 14, "num_channels": 3, "rope_theta": 10000.0}},
        config_source("mistralai/Mistral-Small-3.1-24B-Instruct-2503",
                      TRANSFORMERS_DEFAULTS.format("Mistral3Config", "mistral3") + ", documented as this "
                      "checkpoint's (vision_config: PixtralVisionConfig's defaults); text_config: the catalog's "
                      "mistral-small-3.1-24b record", as_of=_D),
        Published(
            24011361280,
            hub_api_source("mistralai/Mistral-Small-3.2-24B-Instruct-2506", "main", via=KVFIT_COUNTS,
                           sibling_of="mistralai/Mistral-Small-3.1-24B-Instruct-2503", as_of=_D)),
        notes=("The whole Mistral3ForConditionalGeneration checkpoint: the Mistral Small 3.1 language model, a "
               "24-layer Pixtral encoder (width 1024, gated MLP 4096, 14-pixel patches, 2-D RoPE, no biases) and "
               "a projector (RMSNorm, 2 x 2 patch merger, two linears), 438,958,080 vision elements.",
               "The published figure is Mistral Small 3.2's hub total (a fine-tune with the same config)."),
    ),
    _gemma3_vl("4b", {"hidden_size": 2560, "num_hidden_layers": 34, "num_attention_heads": 8,
                      "num_key_value_heads": 4, "head_dim": 256, "intermediate_size": 10240}, 4300079472),
    _gemma3_vl("12b", {"hidden_size": 3840, "num_hidden_layers": 48, "num_attention_heads": 16,
                       "num_key_value_heads": 8, "head_dim": 256, "intermediate_size": 15360}, 12187325040),
    _gemma3_vl("27b", {"hidden_size": 5376, "num_hidden_layers": 62, "num_attention_heads": 32,
                       "num_key_value_heads": 16, "head_dim": 128, "intermediate_size": 21504}, 27432406640,
               query_scalar=168),
)
