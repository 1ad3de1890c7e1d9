"""Multi-GPU communication: collective times over a link, and a data-parallel step's communication vs compute.

* :mod:`calculators.parallel.collectives`: ring all-reduce, reduce-scatter and
  all-gather times (alpha-beta model over the per-direction link bandwidth) and
  nccl-tests' bus-bandwidth convention.
* :mod:`calculators.parallel.step`: what DDP and ZeRO-1/2/3 send per step, how long it
  takes, how much overlap can hide, and when the interconnect is the bottleneck.
* :mod:`calculators.parallel.measured`: published nccl-tests bus bandwidths, for
  validation.

Per-GPU memory under ZeRO is not re-derived here: it comes from
:func:`calculators.memory.training.training_memory` with ``gpus`` and ``zero``.
"""
