"""The Mamba and Gated DeltaNet mixers' memory on transformers' PyTorch path, and LoRA's frozen prefix.

Expected values are written out from the tensors ``mamba_selective_scan`` (``modeling_mamba.py``)
allocates and keeps, as a dispatch-mode trace of ``MambaMixer`` (transformers 5.23, bf16, real CPU
tensors) listed them; the whole-model figures are held to the harness's traces in
``tests/validation/test_memory_vs_measured.py``.
"""

from __future__ import annotations

from typing import Any

from calculators.memory.activations import ActivationLayout, saved_bytes_by_layer, saved_bytes_per_token_per_layer
from calculators.memory.state_mixers import (
    gated_deltanet_prefill_bytes,
    mamba1_prefill_bytes,
    mamba2_prefill_bytes,
    state_mixer_saved_bytes,
)
from calculators.model_config import spec_from_config
from calculators.model_layers import LayerSpec, LinearAttentionSpec, MambaSpec

MAMBA1 = MambaSpec(version=1, inner_size=128, state_size=16, conv_kernel=4, dt_rank=4, gated_norm=False)


def test_mamba1_prefill_peak_by_hand() -> None:
    # D = 128, N = 16, dt rank 4, 64 tokens, bf16. At the end of mamba_selective_scan these are alive:
    # in_proj's output 2 x 2D, the conv's SiLU 2D, x_proj's output 2 (r + 2N), dt_proj's contiguous output 2D,
    # softplus(dt) 2D, discrete_A, discrete_B and deltaB_u 3 x 4 D N, then (stack freed) x * D + y in fp32 4D,
    # silu(z) 2D and the gated output 4D: 20 D + 2 (r + 2N) + 12 D N bytes per token.
    per_token = 20 * 128 + 2 * (4 + 32) + 12 * 128 * 16
    assert mamba1_prefill_bytes(MAMBA1, batch=1, seq=64, act=2) == 64 * per_token == 1_741_312


def test_mamba1_saved_for_backward_by_hand() -> None:
    # Traced MambaMixer (bf16, trainable): in_proj's output 2 x 2D, the conv output and its SiLU 2D each,
    # x_proj's output 2 (r + 2N), B.float() 4N, dt + bias and softplus 2D each, discrete_A and discrete_B
    # 4 D N each, every step's fp32 state 4 D N and its bf16 cast 2 D N, x.float() and x * D + y 4D each,
    # silu(z) and out_proj's input 2D each, in_proj's input (hidden 64) 2 x 64.
    spec = spec_from_config({"model_type": "mamba", "hidden_size": 64, "num_hidden_layers": 1, "vocab_size": 100,
                             "state_size": 16, "expand": 2, "time_step_rank": 4})
    layer = LayerSpec(("mamba",), "none")
    full = 4 * 128 + 2 * 128 + 2 * 128 + 2 * 36 + 4 * 16 + 4 * 128 + (12 + 2) * 128 * 16 + 8 * 128 + 4 * 128 + 2 * 64
    assert state_mixer_saved_bytes(spec, layer=layer, seq=64, compute_bytes=2, autocast=False, fp32_weights=False,
                                   trainable=True) == full == 32_008
    # Frozen (LoRA): neither the SiLU output x_proj reads, nor out_proj's input, nor in_proj's input.
    assert state_mixer_saved_bytes(spec, layer=layer, seq=64, compute_bytes=2, autocast=False, fp32_weights=False,
                                   trainable=False) == full - 2 * 128 - 2 * 128 - 2 * 64


def test_mamba2_scan_grows_with_its_chunk() -> None:
    # The chunk scan's (batch, heads, chunks, chunk, chunk) blocks are chunk x heads x 4 bytes per token each:
    # a larger chunk_size costs memory with no weight changed; padding to whole chunks counts too.
    small = MambaSpec(version=2, inner_size=512, state_size=32, conv_kernel=4, num_heads=8, n_groups=1, chunk_size=64)
    large = MambaSpec(**{**small.__dict__, "chunk_size": 256})
    assert mamba2_prefill_bytes(large, batch=1, seq=1024, act=2) > mamba2_prefill_bytes(small, batch=1, seq=1024,
                                                                                          act=2)
    assert mamba2_prefill_bytes(small, batch=1, seq=65, act=2) > mamba2_prefill_bytes(small, batch=1, seq=64, act=2)


def test_gated_deltanet_scales_with_value_heads() -> None:
    # The 64 x 64 blocks are per value head: doubling the value heads (same key heads) at least doubles them.
    one = LinearAttentionSpec(num_key_heads=4, num_value_heads=4, key_head_dim=32, value_head_dim=32, conv_kernel=4)
    two = LinearAttentionSpec(num_key_heads=4, num_value_heads=8, key_head_dim=32, value_head_dim=32, conv_kernel=4)
    block = 4 * 4 * 64 * 1024  # one (batch, 4 heads, chunks, 64, 64) fp32 block at 1024 tokens
    assert gated_deltanet_prefill_bytes(two, batch=1, seq=1024, act=2) - gated_deltanet_prefill_bytes(
        one, batch=1, seq=1024, act=2) > 3 * block


# ------------------------------------------------------------------ LoRA: nothing upstream of the adapters
QWEN3_NEXT_SMALL: dict[str, Any] = {
    "model_type": "qwen3_next", "hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 64, "intermediate_size": 512, "vocab_size": 1000, "num_experts": 4,
    "num_experts_per_tok": 2, "moe_intermediate_size": 128, "shared_expert_intermediate_size": 128,
    "linear_num_key_heads": 2, "linear_num_value_heads": 4, "linear_key_head_dim": 64,
    "linear_value_head_dim": 64, "linear_conv_kernel_dim": 4,
}


def test_lora_layers_before_the_first_adapter_keep_nothing() -> None:
    # Layers 0-2 are Gated DeltaNet (no q/k/v/o); with q,k,v,o adapters the embedding and those layers have
    # no trainable parameter upstream, so autograd saves nothing for them (traced on small Qwen3-Next and
    # Granite 4 presets); layer 3 keeps all but its first norm's input.
    spec = spec_from_config(QWEN3_NEXT_SMALL)
    layout = ActivationLayout(compute_bytes=2, residual_bytes=2, autocast=True, trainable_base=False,
                              lora_targets=frozenset({"q", "k", "v", "o"}), lora_rank=16)
    saved = saved_bytes_by_layer(spec, layout=layout, seq=1024)
    attention = saved_bytes_per_token_per_layer(spec, layout=layout, seq=1024, layer=spec.layers[3]).total
    assert saved == [0, 0, 0, attention - (4 * 256 + 4)]


def test_full_fine_tuning_keeps_every_layer() -> None:
    spec = spec_from_config(QWEN3_NEXT_SMALL)
    layout = ActivationLayout(compute_bytes=2, residual_bytes=2, autocast=False, trainable_base=True)
    saved = saved_bytes_by_layer(spec, layout=layout, seq=1024)
    assert all(value > 0 for value in saved) and saved[0] == saved[1] == saved[2] != saved[3]
