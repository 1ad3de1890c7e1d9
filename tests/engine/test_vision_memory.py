"""ResNet and ViT: exact parameter counts, activations per image, training memory, the trace check."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calculators.catalog.vision_models import all_vision_models, get_vision_model
from calculators.errors import ConfigError, InputError, UnknownNameError
from calculators.memory.optimizers import OPTIMIZERS
from calculators.memory.vision import (
    PRECISIONS,
    activation_bytes_per_image,
    vision_model_from_config,
    vision_parameters,
    vision_training_memory,
    vit_tokens,
)

MODELS = all_vision_models()


@pytest.mark.parametrize("model", MODELS, ids=[m.id for m in MODELS])
def test_parameters_equal_torchvision_published_counts(model: object) -> None:
    # num_params on the torchvision weights pages (each record's source).
    assert vision_parameters(model) == model.published_parameters  # type: ignore[attr-defined]


def test_vit_b16_count_by_hand() -> None:
    # torchvision ViT-B/16: patch conv 3*16*16*768+768, class token 768, position 197*768,
    # 12 layers of (2 LayerNorms 4*768, QKV 768*2304+2304, out 768*768+768, MLP 768*3072+3072+3072*768+768),
    # final LayerNorm 2*768, head 768*1000+1000.
    layer = 4 * 768 + 768 * 2304 + 2304 + 768 * 768 + 768 + 768 * 3072 + 3072 + 3072 * 768 + 768
    total = 3 * 16 * 16 * 768 + 768 + 768 + 197 * 768 + 12 * layer + 2 * 768 + 768 * 1000 + 1000
    assert vision_parameters("vit-b-16") == total == 86567656


def test_vit_position_embedding_grows_with_resolution() -> None:
    # 384 px: 577 tokens instead of 197, 380 more position vectors of 768.
    assert vit_tokens(get_vision_model("vit-b-16"), resolution=384) == 577
    assert vision_parameters("vit-b-16", resolution=384) - vision_parameters("vit-b-16") == 380 * 768


def test_vit_layer_bytes_per_token() -> None:
    # bf16 autocast, fp32 residual: 2*4*768 + 6*2*768 + 2*2*3072 + 4*12 + 16 = 27712 bytes per token per layer;
    # outside the layers: image cast 3*224*224*2, final LayerNorm input (4*768+8)*197, head input 2*768,
    # fp32 log-softmax 4*1000.
    expected = 12 * 197 * 27712 + 3 * 224 * 224 * 2 + (4 * 768 + 8) * 197 + 2 * 768 + 4 * 1000
    assert activation_bytes_per_image("vit-b-16", precision="bf16-mixed") == expected


def test_resnet_activations_scale_with_pixels() -> None:
    # Every saved ResNet tensor except the head's (fc input 512 x 4 bytes, fp32 log-softmax 1000 x 4) has a
    # spatial size proportional to the pixel count when the edge is a multiple of 32, so 64 px keeps 4x 32 px.
    small = activation_bytes_per_image("resnet-18", resolution=64, precision="fp32") - 512 * 4 - 4000
    tiny = activation_bytes_per_image("resnet-18", resolution=32, precision="fp32") - 512 * 4 - 4000
    assert small == 4 * tiny


@settings(max_examples=40, deadline=None)
@given(model=st.sampled_from([m.id for m in MODELS]), batch=st.integers(1, 512), scale=st.integers(2, 24))
def test_more_images_or_pixels_never_need_less(model: str, batch: int, scale: int) -> None:
    resolution = 16 * scale
    base = vision_training_memory(model, batch=batch, resolution=resolution)
    assert vision_training_memory(model, batch=batch + 1, resolution=resolution).peak_allocated_bytes >= (
        base.peak_allocated_bytes)
    assert vision_training_memory(model, batch=batch, resolution=resolution + 16).peak_allocated_bytes >= (
        base.peak_allocated_bytes)
    assert base.total_bytes > base.peak_allocated_bytes > 0


@pytest.mark.parametrize("model", MODELS, ids=[m.id for m in MODELS])
def test_fp32_keeps_more_than_bf16(model: object) -> None:
    assert activation_bytes_per_image(model, precision="fp32") > activation_bytes_per_image(model)  # type: ignore[arg-type]


@pytest.mark.parametrize("optimizer", list(OPTIMIZERS))
@pytest.mark.parametrize("precision", PRECISIONS)
def test_every_optimizer_and_precision_gives_a_positive_estimate(optimizer: str, precision: str) -> None:
    estimate = vision_training_memory("resnet-50", batch=8, precision=precision, optimizer=optimizer)
    assert estimate.peak_allocated_bytes == max(estimate.phase_peaks.values()) > 0
    assert sum(estimate.breakdown.values()) == estimate.peak_allocated_bytes


def test_sgd_keeps_one_momentum_adamw_two() -> None:
    sgd = vision_training_memory("resnet-50", batch=1, optimizer="sgd").breakdown["optimizer_states"]
    adam = vision_training_memory("resnet-50", batch=1, optimizer="adamw").breakdown["optimizer_states"]
    assert sgd == 4 * 25557032 and adam == 2 * sgd


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"batch": 0}, "batch"), ({"resolution": 16}, "resolution"), ({"precision": "int8"}, "precision"),
    ({"optimizer": "lion"}, "optimizer"), ({"resolution": 8193}, "resolution"),
])
def test_bad_input_names_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(InputError) as error:
        vision_training_memory("resnet-50", **kwargs)  # type: ignore[arg-type]
    assert error.value.field == field


def test_vit_resolution_must_be_a_multiple_of_the_patch() -> None:
    with pytest.raises(InputError) as error:
        vision_training_memory("vit-b-16", resolution=225)
    assert error.value.field == "resolution"


def test_unknown_network() -> None:
    with pytest.raises(UnknownNameError) as error:
        vision_parameters("resnet-5")
    assert error.value.field == "network"


def test_hugging_face_configs() -> None:
    # google/vit-base-patch16-224 config values; microsoft/resnet-50 config values (1000 labels).
    vit = vision_model_from_config({"model_type": "vit", "hidden_size": 768, "num_hidden_layers": 12,
                                    "num_attention_heads": 12, "intermediate_size": 3072, "image_size": 224,
                                    "patch_size": 16, "num_labels": 1000})
    assert vision_parameters(vit) == 86567656
    resnet = vision_model_from_config('{"model_type": "resnet", "layer_type": "bottleneck", "depths": [3, 4, 6, 3],'
                                      ' "hidden_sizes": [256, 512, 1024, 2048], "embedding_size": 64,'
                                      ' "id2label": {' + ", ".join(f'"{i}": "c{i}"' for i in range(1000)) + "}}")
    assert vision_parameters(resnet) == 25557032
    with pytest.raises(ConfigError):
        vision_model_from_config({"model_type": "convnext"})
    with pytest.raises(ConfigError):
        vision_model_from_config("{oops")


@pytest.mark.measure
def test_trace_matches_torchvision() -> None:
    """Re-trace the saved tensors of the torchvision models (needs torchvision; CPU is enough)."""
    torch = pytest.importorskip("torch")
    models = pytest.importorskip("torchvision.models")
    from calculators.doc_tables.vision import TRACE_BATCH, TRACED_FP32_BYTES

    for model_id, builder in (("resnet-18", models.resnet18), ("resnet-50", models.resnet50),
                              ("vit-b-16", models.vit_b_16)):
        net = builder().train()
        seen: dict[int, int] = {}

        def pack(t: object) -> object:
            storage = t.untyped_storage()  # type: ignore[attr-defined]
            seen[storage.data_ptr()] = storage.nbytes()
            return t

        x = torch.randn(TRACE_BATCH, 3, 224, 224)
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = net(x)
            torch.nn.functional.cross_entropy(out, torch.zeros(TRACE_BATCH, dtype=torch.long))
        params = {p.untyped_storage().data_ptr() for p in net.parameters()}
        traced = sum(v for k, v in seen.items() if k not in params and k != x.untyped_storage().data_ptr())
        assert traced // TRACE_BATCH == TRACED_FP32_BYTES[model_id]
