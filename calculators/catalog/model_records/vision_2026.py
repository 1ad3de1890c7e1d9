"""Catalog records: more vision-language checkpoints, counted whole (language model + vision tower + projector).

Qwen2.5-VL (3B, 7B, 32B, 72B), Llama 3.2 Vision (11B, 90B), MedGemma 4B and Ministral 3 8B.
Every published total here is the Hub's ``safetensors.total`` and equals what transformers 5.23
builds from the values written here (``tests/data/model_counts_transformers.json``).
"""

from __future__ import annotations

from typing import Any

from calculators.catalog.model_record import (
    ATLAS_FEATURED,
    MMEVAL,
    READ_ON_2026_MORE,
    TRANSFORMERS_DEFAULTS,
    ModelRecord,
    Published,
    config_source,
    hub_api_source,
    keras_source,
    record,
)
from calculators.catalog.model_records.gemma import _GEMMA3_SHARED
from calculators.catalog.model_records.vision_language import _GEMMA3_VL_NOTE, _SIGLIP

_D = READ_ON_2026_MORE
#: inference-atlas's trimmed config.json copies are at a later commit than its hub responses (ATLAS_FEATURED).
_ATLAS_CONFIG = ("the trimmed config.json copy test/fixtures/featured/{} in github.com/zaid-cdlg/inference-atlas "
                 "(commit 7f627b5d1b696d2a7f1a1bc56d18d7cdca705ae6)")

# ---- Qwen2.5-VL ---------------------------------------------------------------------------------
_QWEN25_VL_NOTE = (
    "Qwen2.5-VL keeps its language model's keys at the top level of config.json (a Qwen2.5 decoder: q/k/v "
    "biases, no o_proj bias) beside vision_config: a 32-block ViT of width 1280 (Conv3d patch embedding over "
    "2 frames of 14-pixel patches without bias, RMSNorms, biased qkv and proj, a biased gated SiLU MLP, window "
    "attention with full attention in blocks 7, 15, 23 and 31) and a merger (RMSNorm 1280, 2 x 2 patches -> "
    "5120 -> 5120 -> the language width, with biases). One image token per 28 x 28 pixels."
)
_QWEN25_VL_SOURCE = (
    MMEVAL + " (num_hidden_layers, hidden_size, num_attention_heads, num_key_value_heads, max_position_embeddings); "
    "intermediate_size, vocab_size and tie_word_embeddings: those of the Qwen2.5 language model of the same size "
    "(the catalog's {text} record); vision_config: the tower transformers prints for Qwen2.5-VL-7B (Conv3d 3 -> 1280, "
    "32 blocks, MLP 3420, merger into the language width) in docs/qwen2.5vl_graph.md of github.com/acproject/duorou, "
    "window_size and fullatt_block_indexes from " + TRANSFORMERS_DEFAULTS.format("Qwen2_5_VLVisionConfig", "qwen2_5_vl")
    + "; the exact hub total confirms every shape"
)
_QWEN25_VISION = {
    "depth": 32, "hidden_size": 1280, "intermediate_size": 3420, "num_heads": 16, "in_chans": 3, "patch_size": 14,
    "spatial_merge_size": 2, "temporal_patch_size": 2, "window_size": 112, "fullatt_block_indexes": [7, 15, 23, 31],
}


def _qwen25_vl(size: str, text: dict[str, Any], published: int, *, text_record: str,
               vision_width: int = 3420, notes: tuple[str, ...] = ()) -> ModelRecord:
    repo = f"Qwen/Qwen2.5-VL-{size}-Instruct"
    config = {
        "model_type": "qwen2_5_vl", "max_position_embeddings": 128000, "use_sliding_window": False,
        "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, **text,
        "vision_config": {**_QWEN25_VISION, "intermediate_size": vision_width, "out_hidden_size": text["hidden_size"]},
    }
    return record(
        f"qwen2.5-vl-{size.lower()}", f"Qwen2.5-VL {size} Instruct", repo, "qwen2.5", config,
        config_source(repo, _QWEN25_VL_SOURCE.format(text=text_record), as_of=_D),
        Published(
            published,
            hub_api_source(repo, "main", via=MMEVAL, as_of=_D)),
        notes=(_QWEN25_VL_NOTE, *notes),
    )


_QWEN25_VL_3456_NOTE = (
    "The tower's MLP is 3456 wide here, not the 7B's 3420: with 3420 the shapes give 4,425,984 elements fewer "
    "than the hub total, which is exactly 32 blocks x (3 x 1280 x 36 + 2 x 36) for the 36 extra columns of the "
    "gated MLP and its two biases. The value is derived from the published total, not read from a copy of "
    "config.json."
)

# ---- Llama 3.2 Vision ---------------------------------------------------------------------------
_LLAMA_VISION = {
    "hidden_size": 1280, "num_hidden_layers": 32, "num_global_layers": 8, "intermediate_size": 5120,
    "vision_output_dim": 7680, "image_size": 560, "patch_size": 14, "max_num_tiles": 4, "attention_heads": 16,
    "supported_aspect_ratios": [[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]],
}
_LLAMA_VISION_NOTE = (
    "Llama 3.2 Vision adds cross-attention layers to a Llama 3.1 decoder: every fifth layer (cross_attention_layers) "
    "is a gated cross-attention block over the image's vision tokens (q/k RMSNorms, attention and MLP gates) and "
    "holds their K and V once per image instead of a growing text cache. The tiled ViT-H/14 tower takes up to "
    "4 tiles of 560 px (1,601 tokens each with the class token), 32 local + 8 gated global layers, and its "
    "7,680-wide output (five intermediate layers concatenated) is projected into the language width. The "
    "embedding has 8 rows beyond the vocabulary (MllamaTextModel)."
)
_LLAMA_VISION_SOURCE = (
    "text_config: " + MMEVAL + " (num_hidden_layers, hidden_size, num_attention_heads, num_key_value_heads, "
    "max_position_embeddings); intermediate_size, vocab_size: Llama 3.1 {base}'s (Meta builds the language model on "
    "it; the catalog's {base_id} record); vision_config: "
    + TRANSFORMERS_DEFAULTS.format("MllamaVisionConfig", "mllama") + ", documented as Llama-3.2-11B-Vision's, with "
    "image_size 560 (the metadata's image_tokens 1,600 = (560 / 14)^2); the exact hub total confirms every shape"
)


def _llama_vision(size: str, text: dict[str, Any], published: int, *, base: str, base_id: str,
                  notes: tuple[str, ...]) -> ModelRecord:
    repo = f"meta-llama/Llama-3.2-{size}-Vision-Instruct"
    config = {
        "model_type": "mllama", "tie_word_embeddings": False,
        "text_config": {"model_type": "mllama_text_model", "vocab_size": 128256, "max_position_embeddings": 131072,
                        "rope_theta": 500000.0, "rms_norm_eps": 1e-05, "tie_word_embeddings": False, **text},
        "vision_config": _LLAMA_VISION,
    }
    return record(
        f"llama-3.2-{size.lower()}-vision-instruct", f"Llama 3.2 {size} Vision Instruct", repo, "llama", config,
        config_source(repo, _LLAMA_VISION_SOURCE.format(base=base, base_id=base_id), as_of=_D),
        Published(
            published,
            hub_api_source(repo, "main", via=MMEVAL, as_of=_D)),
        notes=(_LLAMA_VISION_NOTE, *notes),
    )


RECORDS: tuple[ModelRecord, ...] = (
    _qwen25_vl("3B", {"hidden_size": 2048, "num_hidden_layers": 36, "num_attention_heads": 16,
                      "num_key_value_heads": 2, "intermediate_size": 11008, "vocab_size": 151936,
                      "tie_word_embeddings": True}, 3754622976, text_record="qwen2.5-3b",
               notes=("The output head is tied, as Qwen2.5-3B's.",)),
    _qwen25_vl("7B", {"hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
                      "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064,
                      "tie_word_embeddings": False}, 8292166656, text_record="qwen2.5-7b",
               notes=("Vision tower and merger: 676,550,144 elements (tests/engine/test_vision_language.py re-derives "
                      "them); the rest is Qwen2.5-7B's 7,615,616,512.",)),
    _qwen25_vl("32B", {"hidden_size": 5120, "num_hidden_layers": 64, "num_attention_heads": 40,
                       "num_key_value_heads": 8, "intermediate_size": 27648, "vocab_size": 152064,
                       "tie_word_embeddings": False}, 33452718336, text_record="qwen2.5-32b",
               vision_width=3456, notes=(_QWEN25_VL_3456_NOTE,)),
    _qwen25_vl("72B", {"hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64,
                       "num_key_value_heads": 8, "intermediate_size": 29568, "vocab_size": 152064,
                       "tie_word_embeddings": False}, 73410777344, text_record="qwen2.5-72b",
               vision_width=3456, notes=(_QWEN25_VL_3456_NOTE,)),
    _llama_vision("11B", {"hidden_size": 4096, "num_hidden_layers": 40, "num_attention_heads": 32,
                          "num_key_value_heads": 8, "intermediate_size": 14336,
                          "cross_attention_layers": [3, 8, 13, 18, 23, 28, 33, 38]},
                  10670220835, base="8B", base_id="llama-3.1-8b",
                  notes=("cross_attention_layers [3, 8, ..., 38] is MllamaTextConfig's default, documented as this "
                         "checkpoint's: 32 self-attention layers (Llama 3.1 8B's) and 8 cross-attention layers.",)),
    _llama_vision("90B", {"hidden_size": 8192, "num_hidden_layers": 100, "num_attention_heads": 64,
                          "num_key_value_heads": 8, "intermediate_size": 28672,
                          "cross_attention_layers": list(range(3, 100, 5))},
                  88593355323, base="70B", base_id="llama-3.1-70b",
                  notes=("100 layers: Llama 3.1 70B's 80 self-attention layers and 20 cross-attention layers. The "
                         "count (20) follows from the metadata's 100 layers and is confirmed by the exact hub total; "
                         "their positions (every fifth layer from 3, the 11B's pattern) were not read from a copy "
                         "of config.json. Neither the parameter count nor the cache size depends on the positions.",)),
    record(
        "medgemma-4b-it", "MedGemma 4B Instruct", "google/medgemma-4b-it", "gemma",
        {"model_type": "gemma3", "mm_tokens_per_image": 256,
         "text_config": {**_GEMMA3_SHARED, "vocab_size": 262208, "sliding_window": 1024,
                         "max_position_embeddings": 131072, "hidden_size": 2560, "num_hidden_layers": 34,
                         "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
                         "intermediate_size": 10240},
         "vision_config": _SIGLIP},
        config_source("google/medgemma-4b-it", "Gemma 3 4B's config (the catalog's gemma-3-4b-vision record): "
                      "MedGemma 4B is Google's medical fine-tune of Gemma 3 4B, and KerasHub ports it with the same "
                      "exact count", as_of=_D),
        Published(
            4300079472,
            keras_source("medgemma_instruct_4b", "gemma3", sibling_of="google/medgemma-4b-it", as_of=_D)),
        notes=(_GEMMA3_VL_NOTE,
               "The same tensors as Gemma 3 4B with its SigLIP encoder (whose vision weights MedGemma retrains on "
               "medical images); KerasHub's medgemma_4b and medgemma_1.5_instruct_4b presets give the same count."),
    ),
    record(
        "ministral-3-8b-instruct-2512", "Ministral 3 8B Instruct 2512", "mistralai/Ministral-3-8B-Instruct-2512",
        "mistral",
        {"model_type": "mistral3", "tie_word_embeddings": False, "spatial_merge_size": 2,
         "multimodal_projector_bias": False, "projector_hidden_act": "gelu", "vision_feature_layer": -1,
         "text_config": {"model_type": "ministral3", "head_dim": 128, "hidden_size": 4096, "intermediate_size": 14336,
                         "max_position_embeddings": 262144, "num_attention_heads": 32, "num_hidden_layers": 34,
                         "num_key_value_heads": 8, "sliding_window": None, "vocab_size": 131072,
                         "tie_word_embeddings": False},
         "vision_config": {"model_type": "pixtral", "hidden_size": 1024, "intermediate_size": 4096,
                           "num_hidden_layers": 24, "num_attention_heads": 16, "head_dim": 64, "image_size": 1540,
                           "patch_size": 14, "num_channels": 3}},
        config_source("mistralai/Ministral-3-8B-Instruct-2512",
                      _ATLAS_CONFIG.format("mistralai__Ministral-3-8B-Instruct-2512.config.json")
                      + " (text_config shape keys); vocab_size 131,072 and the untied head: from the hub's BF16 "
                      "count (below); vision_config: "
                      + TRANSFORMERS_DEFAULTS.format("PixtralVisionConfig", "pixtral")
                      + ", Mistral Small 3.1's tower; the exact hub total confirms every shape", as_of=_D),
        Published(
            8918026716,
            hub_api_source("mistralai/Ministral-3-8B-Instruct-2512", "main",
                           via=ATLAS_FEATURED.format("mistralai__Ministral-3-8B-Instruct-2512.api.json"),
                           as_of=_D), extra=34 * 7 * 2),
        notes=("A Mistral3ForConditionalGeneration checkpoint: a 34-layer Ministral 3 language model (Mistral "
               "layout, GQA 32/8 heads of 128, an untied 131,072-row head) and Mistral Small 3.1's Pixtral tower "
               "and projector, here into width 4096 (428,472,320 vision elements).",
               "The checkpoint ships FP8 (E4M3) linears in the language model: the hub counts BF16 1,502,496,768 "
               "(embedding, head, norms, tower) + F8_E4M3 7,415,529,472 (34 x 218,103,808 linear weights) + 476 "
               "FP32 scales (a weight scale and an activation scale for each of the 7 linears of 34 layers), "
               "published_extra_elements. ModelSpec counts the weights once, whatever their dtype.",
               "Its text_config's model_type is ministral3 (Mistral layers with a query scaling over long "
               "positions, no shape change): read by the Mistral rules."),
    ),
)
