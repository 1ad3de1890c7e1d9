"""Wall-clock time of training: FLOPs ≈ 6·N·D plus attention, at a fitted (or given) utilisation over N GPUs.

Per token, training does a forward (2 FLOP per matmul parameter) and a backward (4), so
``6 x N`` for a dense model and ``6 x active parameters`` for a mixture of experts,
plus attention's score and value products: ``12 x layers x q_dim x seq`` (PaLM,
Chowdhery et al. 2022, Appendix B; counted over the full sequence, not halved for the
causal mask, as PaLM and Megatron-LM count it). Full activation recomputation runs the
forward twice: 8·N instead of 6·N, 4/3 of the work.

LoRA and QLoRA freeze the base weights, so the backward pass skips their weight-gradient
matmuls (``dL/dW = x^T dy``, 2 FLOP per parameter per token) but still needs the input
gradients (``dL/dx = dy W^T``, another 2) to reach the adapters of earlier layers:

``LoRA FLOPs per token = 4 x N + 6 x N_adapter + attention``

(forward 2N, input gradients 2N; each adapter ``r x (in + out)`` parameters trains fully
at 6 per token; attention has no weights, so its forward 4 and backward 8 per layer and
attended token stay). Recomputation adds one forward, ``2 N + 2 N_adapter + 4 x q_dim x
seq`` per layer. Sources: Hu et al. 2021 (LoRA, arXiv:2106.09685) section 4 (only the
adapters receive gradients); the 2N forward / 4N backward split of Kaplan et al. 2020,
section 2.1, whose backward is half input gradients and half weight gradients. QLoRA
(Dettmers et al. 2023, arXiv:2305.14314) dequantises each 4-bit base weight to 16 bits before
every matmul that uses it: memory traffic, not FLOPs, timed at the GPU's memory bandwidth
(:func:`~calculators.performance.step_traffic.dequantisation_s`; the bytes per weight and the passes per micro-batch of each library
are counted from its code in :mod:`calculators.memory.qlora_kernels`).

``steady time = tokens x executed FLOPs per token / (GPUs x dense rate x utilisation x scaling efficiency)``
``+ micro-batches x host time``, ``whole run = steady time / goodput``

The goodput is the share of the wall clock spent training (:mod:`calculators.performance.goodput`):
interruptions expected from the job's GPUs and time (Llama 3's rate), each a restart plus the work
since the last checkpoint, and the checkpoint saves. It depends on the GPUs, not on the run's length:
about 1 for a benchmark on one node, 0.9 for 16,384 GPUs. Published whole runs hold more than
interruptions explain; the answer multiplies in the residual the utilisation fit finds on their
GPU-hours (:func:`~calculators.performance.utilisation.whole_run_residual`), as their scoring does.
A steady-state time (a benchmark) is ``goodput=1``.

With eager attention (``attention="eager"``: the model's own matmul-softmax-matmul, not a fused
FlashAttention kernel; or SDPA where it falls back to its math backend) each layer also writes and reads the ``batch x heads x seq x seq`` score
matrix in several byte-bound kernels (:func:`~calculators.performance.step_traffic.eager_attention_s`), added to the compute time.

The host time (:func:`~calculators.catalog.utilisation.host_overhead_s`) is the fixed cost of running
a micro-batch's Python forward through eager PyTorch module code, one kernel launch per operation: ``layers x forward
passes x per-layer overhead``, with the per-layer forward overhead of eager Hugging Face
transformers fitted on published batch-1 decode figures (where a step is almost nothing but
that overhead; :mod:`calculators.catalog.engines`), not on training runs. It does not grow with
the tokens of the micro-batch, so it is what makes small micro-batches slow: Qwen's LoRA runs
of one 1,024-token sequence per micro-batch take 0.35 s per micro-batch where 8,192 tokens take
2.7 s, 8 times as long for 8 times the tokens plus quadratic attention.

The utilisation is of the FLOPs actually executed on one GPU (hardware FLOPs), fitted on
published runs by :mod:`calculators.performance.utilisation` (the GPU's rate / bandwidth, FP8,
checkpointing, method, tokens per micro-batch) unless given; without recomputation it
is the model FLOPs utilisation (MFU). The scaling efficiency (1 on one GPU) covers the
data-parallel communication compute cannot hide (:mod:`calculators.performance.scaling`),
the tensor-parallel all-reduces and the pipeline bubble
(:mod:`calculators.performance.model_parallel`). With every factor at 1 the
time is a lower bound.

>>> from calculators.catalog.gpus import get_gpu
>>> from calculators.catalog.models import get_model
>>> run = training_time(get_model("llama-2-7b"), get_gpu("a100-80gb-sxm"), tokens=2 * 10**12, seq=4096,
...                     batch=4, goodput=1)
>>> round(run.mfu, 2), round(run.gpu_hours, -3)  # Meta published 184,320 GPU-hours for its whole run
(0.63, 131000.0)

References:
    docs page "Training time"; Kaplan et al. 2020 (arXiv:2001.08361) section 2.1;
    Chowdhery et al. 2022 (arXiv:2204.02311) Appendix B; Korthikanti et al. 2022
    (arXiv:2205.05198) on MFU vs hardware FLOPs utilisation.
"""

from __future__ import annotations

from typing import Any

from calculators.catalog.attention_kernels import get_attention_kernel, step_compute_s
from calculators.catalog.gpus import GPU
from calculators.catalog.sources import Source
from calculators.catalog.training_frameworks import get_training_framework
from calculators.catalog.utilisation import HOST_OVERHEAD_ENGINE as HOST_OVERHEAD_ENGINE
from calculators.catalog.utilisation import host_overhead_s as host_overhead_s
from calculators.dtypes import DType
from calculators.errors import InputError
from calculators.fit import FitChange, FitVerdict, Placement, fit_verdict, training_fit_advice, training_placement
from calculators.memory.kernels import layer_attention_path
from calculators.memory.qlora_kernels import get_qlora_kernel
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import training_memory_of
from calculators.memory.training_inputs import PRECISIONS, TrainingSetup
from calculators.memory.weight_formats import weight_format
from calculators.model import ModelSpec
from calculators.model_flops import adapter_parameters as adapter_parameters
from calculators.model_flops import forward_flops_per_token as forward_flops_per_token
from calculators.model_flops import linear_flops_share, runs_unfused, unfused_bytes_per_flop
from calculators.model_flops import training_flops_per_token as training_flops_per_token
from calculators.parallel.cluster import CLUSTER_DEFAULTS, Cluster
from calculators.parallel.cluster import MAX_STAGES as MAX_STAGES
from calculators.performance.error_bands import training_error_band
from calculators.performance.expert_parallel import (
    A2A_OVERLAP_URL,
    expert_parallel_communication,
    exposed_all_to_all_s,
    sharded_gradient_parameters,
)
from calculators.performance.flops import compute_rate_flop_per_s, rate_notes
from calculators.performance.model_parallel import model_parallel_step
from calculators.performance.scaling import PUBLISHED_GLOBAL_BATCHES as PUBLISHED_GLOBAL_BATCHES
from calculators.performance.scaling import data_parallel_overhead, global_batch_assumption
from calculators.performance.goodput import Goodput, run_goodput
from calculators.performance.step_traffic import EAGER_ATTENTION_SOURCE as EAGER_ATTENTION_SOURCE
from calculators.performance.step_traffic import EAGER_BACKWARD_BYTES_PER_SCORE as EAGER_BACKWARD_BYTES_PER_SCORE
from calculators.performance.step_traffic import EAGER_FORWARD_BYTES_PER_SCORE as EAGER_FORWARD_BYTES_PER_SCORE
from calculators.performance.step_traffic import dequantisation_s as dequantisation_s
from calculators.performance.step_traffic import eager_attention_s as eager_attention_s
from calculators.performance.training_result import SECONDS_PER_DAY as SECONDS_PER_DAY
from calculators.performance.training_result import SECONDS_PER_HOUR as SECONDS_PER_HOUR
from calculators.performance.training_result import TrainingTime as TrainingTime
from calculators.performance.training_run import MAX_TOKENS as MAX_TOKENS
from calculators.performance.training_run import RUN_DEFAULTS, TrainingRun, precision_dtype
from calculators.performance.utilisation import predicted_utilisation, whole_run_residual
from calculators.validate import (
    GPU_RECORD,
    finite_float,
    instance_of,
    one_of,
    positive_int,
    settings_signature,
)


def default_mfu(gpu: GPU) -> tuple[float, Source]:
    """The fitted steady-state utilisation for a GPU (BF16, full training, no recomputation) and its source.

    >>> from calculators.catalog.gpus import get_gpu
    >>> default_mfu(get_gpu("rtx-4090"))[1].kind
    'derived'
    """
    gpu = instance_of("gpu", gpu, GPU, GPU_RECORD)
    return predicted_utilisation(gpu), UTILISATION_SOURCE


UTILISATION_SOURCE = Source(
    "Fitted utilisation (calculators.performance.utilisation): GPU balance (rate / bandwidth) x framework x FP8 (Amdahl over the linear "
    "layers, the framework's FP8 recipe) x checkpointing x method x micro-batch tokens, fitted on the published runs of tests/data/published_speed/training.jsonl (Llama 2 paper, Llama 3 "
    "and 3.1 model cards, Llama 3 405B scaling table, NeMo 24.07, Megatron-Bridge, NeMo AutoModel, llm-foundry, "
    "torchtitan, torchtune, Qwen)", "https://github.com/mosaicml/llm-foundry/blob/061f2c7ce64e655100286584a7629e2a09f827ba/"
    "scripts/train/benchmarking/README.md", "2026-11-25", kind="derived")


@settings_signature({**RUN_DEFAULTS, **CLUSTER_DEFAULTS}, leading=("spec", "gpu"), required=("tokens",),
                    records=(TrainingRun, TrainingSetup, Cluster), types={"lora_targets": "str | tuple[str, ...]"})
def training_time(spec: ModelSpec, gpu: GPU | str, **settings: Any) -> TrainingTime:
    """Wall-clock time, GPU-hours and tokens/s of training ``spec`` on ``tokens`` tokens.

    Formula: each model replica (``tp x pp`` GPUs, ``dp = gpus / (tp x pp)`` replicas)
    runs ``grad_accumulation`` micro-batches of ``batch x seq`` tokens per step; a
    micro-batch's stage time is ``(tokens x executed FLOPs / (tp x rate x utilisation) +
    TP all-reduces) / pp`` and the step adds the pipeline bubble
    (:mod:`calculators.performance.model_parallel`) and the data-parallel communication
    compute cannot hide (:func:`~calculators.performance.scaling.data_parallel_overhead`);
    ``time = steps x step``. The utilisation is fitted (:mod:`calculators.performance.utilisation`)
    unless ``mfu`` is given; the rate is the GPU's dense BF16/FP16 tensor rate (``fp8``:
    the FP8 rate; fp32: the FP32 rate).

    Args:
        spec: model shapes.
        gpu: catalog GPU.
        tokens: training tokens (count).
        gpus: GPUs in the job, a multiple of ``tensor_parallel x pipeline_parallel``.
        mfu: fraction of the dense rate the executed FLOPs reach on each GPU, in (0, 1];
            ``None`` takes the fitted utilisation.
        precision: one of :data:`~calculators.memory.training_inputs.PRECISIONS`; picks the rate.
        grad_checkpointing: full activation recomputation (8·N instead of 6·N executed).
        selective_recompute: a selective policy's recomputed matmuls (:func:`~calculators.model_flops.selective_recompute_flops`).
        seq: sequence length in tokens (sets the attention term).
        method: ``"full"``, ``"lora"`` or ``"qlora"`` (frozen base: 4·N instead of 6·N).
        lora_rank, lora_targets: the adapters (LoRA/QLoRA only).
        batch: micro-batch per replica, sequences.
        grad_accumulation: micro-batches per optimizer step (the pipeline's micro-batches).
        global_batch_tokens: tokens per optimizer step over the whole job; the accumulation follows
            from it (``ceil(global / (replicas x batch x seq))``), so the gradient communication is paid
            once per that many tokens, as in pre-training (4M tokens for Llama 2, 4M-16M for Llama 3:
            :data:`~calculators.performance.scaling.PUBLISHED_GLOBAL_BATCHES`). ``None``: ``replicas x batch x seq x grad_accumulation``,
            one micro-batch per replica per step by default (stated in the assumptions).
        zero: ZeRO stage 0-3 of the data-parallel communication.
        interconnect: link id, or ``"auto"`` (the GPU's own link; across nodes above 8 GPUs).
        tensor_parallel, pipeline_parallel, virtual_stages: Megatron-style model parallelism.
        expert_parallel: GPUs a mixture of experts' routed experts are split over (a divisor of ``gpus /
            pipeline_parallel``); adds the all-to-alls that carry tokens to them
            (:mod:`calculators.performance.expert_parallel`) and shards their gradients.
        fp8: matmuls in FP8 (Transformer Engine); memory is counted as ``precision``.
        goodput: steady-state time / whole-run time, in (0, 1]; ``None`` models it from the
            job's GPUs (interruptions, restarts, checkpoint saves: :func:`~calculators.performance.goodput.run_goodput`);
            1 for a steady-state time.
        nic, nics_per_node: the network between nodes.
        framework: the training framework group (:mod:`calculators.catalog.training_frameworks`):
            ``"pytorch"`` (FSDP family, the default) or ``"megatron"`` (Megatron-Core + Transformer
            Engine); sets the fitted utilisation's framework factor.
        attention: one of :data:`~calculators.memory.training_inputs.ATTENTIONS`, as the memory model takes it:
            ``"sdpa"`` (the default) and ``"flash"`` run a fused kernel (FlashAttention, Transformer Engine),
            ``"eager"`` writes and reads the score matrix (:func:`~calculators.performance.step_traffic.eager_attention_s`), and so does SDPA where
            :func:`calculators.memory.kernels.layer_attention_path` says it falls back to its math backend.
        qlora_weights: the QLoRA base format, one of :data:`~calculators.memory.qlora_kernels.QLORA_WEIGHTS`:
            ``"nf4"`` (bitsandbytes, the default) or ``"gptq-int4-g128"`` (a GPTQ checkpoint through AutoGPTQ);
            sets the dequantisation time (:func:`~calculators.performance.step_traffic.dequantisation_s`) and, in memory, the storage and the 16-bit
            weights AutoGPTQ keeps for the backward.
        check_memory: compute the per-GPU memory verdict (skipped with tensor or pipeline parallel).

    The settings are checked once, as a :class:`~calculators.performance.training_run.TrainingRun`
    (:meth:`TrainingRun.of <calculators.performance.training_run.TrainingRun.of>`, which reads ``gpu`` once: an id,
    a ``custom:``/``mac:`` description or a record); :func:`training_run_time` times the record.

    Raises:
        InputError: a value out of range, or a GPU with no published rate for the precision.
    """
    return training_run_time(TrainingRun.of(spec=spec, gpu=gpu, **settings))


def training_run_time(run: TrainingRun, *, advise: bool = True) -> TrainingTime:
    """Wall-clock time, GPU-hours and tokens/s of a checked :class:`~calculators.performance.training_run.TrainingRun`.

    The engine of :func:`training_time` (formula there and in the module docstring); it trusts the record.
    ``advise=False`` gives the memory verdict without searching the changes that would make it fit
    (``memory_changes`` empty): for a caller that shows only the verdict, as the training-time chart does per
    GPU count.

    >>> from calculators.catalog.models import get_model
    >>> run = TrainingRun.of(spec=get_model("llama-2-7b"), gpu="a100-80gb-sxm", tokens=2 * 10**12, seq=4096,
    ...                      batch=4, goodput=1)
    >>> round(training_run_time(run).gpu_hours, -3)
    131000.0
    """
    spec, cluster, setup, gpu = run.spec, run.cluster, run.setup, run.gpu
    tokens, gpus, precision, method = run.tokens, cluster.gpus, setup.precision, setup.method
    checkpointing, seq, batch, use_fp8 = setup.grad_checkpointing, setup.seq, setup.batch, run.fp8
    tp, pp, ep, dp = cluster.tensor_parallel, cluster.pipeline_parallel, cluster.expert_parallel, cluster.data_parallel
    accumulation, micro_tokens, framework = setup.grad_accumulation, run.micro_batch_tokens, run.framework
    lora_rank, lora_targets, qlora_weights, attention = setup.lora_rank, run.lora_targets, setup.qlora_weights, \
        setup.attention
    zero = cluster.zero
    scores_written = layer_attention_path(spec, attention=attention, compute_bytes=setup.compute_bytes,
                                          seq=seq).materialises_scores
    rate = run.rate_flop_per_s
    dequant_s = dequantisation_s(spec, gpu, setup) / tp if method == "qlora" else 0.0
    lora: dict[str, Any] = {"method": method, "lora_rank": lora_rank, "lora_targets": lora_targets}
    unfused = unfused_bytes_per_flop(spec, seq=seq, grad_checkpointing=checkpointing,
                                     selective_recompute=run.selective_recompute, **lora) \
        if runs_unfused(framework, fused_kernels=run.fused_kernels) else 0.0
    linear_share = linear_flops_share(spec, seq=seq, grad_checkpointing=checkpointing,
                                      selective_recompute=run.selective_recompute, **lora)
    # a fused kernel's attention products run at its own efficiency (attention_s); the utilisation is the rest's
    attn_kernel = None if scores_written else get_attention_kernel(run.attention_kernel, framework=framework)
    if run.mfu is None:
        utilisation = predicted_utilisation(
            gpu, fp8=use_fp8, method=method, checkpointing="full" if checkpointing else "none",
            micro_batch_tokens=micro_tokens, framework=framework, unfused_bytes_per_flop=unfused,
            linear_share=1.0 if attn_kernel is not None else linear_share)
        source = UTILISATION_SOURCE
    else:
        utilisation = run.mfu
        source = Source("Given by the user", "", "2026-11-21", kind="assumed")
    adapter = adapter_parameters(spec, **lora)
    model_per_token = training_flops_per_token(spec, seq=seq, grad_checkpointing=False, **lora)
    executed = training_flops_per_token(spec, seq=seq, grad_checkpointing=checkpointing,
                                        selective_recompute=run.selective_recompute, **lora)
    full = method == "full"
    # the all-to-alls of every MoE layer of the model; the pipeline divides them over its stages as it does compute
    a2a = expert_parallel_communication(spec, cluster, micro_batch_tokens=micro_tokens,
                                        moe_layers=spec.num_moe_layers,
                                        grad_checkpointing=checkpointing) if ep > 1 else None
    compute_s = step_compute_s(tokens=micro_tokens, flops_per_token=executed, linear_share=linear_share,
                               rate_flop_per_s=tp * rate, utilisation=utilisation, kernel=attn_kernel,
                               compute_capability=gpu.compute_capability, rate16_flop_per_s=tp * run.rate16_flop_per_s)
    attention_s = compute_s - step_compute_s(tokens=micro_tokens, flops_per_token=executed * linear_share,
                                             linear_share=1.0, rate_flop_per_s=tp * rate, utilisation=utilisation,
                                             kernel=None, compute_capability=None)
    a2a_s = exposed_all_to_all_s(a2a, compute_s, overlap=run.expert_overlap)
    replica = model_parallel_step(spec, cluster, micro_batches=accumulation, micro_batch_tokens=micro_tokens,
                                  micro_batch_compute_s=compute_s
                                  + host_overhead_s(spec, grad_checkpointing=checkpointing) + dequant_s + a2a_s
                                  + (eager_attention_s(spec, gpu, setup) / tp if scores_written else 0.0))
    shards = tp * pp
    scaling = data_parallel_overhead(
        spec, cluster, micro_batch_compute_s=replica.stage_s * (1.0 + replica.bubble_fraction),
        forward_share=forward_flops_per_token(spec, seq=seq, adapter=adapter) / executed,
        accumulation=accumulation,
        trainable_parameters=(sharded_gradient_parameters(spec, tp=tp, pp=pp, ep=ep) if full else adapter // shards),
        gathered_bytes_per_parameter=(weight_format(qlora_weights).bytes_per_weight if method == "qlora" else 2)
        / shards)
    steps = tokens / (dp * accumulation * micro_tokens)
    steady_s = steps * (replica.step_s + scaling.exposed_s)
    modelled: Goodput | None = run_goodput(gpus=gpus, steady_s=steady_s) if run.goodput is None else None
    # The answer is what the published whole runs are scored with (speed_accuracy.training): the modelled
    # goodput times the fitted whole-run residual. Without the residual every whole run would be promised
    # about a third sooner than published GPU-hours show; a steady-state benchmark passes goodput=1.
    good = modelled.goodput * whole_run_residual() if modelled is not None else float(run.goodput or 1.0)
    time_s = steady_s / good
    memory: FitVerdict | None = None
    estimate: MemoryEstimate | None = None
    placement: Placement | None = None
    changes: tuple[FitChange, ...] = ()
    memory_settings: dict[str, Any] = {}
    if run.check_memory and shards == 1 and ep == 1:
        memory_settings = {
            **lora, "precision": precision, "batch": batch, "seq": seq, "grad_checkpointing": checkpointing,
            "grad_accumulation": accumulation, "gpus": gpus, "zero": zero,
            "attention": attention, "qlora_weights": qlora_weights}
        estimate = training_memory_of(spec, setup)  # the step memory_settings describe
        memory = fit_verdict(estimate, gpu)
        if not memory.fits and advise:  # the fewest GPUs that hold it, searched once: for the advice and the faces
            placement = training_placement(spec, gpu, estimate=estimate, **memory_settings)
            changes = training_fit_advice(spec, gpu, estimate=estimate, placement=placement, **memory_settings)
    bound = tokens * executed / (gpus * rate)
    achieved_mfu = bound / steady_s * model_per_token / executed
    rate_name = "FP8" if use_fp8 else precision
    assumptions: tuple[str, ...] = (
        f"utilisation {utilisation:.3g} of the dense {rate_name} rate ({rate / 1e12:,.1f} TFLOP/s per GPU) by the "
        f"executed FLOPs (steady state): {source.title}",
        (f"{modelled.assumption()}; times the whole-run residual {whole_run_residual():.3g} fitted on published "
         f"pre-training GPU-hours (what interruptions do not explain: evaluation, long-context stages, tuning "
         f"restarts): goodput {good:.3g} in all; pass goodput 1 for a steady-state benchmark" if modelled is not None
         else f"whole run = steady state / goodput {good:.3g} (given)"),
        scaling.assumption(),
        global_batch_assumption(dp, accumulation, batch, seq, given=run.global_batch_tokens is not None),
        *replica.assumptions(),
        f"training framework {get_training_framework(framework).name}: its fitted utilisation factor "
        "(calculators.catalog.training_frameworks); with FP8 only the linear layers' GEMMs run at the FP8 rate "
        "(attention, norms and elementwise work stay 16-bit); model size has no utilisation factor",
        "attention counted over the full sequence (12 x layers x q_dim x seq per token), as PaLM and Megatron-LM do",
        *((f"attention products in {attn_kernel.name}: causal, 7/12 of those FLOPs at {attn_kernel.on(gpu.compute_capability):.2g} of "
           f"the dense 16-bit rate ({attn_kernel.source.title}), {attention_s * 1e3:,.3g} ms per micro-batch; the "
           "utilisation is of the other FLOPs",) if attn_kernel is not None else ()),
        (f"host time {host_overhead_s(spec, grad_checkpointing=checkpointing) * 1e3:,.1f} ms per micro-batch "
         f"(Python forward of {spec.num_layers} layers{', twice with recomputation' if checkpointing else ''}, at "
         "eager transformers' per-layer forward overhead fitted on batch-1 decode), added to its compute time"),
    )
    if unfused:  # calculators.model_flops.unfused_bytes_per_flop
        assumptions += (f"unfused elementwise kernels (eager norms, rotary, activation): {unfused * 1e3:.3g} bytes per 1,000 "
                        "executed FLOPs added to the byte-bound term (fused_kernels=True: torch.compile, TE layers)",)
    if scores_written:
        eager_s = eager_attention_s(spec, gpu, setup) / tp
        assumptions += ((f"eager attention: the {batch} x {spec.num_attention_heads} x {seq} x {seq} score matrix of "
                         f"each layer written and read by separate kernels, {eager_s:,.3g} s per micro-batch at the "
                         "GPU's memory bandwidth"),)
    if shards > 1 or ep > 1:
        assumptions += ("memory per GPU not checked: the memory model does not split weights by tensor, "
                        "pipeline or expert parallelism",)
    if a2a is not None:
        if run.expert_overlap:
            assumptions += (f"expert-parallel all-to-alls overlapped with an adjacent micro-batch's compute (Megatron-Core "
                            f"combined 1F1B, {A2A_OVERLAP_URL}): {a2a_s * 1e3:,.3g} of {a2a.time_s * 1e3:,.3g} ms "
                            "per micro-batch left exposed",)
        assumptions += (a2a.assumption(), f"routed experts' gradients sharded over the {ep} expert-parallel GPUs "
                        "(one expert-tensor-parallel rank), the rest over the tensor and pipeline ranks")
    if not full:
        assumptions += (f"{method}: base weights frozen, 4 x N + 6 x {adapter:,} adapter parameters per token "
                        "(no weight-gradient matmuls for the base)",)
    if method == "qlora":
        kernel = get_qlora_kernel(qlora_weights)
        passes = kernel.passes(grad_checkpointing=checkpointing)
        assumptions += ((f"QLoRA base {kernel.id}: {kernel.library} moves {kernel.bytes_per_weight:.3g} bytes per base "
                         f"weight per dequantisation, {passes} per micro-batch, {dequant_s * 1e3:,.3g} ms at the GPU's "
                         f"memory bandwidth (counted from the library's code, not measured: {kernel.source.url})"),)
    assumptions += run.notes + rate_notes(gpu, DType.FP8 if use_fp8 else precision_dtype(precision))
    if checkpointing:
        assumptions += ("full activation recomputation: one extra forward (hardware FLOPs); model FLOPs "
                        f"utilisation is {achieved_mfu:.3g}",)
    if run.selective_recompute != "none":
        assumptions += (f"selective recomputation ({run.selective_recompute}, torchtitan): {executed - model_per_token:,.3g}"
                        f" FLOP per token run again (hardware FLOPs); model FLOPs utilisation is {achieved_mfu:.3g}"
                        + ("; the memory verdict counts every activation as kept (the policy's saving is not "
                           "modelled: it can only be less)" if memory is not None else ""),)
    return TrainingTime(
        model=spec.name, gpu=gpu.name, gpus=gpus, tokens=tokens, seq=seq, precision=precision,
        grad_checkpointing=checkpointing, method=method, adapter_parameters=adapter, rate_flop_per_s=rate,
        model_flops_per_token=model_per_token, executed_flops_per_token=executed, utilisation=utilisation,
        mfu=achieved_mfu, time_s=time_s, bound_time_s=bound, mfu_source=source, scaling=scaling,
        assumptions=assumptions, memory=memory, memory_changes=changes, tensor_parallel=tp, pipeline_parallel=pp,
        fp8=use_fp8, goodput=good, model_parallel=replica, grad_accumulation=accumulation,
        global_batch_tokens=dp * accumulation * micro_tokens, expert_parallel=a2a,
        error_band=training_error_band(method=method, framework=get_training_framework(framework).id, gpu=gpu),
        goodput_model=modelled, memory_settings=memory_settings, memory_estimate=estimate,
        memory_placement=placement)


def implied_mfu(spec: ModelSpec, gpu: GPU, *, tokens: int, gpu_hours: float, seq: int,
                precision: str = "bf16-mixed") -> float:
    """The model FLOPs utilisation a published run implies: model FLOPs / (GPU-hours x rate).

    >>> from calculators.catalog.gpus import get_gpu
    >>> from calculators.catalog.models import get_model
    >>> round(implied_mfu(get_model("llama-2-7b"), get_gpu("a100-80gb-sxm"), tokens=2 * 10**12,
    ...                   gpu_hours=184320, seq=4096), 3)
    0.445
    """
    tokens = positive_int("tokens", tokens, maximum=MAX_TOKENS)
    hours = finite_float("gpu_hours", gpu_hours, minimum=0.0, maximum=1e12, allow_minimum=False)
    precision = one_of("precision", precision, PRECISIONS)
    rate = compute_rate_flop_per_s(gpu, precision_dtype(precision))
    if rate is None:
        raise InputError("gpu", gpu.id, f"a GPU with a published dense {precision} rate ({gpu.name} has none)")
    return tokens * training_flops_per_token(spec, seq=seq) / (hours * SECONDS_PER_HOUR * rate)
