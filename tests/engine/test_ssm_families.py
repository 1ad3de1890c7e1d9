"""Jamba, Falcon-H1, Granite 4 (hybrid), Mamba and Falcon Mamba: exact counts, fixed state, refusals.

Expected parameter counts are written out from the tensors of transformers 5.23's modules
(``modeling_jamba.py``, ``modeling_falcon_h1.py``, ``modeling_granitemoehybrid.py``,
``modeling_mamba.py``, ``modeling_falcon_mamba.py``); each equals what transformers 5.23 builds
from the same config values on the meta device (``sum(p.numel() for p in model.parameters())``,
checked when the test was written). The state bytes are derived from the cache tensors those
modules write (conv state ``channels x conv_kernel`` in the activation dtype, recurrent state
fp32) and were checked once against transformers' ``DynamicCache`` (see the ``measure`` test).
"""

from __future__ import annotations

from typing import Any

import pytest

from calculators.errors import ConfigError, InputError
from calculators.memory.inference import inference_memory, kv_cache_bytes, recurrent_state_bytes
from calculators.memory.lora import lora_parameters
from calculators.model_config import spec_from_config
from calculators.model_layers import LayerSpec

# Jamba 1.5 Mini: JambaConfig's defaults (its docstring names ai21labs/Jamba-v0.1, whose shapes
# Jamba-1.5-Mini keeps; arXiv:2408.12570), with the dt rank ceil(4096 / 16) written out.
JAMBA_MINI: dict[str, Any] = {
    "model_type": "jamba", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "num_experts": 16, "num_experts_per_tok": 2,
    "attn_layer_period": 8, "attn_layer_offset": 4, "expert_layer_period": 2, "expert_layer_offset": 1,
    "mamba_d_state": 16, "mamba_d_conv": 4, "mamba_expand": 2, "mamba_dt_rank": 256, "mamba_conv_bias": True,
    "mamba_proj_bias": False, "vocab_size": 65536, "tie_word_embeddings": False, "use_mamba_kernels": True,
}
# Jamba 1.5 Large: 72 layers of width 8192, 64 query and 8 KV heads, 16 experts top-2 (arXiv:2408.12570).
JAMBA_LARGE = {**JAMBA_MINI, "hidden_size": 8192, "intermediate_size": 24576, "num_hidden_layers": 72,
               "num_attention_heads": 64, "mamba_dt_rank": 512}
# Falcon-H1-0.5B's config.json as public code quotes it; mamba_d_ssm = 24 heads x 64 (its conv state
# is 1792 = 1536 + 2 x 128 channels wide).
FALCON_H1_05B: dict[str, Any] = {
    "model_type": "falcon_h1", "attention_bias": False, "attention_in_multiplier": 1.0,
    "attention_out_multiplier": 0.9375, "attn_layer_indices": None, "embedding_multiplier": 5.656854249492381,
    "head_dim": 64, "hidden_act": "silu", "hidden_size": 1024, "intermediate_size": 2048,
    "key_multiplier": 0.39062499999999994, "lm_head_multiplier": 0.0390625, "mamba_chunk_size": 128,
    "mamba_conv_bias": True, "mamba_d_conv": 4, "mamba_d_head": 64, "mamba_d_ssm": 1536, "mamba_d_state": 128,
    "mamba_expand": 2, "mamba_n_groups": 1, "mamba_n_heads": 24, "mamba_norm_before_gate": False,
    "mamba_proj_bias": False, "mamba_rms_norm": False, "mamba_use_mlp": True, "max_position_embeddings": 16384,
    "mlp_bias": False, "mlp_multipliers": [0.8838834764831844, 0.5859375], "num_attention_heads": 8,
    "num_hidden_layers": 36, "num_key_value_heads": 2, "projectors_bias": False, "rms_norm_eps": 1e-5,
    "rope_theta": 1e11, "ssm_in_multiplier": 1.25,
    "ssm_multipliers": [0.3535533905932738, 0.25, 0.3535533905932738, 0.5, 0.3535533905932738],
    "ssm_out_multiplier": 0.23570226039551587, "tie_word_embeddings": False, "vocab_size": 32784,
}
# Granite-4.0-H-Small's config.json values as public code quotes them (36 Mamba-2 and 4 attention
# layers; Mamba heads and groups at GraniteMoeHybridConfig's defaults, 128 and 1).
GRANITE_H_SMALL: dict[str, Any] = {
    "model_type": "granitemoehybrid", "hidden_size": 4096, "num_hidden_layers": 40, "num_attention_heads": 32,
    "num_key_value_heads": 8, "num_local_experts": 72, "num_experts_per_tok": 10, "shared_intermediate_size": 1536,
    "intermediate_size": 768, "mamba_d_state": 128, "mamba_d_conv": 4, "mamba_expand": 2, "mamba_n_heads": 128,
    "mamba_d_head": 64, "mamba_n_groups": 1, "tie_word_embeddings": True, "vocab_size": 100352,
    "position_embedding_type": "nope", "layer_types": (["mamba"] * 5 + ["attention"] + ["mamba"] * 4) * 4,
}
# state-spaces/mamba-2.8b (MambaConfig's docstring checkpoint).
MAMBA_28B: dict[str, Any] = {
    "model_type": "mamba", "hidden_size": 2560, "num_hidden_layers": 64, "vocab_size": 50280, "state_size": 16,
    "expand": 2, "conv_kernel": 4, "time_step_rank": 160, "use_bias": False, "use_conv_bias": True,
    "intermediate_size": 5120, "residual_in_fp32": True, "tie_word_embeddings": True,
}
# tiiuae/falcon-mamba-7b (FalconMambaConfig's docstring checkpoint).
FALCON_MAMBA_7B: dict[str, Any] = {
    "model_type": "falcon_mamba", "hidden_size": 4096, "num_hidden_layers": 64, "vocab_size": 65024,
    "state_size": 16, "expand": 2, "conv_kernel": 4, "time_step_rank": 256, "use_bias": False, "use_conv_bias": True,
    "tie_word_embeddings": False, "mixer_rms_eps": 1e-6,
}


# ------------------------------------------------------------------ flagships by hand
def test_jamba_15_mini_by_hand() -> None:
    # Mamba-1 mixer (D = 8192, N = 16, dt rank 256): in_proj 4096 x 16,384 = 67,108,864; conv 8192 x 4 + 8192
    # = 40,960; x_proj 8192 x (256 + 32) = 2,359,296; dt_proj 256 x 8192 + 8192 = 2,105,344; A_log 8192 x 16
    # = 131,072; D 8192; out_proj 8192 x 4096 = 33,554,432; dt/B/C norms 256 + 16 + 16 -> 105,308,448.
    # Attention (4 of 32 layers: i % 8 == 4): 2 x 4096 x 4096 + 2 x 4096 x 1024 = 41,943,040.
    # Dense MLP (even layers): 3 x 4096 x 14,336 = 176,160,768; MoE (odd layers): router 16 x 4096 + 16 experts.
    # transformers 5.23 builds 51,570,323,328 (AI21 publishes 52B total, 12B active).
    spec = spec_from_config(JAMBA_MINI)
    mamba, attention, mlp = 105_308_448, 41_943_040, 176_160_768
    expected = 28 * mamba + 4 * attention + 16 * mlp + 16 * (16 * 4096 + 16 * mlp) + 32 * 2 * 4096 \
        + 2 * 65536 * 4096 + 4096
    assert spec.parameters == expected == 51_570_323_328
    assert [layer.attention for layer in spec.layers[:8]] == [None] * 4 + ["full_attention"] + [None] * 3
    assert [layer.mlp for layer in spec.layers[:4]] == ["dense", "moe", "dense", "moe"]
    assert round(spec.active_parameters / 1e9) == 12


def test_jamba_15_large_is_398b() -> None:
    # transformers 5.23 builds 398,555,145,696 from these values (AI21 publishes 398B total, 94B active).
    spec = spec_from_config(JAMBA_LARGE)
    assert spec.parameters == 398_555_145_696
    assert (spec.attention_layers, spec.num_moe_layers) == (9, 36)
    assert round(spec.active_parameters / 1e9) == 94


def test_falcon_h1_05b_runs_attention_and_mamba_in_every_layer() -> None:
    # Per layer: attention 1024 x 512 + 2 x 1024 x 128 + 512 x 1024 = 1,310,720; Mamba-2 (D = 1536, 24 heads,
    # N = 128, 1 group, conv channels 1792, no gated norm): in_proj 1024 x (1536 + 1792 + 24) = 3,432,448,
    # conv 1792 x 5 = 8960, dt_bias/A_log/D 72, out_proj 1536 x 1024 = 1,572,864 -> 5,014,344; MLP
    # 3 x 1024 x 2048 = 6,291,456; two norms 2048. transformers 5.23 builds 521,411,104 (TII: 0.5B).
    spec = spec_from_config(FALCON_H1_05B)
    layer = 1_310_720 + 5_014_344 + 6_291_456 + 2048
    assert spec.parameters == 36 * layer + 2 * 32784 * 1024 + 1024 == 521_411_104
    assert set(spec.layers) == {LayerSpec(("full_attention", "mamba"), "dense")}
    assert spec.is_hybrid and spec.attention_layers == 36 and spec.state_mixer_layers == 36


def test_granite_40_h_small_by_hand() -> None:
    # Mamba-2 (D = 8192, 128 heads, N = 128, 1 group, conv channels 8448): in_proj 4096 x 16,768 = 68,681,728,
    # conv 8448 x 5 = 42,240, 3 x 128, gated norm 8192, out_proj 8192 x 4096 = 33,554,432 -> 102,286,976.
    # Every layer: router 72 x 4096, 72 experts of 3 x 4096 x 768, a shared MLP 3 x 4096 x 1536 and two norms.
    # transformers 5.23 builds 32,207,337,984 (IBM publishes 32B total, 9B active).
    spec = spec_from_config(GRANITE_H_SMALL)
    moe = 72 * 4096 + 72 * 3 * 4096 * 768 + 3 * 4096 * 1536
    expected = 36 * 102_286_976 + 4 * 41_943_040 + 40 * (moe + 2 * 4096) + 100352 * 4096 + 4096
    assert spec.parameters == expected == 32_207_337_984
    assert round(spec.active_parameters / 1e9) == 9


def test_mamba_and_falcon_mamba_by_hand() -> None:
    # Mamba-2.8B block (D = 5120, N = 16, dt rank 160): in_proj 2560 x 10,240 + conv 5120 x 5 + x_proj
    # 5120 x 192 + dt_proj 160 x 5120 + 5120 + A_log 5120 x 16 + D 5120 + out_proj 5120 x 2560 + norm 2560;
    # tied embedding 50,280 x 2560. transformers 5.23 builds 2,768,345,600 (state-spaces: 2.8B).
    block = 2560 * 10240 + 5120 * 5 + 5120 * 192 + 160 * 5120 + 5120 + 5120 * 16 + 5120 + 5120 * 2560 + 2560
    assert spec_from_config(MAMBA_28B).parameters == 64 * block + 50280 * 2560 + 2560 == 2_768_345_600
    # Falcon Mamba 7B: its dt/B/C norms have no weights; untied head. transformers 5.23 builds 7,272,665,088.
    block = 4096 * 16384 + 8192 * 5 + 8192 * 288 + 256 * 8192 + 8192 + 8192 * 16 + 8192 + 8192 * 4096 + 4096
    assert spec_from_config(FALCON_MAMBA_7B).parameters == 64 * block + 2 * 65024 * 4096 + 4096 == 7_272_665_088


# ------------------------------------------------------------------ every option, against the meta build
@pytest.mark.parametrize(("config", "meta_count"), [
    # Jamba: attention at layers 0 and 3, experts at layer 2 and 5, "auto" dt rank ceil(64 / 16) = 4,
    # biased in_proj/out_proj, conv without bias, tied head.
    ({"model_type": "jamba", "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 6,
      "num_attention_heads": 4, "num_key_value_heads": 4, "num_experts": 4, "num_experts_per_tok": 2,
      "attn_layer_period": 3, "attn_layer_offset": 0, "expert_layer_period": 3, "expert_layer_offset": 2,
      "mamba_d_state": 8, "mamba_d_conv": 3, "mamba_expand": 3, "mamba_dt_rank": "auto", "mamba_conv_bias": False,
      "mamba_proj_bias": True, "vocab_size": 1000, "tie_word_embeddings": True}, 497_040),
    # Jamba with one expert: a plain MLP everywhere; KV heads 2.
    ({"model_type": "jamba", "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 4,
      "num_attention_heads": 4, "num_key_value_heads": 2, "num_experts": 1, "attn_layer_period": 2,
      "attn_layer_offset": 1, "vocab_size": 1000}, 292_232),
    # Falcon-H1 with a gated norm, biased in_proj (not out_proj), attention and MLP biases, 2 groups,
    # mamba_d_ssm null (expand x hidden = 128), conv without bias.
    ({"model_type": "falcon_h1", "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 3,
      "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000, "mamba_d_ssm": None, "mamba_expand": 2,
      "mamba_n_heads": 8, "mamba_d_head": "auto", "mamba_d_state": 16, "mamba_n_groups": 2, "mamba_d_conv": 4,
      "mamba_rms_norm": True, "mamba_proj_bias": True, "projectors_bias": False, "attention_bias": True,
      "mlp_bias": True, "mamba_conv_bias": False}, 313_248),
    # Falcon-H1: out_proj biased but not in_proj; head_dim 24 set apart from hidden / heads.
    ({"model_type": "falcon_h1", "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
      "num_attention_heads": 4, "num_key_value_heads": 4, "head_dim": 24, "vocab_size": 1000, "mamba_d_ssm": 96,
      "mamba_n_heads": 4, "mamba_d_state": 16, "mamba_rms_norm": True, "mamba_proj_bias": False,
      "projectors_bias": True}, 257_432),
    # Falcon-H1 without mamba_d_ssm (FalconH1Config: 1024) nor num_key_value_heads (8).
    ({"model_type": "falcon_h1", "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
      "num_attention_heads": 16, "vocab_size": 1000, "mamba_n_heads": 8}, 664_944),
    # Granite 4 dense hybrid (H-Micro's layout): no experts, the shared MLP is the layer's MLP; biases.
    ({"model_type": "granitemoehybrid", "hidden_size": 128, "num_hidden_layers": 4, "num_attention_heads": 4,
      "num_key_value_heads": 2, "num_local_experts": 0, "shared_intermediate_size": 256, "intermediate_size": 512,
      "mamba_n_heads": 4, "mamba_d_state": 16, "mamba_n_groups": 2, "mamba_proj_bias": True,
      "mamba_conv_bias": False, "attention_bias": True, "tie_word_embeddings": False, "vocab_size": 1000,
      "layer_types": ["mamba", "attention", "mamba", "mamba"], "position_embedding_type": "rope"}, 1_027_696),
    # Granite 4.0 Micro's layout: attention only, no experts; its Mamba keys build nothing.
    ({"model_type": "granitemoehybrid", "hidden_size": 128, "num_hidden_layers": 3, "num_attention_heads": 4,
      "num_key_value_heads": 1, "num_local_experts": 0, "shared_intermediate_size": 320, "tie_word_embeddings": True,
      "vocab_size": 1000, "layer_types": ["attention"] * 3, "position_embedding_type": "rope",
      "mamba_n_heads": 128, "mamba_d_state": 256}, 620_416),
    # Mamba-1 with biased projections, conv without bias, "auto" dt rank, untied head.
    ({"model_type": "mamba", "hidden_size": 64, "num_hidden_layers": 3, "vocab_size": 1000, "state_size": 8,
      "expand": 3, "conv_kernel": 3, "time_step_rank": "auto", "use_bias": True, "use_conv_bias": False,
      "tie_word_embeddings": False}, 261_504),
])
def test_variants_equal_the_meta_build(config: dict[str, Any], meta_count: int) -> None:
    assert spec_from_config(config).parameters == meta_count


# ------------------------------------------------------------------ state and cache
def test_jamba_state_is_fixed_and_only_four_layers_grow() -> None:
    spec = spec_from_config(JAMBA_MINI)
    # 28 Mamba-1 layers: conv 8192 channels x 4 x 2 bytes + state 8192 x 16 x 4 bytes.
    state = 28 * (8192 * 4 * 2 + 8192 * 16 * 4)
    assert recurrent_state_bytes(spec, batch=1) == state == 16_515_072
    # 4 attention layers x 8 KV heads x 128 x K and V x 2 bytes per token.
    for context in (8192, 131072):
        assert kv_cache_bytes(spec, batch=1, context=context) == 4 * 8 * 128 * 2 * 2 * context
        assert inference_memory(spec, batch=1, context=context).breakdown["recurrent_state"] == state


def test_falcon_h1_keeps_kv_and_state_in_every_layer() -> None:
    spec = spec_from_config(FALCON_H1_05B)
    # 36 layers: conv (1536 + 2 x 128) x 4 x 2 bytes + state 24 x 64 x 128 x 4 bytes; KV 2 heads x 64 x 2 x 2.
    assert recurrent_state_bytes(spec, batch=1) == 36 * (1792 * 4 * 2 + 24 * 64 * 128 * 4)
    assert kv_cache_bytes(spec, batch=1, context=8192) == 36 * 2 * 64 * 2 * 2 * 8192
    estimate = inference_memory(spec, batch=1, context=8192)
    assert any("36 of 36 layers keep a fixed recurrent state beside their KV cache" in n for n in estimate.notes)


def test_granite_and_mamba_state() -> None:
    granite = spec_from_config(GRANITE_H_SMALL)
    # 36 Mamba-2 layers: conv (8192 + 2 x 128) x 4 x 2 bytes + 128 heads x 64 x 128 x 4 bytes; 4 KV layers.
    assert recurrent_state_bytes(granite, batch=2) == 2 * 36 * (8448 * 4 * 2 + 128 * 64 * 128 * 4)
    assert kv_cache_bytes(granite, batch=1, context=131072) == 4 * 8 * 128 * 2 * 2 * 131072
    mamba = spec_from_config(MAMBA_28B)
    assert kv_cache_bytes(mamba, batch=1, context=131072) == 0
    assert recurrent_state_bytes(mamba, batch=1, activation_bytes=4) == 64 * (5120 * 4 * 4 + 5120 * 16 * 4)


# ------------------------------------------------------------------ nothing guessed
@pytest.mark.parametrize(("config", "key"), [
    ({**JAMBA_MINI, "mamba_inner_layernorms": True}, "mamba_inner_layernorms"),
    ({**FALCON_H1_05B, "attn_layer_indices": [0, 4]}, "attn_layer_indices"),
    ({**GRANITE_H_SMALL, "moe_latent_size": 512}, "moe_latent_size"),
    ({**MAMBA_28B, "ssm_cfg": {"layer": "Mamba2"}}, "ssm_cfg"),
])
def test_an_unmodelled_layout_key_is_refused_by_name(config: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as info:
        spec_from_config(config)
    assert info.value.field == f"config.{key}"


@pytest.mark.parametrize(("config", "key"), [
    ({**FALCON_H1_05B, "mamba_d_head": 48}, "mamba_d_head"),  # 24 x 48 is not mamba_d_ssm 1536
    ({**GRANITE_H_SMALL, "layer_types": ["mamba", "gdn"] * 20}, "layer_types"),
    ({**GRANITE_H_SMALL, "position_embedding_type": "alibi"}, "position_embedding_type"),
    ({**JAMBA_MINI, "attn_layer_offset": 8}, "attn_layer_offset"),  # JambaConfig: offset < period
])
def test_inconsistent_values_are_refused(config: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as info:
        spec_from_config(config)
    assert info.value.field == f"config.{key}"


# ------------------------------------------------------------------ against transformers' cache objects
_TINY: dict[str, dict[str, Any]] = {
    "jamba": {"model_type": "jamba", "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 4,
              "num_attention_heads": 4, "num_key_value_heads": 2, "num_experts": 4, "attn_layer_period": 2,
              "attn_layer_offset": 1, "mamba_d_state": 8, "vocab_size": 100},
    "falcon_h1": {"model_type": "falcon_h1", "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
                  "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100, "mamba_d_ssm": 96,
                  "mamba_n_heads": 6, "mamba_d_state": 16, "mamba_n_groups": 2, "mamba_chunk_size": 16,
                  "mamba_rms_norm": True},
    "granitemoehybrid": {"model_type": "granitemoehybrid", "hidden_size": 64, "num_hidden_layers": 3,
                         "num_attention_heads": 4, "num_key_value_heads": 2, "num_local_experts": 4,
                         "shared_intermediate_size": 96, "intermediate_size": 32, "mamba_n_heads": 4,
                         "mamba_d_state": 16, "mamba_chunk_size": 16, "vocab_size": 100,
                         "layer_types": ["mamba", "attention", "mamba"], "position_embedding_type": "rope"},
    "mamba": {"model_type": "mamba", "hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 100, "state_size": 8},
    "mamba2": {"model_type": "mamba2", "hidden_size": 64, "num_hidden_layers": 2, "num_heads": 8, "head_dim": 16,
               "state_size": 16, "n_groups": 2, "expand": 2, "vocab_size": 100, "chunk_size": 16},
    "nemotron_h": {"model_type": "nemotron_h", "hidden_size": 64, "num_hidden_layers": 4,
                   "hybrid_override_pattern": "M*-E", "num_attention_heads": 4, "num_key_value_heads": 2,
                   "head_dim": 16, "intermediate_size": 96, "mamba_num_heads": 8, "mamba_head_dim": 16,
                   "ssm_state_size": 16, "n_groups": 2, "conv_kernel": 4, "vocab_size": 100, "n_routed_experts": 4,
                   "num_experts_per_tok": 2, "moe_intermediate_size": 32, "moe_shared_expert_intermediate_size": 48,
                   "chunk_size": 16},
    "qwen3_next": {"model_type": "qwen3_next", "hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4,
                   "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 96, "vocab_size": 100,
                   "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
                   "shared_expert_intermediate_size": 32, "linear_num_key_heads": 2, "linear_num_value_heads": 4,
                   "linear_key_head_dim": 16, "linear_value_head_dim": 16, "linear_conv_kernel_dim": 4},
}


@pytest.mark.measure
@pytest.mark.parametrize("family", sorted(_TINY))
def test_cache_and_state_bytes_equal_transformers_cache(family: str) -> None:
    """A tiny random model's DynamicCache after a prompt and one decode step, at two prompt lengths (bf16)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import inspect
    import warnings

    raw = dict(_TINY[family])
    model_type = raw.pop("model_type")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = transformers.AutoConfig.for_model(model_type, **raw)
        model = transformers.AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16).eval()
    spec = spec_from_config(_TINY[family])
    key = "cache_params" if "cache_params" in inspect.signature(model.forward).parameters else "past_key_values"
    for prompt in (8, 40):
        cache = transformers.DynamicCache(config=model.config)
        ids = torch.randint(0, 100, (2, prompt))
        with torch.no_grad():
            model(input_ids=ids, use_cache=True, **{key: cache})
            model(input_ids=ids[:, -1:], use_cache=True, **{key: cache})
        kv = state = 0
        for layer in cache.layers:
            for name in ("keys", "values"):
                tensor = getattr(layer, name, None)
                kv += tensor.numel() * tensor.element_size() if isinstance(tensor, torch.Tensor) else 0
            for name in ("conv_states", "recurrent_states"):
                for tensor in (getattr(layer, name, None) or {}).values():
                    state += tensor.numel() * tensor.element_size() if isinstance(tensor, torch.Tensor) else 0
        assert kv == kv_cache_bytes(spec, batch=2, context=prompt + 1)
        assert state == recurrent_state_bytes(spec, batch=2, activation_bytes=2) > 0


# ------------------------------------------------------------------ LoRA on hybrid models
ALL_TARGETS = ("q", "k", "v", "o", "gate", "up", "down")


def test_lora_adapts_only_the_layers_that_have_the_modules() -> None:
    # Jamba 1.5 Mini, rank 16: q, k, v, o in the 4 attention layers: 16 x ((4096 + 4096) + 2 x (4096 + 1024)
    # + (4096 + 4096)) = 425,984 each; gate, up, down in the 16 dense-MLP layers: 3 x 16 x (4096 + 14,336)
    # = 884,736 each. The Mamba mixers' in_proj/x_proj/dt_proj/out_proj match no target, and the routed
    # experts are 3-D parameters, not modules (PEFT's target_modules leaves them alone).
    assert lora_parameters(spec_from_config(JAMBA_MINI), rank=16, targets=ALL_TARGETS) == \
        4 * 425_984 + 16 * 884_736
    # Nemotron-H 8B: 4 attention blocks as above; its 24 squared-ReLU MLPs have up and down only:
    # 2 x 16 x (4096 + 21,504) = 819,200 each ("gate" adapts nothing).
    from tests.engine.test_model_layers import NEMOTRON_H_8B
    assert lora_parameters(spec_from_config(NEMOTRON_H_8B), rank=16, targets=ALL_TARGETS) == \
        4 * 425_984 + 24 * 819_200
    # Granite-4.0-H-Small: its shared MLP is input_linear / output_linear, its experts 3-D: attention only.
    assert lora_parameters(spec_from_config(GRANITE_H_SMALL), rank=16, targets=ALL_TARGETS) == 4 * 425_984


def test_lora_on_a_model_without_target_modules_is_refused() -> None:
    with pytest.raises(InputError) as info:
        lora_parameters(spec_from_config(MAMBA_28B), rank=16, targets=ALL_TARGETS)
    assert "none" in str(info.value)


@pytest.mark.measure
@pytest.mark.parametrize("family", ["jamba", "falcon_h1", "granitemoehybrid", "nemotron_h"])
def test_lora_parameters_equal_peft_on_the_meta_device(family: str) -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    peft = pytest.importorskip("peft")
    import warnings

    raw = dict(_TINY[family])
    model_type = raw.pop("model_type")
    names = {"q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "o_proj", "gate": "gate_proj", "up": "up_proj",
             "down": "down_proj"}
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        model = transformers.AutoModelForCausalLM.from_config(transformers.AutoConfig.for_model(model_type, **raw))
        present = {name.rsplit(".", 1)[-1] for name, _ in model.named_modules()}
        targets = [module for module in names.values() if module in present]  # as the harness passes them
        model = peft.get_peft_model(model, peft.LoraConfig(r=4, target_modules=targets, task_type="CAUSAL_LM"))
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert trainable == lora_parameters(spec_from_config(_TINY[family]), rank=4, targets=ALL_TARGETS)
