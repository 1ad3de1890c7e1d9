"""Score the memory calculators against real-GPU runs: allocated peak, total footprint, fit verdicts.

A real-GPU run (``tests/data/measurements_cuda/<gpu>/cases.jsonl``) records what PyTorch's
caching allocator saw on the device: ``cuda_peak_allocated`` (``max_memory_allocated``),
``cuda_peak_reserved`` and ``non_torch_bytes`` (the CUDA context and libraries). The
calculators are scored on two figures:

* ``peak_allocated_bytes`` against ``cuda_peak_allocated``;
* ``total_bytes`` against ``cuda_peak_reserved + non_torch_bytes``, the memory the process
  held at its peak; and whether ``total_upper_bytes`` covered it (a *fits* verdict relies on it).

>>> record = {"model": "tiny", "kind": "infer", "mode": "infer_bf16", "batch": 1, "seq": 16,
...     "attention": "sdpa", "gradient_checkpointing": False, "new_tokens": 4, "lora": None,
...     "cuda_peak_allocated": 70 * 2**20, "cuda_peak_reserved": 80 * 2**20, "non_torch_bytes": 785 * 2**20}
>>> configs = {"tiny": {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
...     "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100}}
>>> result = score_run(record, configs)
>>> result.kind, round(result.allocated_error, 2)
('infer', -0.08)
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from calculators.columns import Column
from calculators.memory.inference import inference_memory
from calculators.memory.overhead import CUDA_CONTEXT_BYTES, FIT_MARGIN
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import training_memory
from calculators.model_config import spec_from_config
from calculators.tables import Table
from calculators.units import MIB, signed_error

#: The calculators' ``precision`` for each run mode of the harness.
PRECISION_OF_MODE = {"fp32": "fp32", "amp_bf16": "bf16-mixed", "bf16": "bf16", "lora_bf16": "bf16-mixed"}


@dataclass(frozen=True)
class RealRunScore:
    """One real-GPU run and the calculators' estimate of it (bytes)."""

    label: str
    kind: str
    model: str
    measured_allocated: int
    measured_total: int
    estimated_allocated: int
    estimated_total: int
    estimated_upper: int

    @property
    def allocated_error(self) -> float:
        """Signed relative error of ``peak_allocated_bytes``."""
        return (self.estimated_allocated - self.measured_allocated) / self.measured_allocated

    @property
    def total_error(self) -> float:
        """Signed relative error of ``total_bytes`` against context + reserved."""
        return (self.estimated_total - self.measured_total) / self.measured_total

    @property
    def covered(self) -> bool:
        """True when ``total_upper_bytes`` was at least what the process held."""
        return self.estimated_upper >= self.measured_total


def load_runs(directory: str | Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The runs (``cases.jsonl``) and model configs (``configs.json``) of one real-GPU data set."""
    folder = Path(directory)
    runs = [json.loads(line) for line in (folder / "cases.jsonl").read_text(encoding="utf-8").splitlines() if line]
    configs = json.loads((folder / "configs.json").read_text(encoding="utf-8"))
    return runs, configs


def estimate_run(record: Mapping[str, Any], configs: Mapping[str, Any]) -> MemoryEstimate:
    """The calculators' estimate for the settings of one run."""
    spec = spec_from_config(configs[record["model"]], name=str(record["model"]))
    if record["kind"] == "infer":
        return inference_memory(spec, weights="bf16", kv_cache="bf16", batch=record["batch"],
                                context=record["seq"], new_tokens=record.get("new_tokens") or 0,
                                attention=record["attention"])
    settings: dict[str, Any] = {
        "precision": PRECISION_OF_MODE[record["mode"]], "optimizer": "adamw", "batch": record["batch"],
        "seq": record["seq"], "grad_checkpointing": bool(record["gradient_checkpointing"]),
        "attention": record["attention"],
    }
    lora = record.get("lora")
    if lora:
        settings.update(method="lora", lora_rank=lora["rank"], lora_targets=lora["targets"], base_dtype="bf16")
    return training_memory(spec, **settings)


def run_label(record: Mapping[str, Any]) -> str:
    """A short label: model, mode, attention, checkpointing, batch x seq."""
    ckpt = " ckpt" if record.get("gradient_checkpointing") else ""
    return f"{record['model']} {record['mode']} {record['attention']}{ckpt} b{record['batch']} x {record['seq']}"


def score_run(record: Mapping[str, Any], configs: Mapping[str, Any]) -> RealRunScore:
    """Pair one run that completed with the calculators' estimate."""
    estimate = estimate_run(record, configs)
    return RealRunScore(
        label=run_label(record), kind=str(record["kind"]), model=str(record["model"]),
        measured_allocated=int(record["cuda_peak_allocated"]),
        measured_total=int(record["cuda_peak_reserved"]) + int(record["non_torch_bytes"]),
        estimated_allocated=estimate.peak_allocated_bytes, estimated_total=estimate.total_bytes,
        estimated_upper=estimate.total_upper_bytes,
    )


def score_runs(runs: Iterable[Mapping[str, Any]], configs: Mapping[str, Any]) -> list[RealRunScore]:
    """Scores of every run that completed (out-of-memory runs are judged by :func:`oom_runs`)."""
    return [score_run(record, configs) for record in runs if not record.get("out_of_memory")]


def oom_runs(runs: Iterable[Mapping[str, Any]], configs: Mapping[str, Any]) -> list[tuple[str, MemoryEstimate]]:
    """The runs that ran out of memory, with the calculators' estimate of each."""
    return [(run_label(record), estimate_run(record, configs)) for record in runs if record.get("out_of_memory")]


@dataclass(frozen=True)
class ErrorStats:
    """Median, 95th percentile and worst absolute error, and the most negative signed error."""

    count: int
    median: float
    p95: float
    worst: float
    most_under: float


def _percentile(values: list[float], fraction: float) -> float:
    """Linear-interpolated percentile of an ascending list (numpy's default method)."""
    position = (len(values) - 1) * fraction
    low = math.floor(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (position - low)


def error_stats(errors: Iterable[float]) -> ErrorStats:
    """Summary of signed relative errors.

    >>> error_stats([0.01, -0.02, 0.03]).median
    0.02
    """
    signed = list(errors)
    absolute = sorted(abs(value) for value in signed)
    return ErrorStats(count=len(signed), median=_percentile(absolute, 0.5), p95=_percentile(absolute, 0.95),
                      worst=absolute[-1], most_under=min(signed))


def _share(name: str) -> Column:
    """A column of absolute errors as percentages with two decimals."""
    return Column(name, "{:.2%}".format, "r")


def _signed_share(name: str) -> Column:
    """A column of signed errors as percentages with two decimals."""
    return Column(name, signed_error, "r")


def real_gpu_table(scores: list[RealRunScore], *, gpu: str, environment: str) -> Table:
    """Table ``accuracy-real-gpu``: error of the allocated peak and of the total on a real GPU, by kind of job."""
    groups: dict[str, list[RealRunScore]] = {"training": [], "inference": []}
    for item in scores:
        groups["inference" if item.kind == "infer" else "training"].append(item)
    rows = []
    for name, items in [*groups.items(), ("all runs", scores)]:
        if not items:
            continue
        allocated = error_stats(s.allocated_error for s in items)
        total = error_stats(s.total_error for s in items)
        covered = sum(1 for s in items if s.covered)
        rows.append((name, allocated.count, allocated.median, allocated.p95, allocated.worst, total.median, total.p95,
                     total.most_under, f"{covered} of {len(items)}"))
    return Table.of(
        id="accuracy-real-gpu",
        caption=f"Error of peak_allocated_bytes and total_bytes against real runs on one {gpu}.",
        columns=(Column("runs"), Column("n", align="r"), _share("allocated: median"), _share("allocated: 95th pct"),
                 _share("allocated: worst"), _share("total: median"), _share("total: 95th pct"),
                 _signed_share("total: most under"), Column("fit line covers", align="r")),
        rows=rows,
        assumptions=(f"environment: {environment}",
                     "total = max_memory_reserved + non-PyTorch device memory (CUDA context, kernels, handles)"),
    )


def replay_table(document: Mapping[str, Any], *, gpu: str) -> Table:
    """Table ``accuracy-allocator-replay``: ``total_bytes`` error when the step's allocation order is replayed.

    ``document`` is what ``scripts/replay_allocator.py --out`` writes: per run, the measured
    peaks, the peaks of the fake-tensor allocation order replayed through
    :mod:`calculators.memory.caching_allocator` (plus the CUDA context), and the calculators'
    ``total_bytes``. Runs that took another kernel path on the GPU are left out and counted.
    """
    runs = [run for run in document["runs"] if run["same_path"]]
    groups = {
        "training, checkpointing": [r for r in runs if r["kind"] == "train" and r["checkpointing"]],
        "training, no checkpointing": [r for r in runs if r["kind"] == "train" and not r["checkpointing"]],
        "inference": [r for r in runs if r["kind"] == "infer"],
        "all runs": runs,
    }
    rows = []
    for name, items in groups.items():
        if not items:
            continue
        replayed = error_stats((r["replayed_total"] - r["measured_total"]) / r["measured_total"] for r in items)
        fitted = error_stats((r["calculators_total"] - r["measured_total"]) / r["measured_total"] for r in items)
        rows.append((name, replayed.count, replayed.median, replayed.p95, replayed.most_under, fitted.median,
                     fitted.p95, fitted.most_under))
    left_out = len(document["runs"]) - len(runs)
    provenance = document["provenance"]
    return Table.of(
        id="accuracy-allocator-replay",
        caption=f"Error of the process total on one {gpu} when each step's allocation order is replayed through "
                "the caching allocator's rules, next to the fitted reserve of total_bytes.",
        columns=(Column("runs"), Column("n", align="r"), _share("replayed: median"), _share("replayed: 95th pct"),
                 _signed_share("replayed: most under"), _share("total_bytes: median"), _share("total_bytes: 95th pct"),
                 _signed_share("total_bytes: most under")),
        rows=rows,
        assumptions=(f"allocation order from fake-tensor runs of the same steps (torch {provenance['torch']}, "
                     f"transformers {provenance['transformers']}), replayed by {provenance['allocator_rules']}, "
                     f"plus a CUDA context of {provenance['context_bytes'] // MIB} MiB",
                     f"{left_out} runs left out: their allocated peak on the GPU differs by more than 5 % from the "
                     "fake-tensor run's (another kernel path, such as fp32 SDPA's math backend)",
                     f"made by {provenance['command']} on {provenance['date']}"),
    )


def load_boundaries(directory: str | Path) -> list[dict[str, Any]]:
    """The measured fit boundaries (``boundaries.json``) of one real-GPU data set, or none."""
    path = Path(directory) / "boundaries.json"
    if not path.is_file():
        return []
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return list(data["boundaries"])


def boundary_answer(boundary: Mapping[str, Any], gpu: str) -> tuple[int, int]:
    """``(max_batch, max_batch_tight)`` the calculators give for a measured boundary's job on ``gpu``."""
    from calculators.catalog.models import get_model
    from calculators.fit import fit_inference, fit_training

    fit = fit_training if boundary["job"] == "train" else fit_inference
    result = fit(get_model(str(boundary["model"])), gpu, **boundary["settings"])
    return result.max_batch, result.max_batch_tight


def boundaries_table(boundaries: list[dict[str, Any]], *, gpu: str, gpu_name: str) -> Table:
    """Table ``accuracy-real-gpu-boundaries``: the largest batch that ran, next to the calculators' answers."""
    rows = []
    for boundary in boundaries:
        fits, tight = boundary_answer(boundary, gpu)
        measured = int(boundary["largest_batch_that_ran"])
        rows.append((boundary["label"], measured, boundary["previous_answer"], fits, tight, verdict(fits, measured)))
    return Table.of(
        id="accuracy-real-gpu-boundaries",
        caption=(f"Largest batch on one {gpu_name}: what ran, what the calculators said before the real-GPU "
                 "calibration, and now: the largest batch that fits, and the largest that is at most tight."),
        columns=(Column("job"), *(Column(name, align="r") for name in ("largest batch that ran", "before (fits)",
                                                                       "now: fits", "now: tight up to")),
                 Column("fits is")),
        rows=rows,
        assumptions=("measured boundaries: tests/data/measurements_cuda/h100-sxm/boundaries.json",),
    )


def verdict(fits: int, ran: int) -> str:
    """How a ``fits`` answer compares with the largest batch that ran: right, conservative by N, or over-promises.

    >>> verdict(6, 6), verdict(5, 6), verdict(3, 6), verdict(7, 6)
    ('right', 'conservative by 1', 'conservative by 3', 'over-promises')
    """
    if fits > ran:
        return "over-promises"
    return "right" if fits == ran else f"conservative by {ran - fits}"


def simulated_boundaries_table(document: Mapping[str, Any], *, gpu: str, gpu_name: str) -> Table:
    """Table ``accuracy-simulated-boundaries``: the calculators' largest batch against a simulated boundary.

    ``document`` is what ``scripts/simulate_boundaries.py`` writes: per job, the largest batch
    whose allocation order fits the GPU when replayed through the caching allocator (and, for
    the three jobs run on the GPU, the batch that really ran).
    """
    rows = []
    for boundary in document["boundaries"]:
        fits, tight = boundary_answer(boundary, gpu)
        simulated = int(boundary["largest_batch_that_ran"])
        measured = boundary.get("measured_largest_batch")
        rows.append((boundary["label"], simulated, "" if measured is None else measured, fits, tight,
                     verdict(fits, simulated)))
    return Table.of(
        id="accuracy-simulated-boundaries",
        caption=(f"Largest batch on one {gpu_name}, simulated by replaying each step's allocation order through the "
                 "caching allocator with the GPU's capacity, next to the calculators' answers; where the job was "
                 "also run on the GPU, the batch that ran."),
        columns=(Column("job"), *(Column(name, align="r") for name in ("simulated: largest that runs", "ran on the GPU",
                                                                       "now: fits", "now: tight up to")),
                 Column("fits is")),
        rows=rows,
        assumptions=(str(document["source"]),),
    )


def _margin_factor(estimate: MemoryEstimate, footprint_bytes: int) -> float:
    """The per-block factor ``k`` at which ``allocated + context + base + k x block`` equals ``footprint_bytes``."""
    spare = footprint_bytes - estimate.peak_allocated_bytes - CUDA_CONTEXT_BYTES - FIT_MARGIN.base_bytes
    return spare / max(estimate.transient_block_bytes, 1)


def factor_needed(record: Mapping[str, Any], configs: Mapping[str, Any]) -> float:
    """Smallest fit-margin factor (with the margin's base) under which the line covers what one run held."""
    return _margin_factor(estimate_run(record, configs), int(record["cuda_peak_reserved"]) + int(
        record["non_torch_bytes"]))


def boundary_factor_range(boundary: Mapping[str, Any], usable_bytes: int) -> tuple[float, float, float]:
    """``(over, right, conservative)``: fit-margin factors at a measured boundary ``n`` (largest batch that ran).

    The answer is right for a factor in ``(over, right]`` and one batch conservative up to
    ``conservative``; at or below ``over`` batch ``n + 1``, which did not run, would fit.
    """
    from calculators.catalog.models import get_model
    from calculators.memory.inference import inference_memory
    from calculators.memory.training import training_memory

    spec = get_model(str(boundary["model"]))
    memory = training_memory if boundary["job"] == "train" else inference_memory
    ran = int(boundary["largest_batch_that_ran"])
    factors = [_margin_factor(memory(spec, batch=batch, **boundary["settings"]), usable_bytes)
               for batch in (ran + 1, ran, ran - 1)]
    return factors[0], factors[1], factors[2]
