"""Per-layer layouts: hybrid models counted layer by layer, their fixed state, and configs refused by key.

Expected parameter counts are written out from the tensors of transformers 5.23's modules
(``modeling_qwen3_next.py``, ``modeling_nemotron_h.py``, ``modeling_mamba2.py``) and, where
stated, equal to what transformers 5.23 builds from the same config on the meta device
(``sum(p.numel() for p in model.parameters())``).
"""

from __future__ import annotations

from typing import Any

import pytest

from calculators.errors import ConfigError
from calculators.memory.inference import (
    RECURRENT_STATE_BYTES,
    inference_memory,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    recurrent_state_bytes,
)
from calculators.model_config import spec_from_config
from calculators.model_flops import attended_tokens, causal_attended_pairs
from calculators.model_layers import LayerSpec, LinearAttentionSpec, MambaSpec

# ------------------------------------------------------------------ mixers by hand
def test_gated_deltanet_layer_by_hand() -> None:
    # Qwen3NextGatedDeltaNet, hidden 2048, 16 key heads and 32 value heads of 128, conv kernel 4:
    #   in_proj_qkvz 2048 x (2 x 2048 + 2 x 4096) = 25,165,824; in_proj_ba 2048 x 64 = 131,072
    #   conv1d (2 x 2048 + 4096) x 4 = 32,768; dt_bias + A_log 2 x 32; norm 128
    #   out_proj 4096 x 2048 = 8,388,608                               -> 33,718,464 (transformers: same)
    gdn = LinearAttentionSpec(num_key_heads=16, num_value_heads=32, key_head_dim=128, value_head_dim=128,
                              conv_kernel=4)
    assert gdn.parameters(hidden_size=2048) == 25_165_824 + 131_072 + 32_768 + 64 + 128 + 8_388_608 == 33_718_464
    assert gdn.conv_state_elements == 8192 * 4
    assert gdn.recurrent_state_elements == 32 * 128 * 128


def test_mamba2_mixer_by_hand() -> None:
    # NemotronHMamba2Mixer of Nemotron-H 8B: hidden 4096, 128 heads of 64 (D = 8192), N = 128, 8 groups:
    #   conv channels 8192 + 2 x 8 x 128 = 10,240; in_proj 4096 x (8192 + 10,240 + 128) = 76,021,760
    #   conv 10,240 x 4 + 10,240 bias = 51,200; dt_bias, A_log, D 3 x 128; gated norm 8192
    #   out_proj 8192 x 4096 = 33,554,432                                  -> 109,635,968
    mamba = MambaSpec(version=2, inner_size=8192, state_size=128, conv_kernel=4, num_heads=128, n_groups=8)
    assert mamba.parameters(hidden_size=4096) == 76_021_760 + 51_200 + 384 + 8192 + 33_554_432
    assert mamba.recurrent_state_elements == 128 * 64 * 128  # heads x head_dim x N


def test_mamba1_mixer_by_hand() -> None:
    # JambaMambaMixer, hidden 64, expand 2 (D = 128), N = 16, dt_rank 4, conv 4 with bias, no proj bias:
    #   in_proj 64 x 256 = 16,384; conv 128 x 4 + 128 = 640; x_proj 128 x (4 + 32) = 4608
    #   dt_proj 4 x 128 + 128 = 640; A_log 128 x 16 = 2048; D 128; out_proj 128 x 64 = 8192; norms 4 + 16 + 16
    mamba = MambaSpec(version=1, inner_size=128, state_size=16, conv_kernel=4, dt_rank=4, dt_bc_norms=True)
    assert mamba.parameters(hidden_size=64) == 16_384 + 640 + 4608 + 640 + 2048 + 128 + 8192 + 36
    assert mamba.conv_channels == 128


# ------------------------------------------------------------------ hybrid configs
# Qwen3-Next-80B-A3B's shapes (Qwen3NextConfig's defaults, whose docstring names that checkpoint).
QWEN3_NEXT: dict[str, Any] = {
    "model_type": "qwen3_next", "hidden_size": 2048, "num_hidden_layers": 48, "num_attention_heads": 16,
    "num_key_value_heads": 2, "head_dim": 256, "intermediate_size": 5120, "vocab_size": 151936, "num_experts": 512,
    "num_experts_per_tok": 10, "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512,
    "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128,
    "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "full_attention_interval": 4,
    "tie_word_embeddings": False, "decoder_sparse_step": 1, "mlp_only_layers": [],
}
# Nemotron-H 8B's layout: 52 blocks, 24 Mamba-2, 4 attention, 24 squared-ReLU MLPs.
NEMOTRON_H_8B: dict[str, Any] = {
    "model_type": "nemotron_h", "hidden_size": 4096, "num_hidden_layers": 52, "num_attention_heads": 32,
    "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 21504, "vocab_size": 131072,
    "mamba_num_heads": 128, "mamba_head_dim": 64, "ssm_state_size": 128, "n_groups": 8, "conv_kernel": 4,
    "hybrid_override_pattern": "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-", "tie_word_embeddings": False,
    "use_conv_bias": True, "use_bias": False, "mamba_hidden_act": "silu", "mamba_chunk_size": 128, "expand": 2,
}


def test_qwen3_next_counts_each_layer_kind() -> None:
    # 36 Gated DeltaNet + 12 gated full-attention layers, all MoE. transformers 5.23 builds 79,674,391,296
    # parameters from these values on the meta device (Qwen names the model 80B-A3B).
    spec = spec_from_config(QWEN3_NEXT)
    assert spec.count_layers(mixer="linear_attention") == 36 and spec.attention_layers == 12
    assert [layer.attention for layer in spec.layers[:4]] == [None, None, None, "full_attention"]
    # Gated attention: q_proj emits the query and its gate, 2 x 16 x 256 wide.
    assert spec.attention_linears()[0] == (2048, 2 * 16 * 256, False)
    assert spec.parameters == 79_674_391_296
    assert int(spec.parameters // 10**9) == 79 and round(spec.parameters / 1e9) == 80


def test_nemotron_h_8b_is_8b_not_17b() -> None:
    # Read as Llama-style (every block attention + a gated 21,504-wide MLP) it came out near 17B. Per block:
    # 24 Mamba-2 mixers of 109,635,968; 4 attention blocks of 4096 x 4096 + 2 x 4096 x 1024 + 4096 x 4096
    # = 41,943,040; 24 MLPs of 2 x 4096 x 21,504 = 176,160,768; one RMSNorm each (52 x 4096); embeddings
    # and head 2 x 131,072 x 4096; final norm 4096. transformers 5.23 builds 8,100,852,736.
    spec = spec_from_config(NEMOTRON_H_8B)
    expected = (24 * 109_635_968 + 4 * 41_943_040 + 24 * 176_160_768 + 52 * 4096 + 2 * 131_072 * 4096 + 4096)
    assert spec.parameters == expected == 8_100_852_736
    assert (spec.count_layers(mixer="mamba"), spec.attention_layers, spec.num_dense_layers) == (24, 4, 24)


def test_mamba2_has_no_kv_cache_only_state() -> None:
    cfg = {"model_type": "mamba2", "hidden_size": 256, "num_hidden_layers": 4, "num_heads": 8, "head_dim": 64,
           "state_size": 32, "n_groups": 2, "expand": 2, "vocab_size": 1000}
    spec = spec_from_config(cfg)
    # Per layer: in_proj 256 x (512 + 640 + 8) + conv 640 x 4 + 640 + 3 x 8 + norm 512 + out_proj 512 x 256
    #   = 296,960 + 3200 + 24 + 512 + 131,072 = 431,768; 4 layers + 4 norms of 256; embed + head 2 x 256,000
    # + final norm 256: 2,240,352 (transformers 5.23 builds the same).
    assert spec.parameters == 4 * 431_768 + 4 * 256 + 2 * 256_000 + 256 == 2_240_352
    assert kv_cache_bytes_per_token(spec) == 0
    assert kv_cache_bytes(spec, batch=2, context=100_000) == 0
    # state: 4 layers x (640 channels x 4 x 2 bytes + 512 x 32 x 4 bytes)
    assert recurrent_state_bytes(spec, batch=2) == 2 * 4 * (640 * 4 * 2 + 512 * 32 * RECURRENT_STATE_BYTES)


def test_hybrid_cache_grows_only_in_attention_layers() -> None:
    spec = spec_from_config(QWEN3_NEXT)
    # 12 full-attention layers x 2 KV heads x 256 x K and V x 2 bytes
    assert kv_cache_bytes_per_token(spec) == 12 * 2 * 2 * 256 * 2
    state = recurrent_state_bytes(spec, batch=1)
    # 36 layers x (conv: (2 x 2048 + 4096) x 4 x 2 bytes + state: 32 x 128 x 128 x 4 bytes)
    assert state == 36 * (8192 * 4 * 2 + 32 * 128 * 128 * 4)
    at_8k = inference_memory(spec, batch=1, context=8192)
    at_128k = inference_memory(spec, batch=1, context=131072)
    assert at_8k.breakdown["recurrent_state"] == at_128k.breakdown["recurrent_state"] == state
    assert at_128k.breakdown["kv_cache"] == 131072 * kv_cache_bytes_per_token(spec)
    # Attention FLOPs come from the 12 attention layers only.
    assert attended_tokens(spec, context=1000) == 12 * 1000
    assert causal_attended_pairs(spec, tokens=4) == 12 * (1 + 2 + 3 + 4)


def test_a_uniform_model_is_unchanged_by_layer_lists() -> None:
    # Llama 3 8B (published 8,030,261,248): every layer attention + a dense MLP.
    cfg = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
           "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256}
    spec = spec_from_config(cfg)
    assert spec.parameters == 8_030_261_248
    assert set(spec.layers) == {LayerSpec(("full_attention",), "dense")}
    assert not spec.is_hybrid and spec.attention_layers == 32


# ------------------------------------------------------------------ nothing guessed
def _refused(cfg: dict[str, Any], key: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        spec_from_config(cfg)
    assert info.value.field == f"config.{key}", str(info.value)
    return info.value


LLAMA: dict[str, Any] = {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                         "intermediate_size": 128, "vocab_size": 100}


@pytest.mark.parametrize(("key", "value"), [
    ("hybrid_override_pattern", "M*"), ("mamba_d_state", 16), ("linear_num_value_heads", 8),
    ("layers_block_type", ["mamba", "attention"]), ("num_local_experts", 8), ("kv_lora_rank", 64),
    ("attention_chunk_size", 8192), ("num_nextn_predict_layers", 1), ("first_k_dense_replace", 1),
])
def test_layout_keys_a_reader_does_not_model_are_refused_by_name(key: str, value: Any) -> None:
    error = _refused({**LLAMA, key: value}, key)
    assert "llama" in str(error) and "miscounted" in str(error)
    # The same key on an unknown model_type: no Llama-style guess either.
    _refused({**LLAMA, "model_type": "some_new_arch", key: value}, key)


def test_empty_layout_values_set_nothing() -> None:
    spec = spec_from_config({**LLAMA, "num_local_experts": 0, "mlp_only_layers": [], "attention_chunk_size": None})
    assert spec.moe is None and spec.warnings == ()


def test_qwen3_next_layer_types_other_than_its_own_refused() -> None:
    layers = ["linear_attention", "mamba"] * 24
    _refused({**QWEN3_NEXT, "layer_types": layers}, "layer_types")


def test_a_vision_tower_left_out_is_a_warning() -> None:
    nested = {"model_type": "llava", "text_config": dict(LLAMA), "vision_config": {"hidden_size": 1024}}
    spec = spec_from_config(nested)
    assert any("vision_config" in w and "not counted" in w for w in spec.warnings), spec.warnings


def test_a_quantiser_sees_every_mixer_projection() -> None:
    """AWQ/GPTQ/bitsandbytes convert nn.Linear modules, a Mamba mixer's in_proj and out_proj included: the listed
    linears of a bias-free, router-free hybrid add up to every linear weight the spec counts (Nemotron-H 8B)."""
    from calculators.memory.checkpoint_weights import linear_modules

    spec = spec_from_config(NEMOTRON_H_8B)
    listed = sum(module.weights for module in linear_modules(spec) if module.kind != "lm_head")
    assert listed == spec.linear_parameters
    assert sum(m.weights for m in linear_modules(spec) if m.kind == "mixer") == 24 * (4096 * 18560 + 8192 * 4096)
