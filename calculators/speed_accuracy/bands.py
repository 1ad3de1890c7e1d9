"""The error bands speed and time answers carry, computed from the cross-validated scores.

:func:`band_table` reduces the rows of the three held-out splits
(:mod:`calculators.speed_accuracy.generalisation`) and the naive roofline's errors to the 10th and
90th percentiles of the signed error (on the time axis) for every set of figures
:mod:`calculators.performance.error_bands` may read; :func:`bands_module_text` is the source of the
generated :mod:`calculators.catalog.speed_error_bands` (``scripts/score_generalisation.py
--write-bands``; ``tests/validation/test_speed_generalisation.py`` fails when it is stale).

The published figures held out of every fit (:mod:`calculators.speed_accuracy.held_out`) join the source split:
each is estimated with its source (and every other figure of its document) out of the fit, as a cross-validated
figure is, so an answer like them carries their errors too (llama.cpp's prefill on an A100 or an H100 PCIe, which
no fitted figure covers, carries the over-promise those figures showed). Only their inference figures: the held-out
training runs are keyed by no framework group.

Keys are ``category|split|engine|generation`` with ``*`` for "any": ``source|vllm|hopper`` (vLLM's
figures on Hopper GPUs, each with its source held out), ``source|vllm|*``, ``source|*|*``,
``engine|*|*`` (every figure with its engine held out), ``generation|vllm|*``, ``generation|*|*``,
``unseen|*|*`` (the engine and the generation splits together) and ``naive|*|*`` (the naive roofline).
The engine of a training figure is its framework group (``pytorch``, ``megatron``).

>>> table = band_table()
>>> n, low, high = table["decode_batch1|source|*|*"]
>>> n > 10 and low < 0 < high
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from calculators.catalog.generations import hardware_generation
from calculators.catalog.gpus import get_gpu
from calculators.speed_accuracy import generalisation, held_out, inference, training
from calculators.speed_accuracy.errors import percentile

#: The categories answers carry bands of (collectives have no answer of their own).
ANSWER_CATEGORIES = ("decode_batch1", "batched_throughput", "time_to_first_token", "prefill_throughput",
                     "pre-training", "fine-tuning")


def _band(errors: list[float]) -> tuple[int, float, float]:
    return len(errors), round(percentile(errors, 0.1), 4), round(percentile(errors, 0.9), 4)


def _engine_of(row: dict[str, Any], groups: dict[str, str]) -> str:
    """The engine a band is keyed by: the inference engine id, or a training figure's framework group."""
    return groups.get(str(row["figure_id"]), str(row["engine"]))


def _collect(rows: Iterable[dict[str, Any]], groups: dict[str, str], split: str,
             into: dict[str, list[float]]) -> None:
    for row in rows:
        category = str(row["category"])
        if category not in ANSWER_CATEGORIES:
            continue
        engine, generation = _engine_of(row, groups), hardware_generation(get_gpu(str(row["gpu"])))
        error = float(row["error"])
        keys = [f"{category}|{split}|*|*"]
        if split == "source":
            keys += [f"{category}|source|{engine}|*", f"{category}|source|{engine}|{generation}"]
        if split == "generation":
            keys.append(f"{category}|generation|{engine}|*")
        if split in ("engine", "generation"):
            keys.append(f"{category}|unseen|*|*")
        for key in keys:
            into.setdefault(key, []).append(error)


def _source_rows() -> list[dict[str, Any]]:
    """The source split's rows and the held-out inference figures, each with its source out of every fit."""
    unseen = [{**row, "figure_id": row["id"]} for row in held_out.held_out_rows()
              if "metric" in row and row["category"] in ANSWER_CATEGORIES]
    return [*generalisation.scored_rows("source"), *unseen]


def coverage() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """Per category, the engines and the GPU generations with scored figures, fitted or held out (sorted)."""
    groups = _training_groups()
    engines: dict[str, set[str]] = {}
    generations: dict[str, set[str]] = {}
    for row in _source_rows():
        category = str(row["category"])
        if category in ANSWER_CATEGORIES:
            engines.setdefault(category, set()).add(_engine_of(row, groups))
            generations.setdefault(category, set()).add(hardware_generation(get_gpu(str(row["gpu"]))))
    return ({c: tuple(sorted(v)) for c, v in sorted(engines.items())},
            {c: tuple(sorted(v)) for c, v in sorted(generations.items())})


def _training_groups() -> dict[str, str]:
    return {str(r["id"]): str(r.get("training_framework") or "pytorch") for r in training.scored("training")}


def band_table() -> dict[str, tuple[int, float, float]]:
    """Every band key (module docstring) -> ``(figures, 10th percentile, 90th percentile)`` of the signed error."""
    groups = _training_groups()
    errors: dict[str, list[float]] = {}
    for split in generalisation.SPLITS:
        _collect(_source_rows() if split == "source" else generalisation.scored_rows(split), groups, split, errors)
    for row in inference.scored_figures():
        errors.setdefault(f"{row['category']}|naive|*|*", []).append(float(row["naive_error"]))
    return {key: _band(values) for key, values in sorted(errors.items())}


def bands_module_text() -> str:
    """Source of :mod:`calculators.catalog.speed_error_bands` (deterministic)."""
    engines, generations = coverage()
    lines = ['"""Error bands of speed and time answers: written by ``scripts/score_generalisation.py --write-bands``.',
             "",
             "Do not edit by hand. :data:`BANDS` maps ``category|split|engine|generation`` to ``(figures, 10th",
             "percentile, 90th percentile)`` of the signed error of the published figures of",
             "tests/data/published_speed on the time axis, each estimated with its source, engine or GPU generation",
             "held out, and of the figures held out of every fit (calculators.speed_accuracy.bands); :data:`ENGINES`",
             "and :data:`GENERATIONS` list, per category,",
             "those with scored figures. Read by calculators.performance.error_bands.",
             '"""', "", "from __future__ import annotations", "",
             "BANDS: dict[str, tuple[int, float, float]] = {"]
    lines += [f"    {key!r}: {value!r}," for key, value in band_table().items()]
    lines += ["}", "", "ENGINES: dict[str, tuple[str, ...]] = {"]
    lines += [f"    {category!r}: {names!r}," for category, names in engines.items()]
    lines += ["}", "", "GENERATIONS: dict[str, tuple[str, ...]] = {"]
    lines += [f"    {category!r}: {names!r}," for category, names in generations.items()]
    lines += ["}"]
    return "\n".join(lines) + "\n"


__all__ = ["ANSWER_CATEGORIES", "band_table", "bands_module_text", "coverage"]
