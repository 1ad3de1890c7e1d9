"""Result records of one forward pass under the roofline: :class:`Step` and :class:`DecodeStep`.

Built by :func:`calculators.performance.inference_speed.decode_step` and
:func:`~calculators.performance.inference_speed.prefill`; times in seconds, bytes in
bytes, FLOPs in FLOP.

>>> step = DecodeStep(bytes_read=10, flops=1.0, memory_time_s=0.5, compute_time_s=0.1, time_s=0.5,
...                   bound_time_s=0.4, bound="memory", tokens=4, batch=4, context=0)
>>> step.tokens_per_s, step.aggregate_tokens_per_s, step.max_aggregate_tokens_per_s
(2.0, 8.0, 10.0)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """Time of one forward pass (a decode step or a prefill) under the roofline.

    Attributes:
        bytes_read: bytes moved from GPU memory, all GPUs together.
        flops: FLOP executed, all GPUs together.
        memory_time_s: bytes over (bandwidth x efficiency x GPUs), seconds.
        compute_time_s: FLOPs over (rate x efficiency x GPUs), seconds; ``None`` where the
            GPU's rate is unknown.
        time_s: the larger of the two plus ``communication_time_s`` (estimate).
        bound_time_s: the same at 100 % efficiencies and no collective latency: a lower
            bound on the time.
        bound: ``"memory"``, ``"compute"``, ``"communication"`` or ``"fixed cost"``: the largest term.
        tokens: tokens the pass produces (decode: batch; prefill: prompt tokens of the batch).
        communication_time_s: tensor-parallel all-reduces, added to the larger term
            (0 on one GPU), seconds.
        overhead_time_s: the engine's fixed cost of the pass (layers x its cost per
            layer), added too, seconds.
    """

    bytes_read: int
    flops: float
    memory_time_s: float
    compute_time_s: float | None
    time_s: float
    bound_time_s: float
    bound: str
    tokens: int
    communication_time_s: float = 0.0
    overhead_time_s: float = 0.0

    @property
    def tokens_per_s(self) -> float:
        """Tokens per second of the pass (decode: per sequence; see :class:`DecodeStep`)."""
        return self.tokens / self.time_s


@dataclass(frozen=True)
class DecodeStep(Step):
    """One decode step of ``batch`` sequences at ``context`` cached tokens."""

    batch: int = 1
    context: int = 0

    @property
    def tokens_per_s(self) -> float:
        """Tokens per second each sequence sees (estimate), 1 / step time."""
        return 1.0 / self.time_s

    @property
    def aggregate_tokens_per_s(self) -> float:
        """Tokens per second of the whole batch (estimate), batch / step time."""
        return self.batch / self.time_s

    @property
    def max_aggregate_tokens_per_s(self) -> float:
        """Upper bound on the batch's tokens per second at 100 % efficiencies."""
        return self.batch / self.bound_time_s
