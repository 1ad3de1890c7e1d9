"""Training utilisation: the fraction of a GPU's dense rate the executed FLOPs reach, predicted from fitted factors.

``utilisation = base[GPU family, FP8] x checkpointing[c] x method[m] x T / (T + T_half)``

The factors are fitted on published runs (:mod:`calculators.performance.utilisation` holds
the fit and its rationale; :mod:`calculators.catalog.utilisation_fit` the fitted values and
the records behind each). They live in the catalog, beside the engines' fitted constants,
so every face that times a training step (``train-time``, ``parallel``, ``recommend``)
reads one utilisation.

>>> from calculators.catalog.gpus import get_gpu
>>> 0.3 < predicted_utilisation(get_gpu("a100-80gb-sxm")) < 0.8
True

References:
    the sources of each record in tests/data/published_speed/training.jsonl; docs page
    "Training time".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from calculators.catalog import utilisation_fit
from calculators.catalog.gpu_input import gpu_record
from calculators.catalog.gpus import GPU
from calculators.validate import flag, one_of, positive_int

#: Checkpointing settings: ``selective`` recomputes a small part of the forward and counts as none.
CHECKPOINTING: tuple[str, ...] = ("none", "selective", "full")
METHODS: tuple[str, ...] = ("full", "lora", "qlora")
#: What a published figure measures: a steady-state step, or a whole run's GPU-hours.
RUNS: tuple[str, ...] = ("steady", "whole-run")
#: A micro-batch size standing for "large" where none is given, tokens.
LARGE_MICRO_BATCH_TOKENS = 1 << 20


def gpu_family(gpu: GPU) -> str:
    """``hopper`` (GH100), ``ampere`` (GA100) or ``other``: the groups the published runs cover."""
    gpu = gpu_record("gpu", gpu)
    if "GH100" in gpu.architecture:
        return "hopper"
    if "GA100" in gpu.architecture:
        return "ampere"
    return "other"


@dataclass(frozen=True)
class Features:
    """What a training run's utilisation depends on in this model."""

    family: str
    fp8: bool
    checkpointing: str
    method: str
    micro_batch_tokens: int = LARGE_MICRO_BATCH_TOKENS
    run: str = "steady"

    @property
    def base_key(self) -> str:
        """Key of :attr:`UtilisationFit.base`: family, plus ``-fp8`` for FP8 matmuls."""
        return self.family + ("-fp8" if self.fp8 else "")

    @property
    def ckpt_key(self) -> str:
        """``full`` or ``none`` (selective recomputation counts as none)."""
        return "full" if self.checkpointing == "full" else "none"


@dataclass(frozen=True)
class UtilisationFit:
    """Fitted factors and, for each, the record ids it was fitted on (``group:key`` -> ids)."""

    base: Mapping[str, float]
    checkpointing: Mapping[str, float]
    method: Mapping[str, float]
    run: Mapping[str, float]
    half_tokens: float = 0.0
    fitted_on: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def token_factor(self, micro_batch_tokens: int) -> float:
        """``T / (T + T_half)``: the share of the large-micro-batch utilisation ``T`` tokens reach."""
        return micro_batch_tokens / (micro_batch_tokens + self.half_tokens)

    @property
    def goodput(self) -> float:
        """Steady-state time / whole-run time of published pre-training runs (fitted)."""
        return self.run.get("whole-run", 1.0)

    def predict(self, features: Features) -> float:
        """Steady-state utilisation of the executed FLOPs, in (0, 1].

        A GPU family without runs takes the lowest fitted BF16 base; FP8 without runs on the
        family takes half the family's BF16 base (no speed-up over BF16). Both conservative.
        """
        bf16_bases = [v for k, v in self.base.items() if not k.endswith("-fp8")]
        base = self.base.get(features.base_key)
        if base is None:
            family = self.base.get(features.family, min(bf16_bases) if bf16_bases else 0.4)
            base = family / 2 if features.fp8 else family
        ckpt = self.checkpointing.get(features.ckpt_key, 1.0)
        method = self.method.get(features.method, 1.0)
        return min(1.0, base * ckpt * method * self.token_factor(features.micro_batch_tokens))


#: The fit on every record of tests/data/published_speed/training.jsonl (generated module; the records behind each
#: factor are in :data:`calculators.catalog.utilisation_fit.FITTED_ON`).
DEFAULT_FIT = UtilisationFit(base=utilisation_fit.BASE, checkpointing=utilisation_fit.CHECKPOINTING,
                             method=utilisation_fit.METHOD, run=utilisation_fit.RUN,
                             half_tokens=utilisation_fit.HALF_TOKENS, fitted_on=utilisation_fit.FITTED_ON)


def predicted_utilisation(gpu: GPU, *, fp8: bool = False, checkpointing: str = "none", method: str = "full",
                          micro_batch_tokens: int = LARGE_MICRO_BATCH_TOKENS,
                          fit: UtilisationFit | None = None) -> float:
    """Steady-state fraction of the dense rate (FP8 rate with ``fp8``) the executed FLOPs reach, in (0, 1] (fitted).

    Formula: ``base[family, fp8] x checkpointing x method x T / (T + T_half)``
    (:class:`UtilisationFit`); ``micro_batch_tokens`` is ``T`` (default: large).
    """
    features = Features(gpu_family(gpu), flag("fp8", fp8), one_of("checkpointing", checkpointing, CHECKPOINTING),
                        one_of("method", method, METHODS),
                        positive_int("micro_batch_tokens", micro_batch_tokens, maximum=1 << 40))
    return (DEFAULT_FIT if fit is None else fit).predict(features)


def run_goodput(fit: UtilisationFit | None = None) -> float:
    """Steady-state time / whole-run time, fitted on published pre-training GPU-hours (in (0, 1])."""
    return min(1.0, (DEFAULT_FIT if fit is None else fit).goodput)
