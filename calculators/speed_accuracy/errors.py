"""Errors of the speed model against published figures: on the speed axis, summarised by nearest rank.

One definition for every category and page: :func:`speed_error` is ``estimated / measured - 1`` for a
rate and ``measured / estimated - 1`` for a time (GPU-hours, seconds per step), so a positive error
over-promises either way and a figure estimated twice too fast weighs as one estimated twice too slow
would on a rate; :func:`percentile` is the nearest-rank quantile the median and the 90th percentile use.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

#: Units of the published figures that are times (a larger number is slower).
TIME_UNITS = frozenset({"gpu_hours", "seconds_per_step"})


def speed_error(*, measured: float, estimated: float, unit: str) -> float:
    """Signed error on the speed axis: ``estimated / measured - 1`` for a rate,
    ``measured / estimated - 1`` for a time, so a positive error over-promises either way.

    >>> speed_error(measured=100.0, estimated=120.0, unit="tokens_per_s_per_gpu")
    0.19999999999999996
    >>> round(speed_error(measured=10.0, estimated=8.0, unit="gpu_hours"), 2)
    0.25
    """
    return measured / estimated - 1 if unit in TIME_UNITS else estimated / measured - 1



def percentile(values: Iterable[float], fraction: float) -> float:
    """The ``fraction`` quantile by the nearest-rank method (0 for no values).

    >>> percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)
    9
    """
    ordered = sorted(values)
    if not ordered:
        return 0.0
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def error_summary(errors: Iterable[float]) -> dict[str, float]:
    """``n``, ``median``, ``p90`` and ``worst`` of the absolute ``errors`` (nearest rank, rounded to 4 decimals):
    the one summary every accuracy table and ratchet reads.

    >>> error_summary([0.1, -0.3, 0.05])
    {'n': 3, 'median': 0.1, 'p90': 0.3, 'worst': 0.3}
    """
    values = [abs(float(error)) for error in errors]
    return {"n": len(values), "median": round(percentile(values, 0.5), 4), "p90": round(percentile(values, 0.9), 4),
            "worst": round(max(values, default=0.0), 4)}
