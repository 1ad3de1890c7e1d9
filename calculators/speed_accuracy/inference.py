"""Leave-one-source-out scores of the inference speed model against published figures.

For each figure, every fitted constant is refitted without the figure's source: the
pooled fit (all engines) and then the figure's engine's fit
(:mod:`calculators.speed_accuracy.fit`), and the figure is estimated through the public
API (:mod:`calculators.speed_accuracy.predict`) with those constants. The naive
roofline is the same API with the ``generic`` engine (0.8 of bandwidth, 0.6 of the dense
rate, no fixed costs): the model before engines were inputs.

>>> rows = scored_figures()
>>> sorted(rows[0])
['category', 'engine', 'error', 'estimated', 'figure_id', 'measured', 'naive_error', 'naive_roofline', 'source_id', 'unit']
"""

from __future__ import annotations

import functools
from typing import Any

from calculators.catalog.engines import get_engine
from calculators.speed_accuracy.data import load_figures, scored
from calculators.speed_accuracy.fit import Fit, fit_engine, fit_pooled
from calculators.speed_accuracy.fit_store import stored
from calculators.speed_accuracy.predict import Prepared, catalog_engine, estimate_and_error, prepare

NAIVE_ENGINE = "generic"


def loso_fits(cases: list[Prepared]) -> dict[str, tuple[Fit, Fit]]:
    """Source id -> (pooled fit, engine fit) made without that source, for each source's engine.

    Assumes one engine per source (the dataset's README says so; tests check it). The fits
    of the same cases are made once per process: the inference scores and the serving
    scores (:mod:`calculators.speed_accuracy.serving`) both need them; treat them as read-only.
    """
    groups = tuple(c.source_id for c in cases)
    return {source: fits for (source, _engine), fits in held_out_fits(cases, groups).items()}


def held_out_fits(cases: list[Prepared], groups: tuple[str, ...]) -> dict[tuple[str, str], tuple[Fit, Fit]]:
    """``(group, engine)`` -> (pooled fit, engine fit) made without every case of that group.

    ``groups[i]`` is the group of ``cases[i]`` (a source, an engine, a hardware generation:
    :mod:`calculators.speed_accuracy.generalisation`); one pair per engine the group holds. An
    engine with no case left outside the group takes the pooled values (:func:`fit_engine` of no
    case). Made once per process for the same cases and groups; treat them as read-only.
    """
    return dict(_held_out_fits(tuple(cases), tuple(groups)))


@functools.lru_cache(maxsize=8)
def _held_out_fits(cases: tuple[Prepared, ...], groups: tuple[str, ...]) -> dict[tuple[str, str], tuple[Fit, Fit]]:
    # An earlier process of the same run may have made them (fit_store: only when MLHW_FIT_STORE names a folder).
    return stored("held-out-fits", (cases, groups), lambda: _make_held_out_fits(cases, groups))


def _make_held_out_fits(cases: tuple[Prepared, ...],
                        groups: tuple[str, ...]) -> dict[tuple[str, str], tuple[Fit, Fit]]:
    fits: dict[tuple[str, str], tuple[Fit, Fit]] = {}
    for group in sorted(set(groups)):
        rest = [c for c, g in zip(cases, groups, strict=True) if g != group]
        pooled = fit_pooled(rest)
        for engine in sorted({c.engine for c, g in zip(cases, groups, strict=True) if g == group}):
            fits[(group, engine)] = (pooled, fit_engine(rest, engine, pooled))
    return fits


@functools.lru_cache(maxsize=1)
def _scored_rows() -> tuple[tuple[tuple[str, Any], ...], ...]:
    figures = scored(load_figures())
    # The rows follow from the figures and the package's code (read back by a later process of the run).
    return stored("cross-validated-rows", figures, lambda: _score(figures))


def _score(figures: list[dict[str, Any]]) -> tuple[tuple[tuple[str, Any], ...], ...]:
    cases = [prepare(f) for f in figures]
    fits = loso_fits(cases)
    rows = []
    for figure in figures:
        _pooled, engine_fit = fits[str(figure["source_id"])]
        engine = engine_fit.engine(get_engine(catalog_engine(figure)), suffix=" (cross-validated)")
        estimated, model_error = estimate_and_error(figure, engine)
        naive, naive_error = estimate_and_error(figure, NAIVE_ENGINE)
        rows.append((
            ("category", figure["category"]), ("figure_id", figure["id"]), ("source_id", figure["source_id"]),
            ("engine", figure["engine"]), ("unit", figure["unit"]), ("measured", float(figure["measured"])),
            ("estimated", estimated), ("naive_roofline", naive), ("error", model_error), ("naive_error", naive_error),
        ))
    return tuple(tuple(row) for row in rows)


def scored_figures() -> list[dict[str, Any]]:
    """Every scored figure with its cross-validated estimate and the naive roofline's.

    Keys: ``category``, ``figure_id``, ``source_id``, ``engine``, ``unit``, ``measured``,
    ``estimated`` (leave-one-source-out), ``naive_roofline`` (generic engine), ``error``
    and ``naive_error`` (speed axis: positive over-promises). Values are in the figure's unit.
    """
    return [dict(row) for row in _scored_rows()]
