"""The input boundary of issue #17, case by case: config.json limits, MoE defaults, names as typed, unused inputs.

The fuzz suite (``tests/tools/test_fuzz_inputs.py``) draws cases at random; these are the cases
the issue reported, each a regression test named for what it guards.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from calculators import InputError, get_model, kv_cache_bytes
from calculators.cli import main
from calculators.config_input import MAX_CONFIG_BYTES, MAX_INT_DIGITS, MAX_JSON_DEPTH, load_config_json
from calculators.cost import cost_comparison
from calculators.recommend import Workload, recommend
from calculators.widgets.api import INTERNAL_ERROR, compute_json
from calculators.model_config import spec_from_config

LLAMA = {"model_type": "llama", "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
         "num_key_value_heads": 2, "intermediate_size": 512, "vocab_size": 1000}
TEXT = json.dumps(LLAMA)


def _refused(call: Any, field: str, *words: str) -> str:
    with pytest.raises(InputError) as info:
        call()
    message = str(info.value)
    assert info.value.field == field, message
    for word in words:
        assert word in message, message
    return message


# ------------------------------------------------------------------ config.json limits
@pytest.mark.parametrize("given", [b"\xef\xbb\xbf" + TEXT.encode(), "\ufeff" + TEXT], ids=["bytes", "text"])
def test_a_utf8_byte_order_mark_is_accepted(given: bytes | str) -> None:
    assert spec_from_config(given).hidden_size == 256


def test_a_utf8_byte_order_mark_is_accepted_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(b"\xef\xbb\xbf" + TEXT.encode())
    assert spec_from_config(path).hidden_size == 256
    assert main(["infer", "--model", str(path), "--json"]) == 0


@pytest.mark.parametrize(("codec", "named"), [("utf-16", "UTF-16"), ("utf-16-le", "UTF-16"), ("utf-32", "UTF-32"),
                                              ("latin-1", "not UTF-8")])
def test_other_encodings_are_refused_naming_them(tmp_path: Path, codec: str, named: str) -> None:
    data = json.dumps({**LLAMA, "_name_or_path": "caf\u00e9"}, ensure_ascii=False).encode(codec)
    _refused(lambda: spec_from_config(data), "config", named, "UTF-8")
    path = tmp_path / "config.json"
    path.write_bytes(data)
    _refused(lambda: spec_from_config(path), "config", named)


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    path = tmp_path / "config.json"
    with path.open("wb") as handle:
        handle.truncate(100 * 2**20)  # the 100 MB upload of the issue (sparse)
    monkeypatch.setattr("builtins.open", lambda *a, **k: pytest.fail("the file was opened"))
    _refused(lambda: spec_from_config(path), "config", f"{100 * 2**20:,} bytes", "1 MiB")


def test_the_size_limit_is_1_mib_of_text() -> None:
    padded = TEXT[:-1] + " " * (MAX_CONFIG_BYTES - len(TEXT)) + "}"
    assert len(padded.encode()) == MAX_CONFIG_BYTES
    assert spec_from_config(padded).hidden_size == 256
    _refused(lambda: spec_from_config(padded + " "), "config", "1 MiB")


def test_nesting_is_limited_without_recursion_error() -> None:
    nested = {**LLAMA, "extra": json.loads("[" * (MAX_JSON_DEPTH - 1) + "]" * (MAX_JSON_DEPTH - 1))}
    assert spec_from_config(json.dumps(nested)).hidden_size == 256
    deeper = TEXT[:-1] + ', "extra": ' + "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH + "}"
    _refused(lambda: spec_from_config(deeper), "config.json", f"at most {MAX_JSON_DEPTH} levels")
    _refused(lambda: spec_from_config("[" * 100_000 + "]" * 100_000), "config.json", "nested 100000")


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    config = {**LLAMA, "_name_or_path": "[" * 1000}
    assert spec_from_config(json.dumps(config)).hidden_size == 256


def test_integer_length_is_limited_before_pythons_4300_digit_error() -> None:
    ok = TEXT[:-1] + ', "junk": ' + "7" * MAX_INT_DIGITS + "}"
    assert spec_from_config(ok).hidden_size == 256
    long = TEXT.replace('"hidden_size": 256', '"hidden_size": ' + "9" * 5000)
    _refused(lambda: spec_from_config(long), "config.json", "5000 digits")


@pytest.mark.parametrize("path", ["a" * 5000 + ".json", "b" * 300 + ".json", "a\x00b.json", "absent.json", "."],
                         ids=["path-too-long", "name-too-long", "nul", "missing", "directory"])
def test_paths_that_are_not_a_readable_file(path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _refused(lambda: spec_from_config(path), "config")
    assert main(["infer", "--model", path]) == 2


@pytest.mark.parametrize("given", [None, 7, 1.5, [], object()])
def test_a_config_of_the_wrong_type(given: Any) -> None:
    _refused(lambda: load_config_json(given), "config")


# ------------------------------------------------------------------ MoE without expert keys
def test_mixtral_without_expert_keys_gets_transformers_defaults_with_a_note() -> None:
    # Mixtral 8x7B's config.json less num_local_experts and num_experts_per_tok. transformers'
    # MixtralConfig defaults them to 8 and 2; the model it builds (counted on the meta device,
    # transformers 5.23) has 46,702,792,704 parameters, the published "46.7B", not a 7.2B dense model.
    config = {"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
              "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000}
    spec = spec_from_config(config)
    assert spec.moe is not None and (spec.moe.num_experts, spec.moe.experts_per_token) == (8, 2)
    assert spec.parameters == 46_702_792_704
    assert any("num_local_experts" in note and "default" in note for note in spec.notes)


def test_qwen2_moe_without_expert_keys_gets_transformers_defaults_with_a_note() -> None:
    # Qwen2MoeConfig's defaults: 60 experts, top-4, expert width 1408, shared expert 5632
    # (Qwen1.5-MoE-A2.7B's shapes); counted on the meta device: 14,315,784,192 parameters.
    config = {"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24, "num_attention_heads": 16,
              "num_key_value_heads": 16, "intermediate_size": 5632, "vocab_size": 151936}
    spec = spec_from_config(config)
    assert spec.moe is not None and (spec.moe.num_experts, spec.moe.experts_per_token) == (60, 4)
    assert spec.parameters == 14_315_784_192
    assert any("shared_expert_intermediate_size=5632" in note for note in spec.notes)


def test_zero_experts_in_a_moe_architecture_is_refused() -> None:
    config = {**LLAMA, "model_type": "mixtral", "num_local_experts": 0}
    _refused(lambda: spec_from_config(config), "config.num_local_experts")


def test_catalog_moe_models_need_no_defaults() -> None:
    assert not any("default" in note for note in get_model("mixtral-8x7b").notes)


# ------------------------------------------------------------------ names as typed, unused inputs checked
@pytest.mark.parametrize(("argv", "flag"), [
    (["system", "--samples-per-s", "100", "--bytes-per-sample", "1", "--host-ram-factor", "-1"], "--host-ram-factor"),
    (["system", "--samples-per-s", "100", "--bytes-per-sample", "1", "--decode-ms", "nan"], "--decode-ms"),
    (["cost", "--gpu", "rtx-4090", "--cloud-usd-per-hour", "-1"], "--cloud-usd-per-hour"),
    (["cost", "--gpu", "rtx-4090", "--purchase-usd", "1" + "0" * 400], "--purchase-usd"),
    (["parallel", "--model", "llama-3-8b", "--latency-us", "-1"], "--latency-us"),
    (["fit", "--model", "llama-3-8b", "--gpu", "h100-sxm", "train", "--lora-targets", "x"], "--lora-targets"),
    (["train-time", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--tokens", "1e9", "--lora-rank", "inf"],
     "--lora-rank"),
    (["recommend", "--model", "llama-3-8b", "--job", "serve", "--tokens", "-5"], "--tokens"),
    (["infer", "--model", '{"model_type": "llama"}'], "--model: config.hidden_size"),
    (["infer", "--batch", "9" * 4301, "--model", "llama-3-8b"], "--batch"),
])
def test_cli_errors_name_the_flag(argv: list[str], flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mlhw: error: {flag}: got "), err
    assert len(err.splitlines()) == 1 and len(err) < 1000


def test_train_time_checks_the_lora_rank_it_does_not_use() -> None:
    from calculators.catalog.gpus import get_gpu
    from calculators.performance.training_time import training_time

    _refused(lambda: training_time(get_model("llama-3-8b"), get_gpu("h100-sxm"), tokens=10**9, method="full",
                                   lora_rank=math.inf), "lora_rank")  # type: ignore[arg-type]


def test_recommend_checks_tokens_for_a_serving_job() -> None:
    _refused(lambda: recommend(Workload(model="llama-3-8b", job="serve", tokens=-5)), "tokens")
    _refused(lambda: recommend(None), "workload")  # type: ignore[arg-type]


def test_kv_cache_needs_a_context_of_at_least_one_token() -> None:
    _refused(lambda: kv_cache_bytes(get_model("llama-3-8b"), batch=1, context=0), "context", "from 1")


def test_huge_numbers_are_input_errors_not_overflow() -> None:
    _refused(lambda: cost_comparison(gpu="rtx-4090", purchase_usd=10**400), "purchase_usd", "401 digits")


@pytest.mark.parametrize("spec", [None, "llama-3-8b", 7])
def test_a_spec_that_is_not_a_model_spec(spec: Any) -> None:
    from calculators import inference_memory, training_memory

    _refused(lambda: training_memory(spec), "spec", "ModelSpec")
    _refused(lambda: inference_memory(spec), "spec", "ModelSpec")


# ------------------------------------------------------------------ widgets
def test_a_4300_digit_integer_in_a_widget_is_a_field_error() -> None:
    reply = json.loads(compute_json("kv-cache", json.dumps({"context": "9" * 4300})))
    assert reply["ok"] is False and reply["field"] == "context"
    assert reply["message"].startswith("Context: got '9999") and reply["message"] != INTERNAL_ERROR


def test_a_deeply_nested_config_in_a_widget_is_a_config_error() -> None:
    config = '{"model_type": "llama", "x": ' + "[" * 5000 + "]" * 5000 + "}"
    reply = json.loads(compute_json("kv-cache", json.dumps({"model": "custom", "config": config})))
    assert reply["ok"] is False and reply["field"] == "config"
    assert reply["message"].startswith("config.json: got 'nested 5001 levels deep'"), reply["message"]
