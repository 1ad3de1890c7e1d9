"""The model catalog: exact counts against published figures, and the data's own hygiene."""

from __future__ import annotations

import datetime
from types import MappingProxyType

import pytest

from calculators.catalog.models import ModelRecord, all_models, get_model, get_model_record, model_ids
from calculators.catalog.sources import Source
from calculators.errors import UnknownNameError
from calculators.model import ModelSpec
from calculators.model_config.vision_language import TEXT_MODEL_TYPES

PUBLISHED = [r for r in all_models() if r.published_parameters is not None]


def _cite(record: ModelRecord) -> str:
    assert record.published_parameters_source is not None
    return f"{record.id} <- {record.published_parameters_source.url}"


@pytest.mark.parametrize("record", PUBLISHED, ids=[_cite(r) for r in PUBLISHED])
def test_parameter_count_matches_the_published_figure(record: ModelRecord) -> None:
    """Our count plus the documented non-parameter elements equals the published count."""
    spec = get_model(record.id)
    assert spec.parameters + record.published_extra_elements == record.published_parameters


def test_active_parameter_counts_match_where_published() -> None:
    """No publisher gives an exact active count for the MoE models here (only ~13B, ~37B)."""
    for r in all_models():
        if r.published_active_parameters is not None:
            assert get_model(r.id).active_parameters == r.published_active_parameters, r.id


def test_most_models_have_a_published_count() -> None:
    assert len(PUBLISHED) >= 25


def test_a_count_derived_from_bytes_says_what_was_divided() -> None:
    """A ``derived`` figure halves a safetensors ``total_size``; its title must say so."""
    derived = [r for r in PUBLISHED if r.published_parameters_source is not None
               and r.published_parameters_source.kind == "derived"]
    assert derived
    for r in derived:
        assert r.published_parameters_source is not None
        title = r.published_parameters_source.title
        assert "total_size" in title and "/ 2" in title, r.id


def test_a_published_count_always_has_a_source_and_extra_elements_are_explained() -> None:
    for r in all_models():
        assert (r.published_parameters is None) == (r.published_parameters_source is None), r.id
        assert r.published_extra_elements >= 0
        if r.published_extra_elements:
            assert r.published_parameters is not None and r.notes, r.id
        if r.published_parameters is None:
            assert r.published_extra_elements == 0, r.id


def test_known_extra_elements() -> None:
    """Llama 2 stores inv_freq (64 per layer); DeepSeek-V3's total holds MTP and FP8 scales."""
    for rid in ("llama-2-7b", "llama-2-13b", "llama-2-70b"):
        r = get_model_record(rid)
        assert r.published_extra_elements == get_model(rid).num_layers * 64
    ds = get_model_record("deepseek-v3")
    assert ds.published_extra_elements == 13_463_426_304 + 41_540_496
    assert get_model("deepseek-v3").parameters == 671_026_419_200


def test_ids_are_unique_lowercase_and_names_unique() -> None:
    ids = model_ids()
    assert len(ids) == len(set(ids))
    assert all(i == i.lower() and " " not in i for i in ids)
    names = [r.name.lower() for r in all_models()]
    assert len(names) == len(set(names))
    repos = [r.hf_repo.lower() for r in all_models()]
    assert len(repos) == len(set(repos))


def test_required_models_are_present() -> None:
    wanted = {
        "llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b", "llama-3-70b", "llama-3.1-8b",
        "llama-3.1-70b", "llama-3.1-405b", "llama-3.2-1b", "llama-3.2-3b", "mistral-7b-v0.1",
        "mistral-7b-v0.3", "mixtral-8x7b", "qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b", "qwen2.5-7b",
        "qwen2.5-14b", "qwen2.5-32b", "qwen2.5-72b", "yi-34b", "gemma-2-9b", "phi-3-mini-4k", "deepseek-v3",
    }
    assert wanted <= set(model_ids())


@pytest.mark.parametrize("record", all_models(), ids=model_ids())
def test_sources_are_complete(record: ModelRecord) -> None:
    sources = [record.source]
    if record.published_parameters_source is not None:
        sources.append(record.published_parameters_source)
    for s in sources:
        assert isinstance(s, Source)
        assert s.title.strip() and s.url.startswith("https://")
        datetime.date.fromisoformat(s.as_of)
        assert s.kind in ("spec", "measured", "derived", "assumed")
    assert record.source.url == f"https://huggingface.co/{record.hf_repo}/blob/main/config.json"


@pytest.mark.parametrize("record", all_models(), ids=model_ids())
def test_configs_parse_and_are_read_only(record: ModelRecord) -> None:
    assert isinstance(record.config, MappingProxyType)
    with pytest.raises(TypeError):
        record.config["hidden_size"] = 1  # type: ignore[index]
    spec = record.spec()
    assert isinstance(spec, ModelSpec)
    assert spec.name == record.name
    assert spec.warnings == ()  # every model_type here is one model_config reads exactly: no Llama-style guess
    assert spec.parameters >= spec.active_parameters > 0
    # A vision-language record's language model is read by its family's rules (qwen3_vl -> qwen3); a whole Gemma 3n
    # checkpoint's by gemma3n_text's.
    text_types = {**TEXT_MODEL_TYPES, "gemma3n": "gemma3n_text"}
    assert text_types.get(record.config["model_type"], record.config["model_type"]) == spec.model_type


def test_nested_config_values_are_frozen_too() -> None:
    rope = get_model_record("llama-3.1-8b").config["rope_scaling"]
    with pytest.raises(TypeError):
        rope["factor"] = 1.0


def test_architecture_features_are_read() -> None:
    assert get_model("mistral-7b-v0.1").sliding_window == 4096
    assert get_model("mistral-7b-v0.3").sliding_window is None
    assert get_model("qwen2.5-7b").sliding_window is None  # use_sliding_window is false
    assert get_model("llama-3.2-1b").tie_word_embeddings
    assert get_model("deepseek-v3").mla is not None
    mixtral = get_model("mixtral-8x7b")
    assert mixtral.moe is not None and (mixtral.moe.num_experts, mixtral.moe.experts_per_token) == (8, 2)


@pytest.mark.parametrize(
    "query",
    ["llama-3-8b", "LLAMA-3-8B", "Llama 3 8B", "meta-llama/Meta-Llama-3-8B", "meta-llama-3-8b", "  llama 3 8b "],
)
def test_lookup_is_case_insensitive_on_id_name_and_repo(query: str) -> None:
    assert get_model_record(query).id == "llama-3-8b"


def test_unknown_model_names_the_field_and_suggests_close_matches() -> None:
    with pytest.raises(UnknownNameError) as info:
        get_model("llama-3-8bb")
    assert info.value.field == "model"
    assert info.value.value == "llama-3-8bb"
    assert "llama-3-8b" in str(info.value)
    assert "did you mean" in str(info.value)
    assert info.value.choices == model_ids()


def test_records_are_immutable() -> None:
    record = get_model_record("qwen2.5-7b")
    with pytest.raises(AttributeError):
        record.published_parameters = 1  # type: ignore[misc]
