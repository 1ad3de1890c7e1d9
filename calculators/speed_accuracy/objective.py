"""The fit's objective: the model time of a prepared figure, the robust loss, and both along one constant.

:func:`model_time` times a :class:`~calculators.speed_accuracy.predict.Prepared` figure for a
set of constants with :func:`~calculators.performance.roofline.step_times`, the formula the
calculators use; :func:`loss` is the objective of :mod:`calculators.speed_accuracy.fit` (the
module docstring there says what it weighs). The golden-section search of that module
evaluates them at 30 values of one constant at a time: :func:`model_times_along` and
:func:`loss_along` compute once what that constant does not move and give the same floats,
to the last bit, as :func:`model_time` and :func:`loss`.

>>> from calculators.speed_accuracy.data import load_figures, scored
>>> from calculators.speed_accuracy.predict import prepare
>>> case = prepare(next(f for f in scored(load_figures()) if f["metric"] == "decode_rate"))
>>> from calculators.speed_accuracy.fit import NAMES
>>> values = dict.fromkeys(NAMES, 0.5)
>>> along = model_times_along([case], values, "bandwidth_efficiency")
>>> along(0.8) == [model_time(case, {**values, "bandwidth_efficiency": 0.8})]
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from calculators.catalog.engines import COMPUTE_KEYS
from calculators.performance.inference_speed import Work, step_times
from calculators.performance.roofline import overlapped_s
from calculators.speed_accuracy.predict import Prepared

#: Log error beyond which a figure's loss grows linearly instead of quadratically.
ROBUST_SCALE = 0.25
#: Weight of the pull of each efficiency towards the pooled value, against 1 per figure.
PRIOR_WEIGHT = 0.25


def model_time(case: Prepared, values: Mapping[str, float]) -> float:
    """Model time of a prepared figure for the constants ``values`` (seconds)."""
    total = case.requests * values["request_overhead_s"]
    for count, work in case.terms:
        total += count * step_times(work, bandwidth_efficiency=values["bandwidth_efficiency"],
                                    compute_efficiency=values[f"compute:{case.compute}"],
                                    moe_expert_efficiency=values["moe_expert_efficiency"],
                                    step_overhead_s_per_layer=values["step_overhead_s_per_layer"],
                                    kv_reread_cost=values["kv_reread_cost"],
                                    sequence_overhead_s=values["sequence_overhead_s"])[3]
    return total


def loss(cases: Sequence[Prepared], values: Mapping[str, float], prior: Mapping[str, float]) -> float:
    """The fit's objective for the constants ``values``: the robust sum over ``cases`` of their log errors, plus the
    pulls of the constants in ``prior`` towards its values (:mod:`calculators.speed_accuracy.fit`)."""
    scale = ROBUST_SCALE
    total = sum(2.0 * scale * scale * (math.sqrt(1.0 + (math.log(case.measured_s / model_time(case, values)) / scale)
                                                 ** 2) - 1.0) for case in cases)
    for name, centre in prior.items():
        total += PRIOR_WEIGHT * math.log(values[name] / centre) ** 2
    return total


#: The part of :func:`~calculators.performance.roofline.step_times` each constant moves: the memory side
#: (memory and attention-memory times; the bandwidth only divides their bytes), the compute side (compute
#: and attention-compute times), the fixed cost of a pass, or none of a pass (the per-request cost
#: :func:`model_time` adds to them).
_SIDE = {"bandwidth_efficiency": "bandwidth", "moe_expert_efficiency": "memory", "kv_reread_cost": "memory",
         **{f"compute:{key}": "compute" for key in COMPUTE_KEYS},
         "step_overhead_s_per_layer": "fixed", "sequence_overhead_s": "fixed", "request_overhead_s": "request"}


def _memory_at_full_bandwidth(work: Work, *, expert_factor: float, reread: float) -> tuple[float, float]:
    """Memory and attention-memory seconds of :func:`step_times` before the bandwidth efficiency divides them.

    ``expert_factor`` is ``1 / moe_expert_efficiency - 1``; ``reread`` the ``kv_reread_cost``.
    """
    rereads = work.kv_reread_s * reread
    return work.memory_s + work.expert_s * expert_factor + rereads, work.attention_memory_s + rereads


def _memory_side(work: Work, *, bandwidth: float, expert_factor: float,
                 reread: float) -> tuple[float, float, float]:
    """``(memory - attention memory, attention memory, unfused)`` of :func:`step_times`, seconds."""
    memory, attention = _memory_at_full_bandwidth(work, expert_factor=expert_factor, reread=reread)
    attention = attention / bandwidth
    return memory / bandwidth - attention, attention, work.unfused_s / bandwidth


def _compute_side(work: Work, *, efficiency: float) -> tuple[float, float]:
    """``(compute - attention compute, attention compute)`` of :func:`step_times`, seconds (0 with no known rate)."""
    if work.compute_s is None:
        return 0.0, 0.0
    attention = work.attention_compute_s / efficiency
    return work.compute_s / efficiency - attention, attention


def _time_before_fixed(memory: tuple[float, float, float], compute: tuple[float, float], work: Work) -> float:
    """:func:`step_times`' total less the fixed cost it adds last: the projections and the attention (each side's
    memory and compute overlapped), the unfused kernels, the all-reduces (seconds), from the two sides."""
    return overlapped_s(memory[0], compute[0]) + overlapped_s(memory[1], compute[1]) + memory[2] + work.communication_s


def _pass_time(projections: float, attention: float, unfused: float, compute_projections: float,
               compute_attention: float, communication: float, fixed: float) -> float:
    """:func:`step_times`' total from its two sides: the projections and the attention (each side's memory and compute
    overlapped, :func:`~calculators.performance.roofline.overlapped_s`), the unfused kernels, the all-reduces and the
    fixed cost, added in its order."""
    return (overlapped_s(projections, compute_projections) + overlapped_s(attention, compute_attention)
            + unfused + communication + fixed)


def model_times_along(cases: Sequence[Prepared], values: Mapping[str, float], name: str) -> Callable[[float], list[float]]:
    """:func:`model_time` of each case as a function of constant ``name`` alone, the others held at ``values``.

    The golden-section search times every case at 30 values of one constant. What of each
    pass's :func:`step_times` the constant does not move is computed once here (the other
    side of the roofline, everything before the fixed cost, or the whole pass when only the
    request cost moves); the returned function does the rest with the same operations in
    the same order, so its times equal :func:`model_time`'s to the last bit
    (tests/validation/test_speed_accuracy.py checks it).
    The ``cases`` are those that :func:`calculators.speed_accuracy.fit.depends` on ``name``
    (a compute efficiency is taken as each case's own format's).
    """
    side = _SIDE[name]
    hypot, sqrt = math.hypot, math.sqrt  # overlapped_s's operations, bound once for the inlined loops below
    bandwidth, overhead = values["bandwidth_efficiency"], values["step_overhead_s_per_layer"]
    per_sequence = values["sequence_overhead_s"]

    def fixed_of(work: Work) -> float:  # as step_times: per-layer cost, per-sequence cost, host launches
        return work.layers * overhead + work.sequences * per_sequence + work.host_launch_s
    expert_factor, reread = 1.0 / values["moe_expert_efficiency"] - 1.0, values["kv_reread_cost"]

    def memory_side(work: Work) -> tuple[float, float, float]:
        return _memory_side(work, bandwidth=bandwidth, expert_factor=expert_factor, reread=reread)

    def compute_side(case: Prepared, work: Work) -> tuple[float, float]:
        return _compute_side(work, efficiency=values[f"compute:{case.compute}"])

    def request_cost(case: Prepared) -> float:
        return case.requests * values["request_overhead_s"]

    if side == "request":
        passes = [[count * step_times(work, bandwidth_efficiency=bandwidth,
                                      compute_efficiency=values[f"compute:{case.compute}"],
                                      moe_expert_efficiency=values["moe_expert_efficiency"],
                                      step_overhead_s_per_layer=overhead, kv_reread_cost=reread,
                                      sequence_overhead_s=per_sequence)[3]
                   for count, work in case.terms] for case in cases]

        def request_times(value: float) -> list[float]:
            times: list[float] = []
            for case, counted in zip(cases, passes, strict=True):
                total = case.requests * value
                for time in counted:
                    total += time
                times.append(total)
            return times

        return request_times

    if side == "fixed":
        # per case: request cost, then per pass: count, layers, sequences, host launches, the pass's time before its
        # fixed cost (step_times adds the fixed cost last, layers x per-layer cost + sequences x per-sequence cost +
        # host launches)
        unfixed = [(request_cost(case), [(count, work.layers, work.sequences, work.host_launch_s,
                                          _time_before_fixed(memory_side(work), compute_side(case, work), work))
                                         for count, work in case.terms])
                   for case in cases]
        layer_side = name == "step_overhead_s_per_layer"

        def fixed_times(value: float) -> list[float]:
            times: list[float] = []
            append = times.append
            if layer_side:
                for total, terms in unfixed:
                    for count, layers, sequences, launches, before in terms:
                        total += count * (before + (layers * value + sequences * per_sequence + launches))
                    append(total)
            else:
                for total, terms in unfixed:
                    for count, layers, sequences, launches, before in terms:
                        total += count * (before + (layers * overhead + sequences * value + launches))
                    append(total)
            return times

        return fixed_times

    if side == "compute":
        # per case: request cost, then per pass: count, compute and attention-compute seconds at 100 %, the memory
        # side, communication, fixed cost and, for a pass with no known compute rate (_compute_side is 0, 0 at any
        # efficiency), its count x time, computed once as the search would
        def compute_term(count: int, work: Work) -> tuple[int, float, float, float, float, float, float, float,
                                                          float | None]:
            projections, attention, unfused = memory_side(work)
            communication, fixed = work.communication_s, fixed_of(work)
            if work.compute_s is None:
                return (count, 0.0, 0.0, projections, attention, unfused, communication, fixed,
                        count * _pass_time(projections, attention, unfused, 0.0, 0.0, communication, fixed))
            return (count, work.compute_s, work.attention_compute_s, projections, attention, unfused, communication,
                    fixed, None)

        memory = [(request_cost(case), [compute_term(count, work) for count, work in case.terms]) for case in cases]

        def compute_times(value: float) -> list[float]:
            # _pass_time inlined (the same operations in its order; overlapped_s inlined too): this loop runs
            # millions of times per fit
            times: list[float] = []
            append = times.append
            for total, terms in memory:
                for (count, compute_s, attention_compute_s, projections, attention, unfused, communication, fixed,
                     constant) in terms:
                    if constant is not None:
                        total += constant
                        continue
                    compute_attention = attention_compute_s / value  # as _compute_side
                    compute_projections = compute_s / value - compute_attention
                    total += count * (sqrt(hypot(projections * projections, compute_projections * compute_projections))
                                      + sqrt(hypot(attention * attention, compute_attention * compute_attention))
                                      + unfused + communication + fixed)
                append(total)
            return times

        return compute_times

    if side == "bandwidth":
        # per case: request cost, then per pass: count, memory and attention-memory seconds at full bandwidth,
        # the compute side, communication, fixed cost
        undivided = [(request_cost(case), [(count, *_memory_at_full_bandwidth(work, expert_factor=expert_factor,
                                                                              reread=reread), work.unfused_s,
                                            *compute_side(case, work), work.communication_s, fixed_of(work))
                                           for count, work in case.terms])
                     for case in cases]

        def bandwidth_times(value: float) -> list[float]:
            # _pass_time inlined (the same operations in its order; overlapped_s inlined too): this loop runs
            # millions of times per fit
            times: list[float] = []
            append = times.append
            for total, terms in undivided:
                for (count, memory, attention_memory, unfused_s, compute_projections, compute_attention, communication,
                     fixed) in terms:
                    attention = attention_memory / value  # as _memory_side
                    projections = memory / value - attention
                    total += count * (sqrt(hypot(projections * projections, compute_projections * compute_projections))
                                      + sqrt(hypot(attention * attention, compute_attention * compute_attention))
                                      + unfused_s / value + communication + fixed)
                append(total)
            return times

        return bandwidth_times

    # per case: request cost, then per pass: count, the memory seconds at 100 % (all, experts, repeated KV reads,
    # attention), the compute side, communication, fixed cost
    computed = [(request_cost(case), [(count, work.memory_s, work.expert_s, work.kv_reread_s, work.attention_memory_s,
                                       work.unfused_s / bandwidth, *compute_side(case, work), work.communication_s,
                                       fixed_of(work))
                                      for count, work in case.terms])
                for case in cases]

    def memory_times(value: float) -> list[float]:
        at_reread = value if name == "kv_reread_cost" else reread
        at_factor = 1.0 / value - 1.0 if name == "moe_expert_efficiency" else expert_factor
        times = []
        for total, terms in computed:
            for (count, memory_s, expert_s, reread_s, attention_memory_s, unfused, compute_projections,
                 compute_attention, communication, fixed) in terms:
                rereads = reread_s * at_reread  # as _memory_side
                attention = (attention_memory_s + rereads) / bandwidth
                projections = (memory_s + expert_s * at_factor + rereads) / bandwidth - attention
                total += count * _pass_time(projections, attention, unfused, compute_projections, compute_attention,
                                            communication, fixed)
            times.append(total)
        return times

    return memory_times


def loss_along(cases: Sequence[Prepared], values: Mapping[str, float], name: str,
                prior: Mapping[str, float]) -> Callable[[float], float]:
    """:func:`loss` as a function of constant ``name`` alone (its value), the others held at ``values``.

    The model times come from :func:`model_times_along` and the other constants' pulls towards
    the prior are computed once; the sums are :func:`loss`'s, in its order, so the losses
    are equal to the last bit (tests/validation/test_speed_accuracy.py checks it).
    """
    times_at = model_times_along(cases, values, name)
    measured = [case.measured_s for case in cases]
    scale = ROBUST_SCALE
    weight = 2.0 * scale * scale
    log, sqrt = math.log, math.sqrt
    pulls = [(other, PRIOR_WEIGHT * log(values[other] / centre) ** 2) for other, centre in prior.items()]

    def loss(value: float) -> float:
        # a list, not a generator, for sum (faster; the same additions in the same order)
        total = sum([weight * (sqrt(1.0 + (log(m / t) / scale) ** 2) - 1.0)
                     for m, t in zip(measured, times_at(value), strict=True)])
        for other, pull in pulls:
            total += PRIOR_WEIGHT * log(value / prior[name]) ** 2 if other == name else pull
        return total

    return loss
