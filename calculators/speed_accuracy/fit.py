"""Fit an engine's efficiencies and fixed costs to published figures (least squares on log error).

Constants: ``bandwidth_efficiency``, ``compute:<key>`` for each compute format,
``moe_expert_efficiency``, ``step_overhead_s_per_layer`` and ``request_overhead_s``
(:mod:`calculators.catalog.engines`). A constant is fitted only where figures inform it:

* bandwidth and the fixed cost per step: decode and batched figures;
* compute efficiency for a format: prefill, first-token and batched figures in that format;
* fixed cost per request: first-token figures measured through the engine's server
  (:func:`calculators.speed_accuracy.predict.served`; an in-process benchmark has no request cost);
* fixed cost per sequence per step: batched figures (batches of several sequences tell it from the
  cost per layer);
* routed-expert efficiency: figures of mixture-of-experts models;
* repeated KV-head read cost: figures of engines without a grouped-query decode kernel on
  grouped-query models (their decode steps repeat KV reads).

The objective (:mod:`calculators.speed_accuracy.objective`) is a robust (soft-L1) sum over
figures of ``r = log(measured / model)``, ``sum 2 d^2 (sqrt(1 + (r / d)^2) - 1)`` with ``d =``
:data:`ROBUST_SCALE` (quadratic for small errors, linear for large ones, so one odd figure does
not drag the rest), plus for an engine a weak pull (weight :data:`PRIOR_WEIGHT` per constant) of
each efficiency towards the pooled fit of every engine's figures, so that an engine with one or
two figures does not fit noise. Coordinate descent with a golden-section search per constant in
log space, within :data:`BOUNDS`. Constants no figure informs take the pooled value (an eager engine's fixed
cost per layer: :data:`~calculators.catalog.engines.EAGER_HOST_S_PER_LAYER`, a host-per-sequence engine's cost
per sequence: :data:`~calculators.catalog.engines.HOST_S_PER_SEQUENCE`, :func:`fit_engine`); the pooled fixed
cost per layer is that of engines replaying CUDA graphs (:func:`fit_pooled`).

>>> from calculators.speed_accuracy.data import load_figures, scored
>>> from calculators.speed_accuracy.predict import prepare
>>> cases = [prepare(f) for f in scored(load_figures()) if f["engine"] == "tensorrt-llm"]
>>> fit = fit_constants(cases)
>>> 0.3 < fit.values["bandwidth_efficiency"] <= 1.0 and "request_overhead_s" in fit.values
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from calculators.catalog.engines import (
    COMPUTE_KEYS,
    EAGER_HOST_S_PER_LAYER,
    GENERIC,
    HOST_S_PER_SEQUENCE,
    Engine,
    Fitted,
    get_engine,
)
from calculators.errors import UnknownNameError
from calculators.speed_accuracy.objective import PRIOR_WEIGHT as PRIOR_WEIGHT
from calculators.speed_accuracy.objective import ROBUST_SCALE as ROBUST_SCALE
from calculators.speed_accuracy.objective import loss_along
from calculators.speed_accuracy.predict import Prepared

NAMES = ("bandwidth_efficiency", *(f"compute:{key}" for key in COMPUTE_KEYS), "moe_expert_efficiency",
         "step_overhead_s_per_layer", "request_overhead_s", "kv_reread_cost", "sequence_overhead_s")
#: Search range of each constant (efficiencies are fractions of peak; overheads seconds).
BOUNDS: dict[str, tuple[float, float]] = {
    "bandwidth_efficiency": (0.05, 1.0), "moe_expert_efficiency": (0.1, 1.0),
    "step_overhead_s_per_layer": (1e-7, 5e-3), "request_overhead_s": (1e-5, 2.0), "kv_reread_cost": (0.01, 3.0),
    "sequence_overhead_s": (1e-8, 1e-3),
    **{f"compute:{key}": (0.02, 1.0) for key in COMPUTE_KEYS},
}
EFFICIENCIES = tuple(name for name in NAMES if "overhead" not in name)
SWEEPS = 5
_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def _start() -> dict[str, float]:
    values = {"bandwidth_efficiency": GENERIC.value("bandwidth_efficiency"), "moe_expert_efficiency": 1.0,
              "step_overhead_s_per_layer": 1e-5, "request_overhead_s": 1e-3, "kv_reread_cost": 1.0,
              "sequence_overhead_s": 1e-6}
    values.update({f"compute:{key}": GENERIC.compute_efficiency_for(key) for key in COMPUTE_KEYS})
    return values


def informs(case: Prepared, name: str) -> bool:
    """True when the figure's model time depends on constant ``name`` in a way worth fitting."""
    if name == "bandwidth_efficiency":
        return case.category in ("decode_batch1", "batched_throughput")
    if name == "step_overhead_s_per_layer":  # not where a measured fixed cost stands in for it (layers: 0)
        return case.category in ("decode_batch1", "batched_throughput") and any(w.layers for _, w in case.terms)
    if name == "sequence_overhead_s":  # told apart from the per-layer cost only by batches of several sequences
        return case.category == "batched_throughput" and depends(case, name)
    if name == "request_overhead_s":  # only a request through the engine's server has one (predict.served)
        return case.category == "time_to_first_token" and case.requests != 0
    if name == "moe_expert_efficiency":
        return case.moe
    if name == "kv_reread_cost":
        return case.rereads
    key = name.split(":", 1)[1]
    return case.compute == key and case.category in ("prefill_throughput", "time_to_first_token",
                                                     "batched_throughput")


def depends(case: Prepared, name: str) -> bool:
    """True unless constant ``name`` cannot change the figure's model time (a per-request cost of a figure
    with no request, an expert efficiency of a dense model, another format's compute efficiency)."""
    if name == "request_overhead_s":
        return case.requests != 0
    if name == "moe_expert_efficiency":
        return case.moe
    if name == "kv_reread_cost":
        return case.rereads
    if name == "sequence_overhead_s":  # only an engine whose host works per sequence has any
        return any(work.sequences for _, work in case.terms)
    if name.startswith("compute:"):
        return case.compute == name.split(":", 1)[1]
    return True


def _golden(cases: Sequence[Prepared], values: dict[str, float], name: str, prior: Mapping[str, float]) -> None:
    low, high = (math.log(v) for v in BOUNDS[name])
    # The other figures add the same amount to every loss compared: leaving them out moves no minimum.
    cases = [case for case in cases if depends(case, name)]
    loss = loss_along(cases, values, name, prior)

    def loss_at(x: float) -> float:
        return loss(math.exp(x))

    a, b = low, high
    c, d = b - _GOLDEN * (b - a), a + _GOLDEN * (b - a)
    fc, fd = loss_at(c), loss_at(d)
    for _ in range(28):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - _GOLDEN * (b - a)
            fc = loss_at(c)
        else:
            a, c, fc = c, d, fd
            d = a + _GOLDEN * (b - a)
            fd = loss_at(d)
    values[name] = math.exp((a + b) / 2.0)


@dataclass(frozen=True)
class Fit:
    """Fitted constants and, for each, the figures that informed it.

    Attributes:
        values: every constant of :data:`NAMES` (fitted, or taken from the fallback).
        fitted_on: constant -> ids of the figures it was fitted on (absent: not fitted).
    """

    values: dict[str, float]
    fitted_on: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def engine(self, base: Engine, *, suffix: str = "") -> Engine:
        """An :class:`Engine` like ``base`` whose constants are these values (for the public API)."""
        def fitted(name: str) -> Fitted:
            return Fitted(self.values[name], self.fitted_on.get(name, ()), "refit")

        # replace() keeps what is not fitted: the name, the sources and the kernels' facts (grouped_query_decode).
        return replace(base, id=base.id + suffix, family=base.family_id,
                       bandwidth_efficiency=fitted("bandwidth_efficiency"),
                       compute_efficiency=tuple((key, fitted(f"compute:{key}")) for key in COMPUTE_KEYS),
                       moe_expert_efficiency=fitted("moe_expert_efficiency"),
                       step_overhead_s_per_layer=fitted("step_overhead_s_per_layer"),
                       request_overhead_s=fitted("request_overhead_s"), kv_reread_cost=fitted("kv_reread_cost"),
                       sequence_overhead_s=fitted("sequence_overhead_s"))


def fit_constants(cases: Iterable[Prepared], *, fallback: Mapping[str, float] | None = None) -> Fit:
    """Fit the constants the ``cases`` inform; the others keep ``fallback`` (default: generic start values).

    With a ``fallback`` (the pooled fit), each fitted efficiency is also pulled weakly
    towards it (:data:`PRIOR_WEIGHT`).
    """
    cases = list(cases)
    values = dict(fallback) if fallback is not None else _start()
    fitted_on = {name: tuple(sorted(c.figure_id for c in cases if informs(c, name))) for name in NAMES}
    free = [name for name in NAMES if fitted_on[name]]
    prior = {name: fallback[name] for name in free if fallback is not None and name in EFFICIENCIES}
    for _ in range(SWEEPS):
        for name in free:
            _golden(cases, values, name, prior)
    return Fit(values={k: round(v, 3) if "overhead" not in k else float(f"{v:.3g}") for k, v in values.items()},
               fitted_on={name: ids for name, ids in fitted_on.items() if ids})


#: The fixed cost per layer: pooled over the engines that replay CUDA graphs only (:func:`fit_pooled`).
STEP = "step_overhead_s_per_layer"


def fit_pooled(cases: Iterable[Prepared]) -> Fit:
    """One set of constants for every engine's figures together; the fixed cost per layer of graph-replaying engines.

    Every constant is fitted on every figure, then the fixed cost per layer is refitted on the figures of engines
    that replay a captured CUDA graph per decode step (:attr:`~calculators.catalog.engines.Engine.graph_replay`):
    there it is the GPU's cost of a layer's kernels, the floor any engine pays, where an engine that launches from
    its host (eager PyTorch, or TensorRT-LLM's benchmark without CUDA graphs) adds its own host cost. With no such
    figure, the fit over every figure stands.
    """
    cases = list(cases)
    pooled = fit_constants(cases)
    graph = [c for c in cases if _fact(c.engine, "graph_replay")]
    if not any(informs(c, STEP) for c in graph):
        return pooled
    replayed = fit_constants(graph, fallback=pooled.values)
    return Fit(values={**pooled.values, STEP: replayed.values[STEP]},
               fitted_on={**pooled.fitted_on, STEP: replayed.fitted_on[STEP]})


def fit_engine(cases: Iterable[Prepared], engine: str, pooled: Fit) -> Fit:
    """Constants of ``engine`` from its figures, pulled towards and completed by the ``pooled`` fit.

    A constant no figure of the engine informs takes the pooled value, except where a catalog fact says the engine
    pays a cost the pooled engines do not, measured in a document: an engine that launches eagerly
    (:attr:`~calculators.catalog.engines.Engine.eager_launches`) takes
    :data:`~calculators.catalog.engines.EAGER_HOST_S_PER_LAYER` as its fixed cost per layer, and one whose host works
    per sequence (:attr:`~calculators.catalog.engines.Engine.host_work_per_sequence`)
    :data:`~calculators.catalog.engines.HOST_S_PER_SEQUENCE` as its cost per sequence per step.
    """
    own = [c for c in cases if c.engine == engine]
    fallback = dict(pooled.values)
    if _fact(engine, "eager_launches") and not any(informs(c, STEP) for c in own):
        fallback[STEP] = EAGER_HOST_S_PER_LAYER
    if _fact(engine, "host_work_per_sequence") and not any(informs(c, "sequence_overhead_s") for c in own):
        fallback["sequence_overhead_s"] = HOST_S_PER_SEQUENCE
    return fit_constants(own, fallback=fallback)


def _fact(engine: str, name: str) -> bool:
    """A catalog fact of the engine a figure names (``False`` for an engine not catalogued)."""
    try:
        return bool(getattr(get_engine(engine), name))
    except UnknownNameError:
        return False


def fit_catalog(cases: Iterable[Prepared]) -> dict[str, Fit]:
    """The catalog's fits on every figure: ``"pooled"`` and one per engine with figures.

    Engines of :mod:`calculators.catalog.engines` with no figure (SGLang) are absent:
    they use the pooled values.
    """
    cases = list(cases)
    pooled = fit_pooled(cases)
    fits = {"pooled": pooled}
    for engine in sorted({c.engine for c in cases}):
        fits[engine] = fit_engine(cases, engine, pooled)
    return fits


def fits_module(fits: Mapping[str, Fit]) -> str:
    """Source text of :mod:`calculators.catalog.engine_fits` for ``fits`` (deterministic)."""
    lines = ['"""Fitted engine constants: written by ``scripts/score_speed.py --write-fits``; do not edit by hand.',
             "",
             "Each engine id maps constant names (``bandwidth_efficiency``, ``compute:16-bit``, ...) to",
             "``(value, ids of the tests/data/published_speed records it was fitted on)``. The pooled row is",
             "fitted on every engine's records; an engine's row on its own records, pulled towards the pooled",
             "values (calculators.speed_accuracy.fit); a constant no record of the engine informs is absent.",
             '"""', "", "from __future__ import annotations", "",
             "FitRow = tuple[float | None, tuple[str, ...]]", "", "FITS: dict[str, dict[str, FitRow]] = {"]
    for engine, fit in fits.items():
        lines.append(f"    {engine!r}: {{")
        for name in NAMES:
            ids = fit.fitted_on.get(name)
            if not ids:
                continue
            lines.append(f"        {name!r}: ({fit.values[name]!r}, (")
            lines.extend(f"            {i!r}," for i in ids)
            lines.append("        )),")
        lines.append("    },")
    lines.append("}")
    return "\n".join(lines) + "\n"
