"""The 2026 additions: registered records, pending records, and the transformers counts behind both.

Registered records go through the generic checks of ``test_model_catalog.py`` (our count +
documented extras == the published count). Here: the list of new models, each documented
extra re-derived by hand, the figures publishers give rounded, and every entry of
``tests/data/model_counts_transformers.json`` (written by
``scripts/count_parameters_transformers.py``: each config built with transformers 5.23 on the
meta device) against ``ModelSpec.parameters`` where the model is registered, and against the
published count for pending records (the reader cannot count those yet).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from calculators.catalog.model_record import ModelRecord
from calculators.catalog.model_records import RECORDS
from calculators.catalog.model_records.glm import GLM45_AIR_MTP, GLM45_MTP
from calculators.catalog.model_records.hybrid import QWEN3_NEXT_MTP
from calculators.catalog.model_records.moe_2026 import V32_INDEXER, V32_MTP
from calculators.catalog.models import get_model, get_model_record, model_ids

COUNTS: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "model_counts_transformers.json").read_text()
)["models"]

NEW_2026_REGISTERED = (
    "qwen3-1.7b", "qwen3-4b", "qwen3-14b", "qwen3-235b-a22b-instruct-2507", "qwen3-coder-480b-a35b",
    "qwen3-coder-30b-a3b", "qwen2.5-coder-0.5b", "qwen2.5-coder-3b", "qwen2.5-coder-32b", "gemma-3-270m",
    "phi-4-mini", "magistral-small-2506", "llama-3.2-1b-instruct", "llama-3.2-3b-instruct",
    # hybrid and vision-language families, registered once the per-layer reader counted them
    "qwen3-next-80b-a3b", "nemotron-nano-9b-v2", "nemotron-h-56b", "qwen3-vl-2b", "qwen3-vl-4b",
    "qwen3-vl-8b", "qwen3-vl-32b", "qwen3-vl-30b-a3b", "qwen3-vl-235b-a22b", "mistral-small-3.1-24b-vision",
    "gemma-3-4b-vision", "gemma-3-12b-vision", "gemma-3-27b-vision",
)
#: Researched before their families' readers landed (once PENDING_FAMILIES_RECORDS), registered since.
NEW_2026_READ_LATER = (
    "llama-4-scout-17b-16e", "llama-4-maverick-17b-128e", "glm-4.5", "glm-4.5-air", "glm-4.6",
    "kimi-k2-instruct", "deepseek-v3.2", "minimax-m2.7", "granite-4.0-h-small", "smollm3-3b", "olmo-2-7b",
)


def test_new_models_are_registered_and_dated() -> None:
    assert set(NEW_2026_REGISTERED + NEW_2026_READ_LATER) <= set(model_ids())
    for rid in NEW_2026_REGISTERED + NEW_2026_READ_LATER:
        assert get_model_record(rid).source.as_of == "2026-11-28", rid


@pytest.mark.parametrize(("rid", "mtp"), [("glm-4.5", GLM45_MTP), ("glm-4.5-air", GLM45_AIR_MTP),
                                          ("deepseek-v3.2", V32_MTP)])
def test_the_reader_counts_the_stored_mtp_layer(rid: str, mtp: int) -> None:
    """The multi-token-prediction layer the checkpoint stores (num_nextn_predict_layers), derived by hand in
    the tests below from the hub totals: the reader counts it as stored, not as run."""
    spec = get_model(rid)
    assert spec.mtp_parameters == mtp
    assert spec.stored_parameters - spec.parameters == mtp


def test_every_record_has_a_transformers_count() -> None:
    assert set(COUNTS) == {r.id for r in RECORDS}
    assert all(e["transformers"] == "5.23.0" for e in COUNTS.values())


@pytest.mark.parametrize("rid", sorted(COUNTS))
def test_model_spec_matches_transformers(rid: str) -> None:
    """Registered: ModelSpec.parameters == transformers' parameters + the buffers the checkpoint stores."""
    entry = COUNTS[rid]
    assert get_model(rid).parameters == entry["parameters"] + entry["checkpoint_buffers"]


def test_glm_mtp_layers_by_hand() -> None:
    """One GLM-4.5 MTP layer (hidden 5120, 96 q heads / 8 KV heads of 128 with biases and q/k norms,
    160 experts + 1 shared of 1536, vocab 151,552): attention 136,329,472 + MoE 3,799,286,080 + 2 norms,
    eh_proj 2 x 5120^2, 3 norms, own embedding and head."""
    h, v = 5120, 151_552
    attention = h * 12288 + 12288 + 2 * (h * 1024 + 1024) + 12288 * h + 256
    moe = 160 * 3 * h * 1536 + 3 * h * 1536 + 160 * h + 160
    assert GLM45_MTP == attention + moe + 2 * h + 2 * h * h + 3 * h + 2 * v * h == 5_539_962_272
    # GLM-4.5-Air: hidden 4096, 128 experts of 1408, no q/k norms; zai-org/GLM-4.5-Air's hub total
    # 110,468,824,832 - transformers' 106,852,245,504 - 45 x 128 router biases.
    assert GLM45_AIR_MTP == 110_468_824_832 - 106_852_245_504 - 45 * 128 == 3_616_573_568


def test_qwen3_next_mtp_is_the_hub_total_minus_the_model() -> None:
    """Qwen/Qwen3-Next-80B-A3B-Instruct hub total 81,324,862,720 (kvfit) - transformers' 79,674,391,296."""
    assert QWEN3_NEXT_MTP == 81_324_862_720 - 79_674_391_296 == COUNTS["qwen3-next-80b-a3b"]["published_extra_elements"]


def test_deepseek_v32_is_v3_plus_an_indexer_per_layer() -> None:
    """V3.2 = V3 + 61 indexers (wq_b 1536 x 8192, wk 7168 x 128, LayerNorm 2 x 128, weights_proj 7168 x 64)."""
    v3 = get_model("deepseek-v3").parameters  # includes the 58 routers' biases, as the checkpoint does
    assert COUNTS["deepseek-v3.2"]["parameters"] + COUNTS["deepseek-v3.2"]["checkpoint_buffers"] == v3 + 61 * V32_INDEXER
    assert V32_MTP == 13_463_426_304 + 13_959_424


def test_vision_towers() -> None:
    """Vision parts re-derived: Gemma 3's SigLIP + projector (test_model_catalog_2025), Pixtral 438,958,080,
    Llama 4's 871,932,416 (published Scout total 108,641,793,536 - its language model)."""
    for size in ("4b", "12b", "27b"):
        entry = COUNTS[f"gemma-3-{size}-vision"]
        assert entry["vision_parameters"] == get_model_record(f"gemma-3-{size}").published_extra_elements
    assert COUNTS["mistral-small-3.1-24b-vision"]["vision_parameters"] == 438_958_080
    assert COUNTS["llama-4-scout-17b-16e"]["vision_parameters"] == 871_932_416


@pytest.mark.parametrize(("rid", "total_b", "active_b"), [
    ("qwen3-coder-480b-a35b", 480, 35),  # Qwen's name: 480B total, 35B activated
    ("qwen3-coder-30b-a3b", 30, 3),
])
def test_registered_moe_names_give_total_and_active(rid: str, total_b: int, active_b: int) -> None:
    spec = get_model(rid)
    assert int(spec.parameters // 10**9) == total_b
    assert int(spec.active_parameters // 10**9) == active_b


@pytest.mark.parametrize(("rid", "billions", "digits"), [
    ("llama-4-maverick-17b-128e", 400, 2),  # Meta: 400B total
    ("nemotron-h-56b", 56, 2),  # NVIDIA's name
    ("kimi-k2-instruct", 1000, 1),  # Moonshot: 1T total
])
def test_pending_counts_round_to_the_published_sizes(rid: str, billions: int, digits: int) -> None:
    """Sizes publishers give rounded (to ``digits`` significant figures), against transformers' exact count."""
    entry = COUNTS[rid]
    counted = (entry["parameters"] + entry["checkpoint_buffers"]) / 1e9
    assert float(f"{counted:.{digits}g}") == billions


@pytest.mark.parametrize(("vl", "text"), [
    ("qwen3-vl-2b", "qwen3-1.7b"), ("qwen3-vl-4b", "qwen3-4b"), ("qwen3-vl-8b", "qwen3-8b"),
    ("qwen3-vl-32b", "qwen3-32b"), ("qwen3-vl-30b-a3b", "qwen3-30b-a3b"), ("qwen3-vl-235b-a22b", "qwen3-235b-a22b"),
])
def test_qwen3_vl_language_models_are_qwen3_shaped(vl: str, text: str) -> None:
    """Each Qwen3-VL text_config has the shapes of a Qwen3 model whose exact count is published (KerasHub,
    kvfit): the whole checkpoint minus its vision tower equals that count."""
    entry = COUNTS[vl]
    assert entry["parameters"] - entry["vision_parameters"] == get_model_record(text).published_parameters \
        - get_model_record(text).published_extra_elements


def test_gemma_3_270m_embedding_split() -> None:
    """Google: 170M embedding parameters and 100M in the transformer blocks."""
    spec = get_model("gemma-3-270m")
    assert round(spec.embedding_parameters / 1e6, -1) == 170
    assert round((spec.parameters - spec.embedding_parameters) / 1e6, -1) == 100


def test_recurrent_state_shapes_from_the_mixers() -> None:
    """Mamba2: conv (d_inner + 2 x groups x state, kernel), ssm (heads, head_dim, state);
    Gated DeltaNet: conv (2 x 16 x 128 + 32 x 128, 4), recurrent (32, 128, 128)."""
    nano = COUNTS["nemotron-nano-9b-v2"]["state_per_layer"][0]
    assert nano["layers"] == 27
    assert nano["conv_state_shape"] == [128 * 80 + 2 * 8 * 128, 4]
    assert nano["recurrent_state_shape"] == [128, 80, 128]
    nxt = COUNTS["qwen3-next-80b-a3b"]["state_per_layer"][0]
    assert nxt["layers"] == 36
    assert nxt["conv_state_shape"] == [2 * 16 * 128 + 32 * 128, 4]
    assert nxt["recurrent_state_shape"] == [32, 128, 128]
    granite = COUNTS["granite-4.0-h-small"]["state_per_layer"][0]
    assert granite["layers"] == 36 and granite["conv_state_shape"] == [2 * 4096 + 2 * 128, 4]
