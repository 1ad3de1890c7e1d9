"""QLoRA's quantized base weights: how each library turns them back into 16-bit weights for a matmul.

A QLoRA step never multiplies by the 4-bit weights themselves: before every matmul that uses a
frozen base weight, the library dequantises it into a 16-bit tensor and calls an ordinary
16-bit GEMM. That costs memory traffic the FLOP count does not see, and, for one library,
memory: what the dequantised weight's life is decides both.

* ``nf4``: bitsandbytes 4-bit NormalFloat (Dettmers et al. 2023, arXiv:2305.14314), the format of
  Hugging Face PEFT's QLoRA, LLaMA-Factory's and torchtune's recipes. ``MatMul4Bit.forward`` calls
  ``F.dequantize_4bit`` (one CUDA kernel: reads the 4-bit codes and the block scales, writes the
  16-bit weight), multiplies, and drops the 16-bit copy; ``MatMul4Bit.backward`` dequantises again
  for the input gradient. Passes over the weights per micro-batch: forward, the recomputed forward
  with activation checkpointing, backward.
* ``gptq-int4-g128``: a GPTQ int4 checkpoint (group size 128) loaded through AutoGPTQ, the path of
  Qwen's Q-LoRA scripts and of PEFT on GPTQ models. For inputs of 128 rows or more
  (``kernel_switch_threshold``, any training micro-batch) ``QuantLinear.forward`` unpacks the weight
  with separate PyTorch operations (shift, cast, mask, subtract the zeros, multiply by the scales)
  and calls ``torch.matmul``; autograd saves the 16-bit weight it multiplied by for the backward,
  so the backward does not dequantise again but the 16-bit weight stays alive from a layer's
  forward to its backward. Passes: forward, and the recomputed forward with checkpointing.

Bytes moved per weight per dequantisation are counted from each library's code (reads and writes
of every elementwise operation, the GEMM's own read of the 16-bit weight left out: it is part of any
16-bit matmul). They are derived, not measured.

>>> get_qlora_kernel("gptq-int4-g128").bytes_per_weight
16.5
>>> round(get_qlora_kernel("nf4").bytes_per_weight, 3)
2.516
>>> get_qlora_kernel("nf4").passes(grad_checkpointing=True), get_qlora_kernel("gptq-int4-g128").passes(
...     grad_checkpointing=True)
(3, 2)

References:
    bitsandbytes ``bitsandbytes/autograd/_functions.py`` (``MatMul4Bit``); AutoGPTQ
    ``auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py`` (``QuantLinear.forward``).
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.catalog.sources import Source
from calculators.errors import UnknownNameError
from calculators.memory.weight_formats import weight_format
from calculators.validate import flag

_READ = "2026-11-25"
#: Bytes per element of the 16-bit weight a dequantisation writes.
SIXTEEN_BIT_BYTES = 2.0


@dataclass(frozen=True)
class QloraKernel:
    """How one library dequantises QLoRA's frozen base weights.

    Attributes:
        id: the weight format id (:mod:`calculators.memory.weight_formats`), the ``qlora_weights`` input.
        name: the format and library, in words.
        library: the library and the function that does it.
        operations: ``(operation, bytes read per weight, bytes written per weight)`` of one dequantisation.
        backward_dequantises: the backward dequantises again (else autograd keeps the forward's 16-bit weight
            until the layer's backward: :attr:`keeps_sixteen_bit_weight`).
        source: the library's code, read at a commit.
    """

    id: str
    name: str
    library: str
    operations: tuple[tuple[str, float, float], ...]
    backward_dequantises: bool
    source: Source

    @property
    def bytes_per_weight(self) -> float:
        """Bytes read and written per base weight by one dequantisation (sum over :attr:`operations`)."""
        return sum(read + write for _name, read, write in self.operations)

    @property
    def keeps_sixteen_bit_weight(self) -> bool:
        """Autograd holds the dequantised 16-bit weight from the layer's forward to its backward."""
        return not self.backward_dequantises

    def passes(self, *, grad_checkpointing: bool) -> int:
        """Dequantisations of every base weight per micro-batch: forward (+ recomputed forward) (+ backward)."""
        recomputed = 1 if flag("grad_checkpointing", grad_checkpointing) else 0
        return 1 + recomputed + (1 if self.backward_dequantises else 0)


_NF4_STORED = weight_format("nf4").bytes_per_weight

_KERNELS: tuple[QloraKernel, ...] = (
    QloraKernel(
        id="nf4",
        name="NF4 through bitsandbytes",
        library="bitsandbytes F.dequantize_4bit (MatMul4Bit, forward and backward)",
        operations=(("dequantize_4bit: read the 4-bit codes and block scales, write the 16-bit weight",
                     _NF4_STORED, SIXTEEN_BIT_BYTES),),
        backward_dequantises=True,
        source=Source("bitsandbytes, bitsandbytes/autograd/_functions.py (MatMul4Bit) at 60a0d8a",
                      "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/"
                      "60a0d8a5084f4f592ace550aa683bcf5a449c82c/bitsandbytes/autograd/_functions.py", _READ,
                      kind="derived")),
    QloraKernel(
        id="gptq-int4-g128",
        name="GPTQ int4, groups of 128, through AutoGPTQ",
        library="AutoGPTQ QuantLinear.forward, PyTorch unpacking path (inputs of 128 rows or more)",
        operations=(("bitwise_right_shift of the packed int32 words into one int32 per weight", 0.5, 4.0),
                    (".to(torch.int8)", 4.0, 1.0),
                    ("bitwise_and with 15, in place", 1.0, 1.0),
                    ("weight - zeros (int8)", 1.0, 1.0),
                    ("scales * (...), to 16 bits", 1.0, SIXTEEN_BIT_BYTES)),
        backward_dequantises=False,
        source=Source("AutoGPTQ, auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py (QuantLinear.forward) at 179776b",
                      "https://github.com/AutoGPTQ/AutoGPTQ/blob/179776bd1d97a2e7f84b72318630f43719647a11/"
                      "auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py", _READ, kind="derived")),
)

#: The QLoRA base formats the calculators take (``qlora_weights``), the default first.
QLORA_WEIGHTS: tuple[str, ...] = tuple(kernel.id for kernel in _KERNELS)
DEFAULT_QLORA_WEIGHTS = "nf4"


def get_qlora_kernel(qlora_weights: str) -> QloraKernel:
    """The :class:`QloraKernel` of a QLoRA base format (case and surrounding spaces ignored).

    Raises:
        UnknownNameError: not one of :data:`QLORA_WEIGHTS` (the message lists them).
    """
    key = str(qlora_weights).strip().lower()
    for kernel in _KERNELS:
        if kernel.id == key:
            return kernel
    raise UnknownNameError("qlora_weights", str(qlora_weights), list(QLORA_WEIGHTS))
