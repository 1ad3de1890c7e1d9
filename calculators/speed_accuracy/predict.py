"""What the speed model says for one published figure, through the public API.

Each figure's ``metric`` (:mod:`calculators.speed_accuracy.data`) maps to one call:
decode figures to :func:`~calculators.performance.inference_speed.decode_step` at the
middle of the generated range, batch and serving figures to
:func:`~calculators.performance.inference_speed.inference_speed` (a static batch of
``batch`` or ``concurrency`` sequences), first-token figures to its
``time_to_first_token_s``, prefill figures to
:func:`~calculators.performance.inference_speed.prefill`. Errors are on the speed axis:
``estimated speed / measured speed - 1`` (for a time, ``measured / estimated - 1``), so a
positive error is an estimate that over-promises.

>>> from calculators.speed_accuracy.data import load_figures
>>> figure = next(f for f in load_figures() if f["id"] == "trt-llama-2-7b-fp16-a100-80gb-sxm-tp1-ttft2048")
>>> round(estimate(figure, "generic"), 1)  # ms; measured 133
147.6
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculators.catalog.engines import Engine, compute_key, engine_at_version, get_engine
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.memory.inference import with_stored_weights
from calculators.model import ModelSpec
from calculators.performance.inference_speed import (
    SpeedSetup,
    Work,
    decode_step,
    decode_work,
    inference_speed,
    prefill,
    prefill_work,
    request_works,
)
from calculators.speed_accuracy.data import UNITS, is_time, measured_value

#: Decode figures with no stated generated length are taken at this many tokens (llama-bench's tg 128).
DEFAULT_OUTPUT_TOKENS = 128
#: Decode-step groups the fit times per request (the API times up to 512).
FIT_CHUNKS = 16


def _settings(spec: ModelSpec, figure: dict[str, Any], engine: str | Engine) -> dict[str, Any]:
    # The figure's weights against its model (a format "auto" is the checkpoint's), for the setups built here too.
    return with_stored_weights(spec, {"weights": figure["weights"], "kv_cache": figure.get("kv_cache") or "bf16",
                                      "batch": int(figure["batch"]), "gpus": int(figure["tensor_parallel"]),
                                      "engine": engine})


def catalog_engine(figure: dict[str, Any]) -> str:
    """The catalog engine id of the figure's engine at its stated version, else the month its document dates its
    runs to (``engine_date``), and with the flash attention its settings state (``generic`` for an engine not
    catalogued).

    >>> catalog_engine({"engine": "tensorrt-llm", "engine_version": "v0.6.1"})
    'tensorrt-llm-0.7'
    >>> catalog_engine({"engine": "llama.cpp", "engine_date": "2024-05"})
    'llama.cpp-2024'
    """
    version = figure.get("engine_version") or figure.get("engine_date")
    flash = bool((figure.get("settings") or {}).get("flash_attention"))
    try:
        return get_engine(engine_at_version(str(figure["engine"]), version, flash_attention=flash)).id
    except ValueError:
        return "generic"


def _decode_context(figure: dict[str, Any]) -> int:
    output = figure.get("output_tokens") or DEFAULT_OUTPUT_TOKENS
    return int(figure.get("input_tokens") or 0) + max(1, int(output) // 2)


def served(figure: dict[str, Any]) -> bool:
    """True when the figure's requests went through the engine's server: a closed-loop client at a stated ``concurrency``.

    The engine's fixed cost per request (``request_overhead_s``: the HTTP front end, tokenising, scheduling;
    vLLM's own profile put a third of a step's time in its HTTP server,
    :data:`calculators.catalog.engines.OUTPUT_PROCESSING_SOURCE`) exists only there. A figure measured in the
    engine's own process (TensorRT-LLM's gptSessionBenchmark, vLLM's benchmark_latency, transformers'
    generate()) has no such request: it is modelled and fitted without it, so an engine whose figures are all
    in-process neither fits that cost to zero nor, held out, takes another engine's server cost.

    >>> served({"concurrency": 1}), served({"concurrency": None})
    (True, False)
    """
    return figure.get("concurrency") is not None


def _tokens_out(figure: dict[str, Any]) -> float:
    return float(figure["batch"]) * float(figure["output_tokens"])


def model_time_s(figure: dict[str, Any], engine: str | Engine) -> float:
    """The model's time for the figure (seconds): a decode step, a prefill, a first token or a batch.

    The measured counterpart is :func:`measured_time_s`; ``measured / model - 1`` is the error.
    """
    spec, gpu = get_model(str(figure["model"])), get_gpu(str(figure["gpu"]))
    settings = _settings(spec, figure, engine)
    metric = str(figure["metric"])
    if metric in ("decode_rate", "decode_step_time"):
        return decode_step(spec, gpu, context=_decode_context(figure), **settings).time_s
    if metric in ("prefill_rate", "prefill_time"):
        return prefill(spec, gpu, context=int(figure["input_tokens"]), **settings).time_s
    new_tokens = 1 if metric == "ttft" else int(figure["output_tokens"])
    result = inference_speed(spec, gpu, context=int(figure["input_tokens"]), new_tokens=new_tokens, **settings)
    in_process = 0.0 if served(figure) else result.request_overhead_s  # no server, no request cost (served())
    return (result.time_to_first_token_s if metric == "ttft" else result.generation_time_s) - in_process


def measured_time_s(figure: dict[str, Any]) -> float:
    """The measured figure as the time the model computes (seconds).

    Rates become times: ``1 / rate`` for one decoding sequence, ``batch x output tokens /
    rate`` for a batch (per GPU: also divided by the tensor-parallel GPUs), ``batch x
    prompt tokens / rate`` for a prefill.
    """
    value = measured_value(figure)
    if is_time(figure):
        return value
    metric = str(figure["metric"])
    if metric == "decode_rate":
        return 1.0 / value
    if metric == "output_rate":
        return _tokens_out(figure) / value
    if metric == "output_rate_per_gpu":
        return _tokens_out(figure) / (float(figure["tensor_parallel"]) * value)
    if metric == "prefill_rate":
        return float(figure["batch"]) * float(figure["input_tokens"]) / value
    raise ValueError(f"{figure['id']}: unknown metric {metric!r}")


def _estimate_of(figure: dict[str, Any], model: float) -> float:
    unit = UNITS[str(figure["unit"])]
    if is_time(figure):
        return model / unit
    return measured_value(figure) * measured_time_s(figure) / model / unit


def _error_of(figure: dict[str, Any], model: float) -> float:
    return measured_time_s(figure) / model - 1.0


def estimate(figure: dict[str, Any], engine: str | Engine) -> float:
    """The model's value of the figure, in the figure's own unit (tokens/s, s or ms)."""
    return _estimate_of(figure, model_time_s(figure, engine))


def error(figure: dict[str, Any], engine: str | Engine) -> float:
    """Relative error on the speed axis: ``measured time / model time - 1`` (positive: over-promises)."""
    return _error_of(figure, model_time_s(figure, engine))


def estimate_and_error(figure: dict[str, Any], engine: str | Engine) -> tuple[float, float]:
    """:func:`estimate` and :func:`error` of the figure from one model time (each would compute it)."""
    model = model_time_s(figure, engine)
    return _estimate_of(figure, model), _error_of(figure, model)


@dataclass(frozen=True)
class Prepared:
    """A figure reduced to what the fit needs: its measured time and the model's work terms.

    The model time for candidate constants is ``requests x request overhead + sum of
    count x step_times(work)`` (:func:`calculators.performance.inference_speed.step_times`).
    """

    figure_id: str
    source_id: str
    engine: str
    category: str
    measured_s: float
    terms: tuple[tuple[int, Work], ...]
    requests: int
    compute: str
    moe: bool
    rereads: bool = False


def prepare(figure: dict[str, Any]) -> Prepared:
    """Precompute the figure's work (bytes and FLOPs over the peaks), independent of the constants."""
    spec, gpu = get_model(str(figure["model"])), get_gpu(str(figure["gpu"]))
    metric = str(figure["metric"])
    terms: list[tuple[int, Work]]
    requests = 0
    # The work (bytes and FLOPs at the peaks) depends on the engine's kernels, never on its constants.
    kernels = catalog_engine(figure)
    if metric in ("decode_rate", "decode_step_time"):
        setup = SpeedSetup.of(context=_decode_context(figure), **_settings(spec, figure, kernels))
        terms = [(1, decode_work(spec, gpu, setup, setup.context)[2])]
    elif metric in ("prefill_rate", "prefill_time"):
        setup = SpeedSetup.of(context=int(figure["input_tokens"]), **_settings(spec, figure, kernels))
        terms = [(1, prefill_work(spec, gpu, setup)[2])]
    else:
        setup = SpeedSetup.of(context=int(figure["input_tokens"]), **_settings(spec, figure, kernels))
        new_tokens = 1 if metric == "ttft" else int(figure["output_tokens"])
        first, steps = request_works(spec, gpu, setup, new_tokens=new_tokens, chunks=FIT_CHUNKS)
        terms = [(1, first), *steps]
        requests = 1 if served(figure) else 0
    return Prepared(figure_id=str(figure["id"]), source_id=str(figure["source_id"]), engine=str(figure["engine"]),
                    category=str(figure["category"]), measured_s=measured_time_s(figure), terms=tuple(terms),
                    requests=requests, compute=compute_key(setup.weights), moe=spec.moe is not None,
                    rereads=any(work.kv_reread_s > 0 for _, work in terms))
