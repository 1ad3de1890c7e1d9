"""Which number formats a GPU runs natively, and what a job asks of it: refused, or run with a note.

A format is *native* when the GPU's matrix units multiply in it. On NVIDIA parts the
compute capability decides (Transformer Engine's support matrix; the CUDA GPUs page gives
each card's capability):

* FP16 tensor cores from Volta (7.0); FP32 everywhere (non-tensor);
* BF16 from Ampere (8.0): "BF16 requires compute capability 8.0 or higher";
* FP8 from Ada (8.9) and Hopper (9.0): "FP8 (per tensor) ... requires compute capability
  8.9 or higher";
* FP4 from Blackwell (10.0 data centre; 12.0 RTX parts run FP4 GEMMs per TensorRT-RTX).

Other GPUs (AMD, a custom GPU without a capability) run a format when their record gives a
dense rate for it. Apple GPUs (MPS) run fp32 and fp16, and bf16 from macOS 14 (PyTorch
enables MPS bf16 only there; M1 and M2 emulate it); no FP8 or FP4.

What a job asks:

* **weights** in fp32, bf16, fp16 or fp8 are multiplied in that format: a GPU without it is
  refused (bf16 on a V100: use fp16, same bytes; fp8 on an A100: use int8, same bytes);
* **weight-only** int8, int4 and nf4 are dequantised to 16 bits inside the matmul kernels,
  which exist for every GPU here (assumed: specific kernels such as Marlin need 8.0), so they
  run everywhere and the note says so;
* the **KV cache** is storage: an fp8 cache on a GPU without FP8 is dequantised in the
  attention kernel (note), a bf16 cache needs bf16;
* a **training** precision (``bf16-mixed``, ``bf16``, ``fp16-mixed``...) needs its 16-bit
  format natively: bf16 on a V100 or T4 is refused (use fp16-mixed).

>>> from calculators.catalog.gpus import get_gpu
>>> native_formats(get_gpu("a100-80gb-sxm"))
('fp32', 'fp16', 'bf16')
>>> serving_notes(get_gpu("a100-80gb-sxm"), weights="fp8")
Traceback (most recent call last):
...
calculators.dtype_support.UnsupportedFormatError: weights: got 'fp8'; expected a format A100 SXM 80GB runs: fp8 needs compute capability 8.9 or higher (Ada, Hopper, Blackwell); A100 SXM 80GB has 8.0. int8 weights take the same bytes and run here (dequantised to 16 bits)

References:
    NVIDIA Transformer Engine, "Datatype and hardware support matrix"
    (https://nvidia.github.io/TransformerEngine/support_matrix.html); NVIDIA, "CUDA GPU
    Compute Capability" (https://developer.nvidia.com/cuda-gpus); docs page "Hardware",
    section "Compute capability and which dtypes each GPU runs".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.catalog.sources import Source
from calculators.dtypes import DType
from calculators.errors import InputError
from calculators.validate import GPU_RECORD, instance_of

_READ = "2026-11-25"
TRANSFORMER_ENGINE = Source("NVIDIA Transformer Engine documentation: Datatype and hardware support matrix",
                            "https://nvidia.github.io/TransformerEngine/support_matrix.html", _READ)
TENSORRT_RTX = Source("NVIDIA TensorRT-RTX Support Matrix, Table 1 Supported Hardware (FP4 GEMM on 12.0)",
                      "https://docs.nvidia.com/deeplearning/tensorrt-rtx/latest/getting-started/support-matrix.html",
                      _READ)
MPS_BF16 = Source("PyTorch pull request #119641: [MPS] Enable bfloat16 support on MacOS 14",
                  "https://github.com/pytorch/pytorch/pull/119641", _READ)
MPS_BF16_AUTOCAST = Source("PyTorch issue #139386: [MPS] Extend autocast support to bf16 (MPS autocast was fp16 only; "
                           "bf16 needs macOS 14)", "https://github.com/pytorch/pytorch/issues/139386", _READ)
MPS_FLASH = Source("Dao-AILab/flash-attention issue #770: 'No we only support GPUs with CUDA capability'",
                   "https://github.com/Dao-AILab/flash-attention/issues/770", _READ)
MPS_BNB = Source("bitsandbytes pull request #1983 (merged 2026-07-01): MPS backend for the 4-bit and LLM.int8() "
                 "paths, needs torch >= 2.9, 8-bit optimizers not yet; before it bitsandbytes ran on CUDA only "
                 "(transformers issue #23970)",
                 "https://github.com/bitsandbytes-foundation/bitsandbytes/pull/1983", _READ)

#: Compute formats in the order tables show them; fp4 has no storage dtype in this guide.
FORMATS = ("fp32", "fp16", "bf16", "fp8", "fp4")
#: Lowest NVIDIA compute capability with a native path for each format.
MIN_CAPABILITY = {"fp32": (0, 0), "fp16": (7, 0), "bf16": (8, 0), "fp8": (8, 9), "fp4": (10, 0)}
_WHICH = {"bf16": "Ampere or later", "fp8": "Ada, Hopper, Blackwell", "fp4": "Blackwell", "fp16": "Volta or later"}
#: Weight formats stored in fewer bits and dequantised to 16 bits for the multiply.
WEIGHT_ONLY = (DType.INT8, DType.INT4, DType.NF4)
#: What PyTorch on Apple silicon (MPS) cannot do for training, each with its source.
MPS_TRAINING_LIMITS: tuple[tuple[str, Source], ...] = (
    ("bf16 needs macOS 14 or later (PyTorch refuses MPS bf16 before), and M1/M2 emulate it; autocast on MPS "
     "was fp16-only until PyTorch added bf16 for macOS 14", MPS_BF16_AUTOCAST),
    ("no FlashAttention (the flash-attn package is CUDA-only): attention runs through PyTorch SDPA's MPS kernels",
     MPS_FLASH),
    ("QLoRA's bitsandbytes 4-bit layers run on MPS only from bitsandbytes' 2026-07 MPS backend (torch 2.9 or "
     "later), without its 8-bit optimizers; older installs are CUDA-only", MPS_BNB),
)


class UnsupportedFormatError(InputError):
    """A job asks a GPU for a number format it has no native path for."""


def compute_capability(gpu: GPU) -> tuple[int, int] | None:
    """NVIDIA's compute capability as ``(major, minor)``, or ``None`` where the catalog has none.

    >>> from calculators.catalog.gpus import get_gpu
    >>> compute_capability(get_gpu("h100-sxm")), compute_capability(get_gpu("mi300x"))
    ((9, 0), None)
    """
    if gpu.compute_capability is None:
        return None
    major, _, minor = gpu.compute_capability.partition(".")
    return int(major), int(minor or 0)


def _has_rate(gpu: GPU, fmt: str) -> bool:
    rates = {"fp32": gpu.fp32_flop_per_s, "fp16": gpu.fp16_dense_flop_per_s, "bf16": gpu.bf16_dense_flop_per_s,
             "fp8": gpu.fp8_dense_flop_per_s, "fp4": gpu.fp4_dense_flop_per_s}
    return rates.get(fmt) is not None


def runs_natively(gpu: GPU, fmt: str) -> bool:
    """True when ``gpu`` multiplies in ``fmt`` (one of :data:`FORMATS`) natively.

    >>> from calculators.catalog.gpus import get_gpu
    >>> [runs_natively(get_gpu(gpu), fmt) for gpu, fmt in (("v100-sxm2-32gb", "bf16"), ("rtx-4090", "fp8"), ("b200", "fp4"))]
    [False, True, True]
    """
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    if fmt not in FORMATS:
        raise InputError("format", fmt, f"one of {', '.join(FORMATS)}")
    capability = compute_capability(record)
    if capability is not None:
        return capability >= MIN_CAPABILITY[fmt]
    if record.vendor == "Apple":
        return fmt in ("fp32", "fp16", "bf16")
    return fmt == "fp32" or _has_rate(record, fmt)


def native_formats(gpu: GPU) -> tuple[str, ...]:
    """The compute formats ``gpu`` runs natively, in :data:`FORMATS` order."""
    return tuple(fmt for fmt in FORMATS if runs_natively(gpu, fmt))


def sixteen_bit(gpu: GPU) -> str:
    """The 16-bit float format ``gpu`` runs: ``"bf16"`` where native, else ``"fp16"`` (same bytes).

    >>> from calculators.catalog.gpus import get_gpu
    >>> sixteen_bit(get_gpu("h100-sxm")), sixteen_bit(get_gpu("t4"))
    ('bf16', 'fp16')
    """
    return "bf16" if runs_natively(gpu, "bf16") else "fp16"


def on_gpu(gpu: GPU, settings: Mapping[str, Any]) -> dict[str, Any]:
    """``settings`` in the 16-bit float format ``gpu`` runs: bf16 becomes fp16 where it has no BF16.

    For listings over the whole catalog (the fit table, ``mlhw fit`` without ``--gpu``): the
    bytes are the same, so each GPU is asked what it would really run. Other formats pass
    unchanged (and fp8 on a GPU without FP8 is still refused).

    >>> from calculators.catalog.gpus import get_gpu
    >>> on_gpu(get_gpu("v100-sxm2-32gb"), {"weights": "bf16", "precision": "bf16-mixed", "batch": 4})
    {'weights': 'fp16', 'precision': 'fp16-mixed', 'batch': 4}
    """
    if sixteen_bit(gpu) == "bf16":
        return dict(settings)
    swap = {"bf16": "fp16", "bf16-mixed": "fp16-mixed"}
    return {key: swap.get(str(value), value) if key in ("weights", "kv_cache", "precision") else value
            for key, value in settings.items()}


def _why_not(gpu: GPU, fmt: str) -> str:
    if gpu.compute_capability is not None:
        major, minor = MIN_CAPABILITY[fmt]
        return (f"{fmt} needs compute capability {major}.{minor} or higher ({_WHICH[fmt]}); "
                f"{gpu.name} has {gpu.compute_capability}")
    if gpu.vendor == "Apple":
        return f"Apple GPUs (MPS) have no {fmt} path"
    return f"{gpu.name} has no {fmt} rate given, so no native {fmt} path is assumed"


def serving_notes(gpu: GPU, *, weights: str | DType = "bf16", kv_cache: str | DType = "bf16",
                  weights_label: str | None = None) -> tuple[str, ...]:
    """Check that ``gpu`` can serve weights and a KV cache in these formats; the notes to show.

    ``weights_label`` names the weights in the note (a format id such as ``q4_k_m`` or
    ``mxfp4`` whose family ``weights`` is); the family's name when ``None``.

    Raises:
        UnsupportedFormatError: (an ``InputError`` naming ``weights`` or ``kv_cache``) the GPU
            cannot multiply in the format asked, with the reason and what to use instead.

    >>> from calculators.catalog.gpus import get_gpu
    >>> serving_notes(get_gpu("rtx-3090"), weights="int4", kv_cache="fp8")[0]
    'int4 weights are dequantised to 16 bits for each multiply (weight-only format; runs on any GPU here)'
    """
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    w, kv = DType.parse(weights, "weights"), DType.parse(kv_cache, "kv_cache")
    notes: list[str] = []
    if w in WEIGHT_ONLY:
        notes.append(f"{weights_label or w.value} weights are dequantised to 16 bits for each multiply "
                     "(weight-only format; runs on any GPU here)")
    elif not runs_natively(record, w.value):
        instead = {"fp8": "int8 weights take the same bytes and run here (dequantised to 16 bits)",
                   "bf16": "fp16 weights take the same bytes and run here"}.get(w.value, "choose another format")
        raise UnsupportedFormatError("weights", w.value,
                                     f"a format {record.name} runs: {_why_not(record, w.value)}. {instead}")
    if kv is DType.FP8 and not runs_natively(record, "fp8"):
        notes.append(f"fp8 KV cache is storage only on {record.name} (no FP8 path): dequantised in the attention "
                     "kernel, so it saves memory and bandwidth, not compute")
    elif kv is not DType.FP8 and not runs_natively(record, kv.value):
        raise UnsupportedFormatError("kv_cache", kv.value, f"a format {record.name} runs: {_why_not(record, kv.value)}"
                                     "; fp16 takes the same bytes")
    return tuple(notes)


def training_notes(gpu: GPU, *, precision: str = "bf16-mixed", method: str = "full") -> tuple[str, ...]:
    """Check that ``gpu`` can train in ``precision``; the notes to show (MPS limits on a Mac).

    Raises:
        UnsupportedFormatError: (naming ``precision``) bf16 on a GPU without BF16, with the fix.

    >>> from calculators.catalog.gpus import get_gpu
    >>> training_notes(get_gpu("v100-sxm2-32gb"), precision="bf16-mixed")
    Traceback (most recent call last):
    ...
    calculators.dtype_support.UnsupportedFormatError: precision: got 'bf16-mixed'; expected a precision Tesla V100 SXM2 32GB runs: bf16 needs compute capability 8.0 or higher (Ampere or later); Tesla V100 SXM2 32GB has 7.0. Use fp16-mixed (same memory, loss scaling)
    """
    record = instance_of("gpu", gpu, GPU, GPU_RECORD)
    fmt = "fp32" if precision == "fp32" else precision.split("-", 1)[0]
    if fmt not in FORMATS:
        raise InputError("precision", precision, "fp32, bf16-mixed, fp16-mixed, bf16 or fp16")
    if not runs_natively(record, fmt):
        raise UnsupportedFormatError("precision", precision, f"a precision {record.name} runs: "
                                     f"{_why_not(record, fmt)}. Use fp16-mixed (same memory, loss scaling)")
    notes: list[str] = []
    if record.vendor == "Apple":
        limits = [text for text, _ in MPS_TRAINING_LIMITS if method == "qlora" or "QLoRA" not in text]
        notes.append("training on Apple silicon (PyTorch MPS): " + "; ".join(limits))
    return tuple(notes)
