"""Vision-language configs: the tower and projector counted in the weights, images as prompt tokens.

Expected counts: published checkpoint totals where the catalog has them (its records cite
the sources), and, for the families' own configuration defaults, what transformers 5.23
builds on the meta device from the values written here (``AutoModelForImageTextToText``).
"""

from __future__ import annotations

from typing import Any

import pytest

from calculators.catalog.models import get_model, get_model_record
from calculators.errors import ConfigError, InputError
from calculators.memory.inference import image_prompt_tokens, inference_memory, kv_cache_bytes_per_token
from calculators.model_config import spec_from_config
from calculators.model_vision import DEFAULT_IMAGE_SIDE_PX

# Qwen/Qwen2.5-VL-7B-Instruct config.json (its language model at the top level, as the hub file has it).
# The Hugging Face model page gives 8.29B parameters; transformers 5.23 builds 8,292,166,656.
QWEN25_VL_7B: dict[str, Any] = {
    "model_type": "qwen2_5_vl", "hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
    "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064, "tie_word_embeddings": False,
    "max_position_embeddings": 128000, "use_sliding_window": False, "sliding_window": 32768, "max_window_layers": 28,
    "vision_start_token_id": 151652, "vision_end_token_id": 151653, "vision_token_id": 151654,
    "image_token_id": 151655, "video_token_id": 151656,
    "vision_config": {"depth": 32, "hidden_size": 1280, "intermediate_size": 3420, "num_heads": 16, "in_chans": 3,
                      "out_hidden_size": 3584, "patch_size": 14, "spatial_merge_size": 2, "spatial_patch_size": 14,
                      "temporal_patch_size": 2, "window_size": 112, "fullatt_block_indexes": [7, 15, 23, 31],
                      "tokens_per_second": 2},
}


def test_qwen2_5_vl_7b_counts_its_tower() -> None:
    # Tower, written out: Conv3d 3 x 2 x 14 x 14 x 1280 (no bias) = 1,505,280; 32 blocks of two RMSNorms (2 x 1280),
    # qkv + proj with biases (4 x 1280^2 + 4 x 1280 = 6,558,720) and a biased gated MLP (3 x 1280 x 3420 + 2 x 3420
    # + 1280 = 13,140,920): 19,702,200 each; merger: RMSNorm 1280 + (5120^2 + 5120) + (5120 x 3584 + 3584) = 44,574,464.
    spec = spec_from_config(QWEN25_VL_7B)
    assert spec.vision is not None
    assert spec.vision.parameters == 1_505_280 + 32 * 19_702_200 + 44_574_464 == 676_550_144
    assert spec.parameters == 8_292_166_656 and round(spec.parameters / 1e9, 2) == 8.29
    assert spec.model_type == "qwen2" and spec.qkv_bias  # its language model is Qwen2's layout
    # The tower runs once per image, not per generated token.
    assert spec.parameters - spec.active_parameters == spec.vision.parameters


def test_published_checkpoints_equal_language_model_plus_tower() -> None:
    """The catalog's Gemma 3 4B and Mistral Small 3.1 records hold only the language model's config; their published
    totals count the tower too (published_extra_elements, derived in test_model_catalog_2025.py). Given the whole
    config.json, the reader counts it all."""
    gemma = get_model_record("gemma-3-4b")
    full_gemma = {"model_type": "gemma3", "mm_tokens_per_image": 256, "text_config": dict(gemma.config),
                  "vision_config": {"hidden_size": 1152, "num_hidden_layers": 27, "intermediate_size": 4304,
                                    "image_size": 896, "patch_size": 14, "vision_use_head": False}}
    assert spec_from_config(full_gemma).parameters == gemma.published_parameters == 4_300_079_472
    mistral = get_model_record("mistral-small-3.1-24b")
    full_mistral = {"model_type": "mistral3", "spatial_merge_size": 2, "multimodal_projector_bias": False,
                    "text_config": dict(mistral.config),
                    "vision_config": {"hidden_size": 1024, "num_hidden_layers": 24, "intermediate_size": 4096,
                                      "image_size": 1540, "patch_size": 14}}
    assert spec_from_config(full_mistral).parameters == mistral.published_parameters == 24_011_361_280
    assert get_model("gemma-3-4b").vision is None  # the text-only record is still the language model


# Configuration defaults of transformers 5.23 (shape keys only), and what it builds from each.
@pytest.mark.parametrize(("config", "built"), [
    ({"model_type": "qwen3_vl", "tie_word_embeddings": False,
      "text_config": {"vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 22016, "num_hidden_layers": 32,
                      "num_attention_heads": 32, "num_key_value_heads": 32, "head_dim": 128,
                      "model_type": "qwen3_vl_text"},
      "vision_config": {"depth": 27, "hidden_size": 1152, "intermediate_size": 4304, "num_heads": 16, "patch_size": 16,
                        "spatial_merge_size": 2, "temporal_patch_size": 2, "out_hidden_size": 3584,
                        "num_position_embeddings": 2304, "deepstack_visual_indexes": [8, 16, 24]}}, 12_616_410_352),
    ({"model_type": "qwen3_vl_moe", "tie_word_embeddings": False,
      "text_config": {"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 24,
                      "num_attention_heads": 16, "num_key_value_heads": 16, "tie_word_embeddings": True,
                      "decoder_sparse_step": 1, "moe_intermediate_size": 1408, "num_experts_per_tok": 4,
                      "num_local_experts": 60, "mlp_only_layers": [], "head_dim": 128,
                      "model_type": "qwen3_vl_moe_text"},
      "vision_config": {"depth": 27, "hidden_size": 1152, "intermediate_size": 4304, "num_heads": 16, "patch_size": 16,
                        "spatial_merge_size": 2, "temporal_patch_size": 2, "out_hidden_size": 3584,
                        "num_position_embeddings": 2304, "deepstack_visual_indexes": [8, 16, 24]}}, 14_052_070_640),
    ({"model_type": "gemma3", "tie_word_embeddings": True, "mm_tokens_per_image": 256,
      "text_config": {"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
                      "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "sliding_window": 4096,
                      "model_type": "gemma3_text"},
      "vision_config": {"hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12, "image_size": 224,
                        "patch_size": 16, "vision_use_head": True}}, 2_723_312_896),
])
def test_configuration_defaults_match_transformers(config: dict[str, Any], built: int) -> None:
    assert spec_from_config(config).parameters == built


def test_the_outer_tie_flag_decides_the_head() -> None:
    # transformers 5.23 ties by the outer config's tie_word_embeddings: the Qwen3-VL-MoE defaults above (outer false,
    # text true) build an untied 151,936 x 2048 head.
    config = {"model_type": "qwen3_vl_moe", "tie_word_embeddings": False,
              "text_config": {"vocab_size": 1000, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1,
                              "num_attention_heads": 4, "tie_word_embeddings": True, "moe_intermediate_size": 32,
                              "num_experts_per_tok": 2, "num_local_experts": 4, "model_type": "qwen3_vl_moe_text"},
              "vision_config": {"depth": 1, "hidden_size": 32, "intermediate_size": 64, "out_hidden_size": 64}}
    untied = spec_from_config(config)
    tied = spec_from_config({**config, "tie_word_embeddings": True})
    assert not untied.tie_word_embeddings and untied.parameters - tied.parameters == 1000 * 64


def test_images_become_prompt_tokens() -> None:
    spec = spec_from_config(QWEN25_VL_7B)
    # Qwen2.5-VL: one token per 28 x 28 px (14-px patches merged 2 x 2): round(1024 / 28) = 37 per side.
    assert DEFAULT_IMAGE_SIDE_PX == 1024
    assert image_prompt_tokens(spec, images=1) == 37 * 37
    assert image_prompt_tokens(spec, images=2, image_side_px=448) == 2 * 16 * 16
    text_only = inference_memory(spec, context=1000)
    with_images = inference_memory(spec, context=1000, images=2)
    assert with_images.breakdown["kv_cache"] - text_only.breakdown["kv_cache"] == \
        2 * 37 * 37 * kv_cache_bytes_per_token(spec)
    assert "vision" in with_images.phase_peaks and with_images.peak_allocated_bytes > text_only.peak_allocated_bytes


def test_fixed_and_capped_resolutions() -> None:
    gemma = get_model_record("gemma-3-4b")
    config = {"model_type": "gemma3", "text_config": dict(gemma.config),
              "vision_config": {"hidden_size": 1152, "num_hidden_layers": 27, "intermediate_size": 4304,
                                "image_size": 896, "patch_size": 14, "vision_use_head": False}}
    tower = spec_from_config(config).vision
    assert tower is not None
    # Gemma 3 resizes every image to 896 px, 64 x 64 patches pooled 4 x 4: 256 tokens whatever the input.
    assert tower.tokens_per_image(224) == tower.tokens_per_image(4000) == 256
    assert tower.encoder_tokens_per_image(4000) == 64 * 64
    # Pixtral takes images up to image_size a side: 1540 / 14 / 2 = 55 rows of 55 merged patches + 55 row breaks.
    mistral = spec_from_config({"model_type": "mistral3", "text_config": dict(get_model_record(
        "mistral-small-3.1-24b").config), "vision_config": {"hidden_size": 1024, "num_hidden_layers": 24,
                                                           "intermediate_size": 4096, "image_size": 1540,
                                                           "patch_size": 14}}).vision
    assert mistral is not None
    assert mistral.tokens_per_image(4000) == 55 * 55 + 55
    assert mistral.tokens_per_image(560) == 20 * 20 + 20


def test_images_on_a_text_model_are_refused() -> None:
    with pytest.raises(InputError) as info:
        inference_memory(get_model("llama-3-8b"), images=1)
    assert info.value.field == "images" and "vision tower" in str(info.value)


def test_a_tower_without_its_keys_is_refused_by_key() -> None:
    config = {**QWEN25_VL_7B, "vision_config": {"hidden_size": 1280}}
    with pytest.raises(ConfigError) as info:
        spec_from_config(config)
    assert info.value.field == "config.vision_config.depth"


# meta-llama/Llama-3.2-11B-Vision config.json (shape keys). transformers 5.23 builds 10,670,220,835 parameters
# from these values; the Hugging Face model page gives 10.7B.
LLAMA32_VISION_11B: dict[str, Any] = {
    "model_type": "mllama",
    "text_config": {"model_type": "mllama_text_model", "vocab_size": 128256, "hidden_size": 4096,
                    "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 8,
                    "intermediate_size": 14336, "tie_word_embeddings": False,
                    "cross_attention_layers": [3, 8, 13, 18, 23, 28, 33, 38]},
    "vision_config": {"hidden_size": 1280, "num_hidden_layers": 32, "num_global_layers": 8, "intermediate_size": 5120,
                      "vision_output_dim": 7680, "image_size": 560, "patch_size": 14, "max_num_tiles": 4,
                      "supported_aspect_ratios": [[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]]},
}


def test_llama_3_2_vision_cross_attention_layers() -> None:
    spec = spec_from_config(LLAMA32_VISION_11B)
    assert spec.parameters == 10_670_220_835
    # 32 self-attention layers hold the text's K and V; the 8 cross-attention layers hold the image's.
    assert spec.attention_layers == 32 and spec.count_layers(mixer="cross_attention") == 8
    assert kv_cache_bytes_per_token(spec) == 32 * 2 * 8 * 128 * 2
    # Cross-attention block: q 4096^2, k and v 4096 x 1024, o 4096^2, q/k norms 2 x 128, two gates.
    assert spec.cross_attention_parameters_per_layer == 2 * 4096 ** 2 + 2 * 4096 * 1024 + 256 + 2
    # The embedding has 8 rows more than the vocabulary (MllamaTextModel); the head has the vocabulary's.
    assert spec.embedding_parameters - spec.lm_head_parameters == 8 * 4096
    # An image: 4 tiles of (560 / 14)^2 patches + a class token = 6,404 vision tokens; one <|image|> prompt token.
    assert spec.vision is not None and spec.vision.encoder_tokens_per_image() == 4 * (40 * 40 + 1)
    assert image_prompt_tokens(spec, images=1) == 1
    text = inference_memory(spec, context=1000)
    with_image = inference_memory(spec, context=1000, images=1)
    per_image = 8 * 6404 * 2 * 8 * 128 * 2  # cross layers x vision tokens x K and V x kv_dim x bf16
    assert with_image.breakdown["kv_cache"] - text.breakdown["kv_cache"] == per_image + kv_cache_bytes_per_token(spec)


def test_llama_4_tiles_an_image() -> None:
    """Llama 4 cuts an image into 336-px tiles (up to 16, plus a global view when more than one); each tile's
    24 x 24 patches are pixel-shuffled 2 x 2 into 144 tokens (Llama4VisionPixelShuffleMLP, ratio 0.5)."""
    spec = get_model("llama-4-scout-17b-16e")
    tower = spec.vision
    assert tower is not None and tower.family == "llama4"
    assert tower.tokens_per_image(336) == 144
    assert tower.tokens_per_image(672) == (4 + 1) * 144
    assert tower.tokens_per_image(1024) == (16 + 1) * 144  # ceil(1024 / 336) = 4 per side
    assert tower.tokens_per_image(4000) == (16 + 1) * 144  # at most 16 tiles
    assert image_prompt_tokens(spec, images=2, image_side_px=336) == 288
