"""Training utilisation: the fraction of a GPU's dense rate that the executed FLOPs reach, from what moves it.

``utilisation = framework[f] x fp8[f] x checkpointing[c] x method[m] x T / (T + T_half)
x Amdahl / (1 + c x R / B)``

``T`` is the tokens of one micro-batch (sequences x sequence length): small micro-batches
leave the matmuls too small to fill the GPU (Qwen's LoRA runs gain 2.5x in throughput
from 256 to 8,192 tokens per micro-batch). ``T_half`` is not fitted: it is the GPU's ridge point,
its dense 16-bit rate over its memory bandwidth (:func:`calculators.catalog.utilisation.ridge_tokens`:
each matmul also reads its weights; a fitted ``T_half`` searched on a grid, which it replaced, came
out anywhere from 0 to 1,024 tokens as one source or another was left out). Part of that gain is
not utilisation: each micro-batch also pays a fixed host time, the Python forward of every layer
(:func:`calculators.catalog.utilisation.host_overhead_s`, fitted on inference decode figures,
not here), which the implied utilisations have taken out before this fit sees them. A whole
run's GPU-hours add interruptions and checkpoint saves, modelled from the job's GPUs
(:mod:`calculators.performance.goodput`) and taken out of the implied utilisations too, and
whatever else the published hours hold (long-context stages, evaluation), fitted as the
whole-run residual: ``whole-run time = steady-state time / (goodput x residual)``. ``Amdahl`` is a formula
(:mod:`calculators.catalog.utilisation`): FP8 speeds up only the linear layers' GEMMs
(Amdahl over their share of the FLOPs, at the GPU's FP8-to-16-bit peak ratio).

Each factor is fitted on the published runs of ``tests/data/published_speed/training.jsonl``
(:func:`fit_utilisation`; :mod:`calculators.catalog.utilisation_fit` holds that fit
on every record with the records behind each factor, and a test refits and compares).
The utilisation is of the **executed** FLOPs (hardware FLOPs): with full activation
recomputation the GPUs run one more forward, and the measured runs show they run it
*faster* per FLOP (larger micro-batches fit), so the checkpointing factor is above 1 while
the model FLOPs utilisation (MFU) still falls, by ``factor x 6 / 8``.

What the published runs show, and the fit keeps:

* **GPU balance**: A100 runs reach a larger fraction of their peak than H100 runs (the
  H100's peak is three times higher, its memory bandwidth only 1.6 times), and H200 runs a larger
  one than H100 runs (same chip, 1.4 times the bandwidth). One constant ``c``, the bytes of
  byte-bound kernels per executed FLOP, carries it: ``1 / (1 + c x R / B)`` of the rate is left,
  ``R / B`` the GPU's ridge point (:meth:`~calculators.catalog.utilisation.UtilisationFit.balance_factor`,
  whose docstring has the sources). It replaced a base fitted per GPU family: every GPU gets its
  own from its datasheet, and a GPU generation held out is no longer given another's base.
  Fitted on the A100, H100 and H200 runs (about 0.004 byte per FLOP); held out by generation, the
  pre-training median went from 29 % to 14 % and its p90 from 77 % to 40 %.
* **Framework**: Megatron-Core with Transformer Engine (NeMo, Megatron-Bridge) reaches a
  higher utilisation than the PyTorch FSDP family (torchtitan, llm-foundry, torchtune, NeMo
  AutoModel, Hugging Face Trainer), for every model size, in BF16 and FP8: fused kernels and
  communication overlapped by design (:mod:`calculators.catalog.training_frameworks`). The
  FSDP family is the reference (factor 1) and the default. Two sources measure Megatron-Core
  (the NeMo 24.07 tables and Megatron-Bridge's), so in leave-one-source-out each is scored
  with the factor fitted on the other; a framework only one source measures falls back to 1.
* **FP8**: the Amdahl formula with the spec peak ratio, times a fitted FP8 recipe factor per
  framework (``fp8[f]``, :meth:`~calculators.catalog.utilisation.UtilisationFit.fp8_recipe`):
  Megatron-Core's Transformer Engine layers are the reference (1; they have no 16-bit runs to
  compare against), the FSDP family's FP8 rows (llm-foundry's, torchtitan's) reach about two
  thirds of that, for every model size (their casts are separate byte-bound kernels). Each of
  the two FSDP-family FP8 sources is scored with the factor fitted on the other; with no FP8 run
  left in the fit (every one is on Hopper: held out by generation) a non-reference recipe is promised
  no FP8 gain, the 16-bit rate's utilisation (it was promised Transformer Engine's, 28-51 % too fast). A single
  fitted GEMM gain for every framework was tried first and left those rows 50 % too fast:
  the median of every run barely moves with the few FP8 rows it changes.
* **Method**: LoRA and QLoRA run at about the utilisation of full training. QLoRA's dequantisation
  is not in this factor: it is memory traffic, timed apart from the library's code
  (:func:`calculators.performance.training_time.dequantisation_s`; Qwen's Q-LoRA on a GPTQ Int4
  checkpoint is 5-35 % slower than its LoRA, most at short sequences, about what AutoGPTQ's bytes
  predict). The QLoRA factor fits what is left, on torchtune's NF4 row (torchao's dequantisation,
  read at bitsandbytes' bytes) and Qwen's rows.

Model size and sequence length beyond ``T`` have no factor (a width term was tried and raised
the cross-validated error, :mod:`calculators.catalog.utilisation`); the spread the terms leave is
the published error.

The prediction (:func:`predicted_utilisation`, :data:`DEFAULT_FIT`) lives in
:mod:`calculators.catalog.utilisation`, below the parallel layer, so the data-parallel step
(:func:`calculators.parallel.step.step_communication`) times compute at the same utilisation
as :func:`~calculators.performance.training_time.training_time`; it is imported here too.

>>> from calculators.catalog.gpus import get_gpu
>>> 0.3 < predicted_utilisation(get_gpu("a100-80gb-sxm")) < 0.8
True

References:
    Korthikanti et al. 2022 (arXiv:2205.05198) on model vs hardware FLOPs utilisation;
    the sources of each record in tests/data/published_speed/training.jsonl; docs page
    "Training time".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from statistics import median

from calculators.catalog.training_frameworks import DEFAULT_FRAMEWORK
from calculators.catalog.utilisation import CHECKPOINTING as CHECKPOINTING
from calculators.catalog.utilisation import DEFAULT_FIT as DEFAULT_FIT
from calculators.catalog.utilisation import LARGE_MICRO_BATCH_TOKENS as LARGE_MICRO_BATCH_TOKENS
from calculators.catalog.utilisation import METHODS as METHODS
from calculators.catalog.utilisation import RUNS as RUNS
from calculators.catalog.utilisation import Features as Features
from calculators.catalog.utilisation import UtilisationFit as UtilisationFit
from calculators.catalog.utilisation import gpu_family as gpu_family
from calculators.catalog.utilisation import predicted_utilisation as predicted_utilisation
from calculators.catalog.utilisation import whole_run_residual as whole_run_residual

FITTING_ROUNDS = 6
#: The framework whose FP8 recipe is the reference of the FP8 factor (1): Transformer Engine's fused layers.
FP8_REFERENCE = "megatron"


def fit_utilisation(runs: Iterable[tuple[str, str, Features, float]]) -> UtilisationFit:
    """Fit the factors to ``(record id, source id, features, implied utilisation)`` runs.

    Formula: in log space, each factor is the median over sources of the median over each source's runs
    in the factor's group of the run's log utilisation less the other factors and the formula
    factors (tokens, FP8 Amdahl and the balance: :meth:`UtilisationFit.known_factor`) (a robust
    back-fitting, :data:`FITTING_ROUNDS` rounds; every source counts once, however many rows it publishes).
    The balance's ``c`` (:attr:`UtilisationFit.bytes_per_flop`) is solved per run from what the other
    factors leave, ``c = (Amdahl / left - 1) / (R / B)``, and is the same median over sources of the
    median over each source's runs, steady-state runs only (a whole-run figure measures the utilisation times
    the whole-run residual, so it cannot tell ``c`` from the residual: it fits the residual alone). No
    checkpointing, full training, a steady-state step and the reference framework
    (:data:`~calculators.catalog.training_frameworks.DEFAULT_FRAMEWORK`) are 1; a group with no run left
    (a framework measured by one source, that source left out) is absent, so it
    falls back to 1; ``run[whole-run]`` is the whole-run residual: a whole-run figure, its modelled
    goodput taken out, measures ``utilisation x residual``.

    >>> f = Features("ampere", False, "none", "full", ridge_tokens=150.0)
    >>> fit = fit_utilisation([("a", "s1", f, 0.5), ("b", "s1", f, 0.5), ("c", "s2", f, 0.625)])
    >>> round(fit.bytes_per_flop, 4), round(fit.predict(f), 3), fit.fitted_on["bytes_per_flop"]
    (0.0053, 0.556, ('a', 'b', 'c'))
    """
    data = [(rid, source, feat, math.log(u)) for rid, source, feat, u in runs if u > 0]
    if not data:
        raise ValueError("fit_utilisation needs at least one run")
    return _fit_factors(data)


def _median_of_sources(values: list[tuple[str, float]]) -> float:
    by_source: dict[str, list[float]] = {}
    for source, value in values:
        by_source.setdefault(source, []).append(value)
    return median(median(v) for v in by_source.values())


def _bytes_per_flop(feat: Features, log_left: float) -> float | None:
    """The ``c`` that makes the balance factor of ``feat`` equal ``exp(log_left)`` (None: GPU without a ridge)."""
    shape = UtilisationFit(bytes_per_flop=0.0, checkpointing={}, method={}, run={})
    if feat.ridge_tokens <= 0:
        return None
    return (shape.fp8_factor(feat) * math.exp(-log_left) - 1.0) / feat.ridge_tokens - feat.unfused_bytes_per_flop


def _fit_factors(data: list[tuple[str, str, Features, float]]) -> UtilisationFit:
    tables: dict[str, dict[str, float]] = {"ckpt": {"none": 0.0}, "method": {"full": 0.0},
                                           "run": {"steady": 0.0}, "framework": {DEFAULT_FRAMEWORK: 0.0},
                                           "fp8": {"none": 0.0, FP8_REFERENCE: 0.0}}
    keys: dict[str, Callable[[Features], str]] = {
        "ckpt": lambda f: f.ckpt_key, "method": lambda f: f.method,
        "run": lambda f: f.run, "framework": lambda f: f.framework,
        "fp8": lambda f: f.framework if f.fp8 else "none"}
    fixed = {"ckpt": "none", "method": "full", "run": "steady", "framework": DEFAULT_FRAMEWORK, "fp8": "none"}
    groups: dict[str, list[str]] = {}
    c = 0.0

    def known(feat: Features) -> float:
        fit = UtilisationFit(bytes_per_flop=c, checkpointing={}, method={}, run={})
        return math.log(fit.known_factor(feat))

    for _ in range(FITTING_ROUNDS):
        solved = [(rid, source, _bytes_per_flop(feat, log_u - math.log(UtilisationFit.token_factor(feat))
                                                - sum(tables[name].get(keys[name](feat), 0.0) for name in tables)))
                  for rid, source, feat, log_u in data]
        steady = {rid for rid, _, feat, _ in data if feat.run != "whole-run"}  # a whole run: c x residual, not c
        groups["bytes_per_flop"] = [rid for rid, _, value in solved if value is not None and rid in steady]
        known_c = [(source, value) for rid, source, value in solved if value is not None and rid in steady]
        c = _median_of_sources(known_c) if known_c else 0.0  # no run on a GPU with a known balance: no term
        for name, key_of in keys.items():
            by_key: dict[str, list[tuple[str, str, float]]] = {}
            for rid, source, feat, log_u in data:
                others = sum(tables[other].get(keys[other](feat), 0.0) for other in tables if other != name)
                by_key.setdefault(key_of(feat), []).append((rid, source, log_u - known(feat) - others))
            for key, values in by_key.items():
                groups[f"{name}:{key}"] = [rid for rid, _, _ in values]
                if key != fixed[name] and not (name == "fp8" and key == FP8_REFERENCE):
                    tables[name][key] = _median_of_sources([(source, v) for _, source, v in values])
    rounded = {name: {k: round(math.exp(v), 4) for k, v in table.items()} for name, table in tables.items()}
    return UtilisationFit(bytes_per_flop=round(c, 7), checkpointing=rounded["ckpt"], method=rounded["method"],
                          run=rounded["run"], framework=rounded["framework"],
                          fp8=rounded["fp8"],
                          fitted_on={k: tuple(v) for k, v in sorted(groups.items())})
