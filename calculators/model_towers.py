"""Encoder towers that are not ViTs: a convolutional image encoder or a speech conformer beside the language model.

Gemma 3n's checkpoint holds, beside its language model, a MobileNet-v5 image encoder (timm's
``mobilenetv5_300m_enc``) and a USM-style conformer audio encoder, each followed by an
"embedder" that projects its output into the language model's width. Neither fits
:class:`~calculators.model_vision.VisionEncoderSpec` (a ViT's patch embedding, layers and
projector), so :class:`EncoderTowerSpec` records what the guide needs of them: their exact
parameters (counted in the weights) and the prompt tokens one image or one audio clip becomes.
The family's reader (:mod:`calculators.model_config.gemma3n`) computes both from the config.

>>> tower = EncoderTowerSpec(modality="audio", family="usm-conformer", encoder_parameters=681348640,
...     projector_parameters=3345408, tokens_per_item=188, item="audio clip of up to 30 s")
>>> tower.parameters  # Gemma 3n's audio tower and embedder (transformers 5.23 builds 684,694,048)
684694048
>>> tower.describe()
'audio tower (usm-conformer): 684,694,048 parameters; an audio clip of up to 30 s becomes 188 prompt tokens'
"""

from __future__ import annotations

from dataclasses import dataclass

#: What a tower turns into prompt tokens.
MODALITIES = ("image", "audio")


@dataclass(frozen=True)
class EncoderTowerSpec:
    """One encoder tower and its projector into the language model, counted exactly by the family's reader.

    Attributes:
        modality: ``"image"`` or ``"audio"``.
        family: the encoder's kind (``"mobilenet-v5"``, ``"usm-conformer"``).
        encoder_parameters: the encoder's parameters.
        projector_parameters: the projector's ("embedder's") parameters.
        tokens_per_item: prompt tokens one image (or one audio clip) becomes.
        item: what one item is, in words (``"image (768 x 768 px)"``).
    """

    modality: str
    family: str
    encoder_parameters: int
    projector_parameters: int
    tokens_per_item: int
    item: str

    def __post_init__(self) -> None:
        if self.modality not in MODALITIES:
            raise ValueError(f"modality {self.modality!r} is not one of {MODALITIES}")

    @property
    def parameters(self) -> int:
        """Encoder plus projector (count)."""
        return self.encoder_parameters + self.projector_parameters

    def describe(self) -> str:
        """One line: the tower, its parameters and the tokens one item becomes."""
        return (f"{self.modality} tower ({self.family}): {self.parameters:,} parameters; an {self.item} becomes "
                f"{self.tokens_per_item} prompt tokens")
