"""What the 2025 MoE families keep in memory beyond their weights, tensor by tensor, as the traces showed.

Each expected value is written out from the tensors of transformers 5.23's code path (named in the test)
for a tiny config; ``tests/data/measurements`` holds the traced cases at real widths that the same
formulas are scored against (``tests/validation/test_memory_vs_measured.py``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from calculators.memory.activations import ActivationLayout, saved_bytes_per_token_per_layer
from calculators.memory.inference import inference_memory
from calculators.memory.kernels import needs_explicit_mask
from calculators.memory.moe_prefill import moe_prefill_bytes
from calculators.model_config import spec_from_config
from calculators.model_layers import IndexerSpec, LayerSpec

H, I, E, K = 64, 32, 4, 2
OLMOE: dict[str, Any] = {"model_type": "olmoe", "hidden_size": H, "num_hidden_layers": 2, "num_attention_heads": 4,
                         "intermediate_size": I, "vocab_size": 100, "num_experts": E, "num_experts_per_tok": K}
LLAMA4: dict[str, Any] = {"model_type": "llama4_text", "hidden_size": H, "num_hidden_layers": 4,
                          "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": I,
                          "intermediate_size_mlp": 96, "vocab_size": 100, "num_local_experts": E,
                          "num_experts_per_tok": 1, "attention_chunk_size": 16, "interleave_moe_layer_step": 2}
BF16_FULL = ActivationLayout(compute_bytes=2, residual_bytes=2, autocast=False, trainable_base=True)


def test_fp32_routing_weights_make_the_weighted_copies_fp32() -> None:
    # grouped_mm_experts_forward: proj_out (bf16) * sample_weights_g (fp32) promotes to fp32, and so is its
    # un-permuted copy: at that moment a pair holds the gathered input and the down output (2 x 2 h) and two
    # fp32 copies (2 x 4 h) where bf16 weights give 2 x 2 h.
    spec = spec_from_config(OLMOE)
    assert spec.moe is not None
    fp32 = replace(spec, moe=replace(spec.moe, fp32_routing_weights=True))
    tokens = 10
    bf16_pair = max(2 * (H + 4 * I), 4 * 2 * H)  # 512: the down-projection stage, not the gate/up one
    fp32_pair = max(2 * (H + 4 * I), 2 * 2 * H + 2 * 4 * H)  # 768
    assert moe_prefill_bytes(fp32, tokens=tokens, act=2) - moe_prefill_bytes(spec, tokens=tokens, act=2) == \
        tokens * K * (fp32_pair - bf16_pair)


def test_a_shared_expert_runs_beside_the_routed_ones_not_with_them() -> None:
    # Hunyuan and ERNIE run the shared MLP first (its output, h, stays while the experts run); GLM and
    # DeepSeek run it last (the experts' output stays while it runs). Never both sets of temporaries.
    spec = spec_from_config({**OLMOE, "model_type": "hunyuan_v1_moe", "num_experts": E, "moe_topk": K,
                             "head_dim": 16})
    assert spec.moe is not None and spec.moe.shared_expert_first
    routed = K * max(2 * (H + 4 * I), 2 * 2 * H + 2 * 4 * H)  # fp32 routing weights (HunYuanMoEV1Gate)
    shared = 3 * I * 2
    router_and_ids = (2 + 4) * E + K * (4 + 8 + 24)
    assert moe_prefill_bytes(spec, tokens=1, act=2) == max(routed + 2 * H, shared) + router_and_ids
    last = replace(spec, moe=replace(spec.moe, shared_expert_first=False))
    assert moe_prefill_bytes(last, tokens=1, act=2) == max(routed, shared + 2 * H) + router_and_ids


def test_llama4_runs_every_token_through_every_expert() -> None:
    spec = spec_from_config(LLAMA4)
    # Llama4TextMoe: repeat to E x tokens x h, scale, bmm: at the activation the scaled input (h), gate_up
    # (2 I), the activation and the product (2 I), per expert; the router's logits and ids as for any MoE.
    expected = 2 * E * max(2 * H, H + 4 * I) + (2 + 4) * E + 1 * (4 + 8 + 24)
    assert moe_prefill_bytes(spec, tokens=1, act=2) == expected
    # Training keeps, per expert, gate_up and the activation (3 I), the repeated and the scaled input (2 h),
    # the product (I) and the score column; the shared expert 4 I; the router an fp32 sigmoid per expert
    # and one id.
    moe_layer = next(layer for layer in spec.layers if layer.mlp == "moe")
    mlp = saved_bytes_per_token_per_layer(spec, layout=BF16_FULL, seq=8, layer=moe_layer).mlp
    assert mlp == E * (2 * (3 * I + 2 * H + I) + 2) + 2 * 4 * I + 4 * E + 8


def test_llama4_l2_qk_norm_keeps_fp32_q_and_k_on_its_rope_layers_only() -> None:
    spec = spec_from_config(LLAMA4)
    chunked = LayerSpec(("chunked_attention",), "dense")
    full = LayerSpec(("full_attention",), "dense")
    norms = [saved_bytes_per_token_per_layer(spec, layout=BF16_FULL, seq=8, layer=layer).norms
             for layer in (chunked, full)]
    # fp32 casts of q (4 x 16) and k (2 x 16) and one rsqrt per head (4 + 2).
    assert norms[0] - norms[1] == 4 * (64 + 32) + 4 * (4 + 2)


def test_chunked_attention_needs_a_mask_from_the_chunk_on() -> None:
    spec = spec_from_config(LLAMA4)
    # masking_utils keeps the chunked mask once the keys reach the chunk; the global NoPE layers never need one.
    assert not needs_explicit_mask(spec, kv_length=15)
    assert needs_explicit_mask(spec, kv_length=16)
    assert not needs_explicit_mask(spec, kv_length=16, mixer="full_attention")
    small = inference_memory(spec, batch=1, context=15, device="cpu")
    large = inference_memory(spec, batch=1, context=16, device="cpu")
    assert large.peak_allocated_bytes > small.peak_allocated_bytes


def test_indexer_scoring_copies_the_keys_once_per_query_past_one_sequence() -> None:
    indexer = IndexerSpec(num_heads=16, head_dim=128, topk=512)
    # DeepseekV32Indexer: matmul of fp32 q (B, S, 16, 128) with fp32 keys (B, 1, 128, T): scores (B, S, 16, T)
    # and, for B > 1, torch.matmul's expanded copy of the keys (B, S, 128, T); then ReLU (a second score tensor).
    assert indexer.scoring_bytes(batch=1, queries=4096, keys=4096) == 8 * 4096 * 16 * 4096
    assert indexer.scoring_bytes(batch=2, queries=2048, keys=2048) == \
        4 * 2 * 2048 * (16 * 128 + 128 * 2048 + 16 * 2048)  # 4.5 GiB: the traced 4096 + 512 + 32 MiB
