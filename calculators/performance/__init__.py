"""Speed and time: decode and prefill rates of inference, and wall-clock time of training.

Every figure here divides work (bytes moved, FLOPs executed) by a rate from the GPU
catalog times an efficiency that is passed in and stated in the result. With every
efficiency at 1 the division is a bound on time, never the time itself; with the
documented default efficiencies it is an estimate, checked against published
measurements on the "Inference speed" and "Training time" pages.

Modules: :mod:`~calculators.performance.flops` (compute rates; the FLOP counts are in :mod:`calculators.model_flops`),
:mod:`~calculators.performance.inference_speed` (decode roofline, prefill, generation) with its
settings in :mod:`~calculators.performance.speed_setup` (engine, weight format, efficiencies), the
per-pass formula in :mod:`~calculators.performance.roofline` and its result records in
:mod:`~calculators.performance.steps`,
:mod:`~calculators.performance.batching` (static vs continuous batching utilisation),
:mod:`~calculators.performance.serving_load` (continuous batching at a concurrency or a request rate; its
result record in :mod:`~calculators.performance.serving_result`),
:mod:`~calculators.performance.training_time` (6·N·D with attention and recomputation),
:mod:`~calculators.performance.published` (the measurements they are checked against).
"""
