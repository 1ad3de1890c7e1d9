"""The answer of :func:`calculators.performance.serving_load.serving_load`: :class:`ServingLoad`.

Times in seconds, rates in tokens/s or requests/s, memory in bytes; a field is ``None``
where the server cannot run (the requests in flight do not fit) or is saturated.

>>> answer = ServingLoad(model="m", gpu="g", engine="generic", gpus=1, prompt_tokens=8, output_tokens=4,
...                      concurrency=2, request_rate_per_s=None, status="ok", verdict="fits", max_concurrency=9,
...                      max_request_rate_per_s=3.0, decode_batch=2.0, in_flight=2.0, requests_per_s=1.0,
...                      output_tokens_per_s=4.0, inter_token_latency_s=0.25, time_to_first_token_s=1.25,
...                      end_to_end_latency_s=2.0, memory_total_bytes=1, memory_uncertainty_bytes=0,
...                      memory_capacity_bytes=2)
>>> answer.fits, answer.decode_tokens_per_s_per_user
(True, 4.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from calculators.memory.result import MemoryEstimate
from calculators.performance.error_bands import ErrorBand

__all__ = ["DOES_NOT_FIT_STATUS", "OK", "SATURATED", "ServingLoad"]

OK, DOES_NOT_FIT_STATUS, SATURATED = "ok", "does not fit", "saturated"


@dataclass(frozen=True)
class ServingLoad:
    """Steady state of a continuously batched server under a load (estimate; ``None`` where it cannot run).

    Attributes:
        model, gpu, engine, gpus: what serves; prompt_tokens, output_tokens: each request's shape.
        concurrency: requests in flight (closed loop), or ``None`` for a request rate.
        request_rate_per_s: offered requests/s (open loop, Poisson), or ``None``.
        status: ``"ok"``, ``"does not fit"`` (the concurrency's KV caches exceed the GPU) or
            ``"saturated"`` (the rate is above what the GPU sustains: the queue grows without bound).
        verdict: fit verdict of the requests in flight (``"fits"``, ``"tight"``, ``"does not fit"``).
        max_concurrency: most requests in flight whose memory *fits* (0: not even one).
        max_request_rate_per_s: highest sustainable request rate with at most ``max_concurrency``
            in flight, requests/s (``None`` when not even one request fits).
        decode_batch: sequences a decoding request shares each step with (itself included).
        in_flight: mean requests holding a KV cache (prefilling or decoding).
        requests_per_s: completed requests per second.
        output_tokens_per_s: output tokens per second, all users together.
        inter_token_latency_s: mean time between a request's tokens after the first (one step).
        time_to_first_token_s: mean wait from arrival to the first token.
        end_to_end_latency_s: mean time from arrival to the last token.
        memory_total_bytes, memory_uncertainty_bytes, memory_capacity_bytes: the footprint per GPU
            of the requests in flight, its measured uncertainty and the usable memory.
        memory: those requests' :func:`~calculators.serving.continuous_batch_memory` on one GPU (its share on
            ``gpus`` is :func:`calculators.fit.placement.split_inference_estimate`); not in :meth:`to_dict`.
        time_to_first_token_p90_s, time_to_first_token_p99_s, inter_token_latency_p90_s,
            inter_token_latency_p99_s: percentiles from the prompts per step and the wait for the step in
            progress (:mod:`calculators.performance.serving_tails`), ``None`` where the server cannot run.
        throughput_band, first_token_band: the measured error bands of the throughput and inter-token
            latency, and of the time to first token (:mod:`calculators.performance.error_bands`).
    """

    model: str
    gpu: str
    engine: str
    gpus: int
    prompt_tokens: int
    output_tokens: int
    concurrency: int | None
    request_rate_per_s: float | None
    status: str
    verdict: str
    max_concurrency: int
    max_request_rate_per_s: float | None
    decode_batch: float | None
    in_flight: float | None
    requests_per_s: float | None
    output_tokens_per_s: float | None
    inter_token_latency_s: float | None
    time_to_first_token_s: float | None
    end_to_end_latency_s: float | None
    memory_total_bytes: int
    memory_uncertainty_bytes: int
    memory_capacity_bytes: int
    assumptions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    throughput_band: ErrorBand | None = None
    first_token_band: ErrorBand | None = None
    time_to_first_token_p90_s: float | None = None
    time_to_first_token_p99_s: float | None = None
    inter_token_latency_p90_s: float | None = None
    inter_token_latency_p99_s: float | None = None
    memory: MemoryEstimate | None = field(default=None, compare=False, repr=False)

    @property
    def fits(self) -> bool:
        """True when the requests in flight fit (verdict *fits*) and the server is not saturated."""
        return self.status == OK and self.verdict == "fits"

    @property
    def decode_tokens_per_s_per_user(self) -> float | None:
        """Tokens per second one user sees while its answer streams: ``1 / inter_token_latency_s``."""
        return None if self.inter_token_latency_s is None else 1.0 / self.inter_token_latency_s

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (seconds, tokens/s, requests/s, bytes)."""
        return {
            "model": self.model, "gpu": self.gpu, "engine": self.engine, "gpus": self.gpus,
            "prompt_tokens": self.prompt_tokens, "output_tokens": self.output_tokens,
            "concurrency": self.concurrency, "request_rate_per_s": self.request_rate_per_s, "status": self.status,
            "verdict": self.verdict, "fits": self.fits, "max_concurrency": self.max_concurrency,
            "max_request_rate_per_s": self.max_request_rate_per_s, "decode_batch": self.decode_batch,
            "in_flight": self.in_flight, "requests_per_s": self.requests_per_s,
            "output_tokens_per_s": self.output_tokens_per_s,
            "decode_tokens_per_s_per_user": self.decode_tokens_per_s_per_user,
            "inter_token_latency_s": self.inter_token_latency_s, "time_to_first_token_s": self.time_to_first_token_s,
            "inter_token_latency_p90_s": self.inter_token_latency_p90_s,
            "inter_token_latency_p99_s": self.inter_token_latency_p99_s,
            "time_to_first_token_p90_s": self.time_to_first_token_p90_s,
            "time_to_first_token_p99_s": self.time_to_first_token_p99_s,
            "end_to_end_latency_s": self.end_to_end_latency_s, "memory_total_bytes": self.memory_total_bytes,
            "memory_uncertainty_bytes": self.memory_uncertainty_bytes,
            "memory_capacity_bytes": self.memory_capacity_bytes,
            "throughput_band": None if self.throughput_band is None else self.throughput_band.to_dict(),
            "first_token_band": None if self.first_token_band is None else self.first_token_band.to_dict(),
            "assumptions": list(self.assumptions), "notes": list(self.notes),
        }
