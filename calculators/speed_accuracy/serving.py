"""Serving figures taken at a stated concurrency, scored with the continuous-batching model and the static one.

Some published serving runs (``tests/data/published_speed``) state the concurrency they
held and the prompt and output lengths: those are the figures
:func:`calculators.performance.serving_load.serving_load` answers directly. Each is estimated
with the same engine constants, refitted without the figure's own source
(:func:`calculators.speed_accuracy.inference.loso_fits`): by ``serving_load`` at that
concurrency (each prefill accounting of :data:`~calculators.performance.serving_load.PREFILL_MODES`),
and by the static batch of that many sequences that
:mod:`calculators.speed_accuracy.predict` uses. Errors are on the speed axis (positive
over-promises). Figures with no stated prompt or output length are listed as skipped, with
the reason. Nothing here is fitted: the scores only report.

>>> sorted(figure["id"] for figure in serving_figures())[:2]
['ix870-dsr1-fp8-h200-tp8-c16-tpot', 'ix870-dsr1-fp8-h200-tp8-c32-tpot']
"""

from __future__ import annotations

import functools
from typing import Any

from calculators.catalog.engines import Engine, get_engine
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.performance.serving_load import PREFILL_MODES, Load, ServedModel, ServingLoad, serving_load
from calculators.speed_accuracy.errors import error_summary
from calculators.speed_accuracy.data import is_time, load_figures, measured_value, scored
from calculators.speed_accuracy.inference import loso_fits
from calculators.speed_accuracy.predict import catalog_engine, prepare
from calculators.speed_accuracy.fit_store import stored
from calculators.speed_accuracy.predict import error as static_error

#: Metrics ``serving_load`` gives, and the attribute of its result that answers each (seconds or tokens/s).
ANSWERS = {"output_rate": "output_tokens_per_s", "decode_rate": "decode_tokens_per_s_per_user",
           "decode_step_time": "inter_token_latency_s", "ttft": "time_to_first_token_s"}


def serving_figures(figures: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The scored figures that state a concurrency and a metric :data:`ANSWERS` covers."""
    chosen = scored(load_figures()) if figures is None else figures
    return [f for f in chosen if f.get("concurrency") is not None and f["metric"] in ANSWERS
            and int(f.get("tensor_parallel") or 1) == int(f.get("gpus") or 1)]


def skipped(figure: dict[str, Any]) -> str:
    """Why a serving figure cannot be scored (``""``: it can)."""
    missing = [name for name in ("input_tokens", "output_tokens") if figure.get(name) is None]
    return f"no stated {' or '.join(missing)}" if missing else ""


def _answer(figure: dict[str, Any], engine: str | Engine, prefill: str) -> ServingLoad:
    served = ServedModel.of(model=get_model(str(figure["model"])), gpu=get_gpu(str(figure["gpu"])), engine=engine,
                            weights=str(figure["weights"]), kv_cache=str(figure.get("kv_cache") or "bf16"),
                            gpus=int(figure["tensor_parallel"]))
    return serving_load(served, Load.of(prompt_tokens=int(figure["input_tokens"]),
                                        output_tokens=int(figure["output_tokens"]),
                                        concurrency=int(figure["concurrency"]), prefill=prefill))


def load_error(figure: dict[str, Any], engine: str | Engine, *, prefill: str = "separate") -> float | None:
    """Speed-axis error of ``serving_load`` on the figure (``None`` when the model says it cannot run)."""
    value: float | None = getattr(_answer(figure, engine, prefill), ANSWERS[str(figure["metric"])])
    if value is None:
        return None
    measured = measured_value(figure)
    return measured / value - 1.0 if is_time(figure) else value / measured - 1.0


@functools.lru_cache(maxsize=1)
def _rows() -> tuple[tuple[tuple[str, Any], ...], ...]:
    everything = scored(load_figures())
    # The rows follow from the figures and the package's code (read back by a later process of the run: fit_store).
    return stored("serving-load-rows", everything, lambda: _score(everything))


def _score(everything: list[dict[str, Any]]) -> tuple[tuple[tuple[str, Any], ...], ...]:
    fits = loso_fits([prepare(f) for f in everything])
    rows = []
    for figure in serving_figures(everything):
        reason = skipped(figure)
        row: dict[str, Any] = {"figure_id": figure["id"], "source_id": figure["source_id"],
                               "metric": figure["metric"], "concurrency": int(figure["concurrency"]),
                               "measured": float(figure["measured"]), "unit": figure["unit"], "skipped": reason,
                               **{f"{mode}_error": None for mode in PREFILL_MODES}, "static_error": None}
        if not reason:
            engine = fits[str(figure["source_id"])][1].engine(get_engine(catalog_engine(figure)),
                                                               suffix=" (cross-validated)")
            for mode in PREFILL_MODES:
                row[f"{mode}_error"] = load_error(figure, engine, prefill=mode)
            row["static_error"] = static_error(figure, engine)
        rows.append(tuple(row.items()))
    return tuple(rows)


def scored_serving() -> list[dict[str, Any]]:
    """Every serving figure at a stated concurrency with its errors (``None`` where skipped).

    Keys: ``figure_id``, ``source_id``, ``metric``, ``concurrency``, ``measured``, ``unit``,
    ``skipped`` (the reason, or ``""``), ``separate_error``, ``fused_error``, ``static_error``.
    """
    return [dict(row) for row in _rows()]


__all__ = ["ANSWERS", "load_error", "scored_serving", "serving_figures", "skipped"]
