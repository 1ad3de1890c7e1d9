"""The 2025 models of the catalog: exact counts re-derived from first principles and publishers' figures.

The generic checks (our count + documented extra elements == the published count; sources
complete) run for every record in ``test_model_catalog.py``. Here each documented extra,
and each figure a publisher gives rounded, is re-derived independently: the arithmetic is
written out with the config values, citing where they come from.
"""

from __future__ import annotations

import pytest

from calculators.catalog.model_records.gpt_oss import MODEL_CARD
from calculators.catalog.models import get_model, get_model_record, model_ids
from calculators.errors import InputError
from calculators.memory.weights import mxfp4_expert_weight_bytes

NEW_2025 = (
    "llama-3.3-70b", "qwen3-0.6b", "qwen3-8b", "qwen3-32b", "qwen3-30b-a3b", "qwen3-235b-a22b",
    "gemma-3-1b", "gemma-3-4b", "gemma-3-12b", "gemma-3-27b", "deepseek-r1", "gpt-oss-20b", "gpt-oss-120b",
    "mistral-nemo-12b", "mistral-small-3.1-24b", "mistral-small-3.2-24b", "phi-4",
)


def test_models_people_run_today_are_catalogued_with_a_published_count() -> None:
    assert set(NEW_2025) <= set(model_ids())
    for rid in NEW_2025:
        record = get_model_record(rid)
        assert record.published_parameters is not None, rid
        assert record.source.as_of >= "2026-11-25", rid


def test_llama_3_3_70b_has_llama_3_1_70b_shapes() -> None:
    """Meta: Llama 3.3 70B uses the Llama 3.1 70B architecture (same published count, 70,553,706,496)."""
    assert get_model("llama-3.3-70b").parameters == get_model("llama-3.1-70b").parameters == 70_553_706_496


def test_qwen3_0_6b_checkpoint_stores_its_tied_head() -> None:
    """Hub total 751,632,384 = the tied model + one more 151,936 x 1024 matrix (lm_head.weight on disk).

    The model card (huggingface.co/Qwen/Qwen3-0.6B) says 0.6B parameters, 0.44B non-embedding.
    """
    spec = get_model("qwen3-0.6b")
    record = get_model_record("qwen3-0.6b")
    assert spec.tie_word_embeddings
    assert record.published_extra_elements == 151_936 * 1024
    assert round(spec.parameters / 1e9, 1) == 0.6
    assert round((spec.parameters - 151_936 * 1024) / 1e9, 2) == 0.44


@pytest.mark.parametrize(("rid", "total_b", "active_b"), [("qwen3-30b-a3b", 30, 3), ("qwen3-235b-a22b", 235, 22)])
def test_qwen3_moe_total_and_active_match_the_names(rid: str, total_b: int, active_b: int) -> None:
    """Qwen names each MoE by its total and activated size in whole billions: 30B-A3B, 235B-A22B."""
    spec = get_model(rid)
    assert int(spec.parameters // 10**9) == total_b
    assert int(spec.active_parameters // 10**9) == active_b


# SigLIP So400m/14 vision tower of Gemma 3 (vision_config of google/gemma-3-4b-it's config.json:
# hidden 1152, intermediate 4304, 27 layers, 896-pixel images, 14-pixel patches, no head), written out:
_V_HIDDEN, _V_MLP, _V_LAYERS, _PATCHES = 1152, 4304, 27, (896 // 14) ** 2
_SIGLIP = (
    3 * 14 * 14 * _V_HIDDEN + _V_HIDDEN  # patch embedding conv + bias
    + _PATCHES * _V_HIDDEN  # position embedding, one per patch
    + _V_LAYERS * (
        2 * 2 * _V_HIDDEN  # two LayerNorms (weight and bias)
        + 4 * (_V_HIDDEN * _V_HIDDEN + _V_HIDDEN)  # q, k, v, out projections with biases
        + (_V_HIDDEN * _V_MLP + _V_MLP) + (_V_MLP * _V_HIDDEN + _V_HIDDEN)  # fc1, fc2 with biases
    )
    + 2 * _V_HIDDEN  # post LayerNorm
)


@pytest.mark.parametrize(("rid", "hidden"), [("gemma-3-4b", 2560), ("gemma-3-12b", 3840), ("gemma-3-27b", 5376)])
def test_gemma3_extra_elements_are_the_vision_tower_and_projector(rid: str, hidden: int) -> None:
    """Published multimodal total = language model + SigLIP + projector (RMSNorm 1152, 1152 x hidden)."""
    projector = _V_HIDDEN + _V_HIDDEN * hidden
    assert get_model_record(rid).published_extra_elements == _SIGLIP + projector


@pytest.mark.parametrize(("rid", "keras_text_params"), [
    # KerasHub gemma3_presets.py, text-only presets gemma3_4b_text, gemma3_12b_text, gemma3_27b_text
    ("gemma-3-4b", 3_880_099_328), ("gemma-3-12b", 11_765_788_416), ("gemma-3-27b", 27_009_002_240),
])
def test_gemma3_language_model_matches_kerashub_text_presets(rid: str, keras_text_params: int) -> None:
    """KerasHub's text-only ports keep the tokenizer's 262,144 rows, not the config's 262,208 (64 image tokens)."""
    spec = get_model(rid)
    assert spec.parameters - 64 * spec.hidden_size == keras_text_params


def test_gemma3_five_local_layers_to_one_global() -> None:
    """sliding_window_pattern 6: layer i is global when (i + 1) % 6 == 0 (34 layers: 5 global, 29 local)."""
    for rid, layers, global_layers in (("gemma-3-1b", 26, 4), ("gemma-3-4b", 34, 5), ("gemma-3-27b", 62, 10)):
        spec = get_model(rid)
        assert spec.num_layers == layers
        assert spec.sliding_window_layers == layers - global_layers, rid


def test_mistral_small_extra_elements_are_pixtral_and_projector() -> None:
    """Pixtral (vision_config of Mistral Small 3.1: width 1024, 24 layers, gated MLP 4096, patch 14, no biases).

    Projector (spatial_merge_size 2, multimodal_projector_bias false): RMSNorm 1024, patch merger
    (4 x 1024) -> 1024, then 1024 -> 5120 and 5120 -> 5120.
    """
    width, mlp, layers, text = 1024, 4096, 24, 5120
    pixtral = 3 * 14 * 14 * width + width + layers * (2 * width + 4 * width * width + 3 * width * mlp)
    projector = width + 4 * width * width + width * text + text * text
    for rid in ("mistral-small-3.1-24b", "mistral-small-3.2-24b"):
        assert get_model_record(rid).published_extra_elements == pixtral + projector == 438_958_080


def test_gpt_oss_matches_openais_model_card() -> None:
    """Model card Table 1: totals 20.91B / 116.83B; active 3.61B / 5.13B (without the input embedding);
    MLP 19.12B / 114.71B; attention 0.64B / 0.96B; embedding + unembedding 1.16B; checkpoints 12.8 / 60.8 GiB.
    """
    assert MODEL_CARD.url == "https://arxiv.org/abs/2508.10925"
    for rid, total, active, mlp, attention, checkpoint_gib in (
        ("gpt-oss-20b", 20.91, 3.61, 19.12, 0.64, 12.8), ("gpt-oss-120b", 116.83, 5.13, 114.71, 0.96, 60.8),
    ):
        spec = get_model(rid)
        assert round(spec.parameters / 1e9, 2) == total
        assert round((spec.active_parameters - spec.embedding_parameters) / 1e9, 2) == active
        assert round(spec.num_layers * spec.moe_parameters_per_layer / 1e9, 2) == mlp
        assert round(spec.num_layers * spec.attention_parameters_per_layer / 1e9, 2) == attention
        assert round((spec.embedding_parameters + spec.lm_head_parameters) / 1e9, 2) == 1.16
        assert round(mxfp4_expert_weight_bytes(spec) / 2**30, 1) == checkpoint_gib


def test_gpt_oss_layer_by_hand() -> None:
    """One gpt-oss-20b layer from its config (hidden 2880, 64 q heads and 8 KV heads of 64, 32 experts of 2880)."""
    h, q, kv, experts, width = 2880, 64 * 64, 8 * 64, 32, 2880
    attention = (h * q + q) + 2 * (h * kv + kv) + (q * h + h) + 64  # biased q, k, v, o and 64 sinks
    moe = (h * experts + experts) + experts * (h * 2 * width + 2 * width + width * h + h)  # router, experts
    spec = get_model("gpt-oss-20b")
    assert spec.attention_parameters_per_layer == attention
    assert spec.moe_parameters_per_layer == moe
    assert spec.sliding_window == 128 and spec.sliding_window_layers == 12


def test_mxfp4_bytes_need_experts() -> None:
    with pytest.raises(InputError) as info:
        mxfp4_expert_weight_bytes(get_model("phi-4"))
    assert info.value.field == "model"


def test_deepseek_mtp_module_by_hand() -> None:
    """The hub total's MTP module: one MoE layer + eh_proj (2 x 7168 -> 7168) + 3 norms + own embed and head.

    DeepSeek-V3 config: hidden 7168, q_lora 1536, kv_lora 512, 128 heads of nope 128 + rope 64, v 128,
    256 routed experts + 1 shared of width 2048, vocab 129,280.
    """
    h, heads = 7168, 128
    mla = (h * 1536 + 1536 + 1536 * heads * 192 + h * (512 + 64) + 512 + 512 * heads * (128 + 128)
           + heads * 128 * h)
    moe = 256 * h + 256 + 256 * 3 * h * 2048 + 3 * h * 2048
    layer = mla + moe + 2 * h
    mtp = layer + 2 * h * h + 3 * h + 2 * 129_280 * h
    assert mtp == 13_463_426_304
    for rid in ("deepseek-v3", "deepseek-r1"):
        assert get_model_record(rid).published_extra_elements == mtp + 41_540_496


def test_deepseek_r1_is_deepseek_v3_shaped_and_matches_671b_37b() -> None:
    """DeepSeek: 671B total, 37B activated per token (without the input embedding, as gpt-oss counts)."""
    v3, r1 = get_model("deepseek-v3"), get_model("deepseek-r1")
    assert r1.parameters == v3.parameters
    assert r1.active_parameters == v3.active_parameters
    assert round(r1.parameters / 1e9) == 671
    assert round((r1.active_parameters - r1.embedding_parameters) / 1e9) == 37
