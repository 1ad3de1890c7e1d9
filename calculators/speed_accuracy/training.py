"""Published training and collective figures scored against our estimates, leave-one-source-out.

For every figure of ``tests/data/published_speed/training.jsonl`` (pre-training and
fine-tuning) and ``collectives.jsonl`` (nccl-tests bus bandwidth), :func:`scored_figures`
gives the measured value, our estimate and a naive roofline. Every fitted constant the
estimate uses is refitted **without the figure's source** (``source_id``): the training
utilisation factors (:func:`calculators.performance.utilisation.fit_utilisation`).
So no figure scores a fit made with its own source. A collectives estimate fits nothing: it is the link model's
busbw for the record (:func:`calculators.parallel.collective_records.record_bus_bandwidth_bytes_per_s`: its
link kind from link, GPUs and algorithm, each kind's derived efficiency, and the latency term where the message
size is stated).

Estimates go through :func:`calculators.performance.training_time.training_time`, as the
``train-time`` command does, with the record's settings (GPUs, TP/PP, micro-batch,
sequence, checkpointing, method, FP8). Naive rooflines (stated on the page):

* training: ``6 x N x tokens / (GPUs x dense BF16 peak x 0.4)`` (the textbook 6ND at a
  fixed MFU of 0.4, no attention, no method, no FP8);
* collectives: ``per-direction link bandwidth x 0.8`` (NCCL's ~20 % protocol overhead on
  NVLink, applied to every link), multi-node ``min(intra-node, NICs x NIC)`` first.

The datasets live in the repository, not in the package: these functions read them
when called (scripts and tests), never at import.

>>> rows = scored_figures()
>>> sorted({r["category"] for r in rows})
['collectives', 'fine-tuning', 'pre-training']
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.catalog.training_frameworks import DEFAULT_FRAMEWORK
from calculators.catalog.utilisation import fp8_peak_ratio, ridge_tokens
from calculators.errors import InputError
from calculators.model import ModelSpec
from calculators.model_config import spec_from_config
from calculators.model_flops import linear_flops_share, matmul_parameters, runs_unfused, unfused_bytes_per_flop
from calculators.parallel.links import record_link_bytes_per_s
from calculators.parallel.collective_records import record_bus_bandwidth_bytes_per_s
from calculators.performance.goodput import run_goodput
from calculators.performance.training_time import SECONDS_PER_HOUR, TrainingTime, training_time
from calculators.performance.utilisation import Features, UtilisationFit, fit_utilisation, gpu_family
from calculators.speed_accuracy.errors import TIME_UNITS, error_summary, speed_error
from calculators.speed_accuracy.fit_store import stored
from calculators.speed_accuracy.pending import pending_reason

DATA_DIR = Path(__file__).resolve().parents[2] / "tests" / "data" / "published_speed"
#: Fixed MFU of the naive training roofline (the figure the CLI used for every GPU without a published one).
NAIVE_MFU = 0.4
#: Fixed efficiency of the naive collective roofline (NCCL maintainer's ~20 % overhead on NVLink, nccl-tests #212).
NAIVE_LINK_EFFICIENCY = 0.8
#: The issue's targets per category with ten or more figures: median and 90th-percentile |error|.
TARGET_MEDIAN = 0.15
TARGET_P90 = 0.35
#: Sequence length assumed for records that do not state one.
DEFAULT_SEQ = 2048
#: The training half's files under :data:`DATA_DIR` (the inference half's are
#: :data:`calculators.speed_accuracy.data.CATEGORIES`).
FILES = ("training", "collectives")


def load(name: str, *, directory: Path = DATA_DIR) -> list[dict[str, Any]]:
    """Records of ``NAME.jsonl`` (``training`` or ``collectives``) under ``directory`` (default: the fitted figures,
    ``tests/data/published_speed``; an absent file under another directory is empty)."""
    path = directory / f"{name}.jsonl"
    if not path.is_file():
        if directory != DATA_DIR:
            return []
        raise InputError("dataset", str(path), "a published-figures file in the repository (tests/data/published_speed)")
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def usable(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The training ``records`` that are scored: all but those with an ``excluded`` reason and those the catalog
    cannot answer yet (:func:`calculators.speed_accuracy.pending.pending_reason`)."""
    return [record for record in records if not record.get("excluded") and not pending_reason(record)]


def scored(name: str) -> list[dict[str, Any]]:
    """The records of ``NAME.jsonl`` that are fitted and scored: all but those with an ``excluded`` reason and, for
    training, those the catalog cannot answer yet (:func:`calculators.speed_accuracy.pending.pending_reason`)."""
    records = load(name)
    return usable(records) if name == "training" else [record for record in records if not record.get("excluded")]


def record_spec(record: Mapping[str, Any]) -> ModelSpec:
    """The model of a record: a catalog id, or the config values it gives."""
    if record.get("model"):
        return get_model(str(record["model"]))
    return spec_from_config(dict(record["model_config"]))


def features(record: Mapping[str, Any]) -> Features:
    """What the utilisation model sees of a record."""
    ckpt = record.get("checkpointing") or "none"
    seq = int(record.get("seq") or DEFAULT_SEQ)
    tokens = int(record.get("micro_batch") or 1) * seq
    spec, gpu = record_spec(record), get_gpu(str(record["gpu"]))
    method = str(record.get("method") or "full")
    share = linear_flops_share(spec, seq=seq, grad_checkpointing=ckpt == "full", method=method,
                               selective_recompute=str(record.get("selective_recompute") or "none"),
                               **_lora_settings(record))
    if str(record.get("attention") or "sdpa") != "eager":  # a fused kernel times attention apart (training_time)
        share = 1.0
    framework = str(record.get("training_framework") or DEFAULT_FRAMEWORK)
    unfused = unfused_bytes_per_flop(spec, seq=seq, grad_checkpointing=ckpt == "full", method=method,
                                     selective_recompute=str(record.get("selective_recompute") or "none"),
                                     **_lora_settings(record)) \
        if runs_unfused(framework, fused_kernels=bool(record.get("fused_kernels"))) else 0.0
    return Features(gpu_family(gpu), bool(record.get("fp8")), "full" if ckpt == "full" else "none", method, tokens,
                    "whole-run" if record["unit"] == "gpu_hours" else "steady",
                    framework=framework, linear_share=share,
                    fp8_peak_ratio=fp8_peak_ratio(gpu), ridge_tokens=ridge_tokens(gpu), unfused_bytes_per_flop=unfused)


def _lora_settings(record: Mapping[str, Any]) -> dict[str, Any]:
    """The adapter settings of a LoRA/QLoRA record (rank 16 on every linear layer where not stated)."""
    if record.get("method", "full") == "full":
        return {}
    return {"lora_rank": int(record.get("lora_rank") or 16), "lora_targets": record.get("lora_targets") or "all-linear"}


def _run(record: Mapping[str, Any], utilisation: float, goodput: float = 1.0) -> TrainingTime:
    gpus = int(record.get("gpus") or 1)
    tp, pp = int(record.get("tp") or 1), int(record.get("pp") or 1)
    batch = int(record.get("micro_batch") or 1)
    seq = int(record.get("seq") or DEFAULT_SEQ)
    dp = max(1, gpus // (tp * pp))
    accumulation = max(1, int(record.get("global_batch") or dp * batch) // (dp * batch))
    lora = _lora_settings(record)
    tokens = int(record.get("tokens") or 10**12)
    return training_time(
        record_spec(record), get_gpu(str(record["gpu"])), tokens=tokens, gpus=gpus, mfu=min(1.0, utilisation),
        precision=str(record.get("precision") or "bf16-mixed"), fp8=bool(record.get("fp8")),
        grad_checkpointing=record.get("checkpointing") == "full", seq=seq, method=str(record.get("method") or "full"),
        batch=batch, grad_accumulation=accumulation, zero=int(record.get("zero") or 0), tensor_parallel=tp,
        pipeline_parallel=pp, virtual_stages=int(record.get("vp") or 1), expert_parallel=int(record.get("ep") or 1),
        goodput=goodput, expert_overlap=bool(record.get("ep_overlap")), fused_kernels=bool(record.get("fused_kernels")),
        selective_recompute=str(record.get("selective_recompute") or "none"),
        attention=str(record.get("attention") or "sdpa"), attention_kernel=str(record.get("attention_kernel") or "auto"),
        qlora_weights=str(record.get("qlora_weights") or "nf4"),
        check_memory=False, **lora)


def value_of(record: Mapping[str, Any], run: TrainingTime) -> float:
    """The estimate in the record's unit."""
    unit = record["unit"]
    if unit == "gpu_hours":
        return run.gpu_hours
    if unit == "tokens_per_s_per_gpu":
        return run.tokens_per_s_per_gpu
    if unit == "tokens_per_s":
        return run.tokens_per_s
    if unit == "model_flop_per_s_per_gpu":
        return run.tokens_per_s_per_gpu * run.model_flops_per_token
    if unit == "seconds_per_step":
        return float(record["tokens_per_step"]) / run.tokens_per_s
    raise InputError("unit", unit, "gpu_hours, seconds_per_step, tokens_per_s_per_gpu, tokens_per_s or "
                     "model_flop_per_s_per_gpu")


def _is_time(record: Mapping[str, Any]) -> bool:
    return record["unit"] in TIME_UNITS


@lru_cache(maxsize=1)
def implied_utilisations() -> dict[str, float]:
    """Record id -> the utilisation at which :func:`training_time` reproduces the published figure.

    A whole run's figure is first divided by its modelled goodput (:func:`modelled_goodput`), so what is left
    is the utilisation times the whole-run residual the fit names.
    """
    out: dict[str, float] = {}
    for record in scored("training"):
        u = NAIVE_MFU
        goodput = modelled_goodput(record)
        for _ in range(4):
            ratio = value_of(record, _run(record, u, goodput)) / float(record["measured"])
            u = u * ratio if _is_time(record) else u / ratio
        out[record["id"]] = u
    return out


def fitted_records() -> list[dict[str, Any]]:
    """The scored training records the utilisation is fitted on: all but the mixture-of-experts runs.

    A mixture of experts' step also pays its expert-parallel all-to-alls
    (:mod:`calculators.performance.expert_parallel`), timed from the links without DeepEP's node-level
    deduplication or the overlap some schedules get: what is left of its time is not the dense
    utilisation the factors stand for, so those runs are scored (with the factors of the dense runs)
    and not fitted on.
    """
    return [r for r in scored("training") if record_spec(r).moe is None]


def fit_training(exclude_source: str | None = None) -> UtilisationFit:
    """The utilisation fit on every fitted training record (:func:`fitted_records`), or on all but one source's."""
    implied = implied_utilisations()
    return fit_utilisation((r["id"], r["source_id"], features(r), implied[r["id"]]) for r in fitted_records()
                           if r["source_id"] != exclude_source)


def full_fit() -> UtilisationFit:
    """The fit on every record (what :data:`calculators.catalog.utilisation.DEFAULT_FIT` holds)."""
    return fit_training(None)


def modelled_goodput(record: Mapping[str, Any]) -> float:
    """The goodput :mod:`calculators.performance.goodput` gives a whole-run record (1 for a steady-state figure).

    The record's whole-run figures are scored per GPU (``gpus`` null); the goodput is the job's, on
    ``job_gpus`` where the record states them (Llama 3 405B: 16,384), else 1 GPU (unknown: no interruptions
    counted). With Young's checkpoint interval it depends on the GPUs alone, not on the run's length.
    """
    if record["unit"] != "gpu_hours":
        return 1.0
    gpus = int(record.get("job_gpus") or record.get("gpus") or 1)
    return run_goodput(gpus=gpus, steady_s=SECONDS_PER_HOUR).goodput


def estimate_training(record: Mapping[str, Any], fit: UtilisationFit) -> float:
    """Our estimate of a training record with a given fit, in the record's unit (GPU-hours: whole run).

    A whole run's steady state is divided by its modelled goodput and by the fitted whole-run residual.
    """
    goodput = modelled_goodput(record) * fit.whole_run_residual if record["unit"] == "gpu_hours" else 1.0
    return value_of(record, _run(record, fit.predict(features(record)), min(1.0, goodput)))


def naive_training(record: Mapping[str, Any]) -> float:
    """``6 N D / (GPUs x BF16 peak x 0.4)`` in the record's unit."""
    spec, gpu = record_spec(record), get_gpu(str(record["gpu"]))
    rate = gpu.bf16_dense_flop_per_s or gpu.fp16_dense_flop_per_s or 1.0
    per_gpu_tokens_per_s = rate * NAIVE_MFU / (6.0 * matmul_parameters(spec))
    unit = record["unit"]
    if unit == "gpu_hours":
        return float(record["tokens"]) / per_gpu_tokens_per_s / SECONDS_PER_HOUR
    if unit == "tokens_per_s":
        return per_gpu_tokens_per_s * int(record.get("gpus") or 1)
    if unit == "model_flop_per_s_per_gpu":
        return rate * NAIVE_MFU
    if unit == "seconds_per_step":
        return float(record["tokens_per_step"]) / (per_gpu_tokens_per_s * int(record.get("gpus") or 1))
    return per_gpu_tokens_per_s


def scored_figures() -> list[dict[str, Any]]:
    """Every published figure with our leave-one-source-out estimate and the naive roofline.

    Keys: ``category`` (pre-training, fine-tuning, collectives), ``figure_id``,
    ``source_id``, ``measured``, ``estimated``, ``naive_roofline`` (same unit as measured), ``unit``.
    Fresh dicts on every call (a caller may change them); the rows are computed once per process.
    """
    return [dict(row) for row in _scored_rows()]


@lru_cache(maxsize=1)
def _scored_rows() -> tuple[tuple[tuple[str, Any], ...], ...]:
    training, collectives = scored("training"), scored("collectives")
    # The rows follow from the records as loaded and the package's code (a later process of the run reads them back).
    return stored("training-rows", (training, collectives),
                  lambda: tuple(tuple(row.items()) for row in _score(training, collectives)))


def _score(training: list[dict[str, Any]], collectives: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    fits = {source: fit_training(source) for source in sorted({r["source_id"] for r in training})}
    for record in training:
        rows.append({"category": record["category"], "figure_id": record["id"], "source_id": record["source_id"],
                     "measured": float(record["measured"]),
                     "estimated": estimate_training(record, fits[record["source_id"]]),
                     "naive_roofline": naive_training(record), "unit": str(record["unit"])})
    for record in collectives:
        rows.append({"category": "collectives", "figure_id": record["id"], "source_id": record["source_id"],
                     "measured": float(record["measured"]),
                     "estimated": record_bus_bandwidth_bytes_per_s(record),
                     "naive_roofline": record_link_bytes_per_s(record) * NAIVE_LINK_EFFICIENCY,
                     "unit": str(record["unit"])})
    return rows


def error_statistics(rows: list[dict[str, Any]], *, key: str = "estimated") -> dict[str, dict[str, float]]:
    """Per category: n, median, 90th percentile and worst of the absolute :func:`speed_error` of ``key``.

    On the speed axis, as the accuracy page scores every category: ``key / measured - 1`` for a rate,
    ``measured / key - 1`` for a time. The 90th percentile is the nearest-rank value
    (``ceil(0.9 n)``-th smallest), and so is the median (:func:`~calculators.speed_accuracy.errors.percentile`).
    """
    out: dict[str, dict[str, float]] = {}
    for category in sorted({r["category"] for r in rows}):
        out[category] = error_summary(speed_error(measured=r["measured"], estimated=r[key], unit=r["unit"])
                                      for r in rows if r["category"] == category)
    return out


def fit_module_text() -> str:
    """The source of :mod:`calculators.catalog.utilisation_fit`: the full fit and the records behind each factor."""
    fit = full_fit()

    def table(values: Mapping[str, float]) -> str:
        return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in sorted(values.items())) + "}"

    lines = [
        '"""The training utilisation fit on every record of tests/data/published_speed/training.jsonl (generated).',
        "",
        "Written by ``scripts/fit_speed_training.py`` from",
        ":func:`calculators.speed_accuracy.training.full_fit`; ``tests/test_speed_training.py``",
        "fails when it differs from a refit. :data:`FITTED_ON` names the records each factor",
        "is the median over (``group:key`` -> record ids).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "BYTES_PER_FLOP: float = " + repr(fit.bytes_per_flop),
        "CHECKPOINTING: dict[str, float] = " + table(fit.checkpointing),
        "METHOD: dict[str, float] = " + table(fit.method),
        "RUN: dict[str, float] = " + table(fit.run),
        "FRAMEWORK: dict[str, float] = " + table(fit.framework),
        "FP8: dict[str, float] = " + table(fit.fp8),
        "",
        "FITTED_ON: dict[str, tuple[str, ...]] = {",
    ]
    for group, ids in fit.fitted_on.items():
        lines.append(f"    {group!r}: (")
        lines.extend(f"        {rid!r}," for rid in ids)
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"
