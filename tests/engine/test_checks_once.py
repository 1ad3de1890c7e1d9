"""How often one answer builds a checked record (#29 stage 2: "each value is checked once per call").

A record's ``.of`` constructor is where raw settings are checked; an engine that already holds the record passes
it on (``training_memory_of``, ``inference_memory_of``, ``estimate=``) instead of rebuilding it from settings.
The counts below are the ``.of`` calls of one answer, measured with a profile hook; a refactor that starts
rebuilding a record in an inner loop fails here. Counts before the stage-2 follow-up (main at af3de26):
``training_time`` 14 (12 ``TrainingSetup.of``), ``fit_training`` 4 (36 for LoRA at micro-batch 4), ``fit_inference`` 67, ``inference_speed`` 3.

What stays above one, and why: every change ``training_fit_advice`` tries (checkpointing, micro-batch 1, an
8-bit optimizer, ZeRO-3, LoRA, QLoRA, a shorter sequence, more GPUs) is a different training step, checked as
such (``training_memory(spec, **changed settings)``); so is each GPU count ``training_placement`` tries.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest

import calculators
from calculators import validate
from calculators.errors import UnknownNameError
from calculators.memory.inference_request import InferenceRequest
from calculators.memory.training_inputs import TrainingSetup
from calculators.parallel.cluster import Cluster
from calculators.parallel.step_record import DataParallelStep
from calculators.performance.served import Load, ServedModel
from calculators.performance.speed_setup import SpeedSetup
from calculators.performance.training_run import TrainingRun
from calculators.system import HostJob

RECORDS = (TrainingRun, Cluster, TrainingSetup, DataParallelStep, SpeedSetup, InferenceRequest, ServedModel, Load,
           HostJob)
CONSTRUCTORS = {record.of.__func__.__code__: record.__name__ for record in RECORDS}  # type: ignore[attr-defined]


def _profiled(answer: Callable[[], Any], hook: Callable[[FrameType, str, Any], None]) -> None:
    """Run ``answer()`` with ``hook`` as the profile function (every Python call and return), then restore the old one."""
    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        answer()
    finally:
        sys.setprofile(previous)


def records_built(answer: Callable[[], Any]) -> Counter[str]:
    """The ``.of`` calls per record while ``answer()`` runs."""
    built: Counter[str] = Counter()

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in CONSTRUCTORS:
            built[CONSTRUCTORS[frame.f_code]] += 1

    _profiled(answer, hook)
    return built



#: The checks of calculators.validate, by code object (a check another check calls counts once, as its caller).
CHECKS = {function.__code__: name for name in ("model_spec", "one_of", "positive_int", "nonnegative_int",
                                               "finite_float", "instance_of")
          for function in [getattr(validate, name)]}


def checks_made(answer: Callable[[], Any]) -> Counter[str]:
    """The calls of the checks of :mod:`calculators.validate` while ``answer()`` runs, by check and calling module."""
    made: Counter[str] = Counter()

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in CHECKS and frame.f_back is not None \
                and frame.f_back.f_code not in CHECKS:
            module = frame.f_back.f_globals.get("__name__", "")
            made[f"{CHECKS[frame.f_code]} {module.removeprefix('calculators.')}"] += 1

    _profiled(answer, hook)
    return made

SPEC = calculators.get_model("llama-3.1-8b")
GPU = calculators.get_gpu("h100-sxm")


def test_training_time_checks_the_run_once() -> None:
    # Eight H100s, full fine-tuning with DDP: the step does not fit, so the fit advice runs. TrainingSetup.of:
    # the run's own step (1), the five changes that apply (checkpointing, 8-bit AdamW, ZeRO-3, LoRA, QLoRA), one
    # step of the sequence search, two of the GPU search with ZeRO-3 and one with checkpointing too: 10. Before,
    # the advice and the GPU search each checked the run's own step again: 12.
    built = records_built(lambda: calculators.training_time(SPEC, GPU, tokens=10**9, gpus=8))
    assert built == Counter({"TrainingRun": 1, "Cluster": 1, "TrainingSetup": 10})


def test_training_time_that_fits_builds_each_record_once() -> None:
    built = records_built(lambda: calculators.training_time(SPEC, GPU, tokens=10**9, gpus=8, zero=3,
                                                            grad_checkpointing=True))
    assert built == Counter({"TrainingRun": 1, "Cluster": 1, "TrainingSetup": 1})


def test_fit_training_checks_its_step_once_and_searches_the_record() -> None:
    # Its max-batch and max-sequence searches vary the checked setup (dataclasses.replace within the ranges
    # TrainingSetup.of accepts). What remains: the step, and the GPU search's steps (other GPU counts, ZeRO-3).
    # Full fine-tuning that fits no single H100: 2 (was 4); LoRA at micro-batch 4, which fits: 3 (was 36).
    assert records_built(lambda: calculators.fit_training(SPEC, GPU)) == Counter({"TrainingSetup": 2})
    lora = records_built(lambda: calculators.fit_training(SPEC, GPU, method="lora", batch=4))
    assert lora == Counter({"TrainingSetup": 3})


def test_the_plan_face_hands_its_training_step_to_the_advice() -> None:
    # The plan face for 8B full fine-tuning on one H100 (seq 4096, micro-batch 1, no checkpointing: its model
    # states alone, 16 bytes a weight, exceed 80 GB, so no sequence fits and the advice runs). TrainingSetup.of:
    # - the training_time engine: the run's step (1), its fit advice's probes (checkpointing, 8-bit AdamW, LoRA,
    #   QLoRA, one sequence probe: 5) and its search for more GPUs (2 and 4 with ZeRO-3: 2), 8;
    # - the face: none; the step, the changes and the placement (the engine's GPU search, made once for its
    #   advice) are the engine's (TrainingTime.memory_estimate, memory_changes, memory_placement), handed to the
    #   advice (10 before: the face checked the step again (1), searched the GPUs again (2) and the advice reran
    #   the 5 probes and the 2 GPU counts (7));
    # - the speed costs: one training_time for the step as set and one for each of the 3 changes that fit (LoRA,
    #   QLoRA, 4 GPUs), 4, each with its TrainingRun and Cluster (5 of each with the engine's own).
    # 8 + 0 + 4 = 12 (22 before).
    from calculators.jobs.registry import get_calculator

    plan = get_calculator("plan")
    built = records_built(lambda: plan.answer({"model": "llama-3.1-8b", "gpu": "h100-sxm", "job": "full"}))
    assert built == Counter({"TrainingRun": 5, "Cluster": 5, "TrainingSetup": 12})


def test_the_training_time_face_reuses_the_engines_advice_and_searches_none_per_bar() -> None:
    # The training-time face for 8B full fine-tuning on its 8 H100s with DDP (ZeRO-0: does not fit). TrainingSetup.of:
    # - the training_time engine, as in test_training_time_checks_the_run_once: 10;
    # - the face: none; the step, the changes and the placement (1 GPU as set, 2 with ZeRO-3) are the engine's
    #   (before: the placement and the advice each checked the step again, 2, the face searched the GPUs again, 2,
    #   and the advice reran the engine's 5 probes, 1 sequence probe and 3 GPU counts, 9);
    # - the speed costs: the step as set and its 4 changes that fit (ZeRO-3, LoRA, QLoRA, 16 GPUs), 5;
    # - the chart's other GPU counts (1, 64, 512, 4096): their step each, 4, and no search for changes that would
    #   make a bar fit (advise=False; before: 6 to 9 more each, 32 in all, that no bar showed).
    # 10 + 0 + 5 + 4 = 19 (64 before: 13 + 32 more).
    from calculators.jobs.registry import get_calculator

    face = get_calculator("training-time")
    built = records_built(lambda: face.answer({"model": "llama-3.1-8b", "gpu": "h100-sxm", "tokens": "1B",
                                               "zero": "0"}))
    assert built == Counter({"TrainingRun": 10, "Cluster": 10, "TrainingSetup": 19})


def test_the_inference_advice_estimates_the_job_once_or_takes_the_faces() -> None:
    # Llama 3.1 70B at 8k on one H100 (bf16 weights alone exceed 80 GB). InferenceRequest.of: the job (1), the three
    # smaller weight formats (int8, fp8, int4: 3), the fp8 KV cache (1) and one prompt-length probe (no prompt fits
    # beside the weights: 1); the fewest GPUs split that same job's estimate. 6 (7 before: the GPU search estimated
    # the job again). Handed the face's estimate (the memory and fit faces do), the job is not estimated: 5.
    from calculators.fit.advice import inference_fit_advice
    from calculators.memory.inference import inference_memory

    spec = calculators.get_model("llama-3.1-70b")
    own = records_built(lambda: inference_fit_advice(spec, GPU, context=8192))
    job = inference_memory(spec, context=8192)
    handed = records_built(lambda: inference_fit_advice(spec, GPU, estimate=job, context=8192))
    assert (own, handed) == (Counter({"InferenceRequest": 6}), Counter({"InferenceRequest": 5}))


def test_fit_inference_checks_its_request_once() -> None:
    # Its max-batch and max-context searches vary the checked request (dataclasses.replace within the ranges
    # InferenceRequest.of accepts) instead of checking settings again per probe: 67 InferenceRequest.of before.
    built = records_built(lambda: calculators.fit_inference(SPEC, GPU))
    assert built == Counter({"InferenceRequest": 1})


def test_an_inference_estimate_checks_its_request_once() -> None:
    # InferenceRequest.of checks each raw setting once: weights, KV cache, attention and device by name (4),
    # context, batch and image side in range (3), new tokens and images (2); inference_memory checks the record (1).
    # Below, the cache is that of the checked request (memory.kv_cache's *_of: no check of batch, context or KV dtype
    # again), the prefill's attention path is read once (the record, the device, the mask: 3, was 6 with the cache's
    # 4 more: 26 checks before), and the runtime overhead checks its allocator and sizes (3). 9 + 1 + 3 + 3 = 16.
    made = checks_made(lambda: calculators.inference_memory(SPEC, context=4096))
    assert made == Counter({"one_of memory.inference_request": 4, "positive_int memory.inference_request": 3,
                            "nonnegative_int memory.inference_request": 2, "model_spec memory.inference": 1,
                            "model_spec memory.kernels": 2, "one_of memory.kernels": 1,
                            "nonnegative_int memory.overhead": 2, "one_of memory.overhead": 1})


def test_a_decode_step_checks_its_record_once() -> None:
    # decode_flops_per_token checks its context and its record once (matmul_parameters); the attended tokens are the
    # record's own count (was attended_tokens, a second check of the record per call: ~260 per inference_speed call).
    from calculators.performance.forward_pass import decode_flops_per_token

    made = checks_made(lambda: decode_flops_per_token(SPEC, context=4096))
    assert made == Counter({"nonnegative_int performance.forward_pass": 1, "model_spec model_flops": 1})
    with pytest.raises(calculators.InputError, match="^spec: got None"):
        decode_flops_per_token(None, context=4096)  # type: ignore[arg-type]


def test_the_public_cache_functions_still_check() -> None:
    # The *_of functions trust a checked request; the public entries keep their checks.
    with pytest.raises(calculators.InputError, match="^batch: got 0"):
        calculators.kv_cache_bytes(SPEC, batch=0, context=8)
    with pytest.raises(calculators.InputError, match="^kv_dtype: got 'int4'"):
        calculators.kv_cache_bytes(SPEC, batch=1, context=8, kv_dtype="int4")


def test_inference_speed_builds_one_speed_setup_and_one_request() -> None:
    # The request is the setup's own (SpeedSetup.of checks the serving inputs through InferenceRequest.of);
    # the memory is computed from it, not from settings again.
    built = records_built(lambda: calculators.inference_speed(SPEC, GPU, context=4096, new_tokens=256))
    assert built == Counter({"SpeedSetup": 1, "InferenceRequest": 1})


def test_the_cluster_checks_its_link_and_nic_ids_once() -> None:
    # ring_link used to look the ids up and refuse unknown ones at each use; Cluster.of now does, on one GPU too.
    with pytest.raises(UnknownNameError) as nic:
        Cluster.of(gpu="h100-sxm", gpus=1, nic="infiniband-xyz")
    with pytest.raises(UnknownNameError) as link:
        Cluster.of(gpu="h100-sxm", gpus=1, interconnect="nvlink-xyz")
    assert (nic.value.field, link.value.field) == ("nic", "interconnect")
    assert Cluster.of(gpu="h100-sxm", interconnect=" NVLink4 ").interconnect == "nvlink4"
