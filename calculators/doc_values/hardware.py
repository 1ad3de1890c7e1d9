"""GPU memory sizes named in the prose of every section, read from the GPU catalog.

A sentence such as "a 24 GiB consumer card" names a card class; the number is the
catalog's ``memory_bytes`` of that card (a spec figure with its source and as-of date),
so it follows the catalog if a record is corrected. One function serves every mention
through ``functools.partial``; the page decides whether the unit is written.

>>> gpu_memory("demo", gpu="h200").text
'141 GiB'
>>> gpu_memory("demo", gpu="rtx-4090", unit=False).text
'24'
"""

from __future__ import annotations

from calculators.catalog.gpus import get_gpu
from calculators.inline_values import Value, ValueFunction, bound, declared_values, quantity
from calculators.units import GIB


def gpu_memory(value_id: str, *, gpu: str, unit: bool = True) -> Value:
    """Memory of one catalog GPU in GiB (``GPU.memory_bytes``), a spec figure, without decimals when whole."""
    card = get_gpu(gpu)
    source = card.source_of("memory_bytes")
    digits = 0 if card.memory_bytes % GIB == 0 else 1
    return quantity(value_id, card.memory_bytes, scale=GIB, digits=digits, unit="GiB" if unit else "", kind="spec",
                    description=f"Memory of the {card.name} in the GPU catalog.",
                    assumptions=(f"{source.title}, {source.url}, as of {source.as_of}",))


#: (value id, catalog GPU id, unit written) of every GPU size named in the prose.
MENTIONS: tuple[tuple[str, str, bool], ...] = (
    ("fine-tuning-intro-gpu-24", "rtx-4090", True),
    ("fine-tuning-intro-gpu-48", "l40s", True),
    ("fine-tuning-intro-gpu-80", "h100-sxm", True),
    ("fine-tuning-intro-gpu-141", "h200", True),
    ("fine-tuning-fit-gpu-24", "rtx-4090", True),
    ("fine-tuning-fit-gpu-48", "l40s", True),
    ("fine-tuning-fit-gpu-80", "h100-sxm", True),
    ("fine-tuning-fit-gpu-141", "h200", True),
    ("fine-tuning-reading-gpu-24", "rtx-4090", True),
    ("fine-tuning-reading-gpu-141", "h200", True),
    ("fine-tuning-example-l40s", "l40s", True),
    ("fine-tuning-headroom-h100", "h100-sxm", True),
    ("inference-intro-gpu-24", "rtx-4090", False),
    ("inference-intro-gpu-48", "l40s", False),
    ("inference-intro-gpu-80", "h100-sxm", False),
    ("inference-intro-gpu-141", "h200", True),
    ("inference-example-gpu-24", "rtx-4090", True),
    ("moe-gpu-80", "h100-sxm", True),
    ("moe-try-gpu-80", "h100-sxm", True),
    ("quantization-claims-gpu-80", "h100-sxm", True),
    ("quantization-claims-gpu-24", "rtx-4090", True),
    ("quantization-try-l40s", "l40s", True),
    ("quantization-example-l40s", "l40s", True),
    ("hardware-h100-gib", "h100-sxm", True),
    ("activations-levers-gpu-80", "h100-sxm", True),
)

VALUES: dict[str, ValueFunction] = declared_values(globals(), {
    value_id: bound(gpu_memory, gpu=gpu, unit=unit) for value_id, gpu, unit in MENTIONS})
