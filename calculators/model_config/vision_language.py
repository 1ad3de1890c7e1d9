"""Readers of vision-language configs: the language model's keys and the vision tower's shapes.

A vision-language ``config.json`` holds the language model (under ``text_config``, or at the
top level for Qwen2.5-VL) and a ``vision_config``; the projector's shape comes from both.
:func:`split_vision_language` returns the language model's keys, to be read by its
family's reader, and a :class:`~calculators.model_vision.VisionEncoderSpec`.

Families (transformers 5.23 modules):

* ``gemma3``: SigLIP encoder (LayerNorm, biased attention and GELU MLP, learned positions,
  post LayerNorm), projector = an RMSNorm of the vision width and one vision x text matrix;
  every image becomes ``mm_tokens_per_image`` tokens (4 x 4 average pooling of the patches).
* ``mistral3``: Pixtral encoder (RMSNorm, no biases, gated MLP, 2-D rotary positions,
  ``ln_pre``), projector = RMSNorm, a 2 x 2 patch merger (``spatial_merge_size``) and two
  linears; an image of the largest side (``image_size``) is ``(side / patch / merge)^2``
  tokens plus one break token per row.
* ``mllama`` (Llama 3.2 Vision): a tiled encoder (up to ``max_num_tiles`` tiles of
  ``image_size`` pixels, each ``(image_size / patch)^2`` patches and a class token) with
  gated position and tile embeddings and a second, gated "global" encoder; the language
  model puts one ``<|image|>`` token in the prompt and has cross-attention layers
  (``cross_attention_layers``) that attend to the projected vision tokens: their K and V are
  held once per image, whatever the text context.
* ``qwen2_5_vl`` / ``qwen3_vl`` / ``qwen3_vl_moe``: dynamic resolution: an image is cut into
  14- (16-) pixel patches of two frames, merged 2 x 2, so a square image of side S becomes
  ``round(S / (patch x merge))^2`` tokens; the image side is an input of the calculators
  (:data:`calculators.model_vision.DEFAULT_IMAGE_SIDE_PX` by default, stated in the answer).

>>> text, tower, notes = split_vision_language({"model_type": "gemma3", "mm_tokens_per_image": 256,
...     "text_config": {"model_type": "gemma3_text", "hidden_size": 2560},
...     "vision_config": {"hidden_size": 1152, "num_hidden_layers": 27, "intermediate_size": 4304,
...                       "image_size": 896, "patch_size": 14, "vision_use_head": False}})
>>> text["model_type"], tower.tokens_per_image(), tower.parameters  # Gemma 3 4B's tower and projector
('gemma3_text', 256, 419816304)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from dataclasses import replace

from calculators.errors import ConfigError
from calculators.model import ModelSpec
from calculators.model_config.classic import read_classic
from calculators.model_config.keys import (
    MAX_HIDDEN,
    MAX_LAYERS,
    MAX_TOKENS,
    MAX_WIDTH,
    read_bool,
    read_int,
    read_int_list,
)
from calculators.model_layers import LayerSpec
from calculators.model_vision import VisionEncoderSpec

MAX_IMAGE_SIDE_PX = 16384

#: Vision-language ``model_type`` -> the ``model_type`` whose rules read its language model.
TEXT_MODEL_TYPES = {
    "gemma3": "gemma3_text", "mistral3": "mistral", "qwen2_5_vl": "qwen2", "qwen3_vl": "qwen3",
    "qwen3_vl_moe": "qwen3_moe", "mllama": "mllama_text_model", "llama4": "llama4_text",
}
#: The language models' own ``model_type`` names, read with the rules of the family they copy.
TEXT_ALIASES = {"qwen2_5_vl_text": "qwen2", "qwen3_vl_text": "qwen3", "qwen3_vl_moe_text": "qwen3_moe"}


def split_vision_language(data: Mapping[str, Any]) -> tuple[dict[str, Any], VisionEncoderSpec, list[str]]:
    """The language model's keys, the vision tower, and notes, for a config of one of :data:`TEXT_MODEL_TYPES`."""
    model_type = str(data["model_type"])
    vision = data.get("vision_config")
    if not isinstance(vision, dict) or not vision:
        raise ConfigError("vision_config", vision, f"the vision tower's keys (a {model_type} config has them)")
    text_config = data.get("text_config")
    if isinstance(text_config, dict) and text_config:
        text = dict(text_config)
    else:  # Qwen2.5-VL keeps the language model's keys at the top level, beside the tower's token ids
        text = {key: value for key, value in data.items()
                if key not in ("vision_config", "text_config") and not key.startswith("vision_")}
    text["model_type"] = TEXT_MODEL_TYPES[model_type]
    if isinstance(data.get("tie_word_embeddings"), bool):
        # transformers 5.23 ties the output head by the outer config's flag (built on the meta device: Qwen3-VL-MoE's
        # defaults, outer false and text true, give an untied head).
        text["tie_word_embeddings"] = data["tie_word_embeddings"]
    tower, notes = _READERS[model_type](data, vision, text)
    return text, tower, notes


def _vision_int(vision: Mapping[str, Any], key: str, *, default: int | None = None, maximum: int = MAX_HIDDEN) -> int:
    try:
        return read_int(vision, key, maximum=maximum, default=default)
    except ConfigError as error:
        raise ConfigError(f"vision_config.{key}", vision.get(key), error.accepted) from None


def _text_hidden(text: Mapping[str, Any]) -> int:
    return read_int(text, "hidden_size", maximum=MAX_HIDDEN)


def _gemma3(data: Mapping[str, Any], vision: Mapping[str, Any],
            text: Mapping[str, Any]) -> tuple[VisionEncoderSpec, list[str]]:
    h = _vision_int(vision, "hidden_size")
    patch = _vision_int(vision, "patch_size", maximum=MAX_TOKENS)
    image = _vision_int(vision, "image_size", maximum=MAX_IMAGE_SIDE_PX)
    tokens = read_int(data, "mm_tokens_per_image", maximum=MAX_TOKENS, default=256)
    patches = (image // patch) ** 2
    width = _vision_int(vision, "intermediate_size", maximum=MAX_WIDTH)
    # SigLIP's attention-pooling head (a probe, one multi-head attention, a LayerNorm, an MLP), when the
    # config keeps it (SiglipVisionConfig.vision_use_head; Gemma 3's checkpoints set it false).
    head = (h + 4 * h * h + 4 * h + 2 * h + 2 * h * width + width + h) if read_bool(vision, "vision_use_head",
                                                                                   True) else 0
    tower = VisionEncoderSpec(
        family="siglip", hidden_size=h, num_layers=_vision_int(vision, "num_hidden_layers", maximum=MAX_LAYERS),
        intermediate_size=width,
        patch_pixels=_vision_int(vision, "num_channels", default=3, maximum=16) * patch * patch, patch_bias=True,
        position_embeddings=patches, norm_bias=True, attention_bias=True, mlp_gated=False, mlp_bias=True,
        post_norm=True,
        # mm_soft_emb_norm and mm_input_projection_weight (and the SigLIP head, counted with the projector)
        projector_parameters=h + h * _text_hidden(text) + head,
        patch_size=patch, image_side_px=image, fixed_tokens=tokens,
    )
    return tower, [f"every image is resized to {image} px and becomes {tokens} tokens (Gemma 3 pools its "
                   f"{patches} patches 4 x 4)"]


def _mistral3(data: Mapping[str, Any], vision: Mapping[str, Any],
              text: Mapping[str, Any]) -> tuple[VisionEncoderSpec, list[str]]:
    h = _vision_int(vision, "hidden_size")
    patch = _vision_int(vision, "patch_size", maximum=MAX_TOKENS)
    image = _vision_int(vision, "image_size", maximum=MAX_IMAGE_SIDE_PX)
    merge = read_int(data, "spatial_merge_size", maximum=16, default=2)
    bias = read_bool(data, "multimodal_projector_bias", False)
    text_h = _text_hidden(text)
    rows = image // patch // merge
    projector = h + h * merge * merge * h + (h * text_h + (text_h if bias else 0)) + (
        text_h * text_h + (text_h if bias else 0))
    tower = VisionEncoderSpec(
        family="pixtral", hidden_size=h, num_layers=_vision_int(vision, "num_hidden_layers", maximum=MAX_LAYERS),
        intermediate_size=_vision_int(vision, "intermediate_size", maximum=MAX_WIDTH),
        patch_pixels=_vision_int(vision, "num_channels", default=3, maximum=16) * patch * patch, patch_bias=False,
        position_embeddings=0, norm_bias=False, attention_bias=False, mlp_gated=True, mlp_bias=False, pre_norm=True,
        projector_parameters=projector, patch_size=patch, merge=merge, image_side_px=image,
        row_break_tokens=True,
    )
    return tower, [f"images are taken up to {image} px a side (then {rows} x {rows} merged patches and {rows} "
                   "row-break tokens); the image side is an input"]


def _qwen_vl(data: Mapping[str, Any], vision: Mapping[str, Any],
             text: Mapping[str, Any]) -> tuple[VisionEncoderSpec, list[str]]:
    qwen3 = str(data["model_type"]).startswith("qwen3")
    h = _vision_int(vision, "hidden_size")
    patch = _vision_int(vision, "patch_size", maximum=MAX_TOKENS, default=16 if qwen3 else 14)
    merge = _vision_int(vision, "spatial_merge_size", maximum=16, default=2)
    frames = _vision_int(vision, "temporal_patch_size", maximum=16, default=2)
    out = _vision_int(vision, "out_hidden_size", default=_text_hidden(text))
    merged = h * merge * merge
    # One merger: its norm, a merged x merged linear and a merged x out linear, both biased.
    merger = merged * merged + merged + merged * out + out
    if qwen3:
        deepstack = len(vision.get("deepstack_visual_indexes") or ())
        # The main merger normalises the vision width, each deepstack merger the merged width (LayerNorms).
        projector = merger + 2 * h + deepstack * (merger + 2 * merged)
        positions = _vision_int(vision, "num_position_embeddings", maximum=MAX_TOKENS, default=2304)
    else:
        projector = merger + h  # ln_q is an RMSNorm of the vision width
        positions = 0
        _vision_int(vision, "window_size", maximum=MAX_IMAGE_SIDE_PX, default=112)  # window attention: no shape
    tower = VisionEncoderSpec(
        family="qwen3-vl" if qwen3 else "qwen2.5-vl", hidden_size=h,
        num_layers=_vision_int(vision, "depth", maximum=MAX_LAYERS),
        intermediate_size=_vision_int(vision, "intermediate_size", maximum=MAX_WIDTH),
        patch_pixels=_vision_int(vision, "in_channels", default=3, maximum=16) * frames * patch * patch,
        patch_bias=qwen3, position_embeddings=positions, norm_bias=qwen3, attention_bias=True, mlp_gated=not qwen3,
        mlp_bias=True, projector_parameters=projector, patch_size=patch, merge=merge,
    )
    return tower, [f"dynamic resolution: an image becomes one token per {patch * merge} x {patch * merge} px "
                   "(merged patches); the image side is an input"]


def _mllama(data: Mapping[str, Any], vision: Mapping[str, Any],
            text: Mapping[str, Any]) -> tuple[VisionEncoderSpec, list[str]]:
    h = _vision_int(vision, "hidden_size")
    patch = _vision_int(vision, "patch_size", maximum=MAX_TOKENS)
    image = _vision_int(vision, "image_size", maximum=MAX_IMAGE_SIDE_PX)
    tiles = _vision_int(vision, "max_num_tiles", maximum=64, default=4)
    width = _vision_int(vision, "intermediate_size", maximum=MAX_WIDTH)
    ratios = vision.get("supported_aspect_ratios")
    if not isinstance(ratios, list) or not ratios or len(ratios) > 1024:
        raise ConfigError("vision_config.supported_aspect_ratios", ratios, "a list of [rows, columns] tile layouts")
    aspect_ids = len(ratios) + 1  # MllamaVisionConfig.max_aspect_ratio_id + 1 embedding rows
    patches = (image // patch) ** 2 + 1  # and the class token
    layer = 4 * h + 4 * h * h + 2 * h * width + width + h  # two LayerNorms, q/k/v/o, a biased fc1/fc2 MLP
    extra = (h  # class embedding
             + 1 + patches * h + aspect_ids * tiles * patches * h  # gated position and tile-position embeddings
             + 2 * (aspect_ids * tiles * h + 1)  # gated pre- and post-tile embeddings
             + _vision_int(vision, "num_global_layers", maximum=MAX_LAYERS, default=8) * (layer + 2))
    out = _vision_int(vision, "vision_output_dim", maximum=MAX_WIDTH, default=7680)
    text_h = _text_hidden(text)
    tower = VisionEncoderSpec(
        family="mllama", hidden_size=h, num_layers=_vision_int(vision, "num_hidden_layers", maximum=MAX_LAYERS),
        intermediate_size=width,
        patch_pixels=_vision_int(vision, "num_channels", default=3, maximum=16) * patch * patch, patch_bias=False,
        position_embeddings=0, norm_bias=True, attention_bias=False, mlp_gated=False, mlp_bias=True, pre_norm=True,
        post_norm=True, projector_parameters=out * text_h + text_h, patch_size=patch, image_side_px=image,
        fixed_tokens=1, tiles=tiles, class_token=True, extra_parameters=extra,
    )
    return tower, [f"an image is cut into up to {tiles} tiles of {image} px; the prompt holds one <|image|> token "
                   f"and the cross-attention layers hold K and V of {tiles * patches} vision tokens per image"]


def _llama4(data: Mapping[str, Any], vision: Mapping[str, Any],
            text: Mapping[str, Any]) -> tuple[VisionEncoderSpec, list[str]]:
    h = _vision_int(vision, "hidden_size")
    patch = _vision_int(vision, "patch_size", maximum=MAX_TOKENS)
    image = _vision_int(vision, "image_size", maximum=MAX_IMAGE_SIDE_PX)
    width = _vision_int(vision, "intermediate_size", maximum=MAX_WIDTH)
    ratio = vision.get("pixel_shuffle_ratio", 0.5)
    if ratio not in (0.5, 0.25):
        raise ConfigError("vision_config.pixel_shuffle_ratio", ratio, "0.5 or 0.25 (a 2 x 2 or 4 x 4 pixel shuffle)")
    projector_in = _vision_int(vision, "projector_input_dim", maximum=MAX_WIDTH)
    projector_out = _vision_int(vision, "projector_output_dim", maximum=MAX_WIDTH)
    out = _vision_int(vision, "vision_output_dim", maximum=MAX_WIDTH)
    if read_bool(vision, "multi_modal_projector_bias", False):
        raise ConfigError("vision_config.multi_modal_projector_bias", True, "false (Llama4MultiModalProjector has none)")
    patches = (image // patch) ** 2 + 1
    # Llama4VisionModel: class and position embeddings; its pixel-shuffle adapter (fc1: intermediate_size ->
    # projector_input_dim, fc2: projector_output_dim squared, no biases); then the projector into the text width.
    extra = h + patches * h + width * projector_in + projector_out * projector_out
    tower = VisionEncoderSpec(
        family="llama4", hidden_size=h, num_layers=_vision_int(vision, "num_hidden_layers", maximum=MAX_LAYERS),
        intermediate_size=width,
        patch_pixels=_vision_int(vision, "num_channels", default=3, maximum=16) * patch * patch, patch_bias=False,
        position_embeddings=0, norm_bias=True, attention_bias=True, mlp_gated=False, mlp_bias=True, pre_norm=True,
        post_norm=True, projector_parameters=out * _text_hidden(text), patch_size=patch, merge=round(1 / ratio),
        image_side_px=image, tiles=16, tiled=True, class_token=True, extra_parameters=extra,
    )
    per_tile = (image // patch * ratio) ** 2
    return tower, [f"an image is cut into tiles of {image} px (up to 16, and a global view when more than one), "
                   f"{per_tile:.0f} tokens each after the pixel shuffle"]


def read_mllama_text(data: Mapping[str, Any], model_type: str, notes: list[str], *,
                     name: str | None = None) -> ModelSpec:
    """Llama 3.2 Vision's language model: Llama layers, cross-attention layers at ``cross_attention_layers``
    (each a gated cross-attention block with q/k RMSNorms and a gated MLP), and 8 extra embedding rows."""
    layers = read_int(data, "num_hidden_layers", maximum=MAX_LAYERS)
    cross = set(read_int_list(data, "cross_attention_layers", maximum=layers - 1))
    spec = read_classic(data, "llama", notes, name=name)
    kinds = tuple(LayerSpec(("cross_attention",), "dense") if i in cross else layer
                  for i, layer in enumerate(spec.layers))
    return replace(spec, model_type=model_type, layers=kinds, embedding_rows=spec.vocab_size + 8)


_READERS: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]],
                             tuple[VisionEncoderSpec, list[str]]]] = {
    "gemma3": _gemma3, "mistral3": _mistral3, "qwen2_5_vl": _qwen_vl, "qwen3_vl": _qwen_vl, "qwen3_vl_moe": _qwen_vl,
    "mllama": _mllama, "llama4": _llama4,
}
