"""Fused attention kernels and the share of a GPU's dense 16-bit rate their training pass reaches.

A training step's attention products (``QK^T`` and ``PV``, forward and backward) run in one fused
kernel, not in the GEMMs the fitted utilisation stands for, and a kernel reaches its own fraction of
the dense rate, which depends on the kernel and on the GPU architecture it was written for (its compute capability:
the kernels are compiled per SM): FlashAttention-2, written for the A100 (8.0), reaches about half of an A100's peak
but a third of an H100's (9.0: it uses none of Hopper's asynchronous instructions); the Triton FlashAttention that
llm-foundry's MPT ran is slower again.

``attention time = kernel FLOPs / (dense 16-bit rate x efficiency)``

The kernel FLOPs are counted as the kernels' own benchmarks count them (``flash-attention``'s
``benchmarks/benchmark_flash_attention.py``): forward ``4 x seq^2 x heads x head_dim`` per sequence and
layer, halved with a causal mask (the kernel skips the masked blocks), backward 2.5 times the forward (it
recomputes the scores); so a causal training pass runs ``7/12`` of the ``12 x q_dim x seq`` per token
that :func:`calculators.model_flops.training_flops_per_token` counts for attention (the full square, as PaLM and
Megatron-LM count it). Each efficiency below is the kernel's forward-and-backward throughput in its paper at
head dimension 128 and long sequences, over the GPU's dense 16-bit peak; the values are read from the papers'
text, not fitted. A compute capability a kernel has no figure for (the A100's GA102 siblings, Ada, Blackwell, a
custom GPU that states none) gets its lowest (conservative: promises less).

>>> round(attention_efficiency("flash-attention-2", "9.0"), 2)
0.35

References:
    Dao 2023, FlashAttention-2 (arXiv:2307.08691): "50-73% of the theoretical maximum FLOPs/s on A100"
    (forward), backward up to 63 %; "1.3-2.5x faster than FlashAttention in Triton".
    Shah et al. 2024, FlashAttention-3 (arXiv:2407.08608): "FlashAttention-2 achieving only 35% utilization
    on H100 GPUs"; FlashAttention-3 up to 740 TFLOPs/s BF16 forward (75 %), backward 1.5-1.75x FlashAttention-2;
    cuDNN's fused attention (Transformer Engine's on Hopper) within a few percent of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from calculators.catalog.sources import Source
from calculators.errors import UnknownNameError

_READ = "2026-11-29"
_FA2 = Source("Dao 2023, FlashAttention-2: Faster Attention with Better Parallelism and Work Partitioning "
              "(arXiv:2307.08691), abstract and section 4.1", "https://arxiv.org/abs/2307.08691", _READ)
_FA3 = Source("Shah et al. 2024, FlashAttention-3: Fast and Accurate Attention with Asynchrony and Low-precision "
              "(arXiv:2407.08608), abstract and section 4.1", "https://arxiv.org/abs/2407.08608", _READ)

#: Causal training pass: the kernel FLOPs over the ``12 x q_dim x seq`` per token the model counts
#: (forward 4, halved by the mask: 2; backward 2.5 x forward: 5; 7 of 12).
CAUSAL_KERNEL_FLOPS_SHARE = 7.0 / 12.0


@dataclass(frozen=True)
class AttentionKernel:
    """One fused attention kernel.

    Attributes:
        id: short name (``"flash-attention-2"``).
        name: the kernel in words, and who runs it.
        efficiency: compute capability (``"8.0"``: A100, ``"9.0"``: H100/H200) -> forward-and-backward
            throughput over the dense 16-bit peak (kernel FLOPs, causal).
        source: where the values are read.
    """

    id: str
    name: str
    efficiency: Mapping[str, float]
    source: Source

    def on(self, compute_capability: str | None) -> float:
        """The efficiency at a compute capability; one with no figure (or none stated) gets the lowest (conservative)."""
        return self.efficiency.get(compute_capability or "", min(self.efficiency.values()))


# FA2 on A100: forward 50-73 %, backward up to 63 %; a training pass is 1 forward + 2.5 backward, about 55 %.
# On H100: 35 % (FA3's abstract). Triton FlashAttention: FA2 is 1.3-2.5x faster, the middle (1.9x) taken.
# Transformer Engine's cuDNN attention on Hopper: forward up to 75 %, backward 1.5-1.75x FA2's 35 %; a pass,
# weighted 1 : 2.5 as above, about 55 %; on Ampere Transformer Engine runs FlashAttention-2.
KERNELS: tuple[AttentionKernel, ...] = (
    AttentionKernel("flash-attention-2", "FlashAttention-2 (flash-attn 2.x; PyTorch SDPA's flash backend)",
                    MappingProxyType({"8.0": 0.55, "9.0": 0.35}), _FA2),
    AttentionKernel("triton-flash", "FlashAttention in Triton (llm-foundry MPT's attn_impl: triton)",
                    MappingProxyType({"8.0": 0.29, "9.0": 0.18}), _FA2),
    AttentionKernel("cudnn-fused", "cuDNN fused attention (Transformer Engine: Megatron-Core, NeMo)",
                    MappingProxyType({"8.0": 0.55, "9.0": 0.55}), _FA3),
)
#: The kernel each training framework runs where a run names none (:mod:`calculators.catalog.training_frameworks`).
FRAMEWORK_KERNELS: Mapping[str, str] = MappingProxyType({"pytorch": "flash-attention-2", "megatron": "cudnn-fused"})
ATTENTION_KERNELS: tuple[str, ...] = ("auto", *(k.id for k in KERNELS))


def get_attention_kernel(kernel_id: str, *, framework: str = "pytorch") -> AttentionKernel:
    """The kernel with this id; ``"auto"``: the framework's (:data:`FRAMEWORK_KERNELS`).

    Raises:
        UnknownNameError: no such kernel (the message lists them).
    """
    key = FRAMEWORK_KERNELS.get(framework, "flash-attention-2") if kernel_id == "auto" else str(kernel_id)
    for kernel in KERNELS:
        if kernel.id == key:
            return kernel
    raise UnknownNameError("attention_kernel", str(kernel_id), list(ATTENTION_KERNELS))


def attention_efficiency(kernel_id: str, compute_capability: str | None, *, framework: str = "pytorch") -> float:
    """Forward-and-backward throughput of the kernel at a compute capability over the dense 16-bit peak."""
    return get_attention_kernel(kernel_id, framework=framework).on(compute_capability)


def step_compute_s(*, tokens: int, flops_per_token: float, linear_share: float, rate_flop_per_s: float,
                   utilisation: float, kernel: AttentionKernel | None, compute_capability: str | None,
                   rate16_flop_per_s: float | None = None) -> float:
    """Compute time of ``tokens`` tokens: the attention products at the kernel's efficiency, the rest at the utilisation.

    Formula: ``attention = flops_per_token x (1 - linear_share)``;
    ``tokens x (flops_per_token - attention) / (rate x utilisation)
    + tokens x attention x 7/12 / (16-bit rate x efficiency)``; ``kernel`` None (the scores written by separate
    kernels, eager attention): every FLOP at the utilisation, as before this term.

    >>> fa2 = get_attention_kernel("flash-attention-2")
    >>> round(step_compute_s(tokens=1, flops_per_token=12.0, linear_share=0.5, rate_flop_per_s=1.0, utilisation=0.5,
    ...                      kernel=fa2, compute_capability="9.0"), 2)  # 6 / 0.5 + 6 x 7/12 / 0.35
    22.0
    """
    if kernel is None:
        return tokens * flops_per_token / (rate_flop_per_s * utilisation)
    attention = flops_per_token * (1.0 - linear_share)
    rate16 = rate_flop_per_s if rate16_flop_per_s is None else rate16_flop_per_s
    return (tokens * (flops_per_token - attention) / (rate_flop_per_s * utilisation)
            + tokens * attention * CAUSAL_KERNEL_FLOPS_SHARE / (rate16 * kernel.on(compute_capability)))
