"""Percentiles of the time to first token and the inter-token latency of a continuously batched server.

:func:`calculators.performance.serving_load.serving_load` finds the steady state's means. The
tails come from the same two random things the means average over:

* **prompts per step** ``K``: the requests arriving while a step runs are prefilled together in the
  next one (vLLM and SGLang schedule waiting prompts first); arrivals that are independent of one
  another (Poisson, and near enough for a closed loop of many users) put ``K ~ Poisson(m)`` prompts in
  a step, ``m`` the mean. A decoding request's next token waits for the whole step, prefills and all:
  the **inter-token latency** of a step with ``k`` prompts is ``T(b, k)``, and its quantile is that of
  ``K`` (the stalls Sarathi-Serve's chunked prefill exists to bound);
* **the wait for the step in progress** ``R``: an arrival finds the GPU busy with probability
  ``busy`` and then waits a uniform share of a mean step; its prefill then runs beside the ``k``
  other prompts of its step: ``TTFT = overhead + R + P(k)``, ``P(k)`` the pass carrying ``1 + k``
  prefills.

Formula: ``P(TTFT <= t) = sum_k Poisson(k; m) x [(1 - busy) 1{t >= a_k} + busy x clip((t - a_k) /
step, 0, 1)]`` with ``a_k = overhead + P(k)``, solved for ``t`` by bisection; the inter-token latency
quantile is ``T(b, k_q)`` with ``k_q`` the Poisson quantile. Requests beyond what fits wait in a queue
not modelled here (the serving answer says so), so these are the tails of a server below saturation.

>>> poisson_quantile(0.5, 0.5), poisson_quantile(0.5, 0.99), poisson_quantile(3.0, 0.9)
(0, 3, 5)
>>> round(ttft_quantile(0.5, overhead_s=0.0, step_s=1.0, busy=1.0, mean_prompts=0.0, pass_with=lambda k: 1.0), 6)
1.5

References:
    Agrawal et al. 2024, "Taming throughput-latency tradeoff in LLM inference with Sarathi-Serve"
    (OSDI; generation stalls from prefills in the decode batch); Kleinrock 1975, "Queueing Systems",
    vol. 1 (Poisson arrivals, residual service time).
"""

from __future__ import annotations

import math
from collections.abc import Callable

#: Halvings of the quantile bisection.
_HALVINGS = 60
#: Probability mass left out of the Poisson sums.
_TAIL = 1e-12


def _poisson(mean: float) -> list[float]:
    """Probabilities of 0, 1, ... prompts until all but :data:`_TAIL` of the mass is listed."""
    p = math.exp(-mean)
    probabilities, total, k = [p], p, 0
    while 1.0 - total > _TAIL and k < 10_000:
        k += 1
        p *= mean / k
        probabilities.append(p)
        total += p
    return probabilities


def poisson_quantile(mean: float, q: float) -> int:
    """The smallest ``k`` with ``P(K <= k) >= q`` for ``K ~ Poisson(mean)``."""
    total = 0.0
    for k, p in enumerate(_poisson(mean)):
        total += p
        if total >= q:
            return k
    return len(_poisson(mean)) - 1


def ttft_quantile(q: float, *, overhead_s: float, step_s: float, busy: float, mean_prompts: float,
                  pass_with: Callable[[int], float]) -> float:
    """The ``q`` quantile of the time to first token, seconds (module docstring).

    ``pass_with(k)``: the pass carrying this request's prefill and ``k`` others, seconds.
    """
    weights = _poisson(mean_prompts)
    starts = [overhead_s + pass_with(k) for k in range(len(weights))]
    wait = max(step_s, 1e-15)

    def cdf(t: float) -> float:
        total = 0.0
        for weight, start in zip(weights, starts, strict=True):
            if t >= start:
                total += weight * ((1.0 - busy) + busy * min(1.0, (t - start) / wait))
        return total

    low, high = min(starts), max(starts) + wait
    for _ in range(_HALVINGS):
        middle = (low + high) / 2
        if cdf(middle) >= q:
            high = middle
        else:
            low = middle
    return high


def itl_quantile(q: float, *, mean_prompts: float, step_with: Callable[[int], float]) -> float:
    """The ``q`` quantile of the inter-token latency, seconds: the step carrying the ``q`` quantile of prompts."""
    return step_with(poisson_quantile(mean_prompts, q))


__all__ = ["itl_quantile", "poisson_quantile", "ttft_quantile"]
