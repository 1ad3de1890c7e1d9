"""Widgets of the system-balance and cost pages: ``system-balance`` and ``cost-breakeven``.

>>> from calculators.jobs.registry import get_calculator
>>> html = get_calculator("system-balance").run({})
>>> "<svg" in html and "GiB" in html and "CPU cores" in html
True
>>> html = get_calculator("cost-breakeven").run({"gpu": "h100-sxm", "purchase_usd": "30000"})
>>> "Break-even utilisation" in html
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from calculators import cost, system
from calculators.catalog import prices
from calculators.catalog.gpus import get_gpu
from calculators.inputs.fields import (
    Field,
    Value,
    bool_field,
    cli_field,
    default_of,
    float_field,
    int_field,
    tokens_field,
)
from calculators.inputs.shared import gpu_field, model_config_field, model_field
from calculators.memory.weights import weight_bytes
from calculators.model import ModelSpec
from calculators.performance.training_time import TrainingTime, training_time
from calculators.units import GIB, gib
from calculators.jobs.calculator import Calculator
from calculators.jobs.values import model_spec
from calculators.jobs.html import bars_svg, chart_html, notes_html, paragraph, table_html

Values = Mapping[str, Value]
#: Most training tokens the cost form prices.
MAX_COST_TOKENS = 1e15


# --------------------------------------------------------------------------- system balance
@dataclass(frozen=True)
class SystemView:
    """A system-balance result with the model whose states may be offloaded."""

    spec: ModelSpec
    offload: bool
    balance: system.SystemBalance


#: Inputs of the system-balance form whose default is not read from the engine, and why.
SYSTEM_OWN_DEFAULTS = {
    "gpus": "the form opens on one 8-GPU server, the machine the page sizes; the engine's default is 1 GPU",
    "samples_per_s": "the engine requires it; the form opens on an ImageNet-style example",
    "bytes_per_sample": "the engine requires it; the form opens on an ImageNet-style example",
    "offload_optimizer": "a checkbox for the engine's offload ('optimizer' or 'none') and offload_parameters",
}
#: Inputs of the cost form whose default is not read from the engine, and why.
COST_OWN_DEFAULTS = {
    "gpu": "the engine requires a GPU; the form opens on one with a launch price, so both sides have a cost",
    "kwh_usd": "shows the assumed price the engine uses for None, so it can be edited",
    "tokens": "training_time requires a token count; the form opens on 1B",
    "tokens_per_s": "usd_per_million_tokens requires a rate; the form opens on 1000 tokens/s",
}


def _system_fields() -> tuple[Field, ...]:
    def default(name: str) -> Any:
        return default_of(system.system_balance, name)

    return (
        model_field().option("model whose states are offloaded (catalog id or config.json)"),
        model_config_field(), gpu_field(default=default("gpu")).option("GPU id (see 'mlhw gpus')"),
        int_field("gpus", "GPUs in the machine", default=8, maximum=system.MAX_GPUS).option("GPUs in the machine"),
        float_field("samples_per_s", "Samples per second", default=3000, minimum=1e-3, maximum=system.MAX_SAMPLES_PER_S,
                    unit="all GPUs", help="What the GPUs consume, e.g. images/s from a training log.").option(
            "samples per second the GPUs consume (all GPUs)", required=True),
        float_field("bytes_per_sample", "Bytes per sample", default=110_000, minimum=0,
                    maximum=system.MAX_BYTES_PER_SAMPLE, unit="bytes read",
                    help="Stored (compressed) size of one sample.").option("stored bytes read per sample",
                                                                           required=True),
        float_field("decode_ms_per_sample", "CPU time per sample", default=default("decode_ms_per_sample"), minimum=0,
                    maximum=system.MAX_MS_PER_SAMPLE, unit="ms on one core",
                    help="Decode + augment. Default: Pillow JPEG decode only (arXiv:2605.08731); time your own "
                         "pipeline.").option("CPU ms per sample on one core, decode + augment; the default is Pillow "
                                             "JPEG decode only, measured, arXiv:2605.08731", flag="--decode-ms"),
        float_field("core_efficiency", "Core efficiency", default=default("core_efficiency"), minimum=0, maximum=1,
                    advanced=True, unit="fraction of each core",
                    help="The share of each core the data loader gets (assumed).").option(
            "fraction of each core the loader gets (assumed)"),
        float_field("dataset_cache_gib", "Dataset cached in RAM", default=default("dataset_cache_bytes") / GIB,
                    minimum=0, maximum=2**30, unit="GiB", advanced=True).option(
            "dataset held in RAM, GiB", keyword="dataset_cache_bytes", scale=1 / GIB),
        float_field("batch_bytes", "Decoded batch size", default=default("batch_bytes"), minimum=0,
                    maximum=system.MAX_BYTES, unit="bytes", advanced=True,
                    help="Bytes of one decoded batch; sizes the loader's buffers in host RAM.").option(
            "bytes of one decoded batch (sizes loader buffers)"),
        bool_field("offload_optimizer", "Offload optimizer states to host (ZeRO-2)",
                   default=default("offload") != "none", advanced=True,
                   help="DeepSpeed CPU offload of the chosen model's fp32 weights, gradients and Adam moments."),
        float_field("host_ram_factor", "Rule: host RAM per GiB of GPU memory", default=default("host_ram_factor"),
                    minimum=0, maximum=64, advanced=True).option("rule: host RAM >= factor x total GPU memory"),
    )


def _compute_system(values: Values) -> SystemView:
    spec = model_spec(values)
    offload = bool(values["offload_optimizer"])
    balance = system.system_balance(
        samples_per_s=float(values["samples_per_s"]), bytes_per_sample=float(values["bytes_per_sample"]),
        decode_ms_per_sample=float(values["decode_ms_per_sample"]), gpu=str(values["gpu"]),
        core_efficiency=float(values["core_efficiency"]), batch_bytes=float(values["batch_bytes"]),
        gpus=system.whole_gpus(values["gpus"]), host_ram_factor=float(values["host_ram_factor"]),
        dataset_cache_bytes=int(float(values["dataset_cache_gib"]) * 2**30),
        offload="optimizer" if offload else "none", offload_parameters=spec.parameters if offload else 0)
    return SystemView(spec=spec, offload=offload, balance=balance)


def _system_html(view: SystemView) -> str:
    b = view.balance
    ram = b.host_ram
    rows = [["CPU cores for data loading", f"{b.loader.cpu_cores}", f"{b.loader.cpu_cores_needed:,.2f} cores of work"],
            ["Storage read rate", f"{b.loader.read_bytes_per_s / 1e6:,.1f} MB/s", "samples/s x bytes per sample"],
            ["Host RAM (GiB)", gib(ram.needed_bytes),
             "rule (GPU memory)" if ram.binding == "rule" else "sum of uses"]]
    for fit in b.storage:
        rows.append([f"{fit.storage.name} ({fit.storage.example})",
                     f"{fit.utilization:.0%} of rated read",
                     "enough" if fit.enough else f"{fit.devices_needed} in parallel"])
    segments = [(name, value) for name, value in ram.breakdown.items()]
    summary = (f"{b.gpus} x {b.gpu.name}: {b.loader.cpu_cores} CPU cores, "
               f"{b.loader.read_bytes_per_s / 1e6:,.1f} MB/s of reads, {gib(ram.needed_bytes)} GiB of host RAM.")
    return (paragraph(summary)
            + chart_html(segments, capacity_bytes=ram.rule_bytes,
                         capacity_label=f"Rule: {ram.factor:g} x GPU memory", title="Host RAM by use")
            + table_html(["need", "value", "note"], rows, numeric=[False, True, False])
            + paragraph(b.ecc_note, css="mlhw-note")
            + notes_html(b.loader.assumptions + ram.assumptions,
                         [f"Offloaded states for {view.spec.name} ({view.spec.parameters:,} parameters)."]
                         if view.offload else []))


# --------------------------------------------------------------------------- cost
@dataclass(frozen=True)
class CostView:
    """A local-versus-cloud comparison with a training-run and a serving cost."""

    spec: ModelSpec
    comparison: cost.CostComparison
    run: TrainingTime
    tokens_per_s: float


def _cost_fields() -> tuple[Field, ...]:
    def default(name: str) -> Any:
        return default_of(cost.cost_comparison, name)

    return (
        model_field(), model_config_field(),
        gpu_field(default="rtx-4090").option("GPU id (see 'mlhw gpus')", required=True),
        float_field("purchase_usd", "Purchase price per GPU", default=0, minimum=0, maximum=cost.MAX_USD, unit="USD",
                    none_label="The catalog's launch MSRP", help="Datacenter GPUs have none: enter a price.").option(
            "price of one GPU; auto: launch MSRP, if any"),
        float_field("cloud_usd_per_gpu_hour", "Cloud price", default=0, minimum=0, maximum=cost.MAX_USD_PER_HOUR,
                    unit="USD per GPU-hour", none_label=f"Median of the {prices.EDITION} catalog's on-demand offers"
                    ).option(f"on-demand USD per GPU-hour; auto: median of the {prices.EDITION} catalog offers",
                             flag="--cloud-usd-per-hour"),
        float_field("kwh_usd", "Electricity", default=prices.default_kwh_price().usd_per_kwh, minimum=0, maximum=100,
                    unit="USD per kWh").option(
            f"electricity USD/kWh; auto: assumed {prices.default_kwh_price().usd_per_kwh:g}"),
        float_field("utilization", "Utilisation", default=default("utilization"), minimum=0.001, maximum=1,
                    unit="fraction of all hours", help="How much of the time the local GPU works.").option(
            "fraction of all hours the local GPU works"),
        float_field("years", "Depreciation period", default=default("years"), minimum=0.1, maximum=50, unit="years"
                    ).option("depreciation period in years"),
        float_field("power_watts", "Power per busy GPU", default=0, minimum=0, maximum=1e6, unit="W", advanced=True,
                    none_label="The GPU's TDP").option("power per busy GPU; auto: TDP"),
        tokens_field("tokens", "Training tokens", default=10**9, maximum=MAX_COST_TOKENS,
                     help="Priced with the training-time estimate for the model on this GPU (fitted utilisation): 2T, "
                          "500B, 1e9.", advanced=True),
        float_field("tokens_per_s", "Serving rate", default=1000, minimum=1e-3, maximum=cost.MAX_TOKENS_PER_S,
                    unit="tokens/s per GPU", help="Aggregate generated tokens/s one GPU sustains.", advanced=True
                    ).option("aggregate tokens/s one GPU serves, to price per token"),
    )


def _compute_cost(values: Values) -> CostView:
    spec = model_spec(values)

    def price(name: str) -> float | None:
        return None if float(values[name]) == 0 else float(values[name])

    comparison = cost.cost_comparison(gpu=str(values["gpu"]), purchase_usd=price("purchase_usd"),
                                      cloud_usd_per_gpu_hour=price("cloud_usd_per_gpu_hour"),
                                      kwh_usd=float(values["kwh_usd"]), power_watts=price("power_watts"),
                                      utilization=float(values["utilization"]),
                                      years=float(values["years"]))
    run = training_time(spec, get_gpu(str(values["gpu"])), tokens=int(values["tokens"]))
    return CostView(spec=spec, comparison=comparison, run=run, tokens_per_s=float(values["tokens_per_s"]))


def _usd(value: float | None, digits: int = 2) -> str:
    return "never" if value is None else f"${value:,.{digits}f}"


def _cost_html(view: CostView) -> str:
    c = view.comparison
    util = c.breakeven_utilization
    local_run = cost.training_run_cost_usd(gpu_hours=view.run.gpu_hours, usd_per_gpu_hour=c.local_usd_per_gpu_hour)
    cloud_run = cost.training_run_cost_usd(gpu_hours=view.run.gpu_hours, usd_per_gpu_hour=c.cloud_usd_per_gpu_hour)
    rows = [
        ["Local, per used GPU-hour", _usd(c.local_usd_per_gpu_hour, 3)],
        ["  of which depreciation", _usd(c.local_capital_usd_per_gpu_hour, 3)],
        ["  of which electricity", _usd(c.power_usd_per_gpu_hour, 3)],
        ["Cloud, per GPU-hour", _usd(c.cloud_usd_per_gpu_hour, 3)],
        ["Break-even utilisation", "never" if util is None else f"{util:.1%}"],
        ["Break-even used GPU-hours", "never" if c.breakeven_gpu_hours is None else f"{c.breakeven_gpu_hours:,.0f}"],
        [f"Training run: {view.run.gpu_hours:,.1f} GPU-hours (estimate)", f"{_usd(local_run)} local / "
                                                                           f"{_usd(cloud_run)} cloud"],
        ["Serving: USD per million tokens", f"{_usd(cost.usd_per_million_tokens(tokens_per_s=view.tokens_per_s, usd_per_hour=c.local_usd_per_gpu_hour), 3)}"
                                            f" local / {_usd(cost.usd_per_million_tokens(tokens_per_s=view.tokens_per_s, usd_per_hour=c.cloud_usd_per_gpu_hour), 3)} cloud"],
    ]
    weights = weight_bytes(view.spec, dtype="bf16")
    summary = (f"{c.gpu.name} ({c.gpu.memory_gib:g} GiB) at {c.utilization:.0%} utilisation: "
               f"{c.cheaper} is cheaper. {view.spec.name} has {gib(weights)} GiB of bf16 weights.")
    bars = [("Local: depreciation", c.local_capital_usd_per_gpu_hour), ("Local: electricity", c.power_usd_per_gpu_hour),
            ("Cloud on-demand", c.cloud_usd_per_gpu_hour)]
    return (paragraph(summary) + bars_svg(bars, unit="USD/GPU-h", title="Cost per used GPU-hour", digits=3)
            + table_html(["quantity", "USD"], rows, numeric=[False, True])
            + notes_html(c.assumptions + view.run.assumptions, c.price_sources))


def calculators() -> list[Calculator]:
    """The two calculators of this module."""
    return [
        Calculator("system-balance", "System balance: CPU, storage, host RAM", _system_fields(), _compute_system,
                   _system_html, engines=(system.system_balance,), own_defaults=SYSTEM_OWN_DEFAULTS, command="system",
                   cli_fields=(cli_field("offload", f"one of {', '.join(system.OFFLOADS)} (DeepSpeed CPU offload)"),)),
        Calculator("cost-breakeven", "Local or cloud: break-even", _cost_fields(), _compute_cost, _cost_html,
                   engines=(cost.cost_comparison, training_time, cost.training_run_cost_usd,
                            cost.usd_per_million_tokens),
                   own_defaults=COST_OWN_DEFAULTS, command="cost",
                   cli_fields=(cli_field("gpu_hours", "GPU-hours of a training run to price"),)),
    ]
