"""The ``system-balance`` (``mlhw system``) and ``cost-breakeven`` (``mlhw cost``) calculators.

>>> from calculators.jobs.registry import get_calculator
>>> html = get_calculator("system-balance").run({})
>>> "<svg" in html and "GiB" in html and "CPU cores" in html
True
>>> html = get_calculator("cost-breakeven").run({"gpu": "h100-sxm", "purchase_usd": "30000"})
>>> "Break-even utilisation" in html
True
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from calculators import cost, system
from calculators.catalog import prices
from calculators.inputs.fields import (
    Field,
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
from calculators.columns import Column, number_column
from calculators.jobs.calculator import Calculator
from calculators.jobs.html import bars_svg, memory_chart
from calculators.jobs.report import Chart, Paragraph, Report, Shown
from calculators.jobs.values import Values, engine_settings, given, model_spec
from calculators.tables import Table
from calculators.units import GIB, gib, number, percent
from calculators.validate import parameters_of
#: Most training tokens the cost form prices.
MAX_COST_TOKENS = 1e15


# --------------------------------------------------------------------------- system balance
@dataclass(frozen=True)
class SystemView:
    """A system-balance result with the model whose states may be offloaded."""

    spec: ModelSpec | None  # the command line's --model is optional: nothing to offload without it
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


@functools.cache
def _system_fields() -> tuple[Field, ...]:
    def default(name: str) -> Any:
        return default_of(system.SystemInputs, name)

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
    if "offload_optimizer" in values:  # the form: a checkbox offloads the chosen model's states (ZeRO-2)
        spec: ModelSpec | None = model_spec(values)
        offload = "optimizer" if values["offload_optimizer"] else "none"
    else:  # the command line: --offload names any offload, of the --model given (none: nothing to offload)
        spec = model_spec(values) if given(values, "model") is not None else None
        offload = str(values["offload"])  # the engine's default when left out; checked by the engine
    nothing = default_of(system.SystemInputs, "offload_parameters")
    settings = {key: value for key, value in engine_settings(_system_fields(), values).items()
                if key not in ("offload_optimizer", "offload")}
    settings["dataset_cache_bytes"] = int(settings["dataset_cache_bytes"])
    balance = system.system_balance(system.HostJob.of(
        gpu=str(values["gpu"]), offload=offload,
        offload_parameters=spec.parameters if spec is not None and offload != "none" else nothing, **settings))
    return SystemView(spec=spec, offload=offload != "none", balance=balance)


def _system_report(view: SystemView) -> Report:
    b = view.balance
    ram = b.host_ram
    mbps = f"{number(b.loader.read_bytes_per_s / 1e6, 1)} MB/s"
    need = Table.of((Column("need"), Column("value", align="r"), Column("note")), [
        ("CPU cores for data loading", number(b.loader.cpu_cores), f"{number(b.loader.cpu_cores_needed, 2)} cores of work"),
        ("Storage read rate", mbps, "samples/s x bytes per sample"),
        ("Host RAM (GiB)", gib(ram.needed_bytes),
         f"binding: {'the rule (GPU memory)' if ram.binding == 'rule' else 'the sum of uses'}; rule "
         f"{gib(ram.rule_bytes, 1)} GiB, uses {gib(sum(ram.breakdown.values()), 1)} GiB")], caption="What the machine needs")
    storage = Table.of((Column("storage"), Column("example"), Column("of rated read", lambda v: percent(v), "r"),
                        Column("enough?")),
                       [(fit.storage.name, fit.storage.example, fit.utilization,
                         "enough" if fit.enough else f"needs {fit.devices_needed} in parallel") for fit in b.storage],
                       caption="Each storage class against that read rate (a rated sequential read is a best case)")
    summary = (f"{b.gpus} x {b.gpu.name}: {b.loader.cpu_cores} CPU cores, {mbps} of reads, "
               f"{gib(ram.needed_bytes)} GiB of host RAM.")
    notes = ((f"Offloaded states for {view.spec.name} ({view.spec.parameters:,} parameters).",)
             if view.offload and view.spec is not None else ())
    return Report(summary, blocks=(
        memory_chart(list(ram.breakdown.items()), capacity_bytes=ram.rule_bytes,
                     capacity_label=f"Rule: {ram.factor:g} x GPU memory", title="Host RAM by use"),
        Shown(need), Shown(storage), Paragraph(b.ecc_note, css="mlhw-note")),
        notes=notes, assumptions=b.loader.assumptions + ram.assumptions,
        warnings=() if view.spec is None else view.spec.warnings)


# --------------------------------------------------------------------------- cost
@dataclass(frozen=True)
class CostView:
    """A local-versus-cloud comparison, with a training run's cost (its GPU-hours estimated for a model on the
    form, given on the command line) and a serving cost per million tokens where a rate is given."""

    spec: ModelSpec | None
    comparison: cost.CostComparison
    run: TrainingTime | None
    gpu_hours: Any  # the run's GPU-hours: the estimate's, or as the command line gave them (the engine checks)
    tokens_per_s: float | None
    left: tuple[str, ...] = ()  # the prices and power left to the catalog (COST_LEFT)


#: The cost inputs the catalog fills in when left to it, and where from.
COST_LEFT = {"purchase_usd": "the catalog's launch MSRP", "cloud_usd_per_gpu_hour": "median of the catalog's offers",
             "power_watts": "the GPU's TDP", "kwh_usd": "assumed"}


@functools.cache
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
    taken = parameters_of(cost.cost_comparison)
    settings = {key: value for key, value in engine_settings(_cost_fields(), values).items() if key in taken}
    comparison = cost.cost_comparison(gpu=str(values["gpu"]), **settings)
    run = None
    gpu_hours = given(values, "gpu_hours")
    spec = model_spec(values) if given(values, "tokens") is not None else None
    if spec is not None:  # the form prices a run of this model and token count (training_time's estimate)
        run = training_time(spec, comparison.gpu, tokens=int(values["tokens"]))
        gpu_hours = run.gpu_hours
    tokens_per_s = given(values, "tokens_per_s")
    return CostView(spec=spec, comparison=comparison, run=run, gpu_hours=gpu_hours,
                    tokens_per_s=None if tokens_per_s is None else float(tokens_per_s),
                    left=tuple(name for name in COST_LEFT if name in settings and settings[name] is None))


def _usd(value: float | None, digits: int = 2) -> str:
    return "never" if value is None else f"${number(value, digits)}"


def _cost_report(view: CostView) -> Report:
    c = view.comparison
    util = c.breakeven_utilization
    rows = [
        ("Local, per used GPU-hour", _usd(c.local_usd_per_gpu_hour, 3)),
        ("  of which depreciation", _usd(c.local_capital_usd_per_gpu_hour, 3)),
        ("  of which electricity", _usd(c.power_usd_per_gpu_hour, 3)),
        ("Cloud, per GPU-hour", _usd(c.cloud_usd_per_gpu_hour, 3)),
        ("Break-even utilisation", "never" if util is None else percent(util, 1)),
        ("Break-even used GPU-hours", "never" if c.breakeven_gpu_hours is None else number(c.breakeven_gpu_hours)),
    ]
    runs = _run_costs(view)
    if runs is not None:
        what = "estimate" if view.run is not None else "given"
        rows.append((f"Training run: {number(float(view.gpu_hours or 0.0), 1)} GPU-hours ({what})",
                     f"{_usd(runs[0])} local / {_usd(runs[1])} cloud"))
    tokens = _token_costs(view)
    if tokens is not None:
        rows.append((f"Serving at {number(view.tokens_per_s or 0.0)} tokens/s: USD per million tokens",
                     f"{_usd(tokens[0], 3)} local / {_usd(tokens[1], 3)} cloud"))
    summary = (f"{c.gpu.name} ({c.gpu.memory_gib:g} GiB): purchase {_usd(c.purchase_usd, 0)}, cloud "
               f"{_usd(c.cloud_usd_per_gpu_hour, 3)} per GPU-hour, {c.power_watts:g} W at {_usd(c.kwh_usd, 2)} per kWh, "
               f"{percent(c.utilization)} utilisation over {c.years:g} years: {c.cheaper} is cheaper.")
    extra: tuple[Paragraph, ...] = ()
    if view.spec is not None:
        extra = (Paragraph(f"{view.spec.name} has {gib(weight_bytes(view.spec, dtype='bf16'))} GiB of bf16 weights; "
                           f"its run is priced with the training-time estimate on one {c.gpu.name}."),)
    bars = [("Local: depreciation", c.local_capital_usd_per_gpu_hour), ("Local: electricity", c.power_usd_per_gpu_hour),
            ("Cloud on-demand", c.cloud_usd_per_gpu_hour)]
    chart = Chart(bars_svg(bars, unit="USD/GPU-h", title="Cost per used GPU-hour", digits=3),
                  Table.of((Column("cost"), number_column("USD per GPU-hour", 3)), bars,
                           caption="Chart data: cost per used GPU-hour"))
    assumptions = c.assumptions + (view.run.assumptions if view.run is not None else ())
    return Report(summary, blocks=(*extra, chart, Shown(Table.of((Column("quantity"), Column("USD", align="r")), rows, caption=""))),
                  notes=c.price_sources, assumptions=assumptions,
                  warnings=() if view.spec is None else view.spec.warnings)


def _run_costs(view: CostView) -> tuple[float, float] | None:
    c = view.comparison
    if view.gpu_hours is None:
        return None
    return (cost.training_run_cost_usd(gpu_hours=view.gpu_hours, usd_per_gpu_hour=c.local_usd_per_gpu_hour),
            cost.training_run_cost_usd(gpu_hours=view.gpu_hours, usd_per_gpu_hour=c.cloud_usd_per_gpu_hour))


def _token_costs(view: CostView) -> tuple[float, float] | None:
    c = view.comparison
    if view.tokens_per_s is None:
        return None
    return (cost.usd_per_million_tokens(tokens_per_s=view.tokens_per_s, usd_per_hour=c.local_usd_per_gpu_hour),
            cost.usd_per_million_tokens(tokens_per_s=view.tokens_per_s, usd_per_hour=c.cloud_usd_per_gpu_hour))


def _cost_data(view: CostView) -> dict[str, Any]:
    """What ``mlhw cost --json`` always printed: the comparison, then a run's and a million tokens' cost when asked."""
    data = view.comparison.to_dict()
    runs, tokens = _run_costs(view), _token_costs(view)
    if runs is not None:
        data["training_run_usd"] = {"local": runs[0], "cloud": runs[1]}
    if view.run is not None:
        data["training_run"] = {"model": view.run.model, "tokens": view.run.tokens, "gpu_hours": view.run.gpu_hours}
    if tokens is not None:
        data["usd_per_million_tokens"] = {"local": tokens[0], "cloud": tokens[1]}
    return data


def _cost_used(view: CostView) -> dict[str, str]:
    """The prices and power the engine used where the form left them to it."""
    c = view.comparison
    used = {"purchase_usd": _usd(c.purchase_usd, 0), "cloud_usd_per_gpu_hour": _usd(c.cloud_usd_per_gpu_hour, 3),
            "power_watts": f"{c.power_watts:g} W", "kwh_usd": _usd(c.kwh_usd, 2)}
    return {name: f"{used[name]} ({COST_LEFT[name]})" for name in view.left}


def calculators() -> list[Calculator]:
    """The two calculators of this module."""
    return [
        Calculator("system-balance", "System balance: CPU, storage, host RAM", _system_fields(), _compute_system,
                   _system_report, lambda view: view.balance.to_dict(), engines=(system.SystemInputs,),
                   own_defaults=SYSTEM_OWN_DEFAULTS, command="system",
                   command_help="CPU cores, storage read rate and host RAM around the GPUs (system balance)",
                   cli_fields=(cli_field("offload", f"one of {', '.join(system.OFFLOADS)} (DeepSpeed CPU offload)"),)),
        Calculator("cost-breakeven", "Local or cloud: break-even", _cost_fields(), _compute_cost, _cost_report,
                   _cost_data, used=_cost_used,
                   engines=(cost.cost_comparison, training_time, cost.training_run_cost_usd,
                            cost.usd_per_million_tokens),
                   own_defaults=COST_OWN_DEFAULTS, command="cost",
                   command_help="local versus cloud cost per GPU-hour, break-even utilisation, $ per run and per "
                                "million tokens",
                   cli_fields=(cli_field("gpu_hours", "GPU-hours of a training run to price"),)),
    ]
