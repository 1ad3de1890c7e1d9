"""Numbers in the prose of the Memory and Fine-tuning sections (docs/memory/*, docs/fine-tuning/*).

>>> precision_foreach_bytes_per_parameter().text
'20.0'
"""

from __future__ import annotations

import functools

from calculators.catalog.models import get_model
from calculators.catalog.vision_models import get_vision_model
from calculators.dtypes import DType
from calculators.inline_values import Value, ValueFunction, quantity
from calculators.memory import overhead
from calculators.memory.vision import vision_training_memory, vit_tokens
from calculators.memory.training import training_memory
from calculators.memory.weights import quantized_bytes_per_element

GIB, MIB = 2**30, 2**20
ASSUMED = "assumed by calculators.memory.overhead pending GPU calibration"


def precision_foreach_bytes_per_parameter() -> Value:
    """Peak allocated bytes per parameter of full fine-tuning with foreach AdamW and bf16-mixed (Llama 3 8B)."""
    spec = get_model("llama-3-8b")
    job = training_memory(spec, method="full", precision="bf16-mixed", optimizer="adamw", batch=1, seq=2048)
    return quantity("precision-foreach-bytes-per-parameter", job.peak_allocated_bytes / spec.parameters, digits=1,
                    unit="", kind="derived",
                    description="Peak allocated bytes per parameter of a full fine-tune of Llama 3 8B with bf16 "
                                "autocast and PyTorch's default (foreach) AdamW, batch 1 x 2048 tokens.",
                    assumptions=("SDPA attention, no gradient checkpointing, optimizer step is the peak",))


def nf4_bits(value_id: str) -> Value:
    """Bits per parameter of NF4 with double quantisation (``quantized_bytes_per_element``)."""
    return quantity(value_id, 8 * quantized_bytes_per_element(DType.NF4), digits=3, unit="", kind="derived",
                    description="Bits per parameter of an NF4 weight with double-quantised block scales "
                                "(4 + 8/64 + 32/(64 x 256)).",
                    assumptions=("blocks of 64, 8-bit scales, one fp32 constant per 256 blocks (QLoRA paper)",))


def nf4_scale_bits(value_id: str) -> Value:
    """Bits per parameter NF4's double-quantised scales add on top of the 4-bit value."""
    bits = 8 * quantized_bytes_per_element(DType.NF4) - 8 * DType.NF4.bytes_per_element
    return quantity(value_id, bits, digits=3, unit="", kind="derived",
                    description="Bits per parameter the double-quantised block scales add to an NF4 weight.",
                    assumptions=("blocks of 64, 8-bit scales, one fp32 constant per 256 blocks (QLoRA paper)",))


def cuda_context() -> Value:
    """The CUDA context every GPU holds, MiB (an assumption of ``runtime_overhead_bytes``)."""
    return quantity("overhead-cuda-context", overhead.CUDA_CONTEXT_BYTES, scale=MIB, digits=0, unit="MiB",
                    kind="assumed", description="CUDA context per GPU counted in total_bytes.", assumptions=(ASSUMED,))


def cublas_workspace() -> Value:
    """The cuBLAS workspace every GPU holds, MiB (an assumption of ``runtime_overhead_bytes``)."""
    return quantity("overhead-cublas-workspace", overhead.CUBLAS_WORKSPACE_BYTES, scale=MIB, digits=0, unit="MiB",
                    kind="assumed", description="cuBLAS workspace per GPU counted in total_bytes.",
                    assumptions=(ASSUMED,))


def allocator_slack() -> Value:
    """Allocator slack as a percentage of the allocated peak (an assumption of ``runtime_overhead_bytes``)."""
    return quantity("overhead-allocator-slack", overhead.ALLOCATOR_SLACK_FRACTION, scale=0.01, digits=0, unit="%",
                    kind="assumed", description="Caching-allocator slack counted in total_bytes, as a share of the "
                                                "allocated peak.", assumptions=(ASSUMED,))


def vit_b16_tokens(value_id: str, *, resolution: int) -> Value:
    """Tokens a ViT-B/16 sees at a resolution (patches plus the class token)."""
    return quantity(value_id, vit_tokens(get_vision_model("vit-b-16"), resolution=resolution), digits=0, unit="",
                    kind="derived", description=f"Tokens of ViT-B/16 at {resolution} px: (resolution / 16)^2 + 1.")


def vit_b16_total() -> Value:
    """GPU memory of the vision worked example: ViT-B/16, 224 px, batch 128, AdamW, bf16 autocast."""
    estimate = vision_training_memory("vit-b-16", batch=128, resolution=224)
    return quantity("vision-example-total", estimate.total_bytes, scale=GIB, digits=2, unit="GiB", kind="derived",
                    description="Total GPU memory of training ViT-B/16 at 224 px, batch 128, with the page's "
                                "worked-example settings.",
                    assumptions=("runtime overhead assumed (calculators.memory.overhead)",))


VALUES: dict[str, ValueFunction] = {
    "precision-foreach-bytes-per-parameter": precision_foreach_bytes_per_parameter,
    "fine-tuning-nf4-bits": functools.partial(nf4_bits, "fine-tuning-nf4-bits"),
    "qlora-nf4-bits": functools.partial(nf4_bits, "qlora-nf4-bits"),
    "qlora-nf4-scale-bits": functools.partial(nf4_scale_bits, "qlora-nf4-scale-bits"),
    "overhead-cuda-context": cuda_context,
    "overhead-cublas-workspace": cublas_workspace,
    "overhead-allocator-slack": allocator_slack,
    "vision-tokens-224": functools.partial(vit_b16_tokens, "vision-tokens-224", resolution=224),
    "vision-tokens-384": functools.partial(vit_b16_tokens, "vision-tokens-384", resolution=384),
    "vision-example-total": vit_b16_total,
}
