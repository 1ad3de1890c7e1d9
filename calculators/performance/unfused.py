"""Memory traffic of the kernels an engine runs between its matrix multiplies, and the GEMM rate it reaches.

Two kinds of work an engine's kernels add to a forward pass (facts of :mod:`calculators.catalog.engine_kernels`),
each memory-bound and run on its own between the matrix multiplies, so their time adds to the roofline of the
pass (:func:`calculators.performance.roofline.step_times`, ``unfused``):

* **materialised attention scores**: an engine without a fused attention kernel writes every score
  ``(query, key, head)`` to memory and reads it back in the softmax and the ``PV`` matmul:
  ``bytes = attention_score_bytes x heads x sum over chunks of (chunk tokens x keys attended at its end)``
  (keys summed over layers, :meth:`calculators.model.ModelSpec.attention_tokens_held`; a prompt processed in
  micro-batches of ``prefill_chunk_tokens`` attends, per chunk, to every key so far, masked ones included);
* **unfused elementwise kernels**: norms, rotary embedding, activation, residual adds and format conversions,
  each a kernel of its own, move every token's activations through memory:
  ``bytes = tokens x layers x (a_h h + a_q q_dim + a_k kv_dim + a_I I)`` (the engine's ``activation_bytes``);
* **dequantisation before a 16-bit GEMM** (llama.cpp's CUDA backend before mid-2024): per chunk of more than
  32 tokens, every quantised matrix weight is read and written out as FP16:
  ``bytes = chunks x (matmul parameters - LM head) x (bytes per weight + 2)``.

And the GEMM rate: an engine whose 16-bit GEMMs accumulate in FP16 (llama.cpp's cuBLAS calls) runs at the GPU's
FP16-accumulate rate where the GPU has a faster one (GeForce: twice the FP32-accumulate rate); an engine with no FP8
grouped GEMM for a mixture of experts (``moe_gemm_16bit``: TensorRT-LLM before v0.10) runs the routed experts' FLOPs
of an FP8 model at the GPU's 16-bit rate, and on Hopper at two thirds of it (its Ampere kernels' ``mma.sync``:
:func:`expert_gemm_rate_flop_per_s`, :func:`routed_expert_flops_per_token`).

>>> from calculators.catalog.models import get_model
>>> spec = get_model("llama-3-8b")  # 32 layers, 32 query heads
>>> score_elements(spec, batch=1, prompt=1024, chunk=512) == 32 * 32 * (512 * 512 + 512 * 1024)
True
"""

from __future__ import annotations

from calculators.catalog.engine_kernels import (
    LLAMA_CPP_CUBLAS_CONVERSION_BYTES,
    LLAMA_CPP_CUBLAS_SCORE_CONVERSION_BYTES,
    LLAMA_CPP_MMQ_MAX_BATCH,
    MMA_SYNC_HOPPER_FRACTION,
    REPEAT_KV_ACTIVATION_BYTES,
    WGMMA_MAJOR,
)
from calculators.catalog.gpus import GPU
from calculators.dtype_support import compute_capability
from calculators.dtypes import DType
from calculators.memory.weight_formats import WeightFormat
from calculators.model import ModelSpec
from calculators.model_flops import lm_head_parameters, matmul_parameters
from calculators.performance.flops import sustained_rate_flop_per_s
from calculators.performance.speed_setup import SpeedSetup


def score_elements(spec: ModelSpec, *, batch: int, prompt: int, chunk: int = 0) -> int:
    """Attention scores (query, key, head; summed over layers) an unfused attention computes for ``batch`` prompts.

    Formula: ``batch x heads x sum over chunks c of (tokens of c x attention_tokens_held(end of c))``; ``chunk``
    0 is the whole prompt at once (a full ``prompt x prompt`` square per layer, the causal mask applied to it).

    >>> from calculators.catalog.models import get_model
    >>> score_elements(get_model("llama-3-8b"), batch=2, prompt=100) == 2 * 32 * 100 * 100 * 32
    True
    """
    step = chunk if 0 < chunk < prompt else prompt
    total = 0
    for start in range(0, prompt, step):
        end = min(prompt, start + step)
        total += (end - start) * spec.attention_tokens_held(end)
    return batch * spec.num_attention_heads * total


def cublas_conversions(setup: SpeedSetup, *, gpu: GPU) -> bool:
    """True where the engine's 16-bit GEMMs go through cuBLAS with F32 activations converted around each call:
    llama.cpp (``fp16_accumulate``, its cuBLAS path) on a CUDA GPU."""
    return setup.kernels.fp16_accumulate and gpu.vendor == "NVIDIA"


def score_bytes(setup: SpeedSetup, *, gpu: GPU) -> int:
    """Bytes moved per attention score: the engine's, plus llama.cpp's conversions around cuBLAS on CUDA.

    >>> from calculators.catalog.gpus import get_gpu
    >>> llama = SpeedSetup.of(engine="llama.cpp", weights="fp16")
    >>> score_bytes(llama, gpu=get_gpu("rtx-4090")), score_bytes(llama, gpu=get_gpu("m3-ultra"))
    (24, 16)
    """
    engine_bytes = setup.kernels.attention_score_bytes
    if not engine_bytes:
        return 0
    return engine_bytes + (LLAMA_CPP_CUBLAS_SCORE_CONVERSION_BYTES if cublas_conversions(setup, gpu=gpu) else 0)


def activation_traffic_bytes(spec: ModelSpec, *, setup: SpeedSetup, gpu: GPU, tokens: int) -> int:
    """Bytes ``tokens`` tokens move through the engine's unfused elementwise kernels in one pass.

    Formula: ``tokens x layers x (a_h h + a_q q_dim + a_k kv_dim + a_I I)`` with the engine's
    ``activation_bytes`` ``(a_h, a_q, a_k, a_I)`` and ``I`` the MLP width a token passes through (a mixture of
    experts: ``experts per token x expert width``, plus its shared experts' width); an engine that copies the KV heads
    per query head (``"copied"``) adds ``4 (q_dim + kv_dim)`` on a grouped-query model, and llama.cpp on a CUDA GPU
    its conversions around cuBLAS (``42 h + 18 q + 12 kv + 18 I``).

    >>> from calculators.catalog.gpus import get_gpu
    >>> from calculators.catalog.models import get_model
    >>> spec, llama = get_model("llama-3-8b"), SpeedSetup.of(engine="llama.cpp", weights="bf16")
    >>> activation_traffic_bytes(spec, setup=llama, gpu=get_gpu("m3-ultra"), tokens=1) == 32 * (
    ...     56 * 4096 + 16 * 4096 + 20 * 1024 + 20 * 14336)
    True
    >>> activation_traffic_bytes(spec, setup=llama, gpu=get_gpu("rtx-4090"), tokens=1) == 32 * (
    ...     98 * 4096 + 34 * 4096 + 32 * 1024 + 38 * 14336)
    True
    """
    a_h, a_q, a_k, a_i = setup.kernels.activation_bytes
    if not (a_h or a_q or a_k or a_i):
        return 0
    if cublas_conversions(setup, gpu=gpu):
        c_h, c_q, c_k, c_i = LLAMA_CPP_CUBLAS_CONVERSION_BYTES
        a_h, a_q, a_k, a_i = a_h + c_h, a_q + c_q, a_k + c_k, a_i + c_i
    width = spec.intermediate_size
    if spec.moe is not None:
        m = spec.moe
        width = m.experts_per_token * m.expert_intermediate_size + m.num_shared_experts * m.shared_intermediate_size
    per_layer = a_h * spec.hidden_size + a_q * spec.q_dim + a_k * spec.kv_dim + a_i * width
    if setup.grouped_query_decode == "copied" and spec.mla is None and spec.num_attention_heads > spec.num_kv_heads:
        per_layer += REPEAT_KV_ACTIVATION_BYTES * (spec.q_dim + spec.kv_dim)  # repeat_kv's copies of K and V
    return tokens * spec.num_layers * per_layer


def decode_score_elements(spec: ModelSpec, *, batch: int, context: int) -> int:
    """Attention scores of one decode step: ``batch x heads x attention_tokens_held(context)``."""
    return batch * spec.num_attention_heads * spec.attention_tokens_held(context)


def dequantises(setup: SpeedSetup, *, gpu: GPU, tokens: int) -> bool:
    """True when the engine dequantises the weights to FP16 before its GEMMs for a pass over ``tokens`` tokens:
    an engine that does (llama.cpp before mid-2024), on a CUDA GPU, quantised weights, and more than 32 tokens per
    chunk (below, its quantised kernels multiply the blocks directly)."""
    kernels = setup.kernels
    per_chunk = min(tokens, kernels.prefill_chunk_tokens) if kernels.prefill_chunk_tokens else tokens
    return (kernels.dequantised_gemm and gpu.vendor == "NVIDIA" and setup.weights in (DType.INT4, DType.INT8, DType.NF4)
            and per_chunk > LLAMA_CPP_MMQ_MAX_BATCH)


def dequantised_bytes(spec: ModelSpec, *, form: WeightFormat, setup: SpeedSetup, gpu: GPU, tokens: int) -> int:
    """Bytes the dequantisation before each GEMM moves in a pass over ``tokens`` tokens (0 where none runs).

    >>> from calculators.catalog.gpus import get_gpu
    >>> from calculators.catalog.models import get_model
    >>> from calculators.memory.weight_formats import weight_format
    >>> setup = SpeedSetup.of(engine="llama.cpp-2024", weights="q4_0")
    >>> spec, form = get_model("llama-3-8b"), weight_format("q4_0")
    >>> dequantised_bytes(spec, form=form, setup=setup, gpu=get_gpu("rtx-4090"), tokens=1024) == round(
    ...     2 * (matmul_parameters(spec) - lm_head_parameters(spec)) * (form.bytes_per_weight + 2))
    True
    >>> dequantised_bytes(spec, form=form, setup=setup, gpu=get_gpu("m3-ultra"), tokens=1024)  # Metal: in-kernel
    0
    """
    if not dequantises(setup, gpu=gpu, tokens=tokens):
        return 0
    chunk = setup.kernels.prefill_chunk_tokens or tokens
    chunks = -(-tokens // chunk)
    body = matmul_parameters(spec) - lm_head_parameters(spec)
    return int(round(chunks * body * (form.bytes_per_weight + 2)))


def gemm_rate_flop_per_s(gpu: GPU, *, dtype: DType, setup: SpeedSetup, tokens: int) -> float | None:
    """The rate the pass's matrix multiplies run at: the GPU's FP16-accumulate rate for an engine whose 16-bit GEMMs
    accumulate in FP16 (16-bit weights, or quantised ones it dequantises first) where the GPU has a faster one,
    else :func:`~calculators.performance.flops.sustained_rate_flop_per_s`.

    >>> from calculators.catalog.gpus import get_gpu
    >>> gemm_rate_flop_per_s(get_gpu("rtx-4090"), dtype=DType.BF16, tokens=512,
    ...                      setup=SpeedSetup.of(engine="llama.cpp", weights="fp16")) / 1e12
    330.3
    >>> gemm_rate_flop_per_s(get_gpu("rtx-4090"), dtype=DType.BF16, tokens=512,
    ...                      setup=SpeedSetup.of(engine="vllm", weights="fp16")) / 1e12
    165.2
    """
    faster = getattr(gpu, "fp16_accumulate_dense_flop_per_s", None)
    sixteen_bit = dtype is DType.BF16 and (setup.weights in (DType.BF16, DType.FP16)
                                           or dequantises(setup, gpu=gpu, tokens=tokens))
    if setup.kernels.fp16_accumulate and faster and sixteen_bit:
        return float(faster)
    return sustained_rate_flop_per_s(gpu, dtype)


def routed_expert_flops_per_token(spec: ModelSpec) -> float:
    """FLOP one token does in its routed experts' GEMMs: ``2 x MoE layers x experts per token x expert MLP parameters``
    (0 for a dense model; shared experts and the router are not routed experts).

    >>> from calculators.catalog.models import get_model
    >>> routed_expert_flops_per_token(get_model("mixtral-8x7b")) == 2 * 32 * 2 * 3 * 4096 * 14336
    True
    """
    if spec.moe is None:
        return 0.0
    m = spec.moe
    return 2.0 * spec.num_moe_layers * m.experts_per_token * spec.mlp_parameters(m.expert_intermediate_size)


def expert_gemm_rate_flop_per_s(gpu: GPU, *, dtype: DType, setup: SpeedSetup, tokens: int) -> float | None:
    """The rate a pass's routed-expert GEMMs run at where it differs from :func:`gemm_rate_flop_per_s`, else ``None``.

    An engine whose MoE layer has no FP8 GEMM (``moe_gemm_16bit``, :data:`calculators.catalog.engine_kernels.
    TENSORRT_LLM_MOE_GEMM_SOURCE`) runs an FP8 model's experts with 16-bit activations: the 16-bit rate. Its grouped
    GEMMs are Ampere (Sm80, ``mma.sync``) kernels, dispatched as such on Hopper too, where they reach
    :data:`~calculators.catalog.engine_kernels.MMA_SYNC_HOPPER_FRACTION` of the tensor rate
    (:data:`~calculators.catalog.engine_kernels.MMA_SYNC_ON_HOPPER_SOURCE`), whatever the weights' format.

    >>> from calculators.catalog.gpus import get_gpu
    >>> old = SpeedSetup.of(engine="tensorrt-llm-0.9", weights="fp8")
    >>> round(expert_gemm_rate_flop_per_s(get_gpu("h100-sxm"), dtype=DType.FP8, setup=old, tokens=2048) / 1e12, 1)
    659.6
    >>> expert_gemm_rate_flop_per_s(get_gpu("l40s"), dtype=DType.FP8, setup=old, tokens=2048) / 1e12
    362.05
    >>> expert_gemm_rate_flop_per_s(get_gpu("h100-sxm"), dtype=DType.FP8, tokens=2048,
    ...                             setup=SpeedSetup.of(engine="tensorrt-llm", weights="fp8")) is None
    True
    """
    if not setup.kernels.moe_gemm_16bit:
        return None
    hopper = gpu.vendor == "NVIDIA" and (compute_capability(gpu) or (0, 0))[0] == WGMMA_MAJOR
    if dtype is not DType.FP8 and not hopper:
        return None
    rate = gemm_rate_flop_per_s(gpu, dtype=DType.BF16, setup=setup, tokens=tokens)
    return None if rate is None else rate * (MMA_SYNC_HOPPER_FRACTION if hopper else 1.0)
