"""The training-time calculator (``mlhw train-time``): wall clock, GPU-hours and tokens/s of a run.

It opens with the reader's GPUs, the memory verdict per GPU and the margin
(:func:`calculators.jobs.answer.headline`; not checked with tensor or pipeline parallelism, which
the memory model does not split), then the time; the chart of GPU counts marks the counts whose
memory does not fit. The form opens on a job that fits: Llama 3 8B on one 8-GPU node with ZeRO-3.

>>> from calculators.jobs.registry import get_calculator
>>> answer = get_calculator("training-time").answer({})
>>> answer.report.verdict, "GPU-hours" in answer.html
('fits', True)
>>> answer.used["mfu"].endswith("(fitted on published runs)")
True
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from calculators.catalog.attention_kernels import ATTENTION_KERNELS, KERNELS as ATTENTION_KERNEL_RECORDS
from calculators.catalog.gpus import GPU
from calculators.catalog.interconnects import interconnect_ids
from calculators.catalog.training_frameworks import get_training_framework, training_framework_ids
from calculators.columns import Column, number_column
from calculators.errors import InputError
from calculators.fit import Placement, training_placement
from calculators.inputs.fields import Field, bool_field, choice_field, default_of, float_field, int_field, tokens_field
from calculators.inputs.shared import ENGINE_GPU, model_and_gpu_fields
from calculators.jobs.answer import VERDICT_KEY, headline
from calculators.jobs.calculator import Calculator
from calculators.jobs.html import Bar, labelled_bars_svg
from calculators.jobs.plan_links import plan_links
from calculators.jobs.report import Chart, Paragraph, Report
from calculators.jobs.speed import band_paragraphs, may_not_run, quantities
from calculators.jobs.advice import FitAdvice, training_advice
from calculators.jobs.values import Values, engine_settings, gpu_from_values, model_spec
from calculators.memory import training_inputs
from calculators.memory.qlora_kernels import QLORA_WEIGHTS, get_qlora_kernel
from calculators.model import ModelSpec
from calculators.model_flops import SELECTIVE_RECOMPUTES
from calculators.parallel.step import AUTO
from calculators.performance import training_time as train
from calculators.performance.training_run import TrainingRun
from calculators.tables import Table
from calculators.units import SECONDS_PER_DAY, gib, number, percent

#: What the training-time form opens on where it does not read the engine's default (see TRAIN_OWN_DEFAULTS):
#: one 8-GPU node sharding Llama 3 8B with ZeRO-3, a job that fits (#27: with ZeRO-0 it is 128 GiB over).
TRAIN_TOKENS = 100 * 10**9
TRAIN_GPUS = 8
TRAIN_ZERO = "3"
#: Inputs of the training-time form whose default is not read from the engine, and why.
TRAIN_OWN_DEFAULTS = {
    "gpu": ENGINE_GPU,
    "tokens": "the engine takes no default token count; the form opens on TRAIN_TOKENS",
    "gpus": "the form opens on one 8-GPU node (TRAIN_GPUS), where the chart of GPU counts starts to show "
            "scaling; the engine's default is 1 GPU",
    "zero": "the form opens on a job that fits: ZeRO-3 (TRAIN_ZERO) shards the node's model states; with the "
            "engine's ZeRO-0 every GPU holds them all",
}
#: GPU counts the chart always draws (plus the one chosen).
CHART_GPUS = (1, 8, 64, 512, 4096)
#: Inputs the engine fills in when the form leaves them to it, and how it does.
LEFT_TO_ENGINE = {"mfu": "fitted on published runs", "goodput": "modelled from the job's GPUs times the whole-run residual",
                  "global_batch_tokens": "one micro-batch per replica"}


@dataclass(frozen=True)
class TrainView:
    """One training-time estimate on the reader's GPUs and the same run over a range of GPU counts."""

    spec: ModelSpec
    result: train.TrainingTime
    gpu: GPU
    placement: Placement | None
    by_gpus: tuple[tuple[int, train.TrainingTime], ...]
    left: tuple[str, ...] = ()  # the inputs left to the engine (LEFT_TO_ENGINE)
    advice: FitAdvice | None = None  # what would make the step fit, with speed costs (None: memory not checked)


@functools.cache
def _train_fields() -> tuple[Field, ...]:
    def default(name: str) -> Any:
        return default_of(train.training_time, name)

    return (
        *model_and_gpu_fields(mac=False),  # training time needs a dense rate, which Apple does not publish
        tokens_field("tokens", "Training tokens", default=TRAIN_TOKENS, maximum=train.MAX_TOKENS,
                     help="A count as the command line takes it: 2T, 500B, 1e12.").option(
            "training tokens: 2e12, 2T, 500B, 10M, 5k ...", required=True),
        int_field("gpus", "GPUs", default=TRAIN_GPUS, maximum=training_inputs.MAX_GPUS).option("GPUs in the job"),
        int_field("seq", "Sequence length", default=default("seq"), maximum=training_inputs.MAX_SEQ,
                  unit="tokens").option("sequence length in tokens"),
        int_field("batch", "Micro-batch", default=default("batch"), maximum=training_inputs.MAX_BATCH,
                  unit="sequences",
                  help="Sequences per micro-batch: small micro-batches leave the GPU under-used (fitted).").option(
            "micro-batch per GPU, sequences"),
        float_field("mfu", "Utilisation", default=0.0, minimum=0.0, maximum=1.0,
                    none_label="The value fitted on published runs",
                    help="Fraction of the dense rate the executed FLOPs reach.").option(
            "utilisation of the executed FLOPs in (0, 1]; auto: fitted on published runs"),
        choice_field("method", "Method", choices=training_inputs.METHODS, default=default("method"),
                     help="LoRA/QLoRA freeze the base: 4·N instead of 6·N FLOPs per token, adapter gradients only."
                     ).option(f"one of {', '.join(training_inputs.METHODS)} (lora/qlora: 4·N, frozen base)"),
        bool_field("grad_checkpointing", "Gradient checkpointing", default=default("grad_checkpointing"),
                   help="Full recomputation: one more forward pass (8·N instead of 6·N for full training).").option(
            "full activation recomputation"),
        choice_field("zero", "ZeRO stage", choices=training_inputs.ZERO_STAGES, default=TRAIN_ZERO,
                     help="Data-parallel sharding: which collectives run and what each GPU holds (0 = DDP, "
                          "3 = FSDP full shard).").option(
            "ZeRO stage 0-3: the data-parallel communication and each GPU's memory"),
        choice_field("qlora_weights", "QLoRA base format", choices=QLORA_WEIGHTS,
                     labels=tuple(get_qlora_kernel(w).name for w in QLORA_WEIGHTS),
                     default=default("qlora_weights"), advanced=True,
                     help="QLoRA only. nf4: bitsandbytes, one dequantisation kernel per use; gptq-int4-g128: a GPTQ "
                          "checkpoint through AutoGPTQ, unpacked in PyTorch operations (several times the bytes) "
                          "and kept in 16 bits until the backward.").option(
            f"QLoRA base format: {', '.join(QLORA_WEIGHTS)} (nf4: bitsandbytes; gptq-int4-g128: a GPTQ checkpoint "
            "through AutoGPTQ, which dequantises in PyTorch operations and keeps the 16-bit weights for the backward)"),
        int_field("lora_rank", "LoRA rank", default=default("lora_rank"), maximum=training_inputs.MAX_RANK,
                  advanced=True, help="LoRA and QLoRA only: the adapters' rank r.").option(
            "LoRA rank (lora/qlora only)"),
        choice_field("interconnect", "Link between GPUs", choices=(AUTO, *interconnect_ids()),
                     default=default("interconnect"), advanced=True,
                     help="auto: the GPU's own link, 8 x InfiniBand NDR per node above 8 GPUs (assumed).").option(
            "link id (see the interconnect catalog) or 'auto' for the GPU's own"),
        choice_field("nic", "Link between nodes", choices=interconnect_ids(), default=default("nic"), advanced=True,
                     help="The network link between nodes, used above one node.").option(
            "network link between nodes (interconnect id)"),
        int_field("nics_per_node", "NICs per node", default=default("nics_per_node"), maximum=64, advanced=True
                  ).option("NICs per node"),
        choice_field("precision", "Precision", choices=training_inputs.PRECISIONS, default=default("precision"),
                     advanced=True,
                     help="Picks the dense rate: fp32 uses the FP32 rate, the others the BF16/FP16 tensor rate."
                     ).option(f"one of {', '.join(training_inputs.PRECISIONS)}"),
        bool_field("fp8", "FP8 matmuls", default=default("fp8"), advanced=True,
                   help="FP8 linear layers (Transformer Engine, torchao Float8): their GEMMs at the FP8 rate, "
                        "attention and elementwise work in 16 bits.").option("matmuls in FP8 (Transformer Engine)"),
        choice_field("framework", "Training framework", choices=training_framework_ids(),
                     labels=tuple(get_training_framework(f).name for f in training_framework_ids()),
                     default=default("framework"), advanced=True,
                     help="megatron: Megatron-Core + Transformer Engine (NeMo, Megatron-Bridge), fitted to reach a "
                          "higher utilisation; pytorch: FSDP-family frameworks (torchtitan, llm-foundry, torchtune, "
                          "Hugging Face Trainer).").option(
            f"training framework: {', '.join(training_framework_ids())} (megatron: Megatron-Core + Transformer "
            "Engine, as NeMo and Megatron-Bridge; pytorch: FSDP-family frameworks)"),
        choice_field("attention", "Attention kernel", choices=training_inputs.ATTENTIONS,
                     default=default("attention"), advanced=True,
                     help="sdpa and flash: a fused kernel (FlashAttention, Transformer Engine); eager: the model's own "
                          "matmul-softmax-matmul, which writes and reads every layer's score matrix.").option(
            f"attention kernel: {', '.join(training_inputs.ATTENTIONS)} (sdpa and flash: a fused kernel; eager: the "
            "score matrix written and read, as transformers without FlashAttention)"),
        choice_field("attention_kernel", "Fused attention kernel", choices=ATTENTION_KERNELS,
                     labels=("The framework's own", *(k.name for k in ATTENTION_KERNEL_RECORDS)),
                     default=default("attention_kernel"), advanced=True,
                     help="Which fused kernel runs the attention products, at its own share of the dense rate "
                          "(read from the kernels' papers); auto: FlashAttention-2 for PyTorch frameworks, cuDNN "
                          "fused attention for Megatron-Core.").option(
            f"fused attention kernel: {', '.join(ATTENTION_KERNELS)} (auto: the framework's; not with eager "
            "attention)"),
        bool_field("fused_kernels", "Fused elementwise kernels", default=default("fused_kernels"), advanced=True,
                   help="PyTorch frameworks: the run fuses its norms, rotary, activations and residual adds "
                        "(torch.compile, or layers on Transformer Engine's kernels); without it each is a kernel of "
                        "its own whose bytes slow the step. Megatron-Core's layers are fused either way.").option(
            "the run's elementwise kernels are fused (torch.compile; matters for PyTorch frameworks only)"),
        choice_field("selective_recompute", "Selective recomputation", choices=SELECTIVE_RECOMPUTES,
                     labels=("None", "Every other matmul (torchtitan's op policy)",
                             "Every other layer (torchtitan's layer policy)"),
                     default=default("selective_recompute"), advanced=True,
                     help="torchtitan's selective activation checkpointing: every-other-matmul (its op policy) or "
                          "every-other-layer recomputes part of the forward in the backward; not with full "
                          "gradient checkpointing. The memory verdict still counts every activation kept.").option(
            f"selective recomputation policy: {', '.join(SELECTIVE_RECOMPUTES)} (torchtitan; not with "
            "--grad-checkpointing)"),
        int_field("tensor_parallel", "Tensor-parallel GPUs", default=default("tensor_parallel"),
                  maximum=train.MAX_STAGES, advanced=True,
                  help="GPUs splitting every layer (Megatron); adds four all-reduces per layer per micro-batch."
                  ).option("tensor-parallel GPUs per model replica", flag="--tp"),
        int_field("pipeline_parallel", "Pipeline stages", default=default("pipeline_parallel"),
                  maximum=train.MAX_STAGES, advanced=True,
                  help="Stages of the model; the bubble is (stages - 1) / micro-batches per step.").option(
            "pipeline-parallel stages per model replica", flag="--pp"),
        int_field("expert_parallel", "Expert-parallel GPUs", default=default("expert_parallel"),
                  maximum=training_inputs.MAX_GPUS, advanced=True,
                  help="Mixture of experts: GPUs the routed experts are split over; adds the all-to-alls that carry "
                       "each token to its experts and back (four per MoE layer per micro-batch).").option(
            "expert-parallel GPUs (a mixture of experts' routed experts split over them)", flag="--ep"),
        bool_field("expert_overlap", "Overlap the all-to-alls", default=default("expert_overlap"), advanced=True,
                   help="Mixture of experts with expert parallelism: the all-to-alls run beside an adjacent "
                        "micro-batch's compute (Megatron-Core's combined 1F1B), so only what the compute cannot hide "
                        "is added. Needs expert-parallel GPUs.").option(
            "the expert-parallel all-to-alls overlap an adjacent micro-batch's compute (Megatron-Core combined 1F1B; "
            "needs --ep)"),
        int_field("virtual_stages", "Interleaved chunks per GPU", default=default("virtual_stages"),
                  maximum=train.MAX_STAGES, advanced=True,
                  help="Interleaved pipeline: each GPU holds this many chunks, dividing the bubble by it.").option(
            "interleaved pipeline chunks per GPU"),
        int_field("grad_accumulation", "Micro-batches per step", default=default("grad_accumulation"),
                  maximum=training_inputs.MAX_BATCH, advanced=True,
                  help="Gradient accumulation: the pipeline's micro-batches per optimizer step.").option(
            "micro-batches per optimizer step per replica; by default one, so the global batch is "
            "GPUs / (tp x pp) x batch x seq tokens, stated in the output"),
        tokens_field("global_batch_tokens", "Global batch", default=default("global_batch_tokens"),
                     maximum=train.MAX_TOKENS, advanced=True, none_label="One micro-batch per replica",
                     help="Tokens per optimizer step over the whole job (Llama 2 and 3 pre-trained at 4M and "
                          "more); the micro-batches per step follow from it. Leave the micro-batches at 1.").option(
            "tokens per optimizer step over the job (4M, 16M ...): sets the accumulation, so each step's gradient "
            "communication is amortised as in pre-training (Llama 2: 4M; Llama 3: 4M-16M); auto: the one above"),
        float_field("goodput", "Goodput", default=0.0, minimum=0.0, maximum=1.0, advanced=True,
                    none_label="Whole run: the job's interruptions x the published-run residual",
                    help="Steady-state time over the whole run's time (interruptions, restarts, checkpoint saves); "
                         "1 gives a steady-state time.").option(
            "steady-state / whole-run time in (0, 1]; auto: modelled from the job's GPUs (interruptions at Llama 3's "
            "rate, restarts, checkpoint saves) times the whole-run residual fitted on published GPU-hours; 1 for a "
            "steady-state time (a benchmark)"),
    )


def _compute_train(values: Values) -> TrainView:
    spec, gpu = model_spec(values), gpu_from_values(values)
    settings = engine_settings(_train_fields(), values)
    left = tuple(name for name in LEFT_TO_ENGINE if settings.get(name) is None)
    gpus = settings.pop("gpus")  # the chart varies it
    result = train.training_time(spec, gpu, gpus=gpus, **settings)
    # the step, the changes that make it fit and, where it does not, its placement are the engine's: costed here,
    # not computed again (a step that fits is placed here)
    placement = (result.memory_placement or training_placement(spec, gpu, estimate=result.memory_estimate,
                                                                **result.memory_settings)
                 if result.memory_settings else None)
    advice = None
    if placement is not None and not placement.verdict.fits:
        timing: dict[str, Any] = {key: settings[key] for key in ("mfu", "framework", "fp8", "interconnect")
                                  if key in settings}
        advice = training_advice(spec, gpu, placement.verdict, settings=result.memory_settings, timing=timing,
                                 best=False, fit_changes=result.memory_changes)
    replica = result.tensor_parallel * result.pipeline_parallel
    counts = sorted({n for n in CHART_GPUS if n % replica == 0} | {result.gpus})
    runs = []
    for n in counts:
        try:
            # a bar shows its memory verdict, not the changes that would make it fit: those are not searched
            runs.append((n, result if n == result.gpus else train.training_run_time(
                TrainingRun.of(spec=spec, gpu=gpu, gpus=n, **settings), advise=False)))
        except InputError as error:
            # a global batch too small for this many replicas, or an expert-parallel group that does not divide them:
            # no bar
            if error.field not in ("global_batch_tokens", "expert_parallel"):
                raise
    return TrainView(spec=spec, result=result, gpu=gpu, placement=placement, by_gpus=tuple(runs), left=left,
                     advice=advice)


def _days(days: float) -> str:
    return f"{number(days, 2)} days" if days >= 1 else f"{number(days * 24, 2)} hours"


def _unchecked(r: train.TrainingTime) -> str:
    """The headline where memory is not checked (tensor, pipeline or expert parallel)."""
    split = f"TP {r.tensor_parallel} x PP {r.pipeline_parallel}" + (
        f", EP {r.expert_parallel.expert_parallel}" if r.expert_parallel is not None else "")
    return (f"On {number(r.gpus)}x {r.gpu}, {split}: memory per GPU not checked (the memory model does not split "
            "the weights by tensor or pipeline stage or the experts over expert-parallel GPUs).")


def train_report(view: TrainView) -> Report:
    """The memory verdict on the reader's GPUs, the time, wall clock by GPU count (chart; counts whose memory
    does not fit marked), the numbers and the assumptions."""
    r = view.result
    time = (f"{r.model} on {r.tokens:,} tokens with {r.gpus:,} x {r.gpu}: {_days(r.days)} of wall clock, "
            f"{number(r.gpu_hours)} GPU-hours, at MFU {r.mfu:.3g} (utilisation {r.utilisation:.3g}"
            + (", fitted on published runs)." if "mfu" in view.left else ", given)."))
    blocks: list[Any] = [Paragraph(time)]
    if view.placement is not None and may_not_run(view.placement.verdict):
        blocks.append(Paragraph(may_not_run(view.placement.verdict).replace("speeds", "times")))
    if view.advice is not None:
        blocks += view.advice.blocks()
    blocks += band_paragraphs((r.error_band, "training time"))
    bars = [Bar(f"{n:,} GPUs", run.days, _days(run.days), 2, highlight=n == r.gpus,
                marked="" if run.memory is None or run.memory.fits else run.memory.verdict)
            for n, run in view.by_gpus]
    data = Table.of((number_column("GPUs"), number_column("days", 2), number_column("GPU-hours"),
                     Column("memory per GPU")),
                    [(n, run.days, run.gpu_hours, "not checked" if run.memory is None else run.memory.verdict)
                     for n, run in view.by_gpus], caption="Chart data: wall-clock time by GPU count")
    blocks.append(Chart(labelled_bars_svg(bars, title="Wall-clock time by GPU count (same utilisation; communication "
                                                      "that compute cannot hide added; faint: memory does not fit)"),
                        data))
    rows = [
        ("Model FLOPs per token", number(r.model_flops_per_token / 1e9, 2), "GFLOP", "derived"),
        ("Executed FLOPs per token", number(r.executed_flops_per_token / 1e9, 2), "GFLOP", "derived"),
        ("Total model FLOPs", f"{r.total_model_flops:.3e}", "FLOP", "derived"),
        ("Throughput, all GPUs", number(r.tokens_per_s), "tokens/s", "estimate"),
        ("Throughput per GPU", number(r.tokens_per_s_per_gpu), "tokens/s", "estimate"),
        ("Data-parallel scaling efficiency", percent(r.scaling_efficiency, 1), "", "estimate"),
        ("Wall clock", number(r.days, 2), "days", "estimate"),
        ("Wall clock at 100 % utilisation", number(r.bound_time_s / SECONDS_PER_DAY, 2), "days", "lower bound"),
        ("GPU time", number(r.gpu_hours), "GPU-hours", "estimate"),
        (f"Dense {'FP8' if r.fp8 else r.precision} rate per GPU", number(r.rate_flop_per_s / 1e12, 1), "TFLOP/s",
         "spec"),
        ("Utilisation of the dense rate by the executed FLOPs", f"{r.utilisation:.3g}", "",
         "fitted" if "mfu" in view.left else "given"),
        ("Steady-state share of the whole run (goodput)", number(r.goodput, 3), "",
         "given" if r.goodput_model is None else "derived"),
    ]
    if r.memory is not None:
        rows += [("Memory per GPU (total)", gib(r.memory.total_bytes), "GiB", r.memory.verdict),
                 ("Memory a process can allocate per GPU", gib(r.memory.usable_bytes), "GiB", "measured")]
    blocks.append(quantities(rows))
    if view.placement is None:
        return Report(_unchecked(r), blocks=tuple(blocks), assumptions=r.assumptions, warnings=view.spec.warnings)
    return Report(headline(view.placement), verdict=view.placement.verdict.verdict, blocks=tuple(blocks),
                  assumptions=(*r.assumptions, VERDICT_KEY), warnings=view.spec.warnings)


def train_data(view: TrainView) -> dict[str, Any]:
    """What ``mlhw train-time --json`` always printed, then ``answer`` (``None`` where memory is not checked) and
    ``by_gpus`` (the chart)."""
    answer = None if view.placement is None else {
        **view.placement.to_dict(), **(FitAdvice(view.placement.verdict.verdict) if view.advice is None
                                       else view.advice).to_dict()}
    return {**view.result.to_dict(), "answer": answer,
            "by_gpus": [{"gpus": n, "days": run.days, "gpu_hours": run.gpu_hours,
                         "verdict": None if run.memory is None else run.memory.verdict} for n, run in view.by_gpus]}


def train_used(view: TrainView) -> Mapping[str, str]:
    """The values the engine used for the inputs the form left to it."""
    r = view.result
    used = {"mfu": f"{r.utilisation:.3g}", "goodput": f"{r.goodput:.3g}",
            "global_batch_tokens": f"{r.global_batch_tokens:,} tokens"}
    return {name: f"{used[name]} ({LEFT_TO_ENGINE[name]})" for name in view.left}


def calculators() -> list[Calculator]:
    """The calculator of this page."""
    return [Calculator("training-time", "Training time", _train_fields(), _compute_train, train_report, train_data,
                       used=train_used, engines=(train.training_time,), own_defaults=TRAIN_OWN_DEFAULTS,
                       command="train-time",
                       command_help="wall-clock days, GPU-hours and tokens/s of training (6·N·D, or 4·N·D for LoRA, "
                                    "at a utilisation fitted on published runs, with tensor, pipeline and "
                                    "data-parallel communication)",
                       links=functools.partial(plan_links, "training-time"))]
