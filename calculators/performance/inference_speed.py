"""Decode and prefill speed of serving a model on GPUs: a roofline with stated efficiencies.

One decode step reads every active weight once and each sequence's KV cache once, and
does ``2 x active parameters`` FLOP per token plus attention over the cache. The projections
(weights) and the attention (KV cache) are separate kernels that run one after the other, each
taking about the larger of its memory time and its compute time (a roofline each, the two overlapped
in part as measured kernels overlap them: :func:`calculators.performance.roofline.overlapped_s`,
``overlap(m, c) = (m^4 + c^4)^(1/4)``), and their times add:

``t_step = overlap(weight bytes / (bandwidth x bw_eff), projection FLOPs / (rate x compute_eff))
+ overlap(KV bytes / (bandwidth x bw_eff), attention FLOPs / (rate x compute_eff)) + layers x step_overhead``

The efficiencies and the fixed costs come from the engine (:mod:`calculators.catalog.engines`:
``engine="vllm"``, ``"llama.cpp"``, ...; the default ``"generic"`` is 0.8 of bandwidth,
0.6 of the tensor rate and no fixed cost, the package's earlier assumption); explicit
``bandwidth_efficiency`` / ``compute_efficiency`` override the engine's. Routed-expert
bytes stream at the engine's ``moe_expert_efficiency`` of the dense rate, and the time to
first token adds the engine's fixed cost per request. On a grouped-query model, an engine
without a grouped-query decode kernel adds the KV reads it repeats per query head (or the
copies it makes) to the KV bytes: :func:`repeated_kv_traffic`.

Over ``N`` tensor-parallel GPUs each GPU reads and computes ``1/N`` of the step, then
the GPUs all-reduce their activations twice per layer (Megatron-LM), which adds
``t_comm`` from :mod:`calculators.parallel.tensor` (ring all-reduces over the GPUs'
link, with a per-collective latency; not overlapped). Over PCIe that term grows with
``N`` and with the batch, so tokens/s stops scaling where NVLink keeps scaling.

With both efficiencies at 1 (and the link at its full rate with no latency) this is a
lower bound on the step time (an upper bound on tokens/s); the defaults below make it
an estimate, and the "Inference speed" page compares it with published measurements.

>>> from calculators.catalog.gpus import get_gpu
>>> from calculators.catalog.models import get_model
>>> step = decode_step(get_model("llama-3-8b"), get_gpu("h100-sxm"), batch=1, context=1024)
>>> step.bound
'memory'
>>> round(step.tokens_per_s)  # per sequence = aggregate at batch 1
165

References:
    docs page "Inference speed"; Pope et al. 2022, "Efficiently Scaling Transformer
    Inference" (arXiv:2211.05102), section 2 (memory vs compute time of decoding).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.dtype_support import compute_capability, serving_notes
from calculators.errors import InputError
from calculators.fit import share_verdict
from calculators.inputs.gpu import resolve_gpu
from calculators.memory.kv_cache import kv_cache_shards
from calculators.memory.checkpoint_weights import stored_weights_note
from calculators.memory.inference import (
    MAX_CONTEXT,
    inference_memory_of,
    kv_cache_bytes,
    kv_cache_bytes_at,
    recurrent_state_bytes,
    with_stored_weights,
)
from calculators.model import ModelSpec
from calculators.parallel.tensor import tensor_parallel_communication
from calculators.performance.pass_peaks import pass_peaks, with_ungraphed_launches
from calculators.performance.flops import compute_rate_flop_per_s, rate_notes, sustained_rate_notes
from calculators.performance.forward_pass import (
    decode_flops_per_token,
    decode_flops_per_token_at,
    expert_bytes_read,
    prefill_flops,
    weight_bytes_read,
)
from calculators.performance.roofline import (
    EXACT_STEPS,
    Work,
    decode_contexts,
    step_times,
)
from calculators.performance.speed_setup import (
    DEFAULT_BANDWIDTH_EFFICIENCY,
    DEFAULT_COMPUTE_EFFICIENCY,
    SpeedSetup,
    SpeedInputs,
    compute_dtype,
)
from calculators.performance.error_bands import ErrorBand, speed_error_band
from calculators.performance.steps import DecodeStep, InferenceSpeed, Step
from calculators.performance.unfused import (
    activation_traffic_bytes,
    decode_score_elements,
    dequantised_bytes,
    routed_expert_flops_per_token,
    score_bytes,
    score_elements,
)
from calculators.validate import GPU_RECORD, instance_of, model_spec, nonnegative_int

__all__ = [
    "DEFAULT_BANDWIDTH_EFFICIENCY", "DEFAULT_COMPUTE_EFFICIENCY", "InferenceSpeed", "SpeedSetup", "Work",
    "decode_step", "decode_work", "decode_works", "inference_speed", "prefill", "prefill_work", "repeated_kv_traffic",
    "request_works", "SpeedInputs", "step_times",
]


def _step_times(work: Work, setup: SpeedSetup) -> tuple[float, float | None, float, float]:
    """:func:`step_times` of ``work`` with the setup's engine constants (seconds)."""
    return step_times(
        work, bandwidth_efficiency=setup.bandwidth_efficiency, compute_efficiency=setup.compute_efficiency,
        moe_expert_efficiency=setup.moe_expert_efficiency, step_overhead_s_per_layer=setup.step_overhead_s_per_layer,
        kv_reread_cost=setup.kv_reread_cost, sequence_overhead_s=setup.sequence_overhead_s)


def _roofline(work: Work, setup: SpeedSetup) -> dict[str, Any]:
    memory_time, compute_time, fixed, total = _step_times(work, setup)
    work_time = max(memory_time, compute_time or 0.0)
    bound = "compute" if compute_time is not None and compute_time > memory_time else "memory"
    if work.communication_s > work_time:
        bound = "communication"
    if fixed > max(work_time, work.communication_s):
        bound = "fixed cost"
    return {"memory_time_s": memory_time, "compute_time_s": compute_time,
            "communication_time_s": work.communication_s, "overhead_time_s": fixed, "time_s": total,
            "bound_time_s": max(work.memory_s, work.compute_s or 0.0) + work.communication_bound_s, "bound": bound}


def repeated_kv_traffic(spec: ModelSpec, setup: SpeedSetup) -> tuple[int, int]:
    """Extra KV-cache traffic of one decode step, in multiples of the cache: ``(repeated reads, copies)``.

    With ``g = query heads / KV heads`` (1 without grouped-query attention, and for the
    latent cache of MLA), by the engine's ``grouped_query_decode``
    (:mod:`calculators.catalog.engines`):

    * ``"grouped"``: ``(0, 0)``, each KV head is read once for its whole group;
    * ``"per-head"``: ``(g - 1, 0)``, each query head's block reads its KV head again
      (TensorRT-LLM before its XQA kernel, :data:`calculators.catalog.engines.XQA_SOURCE`);
      timed at the engine's fitted ``kv_reread_cost`` (the L2 cache serves part of them);
    * ``"copied"``: ``(0, 2 g)``, the KV heads are copied out once per query head (written)
      and the attention matmuls read the copy (eager transformers' ``repeat_kv``,
      :data:`~calculators.catalog.engines.REPEAT_KV_SOURCE`), all of it in memory.

    >>> from calculators.catalog.models import get_model
    >>> spec = get_model("llama-2-70b")  # 64 query heads, 8 KV heads
    >>> engines = ("tensorrt-llm", "tensorrt-llm-0.7", "transformers")
    >>> [repeated_kv_traffic(spec, SpeedSetup.of(engine=e, weights="bf16")) for e in engines]
    [(0, 0), (7, 0), (0, 16)]
    """
    group = 1 if spec.mla is not None else max(1, spec.num_attention_heads // spec.num_kv_heads)
    if group == 1 or setup.grouped_query_decode == "grouped":
        return 0, 0
    if setup.grouped_query_decode == "per-head":
        return group - 1, 0
    return 0, 2 * group


def decode_works(spec: ModelSpec, gpu: GPU, setup: SpeedSetup,
                 contexts: Sequence[int]) -> list[tuple[int, float, Work]]:
    """Bytes read, FLOPs and :class:`Work` of one decode step at each of ``contexts`` cached tokens.

    What no context changes (the weights and experts read, the FLOPs at an empty cache,
    the all-reduces, the peaks) is computed once for all the steps.
    """
    rereads, copies = repeated_kv_traffic(spec, setup)
    # Tensor parallelism splits the cache by KV heads: past them each GPU reads a copy (an MLA latent: all of it).
    replicas = -(-setup.gpus // min(setup.gpus, kv_cache_shards(spec)))
    weights = weight_bytes_read(spec, dtype=setup.format, tokens=setup.batch)
    experts = expert_bytes_read(spec, dtype=setup.format, tokens=setup.batch)
    empty_cache_flops = setup.batch * decode_flops_per_token(spec, context=0)
    expert_flops = setup.batch * routed_expert_flops_per_token(spec)
    peaks = pass_peaks(spec, gpu, setup, tokens=setup.batch, compute_dtype=compute_dtype(setup.weights))
    # Linear-attention and Mamba layers read and write their fixed state at every step.
    state_traffic = 2 * recurrent_state_bytes(spec, batch=setup.batch)
    works = []
    activations = activation_traffic_bytes(spec, setup=setup, gpu=gpu, tokens=setup.batch)
    per_score = score_bytes(setup, gpu=gpu)
    caches = kv_cache_bytes_at(spec, batch=setup.batch, contexts=contexts, kv_dtype=setup.kv_cache)
    # A build with no CUDA graph launches a step's short kernels from the CPU, one at a time (a measured cost per layer;
    # prefill's long kernels hide it); Metal and ROCm backends are not what it was measured on.
    launches = spec.num_layers * setup.kernels.host_launch_s_per_layer if gpu.vendor == "NVIDIA" else 0.0
    peaks = replace(peaks, host_launch_s=launches)
    if gpu.vendor == "Apple" and setup.kernels.metal_step_s_per_layer:
        # Metal replays no graph: the engine's measured fixed cost of a step's layers stands in for the fitted one
        # (no layer left for the fitted cost per layer to apply to).
        peaks = replace(peaks, layers=0, host_launch_s=spec.num_layers * setup.kernels.metal_step_s_per_layer)
    for context, cache_bytes, per_token in zip(contexts, caches, decode_flops_per_token_at(spec, contexts=contexts),
                                               strict=True):
        cache_traffic = cache_bytes * replicas * (1 + copies) + state_traffic
        bytes_read = weights + cache_traffic
        flops = setup.batch * per_token
        scores = (per_score * decode_score_elements(spec, batch=setup.batch, context=context)
                  + activations)
        work = peaks.work(bytes_read=bytes_read, flops=flops, expert_bytes=experts, attention_bytes=cache_traffic,
                          attention_flops=flops - empty_cache_flops, reread_bytes=cache_bytes * rereads,
                          unfused_bytes=scores, expert_flops=expert_flops)
        works.append((bytes_read, flops, with_ungraphed_launches(work, gpu, setup, decode=True)))
    return works


def decode_work(spec: ModelSpec, gpu: GPU, setup: SpeedSetup, context: int) -> tuple[int, float, Work]:
    """Bytes read, FLOPs and :class:`Work` of one decode step at ``context`` cached tokens (:func:`decode_works`)."""
    return decode_works(spec, gpu, setup, [context])[0]


def _decode(spec: ModelSpec, gpu: GPU, setup: SpeedSetup, context: int) -> DecodeStep:
    bytes_read, flops, work = decode_work(spec, gpu, setup, context)
    return DecodeStep(bytes_read=bytes_read, flops=flops, tokens=setup.batch, batch=setup.batch, context=context,
                      **_roofline(work, setup))


def decode_step(spec: ModelSpec, gpu: GPU, **settings: Any) -> DecodeStep:
    """Time of one decode step of ``batch`` sequences with ``context`` tokens cached each.

    Formula: bytes = weights read
    (:func:`~calculators.performance.forward_pass.weight_bytes_read`) +
    ``kv_cache_bytes(batch, context)``; FLOPs = ``batch x``
    :func:`~calculators.performance.forward_pass.decode_flops_per_token`; time = roofline of
    the two (module docstring) divided over ``gpus``, plus the tensor-parallel all-reduces
    of ``batch x hidden`` activations (:mod:`calculators.parallel.tensor`).

    Args:
        spec: model shapes.
        gpu: catalog GPU (memory bandwidth, dense rates).
        **settings: keyword arguments of :class:`SpeedInputs`.

    Returns:
        A :class:`DecodeStep`; ``tokens_per_s`` is per sequence, ``aggregate_tokens_per_s``
        for the batch.
    """
    spec, gpu = model_spec("spec", spec), instance_of("gpu", gpu, GPU, GPU_RECORD)
    setup = SpeedSetup.of(**with_stored_weights(spec, settings))
    serving_notes(gpu, weights=setup.weights, kv_cache=setup.kv_cache)  # refuses a format the GPU cannot run
    return replace(_decode(spec, gpu, setup, setup.context), error_band=_decode_band(gpu, setup))


def prefill_work(spec: ModelSpec, gpu: GPU, setup: SpeedSetup) -> tuple[int, float, Work]:
    tokens = setup.batch * setup.context
    bytes_read = (weight_bytes_read(spec, dtype=setup.format, tokens=tokens)
                  + kv_cache_bytes(spec, batch=setup.batch, context=setup.context, kv_dtype=setup.kv_cache)
                  + recurrent_state_bytes(spec, batch=setup.batch))
    flops = setup.batch * prefill_flops(spec, prompt=setup.context)
    peaks = pass_peaks(spec, gpu, setup, tokens=tokens, compute_dtype=compute_dtype(setup.weights))
    # Unfused kernels between the matmuls (:mod:`calculators.performance.unfused`): scores, dequantisation.
    scores = score_bytes(setup, gpu=gpu) * score_elements(spec, batch=setup.batch, prompt=setup.context,
                                                          chunk=setup.kernels.prefill_chunk_tokens)
    work = peaks.work(bytes_read=bytes_read, flops=flops,
                      expert_bytes=expert_bytes_read(spec, dtype=setup.format, tokens=tokens),
                      expert_flops=tokens * routed_expert_flops_per_token(spec),
                      unfused_bytes=scores + dequantised_bytes(spec, form=setup.format, setup=setup, gpu=gpu,
                                                               tokens=tokens)
                      + activation_traffic_bytes(spec, setup=setup, gpu=gpu, tokens=tokens))
    return bytes_read, flops, with_ungraphed_launches(work, gpu, setup, decode=False)


def _prefill(spec: ModelSpec, gpu: GPU, setup: SpeedSetup) -> Step:
    bytes_read, flops, work = prefill_work(spec, gpu, setup)
    return Step(bytes_read=bytes_read, flops=flops, tokens=setup.batch * setup.context, **_roofline(work, setup))


def prefill(spec: ModelSpec, gpu: GPU, **settings: Any) -> Step:
    """Time to prefill ``batch`` prompts of ``context`` tokens: the time to first token.

    Formula: FLOPs = ``batch x`` :func:`~calculators.performance.forward_pass.prefill_flops`;
    bytes = weights + the KV cache written; time = roofline of the two. Prompts are
    compute-bound beyond a few hundred tokens on data-centre GPUs.

    >>> from calculators.catalog.gpus import get_gpu
    >>> from calculators.catalog.models import get_model
    >>> first = prefill(get_model("llama-2-7b"), get_gpu("a100-80gb-sxm"), context=2048)
    >>> first.bound, round(first.time_s * 1000)  # milliseconds
    ('compute', 148)
    """
    spec, gpu = model_spec("spec", spec), instance_of("gpu", gpu, GPU, GPU_RECORD)
    setup = SpeedSetup.of(**with_stored_weights(spec, settings))
    serving_notes(gpu, weights=setup.weights, kv_cache=setup.kv_cache)
    return replace(_prefill(spec, gpu, setup),
                   error_band=speed_error_band("prefill_throughput", engine=setup.engine_family, gpu=gpu))


def _decode_band(gpu: GPU, setup: SpeedSetup) -> ErrorBand | None:
    """The error band of a decode step: figures at batch 1, or of batches and served loads."""
    category = "decode_batch1" if setup.batch == 1 else "batched_throughput"
    return speed_error_band(category, engine=setup.engine_family, gpu=gpu)


def _decode_steps(spec: ModelSpec, gpu: GPU, setup: SpeedSetup, *, new_tokens: int,
                  chunks: int = EXACT_STEPS) -> list[tuple[int, Work]]:
    """``(steps, Work)`` of the decode steps after the prefill (:func:`decode_contexts`)."""
    steps = decode_contexts(setup.context, new_tokens, chunks=chunks)
    works = decode_works(spec, gpu, setup, [context for _, context in steps])
    return [(count, work) for (count, _), (_, _, work) in zip(steps, works, strict=True)]


def request_works(spec: ModelSpec, gpu: GPU, setup: SpeedSetup, *, new_tokens: int,
                  chunks: int = EXACT_STEPS) -> tuple[Work, list[tuple[int, Work]]]:
    """The prefill's :class:`Work` and ``(steps, Work)`` of the decode steps of one static batch.

    What :func:`inference_speed` times: the generation time is the request overhead plus
    :func:`step_times` of the prefill plus each decode work times its step count. The
    speed-accuracy fit (:mod:`calculators.speed_accuracy.fit`) evaluates the same sum
    for many candidate constants without recomputing bytes and FLOPs.
    """
    return prefill_work(spec, gpu, setup)[2], _decode_steps(spec, gpu, setup, new_tokens=new_tokens, chunks=chunks)


def _decode_total_s(spec: ModelSpec, gpu: GPU, setup: SpeedSetup, new_tokens: int) -> float:
    """Seconds of the decode steps after the prefill (:func:`decode_contexts`)."""
    return sum(count * _step_times(work, setup)[3] for count, work in _decode_steps(spec, gpu, setup,
                                                                                     new_tokens=new_tokens))


#: Eager ``transformers`` decoding with SDPA on Hopper and later: measured on the shared H100 runs
#: (tests/data/measurements_cuda/h100-sxm, the same shapes with ``attn_implementation`` eager and sdpa).
CUDNN_PLAN_NOTE = (
    "transformers' default SDPA attention on this GPU generation: torch 2.5 and later send it to cuDNN first, which "
    "builds an execution plan for every new sequence length, so each decode step can pay a plan build; on the "
    "measured H100 (torch 2.11) a decode step took 16-76 ms longer with SDPA than with eager attention. This estimate "
    "is a step without plan building: load the model with attn_implementation='eager' (or a flash-attention kernel), "
    "or call torch.backends.cuda.enable_cudnn_sdp(False)")


def _cudnn_attention_first(gpu: GPU) -> bool:
    """True on the NVIDIA GPUs where PyTorch tries cuDNN attention first (compute capability 9.0 and later)."""
    capability = compute_capability(gpu)
    return gpu.vendor == "NVIDIA" and capability is not None and capability >= (9, 0)


def inference_speed(spec: ModelSpec, gpu: GPU, *, new_tokens: int = 256, **settings: Any) -> InferenceSpeed:
    """Decode rate, time to first token and generation throughput of one batch.

    Formula: generation time = prefill(batch, context) + sum of decode steps at contexts
    ``context + 1 .. context + new_tokens - 1``; output tokens/s = ``batch x new_tokens /
    generation time``. All sequences start and finish together (a static batch; see
    :mod:`calculators.performance.batching` for continuous batching).

    Args:
        spec: model shapes.
        gpu: catalog GPU.
        new_tokens: tokens generated per sequence.
        **settings: keyword arguments of :class:`SpeedInputs`.

    >>> from calculators.catalog.gpus import get_gpu
    >>> from calculators.catalog.models import get_model
    >>> speed = inference_speed(get_model("llama-3-8b"), get_gpu("rtx-4090"), context=1024)
    >>> speed.fits, speed.first_step.bound
    (True, 'memory')
    """
    spec, gpu = model_spec("spec", spec), resolve_gpu(gpu)
    setup = SpeedSetup.of(**with_stored_weights(spec, settings))
    format_notes = serving_notes(gpu, weights=setup.weights, kv_cache=setup.kv_cache,  # refuses what the GPU cannot run
                                 weights_label=setup.format.id if setup.format.checkpoint else None)
    new_tokens = nonnegative_int("new_tokens", new_tokens, maximum=MAX_CONTEXT)
    if setup.context + new_tokens > MAX_CONTEXT:
        raise InputError("new_tokens", new_tokens, f"at most {MAX_CONTEXT - setup.context} with this context")
    decode_band = _decode_band(gpu, setup)
    first = replace(_decode(spec, gpu, setup, setup.context), error_band=decode_band)
    last = replace(_decode(spec, gpu, setup, setup.context + new_tokens), error_band=decode_band)
    pre = replace(_prefill(spec, gpu, setup),
                  error_band=speed_error_band("time_to_first_token", engine=setup.engine_family, gpu=gpu))
    total = setup.request_overhead_s + pre.time_s + _decode_total_s(spec, gpu, setup, new_tokens)
    memory = inference_memory_of(spec, setup.serving_request(new_tokens=new_tokens))  # new_tokens checked above
    verdict = share_verdict(memory, gpu, gpus=setup.gpus)
    notes = list(format_notes)
    if setup.format.checkpoint is not None:
        notes.insert(0, stored_weights_note(spec, setup.format.checkpoint))
    if compute_rate_flop_per_s(gpu, compute_dtype(setup.weights)) is None:
        notes.append(f"{gpu.name} has no published dense rate for this format: compute time unknown, "
                     "so every time is the memory time only (a lower bound)")
    notes.extend(rate_notes(gpu, compute_dtype(setup.weights)))
    notes.extend(sustained_rate_notes(gpu, compute_dtype(setup.weights)))
    if spec.mla is not None:
        notes.append("multi-head latent attention: attention FLOPs counted as per-head attention over q_dim; "
                     "the cache read is the compressed latent")
    if spec.moe is not None:
        notes.append("mixture of experts: experts read per step assume uniform, independent routing; routed-expert "
                     f"weights stream at {setup.moe_expert_efficiency:.3g} of the dense rate (engine {setup.engine})")
    if setup.engine == "transformers" and _cudnn_attention_first(gpu):
        notes.append(CUDNN_PLAN_NOTE)
    assumptions = setup.assumptions() + (
        "a static batch: every sequence has the same prompt and the same number of new tokens",
        "time to first token = the engine's fixed cost per request + prefill of the whole batch; queueing "
        "behind other requests and network time not counted",
    )
    if setup.gpus > 1:
        link = setup.link(gpu)
        comm = tensor_parallel_communication(spec, tokens=setup.batch, gpus=setup.gpus, link=link,
                                             efficiency=setup.collective_efficiency,
                                             custom_kernel=setup.custom_all_reduce)
        assumptions += (comm.assumption(),
                        "memory per GPU: weights, KV cache and activations of one-GPU inference_memory divided by "
                        "the GPU count; each GPU keeps its own context and workspaces")
        if link.kind == "pcie" and not link.host_staged and gpu.segment == "consumer":
            notes.append("GeForce drivers disable peer-to-peer PCIe transfers; this peer-to-peer link needs a patched "
                         "driver, else NCCL stages all-reduces through host memory (the default link, "
                         f"{link.id}-host), slower than this estimate")
    return InferenceSpeed(
        model=spec.name, gpu=gpu.name, gpus=setup.gpus, batch=setup.batch, context=setup.context,
        new_tokens=new_tokens, first_step=first, last_step=last, prefill=pre, generation_time_s=total,
        output_tokens_per_s=setup.batch * new_tokens / total if new_tokens else 0.0,
        memory_total_bytes=verdict.total_bytes, memory_capacity_bytes=verdict.usable_bytes, fits=verdict.fits,
        verdict=verdict.verdict, memory_uncertainty_bytes=verdict.uncertainty_bytes,
        assumptions=assumptions, notes=tuple(notes), engine=setup.engine, request_overhead_s=setup.request_overhead_s,
        generation_band=decode_band, memory=memory, setup=setup)
