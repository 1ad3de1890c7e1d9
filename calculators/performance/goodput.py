"""Goodput of a training run: the share of its wall clock spent training, from interruptions and checkpoint saves.

A synchronous job of ``N`` GPUs stops whenever one of them (or its host, link or switch) fails. Over a
wall time ``W`` it expects ``N x W / MTBI`` interruptions (``MTBI``: GPU-hours between interruptions per
GPU, :data:`~calculators.catalog.goodput.MTBI_GPU_HOURS`), each costing a restart ``R`` (detection,
relaunch, reload) plus the work since the last checkpoint, half an interval ``I`` on average. Saving a
checkpoint stops training for ``S`` every ``I`` of training. So, with ``T`` the steady-state time:

``W = (T + T / I x S) / (1 - N x (R + I / 2) / MTBI)``, ``goodput = T / W``

The interval is the run's own where given, else Young's optimum ``I = sqrt(2 x S x MTBI / N)``
(:data:`~calculators.catalog.goodput.YOUNG_SOURCE`). The lost share ``N x (R + I / 2) / MTBI`` grows
with the GPUs, not with the run's length: a 90-minute benchmark on 8 GPUs loses almost nothing (0.1 %),
a 54-day run on 16,384 GPUs a tenth, as Llama 3 reports (section 3.3.4: 466 interruptions, effective
training time above 90 %). A job whose GPUs fail faster than it can restart and redo its work
(``N x (R + I / 2) >= MTBI``) never finishes, and is refused.

>>> small = run_goodput(gpus=8, steady_s=90 * 60)
>>> round(small.goodput, 3), round(small.interruptions, 4)
(0.999, 0.0003)

References:
    docs page "Training time" (Goodput); :mod:`calculators.catalog.goodput` for each constant's source.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from calculators.catalog import goodput as ops
from calculators.errors import InputError
from calculators.units import SECONDS_PER_HOUR
from calculators.validate import finite_float, positive_int

MAX_GPUS = 1 << 20


@dataclass(frozen=True)
class Goodput:
    """A run's goodput and what it is made of.

    Attributes:
        gpus: GPUs of the job.
        steady_s: training time at steady state, seconds.
        wall_s: expected wall-clock time with interruptions and saves, seconds.
        interruptions: expected interruptions over ``wall_s``.
        restart_s, checkpoint_interval_s, checkpoint_save_s, mtbi_gpu_hours: the constants used.
        interval_given: the checkpoint interval was given (not Young's optimum).
    """

    gpus: int
    steady_s: float
    wall_s: float
    interruptions: float
    restart_s: float
    checkpoint_interval_s: float
    checkpoint_save_s: float
    mtbi_gpu_hours: float
    interval_given: bool = False

    @property
    def goodput(self) -> float:
        """Steady-state time / wall time, in (0, 1]."""
        return self.steady_s / self.wall_s

    @property
    def saves(self) -> float:
        """Checkpoint saves over the run (expected, fractional)."""
        return self.steady_s / self.checkpoint_interval_s

    @property
    def checkpoint_s(self) -> float:
        """Seconds spent saving checkpoints."""
        return self.saves * self.checkpoint_save_s

    @property
    def lost_s(self) -> float:
        """Seconds lost to interruptions: restarts plus the work redone since the last checkpoint."""
        return self.interruptions * (self.restart_s + self.checkpoint_interval_s / 2)

    def to_dict(self) -> dict[str, float | int | bool]:
        """JSON-ready dict (seconds, counts)."""
        return {"goodput": self.goodput, "gpus": self.gpus, "steady_s": self.steady_s, "wall_s": self.wall_s,
                "interruptions": self.interruptions, "lost_s": self.lost_s, "restart_s": self.restart_s,
                "checkpoint_interval_s": self.checkpoint_interval_s, "checkpoint_save_s": self.checkpoint_save_s,
                "checkpoints": self.saves, "checkpoint_s": self.checkpoint_s, "mtbi_gpu_hours": self.mtbi_gpu_hours,
                "interval_given": self.interval_given}

    def assumption(self) -> str:
        """One line for a train-time answer: interruptions expected, hours lost, checkpoint overhead."""
        interval = ("given" if self.interval_given else "Young's optimum sqrt(2 x save x time between interruptions)")
        return (f"whole run = steady state / goodput {self.goodput:.3f}: {_count(self.interruptions)} interruptions "
                f"expected ({self.gpus:,} GPU{'s' if self.gpus > 1 else ''} x {_hours(self.wall_s)} h / "
                f"{self.mtbi_gpu_hours:,.0f} GPU-hours between interruptions, Llama 3's 466 in 54 days on 16,384 "
                f"GPUs), each a restart of {self.restart_s / 60:.3g} min plus half a checkpoint interval of "
                f"{self.checkpoint_interval_s / 60:,.3g} min ({interval}) of work redone: {_hours(self.lost_s)} h lost; "
                f"{_count(self.saves)} checkpoint saves of {self.checkpoint_save_s:.3g} s: "
                f"{_hours(self.checkpoint_s)} h; start-up not counted")


def _count(value: float) -> str:
    """An expected count as text: whole from 100 up, else three significant figures."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def _hours(seconds: float) -> str:
    """Hours as text: whole hours from 100 up, else three significant figures."""
    hours = seconds / SECONDS_PER_HOUR
    return f"{hours:,.0f}" if hours >= 100 else f"{hours:.3g}"


def run_goodput(*, gpus: int, steady_s: float, checkpoint_interval_s: float | None = None,
                mtbi_gpu_hours: float | None = None, restart_s: float | None = None,
                checkpoint_save_s: float | None = None) -> Goodput:
    """Expected goodput of a run of ``steady_s`` seconds at steady state on ``gpus`` GPUs (module formula).

    Args:
        gpus: GPUs of the job (every one stops it when it fails).
        steady_s: training time at steady state, seconds (> 0).
        checkpoint_interval_s: seconds of training between checkpoints; ``None``: Young's optimum.
        mtbi_gpu_hours: GPU-hours between interruptions per GPU; ``None``: Llama 3's
            (:data:`~calculators.catalog.goodput.MTBI_GPU_HOURS`).
        restart_s, checkpoint_save_s: ``None``: :data:`~calculators.catalog.goodput.RESTART_S`,
            :data:`~calculators.catalog.goodput.CHECKPOINT_SAVE_S`.

    Raises:
        InputError: a value out of range, or a job that loses more to interruptions than it trains.

    >>> g = run_goodput(gpus=16384, steady_s=48.6 * 86400)
    >>> round(g.goodput, 2), round(g.wall_s / 86400)
    (0.9, 54)
    """
    gpus = positive_int("gpus", gpus, maximum=MAX_GPUS)
    steady_s = finite_float("steady_s", steady_s, minimum=0.0, maximum=1e15, allow_minimum=False)
    mtbi_h = ops.MTBI_GPU_HOURS if mtbi_gpu_hours is None else finite_float(
        "mtbi_gpu_hours", mtbi_gpu_hours, minimum=0.0, maximum=1e12, allow_minimum=False)
    restart = ops.RESTART_S if restart_s is None else finite_float("restart_s", restart_s, minimum=0.0, maximum=1e7)
    save = ops.CHECKPOINT_SAVE_S if checkpoint_save_s is None else finite_float(
        "checkpoint_save_s", checkpoint_save_s, minimum=0.0, maximum=1e7)
    job_mtbi_s = mtbi_h * SECONDS_PER_HOUR / gpus
    if checkpoint_interval_s is None:
        # Young's optimum; a run with free saves would checkpoint every step, so keep at least a second.
        interval = max(1.0, math.sqrt(2.0 * save * job_mtbi_s))
    else:
        interval = finite_float("checkpoint_interval_s", checkpoint_interval_s, minimum=0.0, maximum=1e12,
                                allow_minimum=False)
    lost_share = (restart + interval / 2.0) / job_mtbi_s
    if lost_share >= 1.0:
        raise InputError("gpus", gpus, f"a job that trains between interruptions: {gpus:,} GPUs are interrupted every "
                         f"{job_mtbi_s / 60:,.3g} min, less than a restart plus half a checkpoint interval "
                         f"({(restart + interval / 2) / 60:,.3g} min); use fewer GPUs or a larger mtbi_gpu_hours")
    wall = steady_s * (1.0 + save / interval) / (1.0 - lost_share)
    return Goodput(gpus=gpus, steady_s=steady_s, wall_s=wall, interruptions=gpus * wall / (mtbi_h * SECONDS_PER_HOUR),
                   restart_s=restart, checkpoint_interval_s=interval, checkpoint_save_s=save, mtbi_gpu_hours=mtbi_h,
                   interval_given=checkpoint_interval_s is not None)
