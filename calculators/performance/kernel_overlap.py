"""How well a GEMM kernel overlaps its loads with its math: the exponent ``p`` fitted to kernel timings (seconds).

``t = t0 + ((memory_s / e_m) ** p + (compute_s / e_c) ** p) ** (1 / p)``

``memory_s`` is the kernel's bytes (both inputs once, the output once) over the datasheet bandwidth and
``compute_s`` its FLOPs over the dense datasheet rate. ``p = inf`` is the roofline's ``max`` (perfect
overlap); ``p = 1`` is no overlap at all. ``t0`` is a fixed cost per kernel (launch, prologue, tail
wave); ``e_m`` and ``e_c`` are the fractions of the peaks the kernel reaches, held below 1 because a
kernel cannot beat the datasheet (left free, ``e_m`` and ``p`` trade off and ``e_m`` drifts above 1).
Fitting is least squares on ``log t`` (every kernel counts by its relative error), with a Nelder-Mead
search for ``e_m``, ``e_c``, ``t0`` inside a grid-then-golden search over ``q = 1 / p`` in ``[0, 1]``.

On OpenXLA's measured GEMM table (H100 SXM and B200) kernels near the ridge fit p of about 4 (3 to 6);
p = 2 fits them worse. Source, fit and caveats: ``tests/data/gemm_kernels/README.md``.

>>> truth = OverlapFit(exponent=4.0, memory_efficiency=0.7, compute_efficiency=0.75, fixed_s=6e-6,
...                    rms_log_error=0.0)
>>> shapes = [(m * 1e-6, c * 1e-6) for m in (5, 20, 40, 80) for c in (5, 20, 40, 80)]
>>> timings = [KernelTiming(truth.time_s(m, c), memory_s=m, compute_s=c) for m, c in shapes]
>>> fit = overlap_exponent_fit(timings)
>>> round(fit.exponent, 1), round(fit.memory_efficiency, 2), round(fit.fixed_s * 1e6, 1)
(4.0, 0.7, 6.0)
>>> round(overlap_exponent_fit(timings, exponent=math.inf).exponent, 1)
inf
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


@dataclass(frozen=True)
class KernelTiming:
    """One measured kernel: its time and its two roofline legs at 100 % of the peaks (seconds)."""

    measured_s: float
    memory_s: float
    compute_s: float


#: Bytes of one output element: every kernel of the table writes BF16 (its keys end in ``->bf16``).
OUTPUT_BYTES = 2


def gemm_timing(*, b: int, m: int, n: int, k: int, flop_per_s: float, input_bytes: float,
                peak_flop_per_s: float, bandwidth_bytes_per_s: float) -> KernelTiming:
    """A batched GEMM ``[b, m, k] x [b, k, n]`` timed at ``flop_per_s``, with its roofline legs.

    Bytes are ``b * ((m*k + k*n) * input_bytes + m*n * OUTPUT_BYTES)``: each operand read once, the
    output written once (BF16), the least traffic the product needs.

    >>> g = gemm_timing(b=1, m=4096, n=4096, k=4096, flop_per_s=780e12, input_bytes=2,
    ...                 peak_flop_per_s=989.4e12, bandwidth_bytes_per_s=3.35e12)
    >>> round(g.measured_s * 1e6, 1), round(g.compute_s * 1e6, 1), round(g.memory_s * 1e6, 1)
    (176.2, 138.9, 30.0)
    """
    flop = 2.0 * b * m * n * k
    traffic_bytes = b * ((m * k + k * n) * input_bytes + m * n * OUTPUT_BYTES)
    return KernelTiming(flop / flop_per_s, memory_s=traffic_bytes / bandwidth_bytes_per_s,
                        compute_s=flop / peak_flop_per_s)


@dataclass(frozen=True)
class OverlapFit:
    """The fitted constants: ``exponent`` is ``p`` (``math.inf``: the roofline ``max``), ``fixed_s`` is ``t0``."""

    exponent: float
    memory_efficiency: float
    compute_efficiency: float
    fixed_s: float
    rms_log_error: float

    def time_s(self, memory_s: float, compute_s: float) -> float:
        """The model's kernel time (seconds) from the two legs at 100 % of the peaks."""
        return self.fixed_s + overlap_time_s(memory_s / self.memory_efficiency,
                                             compute_s / self.compute_efficiency, exponent=self.exponent)


def overlap_time_s(memory_s: float, compute_s: float, *, exponent: float) -> float:
    """``(memory_s ** p + compute_s ** p) ** (1 / p)`` in seconds; ``p = inf`` is ``max``.

    >>> round(overlap_time_s(3.0, 4.0, exponent=2.0), 9), overlap_time_s(3.0, 4.0, exponent=math.inf)
    (5.0, 4.0)
    """
    q = 0.0 if math.isinf(exponent) else 1 / exponent
    return math.exp(_log_overlap(math.log(memory_s), math.log(compute_s), q))


def _log_overlap(log_a: float, log_b: float, q: float) -> float:
    # log-sum-exp form: the p-th powers of microsecond times underflow long before p = 50.
    top = max(log_a, log_b)
    if q <= 0.0:
        return top
    return top + q * math.log(math.exp((log_a - top) / q) + math.exp((log_b - top) / q))


def _efficiency(y: float) -> float:
    # A logistic keeps the efficiency in (0, 1) with no flat region for the search to stall in.
    return 1.0 / (1.0 + math.exp(-y))


def _loss(x: Sequence[float], q: float, logs: Sequence[tuple[float, float, float]]) -> float:
    log_em, log_ec, t0 = math.log(_efficiency(x[0])), math.log(_efficiency(x[1])), math.exp(x[2])
    total = 0.0
    for log_t, log_m, log_c in logs:
        total += (math.log(t0 + math.exp(_log_overlap(log_m - log_em, log_c - log_ec, q))) - log_t) ** 2
    return total / len(logs)


def _fit_at(q: float, logs: Sequence[tuple[float, float, float]], start: list[float]) -> tuple[float, list[float]]:
    """Nelder-Mead over (logit e_m, logit e_c, log t0) at a fixed ``q``: the three trade off along ridges."""
    simplex = [list(start)] + [[v + (0.3 if i == j else 0.0) for j, v in enumerate(start)] for i in range(3)]
    values = [_loss(x, q, logs) for x in simplex]
    for _ in range(3000):
        order = sorted(range(4), key=values.__getitem__)
        simplex, values = [simplex[i] for i in order], [values[i] for i in order]
        if values[-1] - values[0] < 1e-13 and max(abs(a - b) for a, b in zip(simplex[0], simplex[-1])) < 1e-6:
            break
        centre = [sum(x[j] for x in simplex[:3]) / 3.0 for j in range(3)]
        def toward(f: float) -> list[float]:
            return [c + f * (w - c) for c, w in zip(centre, simplex[-1])]
        reflected = toward(-1.0)
        r = _loss(reflected, q, logs)
        if r < values[0]:
            expanded = toward(-2.0)
            e = _loss(expanded, q, logs)
            simplex[-1], values[-1] = (expanded, e) if e < r else (reflected, r)
        elif r < values[2]:
            simplex[-1], values[-1] = reflected, r
        else:
            contracted = toward(0.5)
            c = _loss(contracted, q, logs)
            if c < values[-1]:
                simplex[-1], values[-1] = contracted, c
            else:
                simplex = [simplex[0]] + [[(a + b) / 2.0 for a, b in zip(simplex[0], x)] for x in simplex[1:]]
                values = [values[0]] + [_loss(x, q, logs) for x in simplex[1:]]
    i = min(range(4), key=values.__getitem__)
    return values[i], simplex[i]


def overlap_exponent_fit(timings: Sequence[KernelTiming], *, exponent: float | None = None) -> OverlapFit:
    """Fit ``p``, ``e_m``, ``e_c`` and ``t0`` (seconds) to measured kernels on log error.

    Args:
        timings: measured kernels with their roofline legs (:func:`gemm_timing`).
        exponent: hold ``p`` at this value (``math.inf`` for ``max``); ``None`` fits it too.

    Returns:
        The fitted constants and the root-mean-square error of ``log t``.
    """
    logs = [(math.log(t.measured_s), math.log(t.memory_s), math.log(t.compute_s)) for t in timings]
    start = [1.4, 1.4, math.log(min(t.measured_s for t in timings) / 2.0)]  # e = 0.8
    if exponent is not None:
        q = 0.0 if math.isinf(exponent) else 1.0 / exponent
        best, x = _fit_at(q, logs, start)
    else:
        grid = [i / 20 for i in range(21)]
        results = []
        for q in grid:
            results.append(_fit_at(q, logs, start))
            start = results[-1][1]
        i = min(range(len(grid)), key=lambda j: results[j][0])
        lo, hi = max(grid[i] - 0.05, 0.0), min(grid[i] + 0.05, 1.0)
        x = results[i][1]
        while hi - lo > 1e-3:
            q1, q2 = hi - _GOLDEN * (hi - lo), lo + _GOLDEN * (hi - lo)
            if _fit_at(q1, logs, x)[0] < _fit_at(q2, logs, x)[0]:
                hi = q2
            else:
                lo = q1
        refined = _fit_at((lo + hi) / 2.0, logs, x)
        q, (best, x) = ((lo + hi) / 2.0, refined) if refined[0] < results[i][0] else (grid[i], results[i])
    return OverlapFit(exponent=math.inf if q <= 0.0 else 1.0 / q, memory_efficiency=_efficiency(x[0]),
                      compute_efficiency=_efficiency(x[1]), fixed_s=math.exp(x[2]),
                      rms_log_error=math.sqrt(best))


def relative_errors(fit: OverlapFit, timings: Sequence[KernelTiming]) -> list[float]:
    """``|model / measured - 1|`` for each kernel (a fraction)."""
    return [abs(fit.time_s(t.memory_s, t.compute_s) / t.measured_s - 1.0) for t in timings]
