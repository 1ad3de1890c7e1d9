"""Widgets of the Performance section: ``inference-speed``, ``serving-load`` and ``training-time``.

>>> from calculators.widgets.registry import get_calculator
>>> html = get_calculator("inference-speed").run({"batch": "4"})
>>> "tokens/s" in html and "<svg" in html
True
>>> "Requests in flight that fit" in get_calculator("serving-load").run({"concurrency": "16"})
True
>>> "GPU-hours" in get_calculator("training-time").run({})
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from calculators.catalog.engines import engine_ids, get_engine
from calculators.catalog.gpus import GPU
from calculators.catalog.interconnects import interconnect_ids
from calculators.catalog.training_frameworks import get_training_framework, training_framework_ids
from calculators.errors import InputError
from calculators.memory import inference, training_inputs
from calculators.memory.qlora_kernels import QLORA_WEIGHTS, get_qlora_kernel
from calculators.parallel.step import AUTO
from calculators.performance import inference_speed as speed
from calculators.performance import serving_load as load
from calculators.performance import serving_result
from calculators.performance import training_time as train
from calculators.performance.steps import DecodeStep
from calculators.units import gib
from calculators.widgets.fields import (
    Field,
    Value,
    bool_field,
    choice_field,
    default_of,
    float_field,
    int_field,
    tokens_field,
)
from calculators.widgets.calculator import Calculator
from calculators.widgets.inputs import (
    GPU_HELP,
    custom_gpu_fields,
    gpu_field,
    gpu_from_values,
    model_config_field,
    model_field,
    model_spec,
)
from calculators.widgets.registry import engine_settings, get_calculator
from calculators.widgets.render import Bar, color, labelled_bars_svg, notes_html, paragraph, table_html

DEFAULT_MODEL = "llama-3-8b"
DEFAULT_GPU = "h100-sxm"
CUSTOM = "custom"
#: What the training-time form opens on where it does not read the engine's default (see TRAIN_OWN_DEFAULTS).
TRAIN_TOKENS = 100 * 10**9
TRAIN_GPUS = 8
#: Why the GPU of a performance form is not read from the engine (it takes one without a default).
ENGINE_GPU = "the engine takes a GPU without a default; the form opens on DEFAULT_GPU"
#: Inputs of the training-time form whose default is not read from the engine, and why.
TRAIN_OWN_DEFAULTS = {
    "gpu": ENGINE_GPU,
    "tokens": "the engine takes no default token count; the form opens on TRAIN_TOKENS",
    "gpus": "the form opens on one 8-GPU node (TRAIN_GPUS), where the chart of GPU counts starts to show "
            "scaling; the engine's default is 1 GPU",
}
#: Batch sizes and GPU counts the charts always draw (plus the one chosen).
CHART_BATCHES = (1, 4, 16, 64, 256)
CHART_GPUS = (1, 8, 64, 512, 4096)

Values = Mapping[str, Value]


def _model_fields(*, mac: bool = True) -> tuple[Field, ...]:
    # Training time needs a dense rate, which Apple does not publish: no Mac choice there.
    return (model_field(), model_config_field(),
            gpu_field(help="", custom=True, mac=mac).option(GPU_HELP, required=True), *custom_gpu_fields(mac=mac))


def _served_fields(engine: Callable[..., Any], *, help: str) -> tuple[Field, ...]:
    """The engine and formats of a served model, read from ``engine``'s signature (speed and serving load)."""
    return (
        choice_field("engine", "Engine", choices=engine_ids(), default=default_of(engine, "engine"),
                     labels=tuple(get_engine(e).name for e in engine_ids()), help=help).option(
            f"inference engine whose fitted efficiencies and fixed costs to use: one of {', '.join(engine_ids())}; "
            "generic: 0.8 of bandwidth, 0.6 of the tensor rate, no fixed costs"),
        choice_field("weights", "Weights", choices=inference.WEIGHT_DTYPES, default=default_of(engine, "weights"),
                     help="Bytes read per token follow the format's bits per weight; the 4- and 8-bit "
                          "integer formats are weight-only (16-bit matmuls).").option(
            f"weight format: one of {', '.join(inference.WEIGHT_DTYPES)}, or exl2-<bits> from 2 to 8"),
        choice_field("kv_cache", "KV cache", choices=inference.KV_DTYPES, default=default_of(engine, "kv_cache")
                     ).option(f"one of {', '.join(inference.KV_DTYPES)}"),
    )


def _server_fields(engine: Callable[..., Any]) -> tuple[Field, ...]:
    """The GPUs of a served model and how well it uses them, read from ``engine``'s signature."""
    return (
        int_field("gpus", "Tensor-parallel GPUs", default=default_of(engine, "gpus"),
                  maximum=training_inputs.MAX_GPUS, advanced=True).option("GPUs in tensor parallel"),
        float_field("bandwidth_efficiency", "Bandwidth efficiency", default=0.0, minimum=0.0, maximum=1.0,
                    advanced=True, none_label="The engine's fitted value",
                    help="Fraction of peak memory bandwidth a decode step reaches.").option(
            "fraction of peak memory bandwidth achieved; auto: the engine's fitted value"),
        float_field("compute_efficiency", "Compute efficiency", default=0.0, minimum=0.0, maximum=1.0,
                    advanced=True, none_label="The engine's fitted value",
                    help="Fraction of the dense tensor rate the matrix multiplies reach.").option(
            "fraction of the dense tensor rate achieved; auto: the engine's fitted value"),
        choice_field("interconnect", "Tensor-parallel link", choices=(AUTO, *interconnect_ids()),
                     default=default_of(engine, "interconnect"), advanced=True,
                     help="auto: the GPU's own (NVLink where it has it, else PCIe). Sets the all-reduce time.").option(
            "tensor-parallel link id (see the interconnect catalog) or 'auto' for the GPU's own"),
        float_field("collective_efficiency", "Collective efficiency", default=0.0, minimum=0.0,
                    maximum=1.0, advanced=True, none_label="Derived per link kind",
                    help="Fraction of the link's per-direction bandwidth the all-reduces reach; derived per link "
                         "kind from published nccl-tests runs.").option(
            "fraction of the link's per-direction bandwidth the all-reduces reach; "
            "auto: derived per link kind from published nccl-tests runs"),
    )


# --------------------------------------------------------------------------- inference speed
@dataclass(frozen=True)
class SpeedView:
    """One inference-speed estimate and the same settings over a range of batch sizes."""

    result: speed.InferenceSpeed
    by_batch: tuple[tuple[int, DecodeStep], ...]




def _speed_fields() -> tuple[Field, ...]:
    return (
        *_model_fields(),
        *_served_fields(speed.speed_setup, help="Efficiencies and fixed costs fitted on the engine's published runs; "
                                                "generic: 0.8 of bandwidth, 0.6 of the tensor rate, no fixed costs."),
        int_field("batch", "Batch", default=default_of(speed.speed_setup, "batch"), maximum=inference.MAX_BATCH,
                  unit="concurrent sequences").option("concurrent sequences"),
        int_field("context", "Prompt length", default=default_of(speed.speed_setup, "context"),
                  maximum=inference.MAX_CONTEXT, unit="tokens").option("prompt tokens per sequence"),
        int_field("new_tokens", "New tokens", default=default_of(speed.inference_speed, "new_tokens"), minimum=0,
                  maximum=inference.MAX_CONTEXT, unit="tokens per sequence").option("generated tokens per sequence"),
        *_server_fields(speed.speed_setup),
    )


def _compute_speed(values: Values) -> SpeedView:
    spec, gpu = model_spec(values), gpu_from_values(values)
    settings = engine_settings(get_calculator("inference-speed").fields, values)
    result = speed.inference_speed(spec, gpu, new_tokens=settings.pop("new_tokens"), **settings)
    batches = sorted(set(CHART_BATCHES) | {result.batch})
    steps = tuple((b, speed.decode_step(spec, gpu, **{**settings, "batch": b})) for b in batches)
    return SpeedView(result=result, by_batch=steps)


def _rate(value: float) -> str:
    return f"{value:,.1f}"


def speed_html(view: SpeedView) -> str:
    """Summary, aggregate tokens/s by batch (chart), the numbers (table) and assumptions."""
    r = view.result
    first = r.first_step
    summary = (f"{r.model} on {r.gpus} x {r.gpu} with {get_engine(r.engine).name}: "
               f"{_rate(first.tokens_per_s)} tokens/s per sequence and "
               f"{_rate(first.aggregate_tokens_per_s)} tokens/s for the batch of {r.batch} "
               f"({first.bound}-bound); first token after {r.time_to_first_token_s * 1000:,.1f} ms.")
    colours = {"memory": 0, "compute": 1, "communication": 3, "fixed cost": 2}
    bars = [Bar(f"batch {b}", s.aggregate_tokens_per_s,
                 f"{_rate(s.aggregate_tokens_per_s)} tokens/s ({s.bound})", colours[s.bound],
                 highlight=b == r.batch) for b, s in view.by_batch]
    chart = labelled_bars_svg(bars, title="Aggregate decode tokens/s by batch size (by limiting term)")
    legend = '<ul class="mlhw-legend">' + "".join(
        f'<li><span class="mlhw-swatch" style="background:{color(index)}"></span>{name}-bound</li>'
        for name, index in colours.items()) + "</ul>"
    rows = [
        ["Decode, per sequence", _rate(first.tokens_per_s), "tokens/s", "estimate"],
        ["Decode, whole batch", _rate(first.aggregate_tokens_per_s), "tokens/s", "estimate"],
        ["Decode, whole batch at 100 % of peaks", _rate(first.max_aggregate_tokens_per_s), "tokens/s", "upper bound"],
        [f"Decode per sequence at {r.last_step.context:,} tokens", _rate(r.last_step.tokens_per_s), "tokens/s",
         "estimate"],
        ["Time to first token (fixed cost per request + prefill of the batch)", f"{r.time_to_first_token_s * 1000:,.1f}",
         "ms", "estimate"],
        ["Output tokens/s over the whole generation", _rate(r.output_tokens_per_s), "tokens/s", "estimate"],
        ["Tensor-parallel all-reduces per decode step", f"{first.communication_time_s * 1000:,.2f}", "ms",
         "estimate"],
        ["Bytes read per decode step", gib(first.bytes_read), "GiB", "derived"],
        ["Memory per GPU (total_bytes)", gib(r.memory_total_bytes), "GiB",
         "fits" if r.fits else f"does not fit {gib(r.memory_capacity_bytes)} GiB"],
    ]
    table = table_html(["quantity", "value", "unit", "kind"], rows, numeric=[False, True, False, False])
    return paragraph(summary) + chart + legend + table + notes_html(r.assumptions, r.notes)


# --------------------------------------------------------------------------- serving under load
#: Concurrencies the serving chart always draws (plus the one chosen), up to the most that fit.
CHART_CONCURRENCIES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
#: The serving form opens on a closed loop of this many users (the engine takes no default load).
SERVING_CONCURRENCY = 16
SERVING_OWN_DEFAULTS = {
    "gpu": ENGINE_GPU,
    "concurrency": "the engine needs a concurrency or a request rate and has no default; the form opens on "
                   "SERVING_CONCURRENCY users",
}


@dataclass(frozen=True)
class ServingView:
    """One serving-load answer and the same server over a range of concurrencies."""

    result: serving_result.ServingLoad
    by_concurrency: tuple[tuple[int, serving_result.ServingLoad], ...]


def _serving_fields() -> tuple[Field, ...]:
    return (
        *_model_fields(),
        int_field("concurrency", "Concurrent users", default=SERVING_CONCURRENCY, minimum=0,
                  maximum=load.MAX_CONCURRENCY,
                  help="Requests in flight: each user sends the next request when the answer ends (closed loop). "
                       "0: set by the request rate instead.").option(
            "requests in flight, each user sending the next request when its answer ends (closed loop)",
            either="load"),
        float_field("request_rate_per_s", "Request rate", default=0.0, minimum=0.0, maximum=load.MAX_REQUEST_RATE_PER_S,
                     unit="requests/s", none_label="Set by concurrent users",
                     help="Requests arriving at random (Poisson, open loop). Give this or the users, not both.").option(
            "requests per second arriving at random (Poisson, open loop)", flag="--request-rate", either="load"),
        int_field("prompt_tokens", "Prompt length", default=default_of(load.serving_load, "prompt_tokens"),
                  maximum=inference.MAX_CONTEXT, unit="tokens").option("prompt tokens per request"),
        int_field("output_tokens", "Output length", default=default_of(load.serving_load, "output_tokens"),
                  minimum=2, maximum=inference.MAX_CONTEXT, unit="tokens").option(
            "generated tokens per request, at least 2"),
        *_served_fields(load.serving_load, help="Efficiencies and fixed costs fitted on the engine's published runs."),
        *_server_fields(load.serving_load),
        choice_field("prefill", "Prefill of arriving prompts", choices=load.PREFILL_MODES,
                     default=default_of(load.serving_load, "prefill"), advanced=True,
                     labels=tuple({"separate": "A pass of its own per prompt",
                                   "fused": "Inside the decode pass (lower bound)"}[m] for m in load.PREFILL_MODES),
                     help="separate: each prompt's prefill is its own pass added to the step; fused: inside the "
                          "decode pass, the weights read once (a lower bound on the step).").option(
            f"one of {', '.join(load.PREFILL_MODES)}: an arriving prompt's prefill as its own pass added to the step, "
            "or inside the decode pass with the weights read once"),
    )


def _compute_serving(values: Values) -> ServingView:
    spec, gpu = model_spec(values), gpu_from_values(values)
    settings = engine_settings(get_calculator("serving-load").fields, values)
    rate = settings.pop("request_rate_per_s")
    concurrency = int(settings.pop("concurrency")) or None  # 0: set by the request rate
    result = load.serving_load(spec, gpu, concurrency=concurrency, request_rate_per_s=rate, **settings)
    shown = sorted(c for c in set(CHART_CONCURRENCIES) | ({concurrency} if concurrency else set())
                   if c <= max(result.max_concurrency, 1))
    curve = tuple((c, load.serving_load(spec, gpu, concurrency=c, **settings)) for c in shown)
    return ServingView(result=result, by_concurrency=curve)


def serving_html(view: ServingView) -> str:
    """Summary, output tokens/s by concurrency (chart), the numbers (table) and assumptions."""
    r = view.result
    where = f"{r.model} on {r.gpus} x {r.gpu} with {get_engine(r.engine).name}"
    load_text = (f"{r.concurrency} concurrent users" if r.concurrency is not None
                 else f"{r.request_rate_per_s:,.3g} requests/s")
    rate = "unknown" if r.max_request_rate_per_s is None else f"{r.max_request_rate_per_s:,.3g} requests/s"
    if r.status == serving_result.DOES_NOT_FIT_STATUS:
        summary = (f"{where}: does not fit at {load_text}: the weights and KV caches exceed the GPU's usable "
                   f"memory; at most {r.max_concurrency} requests in flight fit.")
    elif r.status == serving_result.SATURATED:
        summary = (f"{where}: saturated at {load_text}, above the highest sustainable rate of {rate}: "
                   "the queue grows without bound.")
    else:
        summary = (f"{where} at {load_text}: {_rate(r.output_tokens_per_s or 0.0)} output tokens/s in all, "
                   f"{_rate(r.decode_tokens_per_s_per_user or 0.0)} tokens/s per user, first token after "
                   f"{(r.time_to_first_token_s or 0.0) * 1000:,.0f} ms ({r.verdict} in memory).")
    bars = [Bar(f"{c} users", s.output_tokens_per_s or 0.0,
                 f"{_rate(s.output_tokens_per_s or 0.0)} tokens/s, {_rate(s.decode_tokens_per_s_per_user or 0.0)}"
                 " per user", 0, highlight=c == r.concurrency) for c, s in view.by_concurrency]
    title = "Output tokens/s by concurrent users (up to the most that fit)"
    chart = labelled_bars_svg(bars, title=title) if bars else ""
    rows = [["Requests in flight that fit", f"{r.max_concurrency:,}", "requests", "estimate"],
            ["Highest sustainable rate of random (Poisson) arrivals", rate, "", "estimate"]]
    if r.status == serving_result.OK:
        rows = [
            ["Output tokens/s, all users", _rate(r.output_tokens_per_s or 0.0), "tokens/s", "estimate"],
            ["Tokens/s per user", _rate(r.decode_tokens_per_s_per_user or 0.0), "tokens/s", "estimate"],
            ["Inter-token latency", f"{(r.inter_token_latency_s or 0.0) * 1000:,.1f}", "ms", "estimate"],
            ["Time to first token", f"{(r.time_to_first_token_s or 0.0) * 1000:,.1f}", "ms", "estimate"],
            ["End-to-end latency", f"{r.end_to_end_latency_s or 0.0:,.2f}", "s", "estimate"],
            ["Decode batch (mean)", f"{r.decode_batch or 0.0:,.1f}", "sequences", "estimate"],
            ["Completed requests", f"{r.requests_per_s or 0.0:,.3f}", "requests/s", "estimate"],
            *rows,
        ]
    rows.append(["Memory per GPU (total_bytes)", gib(r.memory_total_bytes), "GiB", r.verdict])
    table = table_html(["quantity", "value", "unit", "kind"], rows, numeric=[False, True, False, False])
    return paragraph(summary) + chart + table + notes_html(r.assumptions, r.notes)


# --------------------------------------------------------------------------- training time
@dataclass(frozen=True)
class TrainView:
    """One training-time estimate and the same run over a range of GPU counts."""

    result: train.TrainingTime
    gpu: GPU
    by_gpus: tuple[tuple[int, train.TrainingTime], ...]


def _train_fields() -> tuple[Field, ...]:
    def default(name: str) -> Any:
        return default_of(train.training_time, name)

    return (
        *_model_fields(mac=False),
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
        choice_field("zero", "ZeRO stage", choices=training_inputs.ZERO_STAGES, default=default("zero"), advanced=True,
                     help="Which data-parallel collectives run (0 = DDP, 3 = FSDP full shard).").option(
            "ZeRO stage 0-3 of the data-parallel communication"),
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
        int_field("tensor_parallel", "Tensor-parallel GPUs", default=default("tensor_parallel"),
                  maximum=train.MAX_STAGES, advanced=True,
                  help="GPUs splitting every layer (Megatron); adds four all-reduces per layer per micro-batch."
                  ).option("tensor-parallel GPUs per model replica", flag="--tp"),
        int_field("pipeline_parallel", "Pipeline stages", default=default("pipeline_parallel"),
                  maximum=train.MAX_STAGES, advanced=True,
                  help="Stages of the model; the bubble is (stages - 1) / micro-batches per step.").option(
            "pipeline-parallel stages per model replica", flag="--pp"),
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
                    none_label="Fitted on published GPU-hours",
                    help="Steady-state time over the whole run's time (restarts, checkpoints, evaluation); "
                         "1 gives a steady-state time.").option(
            "steady-state / whole-run time in (0, 1]; auto: fitted on published GPU-hours; 1 for a steady-state time"),
    )


def _compute_train(values: Values) -> TrainView:
    spec, gpu = model_spec(values), gpu_from_values(values)
    settings = engine_settings(get_calculator("training-time").fields, values)
    del settings["gpus"]  # the chart varies it
    result = train.training_time(spec, gpu, gpus=values["gpus"], **settings)  # type: ignore[arg-type]
    replica = result.tensor_parallel * result.pipeline_parallel
    counts = sorted({n for n in CHART_GPUS if n % replica == 0} | {result.gpus})
    runs = []
    for n in counts:
        try:
            runs.append((n, train.training_time(spec, gpu, gpus=n, **settings)))
        except InputError as error:
            if error.field != "global_batch_tokens":  # a global batch too small for this many replicas: no bar
                raise
    return TrainView(result=result, gpu=gpu, by_gpus=tuple(runs))


def _days(days: float) -> str:
    return f"{days:,.2f} days" if days >= 1 else f"{days * 24:,.2f} hours"


def train_html(view: TrainView) -> str:
    """Summary, wall-clock time by GPU count (chart), the numbers (table) and assumptions."""
    r = view.result
    memory = r.memory_text().replace("memory per GPU: ", "Memory per GPU: ", 1)
    time = (f"{r.model} on {r.tokens:,} tokens with {r.gpus:,} x {r.gpu}: {_days(r.days)} of wall clock, "
            f"{r.gpu_hours:,.0f} GPU-hours, at MFU {r.mfu:.3g} (utilisation {r.utilisation:.3g} fitted on "
            f"published runs unless given).")
    summary = f"{memory}. {time}" if not r.fits else f"{time} {memory}."
    bars = [Bar(f"{n:,} GPUs", run.days, _days(run.days), 2, highlight=n == r.gpus) for n, run in view.by_gpus]
    chart = labelled_bars_svg(bars, title="Wall-clock time by GPU count (same utilisation; communication that compute "
                                 "cannot hide added)")
    rows = [
        ["Model FLOPs per token", f"{r.model_flops_per_token / 1e9:,.2f}", "GFLOP", "derived"],
        ["Executed FLOPs per token", f"{r.executed_flops_per_token / 1e9:,.2f}", "GFLOP", "derived"],
        ["Total model FLOPs", f"{r.total_model_flops:.3e}", "FLOP", "derived"],
        ["Throughput, all GPUs", f"{r.tokens_per_s:,.0f}", "tokens/s", "estimate"],
        ["Throughput per GPU", f"{r.tokens_per_s_per_gpu:,.0f}", "tokens/s", "estimate"],
        ["Data-parallel scaling efficiency", f"{r.scaling_efficiency:.1%}", "", "estimate"],
        ["Wall clock", f"{r.days:,.2f}", "days", "estimate"],
        ["Wall clock at 100 % utilisation", f"{r.bound_time_s / 86400:,.2f}", "days", "lower bound"],
        ["GPU time", f"{r.gpu_hours:,.0f}", "GPU-hours", "estimate"],
        [f"Dense {'FP8' if r.fp8 else r.precision} rate per GPU", f"{r.rate_flop_per_s / 1e12:,.1f}", "TFLOP/s",
         "spec"],
        ["Steady-state share of the whole run (goodput)", f"{r.goodput:.2f}", "", "fitted"],
    ]
    if r.memory is not None:
        rows += [["Memory per GPU (total)", gib(r.memory.total_bytes), "GiB", r.memory.verdict],
                 ["Memory a process can allocate per GPU", gib(r.memory.usable_bytes), "GiB", "measured"]]
    table = table_html(["quantity", "value", "unit", "kind"], rows, numeric=[False, True, False, False])
    return paragraph(summary) + chart + table + notes_html(r.assumptions, ())


def calculators() -> list[Calculator]:
    """The three calculators of this section."""
    return [
        Calculator("inference-speed", "Inference speed", _speed_fields(), _compute_speed, speed_html,
                   engines=(speed.inference_speed, speed.speed_setup), own_defaults={"gpu": ENGINE_GPU},
                   command="speed"),
        Calculator("serving-load", "Serving under load", _serving_fields(), _compute_serving, serving_html,
                   engines=(load.serving_load,), own_defaults=SERVING_OWN_DEFAULTS, command="serve-load"),
        Calculator("training-time", "Training time", _train_fields(), _compute_train, train_html,
                   engines=(train.training_time,), own_defaults=TRAIN_OWN_DEFAULTS, command="train-time"),
    ]
