"""Records per subject (issue #29 stage 2): small engine signatures, one reading of the GPU and the model, checks once.

* No engine function takes more than :data:`MAX_PARAMETERS` parameters: the settings travel as records
  (:class:`~calculators.parallel.cluster.Cluster`, :class:`~calculators.performance.training_run.TrainingRun`,
  :class:`~calculators.memory.training_inputs.TrainingSetup`, :class:`~calculators.parallel.step.DataParallelStep`).
* One call reads its GPU and its model once (a counting wrapper around the one reader of each, wherever a
  module holds it).
* A record refuses a bad value naming the field and its range, and a keyword it does not know.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from calculators.catalog.gpus import GPU
from calculators.catalog.models import get_model
from calculators.errors import InputError
from calculators.fit import fit_training
from calculators.inputs import gpu as gpu_input
from calculators.inputs import model as model_input
from calculators.jobs.registry import get_calculator
from calculators.memory.training_inputs import TrainingSetup
from calculators.model import ModelSpec
from calculators.parallel.cluster import Cluster
from calculators.parallel.step_record import DataParallelStep
from calculators.performance.training_run import TrainingRun
from calculators.performance.training_time import training_time
from tests.engine.test_import_layers import LAYER_OF_AREA

PACKAGE = Path(__file__).resolve().parents[2] / "calculators"
SPEC = get_model("llama-3-8b")

#: The most parameters an engine function takes (``self``/``cls`` aside; ``*args`` and ``**kwargs`` count one each).
MAX_PARAMETERS = 8
#: The layers of the engine: everything below the docs, the named calculators and the faces (test_import_layers).
ENGINE_TOP_LAYER = LAYER_OF_AREA["recommend"]

#: Functions still over the limit, by ``module path:function``.
OVER_THE_LIMIT = {
    # serving side, being moved in branch records-serve
    "catalog/custom_gpu.py:custom_gpu",
    "catalog/encoder_models.py:_record",
    "catalog/model_record.py:record",
    "inputs/fields.py:int_field",
    "inputs/fields.py:float_field",
    "memory/inference.py:inference_setup",
    "performance/serving_load.py:serving_load",
    "performance/speed_setup.py:speed_setup",
    "recommend.py:_row",
    "system.py:system_balance",
}


def _parameter_counts() -> dict[str, int]:
    """``module path:function`` -> parameters, for every function of the engine's modules."""
    counts: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        area = "" if parts[0] == "__init__" else parts[0]
        if LAYER_OF_AREA.get(area, ENGINE_TOP_LAYER + 1) > ENGINE_TOP_LAYER:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                arguments = node.args
                names = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
                if names[:1] in (["self"], ["cls"]):
                    names = names[1:]
                count = len(names) + (arguments.vararg is not None) + (arguments.kwarg is not None)
                counts[f"{path.relative_to(PACKAGE).as_posix()}:{node.name}"] = max(
                    count, counts.get(f"{path.relative_to(PACKAGE).as_posix()}:{node.name}", 0))
    return counts


def test_no_engine_function_takes_more_than_eight_parameters() -> None:
    counts = _parameter_counts()
    over = {name: count for name, count in counts.items() if count > MAX_PARAMETERS}
    unexpected = {name: count for name, count in over.items() if name not in OVER_THE_LIMIT}
    assert not unexpected, f"take a record instead of these parameters: {unexpected}"
    moved = sorted(OVER_THE_LIMIT - set(over))
    assert not moved, f"{moved} no longer take more than {MAX_PARAMETERS}: remove them from OVER_THE_LIMIT"
    # the walk sees the engine: the training side's entry points, now small, and a record's constructor
    assert counts["performance/training_time.py:training_time"] == 3  # spec, gpu, **settings
    assert counts["performance/training_time.py:training_run_time"] == 1
    assert counts["parallel/cluster.py:of"] == 2  # gpu, **raw


# --------------------------------------------------------------------------- one reading per call
@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Calls of the GPU reader and the model reader: ``gpu read`` (an id or a description turned into a record),
    ``gpu pass`` (a record handed back untouched), ``model read``, ``model pass``."""
    counts: Counter[str] = Counter()

    def counting(kind: str, reader: Callable[..., Any]) -> Callable[..., Any]:
        def call(value: Any, **options: Any) -> Any:
            counts[f"{kind} {'pass' if isinstance(value, (GPU, ModelSpec)) else 'read'}"] += 1
            return reader(value, **options)
        return call

    readers = {"resolve_gpu": (gpu_input.resolve_gpu, "gpu"), "resolve_model": (model_input.resolve_model, "model")}
    for module in [m for name, m in sys.modules.items() if name == "calculators" or name.startswith("calculators.")]:
        for name, (reader, kind) in readers.items():
            if getattr(module, name, None) is reader:
                monkeypatch.setattr(module, name, counting(kind, reader))
    yield counts


@pytest.mark.parametrize("settings", [
    {"gpus": 64, "tensor_parallel": 2, "pipeline_parallel": 2, "zero": 1, "global_batch_tokens": 4 * 10**6},
    {"method": "lora", "gpus": 8, "zero": 3},  # memory checked per GPU
], ids=["3d-parallel", "lora-zero3"])
def test_training_time_calls_the_gpu_reader_once(calls: Counter[str], settings: dict[str, Any]) -> None:
    training_time(SPEC, "h100-sxm", tokens=10**9, **settings)
    assert calls == {"gpu read": 1}  # by Cluster.of; the model arrives as a record


def test_a_training_fit_calls_the_gpu_reader_once(calls: Counter[str]) -> None:
    fit_training(SPEC, "rtx-4090", method="full", batch=4)  # does not fit one GPU: the searches run too
    assert calls == {"gpu read": 1}


@pytest.mark.parametrize("calculator, values", [
    ("training-time", {"model": "llama-3-8b", "gpu": "h100-sxm", "tokens": "1B", "gpus": "16", "zero": "3"}),
    ("fit", {"model": "llama-3-8b", "gpu": "rtx-4090", "job": "training", "method": "lora", "batch": "2"}),
])
def test_a_training_face_reads_its_model_and_gpu_once(calls: Counter[str], calculator: str,
                                                      values: dict[str, str]) -> None:
    # The face reads the model id and the GPU id once; its engine calls (training-time: one per GPU count of its
    # chart) are handed the records and read neither again.
    get_calculator(calculator).answer(values)
    assert calls["model read"] == 1 and calls["gpu read"] == 1 and calls["model pass"] == 0


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
