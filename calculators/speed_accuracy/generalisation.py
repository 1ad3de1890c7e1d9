"""How the speed model generalises: every published figure scored with its source, engine or hardware held out.

Leave-one-source-out (:mod:`calculators.speed_accuracy.inference`,
:mod:`~calculators.speed_accuracy.training`) asks how well a figure is predicted when its own
document is not in the fit; the figures of the same engine on the same GPUs from other documents
still are. Two harder splits ask what a user of a new engine or a new GPU gets:

* **leave one engine out**: every fitted constant refitted without any figure of the figure's
  engine (inference: the engine id, ``vllm``, ``tensorrt-llm``, ...; training: the software,
  :func:`training_engine`, e.g. every torchtitan variant together; collectives: the link kind, whose
  efficiency is derived, not fitted, so a collective scores the same in every split);
  the engine's own constants fall back to the pooled fit of the others (the fixed cost per layer of the
  engines replaying CUDA graphs; a cost a catalog fact says the engine alone pays taken from its document:
  :func:`calculators.speed_accuracy.fit.fit_engine`);
* **leave one hardware generation out**: every constant refitted without any figure on a GPU of
  the figure's generation (:func:`calculators.catalog.generations.hardware_generation`: Ampere, Ada,
  Hopper, Blackwell, CDNA 3, Apple, ...).

Each figure is then estimated through the public API exactly as in leave-one-source-out (same
calls, same error on the speed axis: positive over-promises). The fits of one split are made
once per process (:func:`calculators.speed_accuracy.inference.held_out_fits` and
:func:`_training_fit` are cached). :func:`summary_by_split` reduces the rows per category and
overall; issue 28's targets (:data:`TARGET_MEDIAN`, :data:`TARGET_P90`) hold for the overall row
and every category with at least :data:`~calculators.speed_accuracy.MIN_RECORDS` figures.

>>> rows = scored_rows("engine")
>>> {"category", "figure_id", "source_id", "engine", "group", "error"} <= set(rows[0])
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from calculators.catalog.engines import get_engine
from calculators.catalog.generations import GENERATION_TITLES, hardware_generation
from calculators.catalog.gpus import get_gpu
from calculators.parallel.links import record_link_kind
from calculators.parallel.collective_records import record_bus_bandwidth_bytes_per_s
from calculators.performance.utilisation import UtilisationFit, fit_utilisation
from calculators.speed_accuracy import training
from calculators.speed_accuracy.data import load_figures, scored
from calculators.speed_accuracy.errors import error_summary, speed_error
from calculators.speed_accuracy.fit_store import stored
from calculators.speed_accuracy.inference import held_out_fits
from calculators.speed_accuracy.predict import catalog_engine, estimate_and_error, prepare

#: The held-out splits, in the order the page and the script show them.
SPLITS: tuple[str, ...] = ("source", "engine", "generation")
SPLIT_TITLES: dict[str, str] = {"source": "leave one source out", "engine": "leave one engine out",
                                "generation": "leave one hardware generation out"}
#: Issue 28's targets, for the overall row and every category with enough figures, in every split.
TARGET_MEDIAN = 0.12
TARGET_P90 = 0.30
#: The row of :func:`summary_by_split` that pools every category.
OVERALL = "all figures"

#: Training software by the first words of a record's ``framework`` (before any bracket): Megatron-Core
#: releases (NeMo, NeMo Megatron-Bridge) are one engine, Meta's stack is one, every torchtitan setting one.
_TRAINING_ENGINES: dict[str, str] = {
    "NeMo": "Megatron-Core", "NeMo Megatron-Bridge": "Megatron-Core", "Megatron-LM": "Megatron-Core",
    "Meta internal": "Meta internal",
}


def training_engine(record: Mapping[str, Any]) -> str:
    """The training software a record's figure was measured with, as leave-one-engine-out groups it.

    >>> training_engine({"framework": "torchtitan (FSDP2, torch.compile, Float8)"})
    'torchtitan'
    >>> training_engine({"framework": "NeMo Megatron-Bridge (Megatron-Core, Transformer Engine)"})
    'Megatron-Core'
    """
    name = str(record.get("framework") or "-").split(" (", 1)[0].strip()
    return _TRAINING_ENGINES.get(name, name)


def _generation(record: Mapping[str, Any]) -> str:
    return hardware_generation(get_gpu(str(record["gpu"])))


def _inference_group(split: str) -> Callable[[Mapping[str, Any]], str]:
    if split == "source":
        return lambda figure: str(figure["source_id"])
    if split == "engine":
        return lambda figure: str(figure["engine"])
    return _generation


def _training_group(split: str) -> Callable[[Mapping[str, Any]], str]:
    if split == "source":
        return lambda record: str(record["source_id"])
    if split == "engine":
        return training_engine
    return _generation


def _collective_group(split: str) -> Callable[[Mapping[str, Any]], str]:
    if split == "source":
        return lambda record: str(record["source_id"])
    if split == "engine":
        return record_link_kind
    return _generation


def _check(split: str) -> str:
    if split not in SPLITS:
        raise ValueError(f"split {split!r}: one of {', '.join(SPLITS)}")
    return split


@functools.lru_cache(maxsize=len(SPLITS))
def _inference_rows(split: str) -> tuple[tuple[tuple[str, Any], ...], ...]:
    figures = scored(load_figures())
    # The rows follow from the split, the figures and the package's code (read back by a later process of the run).
    return stored("generalisation-rows", (split, figures), lambda: _score_split(split, figures))


def _score_split(split: str, figures: list[dict[str, Any]]) -> tuple[tuple[tuple[str, Any], ...], ...]:
    cases = [prepare(f) for f in figures]
    group_of = _inference_group(split)
    groups = tuple(group_of(f) for f in figures)
    fits = held_out_fits(cases, groups)
    rows = []
    for figure, group in zip(figures, groups, strict=True):
        _pooled, engine_fit = fits[(group, str(figure["engine"]))]
        engine = engine_fit.engine(get_engine(catalog_engine(figure)), suffix=f" (without {group})")
        estimated, model_error = estimate_and_error(figure, engine)
        rows.append((("category", figure["category"]), ("figure_id", figure["id"]),
                     ("source_id", figure["source_id"]), ("engine", figure["engine"]),
                     ("gpu", figure["gpu"]), ("group", group), ("unit", figure["unit"]),
                     ("measured", float(figure["measured"])), ("estimated", estimated), ("error", model_error)))
    return tuple(rows)


@functools.lru_cache(maxsize=32)
def _training_fit(excluded: frozenset[str]) -> UtilisationFit:
    """The utilisation fit on every scored training record but those ids (cached: one per held-out group)."""
    implied = training.implied_utilisations()
    return fit_utilisation((r["id"], r["source_id"], training.features(r), implied[r["id"]])
                           for r in training.fitted_records() if r["id"] not in excluded)


@functools.lru_cache(maxsize=len(SPLITS))
def _training_rows(split: str) -> tuple[tuple[tuple[str, Any], ...], ...]:
    records, collectives = training.scored("training"), training.scored("collectives")
    # As the inference rows: from the split, the records as loaded and the package's code (kept for the run's processes).
    return stored("generalisation-training-rows", (split, records, collectives),
                  lambda: _score_training_split(split, records, collectives))


def _score_training_split(split: str, records: list[dict[str, Any]],
                          collectives: list[dict[str, Any]]) -> tuple[tuple[tuple[str, Any], ...], ...]:
    rows = []
    group_of = _training_group(split)
    for record in records:
        group = group_of(record)
        fit = _training_fit(frozenset(str(r["id"]) for r in records if group_of(r) == group))
        estimated = training.estimate_training(record, fit)
        rows.append(_row(record, group, training_engine(record), estimated))
    collective_of = _collective_group(split)
    for record in collectives:  # nothing of the link model is fitted: each split groups the same estimates
        rows.append(_row({**record, "category": "collectives"}, collective_of(record), record_link_kind(record),
                         record_bus_bandwidth_bytes_per_s(record)))
    return tuple(rows)


def _row(record: Mapping[str, Any], group: str, engine: str, estimated: float) -> tuple[tuple[str, Any], ...]:
    measured, unit = float(record["measured"]), str(record["unit"])
    return (("category", record["category"]), ("figure_id", record["id"]), ("source_id", record["source_id"]),
            ("engine", engine), ("gpu", record["gpu"]), ("group", group), ("unit", unit), ("measured", measured),
            ("estimated", estimated), ("error", speed_error(measured=measured, estimated=estimated, unit=unit)))


def scored_rows(split: str) -> list[dict[str, Any]]:
    """Every scored figure (inference, training, collectives) estimated with its ``split`` group held out.

    Keys: ``category``, ``figure_id``, ``source_id``, ``engine`` (inference engine, training software or
    link kind), ``gpu``, ``group`` (the held-out source, engine or generation), ``unit``, ``measured``,
    ``estimated`` (the figure's unit) and ``error`` (speed axis: positive over-promises).
    """
    split = _check(split)
    return [dict(row) for row in (*_inference_rows(split), *_training_rows(split))]


def meets_target(stats: Mapping[str, float], *, min_records: int = 10) -> bool | None:
    """True or False against issue 28's targets; ``None`` for fewer than ``min_records`` figures (no target).

    >>> meets_target({"n": 12, "median": 0.1, "p90": 0.31}), meets_target({"n": 3, "median": 0.5, "p90": 1.0})
    (False, None)
    """
    if stats["n"] < min_records:
        return None
    return stats["median"] <= TARGET_MEDIAN and stats["p90"] <= TARGET_P90


def summary_by_split(splits: tuple[str, ...] = SPLITS) -> list[dict[str, Any]]:
    """Per split, the overall row (:data:`OVERALL`) then one per category: ``split``, ``category``, ``n``,
    ``median``, ``p90``, ``worst`` (absolute errors, nearest rank) and ``meets`` (:func:`meets_target`)."""
    result = []
    for split in splits:
        rows = scored_rows(split)
        by_category: dict[str, list[float]] = {OVERALL: [float(r["error"]) for r in rows]}
        for row in rows:
            by_category.setdefault(str(row["category"]), []).append(float(row["error"]))
        for category, errors in by_category.items():
            stats = error_summary(errors)
            result.append({"split": split, "category": category, **stats, "meets": meets_target(stats)})
    return result


def by_group(split: str) -> list[dict[str, Any]]:
    """Per category and held-out group of ``split``: ``category``, ``group``, ``n``, ``median``, ``p90``, ``worst``."""
    keyed: dict[tuple[str, str], list[float]] = {}
    for row in scored_rows(split):
        keyed.setdefault((str(row["category"]), str(row["group"])), []).append(float(row["error"]))
    return [{"category": category, "group": group, **error_summary(errors)}
            for (category, group), errors in sorted(keyed.items())]


def group_title(split: str, group: str) -> str:
    """A held-out group in words (a generation's title; a source or engine id as it is).

    >>> group_title("generation", "cdna3"), group_title("engine", "vllm")
    ('AMD CDNA 3', 'vllm')
    """
    return GENERATION_TITLES.get(group, group) if split == "generation" else group


__all__ = ["OVERALL", "SPLITS", "SPLIT_TITLES", "TARGET_MEDIAN", "TARGET_P90", "by_group", "group_title",
           "meets_target", "scored_rows", "summary_by_split", "training_engine"]
