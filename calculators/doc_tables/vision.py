"""Tables of the vision page (docs/memory/vision.md): ResNet and ViT parameters, activations, training memory.

Every value is derived by :mod:`calculators.memory.vision` except the published parameter
counts (torchvision's weights pages) and the traced bytes in :data:`TRACED_FP32_BYTES`.
"""

from __future__ import annotations

from calculators.catalog.gpus import get_gpu
from calculators.catalog.vision_models import all_vision_models, get_vision_model
from calculators.columns import Column, decimal_column, gb_column, gib_column, number_column
from calculators.memory.vision import (
    RECIPE_OPTIMIZER,
    activation_bytes_per_image,
    batchnorm_channels,
    vision_parameters,
    vision_training_memory,
    vit_tokens,
)
from calculators.tables import Table, TableFunction, declared_tables, table
from calculators.memory.result import MemoryEstimate
from calculators.units import MIB, gib, number, signed_error

BATCHES = (32, 64, 128, 256)
RESOLUTIONS = (224, 384)
PRECISION = "bf16-mixed"
#: The claim checked: "CNN/ResNet training (image classification): 10-200M params, 8-24GB"
#: (VRLA Tech, Machine learning workstation hardware requirements, April 2026).
CLAIM_LOW_BYTES, CLAIM_HIGH_BYTES = 8 * 10**9, 24 * 10**9

#: Bytes autograd saved per image in one fp32 training forward at 224 px, batch 2, traced
#: on CPU with ``torch.autograd.graph.saved_tensors_hooks`` (PyTorch 2.13.0+cpu,
#: torchvision 0.28.0; every distinct storage counted once, parameters and the input batch
#: excluded; BatchNorm's running statistics are included because batch_norm saves them).
#: Re-run by ``tests/engine/test_vision_memory.py::test_trace_matches_torchvision`` (marker measure).
TRACED_FP32_BYTES: dict[str, int] = {"resnet-18": 21620138, "resnet-50": 85523882, "vit-b-16": 117562578}
TRACE_BATCH = 2


def _name(model_id: str) -> str:
    return get_vision_model(model_id).name


def _assumptions(estimate: MemoryEstimate) -> tuple[str, ...]:
    """The assumptions of the vision tables, ending with the runtime overhead ``estimate`` states (last)."""
    return (f"{PRECISION} (fp32 weights, bf16 autocast), the torchvision recipe's optimizer (SGD with momentum for "
            "ResNets, AdamW foreach for ViTs), 224 px unless stated", "derived, not measured", estimate.overhead_assumption)


@table("vision-key-numbers")
def key_numbers() -> Table:
    """Headline figures of the vision page."""
    r50 = vision_training_memory("resnet-50", batch=256)
    vit = vision_training_memory("vit-b-16", batch=256)
    rows = (
        ("ResNet-50 parameters (exact, from layer shapes)", number(vision_parameters("resnet-50") / 1e6, 2), "M",
         vision_parameters),
        ("ResNet-50 saved activations per 224 px image", number(activation_bytes_per_image("resnet-50") / MIB, 1),
         "MiB", activation_bytes_per_image),
        ("ViT-B/16 saved activations per 224 px image", number(activation_bytes_per_image("vit-b-16") / MIB, 1),
         "MiB", activation_bytes_per_image),
        ("ResNet-50, batch 256: total on the GPU", gib(r50.total_bytes, 1, grouped=False), "GiB",
         vision_training_memory),
        ("ViT-B/16, batch 256: total on the GPU", gib(vit.total_bytes, 1, grouped=False), "GiB",
         vision_training_memory),
    )
    return Table.key_numbers(rows, columns=("quantity", "value", "unit", "function"), dotted=True,
                             caption="Derived by the calculators.", assumptions=_assumptions(r50))


@table("vision-parameters")
def parameters() -> Table:
    """Parameters computed from layer shapes against the published counts."""
    rows = []
    for model in all_vision_models():
        ours = vision_parameters(model)
        published = model.published_parameters
        assert model.source is not None
        rows.append((model.name, model.family, ours, published,
                     "0" if published == ours else (f"{ours - published:+,}" if published else "n/a"),
                     f"[{model.source.title.split(' (')[0]}]({model.source.url})"))
    return Table.of(
        caption=("Parameters computed from the torchvision layer shapes (conv weights without bias, BatchNorm weight "
                 "and bias, classifier; ViT class token and 224 px position embedding) against the num_params "
                 "torchvision publishes for its ImageNet-1k weights."),
        columns=(Column("network"), Column("family"), number_column("computed"),
                 number_column("published", missing="unknown"), Column("difference", align="r"), Column("source")),
        rows=rows)


@table("vision-activations")
def activations() -> Table:
    """Saved activation bytes per image by resolution and precision."""
    rows = []
    for model in all_vision_models():
        for size in RESOLUTIONS:
            tokens = str(vit_tokens(model, resolution=size)) if model.family == "vit" else "-"
            rows.append((model.name, size, tokens,
                         activation_bytes_per_image(model, resolution=size, precision="bf16-mixed") / MIB,
                         activation_bytes_per_image(model, resolution=size, precision="fp32") / MIB))
    return Table.of(
        caption=("Bytes autograd keeps for backward per image (MiB = 2^20 bytes), derived tensor by tensor from the "
                 "torchvision implementations (see How it works). bf16-mixed counts the 16-bit cast of the image; "
                 "fp32 does not count the input. ViT tokens = (resolution / 16)^2 + 1."),
        columns=(Column("network"), Column("resolution px", align="r"), Column("ViT tokens", align="r"),
                 decimal_column("bf16-mixed MiB per image"), decimal_column("fp32 MiB per image")),
        rows=rows)


@table("vision-trace-check")
def trace_check() -> Table:
    """Derived fp32 saved bytes against the CPU trace of the real torchvision models."""
    rows = []
    for model_id, traced in sorted(TRACED_FP32_BYTES.items()):
        model = get_vision_model(model_id)
        # The trace counts per-batch BatchNorm tensors (batch statistics and running buffers) once per batch.
        derived = activation_bytes_per_image(model, precision="fp32") + 8 * batchnorm_channels(model) / TRACE_BATCH
        rows.append((model.name, derived, traced, (derived - traced) / traced))
    return Table.of(
        caption=(f"Saved bytes per image of one fp32 training forward at 224 px: derived (activation_bytes_per_image "
                 f"plus BatchNorm's per-batch mean and inverse std, shared by the {TRACE_BATCH} images of the traced "
                 "batch) against a trace of the torchvision models with torch.autograd.graph.saved_tensors_hooks on "
                 "CPU (PyTorch 2.13, torchvision 0.28, batch 2). The remaining ResNet gap is BatchNorm's running "
                 "statistics, which batch_norm saves and this guide counts with the weights."),
        columns=(Column("network"), number_column("derived bytes"), number_column("traced bytes"),
                 Column("difference", signed_error, "r")),
        rows=rows)


@table("vision-memory-by-batch")
def memory_by_batch() -> Table:
    """total_bytes of one training step by batch size."""
    rows = []
    for model in all_vision_models():
        estimates = [vision_training_memory(model, batch=b) for b in BATCHES]
        rows.append((model.name, vision_parameters(model), RECIPE_OPTIMIZER[model.family],
                     *(estimate.total_bytes for estimate in estimates)))
    return Table.of(
        caption="total_bytes (GiB = 2^30 bytes) of one training step on one GPU at 224 px, by images per batch.",
        columns=(Column("network"), decimal_column("params M", unit=1e6), Column("optimizer"),
                 *(gib_column(f"batch {b} GiB", 1) for b in BATCHES)),
        rows=rows, assumptions=_assumptions(estimates[0]))


def _largest_batch(model_id: str, capacity_bytes: int) -> int:
    """The largest batch (powers of two up to 4096) whose total_bytes fits in ``capacity_bytes``; 0 if none."""
    best, batch = 0, 1
    while batch <= 4096:
        if vision_training_memory(model_id, batch=batch).total_bytes > capacity_bytes:
            break
        best, batch = batch, batch * 2
    return best


@table("vision-claim-check")
def claim_check() -> Table:
    """The guides' '10-200M params: 8-24 GB' for CNN/ResNet training, against the calculators."""
    rows = []
    for model in all_vision_models():
        params = vision_parameters(model)
        low = _largest_batch(model.id, CLAIM_LOW_BYTES)
        high = _largest_batch(model.id, CLAIM_HIGH_BYTES)
        batch1 = vision_training_memory(model, batch=1)
        rows.append((model.name, params, "yes" if 10e6 <= params <= 200e6 else "no", batch1.total_bytes, low, high))
    gpu = get_gpu("rtx-4090")
    return Table.of(
        caption=("The claim 'CNN/ResNet training (image classification): 10-200M params, 8-24GB' (VRLA Tech, April "
                 "2026) against the calculators: memory at batch 1 (decimal GB, as the claim is written) and the "
                 "largest power-of-two batch whose total_bytes fits in 8 GB and in 24 GB. The weights and optimizer "
                 "are a small part; the batch decides the memory. "
                 f"24 GB is the class of the {gpu.name} ({gpu.memory_gib:g} GiB)."),
        columns=(Column("network"), decimal_column("params M", unit=1e6), Column("in 10-200M"),
                 gb_column("batch 1 GB", 2, grouped=False), Column("largest batch in 8 GB", align="r"),
                 Column("largest batch in 24 GB", align="r")),
        rows=rows, assumptions=_assumptions(batch1))


TABLES: dict[str, TableFunction] = declared_tables(globals())
