"""Encoders for embedding and reranking: exact parameters, published counts, refusals, memory and faces.

Parameter counts are derived by hand from the modules of transformers 5.23 (``modeling_bert.py``,
``modeling_xlm_roberta.py``, ``modeling_modernbert.py``) and, where stated, are what transformers
5.23 builds on the meta device from the same config values (``AutoConfig.for_model`` + the class
``architectures`` names, ``sum(p.numel())``). Published counts cite their source in the catalog.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from calculators.catalog.encoder_models import all_encoder_records, get_encoder, get_encoder_record
from calculators.cli import run
from calculators.encoder import encoder_from_config
from calculators.errors import ConfigError, InputError
from calculators.fit_encoder import fit_encoder
from calculators.measurements import load_measurements
from calculators.memory.encoder import encoder_inference_memory
from calculators.model_config import spec_from_config
from calculators.jobs.registry import get_calculator

BERT_BASE: dict[str, Any] = {"model_type": "bert", "vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12,
                             "num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 512,
                             "type_vocab_size": 2}
MODERNBERT_BASE: dict[str, Any] = {"model_type": "modernbert", "vocab_size": 50368, "hidden_size": 768,
                                   "num_hidden_layers": 22, "num_attention_heads": 12, "intermediate_size": 1152,
                                   "max_position_embeddings": 8192}


def test_bert_base_by_hand() -> None:
    """BertModel: embeddings (30522 + 512 + 2) x 768 + LayerNorm 2 x 768 = 23,837,184; a layer: q, k, v, o
    4 x (768 x 768 + 768) = 2,362,368, intermediate 768 x 3072 + 3072, output 3072 x 768 + 768 (4,722,432), two
    LayerNorms 3,072 = 7,087,872; 12 layers 85,054,464; pooler 768 x 768 + 768 = 590,592. Total 109,482,240, as
    transformers 5.23 builds on the meta device."""
    spec = encoder_from_config({**BERT_BASE, "architectures": ["BertModel"]})
    assert spec.embedding_parameters == 23_837_184
    assert spec.attention_parameters_per_layer + spec.mlp_parameters_per_layer + 2 * 2 * 768 == 7_087_872
    assert spec.parameters == 23_837_184 + 12 * 7_087_872 + 590_592 == 109_482_240


@pytest.mark.parametrize("architecture, extra, built", [
    # no pooler; MLM transform dense 590,592 + LayerNorm 1,536 + decoder bias 30,522 (decoder tied)
    ("BertForMaskedLM", {}, 109_514_298),
    # pooler + classifier 768 x 3 + 3
    ("BertForSequenceClassification", {"num_labels": 3}, 109_484_547),
])
def test_bert_heads(architecture: str, extra: dict[str, Any], built: int) -> None:
    """Counts transformers 5.23 builds on the meta device from these values."""
    assert encoder_from_config({**BERT_BASE, "architectures": [architecture], **extra}).parameters == built


def test_modernbert_base_by_hand() -> None:
    """ModernBertModel: tok_embeddings 50368 x 768 + LayerNorm 768 (norm_bias false) = 38,683,392; a layer: Wqkv
    768 x 2304 + Wo 768 x 768 = 2,359,296, GeGLU Wi 768 x 2304 + Wo 1152 x 768 = 2,654,208; LayerNorms: 21
    attn_norm (layer 0 has none) + 22 mlp_norm + final = 44 x 768. Total 38,683,392 + 22 x 5,013,504 + 33,792 =
    149,014,272, as transformers 5.23 builds on the meta device."""
    spec = encoder_from_config({**MODERNBERT_BASE, "architectures": ["ModernBertModel"]})
    assert spec.parameters == 38_683_392 + 22 * 5_013_504 + 44 * 768 == 149_014_272
    assert spec.local_layers == 14  # every third layer from 0 attends globally (global_attn_every_n_layers 3)


@pytest.mark.parametrize("config, architecture, built", [
    # ModernBERT-base with every bias on, 4 layers: transformers 5.23 meta-device builds
    ({**MODERNBERT_BASE, "num_hidden_layers": 4, "attention_bias": True, "mlp_bias": True, "norm_bias": True,
      "classifier_bias": True, "decoder_bias": False}, "ModernBertForMaskedLM", 59_367_168),
    ({**MODERNBERT_BASE, "num_hidden_layers": 4, "attention_bias": True, "mlp_bias": True, "norm_bias": True,
      "classifier_bias": True, "num_labels": 5}, "ModernBertForSequenceClassification", 59_371_013),
    ({**MODERNBERT_BASE, "id2label": {"0": "LABEL_0"}}, "ModernBertForSequenceClassification", 149_605_633),
    ({**BERT_BASE, "model_type": "roberta", "vocab_size": 50265, "max_position_embeddings": 514,
      "type_vocab_size": 1}, "RobertaForMaskedLM", 124_697_433),
])
def test_variants_match_transformers(config: dict[str, Any], architecture: str, built: int) -> None:
    assert encoder_from_config({**config, "architectures": [architecture]}).parameters == built


@pytest.mark.parametrize("record", all_encoder_records(), ids=lambda r: r.id)
def test_catalog_counts_match_their_published_figures(record: Any) -> None:
    spec = record.spec()
    if record.published_parameters is None:
        assert record.notes, "an encoder without a published count says why"
        return
    assert record.published_source is not None and record.published_source.url.startswith("https://")
    counted = spec.parameters if record.published_of == "checkpoint" else spec.served_parameters
    counted += record.published_extra_elements
    assert round(counted / record.published_rounding) * record.published_rounding == record.published_parameters


def test_bge_reranker_is_bge_m3_with_a_classifier_for_its_pooler() -> None:
    """BGE-M3 (XLMRobertaModel, 8,194 positions) 567,754,752 - pooler 1,049,600 + dense 1,049,600 + out_proj
    1,024 + 1 = 567,755,777, as transformers 5.23 builds on the meta device."""
    assert get_encoder("bge-m3").parameters == 567_754_752
    assert get_encoder("bge-reranker-v2-m3").parameters == 567_754_752 - 1_049_600 + 1_049_600 + 1_025


@pytest.mark.parametrize("config, key", [
    ({"model_type": "distilbert", "dim": 768}, "config.model_type"),
    ({"model_type": "gpt2"}, "config.model_type"),
    ({**BERT_BASE, "position_embedding_type": "relative_key"}, "config.position_embedding_type"),
    ({**BERT_BASE, "chunk_size_feed_forward": 64}, "config.chunk_size_feed_forward"),
    ({**BERT_BASE, "is_decoder": True}, "config.is_decoder"),
    ({**BERT_BASE, "architectures": ["BertForQuestionAnswering"]}, "config.architectures"),
    ({**BERT_BASE, "num_attention_heads": 7}, "config.num_attention_heads"),
    ({**BERT_BASE, "hidden_size": "768"}, "config.hidden_size"),
    ({**MODERNBERT_BASE, "layer_types": ["full_attention"] * 22}, "config.layer_types"),
    ({**MODERNBERT_BASE, "norm_bias": "no"}, "config.norm_bias"),
])
def test_encoder_refusals_name_the_key(config: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as info:
        encoder_from_config(config)
    assert info.value.field == key


def test_a_missing_position_table_takes_the_class_default_with_a_note() -> None:
    spec = encoder_from_config({key: value for key, value in BERT_BASE.items() if key != "max_position_embeddings"})
    assert spec.max_position_embeddings == 512  # BertConfig's default
    assert any("max_position_embeddings" in note for note in spec.notes)


@pytest.mark.parametrize("model_type", ["bert", "xlm-roberta", "modernbert", "deberta-v2"])
def test_decoder_faces_refuse_an_encoder_naming_it_and_the_encoder_calculator(model_type: str,
                                                                               tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        spec_from_config({**BERT_BASE, "model_type": model_type})
    assert f"model_type {model_type!r}" in info.value.accepted and "mlhw embed" in info.value.accepted
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**BERT_BASE, "model_type": model_type}), encoding="utf-8")
    with pytest.raises(InputError, match="mlhw embed"):
        run(["infer", "--model", str(path)])


# --------------------------------------------------------------------------- memory
def _traced(case_id: str) -> dict[str, Any]:
    return next(record for record in load_measurements() if record["id"] == case_id)


def test_bert_sdpa_forward_by_hand() -> None:
    """bert-base, bf16, 8 x 512 tokens, SDPA (tests/data/measurements): weights 109,482,240 x 2 + two int64
    buffers of 512 = 218,972,672; the MLP of a layer holds the embedding output, the layer's input and the
    attention output (3 x 4096 x 768 x 2) and GELU's input and output (2 x 4096 x 3072 x 2); the padded batch's
    mask is 8 x 512 x 512 booleans; input_ids and attention_mask 4096 x 16. The trace's peak exactly."""
    spec = encoder_from_config(_traced("bert-base-uncased_embed_bf16_b8_s512_sdpa")["model"]["config"])
    tokens = 8 * 512
    expected = 218_972_672 + 3 * tokens * 768 * 2 + 2 * tokens * 3072 * 2 + 8 * 512 * 512 + 16 * tokens
    estimate = encoder_inference_memory(spec, batch=8, seq=512, weights="bf16", attention="sdpa", device="cpu")
    assert estimate.peak_allocated_bytes == expected == 290_341_376
    assert _traced("bert-base-uncased_embed_bf16_b8_s512_sdpa")["measured"]["peak_allocated_bytes"] == expected


def test_memory_grows_with_batch_sequence_and_eager_scores() -> None:
    spec = get_encoder("bge-m3")
    small = encoder_inference_memory(spec, batch=8, seq=512)
    assert encoder_inference_memory(spec, batch=16, seq=512).peak_allocated_bytes > small.peak_allocated_bytes
    assert encoder_inference_memory(spec, batch=8, seq=1024).peak_allocated_bytes > small.peak_allocated_bytes
    assert encoder_inference_memory(spec, batch=8, seq=512, attention="eager").peak_allocated_bytes > \
        small.peak_allocated_bytes
    assert encoder_inference_memory(spec, batch=8, seq=512, weights="fp32").peak_allocated_bytes > \
        small.peak_allocated_bytes
    assert small.total_bytes > small.peak_allocated_bytes  # CUDA context and allocator reserve on cuda


def test_a_sequence_beyond_the_position_table_is_refused() -> None:
    """XLM-RoBERTa numbers positions from 2: 514 rows hold 512 tokens; BGE-M3's 8,194 hold 8,192."""
    encoder_inference_memory(get_encoder("xlm-roberta-large"), batch=1, seq=512)
    with pytest.raises(InputError) as info:
        encoder_inference_memory(get_encoder("xlm-roberta-large"), batch=1, seq=513)
    assert info.value.field == "seq"
    long = encoder_inference_memory(get_encoder("modernbert-base"), batch=1, seq=16384)
    assert any("max_position_embeddings" in note for note in long.notes)  # rotary: runs, with a note


def test_masked_lm_checkpoints_are_loaded_as_their_bare_encoder() -> None:
    """xlm-roberta-large's config names XLMRobertaForMaskedLM (560,142,482); AutoModel loads XLMRobertaModel,
    559,890,432 (MTEB's count), whose bf16 bytes are the weights."""
    spec = get_encoder("xlm-roberta-large")
    assert spec.parameters == 560_142_482 and spec.served_parameters == 559_890_432
    weights = encoder_inference_memory(spec, batch=1, seq=128).breakdown["weights"]
    assert weights == 559_890_432 * 2 + spec.buffer_bytes


def test_fit_limits_are_the_largest_that_fit() -> None:
    spec = get_encoder("modernbert-large")
    answer = fit_encoder(spec, "l4", batch=64, seq=1024)
    again = fit_encoder(spec, "l4", batch=answer.max_batch, seq=1024)
    beyond = fit_encoder(spec, "l4", batch=answer.max_batch + 1, seq=1024)
    assert again.verdict.verdict == "fits" and beyond.verdict.verdict != "fits"
    assert answer.max_batch <= answer.max_batch_tight


def test_the_embed_command_and_the_widget_agree() -> None:
    data, text = run(["embed", "--model", "bge-reranker-v2-m3", "--gpu", "a100-80gb-sxm", "--batch", "16",
                      "--seq", "1024"])
    widget = get_calculator("embedding-memory")
    view = widget.compute(widget.values({"model": "bge-reranker-v2-m3", "gpu": "a100-80gb-sxm", "batch": "16",
                                         "seq": "1024"}))
    assert data["estimate"]["total_bytes"] == view.fit.estimate.total_bytes
    assert data["verdict"] == view.fit.verdict.verdict == "fits"
    assert "largest batch" in text
