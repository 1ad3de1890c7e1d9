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
