"""The measured error band of a speed or time answer: how far published figures of its kind were from the model.

Every published figure of ``tests/data/published_speed`` is estimated with its own source held out,
and again with its engine and with its hardware generation held out
(:mod:`calculators.speed_accuracy.generalisation`). The signed errors of the figures like an answer
give its band: the 10th and 90th percentiles of ``measured time / estimated time - 1`` (nearest rank;
for a rate the same number, ``estimated rate / measured rate - 1``), so 80 % of those figures took
between ``1 + low`` and ``1 + high`` times the estimated time. The bands are computed offline into
:mod:`calculators.catalog.speed_error_bands` (``scripts/score_generalisation.py --write-bands``; a test
recomputes them), so an answer reads them without the dataset.

Which figures are "like" an answer, for its category, engine and GPU generation
(:func:`calculators.catalog.generations.hardware_generation`), first match with at least
:data:`MIN_FIGURES` figures:

* the engine and the generation both have published figures in the category: the figures of that engine
  on that generation, then of that engine on any GPU, then of the category, each with its source held out;
* the engine has none (an engine the project has no measurement of): the category's figures with their
  engine held out;
* the generation has none: the engine's (else the category's) figures with their generation held out;
* neither: the category's figures with their engine or their generation held out, together;
* the ``generic`` engine (the naive roofline): the naive roofline's own errors on the category.

A first token is the engine's cost per request and the prefill of the prompt, so an engine with no first-token
figure but with prompt-processing figures (llama.cpp and MLX publish prompt rates: llama-bench ``pp``, ``mlx_lm``)
reads its prefill band, as above, for its first token: prompt figures of the same engine say more about its first
token than other engines' first tokens do.

Training answers are keyed by the training framework group (``pytorch``, ``megatron``) and their
category by method: full training with the pre-training figures, LoRA and QLoRA with the fine-tuning
ones.

>>> from calculators.catalog.gpus import get_gpu
>>> band = speed_error_band("decode_batch1", engine="llama.cpp", gpu=get_gpu("h100-sxm"))
>>> band.basis
'llama.cpp on any GPU, its source held out'
>>> band.n >= MIN_FIGURES and band.low < 0 < band.high
True
>>> band.time_range(1.0) == (1.0 + band.low, 1.0 + band.high)
True

References:
    docs page "How accurate is the speed model?" (section "Does it generalise?").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from calculators.catalog import speed_error_bands as stored
from calculators.catalog.engines import Engine, get_engine
from calculators.catalog.generations import GENERATION_TITLES, hardware_generation
from calculators.catalog.gpus import GPU

#: Fewest figures a band is read from; with fewer, the next, wider set of figures is used.
MIN_FIGURES = 5
#: The share of figures a band covers (10th to 90th percentile).
COVERAGE = 0.8
#: Category of the pre-training and fine-tuning bands by training method.
TRAINING_CATEGORY = {"full": "pre-training", "lora": "fine-tuning", "qlora": "fine-tuning"}


@dataclass(frozen=True)
class ErrorBand:
    """The measured error of answers like one: ``low`` and ``high`` on the time axis (see the module docstring).

    Attributes:
        category: the published figures' category (``decode_batch1``, ``pre-training``, ...).
        basis: which figures, in words (``"vllm on Hopper, its source held out"``).
        n: how many.
        low, high: 10th and 90th percentile of ``measured time / estimated time - 1``.
    """

    category: str
    basis: str
    n: int
    low: float
    high: float

    def time_range(self, time_s: float) -> tuple[float, float]:
        """The times 80 % of such figures took, for an estimated time (seconds)."""
        return time_s * (1.0 + self.low), time_s * (1.0 + self.high)

    def rate_range(self, rate: float) -> tuple[float, float]:
        """The rates 80 % of such figures reached, for an estimated rate (any unit)."""
        return rate / (1.0 + self.high), rate / (1.0 + self.low)

    def text(self, quantity: str) -> str:
        """One line for a result's text."""
        return (f"error band of the {quantity}: 80 % of {self.n} published figures of this kind ({self.basis}) took "
                f"{1 + self.low:.2f}-{1 + self.high:.2f} x the estimated time")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"category": self.category, "basis": self.basis, "n": self.n, "low": self.low, "high": self.high,
                "coverage": COVERAGE}


def _band(category: str, key: str, basis: str) -> ErrorBand | None:
    row = stored.BANDS.get(f"{category}|{key}")
    if row is None or row[0] < MIN_FIGURES:
        return None
    n, low, high = row
    return ErrorBand(category=category, basis=basis, n=n, low=low, high=high)


def _first(*bands: ErrorBand | None) -> ErrorBand | None:
    return next((band for band in bands if band is not None), None)


def _generation_title(generation: str) -> str:
    return GENERATION_TITLES.get(generation, generation)


def _lookup(category: str, engine: str, generation: str) -> ErrorBand | None:
    seen_engine = engine in stored.ENGINES.get(category, ())
    seen_generation = generation in stored.GENERATIONS.get(category, ())
    where = _generation_title(generation)
    if seen_engine and seen_generation:
        return _first(_band(category, f"source|{engine}|{generation}", f"{engine} on {where}, its source held out"),
                      _band(category, f"source|{engine}|*", f"{engine} on any GPU, its source held out"),
                      _band(category, "source|*|*", "every engine and GPU, its source held out"))
    if seen_generation:
        return _band(category, "engine|*|*", f"every engine held out in turn: {engine} has no published figure")
    if seen_engine:
        return _first(_band(category, f"generation|{engine}|*",
                            f"{engine}'s figures with their GPU generation held out: {where} has none"),
                      _band(category, "generation|*|*", f"every GPU generation held out in turn: {where} has none"))
    return _band(category, "unseen|*|*", f"engines and GPU generations held out in turn: neither {engine} nor "
                                         f"{where} has a published figure")


def speed_error_band(category: str, *, engine: str | Engine, gpu: GPU) -> ErrorBand | None:
    """The band of an inference answer of ``category`` on ``engine`` and ``gpu`` (``None``: no figures at all).

    ``category``: ``decode_batch1``, ``batched_throughput``, ``time_to_first_token`` or ``prefill_throughput``;
    ``engine``: an engine, its id, or the id of the engine family a refitted copy belongs to.
    """
    fit_id = engine.family_id if isinstance(engine, Engine) else get_engine(engine).family_id
    if fit_id == "generic":
        return _band(category, "naive|*|*", "the naive roofline (generic engine) on every published figure")
    generation = hardware_generation(gpu)
    if (category == "time_to_first_token" and fit_id not in stored.ENGINES.get(category, ())
            and fit_id in stored.ENGINES.get("prefill_throughput", ())):
        prompt = _lookup("prefill_throughput", fit_id, generation)
        if prompt is not None:
            return replace(prompt, basis=f"prompt processing of {prompt.basis}: {fit_id} has no first-token figure")
    return _lookup(category, fit_id, generation)


def training_error_band(*, method: str, framework: str, gpu: GPU) -> ErrorBand | None:
    """The band of a training-time answer (``None``: no figures at all); ``framework`` is the framework group."""
    category = TRAINING_CATEGORY.get(method, "pre-training")
    return _lookup(category, framework, hardware_generation(gpu))


__all__ = ["COVERAGE", "ErrorBand", "MIN_FIGURES", "TRAINING_CATEGORY", "speed_error_band", "training_error_band"]
