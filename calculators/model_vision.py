"""The vision tower of a vision-language model: its parameters and the tokens an image becomes.

A vision-language checkpoint (Gemma 3, Mistral Small 3.x, Qwen2.5-VL, Qwen3-VL) holds a ViT
encoder and a projector beside the language model. The encoder cuts an image into patches
(its sequence), runs them through its layers, and the projector turns them into tokens of
the language model's width, often fewer (pooled, or merged 2 x 2), which then sit in the
prompt like text tokens: they take KV cache and prefill compute.

:class:`VisionEncoderSpec` holds the shapes that decide the tower's parameters; each
family's reader (:mod:`calculators.model_config.vision_language`) fills it from the
``vision_config`` and computes the projector, which differs by family.

>>> tower = VisionEncoderSpec(family="siglip", hidden_size=1152, num_layers=27, intermediate_size=4304,
...     patch_size=14, patch_pixels=3 * 14 * 14, patch_bias=True, position_embeddings=(896 // 14) ** 2,
...     norm_bias=True, attention_bias=True, mlp_gated=False, mlp_bias=True, post_norm=True,
...     projector_parameters=0, image_side_px=896, fixed_tokens=256)
>>> tower.encoder_parameters  # SigLIP So400m/14 at 896 px, no head (Gemma 3's tower)
416866032
>>> tower.tokens_per_image(), tower.encoder_tokens_per_image()  # whatever the image, resized to 896 px
(256, 4096)

References:
    transformers 5.23 ``models/siglip/modeling_siglip.py``, ``models/pixtral/modeling_pixtral.py``,
    ``models/qwen2_5_vl/modeling_qwen2_5_vl.py``, ``models/qwen3_vl/modeling_qwen3_vl.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The image side a tower is sized for when the reader gives none, pixels (a 1-megapixel square).
DEFAULT_IMAGE_SIDE_PX = 1024


@dataclass(frozen=True)
class VisionEncoderSpec:
    """A ViT encoder and its projector into the language model.

    Attributes:
        family: the tower's kind (``"siglip"``, ``"pixtral"``, ``"qwen2.5-vl"``, ``"qwen3-vl"``).
        hidden_size: the encoder's width.
        num_layers: encoder layers.
        intermediate_size: the encoder MLP's width.
        patch_pixels: inputs of the patch embedding per output channel
            (channels x patch height x patch width x frames per patch).
        patch_bias: a bias on the patch embedding.
        position_embeddings: learned position embeddings (0 with rotary positions).
        norm_bias: LayerNorm with bias (True) or RMSNorm (False).
        attention_bias: biases on q, k, v and the output projection.
        mlp_gated: a gated MLP (gate, up, down) or a plain one (fc1, fc2).
        mlp_bias: biases on the MLP's projections.
        pre_norm: a norm before the first layer (Pixtral's ``ln_pre``).
        post_norm: a norm after the last layer.
        projector_parameters: the projector's parameters (the family's reader computes them).
        patch_size: pixels on a patch's side.
        merge: patches merged per side into one language-model token (Qwen-VL, Pixtral: 2).
        image_side_px: the side every image is resized to (Gemma 3), or the largest side
            (Pixtral); ``None`` for dynamic resolution (Qwen-VL), whose tokens follow the image.
        fixed_tokens: language-model tokens per image whatever its size (Gemma 3 pools to 256;
            Llama 3.2 Vision puts one ``<|image|>`` token in the prompt and cross-attends to the rest).
        row_break_tokens: one extra token per row of merged patches (Pixtral's ``[IMG_BREAK]``).
        tiles: tiles an image is cut into, each encoded at ``image_side_px`` (Llama 3.2 Vision: up to 4;
            Llama 4: up to 16, plus a global view when there is more than one).
        tiled: an image is cut into as many tiles of ``image_side_px`` as its side needs, up to
            ``tiles``, plus one global tile when it takes more than one (Llama 4); each tile
            becomes ``(side / patch / merge)^2`` tokens.
        class_token: each tile's sequence starts with a class token.
        extra_parameters: parameters outside the layout above (Llama 3.2 Vision's tile and gated
            position embeddings and its gated global layers), counted by the family's reader.
    """

    family: str
    hidden_size: int
    num_layers: int
    intermediate_size: int
    patch_pixels: int
    patch_bias: bool
    position_embeddings: int
    norm_bias: bool
    attention_bias: bool
    mlp_gated: bool
    mlp_bias: bool
    projector_parameters: int
    patch_size: int
    merge: int = 1
    pre_norm: bool = False
    post_norm: bool = False
    image_side_px: int | None = None
    fixed_tokens: int | None = None
    row_break_tokens: bool = False
    tiles: int = 1
    tiled: bool = False
    class_token: bool = False
    extra_parameters: int = 0

    def side_px(self, requested: int) -> int:
        """The side the tower sees for a square image of ``requested`` pixels (resized or capped)."""
        if self.fixed_tokens is not None and self.image_side_px is not None:
            return self.image_side_px  # every image is resized to it
        if self.image_side_px is not None:
            return min(requested, self.image_side_px)  # the largest side it takes
        return requested

    def _grid(self, requested: int) -> int:
        """Merged patches per side: ``round(side / (patch x merge))``, at least 1 (Qwen-VL's smart resize)."""
        return max(1, round(self.side_px(requested) / (self.patch_size * self.merge)))

    def tiles_for(self, requested: int) -> int:
        """Tiles a square image of side ``requested`` pixels is encoded as (1 unless the tower tiles)."""
        if not self.tiled or self.image_side_px is None:
            return 1
        per_side = -(-requested // self.image_side_px)
        tiles = min(self.tiles, per_side * per_side)
        return tiles + 1 if tiles > 1 else 1  # and a global view of the whole image

    def tokens_per_image(self, requested: int = DEFAULT_IMAGE_SIDE_PX) -> int:
        """Language-model tokens one square image of side ``requested`` pixels becomes."""
        if self.fixed_tokens is not None:
            return self.fixed_tokens
        if self.tiled and self.image_side_px is not None:
            per_tile = (self.image_side_px // self.patch_size // self.merge) ** 2
            return self.tiles_for(requested) * per_tile
        grid = self._grid(requested)
        return grid * grid + (grid if self.row_break_tokens else 0)

    def encoder_tokens_per_image(self, requested: int = DEFAULT_IMAGE_SIDE_PX) -> int:
        """Patches the encoder runs for one square image of side ``requested`` pixels."""
        if self.fixed_tokens is not None:
            return self.tiles * ((self.side_px(requested) // self.patch_size) ** 2 + (1 if self.class_token else 0))
        if self.tiled and self.image_side_px is not None:
            per_tile = (self.image_side_px // self.patch_size) ** 2 + (1 if self.class_token else 0)
            return self.tiles_for(requested) * per_tile
        return (self._grid(requested) * self.merge) ** 2

    def _norm(self) -> int:
        return self.hidden_size * (2 if self.norm_bias else 1)

    @property
    def layer_parameters(self) -> int:
        """Parameters of one encoder layer: two norms, attention (q, k, v, out) and the MLP."""
        h, i = self.hidden_size, self.intermediate_size
        attention = 4 * h * h + (4 * h if self.attention_bias else 0)
        if self.mlp_gated:
            mlp = 3 * h * i + ((2 * i + h) if self.mlp_bias else 0)
        else:
            mlp = 2 * h * i + ((i + h) if self.mlp_bias else 0)
        return 2 * self._norm() + attention + mlp

    @property
    def encoder_parameters(self) -> int:
        """The encoder's parameters: patch and position embeddings, the layers, the outer norms."""
        h = self.hidden_size
        embed = self.patch_pixels * h + (h if self.patch_bias else 0) + self.position_embeddings * h
        outer = (self._norm() if self.pre_norm else 0) + (self._norm() if self.post_norm else 0)
        return embed + self.num_layers * self.layer_parameters + outer + self.extra_parameters

    @property
    def parameters(self) -> int:
        """The tower's parameters: encoder plus projector (count)."""
        return self.encoder_parameters + self.projector_parameters

    @property
    def linear_parameters(self) -> int:
        """Parameters in the encoder layers' ``nn.Linear`` weights and biases (what a quantiser could convert)."""
        return self.num_layers * (self.layer_parameters - 2 * self._norm())
