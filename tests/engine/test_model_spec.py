"""Parsing a Hugging Face ``config.json`` into a :class:`ModelSpec`.

Every expected count here is derived by hand in the test (shapes taken from the
architecture's ``transformers`` modeling file, cited next to each case) or copied from
the model's published ``config.json``; none is read back from the code under test.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from calculators import CalculatorError, ConfigError, InputError, ModelSpec
from calculators.model_config import spec_from_config

# A tiny Llama-style config whose counts are easy to do by hand.
TINY_LLAMA: dict[str, Any] = {
    "model_type": "llama",
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 8,
    "num_key_value_heads": 2,
    "intermediate_size": 128,
    "vocab_size": 100,
    "tie_word_embeddings": False,
}

# Tiny Llama by hand (modeling_llama.py: q,k,v,o without bias; gate/up/down; 2 RMSNorms
# per layer; final norm; untied lm_head):
#   head_dim = 64 / 8 = 8, kv_dim = 2 x 8 = 16
#   attention = q 64x64 + k 64x16 + v 64x16 + o 64x64 = 4096 + 1024 + 1024 + 4096 = 10240
#   mlp = 3 x 64 x 128 = 24576; norms = 2 x 64 = 128; layer = 34944; 2 layers = 69888
#   embed = 100 x 64 = 6400; final norm = 64; lm_head = 6400
TINY_LLAMA_PARAMS_UNTIED = 6400 + 69888 + 64 + 6400  # 82752
TINY_LLAMA_PARAMS_TIED = 6400 + 69888 + 64  # 76352


def _spec(**overrides: Any) -> ModelSpec:
    return spec_from_config({**TINY_LLAMA, **overrides})


# ------------------------------------------------------------------ shapes and counts
def test_tiny_llama_count_by_hand() -> None:
    assert _spec().parameters == TINY_LLAMA_PARAMS_UNTIED


def test_tied_lm_head_not_counted_twice() -> None:
    # Tied: lm_head.weight is embed_tokens.weight, so the vocab x hidden matrix counts once.
    tied = _spec(tie_word_embeddings=True)
    assert tied.parameters == TINY_LLAMA_PARAMS_TIED
    assert tied.lm_head_parameters == 0
    assert _spec().parameters - tied.parameters == 100 * 64  # vocab x hidden


def test_gemma2_ties_embeddings_by_default() -> None:
    # Gemma2Config defaults tie_word_embeddings=True; a config without the key is tied.
    cfg = {**TINY_LLAMA, "model_type": "gemma2"}
    del cfg["tie_word_embeddings"]
    assert spec_from_config(cfg).tie_word_embeddings is True


def test_gqa_kv_heads_not_attention_heads() -> None:
    # kv_dim = num_key_value_heads x head_dim = 2 x 8 = 16, not 8 x 8 = 64.
    spec = _spec()
    assert spec.head_dim == 8
    assert spec.kv_dim == 16
    assert spec.q_dim == 64


def test_missing_kv_heads_means_multi_head_attention() -> None:
    # LlamaConfig: num_key_value_heads defaults to num_attention_heads.
    cfg = dict(TINY_LLAMA)
    del cfg["num_key_value_heads"]
    assert spec_from_config(cfg).kv_dim == 64


def test_explicit_head_dim_honoured_gemma2_9b() -> None:
    # google/gemma-2-9b config.json: hidden 3584, 16 heads, 8 KV heads, head_dim 256
    # (3584 / 16 = 224, so head_dim must be read, not derived).
    cfg = {
        "model_type": "gemma2", "hidden_size": 3584, "num_hidden_layers": 42, "num_attention_heads": 16,
        "num_key_value_heads": 8, "head_dim": 256, "intermediate_size": 14336, "vocab_size": 256000,
        "sliding_window": 4096,
    }
    spec = spec_from_config(cfg)
    assert spec.head_dim == 256
    assert spec.q_dim == 16 * 256  # 4096, wider than hidden
    assert spec.kv_dim == 8 * 256


def test_qwen2_has_qkv_bias_but_no_o_bias() -> None:
    # modeling_qwen2.py: q_proj/k_proj/v_proj have bias=True, o_proj bias=False.
    cfg = {
        "model_type": "qwen2", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 100, "tie_word_embeddings": True,
    }
    # By hand: head_dim 16, kv_dim 32.
    #   q 64x64 + 64 = 4160; k 64x32 + 32 = 2080; v 2080; o 64x64 = 4096  -> 12416
    #   mlp 3 x 64 x 128 = 24576; norms 128; layer 37120; two layers 74240
    #   embed 6400 + final norm 64; tied head 0  -> 80704
    spec = spec_from_config(cfg)
    assert spec.attention_parameters_per_layer == 12416
    assert spec.parameters == 80704
    assert spec.qkv_bias and not spec.o_bias


# ------------------------------------------------------------------ sliding window
def test_sliding_window_every_layer_mistral_v01() -> None:
    # mistralai/Mistral-7B-v0.1 config.json: sliding_window 4096, 32 layers, no layer_types.
    # transformers (cache_utils.get_layer_types_and_kwargs) then treats every layer as
    # sliding, so each layer's cache holds at most 4096 tokens.
    cfg = {
        "model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "sliding_window": 4096,
    }
    spec = spec_from_config(cfg)
    assert spec.sliding_window == 4096
    assert spec.sliding_window_layers == 32


def test_explicit_layer_types_window_the_cache() -> None:
    # A config that lists layer_types (transformers >= 4.54 writes them) windows exactly the
    # layers marked "sliding_attention".
    cfg = {
        "model_type": "mistral", "hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4,
        "intermediate_size": 128, "vocab_size": 100, "sliding_window": 16,
        "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "sliding_attention"],
    }
    assert spec_from_config(cfg).sliding_window_layers == 3


def test_sliding_window_null_means_none_mistral_v03() -> None:
    # mistralai/Mistral-7B-v0.3 config.json: "sliding_window": null.
    cfg = {
        "model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32768, "sliding_window": None,
    }
    spec = spec_from_config(cfg)
    assert spec.sliding_window is None
    assert spec.sliding_window_layers == 0


@pytest.mark.parametrize(
    ("layers", "sliding"),
    [
        pytest.param(42, 21, id="gemma-2-9b: 42 layers, even ones slide -> 21"),
        pytest.param(26, 13, id="gemma-2-2b: 26 layers -> 13"),
        pytest.param(3, 2, id="3 layers: 0 and 2 slide -> 2"),
    ],
)
def test_gemma2_alternates_sliding_layers(layers: int, sliding: int) -> None:
    # modeling_gemma2.py: is_sliding = not bool(layer_idx % 2), i.e. layers 0, 2, 4, ...
    cfg = {
        "model_type": "gemma2", "hidden_size": 64, "num_hidden_layers": layers, "num_attention_heads": 4,
        "head_dim": 16, "intermediate_size": 128, "vocab_size": 100, "sliding_window": 4096,
    }
    assert spec_from_config(cfg).sliding_window_layers == sliding


def test_qwen_use_sliding_window_false_means_none() -> None:
    # Qwen/Qwen2.5-7B config.json: use_sliding_window false, sliding_window 131072,
    # max_window_layers 28; with the flag off no layer slides.
    cfg = {
        "model_type": "qwen2", "hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
        "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064,
        "use_sliding_window": False, "sliding_window": 131072, "max_window_layers": 28,
    }
    spec = spec_from_config(cfg)
    assert spec.sliding_window_layers == 0
    assert spec.sliding_window is None


# ------------------------------------------------------------------ mixture of experts
def test_moe_active_vs_total_by_hand() -> None:
    # modeling_mixtral.py: router gate hidden x experts (no bias); each expert w1, w3
    # (hidden x I) and w2 (I x hidden); top-k experts used per token.
    cfg = {
        "model_type": "mixtral", "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "intermediate_size": 64, "vocab_size": 50, "tie_word_embeddings": False,
        "num_local_experts": 4, "num_experts_per_tok": 2,
    }
    # head_dim 8, kv_dim 16: attention = 32x32 + 32x16 + 32x16 + 32x32 = 3072; norms 64
    # expert = 3 x 32 x 64 = 6144; router = 32 x 4 = 128
    # total MoE block = 128 + 4 x 6144 = 24704; active = 128 + 2 x 6144 = 12416
    # total = embed 1600 + head 1600 + final norm 32 + 2 x (3072 + 64 + 24704) = 58912
    # active = 3232 + 2 x (3072 + 64 + 12416) = 34336
    spec = spec_from_config(cfg)
    assert spec.parameters == 58912
    assert spec.active_parameters == 34336


def test_dense_model_active_equals_total() -> None:
    spec = _spec()
    assert spec.active_parameters == spec.parameters == TINY_LLAMA_PARAMS_UNTIED


# ------------------------------------------------------------------ input forms
def test_text_config_nesting_reads_language_model() -> None:
    # Multimodal configs (e.g. LLaVA) nest the language model under text_config.
    nested = {"model_type": "llava", "text_config": dict(TINY_LLAMA), "vision_config": {"hidden_size": 1024}}
    spec = spec_from_config(nested)
    assert spec.model_type == "llama"
    assert spec.parameters == TINY_LLAMA_PARAMS_UNTIED


def test_dict_json_text_and_file_path_agree(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(TINY_LLAMA), encoding="utf-8")
    forms: list[Any] = [TINY_LLAMA, json.dumps(TINY_LLAMA), "  \n" + json.dumps(TINY_LLAMA), str(path), path]
    specs = [spec_from_config(form) for form in forms]
    assert all(s.parameters == TINY_LLAMA_PARAMS_UNTIED for s in specs)
    assert all(s == specs[0] for s in specs)


def test_name_argument_used() -> None:
    assert spec_from_config(TINY_LLAMA, name="Tiny").name == "Tiny"


def test_integral_floats_accepted() -> None:
    # json.load of "64.0" gives a float; an integral float is still a valid size.
    assert _spec(hidden_size=64.0).hidden_size == 64


# ------------------------------------------------------------------ malformed configs
def _assert_config_error(config: Any, key: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        spec_from_config(config)
    assert f"config.{key}" in str(info.value), str(info.value)
    assert info.value.field == f"config.{key}"
    return info.value


@pytest.mark.parametrize(
    "key",
    ["hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size"],
)
def test_missing_key_named(key: str) -> None:
    cfg = dict(TINY_LLAMA)
    del cfg[key]
    error = _assert_config_error(cfg, key)
    assert "missing" in str(error)


def test_missing_model_type_named() -> None:
    cfg = dict(TINY_LLAMA)
    del cfg["model_type"]
    _assert_config_error(cfg, "model_type")


BAD_INT_VALUES = [
    pytest.param("64", id="string"),
    pytest.param(-64, id="negative"),
    pytest.param(0, id="zero"),
    pytest.param(float("nan"), id="nan"),
    pytest.param(float("inf"), id="inf"),
    pytest.param(float("-inf"), id="-inf"),
    pytest.param(64.5, id="fractional"),
    pytest.param(True, id="bool"),
    pytest.param(None, id="null"),
    pytest.param([64], id="list"),
    pytest.param(10**9, id="absurd"),
]


@pytest.mark.parametrize("value", BAD_INT_VALUES)
@pytest.mark.parametrize(
    "key", ["hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size"]
)
def test_bad_integer_value_named(key: str, value: Any) -> None:
    _assert_config_error({**TINY_LLAMA, key: value}, key)


@pytest.mark.parametrize("value", ["64", -2, 0, float("nan"), 10**9, True])
def test_bad_kv_heads_named(value: Any) -> None:
    _assert_config_error({**TINY_LLAMA, "num_key_value_heads": value}, "num_key_value_heads")


def test_absurd_hidden_size_rejected() -> None:
    # 10**9 is four orders of magnitude above the widest published dense model (16384).
    _assert_config_error({**TINY_LLAMA, "hidden_size": 10**9}, "hidden_size")


def test_nan_and_inf_from_json_text_rejected() -> None:
    # Python's json module accepts the non-standard NaN and Infinity literals.
    text = json.dumps(TINY_LLAMA).replace('"hidden_size": 64', '"hidden_size": NaN')
    _assert_config_error(text, "hidden_size")
    text = json.dumps(TINY_LLAMA).replace('"vocab_size": 100', '"vocab_size": Infinity')
    _assert_config_error(text, "vocab_size")


def test_heads_not_divisible_by_kv_heads() -> None:
    # 8 query heads cannot be grouped over 3 KV heads.
    error = _assert_config_error({**TINY_LLAMA, "num_key_value_heads": 3}, "num_key_value_heads")
    assert "divisor" in str(error)


def test_hidden_not_divisible_by_heads_needs_head_dim() -> None:
    error = _assert_config_error({**TINY_LLAMA, "hidden_size": 100}, "head_dim")
    assert "num_attention_heads" in str(error)


def test_hidden_not_divisible_by_heads_ok_with_head_dim() -> None:
    assert _spec(hidden_size=100, head_dim=8).q_dim == 64


def test_bool_key_must_be_bool() -> None:
    _assert_config_error({**TINY_LLAMA, "tie_word_embeddings": "yes"}, "tie_word_embeddings")


@pytest.mark.parametrize("text", ["{not json", '{"hidden_size": 64,}', "{"])
def test_invalid_json_text(text: str) -> None:
    _assert_config_error(text, "json")


def test_invalid_json_file(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"model_type": "llama", "hidden_size": ', encoding="utf-8")
    _assert_config_error(path, "json")


def test_json_array_at_top_level_file(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps([TINY_LLAMA]), encoding="utf-8")
    error = _assert_config_error(str(path), "json")
    assert "object" in str(error)


def test_json_array_at_top_level_text() -> None:
    _assert_config_error(json.dumps([TINY_LLAMA]), "json")


def test_nonexistent_path_named(tmp_path: Path) -> None:
    # Not a malformed config but a missing file: an InputError on the 'config' argument.
    missing = tmp_path / "nope" / "config.json"
    with pytest.raises(InputError) as info:
        spec_from_config(missing)
    assert info.value.field == "config"
    assert str(missing) in str(info.value)
    assert "config" in str(info.value)


def test_non_config_type_rejected() -> None:
    with pytest.raises(CalculatorError, match="config"):
        spec_from_config(42)  # type: ignore[arg-type]


# ------------------------------------------------------------------ unknown architectures
def test_unknown_model_type_with_llama_keys_is_llama_style_with_a_warning() -> None:
    # The guess is a warning (shown first by every face), not a note among the assumptions.
    spec = _spec(model_type="my_new_llama")
    assert spec.parameters == TINY_LLAMA_PARAMS_UNTIED
    assert "Llama-style" in spec.warnings[0] and "my_new_llama" in spec.warnings[0], spec.warnings
    assert not any("Llama-style" in note for note in spec.notes)


def test_known_model_type_has_no_llama_style_warning() -> None:
    assert _spec().warnings == ()


def test_unknown_model_type_missing_keys_names_model_type() -> None:
    cfg = {"model_type": "falcon", "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12}
    error = _assert_config_error(cfg, "model_type")
    assert "falcon" in str(error)
    # It says which Llama keys are missing.
    assert "intermediate_size" in str(error) and "vocab_size" in str(error)


def test_encoder_models_are_refused_not_read_as_llama() -> None:
    # BERT-base's own config (google-bert/bert-base-uncased): a two-matrix MLP with biases, LayerNorm,
    # learned position and token-type embeddings. Read as Llama-style, a gated MLP would add a third
    # 768 x 3072 matrix to each of its 12 layers: 12 x 768 x 3072 = 28.3M parameters that do not exist.
    cfg = {"model_type": "bert", "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
           "intermediate_size": 3072, "vocab_size": 30522, "max_position_embeddings": 512, "type_vocab_size": 2}
    error = _assert_config_error(cfg, "model_type")
    assert "an encoder" in str(error) and "bert" in str(error) and "mlhw embed" in str(error)  # where to go


def test_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        spec_from_config({**TINY_LLAMA, "hidden_size": -1})


def test_nan_never_reaches_counts() -> None:
    # Guard: a spec that parsed must have finite, positive integer shapes.
    spec = _spec()
    for value in (spec.hidden_size, spec.num_layers, spec.head_dim, spec.parameters):
        assert isinstance(value, int) and value > 0 and math.isfinite(value)


# ------------------------------------------------------------------ 2025 architectures
def test_gemma3_text_by_hand() -> None:
    # modeling_gemma3.py: q/k/v/o without bias, q_norm and k_norm (head_dim each), four RMSNorms
    # per layer, tied head. Tiny: hidden 64, 4 heads / 2 KV heads of 32, MLP 128, vocab 100, 6 layers.
    #   attention = 64x128 + 2 x 64x64 + 128x64 = 8192 + 8192 + 8192 = 24576, + q/k norms 2 x 32
    #   mlp = 3 x 64 x 128 = 24576; norms = 4 x 64; layer = 49472; x 6 = 296832
    #   embed = 6400 (tied), final norm 64
    cfg = {"model_type": "gemma3_text", "hidden_size": 64, "num_hidden_layers": 6, "num_attention_heads": 4,
           "num_key_value_heads": 2, "head_dim": 32, "intermediate_size": 128, "vocab_size": 100,
           "sliding_window": 16}
    spec = spec_from_config(cfg)
    assert spec.parameters == 6400 + 6 * (24576 + 64 + 24576 + 256) + 64
    assert spec.tie_word_embeddings and spec.qk_norm and spec.norms_per_layer == 4
    # Gemma3TextConfig: without layer_types, layer i is global when (i + 1) % 6 == 0 (pattern 6).
    assert spec.sliding_window_layers == 5
    assert spec_from_config({**cfg, "sliding_window_pattern": 2}).sliding_window_layers == 3
    listed = ["full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention",
              "full_attention"]
    assert spec_from_config({**cfg, "layer_types": listed}).sliding_window_layers == 2
    # Gemma3TextConfig's default window is 4096 tokens when the key is absent.
    no_window = {k: v for k, v in cfg.items() if k != "sliding_window"}
    assert spec_from_config(no_window).sliding_window == 4096


def test_gpt_oss_sinks_and_biases_by_hand() -> None:
    # modeling_gpt_oss.py: biased q/k/v/o, sinks (one per head), router Linear with bias, experts
    # gate_up_proj [E, h, 2I] + bias [E, 2I], down_proj [E, I, h] + bias [E, h]; two RMSNorms.
    # Tiny: hidden 64, 4 heads / 2 KV heads of 16, 4 experts of 32, top-2, vocab 100, 2 layers.
    #   attention = (64x64 + 64) + 2 x (64x32 + 32) + (64x64 + 64) + 4 sinks = 12484
    #   router = 64 x 4 + 4 = 260; expert = 64x64 + 64 + 32x64 + 64 = 6272; 4 experts = 25088
    #   layer = 12484 + 260 + 25088 + 128 = 37960; total = 100x64 x 2 + 2 x 37960 + 64 = 88784
    cfg = {"model_type": "gpt_oss", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
           "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 32, "num_local_experts": 4,
           "num_experts_per_tok": 2, "vocab_size": 100, "sliding_window": 8,
           "layer_types": ["sliding_attention", "full_attention"]}
    spec = spec_from_config(cfg)
    assert spec.attention_parameters_per_layer == 12484
    assert spec.parameters == 88784
    # active: two experts instead of four
    assert spec.active_parameters == 88784 - 2 * 2 * 6272
    assert not spec.supports_sdpa  # sinks: transformers has no SDPA path
    assert spec.sliding_window_layers == 1


def test_qwen3_moe_dense_layers_among_moe_counted_per_layer() -> None:
    # Qwen3MoeDecoderLayer: a layer listed in mlp_only_layers, or with (i + 1) % decoder_sparse_step != 0,
    # gets a dense MLP of intermediate_size (3 x 64 x 128 = 24576) instead of the MoE block
    # (router 64 x 4 = 256 + 4 experts x 3 x 64 x 32 = 24576: 24832).
    cfg = {"model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4,
           "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128, "moe_intermediate_size": 32,
           "num_experts": 4, "num_experts_per_tok": 2, "vocab_size": 100}
    all_moe = spec_from_config({**cfg, "mlp_only_layers": []})
    assert all_moe.num_moe_layers == 4
    one_dense = spec_from_config({**cfg, "mlp_only_layers": [0]})
    assert (one_dense.num_moe_layers, one_dense.num_dense_layers) == (3, 1)
    assert all_moe.parameters - one_dense.parameters == 24832 - 24576
    every_other = spec_from_config({**cfg, "decoder_sparse_step": 2})  # layers 1 and 3 are MoE
    assert [layer.mlp for layer in every_other.layers] == ["dense", "moe", "dense", "moe"]
    _assert_config_error({**cfg, "mlp_only_layers": [4]}, "mlp_only_layers")  # no layer 4


def test_gemma3_kv_cache_windows_five_of_six_layers() -> None:
    from calculators.memory.inference import kv_cache_bytes

    # Gemma 3 27B: 62 layers, 16 KV heads of 128, window 1024, pattern 6 -> 10 global, 52 local.
    # bf16 K and V: 2 x 16 x 128 x 2 = 8192 bytes per token per layer.
    cfg = {"model_type": "gemma3_text", "hidden_size": 5376, "num_hidden_layers": 62, "num_attention_heads": 32,
           "num_key_value_heads": 16, "head_dim": 128, "intermediate_size": 21504, "vocab_size": 262208,
           "sliding_window": 1024, "sliding_window_pattern": 6}
    spec = spec_from_config(cfg)
    assert kv_cache_bytes(spec, batch=1, context=32768) == 8192 * (10 * 32768 + 52 * 1024)
