"""Catalog records: Gemma 3n E2B and E4B, as their language model alone and as the whole checkpoint.

The configuration values are those transformers converted Google's checkpoints with: the E2B and
E4B entries of ``_VARIANTS`` in ``models/gemma3n/convert_gemma3n_weights.py`` (E2B: MLP 2048 x 4, 30
layers, the first 10 with activation sparsity 0.95, 10 KV-shared; E4B: ``Gemma3nTextConfig``'s
defaults, whose docstring names google/gemma-3n-E4B), the rest the configuration classes' defaults
(transformers 5.23). The published totals are KerasHub's preset metadata, which its conversion
script compares with the Hugging Face model's ``named_parameters`` (tied head counted once).
"""

from __future__ import annotations

from typing import Any

from calculators.catalog.model_record import (
    READ_ON_2026_MORE,
    TRANSFORMERS_DEFAULTS,
    ModelRecord,
    Published,
    config_source,
    keras_source,
    record,
)

_D = READ_ON_2026_MORE
_SOURCE = ("the {variant} entry of _VARIANTS in transformers' models/gemma3n/convert_gemma3n_weights.py (the "
           "configuration Google's checkpoint was converted with), every other value "
           + TRANSFORMERS_DEFAULTS.format("Gemma3nTextConfig, Gemma3nVisionConfig and Gemma3nAudioConfig", "gemma3n"))

#: Keys every Gemma 3n language model shares (Gemma3nTextConfig's defaults).
_TEXT: dict[str, Any] = {
    "model_type": "gemma3n_text", "hidden_size": 2048, "num_attention_heads": 8, "num_key_value_heads": 2,
    "head_dim": 256, "vocab_size": 262400, "vocab_size_per_layer_input": 262144, "hidden_size_per_layer_input": 256,
    "altup_num_inputs": 4, "altup_active_idx": 0, "altup_coef_clip": 120.0, "altup_correct_scale": True,
    "laurel_rank": 64, "sliding_window": 512, "max_position_embeddings": 32768, "final_logit_softcapping": 30.0,
    "hidden_activation": "gelu_pytorch_tanh", "rms_norm_eps": 1e-06, "attention_bias": False,
    "tie_word_embeddings": True,
}
_VISION: dict[str, Any] = {"model_type": "gemma3n_vision", "architecture": "mobilenetv5_300m_enc", "hidden_size": 2048,
                           "vocab_size": 128, "vocab_offset": 262144, "rms_norm_eps": 1e-06}
_AUDIO: dict[str, Any] = {
    "model_type": "gemma3n_audio", "hidden_size": 1536, "input_feat_size": 128, "vocab_size": 128,
    "vocab_offset": 262272, "conf_num_hidden_layers": 12, "conf_num_attention_heads": 8, "conf_conv_kernel_size": 5,
    "conf_attention_chunk_size": 12, "conf_attention_context_left": 13, "conf_attention_context_right": 0,
    "conf_reduction_factor": 4, "sscp_conv_channel_size": [128, 32], "sscp_conv_kernel_size": [[3, 3], [3, 3]],
    "sscp_conv_stride_size": [[2, 2], [2, 2]], "rms_norm_eps": 1e-06,
}
#: What the checkpoint stores for each KV-shared layer that transformers 5.23 does not build (it skips them on load,
#: Gemma3nTextModel._keys_to_ignore_on_load_unexpected): k_proj and v_proj (2048 x 512 each) and k_norm (256).
SHARED_KV_STORED = 2 * 2048 * 512 + 256
#: KerasHub's MobileNet-v5 has this many parameters more than timm's: its mobilenetv5_300m_enc_gemma3n preset lists
#: 294,284,096 where timm 1.0.31 builds 294,126,912.
KERASHUB_MOBILENET_EXTRA = 294_284_096 - 294_126_912
#: The image tower and embedder (298,587,456) and the audio tower and embedder (684,694,048), as transformers builds
#: them (tests/engine/test_gemma3n.py derives both).
TOWERS = 298_587_456 + 684_694_048

_NOTE = (
    "Gemma 3n: each layer carries AltUp (4 copies of the hidden state mixed by small learned coefficients), a "
    "LAuReL low-rank residual (rank 64) and a per-layer input (256 values per layer and token, from a "
    "262,144-row table), its own MLP width, a 512-token window on four layers of five, and the last "
    "num_kv_shared_layers layers reuse the K and V of earlier layers (no k/v projections, no cache of their own)."
)
_PUBLISHED_NOTE = (
    "KerasHub's total counts, beyond transformers 5.23's Gemma3nForConditionalGeneration, the k_proj, v_proj and "
    "k_norm the checkpoint stores for the KV-shared layers (2,097,408 each; transformers skips them on load) and "
    "157,184 more in its MobileNet-v5 than timm builds (its own mobilenetv5_300m_enc_gemma3n preset lists "
    "294,284,096, timm 294,126,912): published_extra_elements."
)


def _text(layers: int, width: int, shared: int) -> dict[str, Any]:
    return {**_TEXT, "num_hidden_layers": layers, "intermediate_size": [width] * layers,
            "num_kv_shared_layers": shared,
            "layer_types": ["full_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(layers)],
            "activation_sparsity_pattern": [0.95] * 10 + [0.0] * (layers - 10)}


def _records(size: str, layers: int, width: int, shared: int, published: int) -> tuple[ModelRecord, ModelRecord]:
    # The instruction-tuned repository for the language model, the pretrained one for the whole checkpoint: the
    # same shapes (KerasHub lists the same total for its gemma3n_{size} and gemma3n_{size}_it presets).
    repo, repo_it, preset = f"google/gemma-3n-{size}", f"google/gemma-3n-{size}-it", f"gemma3n_{size.lower()}"
    text = _text(layers, width, shared)
    variant = _SOURCE.format(variant=f"gemma3n_{size.lower()}")
    source, source_it = config_source(repo, variant, as_of=_D), config_source(repo_it, variant, as_of=_D)
    published_source = keras_source(preset, "gemma3n", sibling_of=repo, as_of=_D)
    published_source_it = keras_source(f"{preset}_it", "gemma3n", sibling_of=repo_it, as_of=_D)
    stored = shared * SHARED_KV_STORED + KERASHUB_MOBILENET_EXTRA
    language = record(
        f"gemma-3n-{size.lower()}", f"Gemma 3n {size}", repo_it, "gemma", text, source_it,
        Published(published, published_source_it, extra=TOWERS + stored),
        notes=(_NOTE, "The language model alone (Gemma3nForCausalLM); the whole checkpoint, with its image and "
                      f"audio towers (983,281,504 elements with their embedders), is the catalog's "
                      f"gemma-3n-{size.lower()}-multimodal record: published_extra_elements adds the towers to what "
                      "that record's note explains.", _PUBLISHED_NOTE),
    )
    whole = record(
        f"gemma-3n-{size.lower()}-multimodal", f"Gemma 3n {size} with image and audio", repo, "gemma",
        {"model_type": "gemma3n", "text_config": text, "vision_config": _VISION, "audio_config": _AUDIO,
         "vision_soft_tokens_per_image": 256, "audio_soft_tokens_per_image": 188, "tie_word_embeddings": True},
        source, Published(published, published_source, extra=stored),
        notes=(_NOTE, "The whole checkpoint: the language model, a MobileNet-v5 image encoder (timm's "
                      "mobilenetv5_300m_enc: a 768 x 768 image becomes 256 tokens) and a 12-block conformer audio "
                      "encoder (a clip of up to 30 s becomes 188 tokens), each with an embedder into the language "
                      "model's width.", _PUBLISHED_NOTE),
    )
    return language, whole


_E2B = _records("E2B", 30, 8192, 10, 5_439_595_456)
_E4B = _records("E4B", 35, 16384, 15, 7_850_135_376)
RECORDS: tuple[ModelRecord, ...] = (_E2B[0], _E4B[0], _E2B[1], _E4B[1])
