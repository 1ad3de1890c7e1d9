"""Image-classification networks: ResNet and Vision Transformer shapes, with published parameter counts.

Each :class:`VisionModel` holds the hyper-parameters its reference implementation
(torchvision) builds the network from. Parameter counts are computed from the layer
shapes in :mod:`calculators.memory.vision` and tested against the published
``num_params`` of the torchvision weights pages.

>>> get_vision_model("resnet-50").layers, get_vision_model("resnet-50").published_parameters
((3, 4, 6, 3), 25557032)
>>> get_vision_model("vit-b-16").hidden_size
768
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.catalog.sources import Source
from calculators.errors import UnknownNameError

_READ = "2026-11-21"
_TV = "https://pytorch.org/vision/stable/models/generated/torchvision.models.{}.html"

#: Families this module knows.
FAMILIES: tuple[str, ...] = ("resnet", "vit")
#: Residual block types of a ResNet.
BLOCKS: tuple[str, ...] = ("basic", "bottleneck")


@dataclass(frozen=True, kw_only=True)
class VisionModel:
    """One image classifier's shapes, as torchvision (or a Hugging Face config) builds it.

    Attributes:
        id: slug, e.g. ``"resnet-50"``.
        name: display name.
        family: ``"resnet"`` or ``"vit"``.
        image_size: the resolution the published weights were trained at, pixels (a ViT's
            position embedding is sized for it).
        num_classes: classifier outputs (ImageNet-1k: 1000).
        block: ResNet block type (``"basic"`` or ``"bottleneck"``).
        layers: ResNet blocks per stage.
        patch_size: ViT patch edge, pixels.
        hidden_size: ViT width.
        num_layers: ViT encoder layers.
        num_heads: ViT attention heads.
        mlp_size: ViT MLP width (4 x hidden in ViT-B and ViT-L).
        published_parameters: count published for the reference weights, or ``None``.
        source: where the published count comes from.
        paper: the architecture's paper.
    """

    id: str
    name: str
    family: str
    image_size: int = 224
    num_classes: int = 1000
    block: str = ""
    layers: tuple[int, ...] = ()
    patch_size: int = 0
    hidden_size: int = 0
    num_layers: int = 0
    num_heads: int = 0
    mlp_size: int = 0
    published_parameters: int | None = None
    source: Source | None = None
    paper: Source | None = None


def _tv(builder: str) -> Source:
    return Source(f"torchvision documentation, models.{builder} (num_params of IMAGENET1K_V1 weights)",
                  _TV.format(builder), _READ)


_RESNET_PAPER = Source("He et al., Deep Residual Learning for Image Recognition (CVPR 2016)",
                       "https://arxiv.org/abs/1512.03385", "2015-12-10")
_VIT_PAPER = Source("Dosovitskiy et al., An Image is Worth 16x16 Words (ICLR 2021), Table 1",
                    "https://arxiv.org/abs/2010.11929", "2020-10-22")

_MODELS: tuple[VisionModel, ...] = (
    VisionModel(id="resnet-18", name="ResNet-18", family="resnet", block="basic", layers=(2, 2, 2, 2),
                published_parameters=11689512, source=_tv("resnet18"), paper=_RESNET_PAPER),
    VisionModel(id="resnet-50", name="ResNet-50", family="resnet", block="bottleneck", layers=(3, 4, 6, 3),
                published_parameters=25557032, source=_tv("resnet50"), paper=_RESNET_PAPER),
    VisionModel(id="resnet-101", name="ResNet-101", family="resnet", block="bottleneck", layers=(3, 4, 23, 3),
                published_parameters=44549160, source=_tv("resnet101"), paper=_RESNET_PAPER),
    VisionModel(id="resnet-152", name="ResNet-152", family="resnet", block="bottleneck", layers=(3, 8, 36, 3),
                published_parameters=60192808, source=_tv("resnet152"), paper=_RESNET_PAPER),
    VisionModel(id="vit-b-16", name="ViT-B/16", family="vit", patch_size=16, hidden_size=768, num_layers=12,
                num_heads=12, mlp_size=3072, published_parameters=86567656, source=_tv("vit_b_16"),
                paper=_VIT_PAPER),
    VisionModel(id="vit-l-16", name="ViT-L/16", family="vit", patch_size=16, hidden_size=1024, num_layers=24,
                num_heads=16, mlp_size=4096, published_parameters=304326632, source=_tv("vit_l_16"),
                paper=_VIT_PAPER),
)


def all_vision_models() -> tuple[VisionModel, ...]:
    """Every catalogued network, ResNets then ViTs.

    >>> [m.id for m in all_vision_models()][:2]
    ['resnet-18', 'resnet-50']
    """
    return _MODELS


def vision_model_ids() -> list[str]:
    """Ids of every catalogued network."""
    return [m.id for m in _MODELS]


def get_vision_model(model_id: str) -> VisionModel:
    """The network with this id (case-insensitive); raises :class:`UnknownNameError` naming ``network``."""
    key = str(model_id).strip().lower()
    for model in _MODELS:
        if model.id == key:
            return model
    raise UnknownNameError("network", str(model_id), vision_model_ids())
