"""Operations figures behind a training run's goodput: how often a job is interrupted, what a restart and a save cost.

Each constant is a published figure (or arithmetic on one) with its :class:`~calculators.catalog.sources.Source`;
:mod:`calculators.performance.goodput` turns them into the share of a run's wall clock spent training.

* :data:`MTBI_GPU_HOURS`: GPU-hours between job interruptions, per GPU. Llama 3 405B's pre-training
  (Dubey et al. 2024, section 3.3.4) counted 466 interruptions (47 planned, 419 unexpected) in a 54-day
  snapshot on 16,384 H100s: ``16,384 x 54 x 24 / 466 = 45,566`` GPU-hours. Every interruption, planned or
  not, stops a synchronous job and costs a restart, so all 466 count. BLOOM's 1-2 GPU failures a week on
  about 400 A100s (Hugging Face 2022) is the same order: ``400 x 168 / 1.5 = 44,800`` GPU-hours.
  Meta's research clusters (Kokolis et al. 2024) report shorter times to failure for whole jobs (7.9 hours at
  1,024 GPUs, 8,090 GPU-hours per GPU), counting user and software failures a production run has
  mostly shaken out; they are not used.
* :data:`RESTART_S`: detection + relaunch + reload of one interruption: the median retry interval of an
  automatic restart chain, 11 minutes, on a 504-GPU B200 cluster (Lablup et al. 2026).
* :data:`CHECKPOINT_SAVE_S`: how long a checkpoint save stops training: 6.3 s for a 7B model with PyTorch
  Distributed's asynchronous save (148.8 s synchronous; PyTorch blog 2024).
* :data:`STARTUP_S`: the first launch (scheduler, process groups, data loader, compile) is ``None``, not
  counted: published training times and throughputs (Trainer's ``train_runtime``, steps per second) start
  their clock at the first step, as the time of :func:`~calculators.performance.training_time.training_time` does.

>>> round(MTBI_GPU_HOURS), RESTART_S, CHECKPOINT_SAVE_S
(45566, 660.0, 6.3)
"""

from __future__ import annotations

from calculators.catalog.sources import Source

#: Llama 3 405B's interruption count, snapshot length and GPUs (Dubey et al. 2024, section 3.3.4).
LLAMA3_INTERRUPTIONS = 466
LLAMA3_UNEXPECTED_INTERRUPTIONS = 419
LLAMA3_SNAPSHOT_DAYS = 54
LLAMA3_GPUS = 16384
#: Llama 3's reported effective training time: "higher than 90 %" of the elapsed time (section 3.3.4).
LLAMA3_EFFECTIVE_TRAINING_SHARE = 0.90
LLAMA3_SOURCE = Source(
    "Llama Team, AI @ Meta 2024, 'The Llama 3 Herd of Models' (arXiv:2407.21783), section 3.3.4 Reliability and "
    "Operational Challenges: 466 job interruptions (47 planned, 419 unexpected) in a 54-day snapshot of pre-training "
    "on 16K H100s; effective training time higher than 90 %", "https://arxiv.org/abs/2407.21783", "2024-07-31",
    kind="measured")

#: GPU-hours between interruptions of a synchronous job, per GPU (a job of N GPUs: this / N hours).
MTBI_GPU_HOURS: float = LLAMA3_GPUS * LLAMA3_SNAPSHOT_DAYS * 24 / LLAMA3_INTERRUPTIONS
MTBI_SOURCE = Source(
    "Derived from Llama 3 (arXiv:2407.21783, section 3.3.4): 16,384 GPUs x 54 days x 24 h / 466 interruptions",
    "https://arxiv.org/abs/2407.21783", "2024-07-31", kind="derived")

#: BLOOM 176B: GPUs, failures a week (the middle of "1-2") and checkpoint interval (Hugging Face 2022).
BLOOM_GPUS = 400
BLOOM_FAILURES_PER_WEEK = 1.5
BLOOM_CHECKPOINT_INTERVAL_S = 3 * 3600.0
BLOOM_SOURCE = Source(
    "Hugging Face 2022, 'The Technology Behind BLOOM Training', Training Difficulties: a new cluster of about 400 "
    "GPUs, 1-2 GPU failures a week, a checkpoint every 3 h (100 iterations), on average 1.5 h of training lost a crash",
    "https://huggingface.co/blog/bloom-megatron-deepspeed", "2022-07-14", kind="measured")

#: Meta research clusters' projected job mean time to failure at 1,024 GPUs, hours (not used: see the module doc).
KOKOLIS_MTTF_1024_GPUS_H = 7.9
KOKOLIS_SOURCE = Source(
    "Kokolis et al. 2024, 'Revisiting Reliability in Large-Scale Machine Learning Research Clusters' "
    "(arXiv:2410.21680, HPCA 2025): MTTF of 7.9 h projected for 1,024-GPU jobs on RSC-1/RSC-2",
    "https://arxiv.org/abs/2410.21680", "2024-10-29", kind="measured")

#: Seconds from an interruption to training again (detection, relaunch, checkpoint load).
RESTART_S = 11 * 60.0
RESTART_SOURCE = Source(
    "Lablup et al. 2026, 'From Detection to Recovery: Operational Analysis on LLM Pre-training with 504 GPUs' "
    "(arXiv:2605.09370): median retry interval of automatic restart chains 11 min (IQR 10-11) on 63 B200 nodes",
    "https://arxiv.org/abs/2605.09370", "2026-05-01", kind="measured")

#: Seconds a checkpoint save stops training (asynchronous save; the synchronous one is :data:`SYNC_SAVE_S`).
CHECKPOINT_SAVE_S = 6.3
SYNC_SAVE_S = 148.8
SAVE_SOURCE = Source(
    "PyTorch blog 2024-06-12, 'Reducing Model Checkpointing Times by Over 10x with PyTorch Distributed Asynchronous "
    "Checkpointing': a 7B model's checkpoint down time from an average of 148.8 s to 6.3 s",
    "https://pytorch.org/blog/reducing-checkpointing-times/", "2024-06-12", kind="measured")

#: Seconds of the first launch counted in a run's time: unknown as a general figure, and not part of the time the
#: published figures (and train-time) measure, which starts at the first step.
STARTUP_S: float | None = None

#: The checkpoint interval: Young's first-order optimum, sqrt(2 x save time x job's time between interruptions).
YOUNG_SOURCE = Source(
    "Young 1974, 'A first order approximation to the optimum checkpoint interval', CACM 17(9); rederived by Saxena "
    "et al. 2024 (NVIDIA, arXiv:2410.18124): interval = sqrt(2 x save time x mean time between failures)",
    "https://arxiv.org/abs/2410.18124", "2024-10-15", kind="derived")
