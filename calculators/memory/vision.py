"""Training memory of image classifiers (ResNet, ViT): exact parameters and activations per image.

Derived, not measured: the accounting follows what PyTorch's autograd keeps for the
torchvision implementations, tensor by tensor.

**ResNet.** Every ``conv -> BatchNorm -> ReLU`` keeps two tensors of the conv's output
shape: the conv output (BatchNorm saves its input) and the ReLU output (torchvision's
ReLU is in place on the BatchNorm output and saves its result, which the next conv also
saves as its input). The last conv of a block keeps its output and the block output
(BatchNorm, the in-place residual add and ReLU share one buffer); a downsample shortcut
keeps its conv output. The stem keeps the image (its 16-bit cast under autocast), the
stem conv output and ReLU output, max-pool's int64 indices and its output. BatchNorm's
per-channel statistics are negligible and left out.

**ViT.** Tokens = ``(resolution / patch)^2 + 1`` (the class token). Per encoder layer and
token, with ``r`` the residual-stream bytes (4 under autocast with fp32 weights) and
``a`` the compute bytes: two LayerNorms save their input and fp32 mean and rstd
(``2 (r h + 8)``); the QKV projection saves its input (``a h``) and its output q, k, v
(``3 a h``, kept by SDPA); SDPA saves its output (``a h``, which the output projection
also saves) and a per-head fp32 log-sum-exp; the MLP saves its input (``a h``), the fc1
output and the GELU output (``2 a m``). Total ``2 r h + 6 a h + 2 a m + 4 heads + 16``
bytes. Outside the layers: the final LayerNorm's input, and the classifier's input (a
16-bit cast of the class token under autocast; otherwise a view that keeps the whole
LayerNorm output alive). Differences from the
decoder accounting in :mod:`calculators.memory.activations` (which this does not call):
LayerNorm (with bias) saves mean and rstd where RMSNorm saves one rsqrt; the MLP is
``h -> 4h -> h`` with GELU and no gate, so it keeps two ``m``-wide tensors, not four;
attention is full multi-head (K and V as wide as Q); there is no rotary embedding and no
vocabulary-sized logits. Dropout with ``p = 0`` (torchvision's default) saves no mask.

**Check.** In fp32 on CPU (PyTorch 2.13, torchvision 0.28, ``saved_tensors_hooks`` over
one forward at batch 2, 224 px) the traced bytes agree with these formulas to 1e-7 for
ViT-B/16 and to 0.13 % for ResNet-18 and ResNet-50, the difference being BatchNorm's
running-statistics buffers, which this module counts with the weights. The 16-bit
(autocast on CUDA) accounting is derived only; cuDNN may pick kernels that change it.

Peak = ``max(forward end, backward start, optimizer step)``, as in
:func:`calculators.memory.training.training_memory`: weights, gradients, optimizer state
(and the foreach step's temporary), autocast's 16-bit copies of conv/linear weights,
the saved activations, and a backward transient of twice the largest saved tensor.

>>> estimate = vision_training_memory("resnet-50", batch=32)
>>> estimate.parameters, estimate.peak_phase
(25557032, 'backward')
>>> round(activation_bytes_per_image("resnet-50", resolution=224, precision="bf16-mixed") / 2**20, 1)  # MiB
41.7
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from calculators.catalog.vision_models import BLOCKS, VisionModel, get_vision_model
from calculators.errors import ConfigError, InputError
from calculators.memory.optimizers import OPTIMIZERS, optimizer_bytes
from calculators.memory.overhead import (
    CUDA_WORKSPACE_BYTES,
    overhead_assumptions,
    uncertainty_above_total,
    runtime_overhead_bytes,
)
from calculators.memory.result import MemoryEstimate
from calculators.memory.training_inputs import PRECISIONS as PRECISIONS  # the language models' precisions
from calculators.validate import one_of, positive_int

MAX_RESOLUTION = 8192
MAX_BATCH = 1 << 16
#: Optimizer of torchvision's reference recipe per family (used when none is given).
RECIPE_OPTIMIZER = {"resnet": "sgd", "vit": "adamw"}


@dataclass(frozen=True)
class _Tensor:
    """A parameter tensor's shape (for counts and Adafactor) and whether autocast copies it."""

    shape: tuple[int, ...]
    matmul: bool

    @property
    def numel(self) -> int:
        total = 1
        for dim in self.shape:
            total *= dim
        return total


def _conv_out(size: int, *, kernel: int, stride: int, padding: int) -> int:
    return (size + 2 * padding - kernel) // stride + 1


def _resnet(model: VisionModel, resolution: int) -> tuple[list[_Tensor], list[tuple[int, str]]]:
    """Parameter tensors and saved tensors ``(elements per image, kind)`` of a torchvision ResNet."""
    params: list[_Tensor] = []
    saved: list[tuple[int, str]] = [(3 * resolution * resolution, "image")]

    def conv(c_in: int, c_out: int, k: int) -> None:
        params.append(_Tensor((c_out, c_in, k, k), True))

    def bn(c: int) -> None:
        params.extend([_Tensor((c,), False), _Tensor((c,), False)])

    size = _conv_out(resolution, kernel=7, stride=2, padding=3)
    conv(3, 64, 7)
    bn(64)
    saved += [(64 * size * size, "act"), (64 * size * size, "act")]  # conv1 output, ReLU output
    size = _conv_out(size, kernel=3, stride=2, padding=1)
    saved += [(64 * size * size, "index"), (64 * size * size, "act")]  # max-pool indices and output
    expansion = 4 if model.block == "bottleneck" else 1
    c_in = 64
    for stage, blocks in enumerate(model.layers):
        width = 64 * 2**stage
        for index in range(blocks):
            stride = 2 if (stage > 0 and index == 0) else 1
            out_size = _conv_out(size, kernel=3, stride=stride, padding=1)
            c_out = width * expansion
            if model.block == "bottleneck":
                conv(c_in, width, 1)
                bn(width)
                conv(width, width, 3)
                bn(width)
                conv(width, c_out, 1)
                bn(c_out)
                saved += [(width * size * size, "act")] * 2 + [(width * out_size * out_size, "act")] * 2
            else:
                conv(c_in, width, 3)
                bn(width)
                conv(width, width, 3)
                bn(width)
                saved += [(width * out_size * out_size, "act")] * 2
            saved += [(c_out * out_size * out_size, "act")] * 2  # last conv output, block output
            if stride != 1 or c_in != c_out:
                conv(c_in, c_out, 1)
                bn(c_out)
                saved.append((c_out * out_size * out_size, "act"))  # shortcut conv output (BatchNorm input)
            c_in, size = c_out, out_size
    params += [_Tensor((model.num_classes, c_in), True), _Tensor((model.num_classes,), False)]
    saved += [(c_in, "act"), (model.num_classes, "fp32")]  # fc input, fp32 log-softmax
    return params, saved


def batchnorm_channels(model: VisionModel) -> int:
    """Channels of every BatchNorm in a ResNet (each keeps running mean and variance buffers)."""
    if model.family != "resnet":
        return 0
    params, _ = _resnet(model, 64)
    # BatchNorm weights and biases are the 1-D tensors other than the classifier's bias.
    return sum(t.numel for t in params[:-1] if len(t.shape) == 1) // 2


def vit_tokens(model: VisionModel, *, resolution: int) -> int:
    """Tokens a ViT sees: ``(resolution // patch)^2 + 1`` (the class token).

    >>> vit_tokens(get_vision_model("vit-b-16"), resolution=224)
    197
    """
    return (resolution // model.patch_size) ** 2 + 1


def _vit(model: VisionModel, resolution: int, *, residual: int, compute: int) -> tuple[list[_Tensor], list[tuple[int, str]]]:
    h, m, heads = model.hidden_size, model.mlp_size, model.num_heads
    tokens = vit_tokens(model, resolution=resolution)
    p = model.patch_size
    params = [_Tensor((h, 3, p, p), True), _Tensor((h,), False), _Tensor((1, 1, h), False),
              _Tensor((1, tokens, h), False)]
    per_layer = [_Tensor((2,), False)] * 0 + [
        _Tensor((h,), False), _Tensor((h,), False),  # ln_1
        _Tensor((3 * h, h), True), _Tensor((3 * h,), False), _Tensor((h, h), True), _Tensor((h,), False),
        _Tensor((h,), False), _Tensor((h,), False),  # ln_2
        _Tensor((m, h), True), _Tensor((m,), False), _Tensor((h, m), True), _Tensor((h,), False),
    ]
    params += per_layer * model.num_layers
    params += [_Tensor((h,), False), _Tensor((h,), False), _Tensor((model.num_classes, h), True),
               _Tensor((model.num_classes,), False)]
    layer_bytes = 2 * residual * h + 6 * compute * h + 2 * compute * m + 4 * heads + 16
    saved: list[tuple[int, str]] = [(3 * resolution * resolution, "image")]
    saved += [(layer_bytes * tokens, "bytes")] * model.num_layers
    # The final LayerNorm saves its input; the head reads the class token. Under autocast
    # the head saves a 16-bit cast of it; otherwise it saves a view that keeps the whole
    # LayerNorm output alive (traced).
    head_input = compute * h if residual > compute else residual * h * tokens
    saved += [((residual * h + 8) * tokens, "bytes"), (head_input, "bytes"), (model.num_classes, "fp32")]
    return params, saved


def _layout(precision: str) -> tuple[int, int, int]:
    """(parameter bytes, residual bytes, compute bytes) of a precision."""
    if precision == "fp32":
        return 4, 4, 4
    if precision.endswith("-mixed"):
        return 4, 4, 2
    return 2, 2, 2


def _network(model: VisionModel, resolution: int, precision: str) -> tuple[list[_Tensor], list[tuple[int, str]]]:
    param_bytes, residual, compute = _layout(precision)
    if model.family == "resnet":
        return _resnet(model, resolution)
    return _vit(model, resolution, residual=residual, compute=compute)


def _saved_bytes(saved: list[tuple[int, str]], *, compute: int, mixed: bool) -> tuple[int, int]:
    """(total bytes, largest tensor bytes) of the saved list for one image."""
    sizes = {"act": compute, "index": 8, "fp32": 4, "bytes": 1, "image": compute if mixed else 0}
    values = [count * sizes[kind] for count, kind in saved]
    return sum(values), max(values)


def _model_arg(network: str | VisionModel) -> VisionModel:
    return network if isinstance(network, VisionModel) else get_vision_model(network)


def _resolution(model: VisionModel, resolution: int | None) -> int:
    value = model.image_size if resolution is None else positive_int("resolution", resolution,
                                                                     maximum=MAX_RESOLUTION, minimum=32)
    if model.family == "vit" and value % model.patch_size:
        raise InputError("resolution", value, f"a multiple of the patch size {model.patch_size} from 32 to "
                         f"{MAX_RESOLUTION}")
    return value


def vision_parameters(network: str | VisionModel, *, resolution: int | None = None) -> int:
    """Exact parameter count from the layer shapes (a ViT's position embedding grows with resolution).

    >>> vision_parameters("vit-b-16"), vision_parameters("resnet-18")
    (86567656, 11689512)
    """
    model = _model_arg(network)
    params, _ = _network(model, _resolution(model, resolution), "fp32")
    return sum(t.numel for t in params)


def activation_bytes_per_image(network: str | VisionModel, *, resolution: int | None = None,
                               precision: str = "bf16-mixed") -> int:
    """Bytes autograd keeps for backward per image (the module docstring lists each tensor).

    >>> round(activation_bytes_per_image("vit-b-16", precision="bf16-mixed") / 2**20, 1)  # MiB per image
    63.3
    """
    model = _model_arg(network)
    mode = one_of("precision", precision, PRECISIONS)
    _, _, compute = _layout(mode)
    _, saved = _network(model, _resolution(model, resolution), mode)
    return _saved_bytes(saved, compute=compute, mixed=mode.endswith("-mixed"))[0]


def vision_training_memory(network: str | VisionModel, *, batch: int = 32, resolution: int | None = None,
                           precision: str = "bf16-mixed", optimizer: str | None = None) -> MemoryEstimate:
    """Peak memory of one image-classification training step on one GPU, in bytes (derived).

    Formula: ``peak = max(weights + state + copies + B x saved, ... + transient,
    weights + grads + state + step temporaries)``; ``total = peak + context + workspace +
    allocator slack`` (assumed overheads, as for the transformer estimates).

    Args:
        network: catalog id (``resnet-50``, ``vit-b-16``...) or a :class:`VisionModel`.
        batch: images per GPU per step.
        resolution: square input edge in pixels (default: the model's training size).
        precision: fp32, bf16-mixed or fp16-mixed (fp32 weights, 16-bit autocast), bf16.
        optimizer: one of :data:`calculators.memory.optimizers.OPTIMIZERS`; default the
            torchvision recipe's (SGD with momentum for ResNets, AdamW for ViTs).

    Returns:
        A :class:`~calculators.memory.result.MemoryEstimate`; cuDNN's convolution
        workspace (algorithm-dependent) is not included.
    """
    model = _model_arg(network)
    size = _resolution(model, resolution)
    images = positive_int("batch", batch, maximum=MAX_BATCH)
    mode = one_of("precision", precision, PRECISIONS)
    opt_name = one_of("optimizer", optimizer if optimizer is not None else RECIPE_OPTIMIZER[model.family],
                      list(OPTIMIZERS))
    param_bytes, _, compute = _layout(mode)
    params, saved = _network(model, size, mode)
    count = sum(t.numel for t in params)
    channels = batchnorm_channels(model)
    grads = count * param_bytes
    # BatchNorm's running mean and variance (fp32) and its int64 step counter are buffers.
    bn_layers = sum(1 for t in params if len(t.shape) == 1) // 2 if model.family == "resnet" else 0
    weights = grads + 8 * channels + 8 * bn_layers
    opt = optimizer_bytes(optimizer=opt_name, param_bytes=param_bytes)
    if opt_name == "adafactor":  # row and column factors over the last two dims; full variance for vectors
        state = sum((t.numel // t.shape[-1] + t.numel // t.shape[-2]) if len(t.shape) >= 2 else t.numel
                    for t in params) * param_bytes
    else:
        state = int(round(count * opt.state_bytes_per_param))
    step_temp = int(round(count * opt.step_temp_bytes_per_param))
    copies = 2 * sum(t.numel for t in params if t.matmul) if mode.endswith("-mixed") else 0
    per_image, largest = _saved_bytes(saved, compute=compute, mixed=mode.endswith("-mixed"))
    activations = images * per_image + 8 * channels  # BatchNorm's per-batch mean and inverse std (fp32)
    inputs = images * (3 * size * size * 4 + 8)  # the fp32 image batch and int64 labels
    transient = 2 * images * largest
    forward = weights + state + copies + activations + inputs
    backward = forward + transient
    optimizer_phase = weights + grads + state + step_temp
    workspaces = CUDA_WORKSPACE_BYTES  # cuBLAS workspaces, allocated once (measured on an H100)
    phases = {"forward": forward + workspaces, "backward": backward + workspaces,
              "optimizer": optimizer_phase + workspaces}
    peak_phase = max(phases, key=lambda name: phases[name])
    peak = phases[peak_phase]
    if peak_phase == "optimizer":
        breakdown = {"weights": weights, "gradients": grads, "optimizer_states": state,
                     "optimizer_step_temporaries": step_temp, "cuda_workspaces": workspaces}
    else:
        breakdown = {"weights": weights, "optimizer_states": state, "autocast_weight_copies": copies,
                     "activations": activations + inputs, "transient_at_peak": peak - workspaces - forward,
                     "cuda_workspaces": workspaces}
    # The largest transient block of a vision step: the backward of the largest saved tensor.
    block = images * largest
    overhead = runtime_overhead_bytes(transient_block_bytes=block)
    assumptions = (
        f"{model.name} at {size} x {size} pixels, batch {images}, {mode}, optimizer {opt_name}",
        "derived from the torchvision implementation's saved tensors, not measured",
        "backward transient: twice the largest saved tensor; cuDNN convolution workspace not included",
        *overhead_assumptions(),
    )
    notes: tuple[str, ...] = ()
    if model.family == "vit" and size != model.image_size:
        notes = (f"position embedding resized for {size} px: {vit_tokens(model, resolution=size)} tokens",)
    return MemoryEstimate(
        parameters=count, trainable_parameters=count, active_parameters=count, peak_allocated_bytes=int(peak),
        total_bytes=int(peak + sum(overhead.values())), peak_phase=peak_phase,
        breakdown={k: int(v) for k, v in breakdown.items()}, phase_peaks={k: int(v) for k, v in phases.items()},
        assumptions=assumptions, notes=notes, overhead=overhead,
        uncertainty_bytes=uncertainty_above_total(overhead, transient_block_bytes=block), transient_block_bytes=block)


def vision_model_from_config(config: Mapping[str, Any] | str) -> VisionModel:
    """A :class:`VisionModel` from a Hugging Face ``config.json`` of ``model_type`` ``vit`` or ``resnet``.

    >>> vision_model_from_config({"model_type": "resnet", "layer_type": "bottleneck",
    ...     "depths": [3, 4, 6, 3], "hidden_sizes": [256, 512, 1024, 2048], "num_labels": 1000}).layers
    (3, 4, 6, 3)
    """
    from calculators.config_input import load_config_json

    data = load_config_json(config)  # size, encoding, nesting and integer limits
    kind = data.get("model_type")
    labels = data.get("id2label")
    classes = len(labels) if isinstance(labels, dict) and labels else data.get("num_labels", 1000)
    classes = _key(data, "num_labels", classes, 1 << 20)
    name = str(data.get("_name_or_path") or kind or "custom")[:80]
    if kind == "vit":
        hidden = _key(data, "hidden_size", data.get("hidden_size"), 1 << 16)
        heads = _key(data, "num_attention_heads", data.get("num_attention_heads"), 1 << 12)
        return VisionModel(id="custom", name=name, family="vit",
                           image_size=_key(data, "image_size", data.get("image_size", 224), MAX_RESOLUTION),
                           num_classes=classes, patch_size=_key(data, "patch_size", data.get("patch_size", 16), 1024),
                           hidden_size=hidden, num_layers=_key(data, "num_hidden_layers",
                                                               data.get("num_hidden_layers"), 1024),
                           num_heads=heads, mlp_size=_key(data, "intermediate_size",
                                                          data.get("intermediate_size", 4 * hidden), 1 << 18))
    if kind == "resnet":
        block = data.get("layer_type", "bottleneck")
        if block not in BLOCKS:
            raise ConfigError("layer_type", block, "basic or bottleneck")
        depths = data.get("depths")
        if not isinstance(depths, list) or len(depths) != 4:
            raise ConfigError("depths", depths, "a list of four block counts")
        layers = tuple(_key(data, "depths", d, 1024) for d in depths)
        widths = data.get("hidden_sizes", [64 * 2**i * (4 if block == "bottleneck" else 1) for i in range(4)])
        expected = [64 * 2**i * (4 if block == "bottleneck" else 1) for i in range(4)]
        if widths != expected or data.get("embedding_size", 64) != 64:
            raise ConfigError("hidden_sizes", widths, f"{expected} with embedding_size 64 (the standard widths)")
        return VisionModel(id="custom", name=name, family="resnet", num_classes=classes, block=str(block),
                           layers=layers)
    raise ConfigError("model_type", kind, "vit or resnet")


def _key(data: Mapping[str, Any], key: str, value: Any, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        raise ConfigError(key, value, f"an integer from 1 to {maximum}")
    return value
