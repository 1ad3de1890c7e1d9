"""Numbers in the prose of the Memory and Fine-tuning sections (docs/memory/*, docs/fine-tuning/*).

>>> precision_foreach_bytes_per_parameter().text
'20.0'
"""

from __future__ import annotations

from calculators.catalog.models import get_model
from calculators.catalog.vision_models import get_vision_model
from calculators.claims.figures import MIXED, MODEL_7B
from calculators.dtypes import DType
from calculators.inline_values import Value, ValueFunction, bound, declared_values, quantity, value
from calculators.memory import overhead
from calculators.memory.training import training_memory
from calculators.memory.vision import vision_training_memory, vit_tokens
from calculators.memory.weights import quantized_bytes_per_element
from calculators.tables import computed_by

MEASURED = "measured on one H100 80GB (tests/data/measurements_cuda/h100-sxm); calculators.memory.overhead"
NF4_LAYOUT = "blocks of 64, 8-bit scales, one fp32 constant per 256 blocks (QLoRA paper)"


@value("precision-foreach-bytes-per-parameter")
def precision_foreach_bytes_per_parameter(value_id: str) -> Value:
    """Peak allocated bytes per parameter of full fine-tuning with foreach AdamW and bf16-mixed (Llama 3 8B)."""
    spec = get_model("llama-3-8b")
    job = training_memory(spec, method="full", precision="bf16-mixed", optimizer="adamw", batch=1, seq=2048)
    return quantity(value_id, job.peak_allocated_bytes / spec.parameters, digits=1, unit="", kind="derived",
                    description="Peak allocated bytes per parameter of a full fine-tune of Llama 3 8B with bf16 "
                                "autocast and PyTorch's default (foreach) AdamW, batch 1 x 2048 tokens.",
                    assumptions=("SDPA attention, no gradient checkpointing, optimizer step is the peak",))


def nf4_bits(value_id: str) -> Value:
    """Bits per parameter of NF4 with double quantisation (``quantized_bytes_per_element``)."""
    return quantity(value_id, 8 * quantized_bytes_per_element(DType.NF4), digits=3, unit="", kind="derived",
                    description="Bits per parameter of an NF4 weight with double-quantised block scales "
                                "(4 + 8/64 + 32/(64 x 256)).", assumptions=(NF4_LAYOUT,))


def nf4_scale_bits(value_id: str) -> Value:
    """Bits per parameter NF4's double-quantised scales add on top of the 4-bit value."""
    bits = 8 * quantized_bytes_per_element(DType.NF4) - 8 * DType.NF4.bytes_per_element
    return quantity(value_id, bits, digits=3, unit="", kind="derived", assumptions=(NF4_LAYOUT,),
                    description="Bits per parameter the double-quantised block scales add to an NF4 weight.")


@value("overhead-cuda-context")
def cuda_context(value_id: str) -> Value:
    """The CUDA context and libraries one process holds outside PyTorch's allocator, MiB (measured)."""
    return quantity(value_id, overhead.CUDA_CONTEXT_BYTES, digits=0, unit="MiB", kind="measured",
                    description="CUDA context per GPU counted in total_bytes (median of 147 H100 runs).",
                    assumptions=(MEASURED,))


@value("overhead-cublas-workspace")
def cublas_workspace(value_id: str) -> Value:
    """The cuBLAS workspaces inside the allocated peak, MiB (measured)."""
    return quantity(value_id, overhead.CUDA_WORKSPACE_BYTES, digits=0, unit="MiB", kind="measured",
                    description="cuBLAS and cuBLASLt workspaces counted in peak_allocated_bytes.",
                    assumptions=(MEASURED,))


@value("overhead-allocator-reserve")
def allocator_reserve(value_id: str) -> Value:
    """The allocator reserve per byte of the largest transient block, % (fitted)."""
    return quantity(value_id, overhead.RESERVE_FIT.per_block, digits=0, unit="%", kind="measured",
                    description="Caching-allocator reserve counted in total_bytes, as a share of the step's largest "
                                "transient block (median fit on 147 H100 runs).", assumptions=(MEASURED,))


@value("overhead-uncertainty-base")
def uncertainty_base(value_id: str) -> Value:
    """The fixed part of the fit margin (free memory a step needs beyond its live tensors), GiB."""
    return quantity(value_id, overhead.FIT_MARGIN.base_bytes, digits=0, unit="GiB", kind="measured",
                    description="Fixed part of the memory a step needs free beyond its live tensors and the CUDA "
                                "context, set on the largest batches that ran on an H100.",
                    assumptions=(MEASURED,))


@value("precision-step-bytes-per-param")
def training_step_bytes_per_param(value_id: str) -> Value:
    """total_bytes per parameter of a full bf16-mixed AdamW step (Llama 2 7B, batch 1 x 2048), as the audit reads
    the bytes-per-parameter rules (``calculators.claims.vendor_tables.bpp_figure``)."""
    spec = get_model(MODEL_7B)
    per_param = training_memory(spec, **MIXED, batch=1, seq=2048).total_bytes / spec.parameters
    return quantity(value_id, per_param, digits=0, unit="bytes per parameter", kind="derived",
                    description="total_bytes per parameter of one full bf16-mixed AdamW training step of Llama 2 7B "
                                "at batch 1 x 2048 tokens.",
                    assumptions=(computed_by(training_memory, dotted=True, code=False),))


def vit_b16_tokens(value_id: str, *, resolution: int) -> Value:
    """Tokens a ViT-B/16 sees at a resolution (patches plus the class token)."""
    return quantity(value_id, vit_tokens(get_vision_model("vit-b-16"), resolution=resolution), digits=0, unit="",
                    kind="derived", description=f"Tokens of ViT-B/16 at {resolution} px: (resolution / 16)^2 + 1.")


@value("vision-example-total")
def vit_b16_total(value_id: str) -> Value:
    """GPU memory of the vision worked example: ViT-B/16, 224 px, batch 128, AdamW, bf16 autocast."""
    estimate = vision_training_memory("vit-b-16", batch=128, resolution=224)
    return quantity(value_id, estimate.total_bytes, digits=2, unit="GiB", kind="derived",
                    description="Total GPU memory of training ViT-B/16 at 224 px, batch 128, with the page's "
                                "worked-example settings.",
                    assumptions=("runtime overhead assumed (calculators.memory.overhead)",))


VALUES: dict[str, ValueFunction] = declared_values(globals(), {
    "fine-tuning-nf4-bits": bound(nf4_bits),
    "qlora-nf4-bits": bound(nf4_bits),
    "qlora-nf4-scale-bits": bound(nf4_scale_bits),
    "vision-tokens-224": bound(vit_b16_tokens, resolution=224),
    "vision-tokens-384": bound(vit_b16_tokens, resolution=384),
})
