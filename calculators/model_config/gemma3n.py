"""Reader of Gemma 3n (``gemma3n_text``, and the whole ``gemma3n`` checkpoint with its image and audio towers).

The language model, as transformers 5.23 builds ``Gemma3nForCausalLM``:

* Gemma 3's attention (q, k, v and o without biases unless ``attention_bias``; q and k RMSNorms
  of head_dim; a v RMSNorm without weight), four RMSNorms around attention and MLP, a tied
  output head (``tie_word_embeddings``, default true), a logit soft cap (30);
* each layer's own MLP width (``intermediate_size``: one integer, or a list of one per layer);
* local and global layers (``layer_types``; by default every fifth layer global), local ones
  windowed to ``sliding_window`` tokens (512);
* AltUp, LAuReL and per-layer inputs around the residual stream
  (:class:`~calculators.model_residual.ResidualAugmentSpec`: ``altup_num_inputs``,
  ``laurel_rank``, ``hidden_size_per_layer_input``, ``vocab_size_per_layer_input``);
* KV sharing: the last ``num_kv_shared_layers`` layers have no k/v projections nor k norm and
  store no cache; each reads the K and V of the last earlier layer of its kind
  (``Gemma3nTextConfig.kv_sharing_modes``); every kind in the shared tail must appear before it;
* activation sparsity (``activation_sparsity_pattern``): a top-k of the gate's activations,
  which changes no shape.

The checkpoint (``gemma3n``) adds a MobileNet-v5 image encoder (timm's ``mobilenetv5_300m_enc``,
named by ``vision_config.architecture``, not spelled out in the config) and a USM-style
conformer audio encoder (``audio_config``), each with an embedder into the language model's
width (:class:`~calculators.model_towers.EncoderTowerSpec`).

>>> spec = read_gemma3n_text({"model_type": "gemma3n_text", "intermediate_size": 8192, "num_hidden_layers": 30,
...     "num_kv_shared_layers": 10}, "gemma3n_text", [])
>>> spec.parameters  # Gemma 3n E2B's language model: transformers 5.23 builds 4,435,182,688 on the meta device
4435182688
>>> spec.kv_cache_layers, spec.attention_layers  # 10 layers read earlier layers' KV
(20, 30)

References:
    transformers 5.23 ``models/gemma3n/configuration_gemma3n.py`` (defaults, ``kv_sharing_modes``) and
    ``modeling_gemma3n.py``; ``convert_gemma3n_weights.py`` (the E2B and E4B configurations);
    timm 1.0.31 ``models/mobilenetv5.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from calculators.errors import ConfigError
from calculators.model import ModelSpec
from calculators.model_config.common import build_layers, listed_attention_kinds, read_common
from calculators.model_config.keys import (
    MAX_HEADS,
    MAX_HIDDEN,
    MAX_LAYERS,
    MAX_TOKENS,
    MAX_VOCAB,
    MAX_WIDTH,
    read_bool,
    read_int,
    read_opt_float,
)
from calculators.model_config.layout import acknowledge, with_values
from calculators.model_layers import LayerSpec
from calculators.model_residual import ResidualAugmentSpec
from calculators.model_towers import EncoderTowerSpec

#: The language model's ``model_type`` this module reads (the checkpoint's ``gemma3n`` goes through
#: :func:`read_gemma3n_checkpoint`).
MODEL_TYPES = ("gemma3n_text",)

#: ``Gemma3nTextConfig``'s defaults (transformers 5.23; the E4B configuration) for keys a config leaves out.
TEXT_DEFAULTS: dict[str, Any] = {
    "hidden_size": 2048, "num_hidden_layers": 35, "num_attention_heads": 8, "num_key_value_heads": 2,
    "head_dim": 256, "intermediate_size": 16384, "vocab_size": 262400, "sliding_window": 512,
    "vocab_size_per_layer_input": 262144, "hidden_size_per_layer_input": 256, "altup_num_inputs": 4,
    "laurel_rank": 64, "num_kv_shared_layers": 15, "final_logit_softcapping": 30.0, "max_position_embeddings": 32768,
}
_GLOBAL_EVERY = 5  # Gemma3nTextConfig: layer i is full attention when (i + 1) % 5 == 0

#: timm's MobileNet-v5 encoders by ``vision_config.architecture``: parameters timm 1.0.31 builds (counted with
#: ``timm.create_model(name)``), the square input side the Gemma 3n processor resizes images to, and the side of
#: the token grid its multi-scale fusion adapter outputs.
MOBILENET_V5: dict[str, tuple[int, int, int]] = {"mobilenetv5_300m_enc": (294_126_912, 768, 16)}


def read_gemma3n_text(data: Mapping[str, Any], model_type: str, notes: list[str], *,
                      name: str | None = None) -> ModelSpec:
    """Read a ``gemma3n_text`` config (the language model of a Gemma 3n checkpoint)."""
    missing = {key: value for key, value in TEXT_DEFAULTS.items() if key not in data}
    layers = read_int(data, "num_hidden_layers", maximum=MAX_LAYERS, default=TEXT_DEFAULTS["num_hidden_layers"])
    widths = _widths(data, layers)
    data = with_values(data, {**missing, "intermediate_size": max(widths)})
    fields = read_common(data, model_type)
    fields["tie_word_embeddings"] = read_bool(data, "tie_word_embeddings", True)
    fields["final_logit_softcapping"] = read_opt_float(data, "final_logit_softcapping", 30.0)
    window = read_int(data, "sliding_window", maximum=MAX_TOKENS)
    kinds = listed_attention_kinds(data, layers) or [
        "full_attention" if (i + 1) % _GLOBAL_EVERY == 0 else "sliding_attention" for i in range(layers)]
    shared = _shared_layers(data, kinds)
    extras = ResidualAugmentSpec(
        altup_streams=read_int(data, "altup_num_inputs", maximum=64),
        laurel_rank=read_int(data, "laurel_rank", maximum=MAX_HIDDEN),
        per_layer_input_width=read_int(data, "hidden_size_per_layer_input", maximum=MAX_HIDDEN),
        per_layer_input_vocab=read_int(data, "vocab_size_per_layer_input", maximum=MAX_VOCAB),
    )
    read_int(data, "altup_active_idx", maximum=extras.altup_streams - 1, minimum=0, default=0)  # which stream: no shape
    # Training-time clamps, a learning-rate factor transformers ignores, the output scale (a weight built either
    # way), the top-k of the gate's activations and the attention's scale: none changes a shape.
    acknowledge(data, "altup_coef_clip", "altup_correct_scale", "altup_lr_multiplier", "query_pre_attn_scalar")
    sparse = _sparse_layers(data, layers)
    built = tuple(LayerSpec((kind,), "dense", width, kv_shared=i >= layers - shared, activation_sparsity=sparse[i])
                  for i, (kind, width) in enumerate(zip(kinds, widths, strict=True)))
    if missing:
        notes.append(f"config.json has no {', '.join(missing)}; used Gemma3nTextConfig's defaults (transformers "
                     f"5.23, the E4B values): {', '.join(f'{k}={v}' for k, v in missing.items())}")
    table = extras.table_parameters(layers=layers)
    notes.append(f"per-layer embedding table: {table:,} parameters ({extras.per_layer_input_vocab:,} rows x "
                 f"{layers} layers x {extras.per_layer_input_width}), counted in the weights and held in accelerator "
                 "memory as transformers does; a token reads one row, so Google's runtimes can keep it in CPU "
                 "memory or storage (per-layer embedding caching), which this estimate does not assume")
    if shared:
        notes.append(f"the last {shared} of {layers} layers reuse the K and V of earlier layers: "
                     f"{layers - shared} layers hold a KV cache")
    return ModelSpec(name=name or str(data.get("_name_or_path") or model_type), **{**fields, "qk_norm": True},
                     norms_per_layer=4, norm_weight_fp32=True,  # Gemma3nRMSNorm: normed.float() x weight.float()
                     sliding_window=window if "sliding_attention" in kinds else None,
                     layers=built, residual_augment=extras, notes=tuple(notes))


def _widths(data: Mapping[str, Any], layers: int) -> list[int]:
    """Each layer's MLP width: ``intermediate_size`` as one integer or a list of one per layer."""
    value = data.get("intermediate_size", TEXT_DEFAULTS["intermediate_size"])
    if isinstance(value, (list, tuple)):
        if len(value) != layers:
            raise ConfigError("intermediate_size", f"a list of {len(value)} widths",
                              f"one integer, or a list of {layers} (one per layer)")
        return [read_int({"intermediate_size": width}, "intermediate_size", maximum=MAX_WIDTH) for width in value]
    return [read_int(data, "intermediate_size", maximum=MAX_WIDTH, default=TEXT_DEFAULTS["intermediate_size"])] * layers


def _sparse_layers(data: Mapping[str, Any], layers: int) -> list[bool]:
    """Which layers' MLPs keep a top-k of their gate (``activation_sparsity_pattern``: one factor per layer, or one
    for all; by default ``Gemma3nTextConfig``'s, 0.95 on the first 10 layers of a model of more than 10)."""
    value = data.get("activation_sparsity_pattern")
    if value is None:
        return [i < 10 and layers > 10 for i in range(layers)]
    factors = value if isinstance(value, (list, tuple)) else [value] * layers
    if len(factors) != layers or not all(
            isinstance(f, (int, float)) and not isinstance(f, bool) and 0 <= f < 1 for f in factors):
        raise ConfigError("activation_sparsity_pattern", value if not isinstance(value, list) else
                          f"a list of {len(value)} items", f"{layers} factors from 0 to below 1 (one per layer)")
    return [f > 0 for f in factors]


def _shared_layers(data: Mapping[str, Any], kinds: list[str]) -> int:
    """How many trailing layers read an earlier layer's KV, checked as ``Gemma3nTextConfig.kv_sharing_modes`` does."""
    layers = len(kinds)
    shared = read_int(data, "num_kv_shared_layers", maximum=layers - 1, minimum=0)
    if shared and set(kinds[:layers - shared]) != set(kinds):
        raise ConfigError("num_kv_shared_layers", shared, "a count that leaves, before the shared layers, a layer "
                                                          "of every attention kind they use (whose KV they read)")
    return shared


def read_gemma3n_checkpoint(data: Mapping[str, Any], *, name: str | None,
                            text_reader: Any) -> ModelSpec:
    """A whole ``gemma3n`` checkpoint: its language model (read by ``text_reader``, the package's checked reading
    of a language-model config) and the image and audio towers with their embedders."""
    text = data.get("text_config")
    if not isinstance(text, dict):
        text = {}
    text = {**text, "model_type": "gemma3n_text"}
    if isinstance(data.get("tie_word_embeddings"), bool):  # Gemma3nForConditionalGeneration ties by the outer flag
        text["tie_word_embeddings"] = data["tie_word_embeddings"]
    spec: ModelSpec = text_reader(text, name=name or _name(data))
    towers: list[EncoderTowerSpec] = []
    vision = data.get("vision_config")
    if isinstance(vision, dict) and vision:
        towers.append(_vision_tower(data, vision, spec.hidden_size))
    audio = data.get("audio_config")
    if isinstance(audio, dict) and audio:
        towers.append(_audio_tower(data, audio, spec.hidden_size))
    notes = tuple(tower.describe() + "; counted in the weights, run once per item" for tower in towers)
    if any(t.modality == "audio" for t in towers):
        notes += ("the audio encoder makes about 6.25 tokens per second of audio (10 ms mel frames, two stride-2 "
                  "convolutions, every fourth frame kept); the processor pads each clip's tokens to "
                  f"{towers[-1].tokens_per_item}",)
    notes += ("images and audio in the prompt are not sized by this guide's inputs for Gemma 3n: add their tokens "
              "to the context",)
    return replace(spec, towers=tuple(towers), notes=spec.notes + notes)


def _name(data: Mapping[str, Any]) -> str | None:
    value = data.get("_name_or_path")
    return str(value) if value else None


def _sub_int(config: Mapping[str, Any], section: str, key: str, *, default: int, maximum: int = MAX_HIDDEN) -> int:
    try:
        return read_int(config, key, maximum=maximum, default=default)
    except ConfigError as error:
        raise ConfigError(f"{section}.{key}", config.get(key), error.accepted) from None


def _embedder(width: int, vocab: int, text_hidden: int) -> int:
    """``Gemma3nMultimodalEmbedder``: a ``vocab x width`` table of hard tokens, two RMSNorms of width, a
    width -> text projection and an RMSNorm without weight."""
    return vocab * width + 2 * width + width * text_hidden


def _vision_tower(data: Mapping[str, Any], vision: Mapping[str, Any], text_hidden: int) -> EncoderTowerSpec:
    architecture = vision.get("architecture", "mobilenetv5_300m_enc")
    if architecture not in MOBILENET_V5:
        raise ConfigError("vision_config.architecture", architecture, f"one of: {', '.join(MOBILENET_V5)}")
    if vision.get("model_args"):
        raise ConfigError("vision_config.model_args", vision.get("model_args"),
                          "null (arguments that resize timm's encoder are not modelled)")
    encoder, side, grid = MOBILENET_V5[str(architecture)]
    width = _sub_int(vision, "vision_config", "hidden_size", default=2048)
    tokens = read_int(data, "vision_soft_tokens_per_image", maximum=MAX_TOKENS, default=256)
    if tokens != grid * grid:
        raise ConfigError("vision_soft_tokens_per_image", tokens, f"{grid * grid}, the {grid} x {grid} grid "
                                                                  f"{architecture} outputs")
    return EncoderTowerSpec(modality="image", family=f"mobilenet-v5 ({architecture})", encoder_parameters=encoder,
                            projector_parameters=_embedder(width, _sub_int(vision, "vision_config", "vocab_size",
                                                                           default=128, maximum=MAX_VOCAB),
                                                           text_hidden),
                            tokens_per_item=tokens, item=f"image ({side} x {side} px)")


def _audio_tower(data: Mapping[str, Any], audio: Mapping[str, Any], text_hidden: int) -> EncoderTowerSpec:
    """``Gemma3nAudioEncoder``: a two-convolution subsampler, then conformer blocks (two half-step feed-forwards of
    4 x width, chunked local attention with relative positions, a light depthwise convolution), no biases."""
    h = _sub_int(audio, "audio_config", "hidden_size", default=1536)
    heads = _sub_int(audio, "audio_config", "conf_num_attention_heads", default=8, maximum=MAX_HEADS)
    if h % heads:
        raise ConfigError("audio_config.conf_num_attention_heads", heads, f"a divisor of hidden_size ({h})")
    blocks = _sub_int(audio, "audio_config", "conf_num_hidden_layers", default=12, maximum=MAX_LAYERS)
    kernel = _sub_int(audio, "audio_config", "conf_conv_kernel_size", default=5, maximum=MAX_TOKENS)
    features = _sub_int(audio, "audio_config", "input_feat_size", default=128)
    channels, kernels, strides = _subsampler(audio)
    # Two Conv2d without bias, each followed by a cumulative group norm (one weight per channel); the frequency
    # axis is padded by 1 on each side before each convolution; then a linear from channels x frequencies.
    conv = 0
    inputs, freq = 1, features
    for out, (kh, kw), (_sh, sw) in zip(channels, kernels, strides, strict=True):
        conv += out * inputs * kh * kw + out
        inputs, freq = out, (freq + 2 - kw) // sw + 1
    subsampler = conv + channels[-1] * freq * h
    # Per block: two feed-forwards (8 h^2 + 2 norms each), attention (q, k, v, relative-position and output
    # projections, pre and post norms, a per-dimension scale of head_dim), the light conv (h -> 2h, a depthwise
    # kernel, h -> h, two norms), and the block's final norm.
    block = 2 * (8 * h * h + 2 * h) + (5 * h * h + 2 * h + h // heads) + (3 * h * h + h * kernel + 2 * h) + h
    tokens = read_int(data, "audio_soft_tokens_per_image", maximum=MAX_TOKENS, default=188)
    return EncoderTowerSpec(modality="audio", family="usm-conformer", encoder_parameters=subsampler + blocks * block,
                            projector_parameters=_embedder(h, _sub_int(audio, "audio_config", "vocab_size",
                                                                       default=128, maximum=MAX_VOCAB), text_hidden),
                            tokens_per_item=tokens, item="audio clip (of up to 30 s)")


def _subsampler(audio: Mapping[str, Any]) -> tuple[list[int], list[tuple[int, int]], list[tuple[int, int]]]:
    """The subsampler's two convolutions: output channels, kernel and stride (time, frequency) of each."""
    channels = audio.get("sscp_conv_channel_size", [128, 32])
    kernels = audio.get("sscp_conv_kernel_size", [[3, 3], [3, 3]])
    strides = audio.get("sscp_conv_stride_size", [[2, 2], [2, 2]])

    def pairs(key: str, value: Any) -> list[tuple[int, int]]:
        if not (isinstance(value, (list, tuple)) and len(value) == 2 and all(
                isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(x, int) and 0 < x <= 64 for x in p)
                for p in value)):
            raise ConfigError(f"audio_config.{key}", value, "two [time, frequency] pairs of integers from 1 to 64")
        return [(int(p[0]), int(p[1])) for p in value]

    if not (isinstance(channels, (list, tuple)) and len(channels) == 2
            and all(isinstance(c, int) and 0 < c <= MAX_HIDDEN for c in channels)):
        raise ConfigError("audio_config.sscp_conv_channel_size", channels, "two channel counts (integers)")
    return [int(c) for c in channels], pairs("sscp_conv_kernel_size", kernels), pairs("sscp_conv_stride_size", strides)
