"""How accurate the speed model is: published figures, cross-validated estimates, error summaries.

Each half of the speed model has a module with one function, ``scored_figures() ->
list[dict]`` (keys ``category``, ``figure_id``, ``source_id``, ``measured``, ``estimated``,
``naive_roofline``): :mod:`~calculators.speed_accuracy.inference` for inference
(decode, serving, first token, prefill) and :mod:`~calculators.speed_accuracy.training`
for training (pre-training, fine-tuning) and collectives. :func:`all_scored` gathers them and
:func:`summary` reduces them per category: count, median, 90th percentile and worst
absolute error, for the model and for the naive roofline. Errors are on the speed axis
(``estimated speed / measured speed - 1``; for a time, ``measured / estimated - 1``), so
a positive error over-promises.

>>> rows = summary([{"category": "x", "error": e, "naive_error": 2 * e} for e in (0.1, -0.2, 0.3)])
>>> rows[0]["n"], rows[0]["median"], rows[0]["worst"], rows[0]["naive_median"]
(3, 0.2, 0.3, 0.4)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from calculators.speed_accuracy import inference, training
from calculators.speed_accuracy.errors import TIME_UNITS as TIME_UNITS
from calculators.speed_accuracy.errors import error_summary
from calculators.speed_accuracy.errors import percentile as percentile
from calculators.speed_accuracy.errors import speed_error as speed_error

#: Targets of issue 14 for every category with at least :data:`MIN_RECORDS` figures.
TARGET_MEDIAN = 0.15
TARGET_P90 = 0.35
MIN_RECORDS = 10


def _training_rows() -> list[dict[str, Any]]:
    """The training half's rows, with the keys the summaries and tables read (engine = framework or link)."""
    records = {str(r["id"]): r for name in ("training", "collectives") for r in training.load(name)}
    rows = []
    for row in training.scored_figures():
        record = records[str(row["figure_id"])]
        unit = str(row["unit"])
        engine = str(record.get("link_kind") if row["category"] == "collectives" else record.get("framework") or "-")
        rows.append({**row, "engine": engine,
                     "error": speed_error(measured=row["measured"], estimated=row["estimated"], unit=unit),
                     "naive_error": speed_error(measured=row["measured"], estimated=row["naive_roofline"], unit=unit)})
    return rows


def all_scored() -> list[dict[str, Any]]:
    """Every scored figure of both halves of the speed model: inference, then training and collectives."""
    return [*inference.scored_figures(), *_training_rows()]


def multi_source(rows: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rows whose engine has figures from at least two sources in the row's category.

    Only for those does leaving a source out still leave the engine's own figures to fit
    on; the others are estimated from the other engines' constants (the pooled fit).

    >>> rows = [{"category": "c", "engine": "a", "source_id": s} for s in ("x", "y")]
    >>> len(multi_source(rows + [{"category": "c", "engine": "b", "source_id": "x"}]))
    2
    """
    rows = list(rows)
    sources: dict[tuple[str, str], set[str]] = {}
    for row in rows:
        sources.setdefault((str(row["category"]), str(row["engine"])), set()).add(str(row["source_id"]))
    return [row for row in rows if len(sources[(str(row["category"]), str(row["engine"]))]) >= 2]


def _error(row: Mapping[str, Any], key: str) -> float:
    if key in row:
        return float(row[key])
    estimated, measured = float(row["estimated" if key == "error" else "naive_roofline"]), float(row["measured"])
    return estimated / measured - 1.0


def summary(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per category: ``n``, ``median``, ``p90`` and ``worst`` absolute error, and ``naive_*`` the same.

    Rows carry ``error`` and ``naive_error`` (or ``estimated``, ``naive_roofline`` and
    ``measured`` of a rate). Categories in order of first appearance.
    """
    by_category: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        by_category.setdefault(str(row["category"]), []).append(row)
    result = []
    for category, items in by_category.items():
        naive = error_summary(_error(r, "naive_error") for r in items)
        result.append({"category": category, **error_summary(_error(r, "error") for r in items),
                       **{f"naive_{name}": naive[name] for name in ("median", "p90", "worst")}})
    return result
