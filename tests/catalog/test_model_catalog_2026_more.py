"""The second 2026 batch of catalog records (read on 2026-11-29): what the generic checks cannot see.

``test_model_catalog.py`` compares every registered record's count (+ documented extras) with its
published total, and ``test_model_catalog_2026.py`` compares ModelSpec with transformers 5.23's
meta-device count (``tests/data/model_counts_transformers.json``). Here: the list of the batch,
each documented extra and derived value re-derived by hand from the sources' own figures, and
the sizes publishers give rounded where no exact count was found.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from calculators.catalog.model_records import PENDING_FAMILIES_RECORDS
from calculators.catalog.model_records.glm import GLM45_MTP
from calculators.catalog.models import get_model, get_model_record, model_ids
from calculators.model_config import spec_from_config

COUNTS: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "model_counts_transformers.json").read_text()
)["models"]

MORE_REGISTERED = (
    "qwen2.5-vl-3b", "qwen2.5-vl-7b", "qwen2.5-vl-32b", "qwen2.5-vl-72b", "llama-3.2-11b-vision-instruct",
    "llama-3.2-90b-vision-instruct", "medgemma-4b-it", "ministral-3-8b-instruct-2512", "qwen3-coder-next",
    "nemotron-3-nano-30b-a3b", "nemotron-h-8b", "nemotron-h-47b", "nemotron-nano-12b-v2", "mamba-codestral-7b",
    "qwen3-4b-instruct-2507", "qwen3-30b-a3b-instruct-2507", "qwen3-30b-a3b-thinking-2507",
    "qwen3-235b-a22b-thinking-2507", "deepseek-v3-0324", "deepseek-v3.1", "deepseek-v3.1-terminus",
    "deepseek-r1-0528", "gemma-3-1b-it", "phi-4-mini-reasoning", "magistral-small-2507", "mixtral-8x22b",
    "deepseek-r1-distill-qwen-1.5b", "deepseek-r1-distill-qwen-7b",
)

MORE_PENDING = (
    "olmo-2-13b", "olmo-3-7b", "olmo-3-32b", "olmoe-1b-7b", "granite-4.0-350m", "granite-4.0-1b", "granite-4.0-micro",
    "glm-4.7", "minimax-m2", "minimax-m2.1",
)
FIRST_PENDING = (
    "llama-4-scout-17b-16e", "llama-4-maverick-17b-128e", "glm-4.5", "glm-4.5-air", "glm-4.6",
    "kimi-k2-instruct", "deepseek-v3.2", "minimax-m2.7", "granite-4.0-h-small", "smollm3-3b", "olmo-2-7b",
)
PENDING = {r.id: r for r in PENDING_FAMILIES_RECORDS}


def test_the_batch_is_registered_dated_and_counted() -> None:
    assert set(MORE_REGISTERED) <= set(model_ids())
    pending = {r.id for r in PENDING_FAMILIES_RECORDS}
    assert not pending & set(model_ids())
    for rid in MORE_REGISTERED:
        assert get_model_record(rid).source.as_of == "2026-11-29", rid
        assert COUNTS[rid]["registered"] and COUNTS[rid]["transformers"] == "5.23.0", rid


def test_records_of_families_read_later_are_registered() -> None:
    """The records researched before their families' readers landed are in the catalog now, dated and counted."""
    assert not PENDING_FAMILIES_RECORDS
    for rid in FIRST_PENDING + MORE_PENDING:
        record = get_model_record(rid)
        assert record.source.as_of in ("2026-11-28", "2026-11-29"), rid
        assert COUNTS[rid]["registered"] and get_model(rid).parameters == (
            COUNTS[rid]["parameters"] + COUNTS[rid]["checkpoint_buffers"]), rid
    for rid in MORE_PENDING:
        assert get_model_record(rid).published_parameters is not None, rid


def test_the_catalog_has_at_least_100_models() -> None:
    assert len(model_ids()) >= 100


def test_glm_4_6_mtp_layer_has_no_embedding_copies() -> None:
    """GLM-4.6's hub total (356,785,898,816) is GLM-4.5's (358,337,791,296) less one 151,552 x 5120 embedding and
    one head: the same transformers count, an MTP layer stored without its own copies. GLM-4.7's equals GLM-4.5's."""
    glm45, glm46, glm47 = get_model_record("glm-4.5"), get_model_record("glm-4.6"), get_model_record("glm-4.7")
    assert glm45.published_parameters - glm46.published_parameters == 2 * 151_552 * 5120
    assert glm46.published_extra_elements == GLM45_MTP - 2 * 151_552 * 5120
    assert glm47.published_parameters == glm45.published_parameters
    assert COUNTS["glm-4.6"]["parameters"] == COUNTS["glm-4.7"]["parameters"] == COUNTS["glm-4.5"]["parameters"]


def test_olmo_3_vocabulary_is_derived_from_both_totals() -> None:
    """Each published total less its layers (by hand: q, k, v, o, q/k norms over all heads, SwiGLU MLP, two post-norms)
    and final norm leaves exactly 2 x 100,278 x hidden for embedding and head. The 7B's layers are OLMo 2 7B's."""
    def layers(hidden: int, kv: int, width: int, count: int) -> int:
        return count * (2 * hidden * hidden + 2 * hidden * kv + hidden + kv + 3 * hidden * width + 2 * hidden) + hidden
    for rid, hidden, kv, width, count in (("olmo-3-7b", 4096, 4096, 11008, 32), ("olmo-3-32b", 5120, 1024, 27648, 64)):
        total = get_model_record(rid).published_parameters
        assert (total - layers(hidden, kv, width, count)) == 2 * 100_278 * hidden, rid
        assert COUNTS[rid]["config"]["vocab_size"] == 100_278 and COUNTS[rid]["parameters"] == total
    olmo2 = get_model_record("olmo-2-7b").published_parameters  # 7,298,617,344 with 100,352 rows
    assert olmo2 - 2 * 100_352 * 4096 == get_model_record("olmo-3-7b").published_parameters - 2 * 100_278 * 4096


def test_olmoe_expert_width_is_derived_from_the_total() -> None:
    """16 layers x 64 experts x 3 matrices x 2048 x width: the default width 2048 gives 13,361,612,800 (transformers'
    build of OlmoeConfig's defaults); 1024 gives the published 6,919,161,856."""
    experts = 16 * 64 * 3 * 2048
    assert 13_361_612_800 - experts * 2048 + experts * 1024 == 6_919_161_856 == COUNTS["olmoe-1b-7b"]["parameters"]


def test_granite_dense_heads_are_tied() -> None:
    """Granite 4.0 Micro by hand: tied 100,352 x 2560 embedding; 40 layers of q/o 2560^2, k/v 2560 x 8 x 64, a gated
    shared MLP (2560 -> 2 x 8192, 8192 -> 2560) and two RMSNorms; a final norm. An untied head would add 100,352 x 2560."""
    layer = 2 * 2560 * 2560 + 2 * 2560 * 512 + 3 * 2560 * 8192 + 2 * 2560
    assert 100_352 * 2560 + 40 * layer + 2560 == get_model_record("granite-4.0-micro").published_parameters == 3_402_836_480
    for rid in ("granite-4.0-350m", "granite-4.0-1b", "granite-4.0-micro"):
        entry = COUNTS[rid]
        assert entry["config"]["tie_word_embeddings"] is True
        assert entry["parameters"] == get_model_record(rid).published_parameters, rid


@pytest.mark.parametrize(("rid", "total"), [
    # simple-mmeval's model_metadata.json (the Hub's safetensors.total) for the records published before this batch
    ("qwen3-vl-2b", 2_127_532_032), ("qwen3-vl-4b", 4_437_815_808), ("qwen3-vl-8b", 8_767_123_696),
    ("qwen3-vl-32b", 33_357_390_064), ("qwen3-vl-30b-a3b", 31_070_754_032), ("qwen3-vl-235b-a22b", 235_670_022_896),
    ("qwen3-coder-480b-a35b", 480_154_875_392),  # the MoE grouping journal's total_params
])
def test_earlier_records_now_have_their_hub_totals(rid: str, total: int) -> None:
    assert get_model_record(rid).published_parameters == total == get_model(rid).parameters


def test_llama_4_maverick_hub_total_equals_transformers_and_the_reader() -> None:
    """The mmeval total 401,583,781,376 is what transformers 5.23 builds, and what the reader counts with the tower."""
    maverick = get_model_record("llama-4-maverick-17b-128e")
    assert maverick.published_parameters == COUNTS[maverick.id]["parameters"] == 401_583_781_376
    assert get_model(maverick.id).parameters == 401_583_781_376


def test_qwen2_5_vl_large_towers_are_3456_wide() -> None:
    """The 32B and 72B totals exceed the shapes with the 7B's 3420-wide tower MLP by 32 blocks x (3 x 1280 x 36 + 2 x 36)
    (gate, up and down matrices 36 columns wider, gate and up biases 36 longer): their towers are 3456 wide."""
    extra = 32 * (3 * 1280 * 36 + 2 * 36)
    assert extra == 4_425_984
    for rid in ("qwen2.5-vl-32b", "qwen2.5-vl-72b"):
        record = get_model_record(rid)
        config = json.loads(json.dumps(COUNTS[rid]["config"]))
        assert config["vision_config"]["intermediate_size"] == 3456
        config["vision_config"]["intermediate_size"] = 3420
        assert spec_from_config(config).parameters == record.published_parameters - extra


def test_qwen2_5_vl_language_models_are_qwen2_5() -> None:
    """Each Qwen2.5-VL total minus its tower is the Qwen2.5 model of the same size (KerasHub's and the hub's counts)."""
    for vl, text in (("qwen2.5-vl-3b", "qwen2.5-3b"), ("qwen2.5-vl-7b", "qwen2.5-7b"), ("qwen2.5-vl-32b", "qwen2.5-32b"),
                     ("qwen2.5-vl-72b", "qwen2.5-72b")):
        entry = COUNTS[vl]
        assert entry["parameters"] - entry["vision_parameters"] == get_model_record(text).published_parameters


def test_llama_3_2_90b_vision_layers() -> None:
    """100 layers = Llama 3.1 70B's 80 self-attention layers + 20 cross-attention layers; the tower is the 11B's."""
    big, small = get_model("llama-3.2-90b-vision-instruct"), get_model("llama-3.2-11b-vision-instruct")
    assert big.attention_layers == 80 and big.count_layers(mixer="cross_attention") == 20
    assert COUNTS["llama-3.2-90b-vision-instruct"]["vision_parameters"] - 7680 * 8192 - 8192 == \
        COUNTS["llama-3.2-11b-vision-instruct"]["vision_parameters"] - 7680 * 4096 - 4096  # projector 7680 -> hidden
    assert small.parameters == 10_670_220_835


def test_ministral_3_fp8_scales() -> None:
    """The hub's dtype split (inference-atlas api.json): BF16 1,502,496,768 + F8_E4M3 7,415,529,472 + 476 FP32 scales.
    The FP8 part is the 34 layers' linear weights; the scales are two per linear (7 per layer)."""
    record = get_model_record("ministral-3-8b-instruct-2512")
    linears = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336
    assert 34 * linears == 7_415_529_472
    assert record.published_extra_elements == 34 * 7 * 2 == 476
    assert 1_502_496_768 + 7_415_529_472 + 476 == record.published_parameters
    # BF16: the tower and projector (Mistral Small 3.1's 438,958,080 less its 5120-wide projector's
    # 10,485,760 extra), 69 RMSNorms of 4096, and embedding + head of 131,072 rows.
    tower = COUNTS[record.id]["vision_parameters"]
    assert tower == 438_958_080 - (1024 * 5120 + 5120 * 5120 - 1024 * 4096 - 4096 * 4096) == 428_472_320
    assert tower + 69 * 4096 + 2 * 131_072 * 4096 == 1_502_496_768


def test_nemotron_3_nano_router_biases() -> None:
    """The BF16 repository's hub total (the MoE journal: 31,577,937,344) is transformers' parameters; ModelSpec also
    counts the 23 MoE routers' e_score_correction_bias (128 each), as transformers keeps them as persistent buffers."""
    entry = COUNTS["nemotron-3-nano-30b-a3b"]
    assert entry["parameters"] == 31_577_937_344
    assert entry["checkpoint_buffers"] == 23 * 128
    assert get_model("nemotron-3-nano-30b-a3b").parameters == 31_577_937_344 + 23 * 128


def test_deepseek_v3_line_shares_v3_extras() -> None:
    """Same hub total as DeepSeek-V3, same MTP module and FP8 block scales (test_model_catalog.py derives them)."""
    v3 = get_model_record("deepseek-v3")
    for rid in ("deepseek-v3-0324", "deepseek-v3.1", "deepseek-v3.1-terminus", "deepseek-r1-0528"):
        record = get_model_record(rid)
        assert record.published_parameters == v3.published_parameters == 684_531_386_000
        assert record.published_extra_elements == v3.published_extra_elements
        assert get_model(rid).parameters == get_model("deepseek-v3").parameters == 671_026_419_200


def test_r1_distill_1_5b_unties_its_head() -> None:
    """Qwen2.5-Math-1.5B (= Qwen2.5-1.5B's shapes, tied: 1,543,714,304) + an untied 151,936 x 1536 head."""
    assert get_model("deepseek-r1-distill-qwen-1.5b").parameters == \
        get_model_record("qwen2.5-1.5b").published_parameters + 151_936 * 1536 == 1_777_088_000


@pytest.mark.parametrize(("rid", "billions", "how"), [
    ("nemotron-3-nano-30b-a3b", 31.6, "3 significant figures"),  # NVIDIA: 31.6B total
    ("nemotron-h-8b", 8, "round"),  # NVIDIA's names
    ("nemotron-h-47b", 47, "round"),
    ("nemotron-nano-12b-v2", 12, "round"),
    ("mixtral-8x22b", 141, "round"),  # Mistral: 141B total
    ("qwen3-coder-next", 80, "round"),  # Qwen: 80B total
    ("deepseek-r1-distill-qwen-7b", 7, "floor"),  # the Qwen2.5 "7B" class is 7.6B
])
def test_rounded_published_sizes(rid: str, billions: float, how: str) -> None:
    counted = get_model(rid).parameters / 1e9
    if how == "round":
        assert round(counted) == billions
    elif how == "floor":
        assert int(counted) == billions
    else:
        assert float(f"{counted:.3g}") == billions


def test_mixtral_8x22b_active() -> None:
    """Mistral: 39B active of 141B (two of eight experts per token)."""
    assert round(get_model("mixtral-8x22b").active_parameters / 1e9) == 39


def test_hybrid_layer_mix() -> None:
    """Layer kinds from the patterns (M, *, -, E) and the mixers' per-sequence state."""
    for rid, mamba, attention in (("nemotron-h-8b", 24, 4), ("nemotron-h-47b", 45, 5), ("nemotron-nano-12b-v2", 28, 6),
                                  ("nemotron-3-nano-30b-a3b", 23, 6), ("mamba-codestral-7b", 64, 0)):
        spec = get_model(rid)
        assert spec.count_layers(mixer="mamba") == mamba and spec.attention_layers == attention, rid
    codestral = COUNTS["mamba-codestral-7b"]["state_per_layer"][0]
    assert codestral["conv_state_shape"] == [8192 + 2 * 8 * 128, 4] and codestral["recurrent_state_shape"] == [128, 64, 128]
    nano12 = COUNTS["nemotron-nano-12b-v2"]["state_per_layer"][0]
    assert nano12["recurrent_state_shape"] == [128, 80, 128]
