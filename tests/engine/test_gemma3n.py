"""Gemma 3n read exactly: AltUp, LAuReL, per-layer inputs, per-layer MLP widths, KV sharing, and its towers.

Expected values are hand arithmetic from transformers 5.23's ``modeling_gemma3n.py`` tensors, or what
transformers 5.23 builds on the meta device from the same values (``Gemma3nForCausalLM`` for the
language model, ``Gemma3nForConditionalGeneration`` with timm 1.0.31 for the whole checkpoint).
"""

from __future__ import annotations

from typing import Any

import pytest

from calculators.errors import ConfigError
from calculators.memory.checkpoint_weights import linear_modules
from calculators.memory.inference import inference_memory, kv_cache_bytes, kv_cache_bytes_per_token
from calculators.memory.lora import lora_parameters
from calculators.model_config import spec_from_config

#: google/gemma-3n-E2B's language model: the E2B entry of transformers' convert_gemma3n_weights.py _VARIANTS
#: (intermediate 2048 x 4, 30 layers, the first 10 sparse, 10 KV-shared); the rest Gemma3nTextConfig's defaults.
E2B_TEXT: dict[str, Any] = {"model_type": "gemma3n_text", "hidden_size": 2048, "num_hidden_layers": 30,
                            "intermediate_size": [8192] * 30, "num_attention_heads": 8, "num_key_value_heads": 2,
                            "head_dim": 256, "vocab_size": 262400, "vocab_size_per_layer_input": 262144,
                            "hidden_size_per_layer_input": 256, "altup_num_inputs": 4, "laurel_rank": 64,
                            "num_kv_shared_layers": 10, "sliding_window": 512, "max_position_embeddings": 32768,
                            "activation_sparsity_pattern": [0.95] * 10 + [0.0] * 20}
#: google/gemma-3n-E4B's: Gemma3nTextConfig's defaults (35 layers of 16384, 15 KV-shared).
E4B_TEXT: dict[str, Any] = {**E2B_TEXT, "num_hidden_layers": 35, "intermediate_size": [16384] * 35,
                            "num_kv_shared_layers": 15, "activation_sparsity_pattern": [0.95] * 10 + [0.0] * 25}
_VISION = {"model_type": "gemma3n_vision", "architecture": "mobilenetv5_300m_enc", "hidden_size": 2048,
           "vocab_size": 128, "vocab_offset": 262144, "rms_norm_eps": 1e-06, "model_args": None}
_AUDIO = {"model_type": "gemma3n_audio", "hidden_size": 1536, "input_feat_size": 128, "conf_num_hidden_layers": 12,
          "conf_num_attention_heads": 8, "conf_conv_kernel_size": 5, "sscp_conv_channel_size": [128, 32],
          "sscp_conv_kernel_size": [[3, 3], [3, 3]], "sscp_conv_stride_size": [[2, 2], [2, 2]], "vocab_size": 128}


def _whole(text: dict[str, Any]) -> dict[str, Any]:
    return {"model_type": "gemma3n", "text_config": text, "vision_config": _VISION, "audio_config": _AUDIO,
            "vision_soft_tokens_per_image": 256, "audio_soft_tokens_per_image": 188}


# ------------------------------------------------------------------ parameters
def test_one_layer_by_hand() -> None:
    """E2B, hidden 2048: attention q 2048 x 2048, k and v 2048 x 512 each, o 2048 x 2048, q/k norms of 256;
    MLP 3 x 2048 x 8192; four norms; AltUp (4 x 4, 4 x 16, 2048 x 4, correct_output_scale and router norm),
    LAuReL (2 x 2048 x 64 and a norm), per-layer input (2 x 2048 x 256 and a norm)."""
    spec = spec_from_config(E2B_TEXT)
    h = 2048
    attention = 2 * h * h + 2 * h * 512 + 2 * 256
    extras = 16 + 64 + h * 4 + 2 * h + 2 * h * 64 + h + 2 * h * 256 + h
    own, shared = spec.layers[0], spec.layers[-1]
    assert not own.kv_shared and shared.kv_shared
    assert spec._layer_parameters(own, moe_block=0) == attention + 3 * h * 8192 + 4 * h + extras == 62_153_296
    # A KV-shared layer has no k_proj, v_proj nor k_norm: 2 x 2048 x 512 + 256 fewer.
    assert spec._layer_parameters(own, moe_block=0) - spec._layer_parameters(shared, moe_block=0) == 2_097_408
    # Outside the layers: embedding 262,400 x 2048 (tied head), the per-layer table 262,144 x 30 x 256, its
    # projection 2048 x 7680 and norm 256, AltUp's 3 + 3 projections of 2048 x 2048, the final norm.
    outside = 262_400 * h + 262_144 * 30 * 256 + h * 7680 + 256 + 6 * h * h + h
    assert spec.parameters == 20 * 62_153_296 + 10 * (62_153_296 - 2_097_408) + outside == 4_435_182_688


@pytest.mark.parametrize(("text", "expected"), [
    (E2B_TEXT, 4_435_182_688),  # transformers 5.23 builds this Gemma3nForCausalLM on the meta device
    (E4B_TEXT, 6_835_235_568),  # idem (Gemma3nTextConfig's defaults)
    ({"model_type": "gemma3n_text"}, 6_835_235_568),  # every key left out: the E4B defaults, with a note
])
def test_flagship_language_models_equal_transformers(text: dict[str, Any], expected: int) -> None:
    spec = spec_from_config(text)
    assert spec.parameters == expected
    assert spec.tie_word_embeddings and spec.final_logit_softcapping == 30.0


_SMALL = {"model_type": "gemma3n_text", "hidden_size": 64, "num_hidden_layers": 5, "num_attention_heads": 4,
          "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": [96, 128, 96, 128, 160], "vocab_size": 100,
          "vocab_size_per_layer_input": 50, "hidden_size_per_layer_input": 8, "altup_num_inputs": 3,
          "laurel_rank": 4, "sliding_window": 8,
          "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention",
                          "sliding_attention"]}


@pytest.mark.parametrize(("changes", "expected"), [
    # transformers 5.23 builds each of these Gemma3nForCausalLM on the meta device with the stated count.
    ({"attention_bias": True, "tie_word_embeddings": False, "num_kv_shared_layers": 0}, 224_492),
    ({"num_kv_shared_layers": 2}, 208_908),
    ({"intermediate_size": 128, "num_hidden_layers": 10, "num_kv_shared_layers": 5, "layer_types": None}, 403_136),
])
def test_small_variants_equal_transformers(changes: dict[str, Any], expected: int) -> None:
    config = {key: value for key, value in {**_SMALL, **changes}.items() if value is not None}
    assert spec_from_config(config).parameters == expected


def test_linears_listed_for_quantisers_equal_the_linear_parameters() -> None:
    spec = spec_from_config(E2B_TEXT)
    listed = sum(module.weights for module in linear_modules(spec) if module.kind != "lm_head")
    assert listed == spec.linear_parameters
    names = {name for module in linear_modules(spec) for name in module.names}
    assert "model.layers.29.self_attn.k_proj" not in names and "model.layers.19.self_attn.k_proj" in names
    assert "model.altup_projections" in names and "model.layers.0.laurel.linear_left" in names


def test_active_parameters_leave_out_the_per_layer_table() -> None:
    spec = spec_from_config(E2B_TEXT)
    assert spec.parameters - spec.active_parameters == 262_144 * 30 * 256 == spec.per_layer_table_parameters


def test_lora_k_and_v_only_where_the_layer_has_them() -> None:
    """Rank 8 on q, k, v, o: q and o in all 30 layers (8 x (2048 + 2048) each), k and v in the 20 that compute
    their own (8 x (2048 + 512) each)."""
    spec = spec_from_config(E2B_TEXT)
    assert lora_parameters(spec, rank=8, targets=("q", "k", "v", "o")) == 2 * 30 * 8 * 4096 + 2 * 20 * 8 * 2560


# ------------------------------------------------------------------ the whole checkpoint
@pytest.mark.parametrize(("text", "expected"), [
    # transformers 5.23 Gemma3nForConditionalGeneration on the meta device (timm 1.0.31 for the vision tower)
    (E2B_TEXT, 5_418_464_192),
    (E4B_TEXT, 7_818_517_072),
])
def test_whole_checkpoints_equal_transformers(text: dict[str, Any], expected: int) -> None:
    spec = spec_from_config(_whole(text))
    assert spec.parameters == expected
    image, audio = spec.towers
    # timm's mobilenetv5_300m_enc (294,126,912) + embed_vision: 128 x 2048 + 2 norms + 2048 x 2048.
    assert image.parameters == 294_126_912 + 128 * 2048 + 2 * 2048 + 2048 * 2048 == 298_587_456
    assert image.tokens_per_item == 256
    # Subsampler: conv 1->128 (3 x 3) + norm, conv 128->32 + norm, a 32 x 32 -> 1536 linear (128 mel bins halved
    # twice); 12 blocks of 24 h^2 + 9 h + head_dim + 5 h; embed_audio 128 x 1536 + 2 norms + 1536 x 2048.
    h = 1536
    subsampler = 128 * 9 + 128 + 32 * 128 * 9 + 32 + 1024 * h
    block = 24 * h * h + 9 * h + 192 + 5 * h
    assert audio.parameters == subsampler + 12 * block + 128 * h + 2 * h + h * 2048 == 684_694_048
    assert audio.tokens_per_item == 188
    assert spec.parameters - spec.vision_parameters == spec_from_config(text).parameters


def test_published_totals_are_transformers_plus_the_stored_shared_kv_and_kerashub_mobilenet() -> None:
    """KerasHub lists 5,439,595,456 (E2B) and 7,850,135,376 (E4B). The checkpoint stores k_proj, v_proj and k_norm
    for the KV-shared layers too (transformers 5.23 skips them on load: _keys_to_ignore_on_load_unexpected), 2 x
    2048 x 512 + 256 each; KerasHub's MobileNet-v5 has 157,184 more parameters than timm's (its own
    mobilenetv5_300m_enc_gemma3n preset lists 294,284,096 against timm's 294,126,912)."""
    kerashub_mobilenet = 294_284_096 - 294_126_912
    for text, shared, published in ((E2B_TEXT, 10, 5_439_595_456), (E4B_TEXT, 15, 7_850_135_376)):
        spec = spec_from_config(_whole(text))
        assert spec.parameters + shared * 2_097_408 + kerashub_mobilenet == published


# ------------------------------------------------------------------ KV cache
def test_kv_cache_counts_only_the_layers_that_store_it() -> None:
    """20 layers store K and V (E2B and E4B alike): 4 global (layers 4, 9, 14, 19) and 16 windowed to 512;
    per token and layer 2 x 2 KV heads x 256 x 2 bytes = 2048."""
    for text in (E2B_TEXT, E4B_TEXT):
        spec = spec_from_config(text)
        assert (spec.kv_cache_layers, spec.attention_layers) == (20, text["num_hidden_layers"])
        assert kv_cache_bytes_per_token(spec) == 20 * 2048 == 40_960
        assert kv_cache_bytes(spec, batch=1, context=8192) == (4 * 8192 + 16 * 512) * 2048 == 83_886_080
        assert kv_cache_bytes(spec, batch=1, context=131072) == (4 * 131072 + 16 * 512) * 2048 == 1_090_519_040
    at_128k = inference_memory(spec_from_config(E2B_TEXT), batch=1, context=131072)
    assert any("max_position_embeddings" in note for note in at_128k.notes)  # 32,768 tokens


# ------------------------------------------------------------------ nothing guessed
@pytest.mark.parametrize(("changes", "key"), [
    ({"num_kv_shared_layers": 30}, "num_kv_shared_layers"),  # every layer shared: none computes K and V
    ({"layer_types": ["sliding_attention"] * 25 + ["full_attention"] * 5}, "num_kv_shared_layers"),
    ({"intermediate_size": [8192] * 29}, "intermediate_size"),
    ({"altup_active_idx": 4}, "altup_active_idx"),
    ({"altup_new_option": 2}, "altup_new_option"),  # an AltUp key the reader does not know
    ({"mamba_d_state": 16}, "mamba_d_state"),
])
def test_unreadable_configs_are_refused_by_name(changes: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as info:
        spec_from_config({**E2B_TEXT, **changes})
    assert info.value.field == f"config.{key}", str(info.value)


@pytest.mark.parametrize(("vision", "key"), [
    ({**_VISION, "architecture": "mobilenetv5_base"}, "vision_config.architecture"),
    ({**_VISION, "model_args": {"depth": 3}}, "vision_config.model_args"),
])
def test_an_unknown_vision_encoder_is_refused(vision: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as info:
        spec_from_config({**_whole(E2B_TEXT), "vision_config": vision})
    assert info.value.field == f"config.{key}"


# ------------------------------------------------------------------ against transformers' cache
@pytest.mark.measure
def test_cache_bytes_equal_transformers_cache() -> None:
    """A tiny random Gemma 3n (5 layers, the last 2 KV-shared, window 8): its DynamicCache after a prompt and one
    decode step, at two prompt lengths (bf16)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import warnings

    raw = {**_SMALL, "num_kv_shared_layers": 2}
    values = {key: value for key, value in raw.items() if key != "model_type"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = transformers.AutoConfig.for_model("gemma3n_text", **values)
        model = transformers.AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16).eval()
    spec = spec_from_config(raw)
    for prompt in (8, 40):
        cache = transformers.DynamicCache(config=model.config)
        ids = torch.randint(0, 100, (2, prompt))
        with torch.no_grad():
            model(input_ids=ids, use_cache=True, past_key_values=cache)
            model(input_ids=ids[:, -1:], use_cache=True, past_key_values=cache)
        kv = sum(tensor.numel() * tensor.element_size() for layer in cache.layers
                 for tensor in (getattr(layer, "keys", None), getattr(layer, "values", None))
                 if isinstance(tensor, torch.Tensor))
        # transformers' DynamicSlidingWindowLayer keeps the last sliding_window - 1 tokens (cache_utils.py), one fewer
        # than the window this guide counts (what a paged cache such as vLLM's keeps); layers 0 and 2 slide.
        one_token_fewer = 2 * 2 * (2 * 2 * 16) * (2 if prompt + 1 >= 8 else 0)
        assert kv == kv_cache_bytes(spec, batch=2, context=prompt + 1) - one_token_fewer


# ------------------------------------------------------------------ catalog
def test_catalog_records_match_their_transformers_counts_and_published_totals() -> None:
    import json
    from pathlib import Path

    from calculators.catalog.models import get_model, get_model_record

    counts = json.loads((Path(__file__).resolve().parents[1] / "data" / "model_counts_transformers.json")
                        .read_text())["models"]
    for size, shared in (("e2b", 10), ("e4b", 15)):
        text, whole = get_model(f"gemma-3n-{size}"), get_model(f"gemma-3n-{size}-multimodal")
        towers = 298_587_456 + 684_694_048  # derived in test_whole_checkpoints_equal_transformers
        assert whole.parameters - text.parameters == counts[f"gemma-3n-{size}-multimodal"]["vision_parameters"] == towers
        stored = shared * (2 * 2048 * 512 + 256) + (294_284_096 - 294_126_912)
        assert get_model_record(f"gemma-3n-{size}-multimodal").published_extra_elements == stored
        assert get_model_record(f"gemma-3n-{size}").published_extra_elements == stored + towers


# ------------------------------------------------------------------ prefill temporaries
@pytest.mark.parametrize(("context", "traced"), [
    # activations_and_temporaries at the prefill peak in tests/data/measurements/
    # gemma-3n-e2b_infer_bf16_kv-bf16_b1_ctx{2048,8192}_new16_sdpa.json (fake-tensor traces of transformers 5.23)
    (2048, 341_884_928),
    (8192, 1_417_846_784),
])
def test_prefill_temporaries_follow_the_trace(context: int, traced: int) -> None:
    """Per token, in hidden widths of 2048 (bf16): the embedding, 3 AltUp copies and the last raw projection (5),
    the layer's 4 streams and their prediction (8), the per-layer inputs (30 x 256 = 3.75), six locals of the layer
    (6) and the MLP's gate, activation, up and product (4 x 8192 = 16) and its output (1): 39.75; plus cos and sin
    of the local and global layers (2 x 2 x 256 per token) and the boolean sliding-window mask (context^2 bytes)."""
    from calculators.memory.residual_augment import augmented_layer_bytes

    spec = spec_from_config(E2B_TEXT)
    ours = augmented_layer_bytes(spec, tokens=context, act=2) + 2 * 2 * context * 256 * 2 + context * context
    assert augmented_layer_bytes(spec, tokens=context, act=2) == context * 2 * int(39.75 * 2048)
    assert abs(ours - traced) / traced < 0.001  # the rest: ids, positions, AltUp's per-token coefficients


# ------------------------------------------------------------------ training
#: A small random Gemma 3n (hidden 64, 10 layers, 2 heads / 1 KV head of 40, MLP 112, 4 streams, LAuReL rank 5,
#: per-layer width 6, the first 2 layers sparse, the last 4 KV-shared) whose saved tensors were traced.
_TRACED = {"model_type": "gemma3n_text", "hidden_size": 64, "num_hidden_layers": 10, "num_attention_heads": 2,
           "num_key_value_heads": 1, "head_dim": 40, "intermediate_size": 112, "vocab_size": 100,
           "vocab_size_per_layer_input": 50, "hidden_size_per_layer_input": 6, "altup_num_inputs": 4,
           "laurel_rank": 5, "sliding_window": 512, "num_kv_shared_layers": 4,
           "activation_sparsity_pattern": [0.95, 0.95] + [0.0] * 8}


@pytest.mark.parametrize(("index", "traced"), [
    # Bytes per token each layer saves for backward: torch.autograd.graph.saved_tensors_hooks on that model in bf16,
    # every weight trainable, distinct storages counted once, (saved at 11 tokens - saved at 7) / 4.
    (1, 8848),  # its own K and V, activation sparsity
    (2, 8622),  # its own K and V
    (7, 7966),  # K and V read from an earlier layer
])
def test_saved_activations_per_layer_follow_the_trace(index: int, traced: int) -> None:
    from calculators.memory.activations import ActivationLayout, saved_bytes_per_token_per_layer

    spec = spec_from_config(_TRACED)
    layout = ActivationLayout(compute_bytes=2, residual_bytes=2, autocast=False, trainable_base=True, device="cpu")
    assert saved_bytes_per_token_per_layer(spec, layout=layout, seq=7, layer=spec.layers[index]).total == traced


def test_saved_activations_outside_the_layers_follow_the_trace() -> None:
    """The same trace outside the layers: 4,040 bytes per token, of which the final norm (fp32 input and normalised
    output, two fp32 values), the head's input, the bf16 logits and fp32 log-softmax, labels and ids (8 + 16)
    are 1,272; the rest is Gemma 3n's own."""
    from calculators.memory.residual_augment import augmented_model_saved_bytes

    spec = spec_from_config(_TRACED)
    assert augmented_model_saved_bytes(spec, compute_bytes=2) == 4040 - (8 * 64 + 8 + 2 * 64 + 6 * 100 + 24) == 2768


#: The same model with PEFT adapters of rank 3 on q, k, v and o (fp32 adapters, PEFT's default), its bf16 base frozen.
_LORA = {"compute_bytes": 2, "residual_bytes": 2, "autocast": False, "trainable_base": False, "device": "cpu",
         "lora_targets": frozenset({"q", "k", "v", "o"}), "lora_rank": 3}


@pytest.mark.parametrize(("index", "traced"), [
    # The same hooks, distinct storages, (saved at 11 tokens - saved at 7) / 4, with the adapters attached.
    (1, 6414),  # own K and V, activation sparsity: adapters on q, k, v, o
    (2, 6188),  # own K and V
    (7, 5156),  # K and V read from an earlier layer: adapters on q and o only
])
def test_lora_saved_activations_per_layer_follow_the_trace(index: int, traced: int) -> None:
    """By hand for layer 2: the full-training trace's 8,622 less what a frozen base does not save: eight norms'
    fp32 normalised outputs (8 x 4 x 64), q's and k's (4 x 80 + 4 x 40), the frozen linears' bf16 inputs
    (2 x (6 x 64 + 2 x 4 + 5 + 112 + 2 x 6) = 1,042), plus the adapters' fp32 inputs (3 x 4 x 64 + 4 x 80) and
    rank-wide outputs (4 x 4 x 3): 8,622 - 3,570 + 1,136 = 6,188."""
    from calculators.memory.activations import ActivationLayout, saved_bytes_per_token_per_layer

    spec = spec_from_config(_TRACED)
    layout = ActivationLayout(**_LORA)
    assert saved_bytes_per_token_per_layer(spec, layout=layout, seq=7, layer=spec.layers[index]).total == traced


def test_lora_saved_activations_outside_and_in_the_first_layer_follow_the_trace() -> None:
    """Outside the layers the trace keeps 2,168 bytes per token with the adapters: the final norm's fp32 input and
    two fp32 values (4 x 64 + 8), the bf16 and fp32 logits (6 x 100) and the labels (8) are 872, the rest is AltUp's
    way out. Layer 0 saves 5,342, 1,072 fewer than layer 1 (6,414): nothing before its first adapter needs a
    gradient (1,352 bytes), while it is the first to save the per-layer inputs' bf16 storage (2 x 10 x 6) and a K and
    V (2 x 2 x 40), which the estimate counts in neither layer (as for full training)."""
    from calculators.memory.residual_augment import augmented_first_layer_frozen_bytes, augmented_model_saved_bytes

    spec = spec_from_config(_TRACED)
    assert augmented_model_saved_bytes(spec, compute_bytes=2, trainable_base=False) == 2168 - 872 == 1296
    assert augmented_first_layer_frozen_bytes(spec, compute_bytes=2) == 6414 - 5342 + 2 * 10 * 6 + 2 * 2 * 40 == 1352
