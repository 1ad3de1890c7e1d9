"""Memory traffic a training step pays beside its FLOPs: eager attention's score matrices, QLoRA's dequantisation.

Both are byte-bound kernels timed at the GPU's memory bandwidth and added to a micro-batch's compute
time by :func:`calculators.performance.training_time.training_time`: eager attention writes and reads
the ``batch x heads x seq x seq`` score matrix in several kernels (:func:`eager_attention_s`, counted
from transformers' attention code); QLoRA turns every 4-bit base weight back into 16 bits before each
matmul that uses it (:func:`dequantisation_s`, the library's bytes and passes from
:mod:`calculators.memory.qlora_kernels`). Neither is fitted.

References:
    Hugging Face transformers v4.36.0, LlamaAttention.forward; Dao et al. 2022 (FlashAttention,
    arXiv:2205.14135); Dettmers et al. 2023 (QLoRA, arXiv:2305.14314); docs page "Training time".
"""

from __future__ import annotations

from calculators.catalog.gpus import GPU
from calculators.catalog.sources import Source
from calculators.memory.qlora_kernels import get_qlora_kernel
from calculators.memory.training_inputs import TrainingSetup
from calculators.model import ModelSpec
from calculators.validate import GPU_RECORD, instance_of, model_spec

#: Bytes per score-matrix element that eager attention's forward moves (16-bit scores, the softmax in FP32), counted
#: from transformers' LlamaAttention.forward (v4.36.0): the QK^T matmul writes the scores (2), the division by
#: sqrt(head_dim) reads and writes them (4), the mask addition too (4), the FP32 softmax reads 2 and writes 4 (6), the
#: cast back reads 4 and writes 2 (6), the PV matmul reads them (2).
EAGER_FORWARD_BYTES_PER_SCORE = 24.0
#: Bytes per score-matrix element of its backward: the PV matmul's gradient writes dP (2) and reads P (2), the cast's
#: backward reads 2 and writes 4 (6), the FP32 softmax backward reads its output and gradient and writes one (12), the
#: division's reads and writes (4), the QK^T matmul's two gradient products read dS (4).
EAGER_BACKWARD_BYTES_PER_SCORE = 30.0
EAGER_ATTENTION_SOURCE = Source(
    "Hugging Face transformers v4.36.0, src/transformers/models/llama/modeling_llama.py, LlamaAttention.forward: "
    "matmul(q, k^T) / sqrt(head_dim), + attention_mask, softmax(dtype=float32).to(q.dtype), matmul(weights, v)",
    "https://github.com/huggingface/transformers/blob/v4.36.0/src/transformers/models/llama/modeling_llama.py",
    "2026-11-25")


def eager_attention_s(spec: ModelSpec, gpu: GPU, setup: TrainingSetup) -> float:
    """Memory time of eager attention's score matrices in one micro-batch on one GPU (no tensor parallel), seconds.

    Formula: ``layers x batch x heads x seq^2 x (forward passes x 24 + 30) bytes / memory bandwidth``, one
    forward pass, two with full recomputation (:data:`EAGER_FORWARD_BYTES_PER_SCORE`,
    :data:`EAGER_BACKWARD_BYTES_PER_SCORE`; :data:`EAGER_ATTENTION_SOURCE`). A fused kernel
    (FlashAttention, Dao et al. 2022, arXiv:2205.14135) keeps the scores on chip and moves none of these
    bytes; the matmuls' FLOPs are counted with the rest of attention's. ``setup`` gives the micro-batch
    (``batch``, ``seq``) and ``grad_checkpointing``.

    >>> from calculators.catalog.gpus import get_gpu
    >>> from calculators.catalog.models import get_model
    >>> from calculators.memory.training_inputs import TrainingSetup
    >>> t = eager_attention_s(get_model("llama-2-7b"), get_gpu("a100-80gb-sxm"), TrainingSetup.of(batch=4, seq=1024))
    >>> round(32 * 4 * 32 * 1024**2 * 54 / get_gpu("a100-80gb-sxm").memory_bandwidth_bytes_per_s / t, 6)
    1.0
    """
    spec, gpu = model_spec("spec", spec), instance_of("gpu", gpu, GPU, GPU_RECORD)
    passes = 2 if setup.grad_checkpointing else 1
    scores = spec.attention_layers * setup.batch * spec.num_attention_heads * setup.seq ** 2
    return scores * (passes * EAGER_FORWARD_BYTES_PER_SCORE + EAGER_BACKWARD_BYTES_PER_SCORE) \
        / gpu.memory_bandwidth_bytes_per_s


def dequantisation_s(spec: ModelSpec, gpu: GPU, setup: TrainingSetup) -> float:
    """Memory time of QLoRA's dequantisations in one micro-batch on one GPU (no tensor parallel), seconds.

    Formula: ``passes x quantized parameters x bytes per weight / memory bandwidth``: the decoder's
    linear weights (the embedding and the output head stay 16-bit) are dequantised once per pass;
    the passes and bytes per weight are the library's (:mod:`calculators.memory.qlora_kernels`:
    bitsandbytes NF4 3 passes with recomputation at 2.5 bytes, AutoGPTQ 2 at 16.5), for ``setup``'s
    ``qlora_weights`` and ``grad_checkpointing``. The time does not grow with the tokens of the
    micro-batch, so it weighs most on short ones.

    >>> from calculators.catalog.gpus import get_gpu
    >>> from calculators.catalog.models import get_model
    >>> from calculators.memory.training_inputs import TrainingSetup
    >>> spec, gpu = get_model("llama-2-7b"), get_gpu("a100-80gb-sxm")
    >>> setup = TrainingSetup.of(method="qlora", qlora_weights="gptq-int4-g128", grad_checkpointing=True)
    >>> t = dequantisation_s(spec, gpu, setup)
    >>> round(t / (2 * spec.linear_parameters * 16.5 / gpu.memory_bandwidth_bytes_per_s), 6)
    1.0
    """
    spec, gpu = model_spec("spec", spec), instance_of("gpu", gpu, GPU, GPU_RECORD)
    kernel = get_qlora_kernel(setup.qlora_weights)
    return (kernel.passes(grad_checkpointing=setup.grad_checkpointing) * spec.linear_parameters
            * kernel.bytes_per_weight / gpu.memory_bandwidth_bytes_per_s)


__all__ = ["EAGER_ATTENTION_SOURCE", "EAGER_BACKWARD_BYTES_PER_SCORE", "EAGER_FORWARD_BYTES_PER_SCORE",
           "dequantisation_s", "eager_attention_s"]
