"""Does an encoder's forward pass fit a GPU: the verdict, and the largest batch and sequence that fit.

The same verdict as every fit answer (:func:`calculators.fit.verdict_for`: *fits*, *tight* or
*does not fit* against the memory a process can allocate), for one forward of
:func:`calculators.memory.encoder.encoder_inference_memory`. An encoder is served one replica
per GPU (no tensor parallelism), so the answer is about one GPU.

>>> from calculators.catalog.encoder_models import get_encoder
>>> answer = fit_encoder(get_encoder("bge-m3"), "rtx-4090", batch=32, seq=512)
>>> answer.verdict.verdict, answer.max_seq
('fits', 8192)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.encoder import EncoderSpec
from calculators.fit import FitVerdict, footprint_on, verdict_for
from calculators.inputs.gpu import resolve_gpu
from calculators.memory.encoder import MAX_BATCH, MAX_SEQ, encoder_inference_memory, longest_input
from calculators.memory.inference import largest_fitting
from calculators.memory.result import MemoryEstimate


@dataclass(frozen=True)
class EncoderFit:
    """One encoder forward on one GPU: the estimate, the verdict and the limits.

    Attributes:
        model: the encoder's name.
        gpu: the GPU's name.
        estimate: memory of the forward (one GPU).
        verdict: *fits*, *tight* or *does not fit*, with the margin.
        max_batch: largest batch that fits at this sequence length (0: none).
        max_batch_tight: largest batch that is at most tight.
        max_seq: largest sequence (padded length) that fits at this batch (0: none), at most the position table.
        max_seq_tight: largest sequence that is at most tight.
    """

    model: str
    gpu: str
    estimate: MemoryEstimate
    verdict: FitVerdict
    max_batch: int
    max_batch_tight: int
    max_seq: int
    max_seq_tight: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"model": self.model, "gpu": self.gpu, "verdict": self.verdict.verdict,
                "margin_bytes": self.verdict.margin_bytes, "usable_bytes": self.verdict.usable_bytes,
                "max_batch": self.max_batch, "max_batch_tight": self.max_batch_tight, "max_seq": self.max_seq,
                "max_seq_tight": self.max_seq_tight, "estimate": self.estimate.to_dict()}


def _limits(gpu: GPU, estimate_of: Callable[[int], MemoryEstimate], upper: int) -> tuple[int, int]:
    usable = usable_memory_bytes(gpu)
    seen: dict[int, tuple[int, int]] = {}

    def fits(n: int, *, tight_ok: bool) -> bool:
        if n not in seen:
            seen[n] = footprint_on(estimate_of(n), gpu)
        total, uncertainty = seen[n]
        return total + (0 if tight_ok else uncertainty) <= usable

    return (largest_fitting(lambda n: fits(n, tight_ok=False), upper),
            largest_fitting(lambda n: fits(n, tight_ok=True), upper))


def fit_encoder(spec: EncoderSpec, gpu: GPU | str, **settings: Any) -> EncoderFit:
    """Fit of one encoder forward on ``gpu`` (settings as :func:`~calculators.memory.encoder.encoder_setup`).

    Raises:
        InputError: a setting out of range, or ``seq`` beyond the model's position table.
    """
    record = resolve_gpu(gpu)
    estimate = encoder_inference_memory(spec, **settings)
    total, uncertainty = footprint_on(estimate, record)
    verdict = verdict_for(total, uncertainty, usable_memory_bytes(record))
    batch, seq = settings.get("batch", 32), settings.get("seq", 512)
    rest = {key: value for key, value in settings.items() if key not in ("batch", "seq")}
    max_batch, max_batch_tight = _limits(
        record, lambda b: encoder_inference_memory(spec, **rest, batch=b, seq=seq), MAX_BATCH)
    max_seq, max_seq_tight = _limits(
        record, lambda s: encoder_inference_memory(spec, **rest, batch=batch, seq=s), longest_input(spec) or MAX_SEQ)
    return EncoderFit(model=spec.name, gpu=record.name, estimate=estimate, verdict=verdict, max_batch=max_batch,
                      max_batch_tight=max_batch_tight, max_seq=max_seq, max_seq_tight=max_seq_tight)

