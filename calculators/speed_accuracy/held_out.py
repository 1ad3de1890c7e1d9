"""Published figures held out of every fit: the speed model meeting figures nothing was fitted or designed on.

Cross-validation (:mod:`calculators.speed_accuracy.generalisation`) leaves each figure's source, engine or
hardware generation out of the fitted constants, but the model's *terms* were chosen while looking at every
figure it holds. ``tests/data/published_speed/held_out/`` keeps figures that were collected after the model was
built and scored once on first contact, before anyone looked at their errors; they are never fitted (the
loaders of the fitted data, :func:`~calculators.speed_accuracy.data.load_figures` and
:func:`~calculators.speed_accuracy.training.load`, read the directory above it only), so each later change of the
model is judged on them as on figures nobody holds. Same record format as the fitted files (README.md,
TRAINING.md there); a record with an ``excluded`` reason is kept and not scored, as everywhere.

Each figure is scored with what the calculators answer: the catalog's engine at the figure's version
(:func:`~calculators.speed_accuracy.predict.catalog_engine`, its constants fitted on every fitted figure),
the catalog's training utilisation fit (:func:`~calculators.speed_accuracy.training.full_fit`) and the link
model's derived efficiencies (none fitted). Errors are on the speed axis (positive over-promises).

>>> rows = held_out_rows()
>>> len(rows) >= 25 and {row["category"] for row in rows} >= {"decode_batch1", "pre-training", "collectives"}
True
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from calculators.speed_accuracy import training
from calculators.speed_accuracy.data import DEFAULT_DIRECTORY, load_figures, scored
from calculators.speed_accuracy.errors import error_summary, speed_error

#: Where the held-out figures live (one file per category, as the fitted ones).
HELD_OUT_DIRECTORY = DEFAULT_DIRECTORY / "held_out"
#: The summary's group of every figure.
OVERALL = "all figures"


def held_out_records(directory: Path = HELD_OUT_DIRECTORY) -> list[dict[str, Any]]:
    """Every held-out record (inference, training and collectives), scored or not, sorted by id."""
    inference = load_figures(directory)
    others = [record for name in training.FILES for record in training.load(name, directory=directory)]
    return sorted([*inference, *others], key=lambda record: str(record["id"]))


@functools.cache
def held_out_rows() -> tuple[dict[str, Any], ...]:
    """Each scored held-out record with ``estimated`` (the record's unit) and its signed ``error``."""
    return tuple(score_records(held_out_records()))


def score_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Score ``records`` (any mix of inference, training and collective records) with the catalog's fits; those
    with an ``excluded`` reason or that the catalog cannot answer yet are left out."""
    from calculators.parallel.collective_records import record_bus_bandwidth_bytes_per_s
    from calculators.speed_accuracy.predict import catalog_engine, estimate_and_error

    inference = scored([r for r in records if "metric" in r])
    rows = [{**record, "estimated": estimated, "error": error} for record in inference
            for estimated, error in (estimate_and_error(record, catalog_engine(record)),)]
    trained = [r for r in records if "metric" not in r and r.get("category") != "collectives"]
    kept = {str(r["id"]) for r in training.usable(trained)}
    fit = training.full_fit()
    for record in (r for r in trained if str(r["id"]) in kept):
        estimated = training.estimate_training(record, fit)
        rows.append({**record, "estimated": estimated, "error": speed_error(
            measured=float(record["measured"]), estimated=estimated, unit=str(record["unit"]))})
    for record in (r for r in records if r.get("category") == "collectives" and not r.get("excluded")):
        estimated = record_bus_bandwidth_bytes_per_s(record)
        rows.append({**record, "estimated": estimated, "error": speed_error(
            measured=float(record["measured"]), estimated=estimated, unit=str(record["unit"]))})
    return sorted(rows, key=lambda row: str(row["id"]))


def summary(rows: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Count, median, 90th percentile and worst |error| of ``rows``, all together (:data:`OVERALL`) and per
    category, in the order the categories first appear after the overall line."""
    groups: dict[str, list[float]] = {OVERALL: [abs(float(row["error"])) for row in rows]}
    for row in sorted(rows, key=lambda row: str(row["category"])):
        groups.setdefault(str(row["category"]), []).append(abs(float(row["error"])))
    return [{"category": name, **error_summary(errors)} for name, errors in groups.items()]
