"""Records per subject (issue #29 stage 2): small engine signatures, one reading of the GPU and the model, checks once.

* The settings travel as records (:class:`~calculators.parallel.cluster.Cluster`,
  :class:`~calculators.performance.training_run.TrainingRun`, :class:`~calculators.memory.training_inputs.TrainingSetup`,
  :class:`~calculators.parallel.step.DataParallelStep`), so no function takes more than 8 parameters
  (``tests/engine/test_parameter_counts.py``).
* One call reads its GPU and its model once (a counting wrapper around the one reader of each, wherever a
  module holds it).
* A record refuses a bad value naming the field and its range, and a keyword it does not know.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from calculators.catalog.models import get_model
from calculators.errors import InputError
from calculators.fit import fit_training
from calculators.jobs.registry import get_calculator
from calculators.memory.training_inputs import TrainingSetup
from calculators.parallel.cluster import Cluster
from calculators.parallel.step_record import DataParallelStep
from calculators.performance.training_run import TrainingRun
from calculators.performance.training_time import training_time

SPEC = get_model("llama-3-8b")

# --------------------------------------------------------------------------- one reading per call
# ``reads`` (tests/engine/conftest.py) counts the calls of the GPU reader and the model reader.

@pytest.mark.parametrize("settings", [
    {"gpus": 64, "tensor_parallel": 2, "pipeline_parallel": 2, "zero": 1, "global_batch_tokens": 4 * 10**6},
    {"method": "lora", "gpus": 8, "zero": 3},  # memory checked per GPU
], ids=["3d-parallel", "lora-zero3"])
def test_training_time_calls_the_gpu_reader_once(reads: Counter[str], settings: dict[str, Any]) -> None:
    training_time(SPEC, "h100-sxm", tokens=10**9, **settings)
    assert reads == {"gpu read": 1}  # by Cluster.of; the model arrives as a record


def test_a_training_fit_calls_the_gpu_reader_once(reads: Counter[str]) -> None:
    fit_training(SPEC, "rtx-4090", method="full", batch=4)  # does not fit one GPU: the searches run too
    assert reads == {"gpu read": 1}


@pytest.mark.parametrize("calculator, values", [
    ("training-time", {"model": "llama-3-8b", "gpu": "h100-sxm", "tokens": "1B", "gpus": "16", "zero": "3"}),
    ("fit", {"model": "llama-3-8b", "gpu": "rtx-4090", "job": "training", "method": "lora", "batch": "2"}),
])
def test_a_training_face_reads_its_model_and_gpu_once(reads: Counter[str], calculator: str,
                                                      values: dict[str, str]) -> None:
    # The face reads the model id and the GPU id once; its engine calls (training-time: one per GPU count of its
    # chart) are handed the records and read neither again.
    get_calculator(calculator).answer(values)
    assert reads["model read"] == 1 and reads["gpu read"] == 1 and reads["model pass"] == 0


# --------------------------------------------------------------------------- each record checks itself
@pytest.mark.parametrize("make, field, message", [
    (lambda: Cluster.of(gpu="h100-sxm", gpus=0), "gpus", "an integer from 1 to 65536"),
    (lambda: Cluster.of(gpu="h100-sxm", gpus=8, zero=4), "zero", "an integer from 0 to 3"),
    (lambda: Cluster.of(gpu="h100-sxm", gpus=8, tensor_parallel=3), "gpus", "a multiple of the GPUs per model"),
    (lambda: Cluster.of(gpu="h100-sxm", gpus=8, expert_parallel=3), "expert_parallel", "a divisor of the GPUs"),
    (lambda: Cluster.of(gpu="h100-sxm", nics_per_node=65), "nics_per_node", "an integer from 1 to 64"),
    (lambda: Cluster.of(gpu="h100-sxm", pipeline_parallel=2048), "pipeline_parallel", "an integer from 1 to 1024"),
    (lambda: Cluster.of(gpu="h100-sxm", tp=2), "tp", "a cluster setting: gpu, gpus"),
    (lambda: TrainingRun.of(spec=SPEC, gpu="h100-sxm", tokens=0), "tokens", "an integer from 1 to"),
    (lambda: TrainingRun.of(spec=SPEC, gpu="h100-sxm", tokens=10**9, mfu=1.5), "mfu", "a number from"),
    (lambda: TrainingRun.of(spec=SPEC, gpu="h100-sxm", tokens=10**9, goodput=0), "goodput", "a number from"),
    (lambda: TrainingRun.of(spec=SPEC, gpu="h100-sxm", tokens=10**9, expert_parallel=8, gpus=8),
     "expert_parallel", "1 for a dense model"),
    (lambda: TrainingRun.of(spec=SPEC, gpu="h100-sxm", tokens=10**9, grad_accumulation=2, global_batch_tokens=10**6),
     "grad_accumulation", "1 when global_batch_tokens is given"),
    (lambda: TrainingRun.of(spec=SPEC, gpu="a100-80gb-sxm", tokens=10**9, fp8=True), "gpu",
     "a published dense FP8 rate"),
    (lambda: TrainingRun.of(spec=SPEC, gpu="h100-sxm", tokens=10**9, lora_targets=""), "lora_targets", "at least one"),
    (lambda: TrainingRun.of(spec=SPEC, gpu="h100-sxm", tokens=10**9, steps=5), "steps", "a training-run setting"),
    (lambda: TrainingRun.of(spec=SPEC, gpu="h100-sxm", tokens=10**9, attention="eager",
                            attention_kernel="flash-attention-2"), "attention_kernel", "'auto' with attention 'eager'"),
    (lambda: TrainingRun.of(spec=SPEC, gpu="h100-sxm", tokens=10**9, grad_checkpointing=True,
                            selective_recompute="every-other-layer"), "selective_recompute", "'none' with full"),
    (lambda: TrainingSetup.of(seq=0), "seq", "an integer from 1 to"),
    (lambda: TrainingSetup.of(method="qlora", base_dtype="bf16"), "base_dtype", "nf4 for method qlora"),
    (lambda: TrainingSetup.of(optimiser="adamw"), "optimiser", "a training-step setting"),
    (lambda: DataParallelStep.of(grad_dtype="int8"), "grad_dtype", "one of"),
    (lambda: DataParallelStep.of(efficiency=0), "efficiency", ""),
])
def test_a_record_refuses_a_bad_value_naming_the_field(make: Callable[[], object], field: str, message: str) -> None:
    with pytest.raises(InputError) as error:
        make()
    assert error.value.field == field
    assert message in str(error.value)


def test_a_record_is_frozen_and_holds_checked_values() -> None:
    run = TrainingRun.of(spec=SPEC, gpu="h100-sxm", tokens="1000000", gpus=16, tensor_parallel=2, interconnect=" NVLink4 ",
                         lora_targets="v_proj,q_proj", method="lora", batch=2, seq=1024,
                         global_batch_tokens=65536)
    # 16 GPUs in replicas of 2: 8 replicas x 2 x 1,024 tokens = 16,384 a micro-batch round, 4 per step
    assert (run.cluster.data_parallel, run.setup.grad_accumulation, run.tokens) == (8, 4, 10**6)
    assert run.cluster.interconnect == "nvlink4" and run.setup.lora_targets == ("q", "v")
    with pytest.raises(AttributeError):
        run.tokens = 5  # type: ignore[misc]
