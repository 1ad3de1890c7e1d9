"""Widget ``interconnect``: a data-parallel step's communication time over a link, against its compute.

>>> calculator = calculators()[0]
>>> answer = calculator.answer({"interconnect": "pcie4", "gpus": "8"})
>>> "PCI Express 4.0 x16" in answer.html and "<svg" in answer.html and "GiB" in answer.html
True
>>> answer.report.headline.split(":")[0]
'On 8x H100 SXM 80GB, data parallel, ZeRO-3'

"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from calculators.catalog.gpus import all_gpus
from calculators.catalog.interconnects import interconnect_ids
from calculators.catalog.training_frameworks import get_training_framework, training_framework_ids
from calculators.inputs.fields import Field, bool_field, choice_field, default_of, float_field, int_field
from calculators.inputs.shared import model_config_field, model_field
from calculators.memory import training_inputs
from calculators.parallel.collectives import MAX_EFFICIENCY, MAX_GPUS
from calculators.parallel.ring_link import GPUS_PER_NODE
from calculators.parallel.step import AUTO, COMM_DTYPES, StepCommunication, step_communication
from calculators.columns import Column, gib_column, number_column
from calculators.fit import Placement
from calculators.fit.placement import training_split
from calculators.jobs.answer import VERDICT_KEY, headline
from calculators.jobs.calculator import Calculator
from calculators.jobs.html import Bar, labelled_bars_svg
from calculators.jobs.report import Chart, Paragraph, Report, Shown
from calculators.jobs.values import Values, engine_settings, gpu_from_values, model_spec
from calculators.model import ModelSpec
from calculators.tables import Table
from calculators.units import number, percent

#: The interconnect form opens on a job that fits (#27): full fine-tuning of Llama 3 8B holds 181 GiB per GPU
#: under plain DDP, so the form opens with ZeRO-3 over its 8 GPUs (the engine's default stage is 0).
OPENING_ZERO = "3"
OWN_DEFAULTS = {"zero": "the form opens on a job that fits: ZeRO-3 (OPENING_ZERO) shards the model states over the "
                        "8 GPUs; the engine's default, plain DDP, holds them all on each"}


@dataclass(frozen=True)
class ParallelView:
    """One data-parallel step, and its memory verdict on the reader's GPUs."""

    spec: ModelSpec
    result: StepCommunication
    placement: Placement


def time_bars_svg(rows: Sequence[tuple[str, float]], *, title: str) -> str:
    """Horizontal bars of durations in milliseconds, one per row (label, seconds); deterministic and escaped."""
    summary = f"{title}: " + "; ".join(f"{name} {number(seconds * 1e3, 1)} ms" for name, seconds in rows)
    return labelled_bars_svg([Bar(name, seconds, f"{number(seconds * 1e3, 1)} ms", 0) for name, seconds in rows],
                             title=title, summary=summary)


@functools.cache
def _fields() -> tuple[Field, ...]:
    def default(name: str) -> Any:
        return default_of(step_communication, name)

    gpus = all_gpus()
    return (
        model_field(), model_config_field(),
        choice_field("gpu", "GPU", default=default("gpu"), choices=[g.id for g in gpus],
                     labels=[f"{g.name} ({g.memory_gib:g} GiB)" for g in gpus],
                     help="Its dense BF16 rate sets compute; its own link is used when the link is auto.").option(
            "GPU id (see 'mlhw gpus'); sets compute and the default link"),
        choice_field("interconnect", "Link", choices=(AUTO, *interconnect_ids()), default=default("interconnect"),
                     help=f"{AUTO}: the GPU's own link in a node, the NICs across nodes above 8 GPUs (as train-time)."
                     ).option(f"link: {AUTO} (the GPU's own within a node, the NICs across nodes above "
                              f"{GPUS_PER_NODE} GPUs, as train-time) or one of {', '.join(interconnect_ids())} "
                              "(every hop)"),
        int_field("gpus", "Data-parallel GPUs", default=default("gpus"), maximum=MAX_GPUS).option("data-parallel GPUs"),
        choice_field("zero", "ZeRO stage", choices=training_inputs.ZERO_STAGES, default=OPENING_ZERO,
                     help="0 is DDP (all-reduce); 1-2 reduce-scatter + all-gather; 3 gathers weights twice.").option(
            "ZeRO stage 0-3 (0 = DDP, 3 = FSDP full shard)"),
        int_field("batch", "Micro-batch", default=default("batch"), maximum=training_inputs.MAX_BATCH,
                  unit="sequences per GPU").option("micro-batch per GPU (sequences)"),
        int_field("seq", "Sequence length", default=default("seq"), maximum=training_inputs.MAX_SEQ,
                  unit="tokens").option("sequence length in tokens"),
        bool_field("grad_checkpointing", "Gradient checkpointing", default=default("grad_checkpointing"),
                   help="Full activation recomputation: one more forward per step and less activation memory.").option(
            "full activation recomputation: one more forward per step, as in train-time"),
        choice_field("framework", "Training framework", choices=training_framework_ids(),
                     labels=tuple(get_training_framework(f).name for f in training_framework_ids()),
                     default=default("framework"), advanced=True,
                     help="megatron: Megatron-Core + Transformer Engine, fitted to reach a higher utilisation; "
                          "pytorch: FSDP-family frameworks (as train-time).").option(
            f"training framework: {', '.join(training_framework_ids())} (its fitted utilisation factor, as "
            "train-time)"),
        float_field("mfu", "Utilisation", default=0.0, minimum=0.0, maximum=1.0, advanced=True,
                    none_label="Fitted on published runs (as train-time)",
                    help="Fraction of the GPU's dense BF16 peak the step's FLOPs reach; the fitted value depends on "
                         "the GPU's rate / bandwidth and the micro-batch's tokens (the value train-time uses).").option(
            "fraction of the dense BF16 rate the step's FLOPs reach, in (0, 1]; auto: the utilisation fitted on "
            "published runs for this GPU and micro-batch, the one train-time uses"),
        float_field("efficiency", "Collective efficiency", default=0.0, minimum=0.0, maximum=MAX_EFFICIENCY,
                    advanced=True, none_label="The link model's value",
                    help="The fraction of the per-direction link bandwidth NCCL reaches; the link model's value for "
                         "this link kind is derived from how it moves its bytes and checked against published nccl-tests runs (the value "
                         "train-time and speed use)."
                    ).option("fraction of per-direction link bandwidth reached; auto: the link model's value per link "
                             "kind, derived and checked against published nccl-tests runs (the same as train-time and speed)"),
        float_field("latency_us", "Latency per ring step", default=0.0, minimum=0.0, maximum=1e6, unit="µs",
                    advanced=True, none_label="The link's measured value",
                    help="Fixed cost of each step of a ring collective.").option(
            "fixed cost per ring step, microseconds; auto: the link's measured value", keyword="latency_s",
            scale=1e6),
        choice_field("nic", "Link between nodes", choices=interconnect_ids(), default=default("nic"), advanced=True,
                     help="The network link between nodes, used above one node.").option(
            "network link between nodes (interconnect id; auto above one node only)"),
        int_field("nics_per_node", "NICs per node", default=default("nics_per_node"), maximum=64, advanced=True
                  ).option("NICs per node"),
        choice_field("grad_dtype", "Reduced gradients", choices=COMM_DTYPES, default=default("grad_dtype"),
                     advanced=True).option(f"reduced gradients: {', '.join(COMM_DTYPES)}"),
        choice_field("param_dtype", "Gathered parameters", choices=COMM_DTYPES, default=default("param_dtype"),
                     advanced=True, help="ZeRO-3: the format its weights are gathered in.").option(
            f"gathered parameters: {', '.join(COMM_DTYPES)}"),
        bool_field("overlap", "Overlap communication with compute", default=default("overlap"), advanced=True,
                   help="Off: all communication is added to compute.").option(
            "add all communication to compute", flag="--no-overlap"),
    )


def _compute(values: Values) -> ParallelView:
    spec, gpu = model_spec(values), gpu_from_values(values)
    result = step_communication(spec, gpu=gpu, **engine_settings(_fields(), values))
    assert result.memory_verdict is not None
    placement = Placement(gpu_id=gpu.id, gpu_name=gpu.name, gpus=result.gpus,
                          split=training_split({"gpus": result.gpus, "zero": result.zero}),
                          verdict=result.memory_verdict)
    return ParallelView(spec=spec, result=result, placement=placement)


def _ms(seconds: float) -> str:
    return number(seconds * 1e3, 1)


def _report(view: ParallelView) -> Report:
    result = view.result
    verdict = ("The interconnect is the bottleneck: communication takes longer than compute, so no overlap can "
               "hide it." if result.interconnect_bound else
               "Compute is the bottleneck: communication is shorter than compute.")
    summary = (f"{result.model} on {result.gpus} x {result.gpu}, ZeRO {result.zero}, over {result.interconnect_name} "
               f"({result.link_per_direction_bytes_per_s / 1e9:g} GB/s per direction): communication "
               f"{_ms(result.communication_s)} ms against {_ms(result.compute_s)} ms of compute per step "
               f"(ratio {number(result.comm_to_compute, 2)}). {verdict} With overlap, "
               f"{_ms(result.exposed_communication_s)} ms stay exposed: scaling efficiency "
               f"{percent(result.scaling_efficiency)}.")
    bars = [("Compute", result.compute_s)] + [(c.name, c.time_s) for c in result.collectives]
    bars.append(("Exposed after overlap", result.exposed_communication_s))
    chart = Chart(time_bars_svg(bars, title=f"{result.model}, one step on {result.gpus} GPUs"),
                  Table.of((Column("Item"), number_column("Time (ms)", 1, unit=1e-3)), bars,
                           caption=f"Chart data: {result.model}, one step on {result.gpus} GPUs"))
    ms, buffer = number_column("Time (ms)", 1, unit=1e-3, missing=""), gib_column("Buffer (GiB)", missing="")
    rows: list[tuple[str, str, int | None, float | None]] = [
        (c.name, c.phase, c.buffer_bytes, c.time_s) for c in result.collectives]
    rows += [("All communication", "", None, result.communication_s),
             (f"Compute (training FLOPs / (peak x utilisation {result.mfu:.3g}, "
              f"{'given' if result.mfu_given else 'fitted'}))", "", None, result.compute_s),
             ("Step with overlap", "", None, result.step_s),
             (f"Memory per GPU (total, training_memory): {view.placement.verdict.verdict}", "",
              result.memory.total_bytes, None)]
    table = Table.of((Column("Item"), Column("Phase"), buffer, ms), rows,
                     caption="One optimizer step per GPU (GiB = 2^30 bytes; times are estimates at the stated "
                             "utilisation and efficiency)")
    return Report(headline(view.placement), verdict=view.placement.verdict.verdict,
                  blocks=(Paragraph(summary), chart, Shown(table)), notes=result.notes,
                  assumptions=(*result.assumptions, VERDICT_KEY), warnings=view.spec.warnings)


def _data(view: ParallelView) -> dict[str, Any]:
    """What ``mlhw parallel --json`` always printed, then ``answer`` (the verdict on the reader's GPUs)."""
    return {**view.result.to_dict(), "answer": view.placement.to_dict()}


def _used(view: ParallelView) -> Mapping[str, str]:
    result = view.result
    return {} if result.mfu_given else {"mfu": f"{result.mfu:.3g} (fitted on published runs, as train-time)"}


def calculators() -> list[Calculator]:
    """The ``interconnect`` widget."""
    return [Calculator("interconnect", "Communication vs compute per step", _fields(), _compute, _report, _data,
                       used=_used, engines=(step_communication,), own_defaults=OWN_DEFAULTS, command="parallel",
                       command_help="communication time of a data-parallel step (DDP, ZeRO-1/2/3) over a link, "
                                    "against compute")]
